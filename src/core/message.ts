/**
 * The platform-neutral message model and the adapter contract. Adapters turn a platform event into an
 * `InboundMessage` with a pure `normalize`, and a `Reply` into platform payloads with a pure `render`;
 * the gateway core never branches on a platform's name, only on declared `AdapterCapabilities`.
 */

import type { Locale } from "./i18n/locale.js";
import { english, type Message, type Text, t } from "./i18n/messages.js";
import type { Reply } from "./reply.js";

/**
 * A platform's name: one registered in `src/core/platforms.ts` by its adapter folder, or `console` (the
 * local terminal chat) or `mock` (the test adapter).
 */
export type PlatformName = string;

/** Where a message was said. */
export type ChatKind = "dm" | "group" | "thread";

/** A command parsed out of a message: `/curator pin foo` → `{name: "curator", args: ["pin", "foo"]}`. */
export interface ParsedCommand {
  /** Lower-case command name without the slash or a `@bot` suffix. */
  name: string;
  /** Arguments split shell-style (quotes respected). */
  args: string[];
  /** The text after the command name, unsplit. */
  rawArgs: string;
}

/** One normalized inbound message. */
export interface InboundMessage {
  /** The platform's id for this event (Telegram update_id, Feishu event_id, Discord message/interaction id). */
  eventId: string;
  platform: PlatformName;
  /**
   * The platform's id for the message itself (Telegram `message_id`, Feishu `message_id`, Discord
   * message id), which replies quote; absent for interactions and the terminal.
   */
  messageId?: string;
  chat: { kind: ChatKind; id: string; threadId?: string };
  sender: { id: string; name?: string; isBot: boolean };
  /** The message text with any leading bot mention removed. */
  text: string;
  /** Present when the text is a command for this bot. */
  command?: ParsedCommand;
  /** Id of the message this one replies to, when any. */
  replyTo?: string;
  /** When the platform says the message was sent (ms since epoch). */
  receivedAt: number;
  /** The platform payload, for logging and adapter-specific replies. Never rendered. */
  raw?: unknown;
  /** Set when this is a button press rather than a message (see `core/actions.ts`). */
  press?: ButtonPress;
  /**
   * The sender's language as the platform tells it, unmapped (Telegram `from.language_code` such as
   * `zh-hans`, Discord `interaction.locale` such as `zh-CN`); absent where the platform does not say.
   */
  language?: string;
  /** The chat's language where the platform has one (a Discord guild's `guild_locale`). */
  chatLanguage?: string;
}

/** A press of a button the gateway showed. `text` of such a message is empty and `command` unset. */
export interface ButtonPress {
  /** The opaque callback id the button carried; only the gateway's action store gives it meaning. */
  actionId: string;
  /** The platform id of the message carrying the button (the one a `replace` press edits). */
  messageId?: string;
}

/** Where a reply goes: a chat, optionally a thread/topic, optionally as a reply to a message. */
export interface OutboundTarget {
  chatId: string;
  threadId?: string;
  replyTo?: string;
  /** Replace this message (one the bot sent, e.g. the one whose button was pressed) instead of sending. */
  editMessageId?: string;
}

/** What an adapter can do; the core reads these instead of checking platform names. */
export interface AdapterCapabilities {
  /** Longest message the platform accepts, in the platform's own unit (Telegram: UTF-16 units). */
  maxMessageLength: number;
  /** The platform has a native command menu or slash commands that skillgate registers. */
  nativeCommands: boolean;
  /** Sent messages can be edited. */
  edit: boolean;
  /** Replies can go to threads or topics. */
  threads: boolean;
  /** Replies can carry buttons (`Reply.actions`) whose presses come back as `InboundMessage.press`. */
  buttons?: boolean;
  /**
   * A question (a reply with `confirmation_required`) is answered by typing `y` as the next message, as
   * in the terminal chat: commands ask there as they do where buttons answer.
   */
  typedAnswers?: boolean;
  /** `file` blocks are sent as files (documents, attachments); without it the reply budget cuts instead. */
  files?: boolean;
  /**
   * How an admin can type a secret privately here: `modal` (Discord), `form` (a Feishu card form),
   * `link` (a one-time web form, when `gateway.public_url` is set). Absent: no private input.
   */
  privateInput?: "modal" | "form" | "link";
  /**
   * The language of replies here when the reader's is unknown and nothing is configured (Feishu on the
   * `feishu` domain: `zh-CN`); absent: English.
   */
  defaultLocale?: Locale;
  /**
   * The reader's language comes with some events only (Discord: an interaction's `locale`, never a typed
   * message): the gateway remembers each reader's last one and answers their other messages in it.
   */
  remembersReaderLanguage?: boolean;
}

/**
 * The gateway hands inbound messages to this sink. It resolves once the message is taken: queued here,
 * or (several replicas, `AdapterHooks.sharedIngress`) durably appended to the home's shared inbox or
 * found there already. It rejects when the message could not be taken (the shared inbox is unreachable):
 * the adapter must then not acknowledge the event, so the platform delivers it again (a webhook answers
 * 503, a Feishu long-connection handler throws).
 */
export type InboundSink = (message: InboundMessage) => Promise<void>;

/** Health of one adapter, as `/healthz` reports it. */
export interface AdapterHealth {
  /** `failed`: the first connection gave up (the detail says why); the other platforms keep running. */
  state: "starting" | "connected" | "degraded" | "stopped" | "failed";
  detail?: string;
}

/** A platform adapter: a thin network shell around pure normalize/render functions. */
export interface Adapter {
  readonly platform: PlatformName;
  readonly capabilities: AdapterCapabilities;
  /** Connects and starts delivering messages to `sink`. Resolves once connected. */
  start(sink: InboundSink, hooks?: AdapterHooks): Promise<void>;
  /** Disconnects; resolves when no more messages will be delivered. */
  stop(): Promise<void>;
  /** Sends a reply, chunked and rendered for the platform. */
  send(target: OutboundTarget, reply: Reply, inReplyTo?: InboundMessage): Promise<void>;
  /**
   * Slow work's "running…" notice: shows `notice` at once (replacing `target.editMessageId` when set)
   * and returns the platform id of the message the result should replace, or undefined when the result
   * goes as a new message. A platform that already shows that the bot is working (a deferred
   * interaction) sends nothing and returns undefined. Optional: without it slow work is not announced.
   */
  acknowledge?(
    target: OutboundTarget,
    notice: Reply,
    inReplyTo?: InboundMessage,
  ): Promise<string | undefined>;
  /** How many messages `send` would post for a reply (pure; the reply budget uses it). */
  measure?(reply: Reply): number;
  /**
   * Several replicas (`AdapterHooks.sharedIngress`): this replica leads now. Starts what exactly one
   * replica of the home may run — long polling, the Discord gateway session, registering a webhook —
   * after `start` brought up what every replica runs. Called at most once per `start`; `stop` ends both.
   * Absent: `start` already did everything.
   */
  lead?(): Promise<void>;
  /** Current health. */
  health(): AdapterHealth;
  /** Registers native commands (menus, slash commands) from the registry; optional. */
  syncCommands?(catalog: CommandCatalogEntry[]): Promise<void>;
  /**
   * The language of a chat the adapter knows without a message (a Discord guild's preferred locale), for
   * posts to it (the home channel); optional.
   */
  chatLanguage?(chatId: string): string | undefined;
}

/**
 * A command as advertised to native menus. Descriptions are `Text`: an adapter resolves them once per
 * locale it registers (Telegram's `language_code` menus, Discord's `description_localizations`).
 * Names are ASCII command names in every locale, so `/curator status` works everywhere.
 */
export interface CommandCatalogEntry {
  name: string;
  description: Text;
  /** Options of a command without subcommands (`/skill <name> [file]`). */
  options?: CatalogOption[];
  /** Subcommands with their options, for platforms with structured commands (Discord). */
  subcommands?: { name: string; description: Text; options: CatalogOption[] }[];
  /** True for a skill that can be loaded as `/<name>`. */
  isSkill?: boolean;
}

/** Questions an adapter may ask the gateway while running (e.g. Discord autocomplete). */
export interface AdapterHooks {
  /**
   * The core's access decision for a message, without side effects: an adapter that must answer every
   * interaction (Discord slash commands) shows a stranger the `notice` privately instead of delivering.
   */
  admit(message: InboundMessage): SenderAdmission;
  /** Skill names this sender may load on this platform that start with `prefix` (visibility + authorisation applied). */
  suggestSkills(senderId: string, prefix: string): Promise<string[]>;
  /** Private secret entry (a "Set KEY" button's modal, card form or link); absent when none is offered. */
  secretInput?: SecretInputHooks;
  /**
   * False while this gateway may not take events (one of several replicas that is not surely leading,
   * or cut off from the shared state): an adapter that pulls events (long polling) pulls none until it
   * turns true again, so what it did not take stays with the platform for the replica that leads.
   * Absent: always true.
   */
  mayTakeEvents?: () => boolean;
  /**
   * True when several replicas of the home take traffic (`gateway.coordination`): every replica starts
   * this adapter, its ingress (webhook listeners, a Feishu long connection, the Discord Interactions
   * Endpoint) runs on each and delivers to a sink that appends to the shared inbox, and what only one
   * replica may run waits for `Adapter.lead`. Replies are sent by the leader, possibly for an event
   * another replica received: `InboundMessage.raw` then is the JSON form of what the receiver had.
   * Absent: one gateway; `start` does everything.
   */
  sharedIngress?: boolean;
  /**
   * Small values an adapter keeps for the next process that serves its platform, shared by every
   * replica of the home (the Telegram update offset, the Discord command fingerprint); present only
   * with several replicas. Absent: the adapter keeps them in its own files under the home.
   */
  sharedState?: AdapterState;
  /**
   * What the sender of `message` is told, in their language, when the gateway could not take it (several
   * replicas, the shared inbox unreachable): `interaction` for a command or press that must be answered
   * at once (Discord), `press` for a card button (Feishu). Absent: the English text.
   */
  notTakenNotice?(message: InboundMessage, kind: NotTakenKind): string;
}

/** Which "not taken" notice a person is shown (see `AdapterHooks.notTakenNotice`). */
export type NotTakenKind = "interaction" | "press";

/** The catalog's "not taken" notice of each kind. */
export const NOT_TAKEN_NOTICES: Readonly<Record<NotTakenKind, Message>> = {
  interaction: t("gateway.notTaken.interaction"),
  press: t("gateway.notTaken.press"),
};

/** The notice for `kind` through `hooks`, or its English text when the gateway gave no hook. */
export function notTakenNotice(
  hooks: Pick<AdapterHooks, "notTakenNotice"> | undefined,
  message: InboundMessage,
  kind: NotTakenKind,
): string {
  return hooks?.notTakenNotice?.(message, kind) ?? english(NOT_TAKEN_NOTICES[kind]);
}

/** Small named values an adapter shares with the replica that serves its platform after it. */
export interface AdapterState {
  /** The stored value of `key`, or undefined (never stored, or expired). */
  get(key: string): Promise<string | undefined>;
  /**
   * Stores `value` for `key` for `ttlMs` (refreshed by each write). Written only while this replica
   * leads under the current epoch; with `forwardOnly` a number never replaces a larger one. True when
   * the stored value is now `value` or (forward only) beyond it; false when the write was refused.
   */
  set(key: string, value: string, options: { ttlMs: number; forwardOnly?: boolean }): Promise<boolean>;
}

/** The private input a pressed "Set KEY" button opens, for the admin who pressed it. */
export interface SecretInputOpening {
  /** One-time token naming the input; it is bound to the presser and expires. */
  token: string;
  /** The environment variable to set. */
  key: string;
  /** The skill that needs it. */
  skill: string;
  /** What to ask (the input's label). */
  prompt: string;
  /** The one-time form link, on platforms that get a link instead of a native input. */
  url?: string;
  /** The presser's language, for the texts around the input (title, hints, notices); default English. */
  locale?: Locale;
}

/**
 * What an adapter asks the gateway around private secret entry. A "Set KEY" button is an ordinary stored
 * action (see `core/actions.ts`); an adapter whose platform opens something native on a press (a modal
 * must be the press's first answer) asks `open` before delivering the press.
 */
export interface SecretInputHooks {
  /**
   * For a button press: `null` when the pressed action is not a "Set KEY" button (deliver the press as
   * usual); otherwise the input to open for the presser, or why it is refused (show it to them only).
   */
  open(press: InboundMessage): Promise<SecretInputOpening | { refused: string } | null>;
  /** What the input for `token` asks (opened by `senderId`), or why it is refused. */
  describe(token: string, senderId: string): Promise<{ key: string; prompt: string } | { refused: string }>;
  /**
   * Stores the typed value (never logged or echoed) and returns what the chat may see: "`KEY` set ✓" and
   * the skill's readiness, or a refusal.
   */
  submit(token: string, senderId: string, value: string): Promise<Reply>;
}

/** Whether a sender is admitted; a stranger gets the notice that names their `platform:id`. */
export type SenderAdmission = { admitted: true } | { admitted: false; notice: Reply };

/** One option of a catalog command, as structured-command platforms (Discord) register it. */
export interface CatalogOption {
  name: string;
  description: Text;
  required: boolean;
  kind: "string" | "boolean" | "integer";
  /** A positional argument (`pin <skill>`) rather than a flag (`--days N`). */
  positional?: boolean;
  /** The values a string option takes, each with the name a menu shows for it. */
  choices?: { value: string; name: Text }[];
}
