/**
 * Temporary files of interrupted writes. Every temp file skillgate writes is named after its writer: the
 * process id and a short tag of the host name (`tempSuffix`). After a crash, recovery removes the temp
 * files whose writer is gone: on this host, a pid no process holds (or this very pid, at start: a
 * container's gateway is pid 1 every time); from anywhere, a file older than any such write takes. A young
 * file from another host (a container, a second machine on a shared mount, where our pid check means
 * nothing) is left alone.
 */
import { createHash, randomBytes } from "node:crypto";
import { promises as fs, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** Four hex digits naming this host in temp-file names. */
export const HOST_TAG = createHash("sha256").update(os.hostname()).digest("hex").slice(0, 4);

/** An atomic write's temp file this old is abandoned whoever wrote it (such a write takes milliseconds). */
export const ATOMIC_TEMP_MAX_AGE_MS = 60_000;

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

/** How `writerGone` judges. */
export interface WriterJudgement {
  now?: number;
  /** A temp file this old is gone whoever wrote it. */
  maxAgeMs: number;
  /**
   * The caller is starting and has written nothing yet: a file naming this process's pid is a previous
   * process's. Otherwise this process's own temp files are never gone (a write of its own may be under
   * way; one that fails removes its file itself).
   */
  atStart?: boolean;
}

/**
 * True when the writer of a temp file cannot still be writing it: the file is older than `maxAgeMs`, or
 * its writer is a pid of this host that no process holds (this pid only at start).
 */
export function writerGone(writer: TempWriter, mtimeMs: number, judgement: WriterJudgement): boolean {
  if ((judgement.now ?? Date.now()) - mtimeMs >= judgement.maxAgeMs) return true;
  if (writer.host !== HOST_TAG) return false;
  if (writer.pid === process.pid) return judgement.atStart === true;
  return !pidAlive(writer.pid);
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
 * Removes the `atomicWriteFile` temp files in `dir` whose writer is gone (see `writerGone`; `atStart` for
 * a caller that has written nothing yet). Returns the names removed. A missing folder has none.
 */
export async function removeDeadTemps(
  dir: string,
  options: { atStart?: boolean; now?: number } = {},
): Promise<string[]> {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    const writer = atomicTempWriter(name);
    if (!writer) continue;
    const file = path.join(dir, name);
    const stat = await fs.lstat(file).catch(() => undefined);
    if (
      !stat?.isFile() ||
      !writerGone(writer, stat.mtimeMs, { ...options, maxAgeMs: ATOMIC_TEMP_MAX_AGE_MS })
    )
      continue;
    await fs.rm(file, { force: true });
    removed.push(name);
  }
  return removed;
}
