/**
 * The command contract shared by the CLI and every chat surface. A command is data (path, arguments,
 * options, whether it mutates) plus a `run` that returns a neutral `Reply`; it never prints. The CLI
 * (commander) and the chat router are both built from the same registry of these specs.
 */
import type { SkillgateConfig } from "../src/config/config.js";
import type { HomePaths } from "../src/config/home.js";
import type { Reply, SecretInputOffer } from "../src/core/reply.js";
import type { ChatSessions } from "../src/core/stores.js";
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
  /** `terminal` for the CLI and the terminal chat, `chat` for a messaging platform. */
  surface: "terminal" | "chat";
  /** Chat platform, or the CLI's `--platform` / `HERMES_PLATFORM`; null in a plain terminal. */
  platform: string | null;
  /** `--json` was given: the reply's `json` document is what gets printed. */
  json: boolean;
  /** A person at a TTY can answer prompts (`prompt` is then set). */
  interactive: boolean;
  /** Asks the person at the terminal; `hidden` suppresses echo (secrets). */
  prompt?: (question: string, options?: { hidden?: boolean }) => Promise<string>;
  /** Progress lines for long runs (stderr in a terminal); never part of the reply. */
  progress?: (line: string) => void;
  /** Who runs it: `user` from the CLI and chat, `curator` from the maintenance tick. */
  actor: "user" | "curator" | "agent";
  /** Set in chat. */
  caller?: Caller;
  /** Chat session key (`platform:chat[:thread]`), set in chat. */
  sessionKey?: string;
  /** The platform's chat id, set in chat (allowed chats admit their members). */
  chatId?: string;
  /** The chat sessions store (loaded skills, history), set in chat by the gateway. */
  sessions?: ChatSessions;
  /** The clock (tests pass a fixed one). */
  now: () => Date;
  /** How the surface spells a command: `/curator` in chat, `skillgate curator` in the terminal. */
  commandPrefix: (path: string[]) => string;
  /**
   * Offers private inputs for missing secrets of `skill`. Set by the gateway only for an admin on a
   * platform with a private input (Discord modal, Feishu card form, one-time form link); absent otherwise.
   */
  offerSecretInputs?: (skill: string, secrets: { name: string; prompt: string }[]) => SecretInputOffer[];
}

/** A positional argument. */
export interface ArgSpec {
  name: string;
  description: string;
  required?: boolean;
  /** Takes all remaining arguments. */
  variadic?: boolean;
}

/** An option. `name` is the long flag without dashes (`dry-run`); `short` a one-letter alias. */
export interface OptionSpec {
  name: string;
  short?: string;
  description: string;
  kind: "boolean" | "string" | "integer";
  /** Allowed values for a string option. */
  choices?: string[];
}

/** Parsed input: positional args and options keyed by long name (camel-cased is NOT applied). */
export interface CommandInput {
  args: string[];
  options: Record<string, string | number | boolean | undefined>;
}

/** One command of the registry. */
export interface CommandSpec {
  /** `["curator", "pin"]`, `["skills", "list"]`, `["help"]`. */
  path: string[];
  summary: string;
  args?: ArgSpec[];
  options?: OptionSpec[];
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
  confirm?: (ctx: CommandContext, input: CommandInput) => Promise<string | null> | string | null;
  /** Hidden from help and menus (still runnable). */
  hidden?: boolean;
  run(ctx: CommandContext, input: CommandInput): Promise<Reply>;
}
