/**
 * Counted progress of long work (snapshot, rollback, purge, curator run, consolidation). Core operations
 * report `done` of `total` for a named task through an optional sink; the surface decides what to show
 * (a progress bar on a terminal, nothing under `--json` or when stderr is not a terminal).
 */

/** One report: `done` of `total` units of `task` finished. */
export interface ProgressEvent {
  /** What is being done, in a few words ("archiving", "snapshot"). */
  task: string;
  done: number;
  total: number;
}

/** Where operations report progress. Must be cheap: it may be called once per unit. */
export type ProgressSink = (event: ProgressEvent) => void;

/** A sink that reports `task` against `total`, or a no-op without a sink. */
export function meterFor(
  sink: ProgressSink | undefined,
  task: string,
  total: number,
): (done: number) => void {
  if (!sink || total <= 0) return () => undefined;
  sink({ task, done: 0, total });
  return (done) => sink({ task, done, total });
}
