/**
 * Temporary files of interrupted writes. Every temp file skillgate writes is named after its writer: the
 * process id and a short tag of the host name (`writerTag`). After a crash, recovery removes the temp files
 * whose writer is gone: on this host, a pid no process holds; from another host (a container, a second
 * machine on a shared mount, where our pid check means nothing), only once the file is an hour old.
 */
import { createHash, randomBytes } from "node:crypto";
import { promises as fs, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** Four hex digits naming this host in temp-file names. */
export const HOST_TAG = createHash("sha256").update(os.hostname()).digest("hex").slice(0, 4);

/** A temp file from another host is left alone for this long (its writer may be alive there). */
export const FOREIGN_TEMP_GRACE_MS = 3_600_000;

/** Eight hex digits for a temp-file name: this host's tag, then four random ones. */
export function tempSuffix(): string {
  return `${HOST_TAG}${randomBytes(2).toString("hex")}`;
}

/**
 * True when a process with this pid runs in our pid namespace. A zombie (dead, not yet reaped: the fate
 * of a killed detached child whose parent is gone, under an init that does not reap) is not running.
 * Used only to judge temp files and deleters (erring on keeping them), never to take over a lock: locks
 * are kernel locks.
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  try {
    // `/proc/<pid>/stat`: "pid (comm) S …"; the state follows the last ")" (comm may hold one).
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}

/** The writer a temp file names. */
export interface TempWriter {
  pid: number;
  /** The host tag (the first four hex digits of the name's suffix). */
  host: string;
}

/**
 * True when the writer of a temp file cannot still be writing it: a pid of this host that no process
 * holds, or a file from another host older than the grace period. This process's own temp files are
 * never judged gone (a write of its own may be under way; one that fails removes its file itself).
 */
export function writerGone(writer: TempWriter, mtimeMs: number, now = Date.now()): boolean {
  if (writer.host === HOST_TAG) return writer.pid !== process.pid && !pidAlive(writer.pid);
  return now - mtimeMs >= FOREIGN_TEMP_GRACE_MS;
}

/**
 * The writer of an `atomicWriteFile` temp file (`.<name>.<pid>.<8 hex>.tmp`), or undefined for any other
 * name. Files named before host tags existed carry random digits there: they are judged as foreign.
 */
export function atomicTempWriter(name: string): TempWriter | undefined {
  const match = /^\..+\.(\d+)\.([0-9a-f]{8})\.tmp$/.exec(name);
  return match ? { pid: Number(match[1]), host: (match[2] as string).slice(0, 4) } : undefined;
}

/**
 * Removes the `atomicWriteFile` temp files in `dir` whose writer is gone (see `writerGone`). Returns the
 * names removed. A missing folder has none.
 */
export async function removeDeadTemps(dir: string, now = Date.now()): Promise<string[]> {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    const writer = atomicTempWriter(name);
    if (!writer) continue;
    const file = path.join(dir, name);
    const stat = await fs.lstat(file).catch(() => undefined);
    if (!stat?.isFile() || !writerGone(writer, stat.mtimeMs, now)) continue;
    await fs.rm(file, { force: true });
    removed.push(name);
  }
  return removed;
}
