/**
 * Watches over many directories' entries (a skill library watches every folder it walked), read when the
 * owner asks rather than pushed to it.
 *
 * On Linux the watches live on the process's one inotify instance (`inotify(7)`), opened through koffi:
 * one kernel watch per directory, and no object per directory in this process. Events queue in the
 * kernel until a set's `takeChanges` reads them with non-blocking `read`s and hands each to the sets that
 * watch its directory, so a change made before the call is always seen by it, and an idle process runs
 * no timer and no callback. A queue that overflowed (`IN_Q_OVERFLOW`) counts as a change. Elsewhere, or
 * when koffi cannot load, each directory gets an `fs.watch` whose events set a flag; 10k of those cost
 * about 11 MB.
 */
import { type FSWatcher, constants as fsConstants, watch } from "node:fs";
import path from "node:path";
import { loadLibc } from "./libc.js";

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
  /** libc's `read`: bytes read, or -1 with `errno` set (EAGAIN when nothing is queued). */
  read: (fd: number, buffer: Buffer, length: number) => number;
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
    const { koffi, symbols: libc } = loadLibc();
    inotify = {
      init1: libc.func("int inotify_init1(int flags)") as Inotify["init1"],
      addWatch: libc.func(
        "int inotify_add_watch(int fd, const char *path, uint32_t mask)",
      ) as Inotify["addWatch"],
      rmWatch: libc.func("int inotify_rm_watch(int fd, int wd)") as Inotify["rmWatch"],
      read: libc.func("long read(int fd, _Out_ uint8_t *buf, size_t count)") as Inotify["read"],
      errno: () => koffi.errno(),
      codes: koffi.os.errno,
    };
  } catch {
    inotify = null;
  }
  return inotify;
}

function listOf<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/**
 * The process's one inotify instance, shared by every set of watches as libuv shares one for `fs.watch`
 * (the kernel allows 128 instances per user by default). Reading it hands each event to the sets that
 * watch its descriptor; a descriptor two sets watch (or two paths of one set) is removed once no one
 * watches it.
 */
class InotifyInstance {
  /** Watch descriptor → the sets watching it (one in the usual case). */
  private readonly owners = new Map<number, InotifyWatches | InotifyWatches[]>();
  private readonly buffer = Buffer.allocUnsafe(64 * 1024);

  constructor(
    readonly lib: Inotify,
    private readonly fd: number,
  ) {}

  /** Watches `dir` for `owner`: its descriptor, or the errno when the kernel refuses. */
  watch(dir: string, owner: InotifyWatches): { wd: number } | { errno: number } {
    const wd = this.lib.addWatch(this.fd, dir, WATCH_MASK);
    if (wd < 0) return { errno: this.lib.errno() };
    const owners = listOf(this.owners.get(wd));
    if (!owners.includes(owner)) this.owners.set(wd, owners.length === 0 ? owner : [...owners, owner]);
    return { wd };
  }

  /** `owner` no longer watches `wd`; the kernel's watch goes once no set does. */
  release(wd: number, owner: InotifyWatches): void {
    const owners = listOf(this.owners.get(wd)).filter((other) => other !== owner);
    if (owners.length > 0) {
      this.owners.set(wd, owners.length === 1 ? (owners[0] as InotifyWatches) : owners);
      return;
    }
    if (!this.owners.delete(wd)) return;
    this.lib.rmWatch(this.fd, wd);
  }

  /**
   * Reads every queued event and hands it to the sets watching its descriptor. libc's `read` rather than
   * `fs.readSync`: an empty queue is the usual answer, and `fs.readSync` throws an error for it.
   */
  drain(): void {
    for (;;) {
      const bytes = this.lib.read(this.fd, this.buffer, this.buffer.length);
      if (bytes < 0) {
        const errno = this.lib.errno();
        const { EINTR, EAGAIN, EWOULDBLOCK } = this.lib.codes;
        if (errno === EINTR) continue;
        if (errno !== EAGAIN && errno !== EWOULDBLOCK) this.everyOwner((owner) => owner.lost());
        return;
      }
      if (bytes === 0) return;
      for (let at = 0; at + EVENT_HEADER <= bytes; ) {
        const wd = this.buffer.readInt32LE(at);
        const mask = this.buffer.readUInt32LE(at + 4);
        const length = this.buffer.readUInt32LE(at + 12);
        const raw = this.buffer.subarray(at + EVENT_HEADER, at + EVENT_HEADER + length);
        at += EVENT_HEADER + length;
        if (mask & IN_Q_OVERFLOW) {
          this.everyOwner((owner) => owner.lost());
          continue;
        }
        const owners = listOf(this.owners.get(wd));
        if (mask & IN_IGNORED) {
          // The kernel dropped the watch: its directory was deleted or unmounted, or `release` asked.
          this.owners.delete(wd);
          for (const owner of owners) owner.dropped(wd);
          continue;
        }
        if (owners.length === 0) continue;
        const end = raw.indexOf(0);
        const name = length === 0 ? null : raw.toString("utf8", 0, end < 0 ? raw.length : end);
        const self = (mask & (IN_DELETE_SELF | IN_MOVE_SELF)) !== 0;
        for (const owner of owners) owner.event(name, self);
      }
    }
  }

  private everyOwner(act: (owner: InotifyWatches) => void): void {
    const seen = new Set<InotifyWatches>();
    for (const owners of this.owners.values()) for (const owner of listOf(owners)) seen.add(owner);
    for (const owner of seen) act(owner);
  }
}

let instance: InotifyInstance | null | undefined;

/** The shared inotify instance, opened on first use; null where there is none. */
function inotifyInstance(): InotifyInstance | null {
  if (instance !== undefined) return instance;
  const lib = libcInotify();
  const fd = lib ? lib.init1(fsConstants.O_NONBLOCK | IN_CLOEXEC) : -1;
  instance = lib && fd >= 0 ? new InotifyInstance(lib, fd) : null;
  return instance;
}

/** One owner's watches on the shared inotify instance; `takeChanges` drains it. */
class InotifyWatches implements DirectoryWatches {
  readonly kind = "inotify";
  /** Watched directory → its watch descriptor. */
  private readonly byDir = new Map<string, number>();
  /**
   * Watch descriptor → the directory it stands for, or the directories when two paths lead to one inode
   * (they share a descriptor). A plain string in the usual case: 10k sets would cost a megabyte or two.
   */
  private readonly byWd = new Map<number, string | string[]>();
  private changed = false;

  constructor(
    private readonly inotify: InotifyInstance,
    private readonly relevant: RelevantName,
  ) {}

  add(dir: string): WatchOutcome {
    if (this.byDir.has(dir)) return "watched";
    const watched = this.inotify.watch(dir, this);
    if ("errno" in watched) {
      const { ENOENT, ENOTDIR } = this.inotify.lib.codes;
      return watched.errno === ENOENT || watched.errno === ENOTDIR ? "gone" : "unavailable";
    }
    this.byDir.set(dir, watched.wd);
    const known = this.byWd.get(watched.wd);
    this.byWd.set(watched.wd, known === undefined ? dir : [...listOf(known), dir]);
    return "watched";
  }

  remove(dir: string): void {
    const wd = this.byDir.get(dir);
    if (wd === undefined) return;
    this.byDir.delete(dir);
    const others = listOf(this.byWd.get(wd)).filter((other) => other !== dir);
    if (others.length > 0) {
      this.byWd.set(wd, others.length === 1 ? (others[0] as string) : others);
      return;
    }
    this.byWd.delete(wd);
    this.inotify.release(wd, this);
  }

  dirs(): IterableIterator<string> {
    return this.byDir.keys();
  }

  takeChanges(): boolean {
    this.inotify.drain();
    const changed = this.changed;
    this.changed = false;
    return changed;
  }

  close(): void {
    for (const wd of this.byWd.keys()) this.inotify.release(wd, this);
    this.byDir.clear();
    this.byWd.clear();
    this.changed = false;
  }

  /** An entry of a watched directory changed (`self`: the directory itself was moved or deleted). */
  event(name: string | null, self: boolean): void {
    if (self || (!this.changed && this.relevant(name))) this.changed = true;
  }

  /** The kernel dropped the watch `wd`: its directories are no longer watched. */
  dropped(wd: number): void {
    for (const dir of listOf(this.byWd.get(wd))) this.byDir.delete(dir);
    if (this.byWd.delete(wd)) this.changed = true;
  }

  /** Events were lost (a full queue, an unreadable descriptor). */
  lost(): void {
    this.changed = true;
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
  const inotify = kind === "inotify" ? inotifyInstance() : null;
  return inotify ? new InotifyWatches(inotify, relevant) : new FsWatches(relevant);
}
