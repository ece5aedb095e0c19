/**
 * Pure normalization of Discord payloads (gateway dispatch JSON, API v10) into skillgate's
 * `InboundMessage`. Slash-command interactions become a parsed command directly from their structured
 * options; plain messages count only in DMs or when they mention the bot, and only from humans.
 */
import { matchChatCommand, quoteArg, splitArgs } from "../../src/core/command-text.js";
import type { ChatKind, InboundMessage, ParsedCommand } from "../../src/core/message.js";

/** The parts of a Discord user object skillgate reads. */
export interface DiscordUserJson {
  id: string;
  username?: string;
  global_name?: string | null;
  bot?: boolean;
}

/** One option of a chat-input interaction (nested for subcommands and groups). */
export interface DiscordInteractionOptionJson {
  name: string;
  type: number;
  value?: string | number | boolean;
  focused?: boolean;
  options?: DiscordInteractionOptionJson[];
}

/** The parts of an INTERACTION_CREATE payload skillgate reads. */
export interface DiscordInteractionJson {
  id: string;
  type: number;
  token?: string;
  application_id?: string;
  guild_id?: string;
  channel_id?: string;
  channel?: { id: string; type?: number; parent_id?: string | null };
  member?: { user?: DiscordUserJson };
  user?: DiscordUserJson;
  data?: { name: string; type?: number; options?: DiscordInteractionOptionJson[] };
  /** "Selected language of the invoking user" (every interaction but PING), e.g. `zh-CN`, `en-US`. */
  locale?: string;
  /** "Guild's preferred locale, if invoked in a guild". */
  guild_locale?: string;
}

/** The reader's and the chat's language of an interaction, as the message model carries them. */
export function interactionLanguages(
  interaction: Pick<DiscordInteractionJson, "locale" | "guild_locale">,
): Pick<InboundMessage, "language" | "chatLanguage"> {
  return {
    ...(interaction.locale ? { language: interaction.locale } : {}),
    ...(interaction.guild_locale ? { chatLanguage: interaction.guild_locale } : {}),
  };
}

/** The parts of a MESSAGE_CREATE payload skillgate reads. */
export interface DiscordMessageJson {
  id: string;
  channel_id: string;
  guild_id?: string;
  /** Sent by the gateway for DMs (1) and present on newer payloads for every channel. */
  channel_type?: number;
  author: DiscordUserJson;
  content: string;
  timestamp?: string;
  type?: number;
  webhook_id?: string;
  mentions?: DiscordUserJson[];
  /** Ids of the roles the message mentions (`<@&id>`). */
  mention_roles?: string[];
  message_reference?: { message_id?: string };
}

/**
 * Which options of a command path are positional arguments, in order; every other option becomes a
 * `--flag`. Keyed by the command path joined with spaces (`"curator pin"`).
 */
export type InteractionLayout = ReadonlyMap<string, readonly string[]>;

/** Discord interaction types skillgate handles. */
export const InteractionKind = { Command: 2, Autocomplete: 4 } as const;

const OPTION_SUBCOMMAND = 1;
const OPTION_SUBCOMMAND_GROUP = 2;
const OPTION_STRING = 3;
const OPTION_BOOLEAN = 5;
const GROUP_DM_CHANNEL = 3;
const THREAD_CHANNELS = new Set([10, 11, 12]);
/** Message types that carry user text: DEFAULT and REPLY. */
const TEXT_MESSAGE_TYPES = new Set([0, 19]);
const DISCORD_EPOCH = 1_420_070_400_000n;

/** Milliseconds since the epoch encoded in a Discord snowflake id (0 when the id is not one). */
export function snowflakeTime(id: string): number {
  if (!/^\d{1,20}$/.test(id)) return 0;
  return Number((BigInt(id) >> 22n) + DISCORD_EPOCH);
}

/**
 * Turns a slash-command interaction into a message carrying its command: `/curator pin skill:foo` →
 * `{name: "curator", args: ["pin", "foo"]}`, boolean options → `--flag`, other non-positional options →
 * `--name value`. Returns null for anything that is not a chat-input command.
 */
export function normalizeInteraction(
  interaction: DiscordInteractionJson,
  layout: InteractionLayout = new Map(),
): InboundMessage | null {
  if (interaction.type !== InteractionKind.Command || !interaction.data) return null;
  if (interaction.data.type !== undefined && interaction.data.type !== 1) return null;
  const user = interaction.member?.user ?? interaction.user;
  if (!user) return null;
  const { path, leaves } = splitCommandPath(interaction.data.name, interaction.data.options ?? []);
  const args = [
    ...path.slice(1),
    ...optionsToArgs(leaves, layout.get(path.join(" ")) ?? defaultPositionals(leaves)),
  ];
  const rawArgs = args.map(quoteArg).join(" ");
  const name = interaction.data.name.toLowerCase();
  const command: ParsedCommand = { name, args, rawArgs };
  const channelId = interaction.channel_id ?? interaction.channel?.id ?? "";
  return {
    eventId: interaction.id,
    platform: "discord",
    chat: chatOf(channelId, interaction.guild_id, interaction.channel?.type),
    sender: senderOf(user),
    text: rawArgs ? `/${name} ${rawArgs}` : `/${name}`,
    command,
    receivedAt: snowflakeTime(interaction.id),
    raw: interaction,
    ...interactionLanguages(interaction),
  };
}

/** What an autocomplete interaction asks: who, for which option, with what typed so far. */
export interface AutocompleteQuery {
  senderId: string;
  /** Command path, e.g. `["skill"]`. */
  path: string[];
  option: string;
  prefix: string;
}

/** Reads an autocomplete interaction; null when it is not one or has no focused option. */
export function normalizeAutocomplete(interaction: DiscordInteractionJson): AutocompleteQuery | null {
  if (interaction.type !== InteractionKind.Autocomplete || !interaction.data) return null;
  const user = interaction.member?.user ?? interaction.user;
  if (!user) return null;
  const { path, leaves } = splitCommandPath(interaction.data.name, interaction.data.options ?? []);
  const focused = leaves.find((option) => option.focused);
  if (!focused) return null;
  return { senderId: user.id, path, option: focused.name, prefix: String(focused.value ?? "") };
}

/**
 * Turns a plain message into an inbound message when it is for the bot: any text in a DM, or text that
 * mentions the bot in a guild — the bot user or its managed role (`botRoleIds`, the role Discord's
 * mention picker often offers instead of the user) — with the mentions removed. Bots, webhooks, the bot
 * itself, system messages and unaddressed guild chatter give null.
 */
export function normalizeMessage(
  message: DiscordMessageJson,
  botUserId: string,
  botRoleIds: ReadonlySet<string> = new Set(),
): InboundMessage | null {
  if (message.author.bot || message.webhook_id || message.author.id === botUserId) return null;
  if (message.type !== undefined && !TEXT_MESSAGE_TYPES.has(message.type)) return null;
  const direct = isDirect(message.guild_id, message.channel_type);
  const mentioned = mentionsUser(message, botUserId) || mentionsRole(message, botRoleIds);
  if (!direct && !mentioned) return null;
  const text = stripMention(message.content, botUserId, botRoleIds);
  if (text.length === 0) return null;
  const command = matchChatCommand(text);
  return {
    eventId: message.id,
    platform: "discord",
    messageId: message.id,
    chat: chatOf(message.channel_id, message.guild_id, message.channel_type),
    sender: senderOf(message.author),
    text,
    ...(command ? { command } : {}),
    ...(message.message_reference?.message_id ? { replyTo: message.message_reference.message_id } : {}),
    receivedAt: message.timestamp ? Date.parse(message.timestamp) : snowflakeTime(message.id),
    raw: message,
  };
}

function splitCommandPath(
  name: string,
  options: DiscordInteractionOptionJson[],
): { path: string[]; leaves: DiscordInteractionOptionJson[] } {
  const path = [name.toLowerCase()];
  let current = options;
  for (;;) {
    const nested = current.find(
      (option) => option.type === OPTION_SUBCOMMAND || option.type === OPTION_SUBCOMMAND_GROUP,
    );
    if (!nested) return { path, leaves: current };
    path.push(nested.name.toLowerCase());
    current = nested.options ?? [];
  }
}

/** Without a layout, string options are positional and everything else is a flag. */
function defaultPositionals(leaves: DiscordInteractionOptionJson[]): string[] {
  return leaves.filter((option) => option.type === OPTION_STRING).map((option) => option.name);
}

/**
 * Positional values first (split shell-style), then flags. When a positional word starts with `-`, the
 * flags go first and `--` marks where the positionals begin, so a value is never read as an option.
 */
function optionsToArgs(leaves: DiscordInteractionOptionJson[], positionals: readonly string[]): string[] {
  const byName = new Map(leaves.map((option) => [option.name, option]));
  const words: string[] = [];
  for (const name of positionals) {
    const value = byName.get(name)?.value;
    if (value === undefined || value === "") continue;
    words.push(...(typeof value === "string" ? splitArgs(value, { lenient: true }) : [String(value)]));
  }
  const flags: string[] = [];
  for (const option of leaves) {
    if (positionals.includes(option.name) || option.value === undefined) continue;
    if (option.type === OPTION_BOOLEAN) {
      if (option.value === true) flags.push(`--${option.name}`);
    } else {
      flags.push(`--${option.name}`, String(option.value));
    }
  }
  return words.some((word) => word.startsWith("-")) ? [...flags, "--", ...words] : [...words, ...flags];
}

function isDirect(guildId: string | undefined, channelType: number | undefined): boolean {
  return !guildId && channelType !== GROUP_DM_CHANNEL;
}

/** The chat of a Discord channel: a DM, a thread (its own id is the thread), or a guild channel. */
export function chatOf(
  channelId: string,
  guildId: string | undefined,
  channelType: number | undefined,
): { kind: ChatKind; id: string; threadId?: string } {
  if (isDirect(guildId, channelType)) return { kind: "dm", id: channelId };
  if (channelType !== undefined && THREAD_CHANNELS.has(channelType)) {
    return { kind: "thread", id: channelId, threadId: channelId };
  }
  return { kind: "group", id: channelId };
}

/** The sender of a Discord user payload. */
export function senderOf(user: DiscordUserJson): InboundMessage["sender"] {
  const name = user.global_name ?? user.username;
  return { id: user.id, ...(name ? { name } : {}), isBot: user.bot === true };
}

function mentionsUser(message: DiscordMessageJson, userId: string): boolean {
  if (message.mentions?.some((user) => user.id === userId)) return true;
  return message.content.includes(`<@${userId}>`) || message.content.includes(`<@!${userId}>`);
}

function mentionsRole(message: DiscordMessageJson, roleIds: ReadonlySet<string>): boolean {
  if (roleIds.size === 0) return false;
  if (message.mention_roles?.some((id) => roleIds.has(id))) return true;
  return [...roleIds].some((id) => message.content.includes(`<@&${id}>`));
}

/** Removes every mention of the bot (as a user or through its managed roles) and trims the text. */
function stripMention(content: string, botUserId: string, botRoleIds: ReadonlySet<string>): string {
  const ids = [botUserId, ...botRoleIds].map((id) => id.replace(/[^0-9A-Za-z_]/g, "")).filter(Boolean);
  let text = content;
  for (const [index, id] of ids.entries()) {
    const pattern = index === 0 ? `<@!?${id}>` : `<@&${id}>`;
    text = text.replace(new RegExp(`\\s*${pattern}\\s*`, "g"), " ");
  }
  return text.trim();
}
