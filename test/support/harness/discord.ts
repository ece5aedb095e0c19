/**
 * Discord's part of the test harness: the loopback Discord emulator (a guild "Skill Ops" with #general
 * and #curator-news unless the options give other guilds), the real adapter (discord.js), and the
 * handles a test works with — a slash command and its answered reply, a button press and its
 * acknowledgement, and the neutral chat handles.
 */
import {
  createDiscordAdapter,
  type DiscordAdapter,
  type DiscordTuning,
} from "../../../adapters/discord/index.js";
import { parseConfig } from "../../../src/config/config.js";
import { admitSender } from "../../../src/core/access.js";
import { createLogger } from "../../../src/core/logger.js";
import type { AdapterHooks, InboundMessage, InboundSink } from "../../../src/core/message.js";
import {
  DiscordEmulator,
  type DiscordEmulatorOptions,
  type EmulatedInteraction,
  type EmulatedMessage,
  type EmulatorUser,
  visibleText,
} from "../../emulators/discord.js";
import type { PlatformKit } from "./kit.js";
import {
  type BaseRun,
  type BotMessage,
  type ChatHandles,
  PEOPLE,
  type Person,
  type Place,
  settle,
  type WithChat,
} from "./shared.js";

/** The people as Discord users. */
export const DISCORD_USERS: Record<Person, EmulatorUser> = {
  admin: { id: "222333444", username: "ada", global_name: "Ada" },
  member: { id: "555666777", username: "bob" },
  stranger: { id: "888999000", username: "eve" },
};
/** The guild, its #general channel (the shared group) and its #curator-news channel. */
export const DISCORD_GUILD = "910000000000000001";
export const DISCORD_CHANNEL = "920000000000000001";
export const DISCORD_HOME_CHANNEL = "920000000000000002";
/** Each person's DM channel with the bot. */
export const DISCORD_DMS: Record<Person, string> = {
  admin: "930000000000000001",
  member: "930000000000000002",
  stranger: "930000000000000003",
};

/** Where a slash command is sent: a channel, and its guild unless it is a DM. */
export interface DiscordWhere {
  channelId: string;
  guildId?: string;
}

/** What a booted Discord run offers beyond the shared base. */
export interface DiscordHandles extends WithChat {
  /**
   * A slash command from `user` (in #general unless `where` says otherwise); resolves with its record and
   * its original response once that was answered (no longer a deferral).
   */
  slash(
    user: EmulatorUser,
    name: string,
    subcommand?: string,
    options?: Record<string, string | number | boolean>,
    where?: DiscordWhere,
  ): Promise<{ sent: EmulatedInteraction; original: EmulatedMessage }>;
  /** Presses a button; resolves once the press was acknowledged and the gateway is idle. */
  press(input: Parameters<DiscordEmulator["pressButton"]>[0]): Promise<EmulatedInteraction>;
}

type DiscordRun = BaseRun<"discord", DiscordEmulator, DiscordAdapter>;

/** Discord, as the harness boots it. */
export const discordKit: PlatformKit<
  "discord",
  DiscordEmulator,
  DiscordEmulatorOptions,
  DiscordAdapter,
  Partial<DiscordTuning>,
  DiscordHandles
> = {
  platform: "discord",
  ids: Object.fromEntries(PEOPLE.map((who) => [who, DISCORD_USERS[who].id])) as Record<Person, string>,
  isEmulator: (value): value is DiscordEmulator => value instanceof DiscordEmulator,
  emulator: (options) =>
    new DiscordEmulator({
      guilds: [
        {
          id: DISCORD_GUILD,
          name: "Skill Ops",
          channels: [
            { id: DISCORD_CHANNEL, name: "general" },
            { id: DISCORD_HOME_CHANNEL, name: "curator-news" },
          ],
        },
      ],
      ...options,
    }),
  listen: (emulator) => emulator.listen(),
  close: (emulator) => emulator.close(),
  section: (emulator) => ({ api: emulator.apiBase }),
  secrets: (emulator) => ({ DISCORD_BOT_TOKEN: emulator.token }),
  adapter: (options) => createDiscordAdapter(options),
  handles: (run) => ({
    async slash(
      user,
      name,
      subcommand,
      options,
      where = { channelId: DISCORD_CHANNEL, guildId: DISCORD_GUILD },
    ) {
      const sent = run.emulator.interaction({
        user,
        ...where,
        name,
        ...(subcommand ? { subcommand } : {}),
        ...(options ? { options } : {}),
      });
      const original = await run.emulator.waitForMessage(
        (message) => message.interactionId === sent.id && message.kind === "original" && !message.deferred,
        10_000,
      );
      return { sent, original };
    },
    async press(input) {
      const record = run.emulator.pressButton(input);
      await run.emulator.waitForAcknowledgement(record);
      await settle(run.gateway);
      await new Promise((resolve) => setTimeout(resolve, 20));
      return record;
    },
    chat: discordChat(run),
  }),
};

/** Discord shows escaped markdown without the backslashes: what a person reads. */
export function shown(content: string): string {
  return content.replace(/\\([\\*_~|`[\]>#.-])/g, "$1");
}

/**
 * The neutral handles on Discord: commands are slash commands (their options filled in order from the
 * registered command), text is read in DMs and with a mention; an ephemeral response counts as the
 * invoker's private chat.
 */
function discordChat(run: DiscordRun): ChatHandles {
  const { emulator } = run;
  const invoker = new Map<string, Person>();
  const where = (who: Person, place: Place): DiscordWhere =>
    place === "dm" ? { channelId: DISCORD_DMS[who] } : { channelId: DISCORD_CHANNEL, guildId: DISCORD_GUILD };
  return {
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
        user: DISCORD_USERS[who],
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
      const id = emulator.userMessage({ user: DISCORD_USERS[who], ...where(who, place), content });
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
          user: DISCORD_USERS[said.who],
          ...where(said.who, said.where),
          content: ref.message.content,
          id: ref.message.id,
        });
    },
    async edit(said, text) {
      const ref = said.ref as { interaction?: unknown; message?: { id: string } };
      // A slash command cannot be edited; the neutral handles edit text messages.
      if (!ref.message) throw new Error("harness: Discord can only edit text messages");
      emulator.userMessage({
        user: DISCORD_USERS[said.who],
        ...where(said.who, said.where),
        content: text,
        id: ref.message.id,
        edit: true,
      });
    },
    async press(who, message: BotMessage, label) {
      const record = emulator.pressButton({ user: DISCORD_USERS[who], messageId: message.id, label });
      await emulator.waitForAcknowledgement(record);
      await settle(run.gateway);
      const ephemeral = emulator.messages.find(
        (candidate) => candidate.interactionId === record.id && candidate.ephemeral,
      );
      return { notice: ephemeral ? shown(visibleText(ephemeral)) : undefined };
    },
    seen() {
      return emulator.messages
        .filter((message) => !message.deferred)
        .map((message): BotMessage => {
          const interaction = message.interactionId
            ? emulator.interactions.get(message.interactionId)
            : undefined;
          const flags = Number(
            (interaction?.callbacks[0]?.data as { flags?: number } | undefined)?.flags ?? 0,
          );
          // An ephemeral response is seen by the invoker alone: it counts as their private chat.
          const privateTo = interaction && (flags & 64) !== 0 ? invoker.get(interaction.id) : undefined;
          const dm = PEOPLE.find((who) => DISCORD_DMS[who] === message.channelId);
          const chat = privateTo ? `dm:${privateTo}` : dm ? `dm:${dm}` : "group";
          // A card reply arrives as an embed with empty content: a person reads both.
          return {
            id: message.id,
            chat,
            text: shown(visibleText(message)),
            buttons: message.components.flatMap((row) => row.components.map((button) => button.label ?? "")),
            edits: message.edits,
            mentionsEveryone: message.mentionsEveryone,
          };
        });
    },
    maxLength: 2000,
    idOf: (who) => `discord:${DISCORD_USERS[who].id}`,
  };
}

/** Options of `bareDiscordAdapter`. */
export interface BareDiscordOptions {
  home: string;
  /** The one admin of the config. */
  admin: EmulatorUser;
  /** Merged into `gateway.discord` (after `enabled: true`): at least the emulator's `api`. */
  section: Record<string, unknown>;
  /** The secrets the adapter finds (DISCORD_BOT_TOKEN, DISCORD_PUBLIC_KEY). */
  secrets: Record<string, string>;
  /** Where inbound messages go; by default the returned `inbox`. */
  sink?: InboundSink;
  /** Hooks over the defaults: `admit` as the config says, no skill suggestions. */
  hooks?: Partial<AdapterHooks>;
  /** False: the adapter is made but not started. */
  start?: boolean;
}

/**
 * The Discord adapter alone, with no gateway behind it, as the adapter's own tests drive it: made from a
 * config naming `admin`, and started (unless told not to) with `sink` and the hooks. The caller stops it.
 */
export async function bareDiscordAdapter(
  options: BareDiscordOptions,
): Promise<{ adapter: DiscordAdapter; inbox: InboundMessage[] }> {
  const config = parseConfig({
    gateway: {
      admins: [`discord:${options.admin.id}`],
      discord: { enabled: true, ...options.section },
    },
  });
  const adapter = createDiscordAdapter({
    config,
    home: options.home,
    secret: (name) => options.secrets[name],
    logger: createLogger({ level: "silent" }),
  });
  const inbox: InboundMessage[] = [];
  const hooks: AdapterHooks = {
    admit: (message) => admitSender(config, message),
    suggestSkills: async () => [],
  };
  Object.assign(hooks, options.hooks);
  if (options.start !== false)
    await adapter.start(
      options.sink ??
        (async (message) => {
          inbox.push(message);
        }),
      hooks,
    );
  return { adapter, inbox };
}
