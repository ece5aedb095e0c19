/**
 * Cross-process locks on the kernel: `flock(2)` on a lock file, the protocol Hermes uses for the files
 * both programs lock (`skills/.usage.json.lock`, `skills/.locks/ledger.lock`). The
 * kernel releases a lock when its holder dies, so no lock is ever judged abandoned by a pid or an age,
 * and a holder in another pid namespace (a gateway in a container, the CLI or Hermes on the host) is
 * respected. A lock file is never deleted while another process may hold it: shared lock files are
 * kept (Hermes keeps them too); a lock that opts into `removeOnRelease` is unlinked by its holder
 * before it unlocks, and every acquirer checks, once it holds the lock, that the path still names the
 * file it locked.
 */
import { randomBytes } from "node:crypto";
import { closeSync, promises as fs, openSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { SkillgateError } from "./errors.js";
import { loadLibc } from "./libc.js";
import { tempSuffix } from "./temp-files.js";

/** `flock(2)` operations (the same values on Linux, macOS and the BSDs). */
const LOCK_EX = 2;
const LOCK_NB = 4;
const LOCK_UN = 8;

interface LibcFlock {
  /** libc's `int flock(int fd, int operation)`. */
  call: (fd: number, operation: number) => number;
  /** The calling thread's `errno` after a failed call. */
  errno: () => number;
  codes: Record<string, number>;
}

let libc: LibcFlock | undefined;

/** libc's `flock` (`libc.ts`), looked up on first use: a process that never locks never pays for it. */
function libcFlock(): LibcFlock {
  if (!libc) {
    const { koffi, symbols } = loadLibc();
    const call = symbols.func("int flock(int fd, int operation)") as LibcFlock["call"];
    libc = { call, errno: () => koffi.errno(), codes: koffi.os.errno };
  }
  return libc;
}

/** Calls `flock(fd, operation)`, retrying when a signal interrupts it; throws the errno as a coded error. */
function flock(fd: number, operation: number): boolean {
  const lib = libcFlock();
  for (;;) {
    if (lib.call(fd, operation) === 0) return true;
    const errno = lib.errno();
    if (errno === lib.codes.EINTR) continue;
    if (errno === lib.codes.EWOULDBLOCK || errno === lib.codes.EAGAIN) return false;
    const code = Object.keys(lib.codes).find((name) => lib.codes[name] === errno) ?? `errno ${errno}`;
    throw Object.assign(new Error(`flock(${fd}) failed: ${code}`), { code, errno });
  }
}

/** Options of `acquireLock`. */
export interface LockOptions {
  /** How long to keep trying before giving up (ms); 0 = try once. Default 10 s. */
  waitMs?: number;
  /**
   * Write `<pid> <host> <token>` into the file while held, only to tell people (and error messages)
   * who holds it; the lock itself is the kernel's. Off for lock files Hermes shares, which it keeps
   * empty. Default true.
   */
  recordHolder?: boolean;
  /**
   * The fencing epoch the holder writes under, appended to its record (`<pid> <host> <token> <epoch>`)
   * when defined: a waiter on another host judges the lock by it.
   */
  recordEpoch?: () => number | undefined;
  /** Unlink the file on release (while still holding it), for claim files whose presence means "busy". */
  removeOnRelease?: boolean;
  /** Touch the file this often (ms) while held, for readers that judge a claim by its age. */
  keepAliveMs?: number;
  /**
   * Called once the kernel lock is held, with the file's previous content, its age and its mtime.
   * Returning a string refuses the lock as busy (the string names the holder): a claim written by a
   * program that does not flock, or a holder on another host whose kernel lock this host cannot see.
   */
  checkClaim?: (content: string, ageMs: number, mtimeMs: number) => string | undefined;
  /**
   * Create a missing file exclusively with this content instead of empty, and never open it by creating
   * it: an empty file is then never this program's (a claim another program is still writing).
   */
  createWith?: string;
}

/** A held lock; `release` unlocks it (and removes the file when asked to). */
export interface HeldLock {
  readonly file: string;
  release(): Promise<void>;
}

/** Thrown by `acquireLock` when another process holds the lock. */
export class LockBusyError extends SkillgateError {
  readonly holderPid: number | undefined;
  constructor(file: string, holder: string | undefined) {
    const pid = Number(holder?.split(/\s+/)[0]);
    const holderPid = Number.isInteger(pid) && pid > 0 ? pid : undefined;
    super(
      "lock.busy",
      `${path.basename(file)} is held by ${holderPid ? `process ${holderPid}` : "another process"}; wait for it to finish and try again.`,
    );
    this.holderPid = holderPid;
  }
}

/** Takes a non-blocking exclusive flock; false when another open file description holds it. */
function tryFlock(fd: number): boolean {
  return flock(fd, LOCK_EX | LOCK_NB);
}

async function readHolder(file: string): Promise<string | undefined> {
  try {
    return (await fs.readFile(file, "utf8")).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** True when `file` still names the inode open as `handle` (a releasing holder may have unlinked it). */
async function stillLinked(file: string, handle: fs.FileHandle): Promise<boolean> {
  try {
    const [open, named] = await Promise.all([handle.stat(), fs.stat(file)]);
    return open.ino === named.ino && open.dev === named.dev;
  } catch {
    return false;
  }
}

/**
 * Takes an exclusive `flock(2)` on `file` (created if missing, never truncated or replaced). Polls
 * without blocking, so neither the event loop nor the thread pool waits on the kernel. Each call opens
 * its own file description, so two callers in one process exclude each other as well. Throws
 * `LockBusyError` when the lock stays busy for `waitMs`.
 */
export async function acquireLock(file: string, options: LockOptions = {}): Promise<HeldLock> {
  const deadline = Date.now() + (options.waitMs ?? 10_000);
  // Callers in this process queue here first, so only one of them at a time polls the kernel.
  const key = path.resolve(file);
  const before = localQueue.get(key) ?? Promise.resolve();
  let leave = () => {};
  const mine = new Promise<void>((resolve) => {
    leave = resolve;
  });
  const tail = before.then(() => mine);
  localQueue.set(key, tail);
  const done = () => {
    leave();
    if (localQueue.get(key) === tail) localQueue.delete(key);
  };
  try {
    const turn = await Promise.race([
      before.then(() => true),
      new Promise<boolean>((resolve) =>
        setTimeout(resolve, Math.max(0, deadline - Date.now()), false).unref(),
      ),
    ]);
    if (!turn) throw new LockBusyError(file, await readHolder(file));
    const lock = await acquireKernelLock(file, deadline, options);
    return {
      file,
      release: async () => {
        try {
          await lock.release();
        } finally {
          done();
        }
      },
    };
  } catch (error) {
    done();
    throw error;
  }
}

/** Lock files this process holds or waits for, each with the promise its next local caller waits on. */
const localQueue = new Map<string, Promise<void>>();

/**
 * Opens the lock file (created empty when missing), or with `createWith`: created exclusively with that
 * content, then opened without creating; undefined when it vanished in between (the caller tries again).
 */
async function openLockFile(
  file: string,
  createWith: string | undefined,
): Promise<fs.FileHandle | undefined> {
  if (createWith === undefined) return fs.open(file, "a+", 0o644);
  await createComplete(file, createWith);
  return fs.open(file, "r+").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
}

/**
 * The private temporary file a claim of `file` is written to before it is linked into place: named as an
 * atomic write's temp file (`.<name>.<pid>.<suffix>.tmp`), so start-up recovery removes one that a
 * claimer killed between the write and the link left behind.
 */
export function claimTempName(file: string, pid = process.pid): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${pid}.${tempSuffix()}.tmp`);
}

/**
 * Creates `file` with `content` in one step, or leaves an existing file alone: the content is written to
 * a private temporary file first and hard-linked into place (`link(2)` fails on an existing name), so no
 * other process ever sees the file empty. An empty claim file is then always another program's, still
 * being written. Where the filesystem has no hard links, it falls back to an exclusive create.
 */
async function createComplete(file: string, content: string): Promise<void> {
  const temporary = claimTempName(file);
  await fs.writeFile(temporary, content, { flag: "wx", mode: 0o644 });
  try {
    await fs.link(temporary, file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EPERM" || code === "ENOTSUP" || code === "EOPNOTSUPP") {
      await fs.writeFile(file, content, { flag: "wx", mode: 0o644 }).catch((inner: NodeJS.ErrnoException) => {
        if (inner.code !== "EEXIST") throw inner;
      });
    } else if (code !== "EEXIST") {
      throw error;
    }
  } finally {
    await fs.rm(temporary, { force: true });
  }
}

async function acquireKernelLock(file: string, deadline: number, options: LockOptions): Promise<HeldLock> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  let delay = 1;
  for (;;) {
    const handle = await openLockFile(file, options.createWith);
    if (!handle) continue;
    let busyHolder: string | undefined;
    let held = false;
    try {
      if (tryFlock(handle.fd)) {
        held = true;
        if (await stillLinked(file, handle)) {
          const stat = await handle.stat();
          const previous = (await handle.readFile("utf8")).trim();
          const claim = options.checkClaim?.(previous, Date.now() - stat.mtimeMs, stat.mtimeMs);
          if (claim === undefined) return await holdLock(file, handle, options);
          busyHolder = claim;
        } else {
          // Unlinked by its last holder between our open and our lock: lock the file now at the path.
          await handle.close();
          held = false;
          continue;
        }
      } else {
        busyHolder = await readHolder(file);
      }
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
    if (held) flock(handle.fd, LOCK_UN);
    await handle.close();
    if (Date.now() >= deadline) throw new LockBusyError(file, busyHolder);
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 25);
  }
}

async function holdLock(file: string, handle: fs.FileHandle, options: LockOptions): Promise<HeldLock> {
  if (options.recordHolder ?? true) {
    const epoch = options.recordEpoch?.();
    const record = `${process.pid} ${os.hostname()} ${randomBytes(6).toString("hex")}`;
    // Written over the old content, then cut to length: a reader never finds the file empty.
    const bytes = Buffer.from(`${record}${epoch === undefined ? "" : ` ${epoch}`}\n`);
    await handle.write(bytes, 0, bytes.length, 0);
    await handle.truncate(bytes.length);
  }
  const keepAlive =
    options.keepAliveMs === undefined
      ? undefined
      : setInterval(() => {
          const now = new Date();
          handle.utimes(now, now).catch(() => undefined);
        }, options.keepAliveMs).unref();
  let released = false;
  return {
    file,
    release: async () => {
      if (released) return;
      released = true;
      clearInterval(keepAlive);
      try {
        if (options.removeOnRelease) {
          if (await stillLinked(file, handle)) await fs.rm(file, { force: true });
        } else if (options.recordHolder ?? true) {
          await handle.truncate(0);
        }
      } finally {
        await handle.close(); // closing the last descriptor drops the flock
      }
    },
  };
}

/** Runs `fn` while holding the lock file. */
export async function withLock<T>(file: string, fn: () => Promise<T>, options?: LockOptions): Promise<T> {
  const lock = await acquireLock(file, options);
  try {
    return await fn();
  } finally {
    await lock.release();
  }
}

/**
 * True when another open file description holds a `flock(2)` on `file` (probed without blocking, the
 * file opened read-only and never created); false when it is free or missing.
 */
export function isLockHeld(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return false;
  }
  try {
    if (!tryFlock(fd)) return true;
    flock(fd, LOCK_UN);
    return false;
  } finally {
    closeSync(fd);
  }
}
