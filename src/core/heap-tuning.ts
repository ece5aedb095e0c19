/**
 * V8 heap settings for skillgate's processes. They are set at run time (`v8.setFlagsFromString`), so the
 * bin, `npm start`, `node dist/src/cli/main.js` and the bench's transitions child (which stands in for
 * `curator run`) all run with the same ones.
 */
import {
  constants,
  type NodeGCPerformanceDetail,
  type PerformanceEntry,
  PerformanceObserver,
} from "node:perf_hooks";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { releaseFreeCHeap } from "./c-heap.js";

/**
 * How far the old generation may grow past what survived the last full GC before the next one (V8's
 * own choice is 1.1–4× by allocation rate). Under chat load a 10k gateway keeps ~90 MB alive and
 * allocates fast, so V8 let the heap reach ~350 MB of garbage (RSS 540 MB) before collecting it; at 10 %
 * the peak stayed near 250 MB (260 MB at 20 %) for about the same CPU per command: full GCs come more
 * often but are smaller. SKILLGATE_HEAP_GROWING_PERCENT overrides it. `serve` sets it, and so do the
 * short reads (`isShortRead`): a 10k `skills list --json` otherwise ended with ~10 MB of garbage its
 * 20 MB of live data left in the old generation, and peaked ~3 MB lower with it, in the same time. Other
 * one-shot commands would only pay for the extra full GCs.
 */
const HEAP_GROWING_PERCENT = Number(process.env.SKILLGATE_HEAP_GROWING_PERCENT ?? 10);

/**
 * Young-generation growth. V8's young generation otherwise grows to 32 MB while a command loads a large
 * library or `serve` loads the platform SDKs (their objects survive) and never shrinks: a fifth of an
 * idle gateway's RSS, and what put a one-shot `skills list` over 120 MB at 10k skills. Each fresh page it
 * grows into is also a page fault (~19 µs on a busy VM): pinned, a 10k curator pass takes ~4k fewer
 * faults and ~4 % less time despite its extra scavenges. A factor of 1 keeps it at a few MB, for more
 * frequent minor GCs. The semi-space size
 * itself is fixed when the heap is created (only `node --max-semi-space-size` changes it); the growth
 * factor is read at each growth, so setting it at run time takes effect.
 *
 * Once the gateway has started, growth comes back under load, up to a bound
 * (`regulateYoungGeneration`): pinned at its start-up size under chat load, every in-flight command's
 * objects were promoted (thousands of scavenges, an old generation full of garbage, 500 MB RSS at
 * 300 commands/s on a 10k library, 2–3× the CPU per command). Idle, the young generation stays at its
 * small size.
 */
const YOUNG_GROWTH = { pinned: "--semi-space-growth-factor=1", underLoad: "--semi-space-growth-factor=2" };

/** The young-generation growth this process last chose (undefined until a command tuned its heap). */
let youngGrowth: string | undefined;

/** Sets the young generation's growth and remembers it (see `reapplyYoungGrowth`). */
function setYoungGrowth(flag: string): void {
  youngGrowth = flag;
  setV8Flag(flag);
}

/**
 * Sets the young-generation growth again after a worker thread started. V8's flags are one set per
 * process, and every new heap (each worker's) raises the growth factor to at least 2 when it is
 * configured, so without this a command that started a worker (a curator pass writing its snapshot, a
 * leader's lease renewals) let its young generation grow freely from then on. Called once the worker
 * runs (its heap exists by then; see `startWorker`); minor GCs of this thread before that moment, while
 * the worker boots (30–150 ms), may still double it once.
 */
export function reapplyYoungGrowth(): void {
  if (youngGrowth !== undefined) setV8Flag(youngGrowth);
}

/**
 * Short reads: commands that read the library once and end within a second, `skills view` and
 * `skills list --json`. Their time goes to loading modules and files, not to hot loops, so V8's
 * optimizing compiler (TurboFan) only adds its compile buffers and optimized code to their peak memory:
 * without it a 10k `skills list --json` peaked ~5 MB lower in the same time (see `tuneHeapForCommand`).
 * The text `skills list` is not one: laying out its table of every skill took twice as long without
 * TurboFan. V8's lite mode would save ~8 MB more but costs the short reads 20–35 % of their time (it
 * runs everything in the interpreter).
 */
export function isShortRead(words: readonly string[], json: boolean): boolean {
  const [command, sub] = words;
  return command === "skills" && (sub === "view" || (sub === "list" && json));
}

/** Sets one V8 flag; a V8 without it keeps its default. */
function setV8Flag(flag: string): void {
  try {
    v8.setFlagsFromString(flag);
  } catch {
    // Unknown to this V8: its default stays.
  }
}

/**
 * The heap settings for a command about to run (`command`: its first word; `shortRead`: see
 * `isShortRead`): the young generation stops growing, `serve` and the short reads get the bounded
 * old-generation growth, and a short read runs without the optimizing compiler. Node warns that V8
 * flags changed at run time may misbehave; `--no-opt` only stops new optimizations (code runs in the
 * interpreter and the baseline compiler, as most code does anyway), and it is kept to commands that
 * change nothing and end at once, never the gateway, the curator or the compute-heavy
 * `skills search`/`overlaps`.
 */
export function tuneHeapForCommand(command: string | undefined, shortRead = false): void {
  initialYoungBytes = Math.min(initialYoungBytes, youngGenerationBytes());
  setYoungGrowth(YOUNG_GROWTH.pinned);
  if (command === "serve" || shortRead) setV8Flag(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  if (shortRead) {
    setV8Flag("--no-opt");
    optimizerOff = true;
  }
}

/** True while a short read runs without the optimizing compiler (see `tuneHeapForCommand`). */
let optimizerOff = false;

/**
 * Turns the optimizing compiler back on when a short read turned it off and its work turned out heavy:
 * a library without a scan index has every SKILL.md read and parsed, which took a 10k `skills list`
 * half as long again without TurboFan. Elsewhere it changes nothing.
 */
export function restoreOptimizingCompiler(): void {
  if (!optimizerOff) return;
  setV8Flag("--opt");
  optimizerOff = false;
}

/**
 * Young generation (both semi-spaces, bytes) the gateway lets V8 grow to under chat load. V8's own
 * bound is 32 MB, which a gateway reached within a second of its first burst of commands (or of a
 * coordinated leader's start-up) and then kept for good: idle, a sixth of its RSS. With a bound of 8 MB
 * a 10k gateway's RSS after 2,000 commands at 300/s was ~23 MB lower for ~0.1 ms more CPU per command;
 * never growing at all cost 0.6 ms more per command and a fifth of its throughput (`bench/gateway.ts`).
 */
export const GATEWAY_YOUNG_GENERATION_BYTES = 8 * 1024 * 1024;

/** How often the gateway's young generation may take one growth step (ms). */
const GROWTH_STEP_MS = 1000;

/** Minor GCs within one growth step that mean the process is under load (it allocates fast). */
const SCAVENGES_UNDER_LOAD = 4;

/**
 * Growth steps in a row under load before the young generation may grow: chat load lasts, while a burst
 * of a second or less (start-up, a library scan, writing the scan index) touches two steps at most. A
 * coordinated standby's young generation grew to 16 MB on its scans before this.
 */
const BUSY_STEPS_TO_GROW = 3;

/**
 * Heap growth (bytes) since the last idle full GC that makes the next idle release run one: start-up
 * and a load run leave several MB of garbage that V8's own memory reducer collects only ~8 s later.
 */
const IDLE_FULL_GC_GROWTH_BYTES = 2 * 1024 * 1024;

/**
 * Idle periods in a row before that full GC: right after start-up a leader still held what it let go
 * of a second later, and a full GC then freed little.
 */
const IDLE_STEPS_BEFORE_FULL_GC = 2;

/** The young generation's size when the command's heap settings were made (V8's initial size). */
let initialYoungBytes = Number.POSITIVE_INFINITY;

/** Idle periods that may try to shrink the young generation before the C heap is trimmed anyway. */
const RELEASE_ATTEMPTS = 10;

/**
 * Lets the young generation grow under load up to `limitBytes` (see `GATEWAY_YOUNG_GENERATION_BYTES`),
 * and gives memory back once the load has passed: for the gateway once it serves chat.
 *
 * V8 fixes the semi-space's maximum when the heap is created and grows it by doubling in the epilogue
 * of a minor GC; the only control left at run time is whether a growth doubles or not
 * (`--semi-space-growth-factor`). So growth stays off, and every `GROWTH_STEP_MS` it is allowed for one
 * step when the last `BUSY_STEPS_TO_GROW` periods each saw `SCAVENGES_UNDER_LOAD` minor GCs and the
 * young generation is below the bound; the first GC that finds it grown switches growth off again. A
 * burst of work that outruns the GC observer (a batch of fifty commands ran 18 minor GCs before one was
 * reported) can then take at most one step instead of four.
 *
 * A period without a GC after start-up or after one with some means the gateway went idle:
 * `releaseIdleMemory` then runs, again each idle period until it is done (at most
 * `RELEASE_ATTEMPTS` times). It lasts as long as the process (its timer does not keep it alive).
 */
export function regulateYoungGeneration(limitBytes: number): void {
  // Start-up may have grown it already: idle, it goes back to V8's initial size.
  const startBytes = Math.min(youngGenerationBytes(), initialYoungBytes);
  let scavenges = 0;
  let busySteps = 0;
  let idleSteps = 0;
  let ownCollections = 0;
  // Start-up was the first busy period.
  let releaseAttempts = RELEASE_ATTEMPTS;
  let size = startBytes;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (!isMinorGc(entry)) continue;
      if (ownCollections > 0) ownCollections -= 1;
      else scavenges += 1;
    }
    const now = youngGenerationBytes();
    if (now !== size) setYoungGrowth(YOUNG_GROWTH.pinned);
    size = now;
  });
  observer.observe({ entryTypes: ["gc"] });
  const step = setInterval(() => {
    size = youngGenerationBytes();
    busySteps = scavenges >= SCAVENGES_UNDER_LOAD ? busySteps + 1 : 0;
    const grow = size < limitBytes && busySteps >= BUSY_STEPS_TO_GROW;
    setYoungGrowth(grow ? YOUNG_GROWTH.underLoad : YOUNG_GROWTH.pinned);
    idleSteps = scavenges > 0 ? 0 : idleSteps + 1;
    if (scavenges > 0) releaseAttempts = RELEASE_ATTEMPTS;
    else if (releaseAttempts > 0) {
      releaseAttempts -= 1;
      const release = releaseIdleMemory(startBytes, {
        last: releaseAttempts === 0,
        collectOld: idleSteps >= IDLE_STEPS_BEFORE_FULL_GC,
      });
      ownCollections += release.collections;
      if (release.done) releaseAttempts = 0;
    }
    scavenges = 0;
  }, GROWTH_STEP_MS);
  step.unref();
}

/** The live heap (bytes) after the last idle full GC (see `IDLE_FULL_GC_GROWTH_BYTES`). */
let heapAfterIdleFullGc = 0;

/**
 * Gives an idle process's spare memory back to the system: the young generation shrinks to
 * `youngBytes`, the garbage start-up or a load run left behind is collected, and the C heap returns its
 * free pages (`releaseFreeCHeap`). V8 shrinks the young generation only in a minor GC that finds the
 * allocation rate low, and an idle process runs none, so one is run here (on an idle heap it takes well
 * under a millisecond); until V8's rate window has emptied it does not shrink yet, and `done` is false
 * so the caller tries again next period (`last`: the rest is done all the same). Once the process has
 * been idle for `IDLE_STEPS_BEFORE_FULL_GC` periods (`collectOld`) and its heap grew by
 * `IDLE_FULL_GC_GROWTH_BYTES` since the last time, full GCs (~50 ms on a 10k library) free what V8's
 * memory reducer would only ~8 s later. After a load run a 10k standby gave back 15 MB of
 * young generation this way, and an idle 10k gateway 4–16 MB of C heap, which V8 frees but the
 * allocator keeps otherwise.
 */
function releaseIdleMemory(
  youngBytes: number,
  { last, collectOld }: { last: boolean; collectOld: boolean },
): { done: boolean; collections: number } {
  const collect = gcFunction();
  let collections = 0;
  if (youngGenerationBytes() > youngBytes && collect) {
    collect({ type: "minor" });
    collections = 1;
  }
  if (
    collect &&
    (collectOld || last) &&
    v8.getHeapStatistics().used_heap_size - heapAfterIdleFullGc > IDLE_FULL_GC_GROWTH_BYTES
  ) {
    // Two: the first one's weak callbacks and finalizers release what only the second one frees. (No
    // options: this V8 reads `{ type: "major" }` as a minor GC.)
    collect();
    collect();
    heapAfterIdleFullGc = v8.getHeapStatistics().used_heap_size;
  }
  if (!(youngGenerationBytes() <= youngBytes && collectOld) && !last) return { done: false, collections };
  releaseFreeCHeap();
  return { done: true, collections };
}

/** V8's `gc` function (as `--expose-gc` gives it), fetched on first use; null where it is refused. */
let gcFunctionFetched: ((options?: { type: "minor" }) => void) | null | undefined;

/** V8's `gc`: a full GC without options, a minor one with `{ type: "minor" }`. */
function gcFunction(): ((options?: { type: "minor" }) => void) | undefined {
  if (gcFunctionFetched === undefined) {
    // The flag only installs `gc` in contexts created after it is set, so a fresh context fetches it.
    setV8Flag("--expose-gc");
    const fetched: unknown = runInNewContext("globalThis.gc");
    gcFunctionFetched =
      typeof fetched === "function" ? (fetched as (options?: { type: "minor" }) => void) : null;
  }
  return gcFunctionFetched ?? undefined;
}

/** Whether a `gc` performance entry is a minor GC (a scavenge). */
function isMinorGc(entry: PerformanceEntry): boolean {
  return (entry as { detail?: NodeGCPerformanceDetail }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR;
}

/** The young generation's current size (bytes). */
function youngGenerationBytes(): number {
  return v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0;
}

/**
 * Live heap above which a pinned young generation costs more than it saves. Each scavenge also walks
 * what the old generation points into the young one, so its cost grows with the heap: a 50k-skill
 * curator pass (~110 MB of heap when it starts writing) spent 1.0 s in 626 scavenges pinned against
 * 0.35 s in 46 with V8's growth. A 10k pass holds ~30 MB and is faster pinned.
 */
const LARGE_HEAP_BYTES = 64 * 1024 * 1024;

/**
 * Lets the young generation grow when the process already holds a large heap (see `LARGE_HEAP_BYTES`);
 * true when it did. A few more MB of young generation are nothing next to such a heap.
 */
export function relaxYoungGenerationForLargeHeap(): boolean {
  if (v8.getHeapStatistics().used_heap_size < LARGE_HEAP_BYTES) return false;
  setYoungGrowth(YOUNG_GROWTH.underLoad);
  return true;
}
