/**
 * Counted progress of long work (snapshot, rollback, purge, curator run, consolidation). Core operations
 * report `done` of `total` for a named task through an optional sink; the surface decides what to show
 * (a progress bar on a terminal, nothing under `--json` or when stderr is not a terminal).
 */

/** What a task counts: skills, bytes (shown as MB), or model turns. */
export type ProgressUnit = "skills" | "bytes" | "turns";

/** One report: `done` of `total` units of `task` finished. */
export interface ProgressEvent {
  /** What is being done, in a few words ("archiving", "snapshot"). */
  task: string;
  done: number;
  total: number;
  /** What `done` and `total` count (absent: plain items). */
  unit?: ProgressUnit;
}

/** Where operations report progress. Must be cheap: it may be called once per unit. */
export type ProgressSink = (event: ProgressEvent) => void;

/** A sink that reports `task` against `total` `unit`s, or a no-op without a sink. */
export function meterFor(
  sink: ProgressSink | undefined,
  task: string,
  total: number,
  unit?: ProgressUnit,
): (done: number) => void {
  if (!sink || total <= 0) return () => undefined;
  sink({ task, done: 0, total, unit });
  return (done) => sink({ task, done, total, unit });
}
