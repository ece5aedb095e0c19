/**
 * The one curator run lock `<home>/skills/.locks/curator-run`. Every run — automatic or manual, from
 * any process — takes it, so two gateways or a CLI beside a gateway never run the curator at once.
 * skillgate holds it with `flock(2)` (released by the kernel when the holder dies) and writes its
 * identity into it; the file exists only while held, because Hermes claims the same path by creating
 * it exclusively with its pid inside. skillgate claims it the same way (created exclusively, its identity
 * written at once), so a file it finds empty is a Hermes claim whose pid is not written yet. A Hermes
 * claim (a bare pid, or still empty) younger than an hour is respected as busy and never removed; an
 * older one is taken over, as Hermes itself does. A record written on another host (several gateways on
 * one shared home) is never judged by this host's kernel lock or a pid: it is taken over only by a writer
 * with a higher fencing epoch, or once its keep-alive has not moved for three periods as this process saw
 * it (its own clock, so clock skew between hosts does not matter).
 */
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { homePaths } from "../config/home.js";
import { CuratorError } from "../core/errors.js";
import { writerEpoch } from "../core/fence.js";
import { acquireLock, type HeldLock, LockBusyError } from "../core/fsutil.js";
import { t } from "../core/i18n/messages.js";
import type { RunLock } from "../core/stores.js";

/** A claim Hermes wrote (its pid, no kernel lock) older than this is abandoned, as Hermes judges it. */
export const RUN_LOCK_STALE_MS = 3_600_000;

/**
 * Judges what a newly locked run-lock file holds. skillgate's own records (`<pid> <host> <token>`) are
 * dead once we hold the kernel lock; a bare pid is a Hermes claim, and an empty file one being made
 * (Hermes creates the file, then writes its pid): both busy until they are an hour old.
 */
function hermesClaim(content: string, ageMs: number): string | undefined {
  if (ageMs >= RUN_LOCK_STALE_MS) return undefined;
  if (/^\d+$/.test(content)) return content;
  return content === "" ? "a Hermes claim still being written" : undefined;
}

/** How often a held run lock is touched (ms); Hermes judges a claim by its age. */
export const RUN_LOCK_KEEPALIVE_MS = 60_000;

/** A skillgate run-lock record: `<pid> <host> <token|claim> [epoch]`. */
function parseRecord(content: string): { pid: number; host: string; epoch?: number } | undefined {
  const match = /^(\d+) (\S+) (?:[0-9a-f]+|claim)(?: (\d+))?$/.exec(content);
  if (!match) return undefined;
  return { pid: Number(match[1]), host: match[2] as string, epoch: match[3] ? Number(match[3]) : undefined };
}

/** The mtime of each foreign run-lock record this process has looked at, and since when it saw it. */
const observed = new Map<string, { mtimeMs: number; since: number }>();

/**
 * True once the file's mtime has stayed `mtimeMs` for three keep-alive periods of this process's own
 * clock (the first look starts the count).
 */
function stillSince(file: string, mtimeMs: number, now = performance.now()): boolean {
  const seen = observed.get(file);
  if (!seen || seen.mtimeMs !== mtimeMs) {
    observed.set(file, { mtimeMs, since: now });
    return false;
  }
  return now - seen.since >= 3 * RUN_LOCK_KEEPALIVE_MS;
}

/** Judges a run-lock file once its kernel lock is held (see the file's comment). */
function judgeRunLock(home: string) {
  const file = runLockFile(home);
  return (content: string, ageMs: number, mtimeMs: number): string | undefined => {
    const hermes = hermesClaim(content, ageMs);
    if (hermes !== undefined) return hermes;
    const record = parseRecord(content);
    // This host's own record: the kernel released its lock, so its holder is gone.
    if (!record || record.host === os.hostname()) return undefined;
    const mine = writerEpoch(home);
    if (mine !== undefined && record.epoch !== undefined && mine > record.epoch) return undefined;
    if (stillSince(file, mtimeMs)) return undefined;
    return `${record.pid} on ${record.host}`;
  };
}

/** Path of the run lock of `home`. */
export function runLockFile(home: string): string {
  return path.join(homePaths(home).locks, "curator-run");
}

/**
 * Takes the run lock without waiting. Throws `CuratorError` with code `curator.locked` when another
 * live process holds it.
 */
export async function acquireRunLock(home: string): Promise<HeldLock> {
  try {
    // Touched while held: Hermes judges a claim by its age and must not take over a long run.
    return await acquireLock(runLockFile(home), {
      waitMs: 0,
      removeOnRelease: true,
      keepAliveMs: RUN_LOCK_KEEPALIVE_MS,
      checkClaim: judgeRunLock(home),
      recordEpoch: () => writerEpoch(home),
      createWith: `${process.pid} ${os.hostname()} claim\n`,
    });
  } catch (error) {
    if (!(error instanceof LockBusyError)) throw error;
    const holder = error.holderPid ? `process ${error.holderPid}` : "another process";
    throw new CuratorError("run", t("cmd.lock.busy", { holder, file: runLockFile(home) }), {
      code: "curator.locked",
      cause: error,
    });
  }
}

/** The run lock of `home` as the file under `skills/.locks` (the default `RunLock` of every caller). */
export function fileRunLock(home: string): RunLock {
  return { acquire: () => acquireRunLock(home) };
}

/**
 * Runs `fn` holding the run lock, so a manual change never races a curator run in any process. `lock`
 * is the gateway's store when one is set (chat), else the file lock of `home`.
 */
export async function withRunLock<T>(
  home: string,
  fn: () => Promise<T>,
  lock: RunLock = fileRunLock(home),
): Promise<T> {
  const held = await lock.acquire();
  try {
    return await fn();
  } finally {
    await held.release();
  }
}
