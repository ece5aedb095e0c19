/**
 * Feishu/Lark's part of the test harness: the loopback Lark emulator, the real adapter (official SDK)
 * over the long connection or the webhook (whichever the config asks for; events are signed with its
 * `encrypt_key` and carry its `verification_token`), and the handles a test works with — a person's
 * message and the bot's reply to it, a card button press and its callback answer, and the neutral chat
 * handles.
 */
import { feishuConfig } from "../../../adapters/feishu/config.js";
import {
  createFeishuAdapter,
  type FeishuAdapter,
  type FeishuTuning,
} from "../../../adapters/feishu/index.js";
import { FEISHU_MAX_CHARS } from "../../../adapters/feishu/render.js";
import { parseConfig } from "../../../src/config/config.js";
import { silentLogger } from "../../../src/core/logger.js";
import { LarkEmulator, type LarkSend, type MessageEventOptions } from "../../emulators/lark.js";
import type { PlatformKit } from "./kit.js";
import {
  type BaseRun,
  type BotMessage,
  type ChatHandles,
  type Person,
  type Place,
  type Said,
  settle,
  type WithChat,
} from "./shared.js";

/** The people's open_ids. */
export const FEISHU_IDS: Record<Person, string> = {
  admin: "ou_admin_0001",
  member: "ou_bob_0002",
  stranger: "ou_eve_0003",
};
/** The shared group chat. */
export const FEISHU_GROUP = "oc_ops";

/** What `LarkEmulator`'s constructor takes. */
export type LarkEmulatorOptions = NonNullable<ConstructorParameters<typeof LarkEmulator>[0]>;

/** What a booted Feishu run offers beyond the shared base. */
export interface FeishuHandles extends WithChat {
  /**
   * A message event from a person (the admin in a p2p chat unless `options` say otherwise), carrying the
   * configured verification token; a group message goes to `FEISHU_GROUP` and mentions the bot unless
   * `options` say otherwise.
   */
  message(text: string, options?: Omit<MessageEventOptions, "text">): Record<string, unknown>;
  /**
   * Delivers an event over the connection in use (the long connection, or the webhook, signed) and
   * resolves with the answer: the long connection's ack data or the webhook's parsed body, and the status.
   */
  deliver(event: Record<string, unknown>): Promise<{ status: number; answer: Record<string, unknown> }>;
  /**
   * Delivers `event` (or a p2p message from the admin saying `text`), which must be accepted (200) with
   * nothing more in the answer, and resolves with the bot's reply to it.
   */
  ask(event: Record<string, unknown> | string): Promise<LarkSend>;
  /**
   * Presses a card button (the delivery must be accepted, 200); resolves with the callback's answer (what
   * the presser sees at once) when the gateway is idle again.
   */
  press(input: Parameters<LarkEmulator["cardActionEvent"]>[0]): Promise<Record<string, unknown>>;
}

type FeishuRun = BaseRun<"feishu", LarkEmulator, FeishuAdapter>;

/** Feishu/Lark, as the harness boots it. */
export const feishuKit: PlatformKit<
  "feishu",
  LarkEmulator,
  LarkEmulatorOptions & { fileSizeLimit?: number },
  FeishuAdapter,
  Partial<FeishuTuning>,
  FeishuHandles
> = {
  platform: "feishu",
  ids: FEISHU_IDS,
  isEmulator: (value): value is LarkEmulator => value instanceof LarkEmulator,
  emulator: (options) => {
    const { fileSizeLimit, ...rest } = options ?? {};
    const emulator = new LarkEmulator(rest);
    if (fileSizeLimit) emulator.fileSizeLimit = fileSizeLimit;
    return emulator;
  },
  listen: (emulator) => emulator.listen(),
  close: (emulator) => emulator.close(),
  section: (emulator) => ({ mode: "websocket", domain: emulator.url }),
  secrets: (emulator) => ({ FEISHU_APP_ID: emulator.appId, FEISHU_APP_SECRET: emulator.appSecret }),
  adapter: (options) => createFeishuAdapter(options),
  handles: (run) => {
    const message: FeishuHandles["message"] = (text, options = {}) => {
      return run.emulator.messageEvent({
        senderOpenId: FEISHU_IDS.admin,
        token: feishuConfig(run.config).verificationToken,
        ...(options.chatType === "group" ? { chatId: FEISHU_GROUP, mentionBot: true } : {}),
        ...options,
        text,
      });
    };
    const deliver: FeishuHandles["deliver"] = async (event) => {
      const url = run.adapter.webhookUrl;
      if (!url) {
        const ack = await run.emulator.pushWsEvent(event);
        return { status: ack.code, answer: (ack.data ?? {}) as Record<string, unknown> };
      }
      const response = await run.emulator.deliverWebhook(url, event, {
        encryptKey: feishuConfig(run.config).encryptKey,
      });
      return { status: response.status, answer: response.body ? JSON.parse(response.body) : {} };
    };
    return {
      message,
      deliver,
      async ask(input) {
        const event = typeof input === "string" ? message(input) : input;
        const answer = await accepted(deliver(event));
        // A message event is acknowledged with its status alone; the answer carries nothing.
        if (Object.keys(answer).length > 0)
          throw new Error(`harness: a message event was answered with ${JSON.stringify(answer)}`);
        const id = messageIdOf(event);
        return run.emulator.waitForSend((send) => send.kind === "reply" && send.target === id, 8000);
      },
      async press(input) {
        const event = run.emulator.cardActionEvent({
          token: feishuConfig(run.config).verificationToken,
          ...input,
        });
        const answer = await accepted(deliver(event));
        await settle(run.gateway);
        return answer;
      },
      chat: feishuChat(run, deliver),
    };
  },
};

/** The answer of a delivery Feishu's side took (200); any other status fails the test. */
async function accepted(
  delivery: Promise<{ status: number; answer: Record<string, unknown> }>,
): Promise<Record<string, unknown>> {
  const { status, answer } = await delivery;
  if (status !== 200) throw new Error(`harness: the event was answered with ${status}, not 200`);
  return answer;
}

/** The `message_id` of a message event. */
export function messageIdOf(event: Record<string, unknown>): string {
  return (event.event as { message: { message_id: string } }).message.message_id;
}

/** The neutral handles on Feishu: a person's p2p chat is `oc_dm_<person>`; the group needs a mention. */
function feishuChat(run: FeishuRun, deliver: FeishuHandles["deliver"]): ChatHandles {
  const { emulator } = run;
  const chatOf = (who: Person, where: Place) => (where === "dm" ? `oc_dm_${who}` : FEISHU_GROUP);
  const push = async (who: Person, where: Place, text: string, mention: boolean): Promise<Said> => {
    const envelope = emulator.messageEvent({
      chatType: where === "dm" ? "p2p" : "group",
      chatId: chatOf(who, where),
      senderOpenId: FEISHU_IDS[who],
      text,
      mentionBot: mention,
      token: feishuConfig(run.config).verificationToken,
    });
    await deliver(envelope);
    return { who, where, text, ref: envelope };
  };
  const chatName = (chatId: string) =>
    chatId === FEISHU_GROUP ? "group" : `dm:${chatId.replace(/^oc_dm_/, "")}`;
  return {
    command: (who, where, line) => push(who, where, `/${line}`, where === "group"),
    say: (who, where, text, { addressed }) => push(who, where, text, where === "group" && addressed),
    async redeliver(said) {
      await deliver(said.ref as Record<string, unknown>);
    },
    plainTextFromNowOn() {
      emulator.rejectPosts(1_000);
    },
    async press(who, message: BotMessage, label) {
      const { answer } = await deliver(
        emulator.cardActionEvent({
          messageId: message.id,
          label,
          operatorOpenId: FEISHU_IDS[who],
          token: feishuConfig(run.config).verificationToken,
        }),
      );
      await settle(run.gateway);
      const toast = answer.toast as { content?: string } | undefined;
      return { notice: toast?.content };
    },
    seen() {
      return emulator.sends
        .filter((send) => send.kind !== "edit" && send.kind !== "patch")
        .map((send): BotMessage => {
          const updates = emulator.sends.filter(
            (other) =>
              (other.kind === "edit" || other.kind === "patch") && other.messageId === send.messageId,
          );
          const now = updates.at(-1) ?? send;
          return {
            id: send.messageId,
            chat: chatName(send.chatId),
            text: now.text,
            buttons: now.buttons.map((button) => button.label),
            edits: updates.length,
            mentionsEveryone: now.mentionsAll,
          };
        });
    },
    maxLength: FEISHU_MAX_CHARS,
    idOf: (who) => `feishu:${FEISHU_IDS[who]}`,
  };
}

/**
 * A listening Lark emulator and the Feishu adapter alone (no gateway behind it) taking events by webhook
 * on a free port at `/hook`: `gateway` joins the config's gateway section and `feishu` its feishu section.
 * The ids of the events it takes are collected in `received`; both are undone by the callbacks pushed
 * onto `cleanups`.
 */
export async function bareFeishuWebhook(
  cleanups: (() => Promise<void>)[],
  options: { gateway?: Record<string, unknown>; feishu?: Record<string, unknown> } = {},
): Promise<{ emulator: LarkEmulator; adapter: FeishuAdapter; url: string; received: string[] }> {
  const emulator = new LarkEmulator();
  const domain = await emulator.listen();
  const config = parseConfig({
    gateway: {
      ...options.gateway,
      feishu: { domain, mode: "webhook", webhook: { port: 0, path: "/hook" }, ...options.feishu },
    },
  });
  const adapter = createFeishuAdapter({
    config,
    home: "/nonexistent",
    secret: (name) => ({ FEISHU_APP_ID: emulator.appId, FEISHU_APP_SECRET: emulator.appSecret })[name],
    logger: silentLogger(),
  }) as FeishuAdapter;
  const received: string[] = [];
  await adapter.start(async (message) => void received.push(message.eventId));
  cleanups.push(
    () => emulator.close(),
    () => adapter.stop(),
  );
  return { emulator, adapter, url: adapter.webhookUrl as string, received };
}
