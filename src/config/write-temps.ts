/**
 * Leftovers of killed writes of `<home>/.env` and `config.yaml`: an atomic write goes through a sibling
 * `.<name>.<pid>.<random>.tmp` (mode 0600), and a process killed between writing and renaming it leaves
 * that copy — of every secret, for `.env`. `removeAbandonedWriteTemps` deletes those whose writer is gone
 * (or that are older than any write takes); the gateway calls it at start and `doctor` reports it.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { homePaths } from "./home.js";

/** Temp files of skillgate's atomic writes of `.env` and `config.yaml` (pid, optional random part). */
const WRITE_TEMP = /^\.(\.env|config\.yaml)\.(\d+)(?:\.[0-9a-f]+)?\.tmp$/;

/** A temp file this old is abandoned whatever its pid says (a write takes milliseconds). */
const ABANDONED_AFTER_MS = 60_000;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The directories the writes go to: the home, and config.yaml's real directory when it is a link. */
async function writeDirectories(home: string): Promise<string[]> {
  const config = homePaths(home).config;
  const real = await fs.realpath(config).catch(() => config);
  return [...new Set([home, path.dirname(real)])];
}

/** Options of `removeAbandonedWriteTemps`. */
export interface WriteTempOptions {
  now?: number;
  /**
   * Called at start, before this process wrote anything: a temp file carrying this process's own pid is
   * a previous run's (a container's gateway is pid 1 every time) and goes too.
   */
  atStart?: boolean;
}

/**
 * Removes abandoned temp files of `.env` / `config.yaml` writes in `home` (and beside a symlinked
 * config.yaml's target); returns the paths removed. A temp file of a live writer that is still young is
 * left alone. Never throws for a missing or unreadable directory.
 */
export async function removeAbandonedWriteTemps(
  home: string,
  options: WriteTempOptions = {},
): Promise<string[]> {
  const now = options.now ?? Date.now();
  const removed: string[] = [];
  for (const dir of await writeDirectories(home)) {
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      const match = WRITE_TEMP.exec(name);
      if (!match) continue;
      const file = path.join(dir, name);
      const stat = await fs.lstat(file).catch(() => null);
      if (!stat?.isFile()) continue;
      const pid = Number(match[2]);
      const young = now - stat.mtimeMs < ABANDONED_AFTER_MS;
      const ours = pid === process.pid;
      if (young && (ours ? !options.atStart : processAlive(pid))) continue;
      await fs.rm(file, { force: true });
      removed.push(file);
    }
  }
  return removed;
}
