/**
 * The heap settings every command runs with: after `tuneHeapForCommand` the young generation keeps its
 * size while a process builds a large set of live objects; in a process holding a large heap
 * (`relaxYoungGenerationForLargeHeap`) it grows again, and in the gateway (`regulateYoungGeneration`)
 * it grows under load up to a bound. Each case runs in its own Node process, since V8 flags are
 * process-wide.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isShortRead } from "../../src/core/heap-tuning.js";

const root = path.resolve(import.meta.dirname, "../..");
const moduleUrl = new URL("../../src/core/heap-tuning.ts", import.meta.url).href;
const libraryUrl = new URL("../../src/skills/library.ts", import.meta.url).href;
const configUrl = new URL("../../src/config/config.ts", import.meta.url).href;
const workersUrl = new URL("../../src/core/workers.ts", import.meta.url).href;

/**
 * Young-generation size (bytes) before and after building ~40 MB of live objects, after `calls` of the
 * module's functions.
 */
function youngGeneration(calls: string): { before: number; after: number } {
  const script = `
    import v8 from "node:v8";
    const tuning = await import(${JSON.stringify(moduleUrl)});
    const young = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space").space_size;
    ${calls}
    const before = young();
    const kept = [];
    for (let i = 0; i < 400_000; i++) kept.push({ name: "skill-" + i, dir: "/skills/" + i, uses: i });
    console.log(JSON.stringify({ before, after: young(), kept: kept.length }));
  `;
  const result = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: root,
    encoding: "utf8",
  });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout.trim().split("\n").pop() as string);
}

/** The head of a child script that tunes its heap as `serve` does, with `young()` and `sleep(ms)`. */
const SERVE_PRELUDE = `
  import v8 from "node:v8";
  const tuning = await import(${JSON.stringify(moduleUrl)});
  const young = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space").space_size;
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  tuning.tuneHeapForCommand("serve");
`;

/** Runs `script` (ES module text) in a Node process of its own; returns the JSON of its last line. */
function runServeScript(script: string): unknown {
  const result = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: root,
    encoding: "utf8",
  });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout.trim().split("\n").pop() as string);
}

describe("heap tuning", () => {
  it("lets V8 grow the young generation by default (what the tuning changes)", () => {
    const { before, after } = youngGeneration("");
    expect(after).toBeGreaterThan(before);
  });

  it("keeps the young generation at its size for a command", () => {
    const { before, after } = youngGeneration('tuning.tuneHeapForCommand("curator");');
    // It does not grow (V8 may still shrink it when its allocation rate reads low).
    expect(after).toBeLessThanOrEqual(before);
  });

  it("keeps it at its size after a worker thread started, whose new heap reset V8's growth setting", () => {
    /** Tunes the heap, starts a worker with `start` and waits until it runs (its heap exists). */
    const afterWorker = (start: string) => `
      tuning.tuneHeapForCommand("curator");
      const { Worker } = await import("node:worker_threads");
      const { startWorker } = await import(${JSON.stringify(workersUrl)});
      const source = "setTimeout(() => {}, 100)";
      const options = { eval: true, execArgv: [] };
      const worker = ${start};
      await new Promise((resolve) => worker.once("online", () => setImmediate(resolve)));
    `;
    const bare = youngGeneration(afterWorker("new Worker(source, options)"));
    expect(bare.after).toBeGreaterThan(bare.before);
    const started = youngGeneration(afterWorker("startWorker(source, options)"));
    expect(started.after).toBeLessThanOrEqual(started.before);
  });

  it("lets it grow again in a process that already holds a large heap, and only then", () => {
    const small = youngGeneration(
      'tuning.tuneHeapForCommand("curator"); if (tuning.relaxYoungGenerationForLargeHeap()) throw new Error("relaxed");',
    );
    expect(small.after).toBeLessThanOrEqual(small.before);
    const large = youngGeneration(`
      tuning.tuneHeapForCommand("curator");
      globalThis.held = Array.from({ length: 80 }, () => new Array(128 * 1024).fill(1.5));
      if (!tuning.relaxYoungGenerationForLargeHeap()) throw new Error("not relaxed");
    `);
    expect(large.after).toBeGreaterThan(large.before);
  });

  it("lets the gateway's grow under load, a step at a time, up to its bound, and shrink once idle", () => {
    const script = `${SERVE_PRELUDE}
      const start = young();
      const limit = 4 * start;
      tuning.regulateYoungGeneration(limit);
      const sizes = [];
      let kept = [];
      // Chat-like load: short bursts of allocation, part of it kept, with the event loop turning between;
      // on until the bound has held for three growth periods (or 20 s on a crawling machine).
      let deadline = Date.now() + 20_000;
      let boundSince;
      while (Date.now() < deadline && !(boundSince && Date.now() - boundSince > 3000)) {
        for (let i = 0; i < 20_000; i++) kept.push({ name: "skill-" + i, uses: i });
        if (kept.length > 400_000) kept.length = 0;
        await sleep(5);
        if (sizes.at(-1) !== young()) sizes.push(young());
        if (young() >= limit) boundSince ??= Date.now();
      }
      // Then idle: nothing allocates until the young generation is back to its start size (or 20 s). An
      // idle process runs no minor GC of its own (one runs when the young generation fills up).
      kept = [];
      const loaded = young();
      const { PerformanceObserver, performance, constants } = await import("node:perf_hooks");
      const idleFrom = performance.now();
      let idleMinorGcs = 0;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries())
          if (entry.startTime > idleFrom && entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) idleMinorGcs += 1;
      }).observe({ entryTypes: ["gc"] });
      deadline = Date.now() + 20_000;
      while (Date.now() < deadline && young() > start) await sleep(250);
      await sleep(1500);
      console.log(JSON.stringify({ start, limit, sizes, loaded, idle: young(), idleMinorGcs }));
    `;
    const result = runServeScript(script);
    const { start, limit, sizes, loaded, idle, idleMinorGcs } = result as {
      start: number;
      limit: number;
      sizes: number[];
      loaded: number;
      idle: number;
      idleMinorGcs: number;
    };
    // It grew by doubling, a step at a time, to the bound and never past it (V8's own bound is 32 MB).
    // V8 may shrink it between bursts (on a starved machine its allocation rate reads low) and give the
    // pages back on a later GC, so only a size it never had before must double the largest so far.
    expect(sizes[0]).toBe(start);
    expect(Math.max(...sizes)).toBe(limit);
    let largest = start;
    for (const size of sizes) {
      if (size > largest) expect(size, `sizes: ${sizes.join(", ")}`).toBe(2 * largest);
      largest = Math.max(largest, size);
    }
    // Idle, the regulation ran minor GCs to shrink it, and it went back to its start size or below.
    expect(loaded).toBeGreaterThan(start);
    expect(idleMinorGcs).toBeGreaterThan(0);
    expect(idle).toBeLessThanOrEqual(start);
  });

  it("does not grow the gateway's for a burst of a second and a half (a scan, start-up), only for lasting load", () => {
    const script = `${SERVE_PRELUDE}
      const start = young();
      tuning.regulateYoungGeneration(4 * start);
      // 1.6 s of allocation with the event loop turning: at least one growth step falls inside it with
      // half a second of allocation after it, so a step that followed one busy period would grow it.
      let kept = [];
      let largest = start;
      const until = Date.now() + 1600;
      while (Date.now() < until) {
        for (let i = 0; i < 20_000; i++) kept.push({ name: "skill-" + i, uses: i });
        if (kept.length > 400_000) kept.length = 0;
        await sleep(5);
        largest = Math.max(largest, young());
      }
      kept = [];
      await sleep(1200);
      console.log(JSON.stringify({ start, largest: Math.max(largest, young()) }));
    `;
    const result = runServeScript(script);
    const { start, largest } = result as {
      start: number;
      largest: number;
    };
    expect(largest).toBe(start);
  });

  it("has the idle gateway collect what a busy spell left in the old generation within seconds", () => {
    const script = `${SERVE_PRELUDE}
      const used = () => v8.getHeapStatistics().used_heap_size;
      tuning.regulateYoungGeneration(8 * 1024 * 1024);
      // ~40 MB that lives long enough to reach the old generation, then is dropped: idle, nothing
      // allocates, and V8's own memory reducer would start ~8 s later.
      let held = [];
      for (let round = 0; round < 20; round++) {
        for (let i = 0; i < 20_000; i++) held.push({ name: "skill-" + round + "-" + i, uses: i });
        await sleep(5);
      }
      const busy = used();
      held = null;
      await sleep(4000);
      console.log(JSON.stringify({ busy, idle: used() }));
    `;
    const result = runServeScript(script);
    const { busy, idle } = result as {
      busy: number;
      idle: number;
    };
    expect(busy - idle).toBeGreaterThan(20 * 1024 * 1024);
  });
});

/**
 * Whether a hot function gets optimized by TurboFan after `calls` (the child runs with natives syntax to
 * read V8's optimization status; it waits a little for a concurrent compile to land).
 */
function hotFunctionOptimized(calls: string): boolean {
  const script = `
    const tuning = await import(${JSON.stringify(moduleUrl)});
    ${calls}
    function sum(n) { let total = 0; for (let i = 0; i < n; i++) total += i; return total; }
    const optimized = () => (new Function("f", "return %GetOptimizationStatus(f)")(sum) & 16) !== 0;
    const until = Date.now() + 1500;
    while (!optimized() && Date.now() < until) {
      for (let i = 0; i < 20000; i++) sum(100);
      await new Promise((resolve) => setImmediate(resolve));
    }
    console.log(JSON.stringify({ optimized: optimized() }));
  `;
  const result = spawnSync(
    process.execPath,
    ["--allow-natives-syntax", "--import", "tsx", "--input-type=module", "-e", script],
    { cwd: root, encoding: "utf8" },
  );
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout.trim().split("\n").pop() as string).optimized;
}

describe("optimizing compiler", () => {
  it("stays on for other commands (what the short reads change)", () => {
    expect(hotFunctionOptimized('tuning.tuneHeapForCommand("skills");')).toBe(true);
  });

  it("is off for a short read", () => {
    expect(hotFunctionOptimized('tuning.tuneHeapForCommand("skills", true);')).toBe(false);
  });

  it("comes back when a short read's work turns out heavy, and only then", () => {
    expect(
      hotFunctionOptimized('tuning.tuneHeapForCommand("skills", true); tuning.restoreOptimizingCompiler();'),
    ).toBe(true);
  });

  it("comes back for a library scanned without an index, not for one the index describes", () => {
    const scan = (withIndex: boolean) => `
      tuning.tuneHeapForCommand("skills", true);
      const fs = await import("node:fs");
      const os = await import("node:os");
      const path = await import("node:path");
      const { openLibrary } = await import(${JSON.stringify(libraryUrl)});
      const { parseConfig } = await import(${JSON.stringify(configUrl)});
      const home = fs.mkdtempSync(path.join(os.tmpdir(), "skillgate-heap-"));
      fs.mkdirSync(path.join(home, "skills", "pdf"), { recursive: true });
      fs.writeFileSync(path.join(home, "skills", "pdf", "SKILL.md"), "---\\nname: pdf\\ndescription: d\\n---\\n");
      if (${withIndex}) {
        fs.utimesSync(path.join(home, "skills", "pdf", "SKILL.md"), 1000, 1000);
        fs.utimesSync(path.join(home, "skills", "pdf"), 1000, 1000);
        fs.utimesSync(path.join(home, "skills"), 1000, 1000);
        await openLibrary(home, parseConfig({}), { watch: false, racyMs: 0 }).list();
        tuning.tuneHeapForCommand("skills", true);
      }
      const listed = await openLibrary(home, parseConfig({}), { watch: false, racyMs: 0 }).list();
      fs.rmSync(home, { recursive: true, force: true });
      if (listed.count !== 1) throw new Error("not listed");
    `;
    expect(hotFunctionOptimized(scan(false))).toBe(true);
    expect(hotFunctionOptimized(scan(true))).toBe(false);
  });

  it("counts `skills view` and `skills list --json` as short reads, not the text listing or other commands", () => {
    expect(isShortRead(["skills", "view", "pdf"], false)).toBe(true);
    expect(isShortRead(["skills", "view", "pdf"], true)).toBe(true);
    expect(isShortRead(["skills", "list"], true)).toBe(true);
    expect(isShortRead(["skills", "list"], false)).toBe(false);
    for (const words of [
      ["skills", "search", "x"],
      ["skills", "overlaps"],
      ["skills", "usage"],
      ["serve"],
      [],
    ])
      expect(isShortRead(words, true), words.join(" ")).toBe(false);
  });
});
