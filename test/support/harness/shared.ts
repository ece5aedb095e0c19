/**
 * What every platform's part of the test harness shares: the people and places of a chat, the neutral
 * handles a platform offers (send as a person, press a button, read what the bot shows now), the base of
 * a booted run, and the log capture.
 */
import type pino from "pino";
import type { SkillgateConfig } from "../../../src/config/config.js";
import { createLogger, type Logger } from "../../../src/core/logger.js";
import type { Adapter } from "../../../src/core/message.js";
import type { Gateway } from "../../../src/gateway/gateway.js";

/** Who speaks: an admin, an allowed (read-only) user, or someone unknown. */
export type Person = "admin" | "member" | "stranger";
/** Where: the person's direct chat with the bot, or the shared group. */
export type Place = "dm" | "group";
/** Every person, in a fixed order. */
export const PEOPLE: readonly Person[] = ["admin", "member", "stranger"];

/** A message a person sent (opaque to neutral callers beyond its label). */
export interface Said {
  who: Person;
  where: Place;
  text: string;
  /** Platform data (update, event, message id…). */
  ref: unknown;
}

/** A message the bot sent, as the chat shows it now: edits in place applied, deferred placeholders left out. */
export interface BotMessage {
  /** The platform's message id. */
  id: string;
  /** `dm:<person>` or `group`. */
  chat: string;
  /** What a person reads. */
  text: string;
  /** Labels of the buttons it carries now. */
  buttons: string[];
  /** How many times it was edited in place. */
  edits: number;
  /** The message pings everyone in the chat (@everyone, @all…). */
  mentionsEveryone: boolean;
}

/** What a button press came to, as the presser saw it at once. */
export interface PressOutcome {
  /** The notice only the presser was shown (an alert, a toast, an ephemeral message), if any. */
  notice: string | undefined;
}

/** The neutral handles of one running platform: the same calls on every platform. */
export interface ChatHandles {
  /** A command the platform's usual way, addressed to the bot (`line` is e.g. "curator status"). */
  command(who: Person, where: Place, line: string): Promise<Said>;
  /** Plain text; in the group `addressed: false` means not meant for this bot (no mention, other bot). */
  say(who: Person, where: Place, text: string, options: { addressed: boolean }): Promise<Said>;
  /** The platform delivers the very same message again. */
  redeliver(said: Said): Promise<void>;
  /** The person edits the message (absent where the platform does not deliver edits to bots). */
  edit?(said: Said, text: string): Promise<void>;
  /** Makes the next replies go out in the platform's plain-text form (where rich text may be refused). */
  plainTextFromNowOn?(): void;
  /** The person presses the button labelled `label` on `message`; resolves once the gateway is idle. */
  press(who: Person, message: BotMessage, label: string): Promise<PressOutcome>;
  /** Every bot message so far, oldest first, as currently shown. */
  seen(): BotMessage[];
  /** Most characters one message holds on this platform. */
  maxLength: number;
  /** The person's `platform:id`. */
  idOf(who: Person): string;
}

/** What every platform's handles include: the neutral ones. */
export interface WithChat {
  /** The neutral handles (see `ChatHandles`). */
  chat: ChatHandles;
}

/** One parsed log line. */
export type LogLine = Record<string, unknown>;

/** A logger at debug level whose lines are kept, raw and parsed. */
export function capturedLogger(): { logger: Logger; raw: string[]; lines: LogLine[] } {
  const raw: string[] = [];
  const lines: LogLine[] = [];
  const destination = {
    write: (line: string) => {
      raw.push(line);
      lines.push(JSON.parse(line) as LogLine);
    },
  };
  return {
    logger: createLogger({ destination: destination as unknown as pino.DestinationStream, level: "debug" }),
    raw,
    lines,
  };
}

/** A booted gateway with one platform's real adapter against that platform's emulator. */
export interface BaseRun<P extends string, E, A extends Adapter> {
  platform: P;
  home: string;
  /** `<home>/config.yaml` when the run was booted from a config file. */
  file: string | undefined;
  config: SkillgateConfig;
  emulator: E;
  adapter: A;
  gateway: Gateway;
  /** Every line the gateway and the adapter logged (debug and up), parsed. */
  logs: LogLine[];
  /** The same lines as written. */
  logText(): string;
  /** Moves the gateway's clock forward (ms). */
  advance(ms: number): void;
  /** Stops the gateway (once); the emulator and the home stay until `stop`. */
  stopGateway(): Promise<void>;
  /** A new adapter and gateway on the same home, config and emulator (stop the first one before). */
  restart(): Promise<Gateway>;
  /** Stops the gateway, closes the emulator and removes the home (what the run created). */
  stop(): Promise<void>;
}

/** Polls `condition` every 10 ms until it holds; rejects naming `what` after `timeoutMs`. */
export async function until(condition: () => boolean, what: string, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Lets in-flight deliveries land, then waits until the gateway is idle. */
export async function settle(gateway: Gateway): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 20));
  await gateway.whenIdle();
}
