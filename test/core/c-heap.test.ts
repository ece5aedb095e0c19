/**
 * Returning the C heap's free pages: on glibc (this project's Linux machines) `malloc_trim` runs and the
 * process keeps working; where libc has none it is a no-op.
 */
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
