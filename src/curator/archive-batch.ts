/**
 * Archiving many skills at once (the automatic pass, `prune`, `apply`): written ahead per chunk in the
 * move journal, moved with one rename each, and group-committed (ledger lines, origins), with the usage
 * and suppression files written once at the end.
 */

import { lstatSync } from "node:fs";
import path from "node:path";
import type { SkillgateConfig } from "../config/config.js";
import { homePaths } from "../config/home.js";
import { errorCause } from "../core/errors.js";
import { checkWriteFence } from "../core/fence.js";
import { isoTimestamp } from "../core/fsutil.js";
import { type Text, t } from "../core/i18n/messages.js";
import { meterFor } from "../core/progress.js";
import { type MoveContext, moveRefusal, realPathOf } from "../skills/containment.js";
import type { SkillEntry } from "../skills/types.js";
import { UsageStore } from "../skills/usage.js";
import { emptyRecord, type UsageMap } from "../skills/usage-record.js";
import {
  type ArchiveOrigin,
  flatArchiveDestination,
  listArchiveNames,
  migrateArchiveLayout,
  skillMdDigest,
  updateArchiveOrigins,
} from "./archive-layout.js";
import {
  type ArchiveResult,
  assertSafeName,
  type CommandPrefix,
  type MoveOptions,
  moveDirFast,
  movedFiles,
  refuse,
  stampOf,
  terminalPrefix,
} from "./archive-move.js";
import { markArchived } from "./archive-records.js";
import { type BlobBatch, newBlobBatch } from "./blobs.js";
import { crashPoint } from "./journal.js";
import {
  appendBuiltEntries,
  buildEntry,
  type Capture,
  captureState,
  captureStateSync,
  type LedgerEntry,
} from "./ledger.js";
import { type MoveIntent, MoveJournal } from "./move-journal.js";
import { addSuppressedMany, classify, loadProvenance, type Provenance } from "./provenance.js";

/** Why the curator may not archive this skill, or null when it may. */
export function archiveRefusal(
  entry: SkillEntry,
  provenance: Provenance,
  config: SkillgateConfig,
  pinned: boolean,
  prefix: CommandPrefix,
): Text | null {
  const name = entry.name;
  const verdict = classify(name, entry, undefined, true, provenance, config);
  if (verdict.kind === "external") return t("archive.refused.external", { name });
  if (verdict.kind === "protected") return t("archive.refused.protected", { name });
  if (verdict.kind === "hub") return t("archive.refused.hub", { name });
  if (verdict.kind === "bundled" && !verdict.eligible) return t("archive.refused.bundled", { name });
  if (pinned) return t("archive.refused.pinned", { name, command: prefix(["curator", "unpin", name]) });
  return null;
}

/**
 * Skills moved per group commit in `archiveMany`: one journal announcement (with its fsync), one ledger
 * append and one archive-origins write each.
 */
const ARCHIVE_CHUNK = 256;

/** Skills prepared between two yields to the event loop (and progress ticks) in `archiveMany`. */
const YIELD_EVERY = 64;

/** What `archiveMany` adds to a plain `MoveOptions`. */
export interface ArchiveManyOptions extends MoveOptions {
  /** More record changes made in the batch's one `.usage.json` write (the curator's state transitions). */
  alsoUpdateUsage?: (records: UsageMap) => void;
  /**
   * The usage records the caller has just read (for the pin check and the ledger's `usage_before`);
   * read here when absent. The one write at the end, under the file's lock, changes the shared parse in
   * place when the file is still as it was read, and reads the file again otherwise.
   */
  usage?: Readonly<UsageMap>;
  /**
   * Asks the batch to stop at its next safe point (between two packages): what moved so far is
   * recorded, the rest stays where it is.
   */
  signal?: AbortSignal;
}

/** A package ready to move: its announced intent and where it goes. */
interface PreparedMove {
  intent: MoveIntent;
  /** `JSON.stringify(intent.entry)`, made once for the journal and the ledger. */
  entryText: string | null;
  /** The package's folder (or link) now. */
  src: string;
  linked: boolean;
  result: ArchiveResult;
}

/** A skill a batch could not archive: why, in English (`--json`, reports) and as a text for the reader. */
export interface MoveFailure {
  name: string;
  error: string;
  text: Text;
}

/** What a batch did; failures keep their errors (`archiveEntry` throws them). */
export interface BatchOutcome {
  archived: ArchiveResult[];
  failures: { name: string; error: Error }[];
}

/**
 * Archives many live entries (the automatic pass, `prune`) in O(entries) with few system calls, written
 * ahead: per chunk, every package is checked and captured for the ledger (synchronous reads, new blobs
 * written once), the chunk's intents are announced durably in the move journal, then each package moves
 * with one rename, and the chunk's ledger lines and archive origins are group-committed. The usage records
 * are read once for the pin check and written once at the end — with `alsoUpdateUsage`'s changes, and
 * even when some archives fail — and the journal is removed once every record is written. A crash at any
 * point leaves each package whole, where it was or archived, and the journal lets recovery write what
 * the archived ones lack. Failures are collected, not thrown.
 */
export async function archiveMany(
  entries: { entry: SkillEntry; evidence?: Record<string, unknown> }[],
  opts: ArchiveManyOptions,
): Promise<{ archived: ArchiveResult[]; failures: MoveFailure[] }> {
  const done = await archiveBatch(entries, opts);
  return {
    archived: done.archived,
    failures: done.failures.map(({ name, error }) => ({
      name,
      error: error.message,
      text: errorCause(error),
    })),
  };
}

/** `archiveMany` keeping each failure's error (`archiveEntry` throws it). */
export async function archiveBatch(
  entries: { entry: SkillEntry; evidence?: Record<string, unknown> }[],
  opts: ArchiveManyOptions,
): Promise<BatchOutcome> {
  const store = new UsageStore(homePaths(opts.home).skills);
  const now = opts.now ?? new Date();
  await migrateArchiveLayout(opts.home, now);
  const usage = opts.usage ?? (await store.readShared());
  const prefix = opts.commandPrefix ?? terminalPrefix;
  const provenance =
    opts.provenance ??
    (await loadProvenance(
      opts.home,
      entries.map((item) => item.entry),
    ));
  const skillsDir = homePaths(opts.home).skills;
  const batch: BatchContext = {
    usage,
    now,
    at: isoTimestamp(now),
    prefix,
    provenance,
    // Each package has a SKILL.md and often a few more files: the blob folder is listed when small.
    blobs: newBlobBatch(opts.home, 2 * entries.length),
    archiveNames: listArchiveNames(homePaths(opts.home).archive, entries.length),
    move: { realRoot: realPathOf(skillsDir) ?? skillsDir, parents: new Map() },
    ledgerOn: opts.config.skills.ledger,
    ts: "",
  };
  const archiveRoots = new Set<string>();
  const archived: ArchiveResult[] = [];
  const failures: BatchOutcome["failures"] = [];
  const suppress: string[] = [];
  const tick = meterFor(opts.meter, "archiving", entries.length, "skills");
  const stopped = () => opts.signal?.aborted === true;
  const journal = await MoveJournal.open(opts.home, opts.config);
  // False once a record of the moves could not be written: the journal then stays for recovery.
  let recorded = true;
  // The last chunk's commit, left running while the usage and suppression files are written.
  let pending: Promise<boolean> | undefined;
  try {
    for (let start = 0; start < entries.length && !stopped(); start += ARCHIVE_CHUNK) {
      const end = Math.min(entries.length, start + ARCHIVE_CHUNK);
      batch.ts = isoTimestamp(new Date());
      const ready: PreparedMove[] = [];
      for (let at = start; at < end && !stopped(); at++) {
        const { entry, evidence } = entries[at] as (typeof entries)[number];
        if (at > start && at % YIELD_EVERY === 0) {
          tick(at);
          await new Promise((resolve) => setImmediate(resolve));
        }
        try {
          ready.push(
            await prepareArchive(entry, opts, batch, { ...(opts.evidence ?? {}), ...(evidence ?? {}) }),
          );
        } catch (error) {
          failures.push({ name: entry.name, error: error as Error });
        }
      }
      // A replica that no longer leads the home writes nothing more: what moved so far is recorded.
      await checkWriteFence(opts.home, t("fence.what.archiveBatch"));
      await journal.announce(
        ready.map((item) => item.intent),
        ready.map((item) => item.entryText),
      );
      await crashPoint("archive:announced");
      // Asked again right before the moves: writing the journal may have outlived the lead.
      await checkWriteFence(opts.home, t("fence.what.archiveBatch"));
      const moved: PreparedMove[] = [];
      try {
        for (const item of ready) {
          if (stopped()) break;
          try {
            await moveDirFast(item.src, item.result.dest, item.linked, archiveRoots);
            moved.push(item);
            archived.push(item.result);
            if (item.intent.suppressed) suppress.push(item.intent.skill);
          } catch (error) {
            failures.push({ name: item.result.name, error: error as Error });
          }
          await crashPoint("archive:moved");
        }
      } finally {
        pending = commitChunk(opts.home, opts.config, moved);
      }
      if (end < entries.length) {
        recorded = (await pending) && recorded;
        pending = undefined;
      }
      tick(end);
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    // Separate files under separate locks: written side by side, each waited for.
    const writes: Promise<unknown>[] = [
      pending ?? Promise.resolve(true),
      addSuppressedMany(opts.home, suppress),
    ];
    if (archived.length > 0 || opts.alsoUpdateUsage)
      writes.push(
        store.update(
          (records) => {
            opts.alsoUpdateUsage?.(records);
            for (const result of archived) markArchived(records, result.name, now);
          },
          { reuseShared: true },
        ),
      );
    const settled = await Promise.allSettled(writes);
    opts.library.invalidate();
    const [committed] = settled;
    recorded &&= committed?.status === "fulfilled" && committed.value === true;
    if (recorded && settled.every((result) => result.status === "fulfilled")) await journal.close();
    else await journal.keep();
    throwFirstRejection(settled);
  }
  return { archived, failures };
}

/**
 * One chunk's group commit: its archive origins (an error is thrown) and its ledger lines (a failure to
 * ledger never undoes a move), written side by side since they are separate files. Resolves false when
 * the ledger lines could not be written (the journal keeps them for recovery).
 */
async function commitChunk(home: string, config: SkillgateConfig, moved: PreparedMove[]): Promise<boolean> {
  const origins: Record<string, ArchiveOrigin> = {};
  const lines: string[] = [];
  for (const item of moved) {
    origins[item.result.archivedAs] = { from: item.result.from, skillMd: item.result.skillMd };
    if (item.entryText !== null) lines.push(item.entryText);
  }
  const [written, ledgered] = await Promise.allSettled([
    updateArchiveOrigins(home, origins),
    appendBuiltEntries(home, config, lines),
  ]);
  await crashPoint("archive:ledgered");
  throwFirstRejection([written]);
  return ledgered.status === "fulfilled";
}

/** Rethrows the reason of the first rejected result, if any. */
function throwFirstRejection(results: PromiseSettledResult<unknown>[]): void {
  for (const result of results) if (result.status === "rejected") throw result.reason;
}

/** What the packages of one batch share. */
interface BatchContext {
  usage: Readonly<UsageMap>;
  now: Date;
  /** `now` as the usage records and the journal write it. */
  at: string;
  prefix: CommandPrefix;
  provenance: Provenance;
  blobs: BlobBatch;
  /** The archive's names listed when the batch began, plus those it took (see `listArchiveNames`). */
  archiveNames: Set<string> | undefined;
  /** The library's real path and the parent folders resolved so far in this batch. */
  move: MoveContext;
  ledgerOn: boolean;
  /** The time stamp of the current chunk's ledger lines. */
  ts: string;
}

/**
 * One package of `archiveMany`, before it moves: refusals, destination, the ledger capture (synchronous;
 * a linked package or a file too large for it is captured the streaming way) and its intent. A capture
 * that fails leaves the package to move unledgered, as the ledger fails open.
 */
async function prepareArchive(
  entry: SkillEntry,
  opts: MoveOptions,
  batch: BatchContext,
  extraEvidence: Record<string, unknown>,
): Promise<PreparedMove> {
  const paths = homePaths(opts.home);
  const pinned = batch.usage[entry.name]?.pinned === true;
  const refusal = archiveRefusal(entry, batch.provenance, opts.config, pinned, batch.prefix);
  if (refusal) throw refuse(refusal);
  assertSafeName(entry.relPath, "skill path");
  // One look at the folder: gone since the plan (kept, reported), a link (moved as a link), or a folder.
  let linked: boolean;
  try {
    linked = lstatSync(entry.dir).isSymbolicLink();
  } catch {
    throw refuse(t("cmd.archive.moved", { name: entry.name, path: entry.relPath }), "curator.not_found");
  }
  // The containment rule: nothing outside the library is ever moved.
  const outside = moveRefusal(paths.skills, entry.dir, entry.name, { ...batch.move, linked });
  if (outside) throw refuse(outside, "curator.outside_library");
  const dest = flatArchiveDestination(
    paths.archive,
    path.posix.basename(entry.relPath),
    stampOf(batch.now),
    batch.archiveNames,
  );
  const archivedAs = path.relative(paths.archive, dest).split(path.sep).join("/");
  const evidence = { archived: true, archived_as: archivedAs, ...extraEvidence };
  const ledgerEntry = batch.ledgerOn
    ? await archiveLedgerEntry(entry, dest, { linked, evidence }, opts, batch)
    : null;
  // The digest of SKILL.md fingerprints the origin record; the capture has usually hashed it already.
  const skillMdPath = path.join(entry.dir, "SKILL.md");
  const captured = ledgerEntry?.before.find((file) => file.path === skillMdPath);
  const skillMd = captured && "sha256" in captured ? captured.sha256 : skillMdDigest(entry.dir);
  const result = { name: entry.name, from: entry.relPath, archivedAs, dest, skillMd };
  const intent: MoveIntent = {
    kind: "archive",
    skill: entry.name,
    from: path.relative(paths.skills, entry.dir).split(path.sep).join("/"),
    to: path.relative(paths.skills, dest).split(path.sep).join("/"),
    archivedAs,
    skillMd,
    suppressed: batch.provenance.bundled.has(entry.name),
    at: batch.at,
    entry: ledgerEntry,
  };
  return {
    intent,
    entryText: ledgerEntry ? JSON.stringify(ledgerEntry) : null,
    src: entry.dir,
    linked,
    result,
  };
}

/** The ledger line of archiving `entry` to `dest`, captured before the move; null when the capture fails. */
async function archiveLedgerEntry(
  entry: SkillEntry,
  dest: string,
  { linked, evidence }: { linked: boolean; evidence: Record<string, unknown> },
  opts: MoveOptions,
  batch: BatchContext,
): Promise<LedgerEntry | null> {
  let before: Capture | undefined;
  try {
    // The destination was just found free: it is recorded as a root but not looked at again.
    if (!linked) before = captureStateSync(opts.home, [entry.dir, dest], batch.blobs, ["dir", "absent"]);
  } catch {
    before = undefined;
  }
  try {
    before ??= { ...(await captureState(opts.home, [entry.dir])), roots: [entry.dir, dest] };
  } catch {
    return null;
  }
  const captured = before;
  const usageBefore = batch.usage[entry.name] ?? null;
  const usageAfter = structuredClone(usageBefore ?? emptyRecord());
  usageAfter.state = "archived";
  usageAfter.archived_at = batch.at;
  return buildEntry(
    {
      actor: opts.actor,
      action: "archive",
      skill: entry.name,
      evidence,
      before: captured.files,
      after: movedFiles(captured.files, entry.dir, dest),
      roots: captured.roots,
      usage_before: usageBefore ? structuredClone(usageBefore) : null,
      usage_after: usageAfter,
    },
    batch.ts,
  );
}
