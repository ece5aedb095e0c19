/** Shared set-up for the Telegram adapter and gateway tests: a temp home, an emulator, a capturing logger. */
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type pino from "pino";
import { createTelegramAdapter, type TelegramTuning } from "../../adapters/telegram/index.js";
import { parseConfig, type SkillgateConfig } from "../../src/config/config.js";
import { createLogger, type Logger } from "../../src/core/logger.js";
import type { Adapter, InboundMessage } from "../../src/core/message.js";
import { TelegramEmulator } from "../emulators/telegram.js";

/** Fast timings for tests. */
export const FAST: Partial<TelegramTuning> = {
  pollTimeoutSeconds: 2,
  conflictBaseMs: 40,
  maxBackoffMs: 400,
  networkBaseMs: 40,
};

/** A logger whose lines are kept in `lines` (parsed JSON). */
export function capturingLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const destination = {
    write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
  };
  return {
    logger: createLogger({ destination: destination as unknown as pino.DestinationStream, level: "debug" }),
    lines,
  };
}

/** A fresh temp home; `cleanup` removes it. */
export async function tempHome(): Promise<{ home: string; cleanup: () => Promise<void> }> {
  const home = await mkdtemp(path.join(os.tmpdir(), "skillgate-tg-"));
  return { home, cleanup: () => rm(home, { recursive: true, force: true }) };
}

/** A listening emulator and a temp home, both removed by the callbacks pushed onto `cleanups`. */
export async function emulatorWithHome(
  cleanups: (() => Promise<void>)[],
): Promise<{ emulator: TelegramEmulator; home: string }> {
  const emulator = new TelegramEmulator();
  await emulator.listen();
  const { home, cleanup } = await tempHome();
  cleanups.push(cleanup, () => emulator.close());
  return { emulator, home };
}

/** Config for a gateway talking to the emulator. */
export function emulatorConfig(
  emulator: TelegramEmulator,
  gateway: Record<string, unknown> = {},
  rest: Record<string, unknown> = {},
): SkillgateConfig {
  const telegram = (gateway.telegram as Record<string, unknown> | undefined) ?? {};
  return parseConfig({
    ...rest,
    gateway: {
      health: { enabled: false },
      ...gateway,
      telegram: { enabled: true, api_root: emulator.apiRoot, ...telegram },
    },
  });
}

/** A Telegram adapter against the emulator, plus an inbox its sink fills. */
export function adapterFor(
  emulator: TelegramEmulator,
  home: string,
  options: { config?: SkillgateConfig; logger?: Logger; tuning?: Partial<TelegramTuning> } = {},
): {
  adapter: Adapter;
  inbox: InboundMessage[];
  sink: (message: InboundMessage) => Promise<void>;
  waitInbox: (count: number, timeoutMs?: number) => Promise<InboundMessage[]>;
} {
  const inbox: InboundMessage[] = [];
  const adapter = createTelegramAdapter({
    config: options.config ?? emulatorConfig(emulator),
    home,
    secret: (name) => (name === "TELEGRAM_BOT_TOKEN" ? emulator.token : undefined),
    logger: options.logger ?? capturingLogger().logger,
    tuning: { ...FAST, ...options.tuning },
  });
  const sink = async (message: InboundMessage) => {
    inbox.push(message);
  };
  const waitInbox = (count: number, timeoutMs = 5000) =>
    waitUntil(
      () => inbox.length >= count,
      timeoutMs,
      () => `inbox has ${inbox.length}/${count} messages`,
    ).then(() => inbox.slice(0, count));
  return { adapter, inbox, sink, waitInbox };
}

/**
 * A started adapter taking updates by webhook at `url` (secret `right_secret`) from a listening emulator,
 * on a temp home; the emulator, home and adapter are undone by the callbacks pushed onto `cleanups`.
 */
export async function startWebhookAdapter(cleanups: (() => Promise<void>)[]) {
  const { emulator, home } = await emulatorWithHome(cleanups);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/tg`;
  const config = emulatorConfig(emulator, {
    telegram: { mode: "webhook", webhook: { url, port, secret: "right_secret" } },
  });
  const started = adapterFor(emulator, home, { config });
  await started.adapter.start(started.sink);
  cleanups.push(() => started.adapter.stop());
  return { emulator, url, ...started };
}

/** Polls `condition` every 10 ms until it holds; rejects after `timeoutMs`. */
export function waitUntil(
  condition: () => boolean,
  timeoutMs = 5000,
  describe: () => string = () => "condition",
): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const check = () => {
      if (condition()) return resolve();
      if (Date.now() - started > timeoutMs) return reject(new Error(`timed out: ${describe()}`));
      setTimeout(check, 10);
    };
    check();
  });
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Like `waitUntil` for an async condition, checked one at a time. */
export async function waitFor(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error("timed out waiting for a condition");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
