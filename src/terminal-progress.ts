/**
 * The terminal's progress display: one `cli-progress` bar on stderr per task (done/total, rate, time
 * left), shown only when stderr is a terminal and the output is not `--json`. The bar is redrawn at most a
 * few times a second, so an operation may report every unit.
 */
import { SingleBar } from "cli-progress";
import type { ProgressEvent, ProgressSink } from "./core/progress.js";

/** A terminal progress sink and a `stop` that clears the last bar; undefined when nothing may be shown. */
export function terminalProgress(
  stderr: NodeJS.WritableStream & { isTTY?: boolean },
  json: boolean,
): { sink: ProgressSink; stop: () => void } | undefined {
  if (json || !stderr.isTTY) return undefined;
  let bar: SingleBar | undefined;
  let task = "";
  let startedAt = 0;
  const stop = () => {
    bar?.stop();
    bar = undefined;
  };
  const sink = (event: ProgressEvent) => {
    if (!bar || event.task !== task) {
      stop();
      task = event.task;
      startedAt = Date.now();
      bar = new SingleBar({
        stream: stderr,
        format: "{task} [{bar}] {value}/{total} | {rate}/s | ETA {eta_formatted}",
        barsize: 24,
        fps: 8,
        hideCursor: false,
        clearOnComplete: true,
        etaBuffer: 50,
      });
      bar.start(event.total, event.done, { task, rate: "0" });
    }
    const seconds = (Date.now() - startedAt) / 1000;
    const rate = seconds > 0 ? (event.done / seconds).toFixed(0) : "0";
    bar.setTotal(event.total);
    bar.update(event.done, { task, rate });
    if (event.done >= event.total) stop();
  };
  return { sink, stop };
}
