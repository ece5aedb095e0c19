/**
 * The command contract shared by the CLI and every chat surface. A command is data (path, arguments,
 * options, whether it mutates) plus a `run` that returns a neutral `Reply`; it never prints. The CLI
 * (commander) and the chat router are both built from the same registry of these specs.
 */

import type { SkillgateConfig } from "../src/config/config.js";
import type { HomePaths } from "../src/config/home.js";
import type { Text } from "../src/core/i18n/messages.js";
import type { ChatKind } from "../src/core/message.js";
import type { ProgressSink } from "../src/core/progress.js";
import type { Reply } from "../src/core/reply.js";
import type { ChatSessions, RunLock } from "../src/core/stores.js";
import type { SkillLibrary } from "../src/skills/types.js";

/** Who is asking, when the command comes from a chat. */
export interface Caller {
  platform: string;
  id: string;
  name?: string;
  /** May run mutating commands. The terminal user is the local owner and always an admin. */
  isAdmin: boolean;
}

/** Everything a command may use. Built once per invocation by the CLI or the gateway. */
export interface CommandContext {
  home: string;
  paths: HomePaths;
  config: SkillgateConfig;
  library: SkillLibrary;
  /**
   * `terminal` for the CLI and the terminal chat, `chat` for a messaging platform, `web` for the local
   * web console (its login decides `caller.isAdmin`; confirmations come back as questions, like chat).
   */
  surface: "terminal" | "chat" | "web";
  /** Chat platform, or the CLI's `--platform` / `HERMES_PLATFORM`; null in a plain terminal. */
  platform: string | null;
  /** `--json` was given: the reply's `json` document is what gets printed. */
  json: boolean;
  /** A person at a TTY can answer prompts (`prompt` is then set). */
  interactive: boolean;
  /** Asks the person at the terminal (in their locale); `hidden` suppresses echo (secrets). */
  prompt?: (question: Text, options?: { hidden?: boolean }) => Promise<string>;
  /**
   * Progress lines for long runs (stderr in a terminal), as texts the surface resolves for its reader
   * (`english` where they are logged or stored); never part of the reply.
   */
  progress?: (line: Text) => void;
  /** Counted progress of long work (a bar on a terminal); absent where nothing is shown. */
  meter?: ProgressSink;
  /** Who runs it: `user` from the CLI and chat, `web` from the web console, `curator` from the tick. */
  actor: "user" | "curator" | "agent" | "web";
  /** Set in chat. */
  caller?: Caller;
  /**
   * A question costs one step to answer here — a button press, or a typed `y` in the terminal chat — so
   * a command may ask one it would not ask in a plain text chat (archive, restore).
   */
  answersInOneStep?: boolean;
  /** Chat session key (`platform:chat[:thread]`), set in chat. */
  sessionKey?: string;
  /** The platform's chat id, set in chat (allowed chats admit their members). */
  chatId?: string;
  /** What kind of chat the message came from (a direct chat, a group, a thread), set in chat. */
  chatKind?: ChatKind;
  /** The chat sessions store (loaded skills, history), set in chat by the gateway. */
  sessions?: ChatSessions;
  /**
   * The platform event this command answers (`<platform>:<event id>`), set in chat: the operation id
   * that ledger entries of the mutations it makes carry (`evidence.operation_id`).
   */
  operationId?: string;
  /**
   * Set by a gateway whose events may be handled again after a crash (several replicas, the shared
   * inbox): each effect a command makes durable outside the ledger (a usage count) goes through it, so
   * a replay of the same event skips what was applied already. Absent: effects are applied directly.
   */
  effects?: EffectLog;
  /** The curator run lock, set in chat by the gateway from its stores; default the file lock of `home`. */
  runLock?: RunLock;
  /** The clock (tests pass a fixed one). */
  now: () => Date;
  /**
   * Aborted when the process is stopping (SIGTERM, a gateway shutting down): long work (a curator run)
   * stops at its next safe point and records what it did.
   */
  signal?: AbortSignal;
  /** How the surface spells a command: `/curator` in chat, `skillgate curator` in the terminal. */
  commandPrefix: (path: string[]) => string;
  /**
   * This surface opens a private input for a secret (Discord modal, Feishu card form, one-time form
   * link): replies may carry "Set KEY" buttons for an admin. Set by the gateway; absent elsewhere.
   */
  secretInput?: boolean;
}

/** A positional argument. */
export interface ArgSpec {
  name: string;
  description: Text;
  required?: boolean;
  /** Takes all remaining arguments. */
  variadic?: boolean;
}

/** How an option's value is read: a bare flag, any text, or a whole number. */
export type OptionKind = "boolean" | "string" | "integer";

/**
 * An option, declared once per command: the CLI (commander) and the chat parser both build on it, and
 * the command receives a value typed from it. `name` is the long flag without dashes (`dry-run`) and the
 * key of the parsed value; `short` a one-letter alias.
 */
export interface OptionSpec {
  readonly name: string;
  readonly short?: string;
  readonly description: Text;
  readonly kind: OptionKind;
  /** Allowed values for a string option (the parsed value is typed as their union). */
  readonly choices?: readonly string[];
  /** What a menu shows for each of `choices` (default: the value itself). */
  readonly choiceLabels?: Readonly<Record<string, Text>>;
  /** An environment variable the CLI reads when the option is not given (e.g. `HERMES_PLATFORM`). */
  readonly env?: string;
}

/** The value type of one declared option. */
export type OptionValue<S extends OptionSpec> = S["kind"] extends "boolean"
  ? boolean
  : S["kind"] extends "integer"
    ? number
    : S extends { readonly choices: readonly (infer C)[] }
      ? C
      : string;

/**
 * The parsed options of a command with the declared `options`, keyed by long name; each is absent when
 * not given. `json` (every command) and `yes` (commands with `confirm`) are added by the parser.
 */
export type OptionValues<O extends readonly OptionSpec[]> = {
  readonly [S in O[number] as S["name"]]?: OptionValue<S>;
} & { readonly json?: boolean; readonly yes?: boolean };

/** Parsed options of a command whose declaration is not known statically (the runner, the CLI). */
export type AnyOptionValues = Record<string, string | number | boolean | undefined>;

/** The options `run` receives: typed from a literal declaration, loose for an erased registry entry. */
export type InputOptions<O extends readonly OptionSpec[]> = readonly OptionSpec[] extends O
  ? AnyOptionValues
  : OptionValues<O>;

/** Parsed input: positional args and the options, typed from the command's declaration. */
export interface CommandInput<V = AnyOptionValues> {
  args: string[];
  options: V;
}

/**
 * One command of the registry. `O` is its option declaration; `run` and `confirm` receive options typed
 * from it. Write specs with `defineCommand` so the declaration's literal names and kinds are kept.
 */
export interface CommandSpec<O extends readonly OptionSpec[] = readonly OptionSpec[]> {
  /** `["curator", "pin"]`, `["skills", "list"]`, `["help"]`. */
  path: string[];
  /** One line for help and the native menus, resolved in the reader's locale. */
  summary: Text;
  args?: ArgSpec[];
  options?: O;
  /** Changes anything on disk (admins only in chat). */
  mutating: boolean;
  /**
   * For a command that changes something only for some inputs (`skills config set …` beside the
   * read-only `skills config`): decides per input, instead of `mutating`, whether it is for admins.
   */
  mutatesFor?: (input: CommandInput) => boolean;
  /**
   * When set and it returns a question for this input, the runner asks before `run`: a prompt on a
   * terminal, a refusal without a TTY and without `-y`, or in chat a request to repeat with `-y`.
   * Commands with `confirm` get a `-y/--yes` option automatically.
   */
  confirm?(ctx: CommandContext, input: CommandInput<InputOptions<O>>): Promise<Text | null> | Text | null;
  /** Hidden from help and menus (still runnable). */
  hidden?: boolean;
  run(ctx: CommandContext, input: CommandInput<InputOptions<O>>): Promise<Reply>;
}

/**
 * Declares a command: infers the option declaration literally (so `input.options["dry-run"]` is a
 * `boolean | undefined` and a misspelt name does not compile) and returns it as a registry entry.
 */
export function defineCommand<const O extends readonly OptionSpec[] = readonly []>(
  spec: CommandSpec<O>,
): CommandSpec {
  return spec as unknown as CommandSpec;
}

/** Effects of one event, applied once however often the event is handled (see `CommandContext.effects`). */
export interface EffectLog {
  /** Runs `apply` unless this event's `effect` was applied before, then records it. */
  once(effect: string, apply: () => Promise<void>): Promise<void>;
}
