/**
 * Watches over many directories' entries (a skill library watches every folder it walked), read when the
 * owner asks rather than pushed to it.
 *
 * On Linux the watches are one inotify instance (`inotify(7)`) opened through koffi: one file descriptor
 * and one kernel watch per directory, and no object per directory in this process. Its events queue in
 * the kernel until `takeChanges` reads them with one non-blocking `read`, so a change made before the
 * call is always seen by it, and an idle process runs no timer and no callback. A queue that overflowed
 * (`IN_Q_OVERFLOW`) counts as a change. Elsewhere, or when koffi cannot load, each directory gets an
 * `fs.watch` whose events set a flag; 10k of those cost about 11 MB.
 */
import { closeSync, type FSWatcher, constants as fsConstants, readSync, watch } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type Koffi from "koffi";

/** Whether a change to an entry of this name matters to the owner (null: a change whose name is unknown). */
export type RelevantName = (name: string | null) => boolean;

/** Which implementation a set of watches uses. */
export type WatchKind = "inotify" | "fs-watch";

/** What `add` made of a directory. */
export type WatchOutcome = "watched" | "gone" | "unavailable";

/** A set of watched directories (see the module comment). */
export interface DirectoryWatches {
  /** Which implementation this is. */
  readonly kind: WatchKind;
  /**
   * Watches `dir`: "gone" when it is missing or not a directory, "unavailable" when the system refuses
   * (out of watches, no permission), after which the owner should stop relying on watches.
   */
  add(dir: string): WatchOutcome;
  remove(dir: string): void;
  /** The directories watched now. */
  dirs(): IterableIterator<string>;
  /**
   * True when, since the last call, an entry of a watched directory changed whose name is relevant (see
   * `openDirectoryWatches`), a watched directory went away, or events were lost.
   */
  takeChanges(): boolean;
  /** Stops every watch. */
  close(): void;
}

// inotify(7) event bits (include/uapi/linux/inotify.h).
const IN_MODIFY = 0x2;
const IN_ATTRIB = 0x4;
const IN_MOVED_FROM = 0x40;
const IN_MOVED_TO = 0x80;
const IN_CREATE = 0x100;
const IN_DELETE = 0x200;
const IN_DELETE_SELF = 0x400;
const IN_MOVE_SELF = 0x800;
const IN_Q_OVERFLOW = 0x4000;
const IN_IGNORED = 0x8000;
const IN_ONLYDIR = 0x1000000;
/** The events `fs.watch` asks libuv for on Linux, on directories only. */
const WATCH_MASK =
  IN_MODIFY |
  IN_ATTRIB |
  IN_MOVED_FROM |
  IN_MOVED_TO |
  IN_CREATE |
  IN_DELETE |
  IN_DELETE_SELF |
  IN_MOVE_SELF |
  IN_ONLYDIR;
/** `IN_CLOEXEC` is `O_CLOEXEC`: 0o2000000 on these architectures (not on alpha, parisc or sparc). */
const CLOEXEC_ARCHES = new Set(["x64", "arm64", "arm", "ia32", "riscv64", "ppc64", "s390x", "loong64"]);
const IN_CLOEXEC = 0o2000000;
/** `struct inotify_event`: wd, mask, cookie, len (4 bytes each), then `len` bytes of NUL-padded name. */
const EVENT_HEADER = 16;

interface Inotify {
  init1: (flags: number) => number;
  addWatch: (fd: number, path: string, mask: number) => number;
  rmWatch: (fd: number, wd: number) => number;
  errno: () => number;
  codes: Record<string, number>;
}

let inotify: Inotify | null | undefined;

/** libc's inotify calls through koffi, or null where there are none (not Linux, koffi missing). */
function libcInotify(): Inotify | null {
  if (inotify !== undefined) return inotify;
  inotify = null;
  if (process.platform !== "linux" || !CLOEXEC_ARCHES.has(process.arch)) return null;
  try {
    const koffi = createRequire(import.meta.url)("koffi") as typeof Koffi;
    const libc = koffi.load(null);
    inotify = {
      init1: libc.func("int inotify_init1(int flags)") as Inotify["init1"],
      addWatch: libc.func(
        "int inotify_add_watch(int fd, const char *path, uint32_t mask)",
      ) as Inotify["addWatch"],
      rmWatch: libc.func("int inotify_rm_watch(int fd, int wd)") as Inotify["rmWatch"],
      errno: () => koffi.errno(),
      codes: koffi.os.errno,
    };
  } catch {
    inotify = null;
  }
  return inotify;
}

function dirsOf(value: string | string[] | undefined): string[] {
  return value === undefined ? [] : typeof value === "string" ? [value] : value;
}

/** One inotify instance; `takeChanges` drains its queue. */
class InotifyWatches implements DirectoryWatches {
  readonly kind = "inotify";
  /** Watched directory → its watch descriptor. */
  private readonly byDir = new Map<string, number>();
  /**
   * Watch descriptor → the directory it stands for, or the directories when two paths lead to one inode
   * (they share a descriptor). A plain string in the usual case: 10k sets would cost a megabyte or two.
   */
  private readonly byWd = new Map<number, string | string[]>();
  private readonly buffer = Buffer.allocUnsafe(64 * 1024);

  constructor(
    private readonly lib: Inotify,
    private fd: number,
    private readonly relevant: RelevantName,
  ) {}

  add(dir: string): WatchOutcome {
    if (this.byDir.has(dir)) return "watched";
    const wd = this.lib.addWatch(this.fd, dir, WATCH_MASK);
    if (wd < 0) {
      const errno = this.lib.errno();
      const { ENOENT, ENOTDIR } = this.lib.codes;
      return errno === ENOENT || errno === ENOTDIR ? "gone" : "unavailable";
    }
    this.byDir.set(dir, wd);
    const known = this.byWd.get(wd);
    this.byWd.set(wd, known === undefined ? dir : [...dirsOf(known), dir]);
    return "watched";
  }

  remove(dir: string): void {
    const wd = this.byDir.get(dir);
    if (wd === undefined) return;
    this.byDir.delete(dir);
    const others = dirsOf(this.byWd.get(wd)).filter((other) => other !== dir);
    if (others.length > 0) {
      this.byWd.set(wd, others.length === 1 ? (others[0] as string) : others);
      return;
    }
    this.byWd.delete(wd);
    this.lib.rmWatch(this.fd, wd);
  }

  dirs(): IterableIterator<string> {
    return this.byDir.keys();
  }

  takeChanges(): boolean {
    let changed = false;
    if (this.fd < 0) return changed;
    for (;;) {
      let bytes: number;
      try {
        bytes = readSync(this.fd, this.buffer, 0, this.buffer.length, null);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "EAGAIN" || code === "EWOULDBLOCK") return changed;
        if (code === "EINTR") continue;
        // The descriptor is unusable: report a change, and the owner refreshes from disk.
        return true;
      }
      if (bytes <= 0) return changed;
      for (let at = 0; at + EVENT_HEADER <= bytes; ) {
        const wd = this.buffer.readInt32LE(at);
        const mask = this.buffer.readUInt32LE(at + 4);
        const length = this.buffer.readUInt32LE(at + 12);
        const raw = this.buffer.subarray(at + EVENT_HEADER, at + EVENT_HEADER + length);
        at += EVENT_HEADER + length;
        if (mask & IN_Q_OVERFLOW) changed = true;
        else if (mask & IN_IGNORED) {
          // The kernel dropped the watch (its directory was deleted or unmounted, or `remove` asked).
          const dirs = this.byWd.get(wd);
          if (dirs !== undefined) {
            for (const dir of dirsOf(dirs)) this.byDir.delete(dir);
            this.byWd.delete(wd);
            changed = true;
          }
        } else if (mask & (IN_DELETE_SELF | IN_MOVE_SELF)) changed = true;
        else if (!changed && this.byWd.has(wd)) {
          const end = raw.indexOf(0);
          const name = length === 0 ? null : raw.toString("utf8", 0, end < 0 ? raw.length : end);
          if (this.relevant(name)) changed = true;
        }
      }
    }
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
    this.byDir.clear();
    this.byWd.clear();
  }
}

/** One `fs.watch` per directory, each setting the flag `takeChanges` reads and clears. */
class FsWatches implements DirectoryWatches {
  readonly kind = "fs-watch";
  private readonly watchers = new Map<string, FSWatcher>();
  private changed = false;

  constructor(private readonly relevant: RelevantName) {}

  add(dir: string): WatchOutcome {
    if (this.watchers.has(dir)) return "watched";
    try {
      const self = path.basename(dir);
      const watcher = watch(dir, { persistent: false }, (event, filename) => {
        const name = filename === null ? null : String(filename);
        // libuv reports the folder itself going away as a rename of its own name.
        if ((event === "rename" && name === self) || this.relevant(name)) this.changed = true;
      });
      watcher.on("error", () => {
        this.changed = true;
        this.remove(dir);
      });
      this.watchers.set(dir, watcher);
      return "watched";
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === "ENOENT" || code === "ENOTDIR" ? "gone" : "unavailable";
    }
  }

  remove(dir: string): void {
    this.watchers.get(dir)?.close();
    this.watchers.delete(dir);
  }

  dirs(): IterableIterator<string> {
    return this.watchers.keys();
  }

  takeChanges(): boolean {
    const changed = this.changed;
    this.changed = false;
    return changed;
  }

  close(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }
}

/**
 * A new, empty set of directory watches whose changes count when `relevant` accepts the entry's name
 * (null: unknown). inotify where available, else `fs.watch` per directory; `kind` asks for one (an
 * unavailable inotify still gives `fs.watch`).
 */
export function openDirectoryWatches(relevant: RelevantName, kind: WatchKind = "inotify"): DirectoryWatches {
  const lib = kind === "inotify" ? libcInotify() : null;
  if (lib) {
    const fd = lib.init1(fsConstants.O_NONBLOCK | IN_CLOEXEC);
    if (fd >= 0) return new InotifyWatches(lib, fd, relevant);
  }
  return new FsWatches(relevant);
}
