/**
 * Worker threads for skillgate's own modules. The compiled build starts a worker on the module's `.js`
 * file; from the TypeScript sources (the test suite) the `.ts` file next to it is loaded through tsx,
 * which costs about half a second, so callers run the work in-thread there unless asked otherwise.
 */
import { Worker, type WorkerOptions } from "node:worker_threads";

/** True when skillgate runs as compiled JavaScript (worker entries are then plain modules). */
export const COMPILED = !import.meta.url.endsWith(".ts");

/** A worker running `entry`, the URL of a compiled module (`new URL("./x.js", import.meta.url)`). */
export function moduleWorker(entry: URL, options: WorkerOptions = {}): Worker {
  if (COMPILED) return new Worker(entry, options);
  const source = entry.href.replace(/\.js$/, ".ts");
  const load = `import("tsx/esm/api").then(({ tsImport }) => tsImport(${JSON.stringify(source)}, ${JSON.stringify(import.meta.url)}))`;
  return new Worker(load, { ...options, eval: true });
}
