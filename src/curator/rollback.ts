/**
 * Whole-tree rollback to a snapshot, crash-safe. The archive is verified member by member, extracted
 * into `skills/.rollback-staging-<id>/`, and swapped in by renaming top-level entries through a side
 * dir, with a journal written before each phase. A process killed at any instant leaves a journal that
 * `recoverInterruptedRollback` uses to finish the swap (or undo an unfinished extraction), so the
 * library ends up exactly as before or exactly as after.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import type { SkillgateConfig } from "../config/config.js";
import { homePaths } from "../config/home.js";
import { CuratorError, errorCause } from "../core/errors.js";
import { checkWriteFence } from "../core/fence.js";
import {
  acquireLock,
  type HeldLock,
  isoTimestamp,
  LockBusyError,
  pathExists,
  withLock,
} from "../core/fsutil.js";
import { english, list, type Text, t } from "../core/i18n/messages.js";
import { meterFor, type ProgressSink } from "../core/progress.js";
import {
  clearJournal,
  crashPoint,
  journalPath,
  type RollbackJournal,
  readJournal,
  writeJournal,
} from "./journal.js";
import { appendEntry, newEntryId, readEntries } from "./ledger.js";
import { type CronRestoreResult, cronParts, restoreCronLinks } from "./rollback-cron.js";
import {
  createSnapshot,
  isLibraryEntry,
  readManifest,
  resolveSnapshot,
  type SnapshotInfo,
} from "./snapshot.js";
import { extractChecked } from "./tarball/read.js";
import type { RecordedLink } from "./tarball/write.js";
import {
  deleteInBackground,
  emptyPurgeTrash,
  hasPurgeTrash,
  hasRollbackTrash,
  rollbackTrashDir,
} from "./trash.js";

/** Outcome of a whole-tree rollback. */
export interface SnapshotRollbackResult {
  target: string;
  safetySnapshot: string;
  cron: CronRestoreResult;
  /** What was done, in English. */
  message: string;
  /** The same, as a catalog text for the reader's locale. */
  text: Text;
}

/** Options of `rollbackToSnapshot`. */
export interface SnapshotRollbackOptions {
  home: string;
  config: SkillgateConfig;
  /** Snapshot id; the newest when omitted. */
  id?: string;
  now?: Date;
  /** Counted progress: the safety snapshot, then the restore (archive bytes read). */
  meter?: ProgressSink;
}

/** The rollback lock (one whole-tree rollback at a time per home). */
function rollbackLockPath(home: string): string {
  return path.join(homePaths(home).locks, "rollback.lock");
}

/**
 * Restores the library from a snapshot. A `pre-rollback to <id>` safety snapshot is taken first and the
 * rollback is abandoned if it fails; the archive is verified before anything moves; any failure puts the
 * previous library back. Cron jobs that still exist get their skill links back.
 */
export async function rollbackToSnapshot(opts: SnapshotRollbackOptions): Promise<SnapshotRollbackResult> {
  await checkWriteFence(opts.home, t("fence.what.rollback"));
  const lock = await takeRollbackLock(opts.home);
  try {
    await emptyPurgeTrash(opts.home);
    await recoverLocked(opts.home, opts.config);
    const target = await resolveSnapshot(opts.home, opts.id);
    if (!target) {
      const text =
        opts.id === undefined ? t("rollback.noBackup") : t("rollback.noBackupFor", { id: opts.id });
      throw new CuratorError("rollback", text, { code: "curator.no_snapshot" });
    }
    const manifest = target.manifest ?? (await readManifest(target.dir));
    const { journal, safety } = await swapIn(opts, target, manifest?.links ?? []);
    const cron = await restoreCronLinks(opts.home, target);
    await crashPoint("rollback:after-cron");
    await finishCleanup(opts.home, opts.config, journal);
    const text = rollbackMessage(target.id, cron);
    return { target: target.id, safetySnapshot: safety.id, cron, message: english(text), text };
  } finally {
    await lock.release();
  }
}

async function takeRollbackLock(home: string): Promise<HeldLock> {
  try {
    return await acquireLock(rollbackLockPath(home), { waitMs: 2_000 });
  } catch (error) {
    if (error instanceof LockBusyError) {
      throw new CuratorError("rollback", t("rollback.busy"), { code: "curator.locked" });
    }
    throw error;
  }
}

/**
 * Takes the safety snapshot of the live library and, at the same time, checks and extracts the archive
 * into staging in one pass; then swaps the library, journaling each phase. The two first steps are
 * independent (staging is not library content: no snapshot includes it) and use different resources —
 * compressing the snapshot runs on the thread pool while extraction writes files — so running them
 * together takes about the time of the longer one. Nothing in the library moves until both succeeded:
 * a failed safety snapshot abandons the rollback, and an unsafe or unreadable archive is refused with
 * the staging removed. Returns the committed journal, what the check found and the safety snapshot.
 */
async function swapIn(
  opts: SnapshotRollbackOptions,
  target: SnapshotInfo,
  recordedLinks: RecordedLink[],
): Promise<{ journal: RollbackJournal; safety: { id: string } }> {
  const { home, meter } = opts;
  const skills = homePaths(home).skills;
  const journal: RollbackJournal = {
    version: 1,
    target: target.id,
    // Known once the safety snapshot has claimed its id (recorded when the swap starts).
    safety_snapshot: "",
    phase: "extracting",
    staging: `.rollback-staging-${target.id}`,
    side: `.rollback-side-${target.id}`,
    old_entries: [],
    new_entries: [],
    started_at: isoTimestamp(new Date()),
    pid: process.pid,
    ledger_id: newEntryId(),
  };
  const staging = path.join(skills, journal.staging);
  await fs.rm(staging, { recursive: true, force: true });
  await fs.rm(path.join(skills, journal.side), { recursive: true, force: true });
  await writeJournal(home, journal);
  await crashPoint("rollback:journal-extracting");
  // A failed safety snapshot stops the extraction too: its result would be thrown away.
  const stop = new AbortController();
  const safetyRun = takeSafetySnapshot(opts, target).then(
    async (safety) => {
      await crashPoint("rollback:after-safety");
      return safety;
    },
    (error: unknown) => {
      stop.abort();
      throw error;
    },
  );
  const extraction = (async () => {
    await fs.mkdir(staging);
    const bytes = (await fs.stat(target.archive)).size;
    const progress = meterFor(meter, "restoring", bytes, "bytes");
    return extractChecked(target.archive, staging, recordedLinks, progress, stop.signal);
  })();
  const [safetyOutcome, extractOutcome] = await Promise.allSettled([safetyRun, extraction]);
  if (safetyOutcome.status === "rejected" || extractOutcome.status === "rejected") {
    await fs.rm(staging, { recursive: true, force: true });
    await clearJournal(home);
    // Without its safety snapshot the rollback is abandoned whatever the archive held.
    if (safetyOutcome.status === "rejected") throw safetyOutcome.reason;
    const error = (extractOutcome as PromiseRejectedResult).reason;
    // A refused or unreadable archive says so itself (and that nothing was changed).
    if (error instanceof CuratorError) throw error;
    throw new CuratorError("rollback", t("rollback.extractFailed", { cause: errorCause(error) }), {
      cause: error,
    });
  }
  const safety = safetyOutcome.value;
  const verified = extractOutcome.value;
  await crashPoint("rollback:extracted");
  journal.safety_snapshot = safety.id;
  journal.skipped_members = verified.skipped.length;
  journal.new_entries = (await fs.readdir(staging)).filter(isLibraryEntry).sort();
  journal.old_entries = (await fs.readdir(skills)).filter(isLibraryEntry).sort();
  journal.phase = "swapping";
  // The swap is the step that changes the library: a replica that stopped leading meanwhile stops here.
  try {
    await checkWriteFence(home, t("fence.what.rollbackSwap"));
  } catch (error) {
    await fs.rm(staging, { recursive: true, force: true });
    await clearJournal(home);
    throw error;
  }
  await writeJournal(home, journal);
  await crashPoint("rollback:journal-swapping");
  try {
    await withLock(
      homePaths(home).usageLock,
      async () => {
        // Asked again once the usage lock is held: the wait for it may have outlived the lead.
        await checkWriteFence(home, t("fence.what.rollbackSwap"));
        await finishSwap(home, journal);
      },
      {
        waitMs: 60_000,
        recordHolder: false,
      },
    );
  } catch (error) {
    await undoSwap(home, journal);
    throw new CuratorError("rollback", t("rollback.swapFailed", { cause: errorCause(error) }), {
      cause: error,
    });
  }
  journal.phase = "committed";
  await writeJournal(home, journal);
  await crashPoint("rollback:journal-committed");
  return { journal, safety };
}

/** The `pre-rollback to <id>` snapshot; a failure becomes `curator.safety_snapshot_failed`. */
async function takeSafetySnapshot(
  opts: SnapshotRollbackOptions,
  target: SnapshotInfo,
): Promise<{ id: string }> {
  try {
    return await createSnapshot({
      home: opts.home,
      config: opts.config,
      reason: `pre-rollback to ${target.id}`,
      now: opts.now,
      protectIds: [target.id],
      meter: opts.meter,
    });
  } catch (error) {
    throw new CuratorError("rollback", t("rollback.safetySnapshotFailed", { cause: errorCause(error) }), {
      cause: error,
      code: "curator.safety_snapshot_failed",
    });
  }
}

/**
 * Completes the swap from wherever it stopped (idempotent). All old entries leave before any new entry
 * arrives, so a name still in `skills/` while absent from the side dir is an old one.
 */
async function finishSwap(home: string, journal: RollbackJournal): Promise<void> {
  const skills = homePaths(home).skills;
  const side = path.join(skills, journal.side);
  const staging = path.join(skills, journal.staging);
  await fs.mkdir(side, { recursive: true });
  for (const name of journal.old_entries) {
    if ((await pathExists(path.join(skills, name))) && !(await pathExists(path.join(side, name)))) {
      await fs.rename(path.join(skills, name), path.join(side, name));
      await crashPoint("rollback:moved-out");
    }
  }
  for (const name of journal.new_entries) {
    if (await pathExists(path.join(staging, name))) {
      await fs.rename(path.join(staging, name), path.join(skills, name));
      await crashPoint("rollback:moved-in");
    }
  }
}

/** Reverses a partial swap: new entries go back to staging, old ones come back from the side dir. */
async function undoSwap(home: string, journal: RollbackJournal): Promise<void> {
  const skills = homePaths(home).skills;
  const side = path.join(skills, journal.side);
  const staging = path.join(skills, journal.staging);
  await fs.mkdir(staging, { recursive: true });
  for (const name of journal.new_entries) {
    const live = path.join(skills, name);
    const movedIn = !(await pathExists(path.join(staging, name))) && (await pathExists(live));
    // A name also among the old entries is only a new one once its old twin is safely in the side dir.
    const oldTwinAside = !journal.old_entries.includes(name) || (await pathExists(path.join(side, name)));
    if (movedIn && oldTwinAside) await fs.rename(live, path.join(staging, name));
  }
  for (const name of journal.old_entries) {
    if (await pathExists(path.join(side, name)))
      await fs.rename(path.join(side, name), path.join(skills, name));
  }
  await fs.rm(staging, { recursive: true, force: true });
  await fs.rm(side, { recursive: true, force: true });
  await clearJournal(home);
}

/**
 * Clears the side and staging dirs and the journal once a swap is committed, and records the rollback as
 * the live ledger's next line (the ledger stays in place through a rollback) before the journal goes, so
 * the line is written once whoever finishes the rollback. Deleting the old library
 * (tens of thousands of unlinks: longer than extracting the new one) is not waited for: the side dir is
 * moved out of the library into the rollback trash, which a detached process deletes
 * (`deleteInBackground`; recovery deletes it inline); what a deleter that died left there is removed by
 * the next start's recovery.
 */
async function finishCleanup(
  home: string,
  config: SkillgateConfig,
  journal: RollbackJournal,
  recovering = false,
): Promise<void> {
  const skills = homePaths(home).skills;
  const side = path.join(skills, journal.side);
  const trash = path.join(rollbackTrashDir(home), `rollback-${journal.target}-${process.pid}`);
  let moved = false;
  try {
    await fs.mkdir(path.dirname(trash), { recursive: true });
    await fs.rename(side, trash);
    moved = true;
  } catch {
    await fs.rm(side, { recursive: true, force: true });
  }
  await crashPoint("rollback:side-removed");
  await fs.rm(path.join(skills, journal.staging), { recursive: true, force: true });
  await recordRollback(home, config, journal, recovering).catch(() => undefined);
  await crashPoint("rollback:ledgered");
  await clearJournal(home);
  // Recovery deletes inline: it runs before any command, which then finds nothing left to clean.
  if (moved && (recovering || !deleteInBackground(trash)))
    await fs.rm(trash, { recursive: true, force: true });
}

/**
 * Appends the rollback's `snapshot-rollback` line. Recovery (`recovering`) first looks whether the process
 * that died had written it already, and marks the line as its own.
 */
async function recordRollback(
  home: string,
  config: SkillgateConfig,
  journal: RollbackJournal,
  recovering: boolean,
): Promise<void> {
  if (!config.skills.ledger) return;
  const id = journal.ledger_id ?? newEntryId();
  if (recovering && (await readEntries(home)).some((entry) => entry.id === id)) return;
  await appendEntry(home, config, {
    id,
    actor: "user",
    action: "snapshot-rollback",
    skill: "",
    evidence: {
      snapshot: journal.target,
      safety_snapshot: journal.safety_snapshot,
      skipped_members: journal.skipped_members ?? 0,
      ...(recovering ? { recovered: true } : {}),
    },
    before: [],
    after: [],
  });
}

/**
 * Finishes or undoes a rollback interrupted by a crash, from its journal, and empties the trash a dead
 * deleter or purge left. Called by every start's recovery (`recoverHome`). Returns a note per repair:
 * none when there was nothing to do (or another process is busy with a rollback right now).
 */
export async function recoverInterruptedRollback(home: string, config: SkillgateConfig): Promise<Text[]> {
  if (
    !(await pathExists(journalPath(home))) &&
    !(await hasPurgeTrash(home)) &&
    !(await hasRollbackTrash(home))
  )
    return [];
  let lock: HeldLock;
  try {
    lock = await acquireLock(rollbackLockPath(home), { waitMs: 0 });
  } catch (error) {
    if (error instanceof LockBusyError) return [];
    throw error;
  }
  try {
    const notes = await emptyPurgeTrash(home);
    const finished = await recoverLocked(home, config);
    return finished ? [...notes, finished] : notes;
  } finally {
    await lock.release();
  }
}

/** Finishes or undoes the journal's rollback (rollback lock held); a notice, or null without a journal. */
async function recoverLocked(home: string, config: SkillgateConfig): Promise<Text | null> {
  const journal = await readJournal(home);
  if (journal === null) return null;
  if (journal === "corrupt") return t("recovery.rollbackJournalCorrupt", { file: journalPath(home) });
  if (journal.phase === "extracting") {
    const skills = homePaths(home).skills;
    await fs.rm(path.join(skills, journal.staging), { recursive: true, force: true });
    await fs.rm(path.join(skills, journal.side), { recursive: true, force: true });
    await clearJournal(home);
    return t("recovery.rollbackUndone", { id: journal.target });
  }
  if (journal.phase === "swapping") {
    try {
      await finishSwap(home, journal);
    } catch (error) {
      await undoSwap(home, journal);
      return t("recovery.rollbackUnfinished", { id: journal.target, cause: errorCause(error) });
    }
    journal.phase = "committed";
    await writeJournal(home, journal);
  }
  const target = await resolveSnapshot(home, journal.target);
  const cron = target ? await restoreCronLinks(home, target) : undefined;
  await finishCleanup(home, config, journal, true);
  const parts = cron ? cronParts(cron) : [];
  return parts.length > 0
    ? t("recovery.rollbackCompletedCron", { id: journal.target, parts: list(parts) })
    : t("recovery.rollbackCompleted", { id: journal.target });
}

function rollbackMessage(id: string, cron: CronRestoreResult): Text {
  const parts = cronParts(cron);
  return parts.length > 0
    ? t("cmd.rollback.snapshotDoneCron", { id, parts: list(parts) })
    : t("cmd.rollback.snapshotDone", { id });
}
