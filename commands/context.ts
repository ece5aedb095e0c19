/**
 * Builds the `CommandContext` a command runs with: one for the terminal (CLI and `skillgate` prompts)
 * and one per chat message. The gateway passes its long-lived library; without one, a fresh
 * `openLibrary` is opened for the invocation.
 */
import type { SkillgateConfig } from "../src/config/config.js";
import { homePaths } from "../src/config/home.js";
import type { InboundMessage } from "../src/core/message.js";
import type { ChatSessions, RunLock } from "../src/core/stores.js";
import { openLibrary } from "../src/skills/library.js";
import type { SkillLibrary } from "../src/skills/types.js";
import type { CommandContext } from "./types.js";

/** How the terminal spells a command: `skillgate curator pin`. */
export function terminalPrefix(path: string[]): string {
  return `skillgate ${path.join(" ")}`;
}

/** How a chat spells a command: `/curator pin`. */
export function chatPrefix(path: string[]): string {
  return `/${path.join(" ")}`;
}

/** The chat session a message belongs to: `platform:chat[:thread]`. */
export function sessionKeyOf(message: Pick<InboundMessage, "platform" | "chat">): string {
  const base = `${message.platform}:${message.chat.id}`;
  return message.chat.threadId ? `${base}:${message.chat.threadId}` : base;
}

/** The key a chat's own settings (its `/language`) are kept under: `platform:chat`, for all its threads. */
export function chatKeyOf(platform: string, chatId: string): string {
  return `${platform}:${chatId}`;
}

/** Options of `terminalContext`. */
export interface TerminalContextOptions {
  home: string;
  config: SkillgateConfig;
  /** `--platform` / `HERMES_PLATFORM`; null for the plain terminal. */
  platform?: string | null;
  json?: boolean;
  /** A TTY is on stdin; `prompt` must then be given. */
  interactive?: boolean;
  prompt?: CommandContext["prompt"];
  progress?: CommandContext["progress"];
  meter?: CommandContext["meter"];
  now?: () => Date;
  library?: SkillLibrary;
  /** Aborted on SIGTERM/SIGINT: long work stops at its next safe point. */
  signal?: AbortSignal;
}

/** Context for the CLI: the local user is the owner, prompts only with a TTY. */
export function terminalContext(options: TerminalContextOptions): CommandContext {
  const interactive = Boolean(options.interactive && options.prompt);
  return {
    home: options.home,
    paths: homePaths(options.home),
    config: options.config,
    // A one-shot command ends long before watchers would pay for themselves (arming them on a 10k
    // library costs ~0.3 s), so it re-checks the disk by polling instead.
    library: options.library ?? openLibrary(options.home, options.config, { watch: false }),
    surface: "terminal",
    platform: options.platform ?? null,
    json: options.json ?? false,
    interactive,
    prompt: interactive ? options.prompt : undefined,
    progress: options.progress,
    meter: options.meter,
    actor: "user",
    now: options.now ?? (() => new Date()),
    commandPrefix: terminalPrefix,
    signal: options.signal,
  };
}

/** Options of `chatContext`. */
export interface ChatContextOptions {
  home: string;
  config: SkillgateConfig;
  message: InboundMessage;
  /** The sender may run mutating commands (decided by the access rules). */
  isAdmin: boolean;
  /** The gateway's chat sessions store. */
  sessions?: ChatSessions;
  /** The gateway's run lock (default: the file lock of `home`). */
  runLock?: RunLock;
  now?: () => Date;
  library?: SkillLibrary;
  /** A question is answered in one step (the adapter shows buttons or takes a typed `y`). */
  answersInOneStep?: boolean;
  /** Aborted when the gateway is stopping: long work stops at its next safe point. */
  signal?: AbortSignal;
}

/** Context for one chat message: never interactive, platform and caller from the message. */
export function chatContext(options: ChatContextOptions): CommandContext {
  const { message } = options;
  return {
    home: options.home,
    paths: homePaths(options.home),
    config: options.config,
    library: options.library ?? openLibrary(options.home, options.config),
    surface: "chat",
    platform: message.platform,
    json: false,
    interactive: false,
    actor: "user",
    caller: {
      platform: message.platform,
      id: message.sender.id,
      name: message.sender.name,
      isAdmin: options.isAdmin,
    },
    sessionKey: sessionKeyOf(message),
    operationId: `${message.platform}:${message.eventId}`,
    chatId: message.chat.id,
    chatKind: message.chat.kind,
    sessions: options.sessions,
    runLock: options.runLock,
    answersInOneStep: options.answersInOneStep === true,
    now: options.now ?? (() => new Date()),
    commandPrefix: chatPrefix,
    signal: options.signal,
  };
}
