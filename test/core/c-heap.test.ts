/**
 * Returning the C heap's free pages: on glibc (this project's Linux machines) `malloc_trim` runs and the
 * process keeps working; where libc has none it is a no-op. Limiting the arenas: a process's threads
 * then share two instead of getting one each.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { releaseFreeCHeap } from "../../src/core/c-heap.js";

/** The glibc version Node runs on, when it runs on glibc. */
const glibc = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header
  ?.glibcVersionRuntime;

describe("releaseFreeCHeap", () => {
  it.runIf(glibc !== undefined)("runs glibc's malloc_trim, and again, with the heap still usable", () => {
    const freed = Array.from({ length: 2000 }, () => Buffer.alloc(64 * 1024, 1));
    freed.length = 0;
    expect(releaseFreeCHeap()).toBe(true);
    expect(releaseFreeCHeap()).toBe(true);
    expect(Buffer.alloc(1024, 2).every((byte) => byte === 2)).toBe(true);
  });

  it.runIf(glibc === undefined)("does nothing where libc has no malloc_trim", () => {
    expect(releaseFreeCHeap()).toBe(false);
  });
});

describe("limitCHeapArenas", () => {
  const child = path.join(path.dirname(fileURLToPath(import.meta.url)), "arena-child.mjs");
  /** Whether `arena-child.mjs` could set the limit, and the arenas glibc then reports. */
  const run = (mode: "limit" | "default") => {
    const result = spawnSync(process.execPath, [child, mode], { encoding: "utf8", timeout: 60_000 });
    expect(result.status, result.stderr).toBe(0);
    const { limit } = JSON.parse(result.stdout) as { limit: boolean | null };
    return { limit, arenas: result.stderr.match(/^Arena \d+:/gm)?.length ?? 0 };
  };

  it.runIf(glibc !== undefined)("keeps four busy worker threads from getting an arena each", () => {
    const unlimited = run("default");
    // Without the limit the main arena and one per busy thread: the four workers' at least.
    expect(unlimited.limit).toBeNull();
    expect(unlimited.arenas).toBeGreaterThanOrEqual(6);
    const limited = run("limit");
    expect(limited.limit).toBe(true);
    // Two allowed; arenas V8's own threads made before the call stay, but the workers add none of theirs.
    expect(limited.arenas).toBeLessThanOrEqual(5);
    expect(limited.arenas).toBeLessThan(unlimited.arenas - 3);
  });
});
