/**
 * What the parts of the Feishu/Lark adapter share: the options and timings, the SDK client (made by
 * `start()`), the logger, the gateway's sink and hooks, the health state, the ids seen lately (for fast
 * redelivery drops) and the toasts of the card presses being judged.
 */
import type * as lark from "@larksuiteoapi/node-sdk";
import { trimOldest } from "../../src/core/bounded.js";
import { AdapterError } from "../../src/core/errors.js";
import { IntakeFailures } from "../../src/core/intake-failures.js";
import type { Logger } from "../../src/core/logger.js";
import type { AdapterHealth, AdapterHooks, InboundSink } from "../../src/core/message.js";
import type { AdapterOptions } from "../../src/core/platforms.js";
import { feishuConfig } from "./config.js";

/** What the Feishu adapter factory receives: the shared `AdapterOptions`, plus timings tests shorten. */
export interface FeishuAdapterOptions extends AdapterOptions {
  tuning?: Partial<FeishuTuning>;
}

/** Retry timings of the Feishu adapter. */
export interface FeishuTuning {
  /** Length of one second of `x-ogw-ratelimit-reset` (ms): 1000, shortened in tests. */
  secondMs: number;
  /** Wait before retrying a throttled send without a reset header (ms); doubles per attempt. */
  throttleBaseMs: number;
  /** Attempts per send under frequency control. */
  maxThrottleAttempts: number;
  /** Longest wait for one retry (ms); a longer reset fails the send. */
  maxThrottleWaitMs: number;
  /**
   * How long a card callback may take before it is answered empty (ms): Feishu fails a callback not
   * answered within 3 s, so what the press says is then posted to the chat instead.
   */
  callbackDeadlineMs: number;
  /** Shortest gap between two updates of one card (ms): Feishu allows 5 updates a second per message. */
  cardUpdateGapMs: number;
  /**
   * How long `start()` waits for the long connection to open (ms). The SDK keeps retrying a refused
   * handshake (such as the 51st connection of an app) without saying why, so `start()` gives up then.
   */
  connectTimeoutMs: number;
}

const DEFAULT_TUNING: FeishuTuning = {
  secondMs: 1000,
  throttleBaseMs: 500,
  maxThrottleAttempts: 5,
  maxThrottleWaitMs: 60_000,
  callbackDeadlineMs: 2_500,
  cardUpdateGapMs: 200,
  connectTimeoutMs: 20_000,
};

/** Event and message ids remembered in memory for fast redelivery drops. */
export const RECENT_IDS = 4096;

/** One Feishu adapter's shared state. */
export class FeishuContext {
  readonly tuning: FeishuTuning;
  readonly log: Logger;
  client: lark.Client | undefined;
  hooks: AdapterHooks | undefined;
  sink: InboundSink | undefined;
  state: AdapterHealth = { state: "stopped" };
  /** Webhook events whose handling failed lately (`/healthz` says `degraded` while they repeat). */
  readonly intakeFailures = new IntakeFailures();
  stopped = false;
  /** The bot's own open_id (from `bot/v3/info`), known after `start()`. */
  botOpenId = "";
  /** `http://127.0.0.1:PORT/path` of the webhook listener, in webhook mode after `start()`. */
  webhookUrl: string | undefined;
  readonly recent = new RecentIds(RECENT_IDS);
  /** Card presses being judged: a private refusal for one is answered as the callback's toast. */
  readonly toasts = new Map<string, string | undefined>();

  constructor(readonly opts: FeishuAdapterOptions) {
    this.tuning = { ...DEFAULT_TUNING, ...opts.tuning };
    this.log = opts.logger.child({ platform: "feishu" });
  }

  /** The `gateway.feishu` section. */
  get settings() {
    return feishuConfig(this.opts.config);
  }

  /** The SDK client; throws a clear `AdapterError` before `start()`. */
  requireClient(): lark.Client {
    if (!this.client)
      throw new AdapterError("feishu", "The Feishu adapter is not started; call start() before sending.");
    return this.client;
  }
}

/** A bounded set of recently seen ids (oldest forgotten first). */
class RecentIds {
  private readonly ids = new Set<string>();
  constructor(private readonly capacity: number) {}
  has(id: string): boolean {
    return this.ids.has(id);
  }
  add(id: string): void {
    this.ids.add(id);
    trimOldest(this.ids, this.capacity);
  }
  delete(id: string): void {
    this.ids.delete(id);
  }
}
