/**
 * Leftovers of killed writes of `<home>/.env` and `config.yaml`: an atomic write goes through a sibling
 * temp file named after its writer (mode 0600 for these two), and a process killed between writing and
 * renaming it leaves that copy — of every secret, for `.env`. `removeAbandonedWriteTemps` deletes those
 * whose writer is gone (see `core/temp-files`), in the home and beside a symlinked config.yaml's target;
 * start-up recovery and `doctor` call it.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { removeDeadTemps } from "../core/temp-files.js";
import { homePaths } from "./home.js";

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
  const removed: string[] = [];
  for (const dir of await writeDirectories(home))
    for (const name of await removeDeadTemps(dir, options)) removed.push(path.join(dir, name));
  return removed;
}
