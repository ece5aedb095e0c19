/**
 * Archive and restore, never delete. Packages go flat to `.archive/<name>` (the layout Hermes reads, see
 * `archive-layout.ts`), with a `-YYYYMMDDHHMMSS` suffix only when that place is taken; the category is
 * recorded in `.archive_origins.json`, for that very archive, so `restore` can put a skill back where it
 * lived (an archive without its own record takes the category from the ledger, or restores flat). Every name
 * `listArchived` reports is accepted by `restoreSkill`. Both moves are ledgered and keep `.usage.json`
 * (state, archived_at) and `.curator_suppressed` in step.
 */
import { createHash } from "node:crypto";
import { promises as fs, lstatSync, mkdirSync, renameSync } from "node:fs";
import path from "node:path";
import type { SkillgateConfig } from "../config/config.js";
import { homePaths } from "../config/home.js";
import { CuratorError, errorCause } from "../core/errors.js";
import { checkWriteFence } from "../core/fence.js";
import { isoTimestamp, pathExists } from "../core/fsutil.js";
import { list, type Text, t } from "../core/i18n/messages.js";
import { meterFor, type ProgressSink } from "../core/progress.js";
import {
  destinationRefusal,
  isSymlink,
  isWithin,
  MAX_SKILL_MD_BYTES,
  type MoveContext,
  moveRefusal,
  readContained,
  realPathOf,
} from "../skills/containment.js";
import type { SkillEntry, SkillLibrary } from "../skills/types.js";
import { emptyRecord, type UsageMap, UsageStore } from "../skills/usage.js";
import {
  type ArchiveOrigin,
  archiveFolderIdentity,
  flatArchiveDestination,
  listArchiveNames,
  migrateArchiveLayout,
  originApplies,
  readArchiveOriginRecords,
  skillMdDigest,
  updateArchiveOrigins,
} from "./archive-layout.js";
import { type LedgerArchiveMove, lastArchiveMoves, ledgerMoveApplies } from "./archive-ledger-origin.js";
import { type BlobBatch, newBlobBatch } from "./blobs.js";
import { crashPoint } from "./journal.js";
import {
  appendBuiltEntries,
  buildEntry,
  type Capture,
  captureState,
  captureStateSync,
  type LedgerActor,
  type LedgerEntry,
  type LedgerFile,
  readEntries,
} from "./ledger.js";
import { type MoveIntent, MoveJournal } from "./move-journal.js";
import {
  addSuppressedMany,
  classify,
  frontmatterName,
  loadProvenance,
  type Provenance,
  removeSuppressed,
} from "./provenance.js";

/** How a surface spells a command (`skillgate curator unpin` or `/curator unpin`). */
export type CommandPrefix = (path: string[]) => string;

/** The terminal spelling, used when a caller gives none. */
export const terminalPrefix: CommandPrefix = (parts) => `skillgate ${parts.join(" ")}`;

/** What archive and restore need. */
export interface MoveOptions {
  home: string;
  config: SkillgateConfig;
  library: SkillLibrary;
  actor: LedgerActor;
  now?: Date;
  commandPrefix?: CommandPrefix;
  /** Preloaded provenance (the run passes it to avoid re-reading per skill). */
  provenance?: Provenance;
  /** Extra ledger evidence (e.g. `absorbed_into` from the consolidation pass). */
  evidence?: Record<string, unknown>;
  /** Counted progress of batches (`archiveMany`). */
  meter?: ProgressSink;
}

/** One archived skill package under `.archive/`. */
export interface ArchivedItem {
  /** Path under `.archive/`, POSIX separators: the name `list-archived` prints and `restore` accepts. */
  archivedAs: string;
  /** The skill's frontmatter name (or its original folder name). */
  skillName: string;
  /** Where `restore` puts it back, relative to skills/ (`category/name` or `name`). */
  restoreTo: string;
  category: string | null;
  dir: string;
  /** The `YYYYMMDDHHMMSS` collision suffix, when there is one. */
  stamp: string | null;
  mtimeMs: number;
}

/** Result of an archive. */
export interface ArchiveResult {
  name: string;
  /** Where the skill lived, relative to skills/. */
  from: string;
  /** Its path under `.archive/`. */
  archivedAs: string;
  dest: string;
  /** sha256 of the archived `SKILL.md`: the origin record applies to this package only. */
  skillMd?: string;
}

/** Result of a restore. */
export interface RestoreResult {
  name: string;
  archivedAs: string;
  /** Relative to skills/. */
  restoredTo: string;
  dest: string;
  /** True when the original place was taken and the skill went to `skills/<name>` instead. */
  flattened: boolean;
}

const STAMP_SUFFIX = /^(.+)-(\d{14})(?:-(\d+))?$/;

function refuse(message: Text, code = "curator.refused"): CuratorError {
  return new CuratorError("archive", message, { code });
}

/** Rejects names that could escape the library: empty, absolute, `..` segments, backslashes, NUL. */
export function assertSafeName(name: string, what = "skill name"): void {
  const bad =
    name.trim() === "" ||
    name.includes("\0") ||
    name.includes("\\") ||
    path.posix.isAbsolute(name) ||
    path.win32.isAbsolute(name) ||
    name.split("/").some((part) => part === ".." || part === "." || part === "");
  if (bad)
    throw refuse(
      t(what === "skill path" ? "cmd.archive.badPath" : "cmd.archive.badName", { name }),
      "curator.bad_name",
    );
}

function stampOf(now: Date): string {
  return now.toISOString().replace(/[-:T]/g, "").replace(/\..*$/, "");
}

/**
 * Moves a skill folder, copying across devices when a rename cannot. A folder that is a symlink is moved
 * as a link, never the folder behind it: a new link to the same target is made at `to` (a relative
 * target is recomputed, so it still resolves from there) and the old link removed.
 */
async function moveDir(from: string, to: string): Promise<void> {
  await fs.mkdir(path.dirname(to), { recursive: true });
  if (isSymlink(from)) {
    await fs.symlink(movedLinkText(from, to, await fs.readlink(from)), to);
    await fs.unlink(from);
    return;
  }
  try {
    await fs.rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
    await fs.cp(from, to, { recursive: true, errorOnExist: true, force: false, verbatimSymlinks: true });
    await fs.rm(from, { recursive: true, force: true });
  }
}

/** The text a link at `from` holding `link` gets when `moveDir` moves it to `to` (it still resolves). */
function movedLinkText(from: string, to: string, link: string): string {
  const target = path.resolve(path.dirname(from), link);
  return path.isAbsolute(link) ? target : path.relative(path.dirname(to), target);
}

/**
 * The capture of a package after `moveDir` moved it from `from` to `to`: the same files under the new
 * path, and a moved link (the package itself a link) with the text `moveDir` gives it.
 */
function movedFiles(before: readonly LedgerFile[], from: string, to: string): LedgerFile[] {
  return before.map((file) => {
    const moved = to + file.path.slice(from.length);
    if ("link" in file && file.path === from)
      return { path: moved, link: movedLinkText(from, to, file.link) };
    return { ...file, path: moved };
  });
}

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
 * Archives a live skill entry (the caller found it): a batch of one, journaled before it moves (see
 * `archiveMany`). Refusals throw `CuratorError`. The move, the usage record (state archived,
 * archived_at), the origin and the suppression list are recorded with one ledger entry.
 */
export async function archiveEntry(entry: SkillEntry, opts: MoveOptions): Promise<ArchiveResult> {
  const store = new UsageStore(homePaths(opts.home).skills);
  const done = await archiveBatch([{ entry }], { ...opts, usage: await store.read() });
  const failure = done.failures[0];
  if (failure) throw failure.error;
  return done.archived[0] as ArchiveResult;
}

function markArchived(records: UsageMap, name: string, now: Date): void {
  const record = records[name] ?? emptyRecord();
  record.state = "archived";
  record.archived_at = isoTimestamp(now);
  records[name] = record;
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
interface BatchOutcome {
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

async function archiveBatch(
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

/**
 * `moveDir` with a synchronous rename first (the common case: a real folder on the same file system).
 * `linked` is what the caller's lstat found; `made` holds the parent folders already created.
 */
async function moveDirFast(from: string, to: string, linked: boolean, made: Set<string>): Promise<void> {
  if (linked) return moveDir(from, to);
  const parent = path.dirname(to);
  try {
    if (!made.has(parent)) {
      mkdirSync(parent, { recursive: true });
      made.add(parent);
    }
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
    await moveDir(from, to);
  }
}

/** Archives the skill called `name`: finds it, refuses what the reference refuses, moves it, ledgers it. */
export async function archiveSkill(name: string, opts: MoveOptions): Promise<ArchiveResult> {
  assertSafeName(name);
  const entry = await opts.library.find(name);
  if (!entry) throw refuse(t("cmd.op.notFound", { name }), "curator.not_found");
  return archiveEntry(entry, opts);
}

/**
 * What `listArchived` consults when no origin record belongs to an archive: the ledger's last moves into
 * each archive folder and the usage records, each read once, on first need.
 */
interface OriginFallback {
  moves: () => Promise<Map<string, LedgerArchiveMove>>;
  usage: () => Promise<Readonly<UsageMap>>;
}

function originFallback(home: string): OriginFallback {
  let moves: Promise<Map<string, LedgerArchiveMove>> | undefined;
  let usage: Promise<Readonly<UsageMap>> | undefined;
  return {
    moves: () => {
      moves ??= readEntries(home).then(lastArchiveMoves, () => new Map());
      return moves;
    },
    usage: () => {
      usage ??= new UsageStore(homePaths(home).skills).read().catch(() => ({}));
      return usage;
    },
  };
}

/**
 * Where a flat archive folder's package lived, relative to skills/, or null when nothing says so. In
 * order: the origin record, when it belongs to this very archive (its folder identity and `SKILL.md`
 * digest match); else the ledger's line that moved this package into the folder (see
 * `archive-ledger-origin.ts`); else a record from before the identity was kept whose digest matches.
 */
async function archivedFrom(
  archivedAs: string,
  dir: string,
  skillName: string,
  origin: ArchiveOrigin | undefined,
  digest: () => string | undefined,
  fallback: OriginFallback,
): Promise<string | null> {
  const applies = origin !== undefined && originApplies(origin, digest, () => archiveFolderIdentity(dir));
  if (applies && origin.folder !== undefined) return origin.from;
  const move = (await fallback.moves()).get(archivedAs);
  if (move && ledgerMoveApplies(move, digest(), (await fallback.usage())[skillName]?.archived_at))
    return move.from;
  return applies ? origin.from : null;
}

async function readArchivedItem(
  archiveRoot: string,
  dir: string,
  origins: Readonly<Record<string, ArchiveOrigin>>,
  fallback: OriginFallback,
): Promise<ArchivedItem> {
  const archivedAs = path.relative(archiveRoot, dir).split(path.sep).join("/");
  const base = path.posix.basename(archivedAs);
  const match = STAMP_SUFFIX.exec(base);
  const original = match?.[1] ?? base;
  const parent = path.posix.dirname(archivedAs);
  let text: string | undefined;
  let bytes: Buffer | undefined;
  try {
    // The containment rule: SKILL.md is read only when it resolves inside the package.
    bytes = readContained(dir, path.join(dir, "SKILL.md"), {
      label: "SKILL.md",
      skill: original,
      limit: MAX_SKILL_MD_BYTES,
    }).bytes;
    text = bytes.toString("utf8");
  } catch {
    text = undefined;
  }
  const skillName = (text !== undefined ? frontmatterName(text) : undefined) ?? original;
  // Flat (Hermes' layout): where it came from is recorded by skillgate or in the ledger (see `archivedFrom`).
  const digest = () => (bytes ? createHash("sha256").update(bytes).digest("hex") : undefined);
  const recorded =
    parent === "."
      ? await archivedFrom(archivedAs, dir, skillName, origins[archivedAs], digest, fallback)
      : null;
  const from = recorded !== null && path.posix.basename(recorded) === original ? recorded : null;
  const restoreTo = from ?? (parent === "." ? original : `${parent}/${original}`);
  const category = path.posix.dirname(restoreTo);
  const stat = await fs.stat(dir);
  return {
    archivedAs,
    skillName,
    restoreTo,
    category: category === "." ? null : (category.split("/")[0] ?? null),
    dir,
    stamp: match?.[2] ?? null,
    mtimeMs: stat.mtimeMs,
  };
}

/**
 * Every archived skill package (a folder holding SKILL.md) under `.archive/`, sorted by path. An archived
 * link to a skill folder (a linked skill that was archived) is a package too; other links are not
 * followed. An `.archive` that resolves outside the library holds nothing skillgate will touch.
 */
export async function listArchived(home: string): Promise<ArchivedItem[]> {
  const paths = homePaths(home);
  const root = paths.archive;
  const origins = await readArchiveOriginRecords(home);
  const fallback = originFallback(home);
  const items: ArchivedItem[] = [];
  const realArchive = realPathOf(root);
  const realSkills = realPathOf(paths.skills);
  if (realArchive === undefined || realSkills === undefined || !isWithin(realSkills, realArchive))
    return items;
  const walk = async (dir: string): Promise<void> => {
    let children: import("node:fs").Dirent[];
    try {
      children = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    if (dir !== root && children.some((child) => child.isFile() && child.name === "SKILL.md")) {
      items.push(await readArchivedItem(root, dir, origins, fallback));
      return;
    }
    for (const child of children) {
      const full = path.join(dir, child.name);
      if (child.isDirectory()) await walk(full);
      else if (child.isSymbolicLink() && (await isSkillFolder(full)))
        items.push(await readArchivedItem(root, full, origins, fallback));
    }
  };
  await walk(root);
  return items.sort((a, b) => (a.archivedAs < b.archivedAs ? -1 : a.archivedAs > b.archivedAs ? 1 : 0));
}

/** True when `target` (followed) is a folder holding a SKILL.md. */
async function isSkillFolder(target: string): Promise<boolean> {
  const stat = await fs.stat(path.join(target, "SKILL.md")).catch(() => undefined);
  return stat?.isFile() === true;
}

function newestFirst(a: ArchivedItem, b: ArchivedItem): number {
  const byStamp = (b.stamp ?? "").localeCompare(a.stamp ?? "");
  return byStamp !== 0 ? byStamp : b.mtimeMs - a.mtimeMs;
}

/**
 * Picks the archived package `name` refers to: its exact `.archive/` path; else the one folder with
 * that exact name (several in different categories → refused as ambiguous); else, newest first, a
 * timestamped copy `name-YYYYMMDDHHMMSS` or a package whose skill is called `name`. `name-foo` never
 * matches `name`.
 */
export function pickArchived(
  items: ArchivedItem[],
  name: string,
  prefix: CommandPrefix,
): ArchivedItem | undefined {
  const exactPath = items.find((item) => item.archivedAs === name);
  if (exactPath) return exactPath;
  // The `category/name` an earlier (nested) layout printed still names the package it moved to.
  if (name.includes("/")) {
    const base = path.posix.basename(name);
    const origin = `${path.posix.dirname(name)}/${STAMP_SUFFIX.exec(base)?.[1] ?? base}`;
    const byOrigin = items.filter((item) => item.restoreTo === origin);
    const sameFolder = byOrigin.find((item) => path.posix.basename(item.archivedAs) === base);
    if (sameFolder || byOrigin.length > 0) return sameFolder ?? byOrigin.sort(newestFirst)[0];
  }
  const exactDir = items.filter((item) => path.posix.basename(item.archivedAs) === name);
  if (exactDir.length > 1) {
    const choices = list(exactDir.map((item) => item.archivedAs));
    const command = prefix(["curator", "restore", exactDir[0]?.archivedAs ?? name]);
    throw refuse(t("cmd.restore.ambiguous", { name, choices, command }), "curator.ambiguous");
  }
  if (exactDir[0]) return exactDir[0];
  const loose = items.filter((item) => {
    const base = path.posix.basename(item.archivedAs);
    return STAMP_SUFFIX.exec(base)?.[1] === name || item.skillName === name;
  });
  return loose.sort(newestFirst)[0];
}

/** Why a restore of `skillName` must not happen, or null. */
function restoreRefusal(skillName: string, provenance: Provenance, config: SkillgateConfig): Text | null {
  const name = skillName;
  if (provenance.hub.has(name)) return t("restore.refused.hub", { name });
  if (provenance.bundled.has(name) && !config.curator.pruneBuiltins)
    return t("restore.refused.bundled", { name });
  if (provenance.protected.has(name)) return t("restore.refused.protected", { name });
  return null;
}

/**
 * Restores an archived skill to where it lived (its category kept); when that place is taken it goes to
 * `skills/<name>`, and when that is taken too the restore is refused. State becomes active, archived_at is
 * cleared, the name leaves `.curator_suppressed`, and the move is ledgered.
 */
export async function restoreSkill(name: string, opts: MoveOptions): Promise<RestoreResult> {
  assertSafeName(name);
  const paths = homePaths(opts.home);
  const prefix = opts.commandPrefix ?? terminalPrefix;
  if (!(await pathExists(paths.archive))) throw refuse(t("cmd.restore.noArchive"), "curator.not_found");
  await migrateArchiveLayout(opts.home, opts.now);
  const item = pickArchived(await listArchived(opts.home), name, prefix);
  if (!item) {
    throw refuse(
      t("cmd.restore.notArchived", { name, command: prefix(["curator", "list-archived"]) }),
      "curator.not_found",
    );
  }
  const provenance = opts.provenance ?? (await loadProvenance(opts.home, []));
  const refusal = restoreRefusal(item.skillName, provenance, opts.config);
  if (refusal) throw refuse(refusal);
  const live = await opts.library.find(item.skillName);
  if (live) {
    throw refuse(t("cmd.restore.live", { name: item.skillName, dir: live.dir }));
  }
  let dest = path.join(paths.skills, ...item.restoreTo.split("/"));
  let flattened = false;
  if (await pathExists(dest)) {
    const flat = path.join(paths.skills, path.posix.basename(item.restoreTo));
    if (await pathExists(flat)) throw refuse(t("cmd.restore.destination", { dest, flat }));
    dest = flat;
    flattened = true;
  }
  const outside = destinationRefusal(paths.skills, dest, item.skillName);
  if (outside) throw refuse(outside, "curator.outside_library");
  await moveAnnounced(
    restoreIntent(item, dest, await restoreLedgerEntry(item, dest, opts), opts),
    opts,
    async () => {
      await new UsageStore(paths.skills).update((records) => {
        const record = records[item.skillName] ?? emptyRecord();
        record.state = "active";
        record.archived_at = null;
        records[item.skillName] = record;
      });
      await updateArchiveOrigins(opts.home, { [item.archivedAs]: null });
      await removeSuppressed(opts.home, item.skillName);
    },
  );
  opts.library.invalidate();
  const restoredTo = path.relative(paths.skills, dest).split(path.sep).join("/");
  return { name: item.skillName, archivedAs: item.archivedAs, restoredTo, dest, flattened };
}

/** The ledger line of restoring `item` to `dest`, captured before the move; null when it cannot be. */
async function restoreLedgerEntry(
  item: ArchivedItem,
  dest: string,
  opts: MoveOptions,
): Promise<LedgerEntry | null> {
  if (!opts.config.skills.ledger) return null;
  try {
    const before = await captureState(opts.home, [item.dir]);
    const usageBefore = await new UsageStore(homePaths(opts.home).skills).readRecord(item.skillName);
    const usageAfter = { ...(usageBefore ?? emptyRecord()), state: "active" as const, archived_at: null };
    return buildEntry({
      actor: opts.actor,
      action: "restore",
      skill: item.skillName,
      evidence: { archived_as: item.archivedAs, ...(opts.evidence ?? {}) },
      before: before.files,
      after: movedFiles(before.files, item.dir, dest),
      roots: [item.dir, dest],
      usage_before: usageBefore,
      usage_after: usageAfter,
    });
  } catch {
    // The ledger fails open: an audit problem never blocks the restore.
    return null;
  }
}

/** The journal intent of restoring `item` to `dest`. */
function restoreIntent(
  item: ArchivedItem,
  dest: string,
  entry: LedgerEntry | null,
  opts: MoveOptions,
): MoveIntent {
  const skills = homePaths(opts.home).skills;
  const relative = (file: string) => path.relative(skills, file).split(path.sep).join("/");
  return {
    kind: "restore",
    skill: item.skillName,
    from: relative(item.dir),
    to: relative(dest),
    archivedAs: item.archivedAs,
    suppressed: true,
    at: isoTimestamp(opts.now ?? new Date()),
    entry,
  };
}

/**
 * One journaled move: the intent is announced, the package moves, `record` writes the files that say so
 * and the ledger line follows; the journal goes once all of it is written (and stays for recovery when a
 * write failed). A move that fails leaves the package where it was and nothing to recover.
 */
async function moveAnnounced(
  intent: MoveIntent,
  opts: MoveOptions,
  record: () => Promise<void>,
): Promise<void> {
  const skills = homePaths(opts.home).skills;
  await checkWriteFence(opts.home, t(`fence.what.${intent.kind}`, { skill: intent.skill }));
  const journal = await MoveJournal.open(opts.home, opts.config);
  let recorded = false;
  try {
    await journal.announce([intent]);
    await crashPoint(`${intent.kind}:announced`);
    // Asked again right before the move: opening and writing the journal may have outlived the lead.
    await checkWriteFence(opts.home, t(`fence.what.${intent.kind}`, { skill: intent.skill }));
    try {
      await moveDir(path.join(skills, intent.from), path.join(skills, intent.to));
    } catch (error) {
      recorded = true;
      throw error;
    }
    await crashPoint(`${intent.kind}:moved`);
    await record();
    // The ledger fails open: an audit problem never fails the move; the journal keeps the line instead.
    recorded = intent.entry
      ? await appendBuiltEntries(opts.home, opts.config, [JSON.stringify(intent.entry)]).then(
          () => true,
          () => false,
        )
      : true;
  } finally {
    await (recorded ? journal.close() : journal.keep());
  }
}
