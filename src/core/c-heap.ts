/**
 * The C heap under V8: what Node, V8's own tables and the platform libraries allocate with `malloc`.
 * glibc keeps the pages of memory freed there (by a GC, by a closed socket) for later allocations
 * rather than returning them, until `malloc_trim` asks it to; an idle 10k gateway held 4–16 MB that way.
 */
import { loadLibc } from "./libc.js";

/** glibc's `int malloc_trim(size_t pad)`; null where it cannot be had (musl, macOS, no koffi). */
let mallocTrim: ((pad: number) => number) | null | undefined;

/**
 * Returns the C heap's free pages to the system (glibc's `malloc_trim(0)`, through `libc.ts`, which the
 * kernel locks load anyway). Elsewhere it does nothing. True when it ran.
 */
export function releaseFreeCHeap(): boolean {
  if (mallocTrim === undefined) {
    try {
      mallocTrim = loadLibc().symbols.func("int malloc_trim(size_t pad)") as (pad: number) => number;
    } catch {
      // Not glibc (musl and macOS have no malloc_trim), or koffi cannot load here.
      mallocTrim = null;
    }
  }
  if (!mallocTrim) return false;
  mallocTrim(0);
  return true;
}
