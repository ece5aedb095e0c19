/**
 * The one curator run lock `<home>/skills/.locks/curator-run`. Every run — automatic or manual, from
 * any process — takes it, so two gateways or a CLI beside a gateway never run the curator at once. The
 * file holds `<pid> <token>`; a lock whose holder is dead, or that is older than an hour, is taken over
 * (see `acquireLock`, which publishes the file complete so a half-written lock is never misread).
 */
import path from "node:path";
import { homePaths } from "../config/home.js";
import { CuratorError } from "../core/errors.js";
import { acquireLock, type HeldLock, LockBusyError } from "../core/fsutil.js";
import type { RunLock } from "../core/stores.js";

/** A run lock older than this is considered abandoned. */
export const RUN_LOCK_STALE_MS = 3_600_000;

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
    // Kept fresh while held: a run longer than the stale limit must not be taken over while alive.
    return await acquireLock(runLockFile(home), {
      waitMs: 0,
      staleMs: RUN_LOCK_STALE_MS,
      keepAliveMs: 60_000,
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
