/**
 * Telegram's part of the test harness: the Bot API emulator, the real adapter (grammy) with short
 * timings, and the handles a test works with — a person's message and the bot messages that follow it, a
 * button press answered, and the neutral chat handles.
 */
import { createTelegramAdapter, type TelegramTuning } from "../../../adapters/telegram/index.js";
import { TELEGRAM_MAX_LENGTH } from "../../../adapters/telegram/render.js";
import type { Adapter } from "../../../src/core/message.js";
import {
  type CallbackQueryRecord,
  type SentMessage,
  TelegramEmulator,
  type TelegramEmulatorOptions,
  type UserSays,
} from "../../emulators/telegram.js";
import { FAST } from "../../telegram/helpers.js";
import type { PlatformKit } from "./kit.js";
import {
  type BaseRun,
  type BotMessage,
  type ChatHandles,
  PEOPLE,
  type Person,
  type Place,
  type Said,
  settle,
  until,
  type WithChat,
} from "./shared.js";

/** The people's Telegram user ids (a person's direct chat has the same id). */
export const TELEGRAM_IDS: Record<Person, number> = { admin: 1001, member: 2002, stranger: 3003 };
/** The shared group (a supergroup). */
export const TELEGRAM_GROUP = -100500;

/** What a booted Telegram run offers beyond the shared base. */
export interface TelegramHandles extends WithChat {
  /**
   * A person says something (the admin in a direct chat unless `says` names others); resolves with the
   * first `count` bot messages sent afterwards in `chat` (default: the chat spoken in).
   */
  ask(says: UserSays, options?: { count?: number; chat?: string }): Promise<SentMessage[]>;
  /** Presses a button; resolves once Telegram got the press's answer and the gateway is idle. */
  press(input: Parameters<TelegramEmulator["pressButton"]>[0]): Promise<CallbackQueryRecord>;
}

type TelegramRun = BaseRun<"telegram", TelegramEmulator, Adapter>;

/** Telegram, as the harness boots it. */
export const telegramKit: PlatformKit<
  "telegram",
  TelegramEmulator,
  TelegramEmulatorOptions,
  Adapter,
  Partial<TelegramTuning>,
  TelegramHandles
> = {
  platform: "telegram",
  ids: Object.fromEntries(PEOPLE.map((who) => [who, String(TELEGRAM_IDS[who])])) as Record<Person, string>,
  isEmulator: (value): value is TelegramEmulator => value instanceof TelegramEmulator,
  emulator: (options) => new TelegramEmulator(options),
  listen: (emulator) => emulator.listen(),
  close: (emulator) => emulator.close(),
  section: (emulator) => ({ api_root: emulator.apiRoot }),
  secrets: (emulator) => ({ TELEGRAM_BOT_TOKEN: emulator.token }),
  adapter: (options) => createTelegramAdapter({ ...options, tuning: { ...FAST, ...options.tuning } }),
  handles: (run) => ({
    async ask(says, options = {}) {
      const since = run.emulator.sent.length;
      run.emulator.userSays(says);
      const chat = options.chat ?? String(says.chatId ?? says.userId ?? TELEGRAM_IDS.admin);
      return run.emulator.waitForMessages(
        options.count ?? 1,
        (message) => message.chat_id === chat,
        8000,
        since,
      );
    },
    async press(input) {
      const record = run.emulator.pressButton(input);
      await until(() => record.answer !== undefined, `callback ${record.id} answered`);
      await run.gateway.whenIdle();
      return record;
    },
    chat: telegramChat(run),
  }),
};

/** The neutral handles on Telegram: commands as `/cmd@bot` in the group; privacy mode is the test's. */
function telegramChat(run: TelegramRun): ChatHandles {
  const { emulator } = run;
  const bot = () => emulator.botUser.username;
  const chatOf = (who: Person, where: Place) =>
    where === "dm"
      ? { chatId: TELEGRAM_IDS[who], chatType: "private" as const }
      : { chatId: TELEGRAM_GROUP, chatType: "supergroup" as const };
  const speak = (who: Person, where: Place, text: string): Said => {
    const update = emulator.userSays({
      userId: TELEGRAM_IDS[who],
      username: `user${TELEGRAM_IDS[who]}`,
      text,
      ...chatOf(who, where),
    });
    return { who, where, text, ref: update };
  };
  const chatName = (chatId: string) =>
    chatId === String(TELEGRAM_GROUP)
      ? "group"
      : `dm:${PEOPLE.find((who) => String(TELEGRAM_IDS[who]) === chatId) ?? "unknown"}`;
  return {
    async command(who, where, line) {
      const [name, ...rest] = line.split(" ");
      const text = where === "group" ? `/${name}@${bot()} ${rest.join(" ")}`.trim() : `/${line}`;
      return speak(who, where, text);
    },
    async say(who, where, text, { addressed }) {
      if (where === "dm" || addressed) return speak(who, where, where === "dm" ? text : `@${bot()} ${text}`);
      const aimed = text.startsWith("/") ? text.replace(/^(\/\S+)/, "$1@SomeOtherBot") : text;
      return speak(who, where, aimed);
    },
    async redeliver(said) {
      emulator.redeliver(said.ref as Record<string, unknown> & { update_id: number });
    },
    async edit(said, text) {
      const message = (said.ref as { message: { message_id: number } }).message;
      emulator.userSays({
        userId: TELEGRAM_IDS[said.who],
        text,
        edited: message.message_id,
        ...chatOf(said.who, said.where),
      });
    },
    async press(who, message: BotMessage, label) {
      const chatId =
        message.chat === "group" ? TELEGRAM_GROUP : TELEGRAM_IDS[message.chat.slice("dm:".length) as Person];
      const record = emulator.pressButton({
        messageId: Number(message.id),
        chatId: String(chatId),
        label,
        userId: TELEGRAM_IDS[who],
      });
      await until(() => record.answer !== undefined, `callback ${record.id} answered`);
      await settle(run.gateway);
      return { notice: record.answer?.text };
    },
    seen() {
      return emulator.sent
        .filter((message) => !message.edited)
        .map((message): BotMessage => {
          const now = emulator.latest(message.message_id, message.chat_id) ?? message;
          const edits = emulator.sent.filter(
            (other) =>
              other.edited && other.message_id === message.message_id && other.chat_id === message.chat_id,
          ).length;
          return {
            id: String(message.message_id),
            chat: chatName(message.chat_id),
            text: now.plain,
            buttons: (now.reply_markup?.inline_keyboard ?? []).flat().map((button) => button.text),
            edits,
            mentionsEveryone: false,
          };
        });
    },
    maxLength: TELEGRAM_MAX_LENGTH,
    idOf: (who) => `telegram:${TELEGRAM_IDS[who]}`,
  };
}
