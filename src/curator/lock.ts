/**
 * The one curator run lock `<home>/skills/.locks/curator-run`. Every run — automatic or manual, from
 * any process — takes it, so two gateways or a CLI beside a gateway never run the curator at once. The
 * file holds `<pid> <token>`; a lock whose holder is dead, or that is older than an hour, is taken over.
 *
 * The file is published complete with one `link()` of a fully written temp file, so nobody ever sees
 * an empty lock file and mistakes a holder that is still writing its pid for a dead one.
 */
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { homePaths } from "../config/home.js";
import { CuratorError } from "../core/errors.js";
import { type HeldLock, processAlive } from "../core/fsutil.js";

/** A run lock older than this is considered abandoned. */
export const RUN_LOCK_STALE_MS = 3_600_000;

/** Path of the run lock of `home`. */
export function runLockFile(home: string): string {
  return path.join(homePaths(home).locks, "curator-run");
}

interface Holder {
  pid?: number;
  token?: string;
  mtimeMs: number;
}

async function readHolder(file: string): Promise<Holder | undefined> {
  try {
    const [text, stat] = await Promise.all([fs.readFile(file, "utf8"), fs.stat(file)]);
    const [pidText, token] = text.trim().split(/\s+/);
    const pid = Number(pidText);
    return { pid: Number.isInteger(pid) && pid > 0 ? pid : undefined, token, mtimeMs: stat.mtimeMs };
  } catch {
    return undefined;
  }
}

function abandoned(holder: Holder): boolean {
  const dead = holder.pid !== undefined && holder.pid !== process.pid && !processAlive(holder.pid);
  return dead || Date.now() - holder.mtimeMs > RUN_LOCK_STALE_MS;
}

/** Creates the lock file with its full content in one step; false when it already exists. */
async function publish(file: string, content: string, token: string): Promise<boolean> {
  const tmp = `${file}.${token}.tmp`;
  await fs.writeFile(tmp, content, { flag: "wx" });
  try {
    await fs.link(tmp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    await fs.rm(tmp, { force: true });
  }
}

/** Moves an abandoned lock out of the way; a fresh lock that replaced it meanwhile is put back. */
async function takeOver(file: string, holder: Holder, token: string): Promise<void> {
  const aside = `${file}.stale-${token}`;
  try {
    await fs.rename(file, aside);
  } catch {
    return;
  }
  const moved = await readHolder(aside);
  if (moved && moved.token !== holder.token) await fs.link(aside, file).catch(() => undefined);
  await fs.rm(aside, { force: true });
}

function lockedError(home: string, pid: number | undefined): CuratorError {
  const holder = pid ? `process ${pid}` : "another process";
  return new CuratorError(
    "run",
    `another curator run is in progress (${holder} holds ${runLockFile(home)}); wait for it to finish and try again.`,
    { code: "curator.locked" },
  );
}

/**
 * Takes the run lock without waiting. Throws `CuratorError` with code `curator.locked` when another
 * live process holds it.
 */
export async function acquireRunLock(home: string): Promise<HeldLock> {
  const file = runLockFile(home);
  await fs.mkdir(path.dirname(file), { recursive: true });
  const token = randomBytes(8).toString("hex");
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await publish(file, `${process.pid} ${token}\n`, token)) {
      return {
        file,
        release: async () => {
          if ((await readHolder(file))?.token === token) await fs.rm(file, { force: true });
        },
      };
    }
    const holder = await readHolder(file);
    if (holder && !abandoned(holder)) throw lockedError(home, holder.pid);
    if (holder) await takeOver(file, holder, token);
  }
  throw lockedError(home, (await readHolder(file))?.pid);
}
