/**
 * The C heap under V8: what Node, V8's own tables and the platform libraries allocate with `malloc`.
 * glibc keeps the pages of memory freed there (by a GC, by a closed socket) for later allocations
 * rather than returning them, until `malloc_trim` asks it to; an idle 10k gateway held 4–16 MB that way.
 * It also gives each thread that allocates an arena of its own (up to eight per core), each with its
 * own free pages: V8's helper threads, libuv's pool and a worker thread each kept a few MB.
 */
import { loadLibc } from "./libc.js";

/** `mallopt`'s parameter for the most arenas (glibc's malloc.h: `M_ARENA_MAX`). */
const M_ARENA_MAX = -8;

/**
 * Lets glibc's malloc serve every thread of this process from at most `count` arenas (`mallopt`, as the
 * `MALLOC_ARENA_MAX` variable would at start-up). It holds for the arenas not made yet, so it is called
 * before the threads it is meant for start. A 10k coordinated leader, whose lease worker thread and
 * Redis connections allocate beside the main thread, idled 5–7 MB smaller with two, a standby ~3 MB; a
 * single gateway with three platforms idled 12 MB larger (its shared arena trimmed worse), so only
 * replicas use it. Elsewhere (not glibc, no koffi) it does nothing; true when it ran.
 */
export function limitCHeapArenas(count: number): boolean {
  try {
    const mallopt = loadLibc().symbols.func("int mallopt(int param, int value)") as (
      param: number,
      value: number,
    ) => number;
    return mallopt(M_ARENA_MAX, count) === 1;
  } catch {
    return false;
  }
}

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
