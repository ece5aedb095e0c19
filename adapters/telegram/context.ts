/**
 * What the parts of the Telegram adapter share: the options and timings, the grammy bot (its API client
 * pointed at `gateway.telegram.api_root`), the logger, the gateway's sink and hooks once started, the
 * health state, the stop signal and the callback queries not answered yet.
 */
import path from "node:path";
import { AdapterError } from "../../src/core/errors.js";
import { IntakeFailures } from "../../src/core/intake-failures.js";
import type { Logger } from "../../src/core/logger.js";
import type { AdapterHealth, AdapterHooks, InboundSink } from "../../src/core/message.js";
import type { AdapterOptions } from "../../src/core/platforms.js";
import { telegramConfig } from "./config.js";
import { leanFetch } from "./fetch.js";
import { Bot } from "./grammy.js";

/** The common adapter options, plus timings that tests shorten. */
export interface TelegramAdapterOptions extends AdapterOptions {
  tuning?: Partial<TelegramTuning>;
}

/** Timings and retry limits. */
export interface TelegramTuning {
  /** Long-poll timeout passed to getUpdates (s). */
  pollTimeoutSeconds: number;
  /** First delay after a 409 conflict (ms); doubles on each further conflict. */
  conflictBaseMs: number;
  /** Longest delay between conflict or network retries (ms). */
  maxBackoffMs: number;
  /** First delay after a network error (ms); doubles. */
  networkBaseMs: number;
  /** Least time between two writes of the update offset (ms). */
  offsetFlushMs: number;
  /** Attempts per API call (429 waits and network retries included). */
  maxAttempts: number;
  /** A `retry_after` above this many seconds is not waited out; the call fails instead. */
  maxRetryAfterSeconds: number;
  /** Attempts of the first connection (`getMe`) before the adapter gives up and reports `failed`. */
  startAttempts: number;
  /** How long one connection attempt may take (ms). */
  connectTimeoutMs: number;
}

const DEFAULT_TUNING: TelegramTuning = {
  pollTimeoutSeconds: 30,
  conflictBaseMs: 30_000,
  maxBackoffMs: 120_000,
  networkBaseMs: 1_000,
  offsetFlushMs: 250,
  maxAttempts: 5,
  maxRetryAfterSeconds: 300,
  startAttempts: 5,
  connectTimeoutMs: 15_000,
};

/** Update types requested: messages and presses of our inline buttons; edits and the rest are not fetched. */
export const ALLOWED_UPDATES = ["message", "callback_query"] as const;

/** grammy's AbortSignal type (its own shim; Node's signal works at run time). */
export type GrammySignal = NonNullable<Parameters<Bot["api"]["getMe"]>[0]>;

/** One Telegram adapter's shared state; throws `AdapterError` when `TELEGRAM_BOT_TOKEN` is missing. */
export class TelegramContext {
  readonly bot: Bot;
  /** The bot's numeric id (the token's first part): names its lock and its saved offset. */
  readonly botId: number;
  readonly logger: Logger;
  readonly tuning: TelegramTuning;
  state: AdapterHealth = { state: "stopped" };
  /** Updates whose handling threw lately (`/healthz` says `degraded` while they repeat). */
  readonly intakeFailures = new IntakeFailures();
  sink: InboundSink | undefined;
  hooks: AdapterHooks | undefined;
  /** Connected and not stopped: the poll loop runs while this holds. */
  running = false;
  /** Aborted by `stop()` (waits and requests end); each start gets a fresh one. */
  abort = new AbortController();
  /** Callback queries not answered yet (answered once, privately with a refusal or plainly). */
  readonly openQueries = new Set<string>();

  constructor(readonly options: TelegramAdapterOptions) {
    const token = options.secret("TELEGRAM_BOT_TOKEN");
    if (!token) {
      throw new AdapterError(
        "telegram",
        `TELEGRAM_BOT_TOKEN is not set. Put it in ${path.join(options.home, ".env")} (TELEGRAM_BOT_TOKEN=123456:ABC…, from @BotFather) or the environment, or set gateway.telegram.enabled: false.`,
        { code: "adapter.telegram.no_token" },
      );
    }
    this.botId = Number(token.split(":")[0]) || 0;
    this.logger = options.logger.child({ adapter: "telegram" });
    this.tuning = { ...DEFAULT_TUNING, ...options.tuning };
    const apiRoot = telegramConfig(options.config).apiRoot?.replace(/\/+$/, "");
    // grammy's own `fetch` option (see fetch.ts); its type is the DOM `fetch`, which this covers for grammy.
    const fetch = leanFetch as unknown as typeof globalThis.fetch;
    this.bot = new Bot(token, { client: apiRoot ? { apiRoot, fetch } : { fetch } });
  }

  /** The stop signal, typed as grammy's client expects (its AbortSignal shim; Node's works at run time). */
  get signal(): GrammySignal {
    return this.abort.signal as unknown as GrammySignal;
  }

  /** Sleeps, cut short by `stop()`. */
  sleep(ms: number): Promise<void> {
    const signal = this.abort.signal;
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      }
      signal.addEventListener("abort", done, { once: true });
    });
  }
}
