/**
 * The one curator run lock `<home>/skills/.locks/curator-run`. Every run — automatic or manual, from
 * any process — takes it, so two gateways or a CLI beside a gateway never run the curator at once.
 * skillgate holds it with `flock(2)` (released by the kernel when the holder dies) and writes its
 * identity into it; the file exists only while held, because Hermes claims the same path by creating
 * it exclusively with its pid inside. skillgate claims it the same way (created exclusively, its identity
 * written at once), so a file it finds empty is a Hermes claim whose pid is not written yet. A Hermes
 * claim (a bare pid, or still empty) younger than an hour is respected as busy and never removed; an
 * older one is taken over, as Hermes itself does.
 */
import os from "node:os";
import path from "node:path";
import { homePaths } from "../config/home.js";
import { CuratorError } from "../core/errors.js";
import { acquireLock, type HeldLock, LockBusyError } from "../core/fsutil.js";
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
      keepAliveMs: 60_000,
      checkClaim: hermesClaim,
      createWith: `${process.pid} ${os.hostname()} claim\n`,
    });
  } catch (error) {
    if (!(error instanceof LockBusyError)) throw error;
    const holder = error.holderPid ? `process ${error.holderPid}` : "another process";
    throw new CuratorError(
      "run",
      `another curator run is in progress (${holder} holds ${runLockFile(home)}); wait for it to finish and try again.`,
      { code: "curator.locked", cause: error },
    );
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
