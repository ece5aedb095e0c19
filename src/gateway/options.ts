/**
 * What a gateway is to its callers (`skillgate serve`, the tests): its options, the options of its stop,
 * and the running gateway's face. `createGateway` in gateway.ts builds one.
 */

import type { CommandSpec } from "../../commands/types.js";
import type { SkillgateConfig } from "../config/config.js";
import type { Locale } from "../core/i18n/locale.js";
import type { Logger } from "../core/logger.js";
import type { Adapter } from "../core/message.js";
import type { CoordinationStores } from "../core/stores.js";
import type { Consolidator } from "../curator/types.js";
import type { LeaseTimings } from "./coordination/lease.js";
import type { TickOutcome } from "./maintenance.js";
import type { ChatAgent } from "./router.js";

/** Options of `createGateway`. */
export interface GatewayOptions {
  home: string;
  config: SkillgateConfig;
  adapters: Adapter[];
  logger?: Logger;
  /** Clock in ms since epoch (tests pass a controlled one). */
  now?: () => number;
  agent?: ChatAgent;
  /** The command registry; defaults to the shared one (tests may pass their own specs). */
  registry?: readonly CommandSpec[];
  /** The curator's LLM consolidation pass for maintenance runs (tests pass a fake); default the real one. */
  consolidator?: Consolidator;
  /**
   * How long `stop` waits for in-flight commands and a curator run to reach a safe point before stopping
   * adapters anyway (ms). Default `gateway.stop_timeout_seconds`.
   */
  drainTimeoutMs?: number;
  /**
   * The stores that coordinate gateway processes (sessions, dedupe, last activity, stranger notices,
   * the curator run lock); default the file implementations under the home (`openFileStores`).
   */
  stores?: CoordinationStores;
  /**
   * Serve the web console too (when `gateway.console.enabled`); `skillgate serve` sets it. Its URL and
   * login link go to `announce` (the terminal; the link only with `printLink`), the URL to the log.
   */
  console?: { announce?: (line: string) => void; printLink?: boolean; locale?: Locale };
  /**
   * Work still running after this long (ms) is acknowledged in the chat ("running…") and the notice is
   * then replaced by the result where the platform can edit messages. Default 2000.
   */
  acknowledgeAfterMs?: number;
  /**
   * With `gateway.coordination`: called when this replica stopped leading (it fenced itself, or another
   * took the lease) and the gateway is stopping; `skillgate serve` then starts a fresh one that rejoins
   * as a standby. Without it the process just stops serving.
   */
  onLeadershipLost?: (reason: string, options: { retryAfterMs: number }) => void;
  /** Lease timings with `gateway.coordination` (tests shorten them); default `LEASE_TIMINGS`. */
  leaseTimings?: LeaseTimings;
  /**
   * With `gateway.coordination`, a standby rejoining after a lost lead: it starts even while Redis does
   * not answer (`/healthz` says so, intake answers 503) and contends once it does.
   */
  waitForRedis?: boolean;
  /** How often the audit log is looked at for changes to tell chats of (ms); default 5 s. */
  loadedSkillPollMs?: number;
}

/** Options of `Gateway.stop`. */
export interface StopOptions {
  /**
   * Let running commands finish, however long they take (the terminal chat's input ended: the person
   * asked for them). Otherwise a curator run stops at its next safe point and the wait is bounded by
   * `gateway.stop_timeout_seconds`.
   */
  finishWork?: boolean;
}

/** A running (or startable) gateway. */
export interface Gateway {
  start(): Promise<void>;
  /**
   * Stops taking messages, asks running work to stop at its next safe point and waits for it (see
   * `StopOptions`), then stops adapters and the tick and flushes state.
   */
  stop(options?: StopOptions): Promise<void>;
  /** One maintenance tick now (the timer calls the same). */
  runMaintenanceTick(): Promise<TickOutcome>;
  /** Resolves once every queued and running command has finished. */
  whenIdle(): Promise<void>;
  /** Rebuilds each adapter's native command catalog and syncs it when it changed. */
  syncCommandCatalogs(): Promise<void>;
  /** Commands queued or running. */
  readonly inFlight: number;
  /** `/healthz` URL once started (undefined when disabled). */
  readonly healthUrl: string | undefined;
  /** The web console's URL once started (undefined when not served). */
  readonly consoleUrl: string | undefined;
  /** Port of the one-time secret form server, once started (`gateway.public_url` set). */
  readonly secretFormPort: number | undefined;
}
