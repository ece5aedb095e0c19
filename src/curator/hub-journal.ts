/**
 * The hub's journal and lock. Every hub change takes the hub's kernel lock (one change at a time per
 * home) and announces itself in `skills/.hub/.journal.json` before it moves files; whoever takes the lock
 * next, or the next start, finishes a move that happened and undoes one that did not.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { homePaths } from "../config/home.js";
import { acquireLock, atomicWriteFile, pathExists, readTextIfExists } from "../core/fsutil.js";
import { type Text, t } from "../core/i18n/messages.js";
import { type HubLockEntry, hubPaths, readHubLockForWrite, writeHubLock } from "../skills/hub/format.js";

/** The journal of one hub change. */
export interface HubJournal {
  op: "install" | "update" | "uninstall";
  name: string;
  install_path: string;
  /** Install/update: the quarantine folder (relative to `skills/`) being moved in. */
  incoming?: string;
  /** Update/uninstall: where the old files are set aside (relative to `skills/`). */
  aside?: string;
  /** Uninstall: the recorded files being set aside. */
  files?: string[];
  /** Install/update: the lock entry to record. */
  entry?: HubLockEntry;
  started_at: string;
}

export function journalFile(home: string): string {
  return path.join(hubPaths(home).hub, ".journal.json");
}

export async function writeHubJournal(home: string, journal: HubJournal): Promise<void> {
  await atomicWriteFile(journalFile(home), `${JSON.stringify(journal, null, 2)}\n`);
}

/** Takes the hub's kernel lock (one hub change at a time per home) and recovers a journal left behind. */
export async function withHubLock<T>(home: string, work: () => Promise<T>): Promise<T> {
  const lock = await acquireLock(path.join(homePaths(home).locks, "hub"), { waitMs: 60_000 });
  try {
    await recoverLocked(home);
    return await work();
  } finally {
    await lock.release();
  }
}

/** Finishes or undoes a hub change a killed process left (see the file's comment); returns what it did. */
export async function recoverHubJournal(home: string): Promise<"none" | "finished" | "undone"> {
  const lock = await acquireLock(path.join(homePaths(home).locks, "hub"), { waitMs: 60_000 });
  try {
    return await recoverLocked(home);
  } finally {
    await lock.release();
  }
}

/**
 * Start-up recovery of the hub (called by `recoverHome`): finishes or undoes the change a killed process
 * left, one note saying which; none when there was nothing to do.
 */
export async function recoverHubAtStart(home: string): Promise<Text[]> {
  const text = await readTextIfExists(journalFile(home));
  if (text === undefined) return [];
  let name = "?";
  try {
    name = String((JSON.parse(text) as HubJournal).name ?? "?");
  } catch {
    // An unreadable journal is removed by the recovery itself.
  }
  const done = await recoverHubJournal(home);
  if (done === "none") return [];
  return [t(done === "finished" ? "hub.recovery.finished" : "hub.recovery.undone", { name })];
}

async function recoverLocked(home: string): Promise<"none" | "finished" | "undone"> {
  const text = await readTextIfExists(journalFile(home));
  if (text === undefined) return "none";
  let journal: HubJournal;
  try {
    journal = JSON.parse(text) as HubJournal;
  } catch {
    await fs.rm(journalFile(home), { force: true });
    return "none";
  }
  const skills = homePaths(home).skills;
  const target = path.join(skills, journal.install_path);
  const incoming = journal.incoming ? path.join(skills, journal.incoming) : undefined;
  const aside = journal.aside ? path.join(skills, journal.aside) : undefined;
  let outcome: "finished" | "undone";
  if (journal.op === "uninstall") {
    const lock = await readHubLockForWrite(home);
    if (lock.installed[journal.name]) {
      // The lock still names it: put every file set aside back where it was.
      for (const file of journal.files ?? []) {
        const from = path.join(aside as string, file);
        if (await pathExists(from)) {
          await fs.mkdir(path.dirname(path.join(target, file)), { recursive: true });
          await fs.rename(from, path.join(target, file));
        }
      }
      outcome = "undone";
    } else {
      await removeEmptyDirs(target);
      outcome = "finished";
    }
    if (aside) await fs.rm(aside, { recursive: true, force: true });
  } else {
    const moved = incoming !== undefined && !(await pathExists(incoming)) && (await pathExists(target));
    if (moved) {
      const lock = await readHubLockForWrite(home);
      if (journal.entry && lock.installed[journal.name]?.content_hash !== journal.entry.content_hash) {
        lock.installed[journal.name] = journal.entry;
        await writeHubLock(home, lock);
      }
      if (aside) await fs.rm(aside, { recursive: true, force: true });
      outcome = "finished";
    } else {
      if (aside && (await pathExists(aside)) && !(await pathExists(target))) await fs.rename(aside, target);
      if (incoming) await fs.rm(incoming, { recursive: true, force: true });
      outcome = "undone";
    }
  }
  await fs.rm(journalFile(home), { force: true });
  return outcome;
}

/** Removes the empty folders under (and including) `dir`; returns the files left in it. */
export async function removeEmptyDirs(dir: string): Promise<string[]> {
  const left: string[] = [];
  const walk = async (current: string, prefix: string): Promise<boolean> => {
    const entries = await fs.readdir(current, { withFileTypes: true }).catch(() => []);
    let empty = true;
    for (const entry of entries) {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory() && (await walk(path.join(current, entry.name), rel))) continue;
      if (!entry.isDirectory()) left.push(rel);
      empty = false;
    }
    if (empty) await fs.rmdir(current).catch(() => undefined);
    return empty;
  };
  await walk(dir, "");
  return left;
}
