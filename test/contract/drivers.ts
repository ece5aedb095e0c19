/**
 * The platforms the adapter contract runs against: each driver starts the platform's emulator, the real
 * adapter (real SDK) and the real gateway, and translates the suite's people, places and commands into
 * platform events. A new platform gets the whole suite by adding its driver to `DRIVERS`.
 */
import { createDiscordAdapter } from "../../adapters/discord/index.js";
import { createFeishuAdapter } from "../../adapters/feishu/index.js";
import { FEISHU_MAX_CHARS } from "../../adapters/feishu/render.js";
import { createTelegramAdapter } from "../../adapters/telegram/index.js";
import { TELEGRAM_MAX_LENGTH } from "../../adapters/telegram/render.js";
import { parseConfig } from "../../src/config/config.js";
import { createLogger } from "../../src/core/logger.js";
import type { Adapter } from "../../src/core/message.js";
import { createGateway } from "../../src/gateway/gateway.js";
import { DiscordEmulator, type EmulatorUser, visibleText } from "../emulators/discord.js";
import { LarkEmulator } from "../emulators/lark.js";
import { TelegramEmulator } from "../emulators/telegram.js";
import type { ContractDriver, ContractRun, Person, Place, Said, Seen } from "./suite.js";

/** Stops everything a driver started, newest first. */
export type Stopper = () => Promise<void>;

/** A running contract target plus how to stop it. */
export interface Booted {
  run: ContractRun;
  stop: Stopper;
}

const PEOPLE: Person[] = ["admin", "member", "stranger"];

/** Builds the gateway around one adapter; returns its stopper. */
async function startGateway(
  home: string,
  rawConfig: Record<string, unknown>,
  platformSection: Record<string, unknown>,
  platform: string,
  makeAdapter: (config: ReturnType<typeof parseConfig>) => Adapter,
): Promise<Stopper> {
  const gateway = (rawConfig.gateway ?? {}) as Record<string, unknown>;
  const config = parseConfig({ ...rawConfig, gateway: { ...gateway, [platform]: platformSection } });
  const adapter = makeAdapter(config);
  const running = createGateway({
    home,
    config,
    adapters: [adapter],
    logger: createLogger({ level: "silent" }),
  });
  await running.start();
  return () => running.stop();
}

// ---- Telegram -----------------------------------------------------------------------------------

const TG_IDS: Record<Person, number> = { admin: 41001, member: 41002, stranger: 41003 };
const TG_GROUP = -1005550001;

/** Telegram through grammy; privacy mode off, so the adapter itself must ignore unaddressed group text. */
export const telegramDriver: ContractDriver & { bootWith?: never } = {
  platform: "telegram",
  async boot(home, config) {
    return (await bootTelegram(home, config)).run;
  },
};

/** Starts the Telegram target (exported for the suite's own tests, which wrap adapters). */
export async function bootTelegram(
  home: string,
  config: (ids: Record<Person, string>) => Record<string, unknown>,
  wrap: (adapter: Adapter, emulator: TelegramEmulator) => Adapter = (adapter) => adapter,
): Promise<Booted> {
  const emulator = new TelegramEmulator({ privacyMode: false });
  await emulator.listen();
  const ids = Object.fromEntries(PEOPLE.map((who) => [who, String(TG_IDS[who])])) as Record<Person, string>;
  const stopGateway = await startGateway(
    home,
    config(ids),
    { enabled: true, api_root: emulator.apiRoot },
    "telegram",
    (cfg) =>
      wrap(
        createTelegramAdapter({
          config: cfg,
          home,
          secret: (name) => (name === "TELEGRAM_BOT_TOKEN" ? emulator.token : undefined),
          logger: createLogger({ level: "silent" }),
          tuning: { pollTimeoutSeconds: 2 },
        }),
        emulator,
      ),
  );
  const bot = emulator.botUser.username;
  const chatOf = (who: Person, where: Place) =>
    where === "dm"
      ? { chatId: TG_IDS[who], chatType: "private" as const }
      : { chatId: TG_GROUP, chatType: "supergroup" as const };
  const speak = (who: Person, where: Place, text: string): Said => {
    const update = emulator.userSays({
      userId: TG_IDS[who],
      username: `user${TG_IDS[who]}`,
      text,
      ...chatOf(who, where),
    });
    return { who, where, text, ref: update };
  };
  const run: ContractRun = {
    async command(who, where, line) {
      const [name, ...rest] = line.split(" ");
      const text = where === "group" ? `/${name}@${bot} ${rest.join(" ")}`.trim() : `/${line}`;
      return speak(who, where, text);
    },
    async say(who, where, text, { addressed }) {
      if (where === "dm" || addressed) return speak(who, where, where === "dm" ? text : `@${bot} ${text}`);
      const aimed = text.startsWith("/") ? text.replace(/^(\/\S+)/, "$1@SomeOtherBot") : text;
      return speak(who, where, aimed);
    },
    async redeliver(said) {
      emulator.redeliver(said.ref as Record<string, unknown> & { update_id: number });
    },
    async edit(said, text) {
      const message = (said.ref as { message: { message_id: number } }).message;
      emulator.userSays({
        userId: TG_IDS[said.who],
        text,
        edited: message.message_id,
        ...chatOf(said.who, said.where),
      });
    },
    seen() {
      return emulator.sent
        .filter((message) => !message.edited)
        .map(
          (message): Seen => ({
            chat:
              message.chat_id === String(TG_GROUP)
                ? "group"
                : `dm:${personOf(TG_IDS, Number(message.chat_id))}`,
            text: message.plain,
            mentionsEveryone: false,
          }),
        );
    },
    maxLength: TELEGRAM_MAX_LENGTH,
    idOf: (who) => `telegram:${TG_IDS[who]}`,
  };
  return {
    run,
    stop: async () => {
      await stopGateway();
      await emulator.close();
    },
  };
}

// ---- Feishu -------------------------------------------------------------------------------------

const FS_IDS: Record<Person, string> = {
  admin: "ou_admin_c1",
  member: "ou_member_c2",
  stranger: "ou_stranger_c3",
};
const FS_GROUP = "oc_contract_group";

/** Feishu/Lark through the official SDK over the long connection. */
export const feishuDriver: ContractDriver = {
  platform: "feishu",
  async boot(home, config) {
    return (await bootFeishu(home, config)).run;
  },
};

/** Starts the Feishu target. */
export async function bootFeishu(
  home: string,
  config: (ids: Record<Person, string>) => Record<string, unknown>,
  wrap: (adapter: Adapter) => Adapter = (adapter) => adapter,
): Promise<Booted> {
  const emulator = new LarkEmulator();
  await emulator.listen();
  const secrets: Record<string, string> = {
    FEISHU_APP_ID: emulator.appId,
    FEISHU_APP_SECRET: emulator.appSecret,
  };
  const stopGateway = await startGateway(
    home,
    config(FS_IDS),
    { enabled: true, mode: "websocket", domain: emulator.url },
    "feishu",
    (cfg) =>
      wrap(
        createFeishuAdapter({
          config: cfg,
          home,
          secret: (name) => secrets[name],
          logger: createLogger({ level: "silent" }),
        }),
      ),
  );
  const chatOf = (who: Person, where: Place) => (where === "dm" ? `oc_dm_${who}` : FS_GROUP);
  const push = async (who: Person, where: Place, text: string, mention: boolean): Promise<Said> => {
    const envelope = emulator.messageEvent({
      chatType: where === "dm" ? "p2p" : "group",
      chatId: chatOf(who, where),
      senderOpenId: FS_IDS[who],
      text,
      mentionBot: mention,
    });
    await emulator.pushWsEvent(envelope);
    return { who, where, text, ref: envelope };
  };
  const run: ContractRun = {
    command: (who, where, line) => push(who, where, `/${line}`, where === "group"),
    say: (who, where, text, { addressed }) => push(who, where, text, where === "group" && addressed),
    async redeliver(said) {
      await emulator.pushWsEvent(said.ref as Record<string, unknown>);
    },
    plainTextFromNowOn() {
      emulator.rejectPosts(1_000);
    },
    seen() {
      return emulator.sends
        .filter((send) => send.kind !== "edit")
        .map(
          (send): Seen => ({
            chat: send.chatId === FS_GROUP ? "group" : `dm:${send.chatId.replace(/^oc_dm_/, "")}`,
            text: send.text,
            mentionsEveryone: send.mentionsAll,
          }),
        );
    },
    maxLength: FEISHU_MAX_CHARS,
    idOf: (who) => `feishu:${FS_IDS[who]}`,
  };
  return {
    run,
    stop: async () => {
      await stopGateway();
      await emulator.close();
    },
  };
}

// ---- Discord ------------------------------------------------------------------------------------

const DC_USERS: Record<Person, EmulatorUser> = {
  admin: { id: "222333444", username: "ada" },
  member: { id: "555666777", username: "bob" },
  stranger: { id: "888999000", username: "eve" },
};
const DC_GUILD = "910000000000000001";
const DC_CHANNEL = "920000000000000001";
const DC_DM: Record<Person, string> = {
  admin: "930000000000000001",
  member: "930000000000000002",
  stranger: "930000000000000003",
};

/** Discord through discord.js: commands as slash commands, text in DMs and with mentions. */
export const discordDriver: ContractDriver = {
  platform: "discord",
  async boot(home, config) {
    return (await bootDiscord(home, config)).run;
  },
};

/** Starts the Discord target; `emulatorOptions` lets the suite's own tests tighten the rules. */
export async function bootDiscord(
  home: string,
  config: (ids: Record<Person, string>) => Record<string, unknown>,
  wrap: (adapter: Adapter, emulator: DiscordEmulator) => Adapter = (adapter) => adapter,
  emulator: DiscordEmulator = new DiscordEmulator(),
): Promise<Booted & { emulator: DiscordEmulator }> {
  await emulator.listen();
  const ids = Object.fromEntries(PEOPLE.map((who) => [who, DC_USERS[who].id])) as Record<Person, string>;
  const stopGateway = await startGateway(
    home,
    config(ids),
    { enabled: true, api: emulator.apiBase },
    "discord",
    (cfg) =>
      wrap(
        createDiscordAdapter({
          config: cfg,
          home,
          secret: (name) => (name === "DISCORD_BOT_TOKEN" ? emulator.token : undefined),
          logger: createLogger({ level: "silent" }),
        }),
        emulator,
      ),
  );
  const invoker = new Map<string, Person>();
  const where = (who: Person, place: Place) =>
    place === "dm" ? { channelId: DC_DM[who] } : { channelId: DC_CHANNEL, guildId: DC_GUILD };
  const run: ContractRun = {
    async command(who, place, line) {
      const [name = "", ...words] = line.split(" ");
      const registered = emulator.globalCommands().find((command) => command.name === name);
      const options = (registered?.options ?? []) as {
        name: string;
        type: number;
        options?: { name: string }[];
      }[];
      const sub = options.find((option) => option.type === 1 && option.name === words[0]);
      const slots = (sub ? (sub.options ?? []) : options).map((option) => option.name);
      const values = sub ? words.slice(1) : words;
      const filled = Object.fromEntries(values.map((value, index) => [slots[index] ?? `arg${index}`, value]));
      const record = emulator.interaction({
        user: DC_USERS[who],
        ...where(who, place),
        name,
        ...(sub ? { subcommand: sub.name } : {}),
        options: filled,
      });
      invoker.set(record.id, who);
      return { who, where: place, text: line, ref: { interaction: record } };
    },
    async say(who, place, text, { addressed }) {
      const content = place === "group" && addressed ? `<@${emulator.bot.id}> ${text}` : text;
      const id = emulator.userMessage({ user: DC_USERS[who], ...where(who, place), content });
      return { who, where: place, text, ref: { message: { id, content } } };
    },
    async redeliver(said) {
      const ref = said.ref as {
        interaction?: { payload: unknown };
        message?: { id: string; content: string };
      };
      if (ref.interaction) emulator.dispatch("INTERACTION_CREATE", ref.interaction.payload);
      else if (ref.message)
        emulator.userMessage({
          user: DC_USERS[said.who],
          ...where(said.who, said.where),
          content: ref.message.content,
          id: ref.message.id,
        });
    },
    async edit(said, text) {
      const ref = said.ref as { interaction?: unknown; message?: { id: string } };
      // A slash command cannot be edited; the contract edits text messages.
      if (!ref.message) throw new Error("contract: Discord can only edit text messages");
      emulator.userMessage({
        user: DC_USERS[said.who],
        ...where(said.who, said.where),
        content: text,
        id: ref.message.id,
        edit: true,
      });
    },
    seen() {
      return emulator.messages
        .filter((message) => !message.deferred)
        .map((message): Seen => {
          const interaction = message.interactionId
            ? emulator.interactions.get(message.interactionId)
            : undefined;
          const flags = Number(
            (interaction?.callbacks[0]?.data as { flags?: number } | undefined)?.flags ?? 0,
          );
          // An ephemeral response is seen by the invoker alone: it counts as their private chat.
          const privateTo = interaction && (flags & 64) !== 0 ? invoker.get(interaction.id) : undefined;
          const dm = (Object.keys(DC_DM) as Person[]).find((who) => DC_DM[who] === message.channelId);
          const chat = privateTo ? `dm:${privateTo}` : dm ? `dm:${dm}` : "group";
          // A card reply arrives as an embed with empty content: a person reads both.
          return { chat, text: shown(visibleText(message)), mentionsEveryone: message.mentionsEveryone };
        });
    },
    maxLength: 2000,
    idOf: (who) => `discord:${DC_USERS[who].id}`,
  };
  return {
    run,
    emulator,
    stop: async () => {
      await stopGateway();
      await emulator.close();
    },
  };
}

/** Discord shows escaped markdown without the backslashes. */
function shown(content: string): string {
  return content.replace(/\\([\\*_~|`[\]>#.-])/g, "$1");
}

function personOf(ids: Record<Person, number>, id: number): Person | "unknown" {
  return (Object.keys(ids) as Person[]).find((who) => ids[who] === id) ?? "unknown";
}

/** Every platform the contract runs against, with the function that starts it. */
export const DRIVERS: {
  driver: ContractDriver;
  start: (home: string, config: (ids: Record<Person, string>) => Record<string, unknown>) => Promise<Booted>;
}[] = [
  { driver: telegramDriver, start: (home, config) => bootTelegram(home, config) },
  { driver: feishuDriver, start: (home, config) => bootFeishu(home, config) },
  { driver: discordDriver, start: (home, config) => bootDiscord(home, config) },
];
