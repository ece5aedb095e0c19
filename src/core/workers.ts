/**
 * Worker threads for skillgate's own modules. The compiled build starts a worker on the module's `.js`
 * file; from the TypeScript sources (the test suite) the `.ts` file next to it is loaded through tsx,
 * which costs about half a second, so callers run the work in-thread there unless asked otherwise.
 */
import { Worker, type WorkerOptions } from "node:worker_threads";
import { reapplyYoungGrowth } from "./heap-tuning.js";

/** True when skillgate runs as compiled JavaScript (worker entries are then plain modules). */
export const COMPILED = !import.meta.url.endsWith(".ts");

/**
 * A worker thread, as every one skillgate starts: once it runs, this process's young-generation growth
 * is set again, which the worker's new heap undid (see `reapplyYoungGrowth`).
 */
export function startWorker(source: string | URL, options: WorkerOptions): Worker {
  const worker = new Worker(source, options);
  worker.once("online", reapplyYoungGrowth);
  return worker;
}

/** A worker running `entry`, the URL of a compiled module (`new URL("./x.js", import.meta.url)`). */
export function moduleWorker(entry: URL, options: WorkerOptions = {}): Worker {
  if (COMPILED) return startWorker(entry, options);
  const source = entry.href.replace(/\.js$/, ".ts");
  const load = `import("tsx/esm/api").then(({ tsImport }) => tsImport(${JSON.stringify(source)}, ${JSON.stringify(import.meta.url)}))`;
  return startWorker(load, { ...options, eval: true });
}
