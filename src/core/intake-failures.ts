/**
 * An adapter's recent intake failures: events it received but could not hand over because handling them
 * threw. One failure is one failure — the listener answers the next event as before — but a run of them
 * says the intake is broken, and `/healthz` should say so (`degraded`) rather than `ok`.
 */
import type { AdapterHealth } from "./message.js";

/** Failures within the window that make an adapter's intake `degraded`. */
const DEGRADED_AFTER = 3;
/** How far back failures count (ms). */
const WINDOW_MS = 5 * 60_000;

/** Counts one adapter's intake failures over a sliding window. */
export class IntakeFailures {
  private readonly times: number[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** Records one event whose handling failed. */
  record(): void {
    this.times.push(this.now());
    this.forgetOld();
  }

  /** Failures within the window. */
  get recent(): number {
    this.forgetOld();
    return this.times.length;
  }

  /**
   * `health` as `/healthz` should report it: a connected adapter with repeated recent intake failures is
   * `degraded`, its detail saying how many.
   */
  apply(health: AdapterHealth): AdapterHealth {
    const recent = this.recent;
    if (health.state !== "connected" || recent < DEGRADED_AFTER) return health;
    const detail = `${recent} events failed in the last ${WINDOW_MS / 60_000} minutes`;
    return { state: "degraded", detail: health.detail ? `${health.detail}; ${detail}` : detail };
  }

  private forgetOld(): void {
    const since = this.now() - WINDOW_MS;
    while (this.times.length > 0 && (this.times[0] as number) < since) this.times.shift();
  }
}
