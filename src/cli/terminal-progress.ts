/**
 * The terminal's progress display: one `cli-progress` bar on stderr per running task (done/total in
 * the task's unit — skills, MB, model turns — its rate, and the time left), shown only when stderr is a terminal and the output is not `--json`. Tasks that run side by
 * side (a rollback's safety snapshot and restore) each keep their own line; a finished task's line goes
 * away. Bars are redrawn at most a few times a second, so an operation may report every unit.
 * `cli-progress` (and the text-width code it brings) is loaded only when bars may be shown.
 */

import type * as CliProgress from "cli-progress";
import type { MultiBar, SingleBar } from "cli-progress";
import type { ProgressEvent, ProgressSink, ProgressUnit } from "../core/progress.js";
import { requireVendored } from "../core/vendored.js";

const MB = 1024 * 1024;

/** `done/total unit` and `rate unit/s` as a person reads them: `1,204/5,000 skills`, `12.5/80.0 MB`. */
export function progressTexts(
  done: number,
  total: number,
  unit: ProgressUnit | undefined,
  perSecond: number,
): { amount: string; rate: string } {
  if (unit === "bytes") {
    const mb = (value: number) => (value / MB).toFixed(1);
    return { amount: `${mb(done)}/${mb(total)} MB`, rate: `${mb(perSecond)} MB/s` };
  }
  const count = (value: number) => Math.round(value).toLocaleString("en-US");
  const label = unit ?? "items";
  return { amount: `${count(done)}/${count(total)} ${label}`, rate: `${count(perSecond)} ${label}/s` };
}

/** A terminal progress sink and a `stop` that clears the bars; undefined when nothing may be shown. */
export async function terminalProgress(
  stderr: NodeJS.WritableStream & { isTTY?: boolean },
  json: boolean,
): Promise<{ sink: ProgressSink; stop: () => void } | undefined> {
  if (json || !stderr.isTTY) return undefined;
  // From the build's single-file copy when there is one (see `src/core/vendored.ts`).
  const { MultiBar } = requireVendored<typeof CliProgress>("cli-progress");
  let bars: MultiBar | undefined;
  const running = new Map<string, { bar: SingleBar; startedAt: number }>();
  const stop = () => {
    bars?.stop();
    bars = undefined;
    running.clear();
  };
  const sink = (event: ProgressEvent) => {
    bars ??= new MultiBar({
      stream: stderr,
      format: "{task} [{bar}] {amount} | {rate} | ETA {eta_formatted}",
      barsize: 24,
      fps: 8,
      hideCursor: false,
      clearOnComplete: true,
      etaBuffer: 50,
    });
    let task = running.get(event.task);
    if (!task) {
      task = {
        bar: bars.create(event.total, event.done, {
          task: event.task,
          ...progressTexts(event.done, event.total, event.unit, 0),
        }),
        startedAt: Date.now(),
      };
      running.set(event.task, task);
      // Drawn at once (a new line), not at the next redraw.
      bars.update();
    }
    const seconds = (Date.now() - task.startedAt) / 1000;
    const perSecond = seconds > 0 ? event.done / seconds : 0;
    task.bar.setTotal(event.total);
    task.bar.update(event.done, {
      task: event.task,
      ...progressTexts(event.done, event.total, event.unit, perSecond),
    });
    if (event.done >= event.total) {
      running.delete(event.task);
      bars.remove(task.bar);
      if (running.size === 0) stop();
    }
  };
  return { sink, stop };
}
