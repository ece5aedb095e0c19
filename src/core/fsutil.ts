/**
 * File helpers every writer in skillgate uses: atomic replacement (tmp + fsync + rename) and a
 * cross-process lock file, so two processes on one home never lose each other's writes.
 */

import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { trimOldest } from "./bounded.js";
import { SkillgateError } from "./errors.js";

/** Writes `data` to `file` atomically: a sibling tmp file is written, fsynced and renamed over it. */
export async function atomicWriteFile(
  file: string,
  data: string | Uint8Array,
  options: { mode?: number } = {},
): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`,
  );
  const handle = await fs.open(tmp, "w", options.mode ?? 0o644);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.rename(tmp, file);
  } catch (error) {
    await fs.rm(tmp, { force: true });
    throw error;
  }
}

/** JSON as Hermes writes it: indent 2, keys sorted at every level, trailing newline omitted. */
export function stableJson(value: unknown): string {
  return JSON.stringify(sortKeysDeep(value), null, 2);
}

/** Returns a copy of `value` with object keys sorted (arrays keep their order). */
export function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort())
      out[key] = sortKeysDeep((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/** True when a process with this pid exists (signal 0 probe). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Options of `acquireLock`. */
export interface LockOptions {
  /** A lock older than this is taken over (ms). Default 1 hour. */
  staleMs?: number;
  /** How long to keep trying before giving up (ms); 0 = try once. Default 10 s. */
  waitMs?: number;
  /**
   * Touch the lock file this often (ms) while it is held, so a long holder that is alive is never
   * mistaken for a stale one. Off by default (short critical sections).
   */
  keepAliveMs?: number;
}

/** A held lock; `release` removes the file only if it is still ours. */
export interface HeldLock {
  readonly file: string;
  release(): Promise<void>;
}

/** Thrown by `acquireLock` when another live process holds the lock. */
export class LockBusyError extends SkillgateError {
  readonly holderPid: number | undefined;
  constructor(file: string, holderPid: number | undefined) {
    super(
      "lock.busy",
      `${path.basename(file)} is held by ${holderPid ? `process ${holderPid}` : "another process"}; wait for it to finish and try again.`,
    );
    this.holderPid = holderPid;
  }
}

/**
 * Tokens of this process's locks: the ones held now, and the newest released ones (a concurrent
 * acquirer may still be reading a file that is about to vanish). A lock file with our pid but a token
 * in neither was left by an earlier process that had the same pid (a restarted container): it is dead.
 */
const heldTokens = new Set<string>();
const releasedTokens = new Set<string>();
const RELEASED_TOKENS_MAX = 1024;

function forgetHeld(token: string): void {
  heldTokens.delete(token);
  releasedTokens.add(token);
  trimOldest(releasedTokens, RELEASED_TOKENS_MAX);
}

/** True when `token` belongs to a lock this process holds or released a moment ago. */
function isOurToken(token: string): boolean {
  return heldTokens.has(token) || releasedTokens.has(token);
}

/** A lock whose content cannot be parsed is taken over only after this long (ms). */
const MALFORMED_LOCK_GRACE_MS = 5_000;

async function readHolder(
  file: string,
): Promise<{ pid?: number; token?: string; ageMs: number } | undefined> {
  try {
    const [text, stat] = await Promise.all([fs.readFile(file, "utf8"), fs.stat(file)]);
    const [pidText, token] = text.trim().split(/\s+/);
    const pid = Number(pidText);
    return {
      pid: Number.isInteger(pid) && pid > 0 ? pid : undefined,
      token: token || undefined,
      ageMs: Date.now() - stat.mtimeMs,
    };
  } catch {
    return undefined;
  }
}

/** Moves a stale lock aside; if it turns out to be a fresh one someone just took, puts it back. */
async function takeOver(file: string, staleToken: string | undefined, ourToken: string): Promise<void> {
  const aside = `${file}.stale-${ourToken}`;
  try {
    await fs.rename(file, aside);
    const moved = await readHolder(aside);
    if (moved && moved.token !== staleToken) await fs.link(aside, file).catch(() => undefined);
    await fs.rm(aside, { force: true });
  } catch {
    // Another process took it over first; the caller retries.
  }
}

/**
 * Takes a lock file holding `<pid> <token>`. The file appears with its content already in it (written to
 * a temp file, then hard-linked into place, which fails if the lock exists), so no process ever reads a
 * half-written lock and mistakes it for a dead holder's. A lock whose holder is dead, a malformed one
 * older than a few seconds, or any lock older than `staleMs` is taken over. Throws `LockBusyError` when
 * it stays busy for `waitMs`.
 */
export async function acquireLock(file: string, options: LockOptions = {}): Promise<HeldLock> {
  const staleMs = options.staleMs ?? 3_600_000;
  const deadline = Date.now() + (options.waitMs ?? 10_000);
  const token = randomBytes(8).toString("hex");
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${token}.tmp`;
  await fs.writeFile(tmp, `${process.pid} ${token}\n`, { mode: 0o644 });
  let delay = 1;
  try {
    for (;;) {
      try {
        // Marked held before the link appears, so no concurrent acquirer here sees an unknown token of ours.
        heldTokens.add(token);
        await fs.link(tmp, file);
        const keepAlive =
          options.keepAliveMs === undefined
            ? undefined
            : setInterval(() => {
                const now = new Date();
                fs.utimes(file, now, now).catch(() => undefined);
              }, options.keepAliveMs).unref();
        return {
          file,
          release: async () => {
            clearInterval(keepAlive);
            const holder = await readHolder(file);
            if (holder?.token === token) await fs.rm(file, { force: true });
            forgetHeld(token);
          },
        };
      } catch (error) {
        heldTokens.delete(token);
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const holder = await readHolder(file);
      if (holder) {
        // A pid can come back after a restart (containers): with our pid, only our live tokens count.
        const dead =
          holder.pid !== undefined &&
          (holder.pid === process.pid
            ? holder.token === undefined || !isOurToken(holder.token)
            : !processAlive(holder.pid));
        const malformed = holder.pid === undefined || holder.token === undefined;
        if (dead || (malformed && holder.ageMs > MALFORMED_LOCK_GRACE_MS) || holder.ageMs > staleMs) {
          await takeOver(file, holder.token, token);
          continue;
        }
      }
      if (Date.now() >= deadline) throw new LockBusyError(file, holder?.pid);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 25);
    }
  } finally {
    await fs.rm(tmp, { force: true });
  }
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

/** Reads a file as UTF-8, or `undefined` when it does not exist. */
export async function readTextIfExists(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Parses JSON text (a BOM tolerated) that must hold an object; anything else is `undefined`. */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    return undefined;
  }
  return data !== null && typeof data === "object" && !Array.isArray(data)
    ? (data as Record<string, unknown>)
    : undefined;
}

/** Hermes-style timestamp: ISO 8601 UTC with microseconds and `+00:00`. */
export function isoTimestamp(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000+00:00");
}

/** True when something (a file, a folder, a dangling symlink) exists at `file`; links are not followed. */
export async function pathExists(file: string): Promise<boolean> {
  try {
    await fs.lstat(file);
    return true;
  } catch {
    return false;
  }
}
