/**
 * The write-ahead journal of package moves, `skills/.move-journal.jsonl`. Before an archive batch (or a
 * restore) moves anything, each package's intent — the skill, where it is, where it goes, and the ledger
 * line that will record it — is appended and fsynced here; the journal is removed once the ledger,
 * `.archive_origins.json`, `.usage.json` and `.curator_suppressed` say what the moves did. A process killed
 * in between leaves the journal, and `recoverMoves` completes every move that happened (ledger line,
 * origin, usage state, suppression) and drops the ones that did not, before anything else touches the
 * library. The writer holds `skills/.locks/move-journal` (a kernel lock) for as long as the journal is
 * its own, so recovery never acts on a batch that is still running.
 */
import { promises as fs, lstatSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { SkillgateConfig } from "../config/config.js";
import { homePaths } from "../config/home.js";
import { acquireLock, type HeldLock, isoTimestamp, LockBusyError } from "../core/fsutil.js";
import { type Text, t } from "../core/i18n/messages.js";
import { UsageStore } from "../skills/usage.js";
import { emptyRecord, type UsageMap } from "../skills/usage-record.js";
import {
  type ArchiveOrigin,
  archiveFolderIdentity,
  readArchiveOriginRecords,
  updateArchiveOrigins,
} from "./archive-layout.js";
import { hasBlob, newBlobBatch } from "./blobs.js";
import { moveJournalPath } from "./journal.js";
import {
  appendBuiltEntries,
  captureStateSync,
  type LedgerEntry,
  type LedgerFile,
  readEntries,
} from "./ledger.js";
import { addSuppressedMany, removeSuppressed } from "./provenance.js";

/** One move announced before it happens. Paths are relative to `skills/`, POSIX separators. */
export interface MoveIntent {
  kind: "archive" | "restore";
  /** The skill's name (its `.usage.json` key). */
  skill: string;
  from: string;
  to: string;
  /** The package's folder under `.archive/` (the destination of an archive, the source of a restore). */
  archivedAs: string;
  /** sha256 of the package's `SKILL.md` (an archive's origin record names the package by it). */
  skillMd?: string;
  /**
   * The move changes `.curator_suppressed`: an archived bundled skill is added to it, a restored skill
   * taken out of it.
   */
  suppressed: boolean;
  /** `archived_at` an archive records. */
  at: string;
  /** The ledger line recording the move (null when the ledger is off or the capture failed). */
  entry: LedgerEntry | null;
}

/** The journal's header line. */
interface JournalHeader {
  journal: "skillgate-moves";
  version: 1;
  pid: number;
  host: string;
  started_at: string;
}

function journalLockPath(home: string): string {
  return path.join(homePaths(home).locks, "move-journal");
}

/**
 * An open journal: `announce` the intents of a chunk before moving it, then `close` once every record of
 * the moves is written, or `keep` it for recovery when a write failed.
 */
export class MoveJournal {
  private done = false;

  private constructor(
    private readonly file: string,
    private readonly handle: fs.FileHandle,
    private readonly lock: HeldLock,
  ) {}

  /**
   * Takes the journal lock (waiting for another batch of this home to finish) and starts a fresh journal.
   * A journal left by a dead writer is recovered first, so no announced move is ever overwritten.
   */
  static async open(home: string, config: SkillgateConfig): Promise<MoveJournal> {
    const lock = await acquireLock(journalLockPath(home), { waitMs: 60_000 });
    try {
      const file = moveJournalPath(home);
      await recoverLocked(home, config);
      const handle = await fs.open(file, "w", 0o644);
      const header: JournalHeader = {
        journal: "skillgate-moves",
        version: 1,
        pid: process.pid,
        host: os.hostname(),
        started_at: isoTimestamp(new Date()),
      };
      await handle.write(`${JSON.stringify(header)}\n`);
      await handle.datasync();
      return new MoveJournal(file, handle, lock);
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  /**
   * Appends the intents of the moves about to happen and makes them durable. `entryTexts[i]`, when given,
   * is `JSON.stringify(intents[i].entry)` already made for the ledger (so it is not serialized twice).
   */
  async announce(intents: readonly MoveIntent[], entryTexts?: readonly (string | null)[]): Promise<void> {
    if (intents.length === 0) return;
    const items = intents.map((intent, index) => {
      const { entry, ...rest } = intent;
      const text = entryTexts?.[index] ?? (entry ? JSON.stringify(entry) : "null");
      return `${JSON.stringify(rest).slice(0, -1)},"entry":${text}}`;
    });
    await this.handle.write(`{"intents":[${items.join(",")}]}\n`);
    await this.handle.datasync();
  }

  /** Every record of the moves is written: the journal goes. */
  async close(): Promise<void> {
    if (this.done) return;
    this.done = true;
    try {
      await this.handle.close();
      await fs.rm(this.file, { force: true });
    } finally {
      await this.lock.release();
    }
  }

  /** A record could not be written: the journal stays for `recoverMoves` (the next start or batch). */
  async keep(): Promise<void> {
    if (this.done) return;
    this.done = true;
    try {
      await this.handle.close();
    } finally {
      await this.lock.release();
    }
  }
}

/** The intents a journal holds; a torn last line (a crash mid-announce: nothing of it moved) is skipped. */
function parseJournal(text: string): MoveIntent[] {
  const intents: MoveIntent[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let doc: { intents?: unknown };
    try {
      doc = JSON.parse(line) as { intents?: unknown };
    } catch {
      continue;
    }
    if (!Array.isArray(doc.intents)) continue;
    for (const item of doc.intents as MoveIntent[]) {
      if (
        item &&
        (item.kind === "archive" || item.kind === "restore") &&
        typeof item.skill === "string" &&
        typeof item.from === "string" &&
        typeof item.to === "string" &&
        typeof item.archivedAs === "string"
      )
        intents.push(item);
    }
  }
  return intents;
}

/** True when something (a folder, a file, a link) is at `file`; links are not followed. */
function exists(file: string): boolean {
  try {
    return lstatSync(file, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
}

/**
 * Completes the moves a dead writer's journal announced, from what the disk shows, and removes the
 * journal. Returns one note per repair, a catalog text (none when there was no journal). A journal whose
 * writer still runs (its lock is held) is left to it.
 */
export async function recoverMoves(home: string, config: SkillgateConfig): Promise<Text[]> {
  if (!exists(moveJournalPath(home))) return [];
  let lock: HeldLock;
  try {
    lock = await acquireLock(journalLockPath(home), { waitMs: 0 });
  } catch (error) {
    if (error instanceof LockBusyError) return [];
    throw error;
  }
  try {
    return await recoverLocked(home, config);
  } finally {
    await lock.release();
  }
}

/** `recoverMoves` with the journal lock held. */
async function recoverLocked(home: string, config: SkillgateConfig): Promise<Text[]> {
  const file = moveJournalPath(home);
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const skills = homePaths(home).skills;
  const notes: Text[] = [];
  const moved: MoveIntent[] = [];
  for (const intent of parseJournal(text)) {
    const fromThere = exists(path.join(skills, intent.from));
    const toThere = exists(path.join(skills, intent.to));
    if (toThere && !fromThere) moved.push(intent);
    else if (fromThere && toThere) notes.push(t(`recovery.${intent.kind}.bothKept`, movePlaces(intent)));
    else if (!fromThere && !toThere) notes.push(t(`recovery.${intent.kind}.neither`, movePlaces(intent)));
    // Still where it was: the move never happened, and nothing of it was recorded.
  }
  if (moved.length > 0) await completeMoves(home, config, moved, notes);
  await fs.rm(file, { force: true });
  return notes;
}

/** The skill and the two places of a move, as its recovery notes name them. */
function movePlaces(intent: MoveIntent): { skill: string; from: string; to: string } {
  return { skill: intent.skill, from: intent.from, to: intent.to };
}

/** Writes every record the moved packages lack: ledger lines, origins, usage states, suppression. */
async function completeMoves(
  home: string,
  config: SkillgateConfig,
  moved: MoveIntent[],
  notes: Text[],
): Promise<void> {
  const recorded = config.skills.ledger
    ? new Set((await readEntries(home)).map((entry) => entry.id))
    : new Set<string>();
  const lines: string[] = [];
  const origins = await readArchiveOriginRecords(home);
  const originChanges: Record<string, ArchiveOrigin | null> = {};
  const suppress: string[] = [];
  const unsuppress: string[] = [];
  for (const intent of moved) {
    let ledgerEntry = false;
    let origin = false;
    if (config.skills.ledger && intent.entry && !recorded.has(intent.entry.id)) {
      lines.push(JSON.stringify(await withBlobs(home, intent, intent.entry)));
      ledgerEntry = true;
    }
    // A record of this archive names its place and its folder as it is now (one left from an earlier
    // archive of the same folder name has another identity).
    const recordedOrigin = origins[intent.archivedAs];
    const archivedFolder = path.join(homePaths(home).archive, ...intent.archivedAs.split("/"));
    if (
      intent.kind === "archive" &&
      (recordedOrigin?.from !== intent.from ||
        recordedOrigin.folder !== archiveFolderIdentity(archivedFolder))
    ) {
      originChanges[intent.archivedAs] = { from: intent.from, skillMd: intent.skillMd };
      origin = true;
    } else if (intent.kind === "restore" && intent.archivedAs in origins) {
      originChanges[intent.archivedAs] = null;
      origin = true;
    }
    if (intent.suppressed) (intent.kind === "archive" ? suppress : unsuppress).push(intent.skill);
    const records = ledgerEntry
      ? t(origin ? "recovery.records.both" : "recovery.records.ledgerEntry")
      : origin
        ? t("recovery.records.origin")
        : undefined;
    notes.push(
      records === undefined
        ? t(`recovery.${intent.kind}.completed`, movePlaces(intent))
        : t(`recovery.${intent.kind}.completedWrote`, { ...movePlaces(intent), records }),
    );
  }
  await appendBuiltEntries(home, config, lines);
  await updateArchiveOrigins(home, originChanges);
  await new UsageStore(homePaths(home).skills).update((records) => settleStates(records, moved));
  await addSuppressedMany(home, suppress);
  for (const name of unsuppress) await removeSuppressed(home, name);
}

/** Sets the usage state each completed move implies (a record changed since is left as it is). */
function settleStates(records: UsageMap, moved: MoveIntent[]): void {
  for (const intent of moved) {
    const record = records[intent.skill];
    if (intent.kind === "archive") {
      if (record?.state === "archived") continue;
      const after = intent.entry?.usage_after;
      const base = record ?? (after ? structuredClone(after) : emptyRecord());
      base.state = "archived";
      base.archived_at = intent.at;
      records[intent.skill] = base;
    } else if (record && record.state === "archived") {
      record.state = "active";
      record.archived_at = null;
    }
  }
}

/**
 * The entry with every blob it cites present. A blob collected since it was captured (the entry waited
 * past the collection grace) is taken again from the moved package, which holds the same files.
 */
async function withBlobs(home: string, intent: MoveIntent, entry: LedgerEntry): Promise<LedgerEntry> {
  const files = [...entry.before, ...entry.after];
  let complete = true;
  for (const file of files) if ("sha256" in file && !(await hasBlob(home, file.sha256))) complete = false;
  const recovered = { ...entry, evidence: { ...entry.evidence, recovered: true } };
  if (complete) return recovered;
  const skills = homePaths(home).skills;
  const to = path.join(skills, intent.to);
  const from = path.join(skills, intent.from);
  const capture = captureStateSync(home, [to], newBlobBatch());
  const before: LedgerFile[] = capture.files.map((file) => ({
    ...file,
    path: from + file.path.slice(to.length),
  }));
  return { ...recovered, before, after: capture.files };
}
