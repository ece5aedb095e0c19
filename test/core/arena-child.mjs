/**
 * Child of `c-heap.test.ts`, run by plain node on the built `dist/` as the gateway runs (a loader such
 * as tsx has threads of its own that make arenas before the limit): optionally limits the C heap
 * arenas, starts four worker threads that allocate through malloc, and has glibc print its arenas
 * (`malloc_stats`, on stderr) once the workers are busy.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { limitCHeapArenas } from "../../dist/src/core/c-heap.js";

const limit = process.argv[2] === "limit" ? limitCHeapArenas(2) : null;
const workers = Array.from(
  { length: 4 },
  () =>
    new Worker("require('node:zlib').deflateSync(Buffer.alloc(1 << 20)); setTimeout(() => {}, 1000);", {
      eval: true,
    }),
);
await Promise.all(workers.map((worker) => new Promise((resolve) => worker.once("online", resolve))));
await new Promise((resolve) => setTimeout(resolve, 300));
process.stdout.write(`${JSON.stringify({ limit })}\n`);
// glibc's own account, one "Arena N:" block per arena, on stderr.
createRequire(import.meta.url)("koffi")
  .load(null)
  .func("void malloc_stats(void)")();
process.exit(0);
