/**
 * When the automatic curator may run: enabled, not paused, past its first-run deferral, one interval
 * after the last run, and only after the home has been idle for `min_idle_hours` (the caller measures
 * idle time; skillgate really enforces it, unlike Hermes' CLI and gateway paths).
 */
import type { CuratorConfig } from "../config/config.js";
import { isoTimestamp } from "../core/fsutil.js";
import { parseTimestamp } from "../skills/usage-record.js";
import type { CuratorState } from "./state.js";

/** Why the scheduler said no (or `due`). */
export type ScheduleVerdict =
  | { due: true; reason: "due" }
  | {
      due: false;
      reason: "disabled" | "paused" | "first run deferred" | "not due" | "not idle";
      seed?: boolean;
    };

/** The summary stored when the first automatic check only seeds the clock. */
export function deferredFirstRunSummary(commandPrefix: (path: string[]) => string): string {
  return `deferred first run — curator seeded, will run after one interval; use \`${commandPrefix(["curator", "run"])} --dry-run\` to preview now`;
}

/**
 * Decides whether an automatic run is due. `idleForSeconds` is the measured idle time of the home
 * (Infinity when the caller cannot measure it). A missing or unreadable `last_run_at` asks the caller
 * to seed the clock (`seed: true`) instead of running.
 */
export function scheduleVerdict(
  state: CuratorState,
  config: CuratorConfig,
  now: Date,
  idleForSeconds: number,
): ScheduleVerdict {
  if (!config.enabled) return { due: false, reason: "disabled" };
  if (state.paused) return { due: false, reason: "paused" };
  const last = state.last_run_at === null ? undefined : parseTimestamp(state.last_run_at);
  if (last === undefined) return { due: false, reason: "first run deferred", seed: true };
  if (now.getTime() - last < config.intervalHours * 3_600_000) return { due: false, reason: "not due" };
  if (idleForSeconds < config.minIdleHours * 3600) return { due: false, reason: "not idle" };
  return { due: true, reason: "due" };
}

/** Seeds the clock of a fresh home: the first real run happens one interval from `now`. */
export function seedFirstRun(
  state: CuratorState,
  now: Date,
  commandPrefix: (path: string[]) => string,
): void {
  state.last_run_at = isoTimestamp(now);
  state.last_run_summary = deferredFirstRunSummary(commandPrefix);
}

/** `every 7d`, or `every 36h` when the interval is not whole days. */
export function describeInterval(hours: number): string {
  return hours % 24 === 0 ? `every ${hours / 24}d` : `every ${hours}h`;
}
