/**
 * The whole-tree rollback journal `skills/.rollback-journal.json`, written atomically before every step
 * that changes the library, so an interrupted rollback can be finished or undone by the next process.
 * Also where the move journal lives (`moveJournalPath`), and home of `crashPoint`, the hook the crash
 * tests use to kill the process between two steps.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { homePaths } from "../config/home.js";
import { atomicWriteFile, readTextIfExists, stableJson } from "../core/fsutil.js";

/** Where a rollback stands. */
export type JournalPhase = "extracting" | "swapping" | "committed";

/** What the journal records. Entry lists are top-level names of `skills/`. */
export interface RollbackJournal {
  version: 1;
  /** The snapshot being restored. */
  target: string;
  /** The safety snapshot taken first. */
  safety_snapshot: string;
  phase: JournalPhase;
  /** Staging dir name (under skills/) the archive is extracted into. */
  staging: string;
  /** Side dir name (under skills/) the live entries are moved into during the swap. */
  side: string;
  /** Live entries before the swap (set when entering `swapping`). */
  old_entries: string[];
  /** Entries extracted from the archive (set when entering `swapping`). */
  new_entries: string[];
  started_at: string;
  pid: number;
  /**
   * The id of the `snapshot-rollback` ledger line that records this rollback, written by whichever
   * process finishes it (absent in journals of earlier versions: a fresh id is used).
   */
  ledger_id?: string;
  /** Archive members the check skipped (set when entering `swapping`), for that ledger line. */
  skipped_members?: number;
}

/** Path of the journal for a home. */
export function journalPath(home: string): string {
  return path.join(homePaths(home).skills, ".rollback-journal.json");
}

/** Path of the move journal of a home (see `move-journal.ts`). */
export function moveJournalPath(home: string): string {
  return path.join(homePaths(home).skills, ".move-journal.jsonl");
}

/** Writes the journal atomically (tmp + fsync + rename). */
export async function writeJournal(home: string, journal: RollbackJournal): Promise<void> {
  await atomicWriteFile(journalPath(home), stableJson(journal));
}

/** Reads the journal; `null` when there is none, `"corrupt"` when it cannot be parsed. */
export async function readJournal(home: string): Promise<RollbackJournal | null | "corrupt"> {
  const text = await readTextIfExists(journalPath(home));
  if (text === undefined) return null;
  try {
    const doc = JSON.parse(text) as RollbackJournal;
    if (doc?.version !== 1 || typeof doc.staging !== "string" || typeof doc.side !== "string")
      return "corrupt";
    if (!Array.isArray(doc.old_entries) || !Array.isArray(doc.new_entries)) return "corrupt";
    return doc;
  } catch {
    return "corrupt";
  }
}

/** Removes the journal (the rollback is over). */
export async function clearJournal(home: string): Promise<void> {
  await fs.rm(journalPath(home), { force: true });
}

let crashSteps = 0;

/**
 * Crash-test hook, inert unless the environment asks for it. `SKILLGATE_CRASH_STEP=N` kills the process
 * (SIGKILL) at the N-th crash point reached; `SKILLGATE_CRASH_AT=<name>` at the first point of that name.
 * `SKILLGATE_CRASH_TRACE=1` prints each point reached on stderr (to count them).
 */
export async function crashPoint(step: string): Promise<void> {
  const env = process.env;
  if (!env.SKILLGATE_CRASH_STEP && !env.SKILLGATE_CRASH_AT && !env.SKILLGATE_CRASH_TRACE) return;
  crashSteps++;
  if (env.SKILLGATE_CRASH_TRACE) process.stderr.write(`crash-point ${crashSteps} ${step}\n`);
  if (env.SKILLGATE_CRASH_AT === step || Number(env.SKILLGATE_CRASH_STEP) === crashSteps) {
    process.kill(process.pid, "SIGKILL");
    await new Promise(() => undefined);
  }
}
