/**
 * The running program's C library through koffi, whose npm packages carry prebuilt binaries (installing
 * needs no compiler): the kernel locks (`flock.ts`), the inotify watches (`dir-watch.ts`) and the C heap
 * trim (`c-heap.ts`) call it. Loaded on first use, so a process that calls none of them never pays for
 * it. Symbols are looked up in the running program, which links libc: glibc, musl and macOS all resolve
 * what they have.
 */
import { createRequire } from "node:module";
import type Koffi from "koffi";
import type { LibraryHandle } from "koffi";

/** koffi, and the running program's symbols. */
export interface Libc {
  koffi: typeof Koffi;
  symbols: LibraryHandle;
}

let libc: Libc | undefined;

/** koffi and the running program's symbols; throws where koffi cannot load here. */
export function loadLibc(): Libc {
  if (!libc) {
    const koffi = createRequire(import.meta.url)("koffi") as typeof Koffi;
    libc = { koffi, symbols: koffi.load(null) };
  }
  return libc;
}
