/**
 * Whole-tree rollback to a snapshot, crash-safe. The archive is verified member by member, extracted
 * into `skills/.rollback-staging-<id>/`, and swapped in by renaming top-level entries through a side
 * dir, with a journal written before each phase. A process killed at any instant leaves a journal that
 * `recoverInterruptedRollback` uses to finish the swap (or undo an unfinished extraction), so the
 * library ends up exactly as before or exactly as after.
 */
import {
  createReadStream,
  createWriteStream,
  promises as fs,
  linkSync,
  mkdirSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { Parser, type ReadEntry, t as tarList } from "tar";
import type { SkillgateConfig } from "../config/config.js";
import { homePaths } from "../config/home.js";
import { CuratorError } from "../core/errors.js";
import {
  acquireLock,
  atomicWriteFile,
  type HeldLock,
  isoTimestamp,
  LockBusyError,
  processAlive,
  withLock,
} from "../core/fsutil.js";
import { UsageStore } from "../skills/usage.js";
import { hasBlob, readBlob, storeBytes } from "./blobs.js";
import {
  clearJournal,
  crashPoint,
  journalPath,
  type RollbackJournal,
  readJournal,
  writeJournal,
} from "./journal.js";
import {
  appendEntry,
  CAPTURE_SKIP_DIRS,
  captureState,
  fileKey,
  findEntry,
  type LedgerActor,
  type LedgerEntry,
  type LedgerFile,
} from "./ledger.js";
import {
  createSnapshot,
  isLibraryEntry,
  type RecordedLink,
  readManifest,
  resolveSnapshot,
  type SnapshotInfo,
} from "./snapshot.js";

/** Member types a snapshot may contain. Everything else (devices, fifos, …) is refused. */
const SAFE_TYPES = new Set(["File", "OldFile", "ContiguousFile", "Directory", "SymbolicLink", "Link"]);

/** A verified archive: its top-level names and the symlinks to create after extraction. */
export interface VerifiedArchive {
  topLevel: string[];
  links: RecordedLink[];
}

/**
 * Normalises a member path and returns it, or a reason it is unsafe: absolute, drive-letter, NUL,
 * backslash or `..` components, or empty.
 */
export function checkMemberPath(raw: string): { ok: true; path: string } | { ok: false; reason: string } {
  if (raw.includes("\0")) return { ok: false, reason: "contains a NUL byte" };
  if (raw.startsWith("/") || /^[A-Za-z]:/.test(raw)) return { ok: false, reason: "is an absolute path" };
  if (raw.includes("\\")) return { ok: false, reason: "contains a backslash" };
  const parts = raw.split("/").filter((part) => part !== "" && part !== ".");
  if (parts.includes("..")) return { ok: false, reason: "contains '..'" };
  if (parts.length === 0) return { ok: false, reason: "is empty" };
  return { ok: true, path: parts.join("/") };
}

/** True when a link at `memberPath` pointing to `target` resolves inside the archive root. */
function linkStaysInside(memberPath: string, target: string): boolean {
  if (target === "" || target.startsWith("/") || /^[A-Za-z]:/.test(target) || target.includes("\0"))
    return false;
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(memberPath), target));
  return resolved !== ".." && !resolved.startsWith("../") && !path.posix.isAbsolute(resolved);
}

/**
 * Reads the whole archive and refuses it (CuratorError, nothing written) when any member is unsafe:
 * a bad path, a device or other special type, a hard link leaving the tree, a symlink leaving the tree
 * that the snapshot's manifest did not record, or a member placed under a symlink.
 */
export async function verifyArchive(
  archive: string,
  recordedLinks: RecordedLink[] = [],
): Promise<VerifiedArchive> {
  const problems: string[] = [];
  const paths: string[] = [];
  const symlinks = new Map<string, string>();
  const hardlinks: Array<{ path: string; target: string }> = [];
  const recorded = new Set(recordedLinks.map((link) => `${link.path}\0${link.target}`));
  const refuse = (member: string, reason: string) => {
    if (problems.length < 5) problems.push(`'${member}' ${reason}`);
  };
  try {
    await parseArchive(archive, (entry) => {
      entry.resume();
      const raw = String(entry.path);
      const checked = checkMemberPath(raw);
      if (!checked.ok) return refuse(raw, checked.reason);
      const member = checked.path;
      const top = member.split("/")[0] ?? member;
      if (!isLibraryEntry(top)) return refuse(raw, "is not part of a skill library");
      if (!SAFE_TYPES.has(entry.type))
        return refuse(raw, `is a ${entry.type}, which a snapshot never contains`);
      paths.push(member);
      const linkpath = entry.linkpath === undefined ? "" : String(entry.linkpath);
      if (entry.type === "SymbolicLink") {
        const faithful = recorded.has(`${member}\0${linkpath}`);
        if (!linkStaysInside(member, linkpath) && !faithful)
          return refuse(raw, `is a symlink leaving the tree (-> ${linkpath})`);
        symlinks.set(member, linkpath);
      } else if (entry.type === "Link") {
        const target = checkMemberPath(linkpath);
        if (!target.ok) return refuse(raw, `is a hard link whose target ${target.reason}`);
        hardlinks.push({ path: member, target: target.path });
      }
    });
  } catch (error) {
    throw new CuratorError(
      "rollback",
      `snapshot archive ${archive} is unreadable (${(error as Error).message}); pick another snapshot with --id.`,
      {
        cause: error,
      },
    );
  }
  for (const member of paths) {
    const parts = member.split("/");
    for (let i = 1; i < parts.length; i++) {
      if (symlinks.has(parts.slice(0, i).join("/"))) refuse(member, "would be written through a symlink");
    }
  }
  for (const link of hardlinks) {
    if (symlinks.has(link.target)) refuse(link.path, "is a hard link to a symlink");
    const parts = link.target.split("/");
    for (let i = 1; i < parts.length; i++) {
      if (symlinks.has(parts.slice(0, i).join("/"))) refuse(link.path, "is a hard link through a symlink");
    }
  }
  if (problems.length > 0) {
    throw new CuratorError(
      "rollback",
      `refusing unsafe snapshot archive: ${problems.join("; ")}. Nothing was changed.`,
      {
        code: "curator.unsafe_archive",
      },
    );
  }
  const topLevel = [...new Set(paths.map((member) => member.split("/")[0] ?? member))].sort();
  return { topLevel, links: [...symlinks].map(([p, target]) => ({ path: p, target })) };
}

/** Files up to this size are written from memory; larger ones are streamed. */
const BUFFERED_FILE_LIMIT = 1024 * 1024;

/**
 * Feeds an archive through tar's parser in small chunks (the gzip stream is inflated incrementally),
 * calling `onEntry` for every member. Resolves when the archive has been read to the end.
 */
async function parseArchive(archive: string, onEntry: (entry: ReadEntry) => void): Promise<void> {
  const source = createReadStream(archive, { highWaterMark: 16 * 1024 });
  const parser = new Parser({ strict: true });
  parser.on("entry", onEntry);
  await new Promise<void>((resolve, reject) => {
    parser.on("end", () => resolve());
    parser.on("error", reject);
    source.on("error", reject);
    source.pipe(parser);
  });
}

/**
 * Extracts a verified archive into `dest` (which must exist and be empty). We write every member
 * ourselves, re-checking each one: tar's parser only reads. Nothing is written outside `dest`: member
 * paths are plain relative paths, and no symlink exists inside `dest` until the very end, when the
 * recorded symlinks are created exactly as archived. Modes keep only permission bits; mtimes are kept.
 * Small files are written synchronously (no thread-pool hop per file); the parser still yields to the
 * event loop between chunks of the archive.
 */
export async function extractVerified(
  archive: string,
  dest: string,
  verified: VerifiedArchive,
): Promise<void> {
  const streams: Array<Promise<void>> = [];
  const madeDirs = new Set<string>([dest]);
  const dirTimes: Array<[string, Date]> = [];
  let failure: unknown;
  const ensureDir = (dir: string) => {
    if (madeDirs.has(dir)) return;
    mkdirSync(dir, { recursive: true });
    madeDirs.add(dir);
  };
  const guarded = (fn: () => void) => {
    try {
      if (failure === undefined) fn();
    } catch (error) {
      failure ??= error;
    }
  };
  await parseArchive(archive, (entry) => {
    const checked = checkMemberPath(String(entry.path));
    if (!checked.ok || !SAFE_TYPES.has(entry.type)) {
      failure ??= new Error(`archive changed during extraction (unexpected member '${String(entry.path)}')`);
      entry.resume();
      return;
    }
    const abs = path.join(dest, ...checked.path.split("/"));
    const mtime = entry.mtime;
    if (entry.type === "Directory" || entry.type === "SymbolicLink" || entry.type === "Link") {
      entry.resume();
      guarded(() => {
        if (entry.type === "Directory") {
          ensureDir(abs);
          if (mtime) dirTimes.push([abs, mtime]);
        } else if (entry.type === "Link") {
          const target = checkMemberPath(String(entry.linkpath ?? ""));
          if (!target.ok) throw new Error(`hard link '${checked.path}' has an unsafe target`);
          ensureDir(path.dirname(abs));
          rmSync(abs, { force: true });
          linkSync(path.join(dest, ...target.path.split("/")), abs);
        }
      });
      return;
    }
    const mode = (entry.mode ?? 0o644) & 0o777;
    if (entry.size > BUFFERED_FILE_LIMIT) {
      guarded(() => ensureDir(path.dirname(abs)));
      const sink = createWriteStream(abs, { mode });
      const done = new Promise<void>((resolve, reject) => {
        sink.on("close", resolve);
        sink.on("error", reject);
      }).then(async () => {
        if (mtime) await fs.utimes(abs, mtime, mtime);
      });
      done.catch((error: unknown) => {
        failure ??= error;
      });
      streams.push(done);
      entry.pipe(sink);
      return;
    }
    const chunks: Buffer[] = [];
    entry.on("data", (chunk: Buffer) => chunks.push(chunk));
    entry.on("end", () =>
      guarded(() => {
        ensureDir(path.dirname(abs));
        writeFileSync(abs, Buffer.concat(chunks), { mode });
        if (mtime) utimesSync(abs, mtime, mtime);
      }),
    );
  });
  await Promise.allSettled(streams);
  if (failure !== undefined) throw failure;
  for (const link of verified.links) {
    const where = path.join(dest, ...link.path.split("/"));
    ensureDir(path.dirname(where));
    await fs.rm(where, { force: true });
    await fs.symlink(link.target, where);
  }
  for (const [dir, mtime] of dirTimes.reverse()) await fs.lutimes(dir, mtime, mtime).catch(() => undefined);
}

/** Outcome of a whole-tree rollback. */
export interface SnapshotRollbackResult {
  target: string;
  safetySnapshot: string;
  cron: CronRestoreResult;
  message: string;
}

/** Options of `rollbackToSnapshot`. */
export interface SnapshotRollbackOptions {
  home: string;
  config: SkillgateConfig;
  /** Snapshot id; the newest when omitted. */
  id?: string;
  now?: Date;
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
  const lock = await takeRollbackLock(opts.home);
  try {
    await recoverLocked(opts.home);
    const target = await resolveSnapshot(opts.home, opts.id);
    if (!target) {
      const which = opts.id === undefined ? "" : ` for id '${opts.id}'`;
      throw new CuratorError(
        "rollback",
        `no matching backup found${which}; list them with \`curator rollback --list\`.`,
        {
          code: "curator.no_snapshot",
        },
      );
    }
    let safety: { id: string };
    try {
      safety = await createSnapshot({
        home: opts.home,
        config: opts.config,
        reason: `pre-rollback to ${target.id}`,
        now: opts.now,
        protectIds: [target.id],
      });
    } catch (error) {
      throw new CuratorError(
        "rollback",
        `pre-rollback safety snapshot failed: ${(error as Error).message} Rollback aborted; nothing was changed.`,
        {
          cause: error,
          code: "curator.safety_snapshot_failed",
        },
      );
    }
    await crashPoint("rollback:after-safety");
    const manifest = target.manifest ?? (await readManifest(target.dir));
    const verified = await verifyArchive(target.archive, manifest?.links ?? []);
    const journal = await swapIn(opts.home, target, safety.id, verified);
    const cron = await restoreCronLinks(opts.home, target);
    await crashPoint("rollback:after-cron");
    await finishCleanup(opts.home, journal);
    return { target: target.id, safetySnapshot: safety.id, cron, message: rollbackMessage(target.id, cron) };
  } finally {
    await lock.release();
  }
}

async function takeRollbackLock(home: string): Promise<HeldLock> {
  try {
    return await acquireLock(rollbackLockPath(home), { waitMs: 2_000 });
  } catch (error) {
    if (error instanceof LockBusyError) {
      throw new CuratorError(
        "rollback",
        "another rollback is running on this home; wait for it to finish and try again.",
        {
          code: "curator.locked",
        },
      );
    }
    throw error;
  }
}

/** Extracts into staging and swaps the library, journaling each phase. Returns the committed journal. */
async function swapIn(
  home: string,
  target: SnapshotInfo,
  safetyId: string,
  verified: VerifiedArchive,
): Promise<RollbackJournal> {
  const skills = homePaths(home).skills;
  const journal: RollbackJournal = {
    version: 1,
    target: target.id,
    safety_snapshot: safetyId,
    phase: "extracting",
    staging: `.rollback-staging-${target.id}`,
    side: `.rollback-side-${target.id}`,
    old_entries: [],
    new_entries: [],
    started_at: isoTimestamp(new Date()),
    pid: process.pid,
  };
  const staging = path.join(skills, journal.staging);
  await fs.rm(staging, { recursive: true, force: true });
  await fs.rm(path.join(skills, journal.side), { recursive: true, force: true });
  await writeJournal(home, journal);
  await crashPoint("rollback:journal-extracting");
  try {
    await fs.mkdir(staging);
    await extractVerified(target.archive, staging, verified);
  } catch (error) {
    await fs.rm(staging, { recursive: true, force: true });
    await clearJournal(home);
    throw new CuratorError(
      "rollback",
      `snapshot extract failed (state restored): ${(error as Error).message}`,
      { cause: error },
    );
  }
  await crashPoint("rollback:extracted");
  journal.new_entries = (await fs.readdir(staging)).filter(isLibraryEntry).sort();
  journal.old_entries = (await fs.readdir(skills)).filter(isLibraryEntry).sort();
  journal.phase = "swapping";
  await writeJournal(home, journal);
  await crashPoint("rollback:journal-swapping");
  try {
    await withLock(path.join(skills, ".usage.json.lock"), () => finishSwap(home, journal), {
      waitMs: 60_000,
    });
  } catch (error) {
    await undoSwap(home, journal);
    throw new CuratorError(
      "rollback",
      `rollback failed while swapping (state restored): ${(error as Error).message}`,
      { cause: error },
    );
  }
  journal.phase = "committed";
  await writeJournal(home, journal);
  await crashPoint("rollback:journal-committed");
  return journal;
}

async function exists(file: string): Promise<boolean> {
  return fs
    .lstat(file)
    .then(() => true)
    .catch(() => false);
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
    if ((await exists(path.join(skills, name))) && !(await exists(path.join(side, name)))) {
      await fs.rename(path.join(skills, name), path.join(side, name));
      await crashPoint("rollback:moved-out");
    }
  }
  for (const name of journal.new_entries) {
    if (await exists(path.join(staging, name))) {
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
    const movedIn = !(await exists(path.join(staging, name))) && (await exists(live));
    // A name also among the old entries is only a new one once its old twin is safely in the side dir.
    const oldTwinAside = !journal.old_entries.includes(name) || (await exists(path.join(side, name)));
    if (movedIn && oldTwinAside) await fs.rename(live, path.join(staging, name));
  }
  for (const name of journal.old_entries) {
    if (await exists(path.join(side, name))) await fs.rename(path.join(side, name), path.join(skills, name));
  }
  await fs.rm(staging, { recursive: true, force: true });
  await fs.rm(side, { recursive: true, force: true });
  await clearJournal(home);
}

/** Removes the side and staging dirs and the journal once a swap is committed. */
async function finishCleanup(home: string, journal: RollbackJournal): Promise<void> {
  const skills = homePaths(home).skills;
  await fs.rm(path.join(skills, journal.side), { recursive: true, force: true });
  await crashPoint("rollback:side-removed");
  await fs.rm(path.join(skills, journal.staging), { recursive: true, force: true });
  await clearJournal(home);
}

/**
 * Finishes or undoes a rollback interrupted by a crash, from its journal. Called at every CLI start.
 * Returns a notice for the person, or null when there was nothing to do (or another process is busy
 * with a rollback right now).
 */
export async function recoverInterruptedRollback(home: string): Promise<string | null> {
  if (!(await exists(journalPath(home))) && !(await hasPurgeTrash(home))) return null;
  let lock: HeldLock;
  try {
    lock = await acquireLock(rollbackLockPath(home), { waitMs: 0 });
  } catch (error) {
    if (error instanceof LockBusyError) return null;
    throw error;
  }
  try {
    return await recoverLocked(home);
  } finally {
    await lock.release();
  }
}

/** Recovery body (rollback lock held). */
async function recoverLocked(home: string): Promise<string | null> {
  await emptyPurgeTrash(home);
  const journal = await readJournal(home);
  if (journal === null) return null;
  if (journal === "corrupt") {
    return `curator: the rollback journal ${journalPath(home)} is unreadable; it was left in place. Check skills/ by hand, then delete the journal.`;
  }
  if (journal.phase === "extracting") {
    const skills = homePaths(home).skills;
    await fs.rm(path.join(skills, journal.staging), { recursive: true, force: true });
    await fs.rm(path.join(skills, journal.side), { recursive: true, force: true });
    await clearJournal(home);
    return `curator: an interrupted rollback to snapshot ${journal.target} was undone; the library is as it was before it started.`;
  }
  if (journal.phase === "swapping") {
    try {
      await finishSwap(home, journal);
    } catch (error) {
      await undoSwap(home, journal);
      return `curator: an interrupted rollback to snapshot ${journal.target} could not be finished (${(error as Error).message}); it was undone and the library is as it was before.`;
    }
    journal.phase = "committed";
    await writeJournal(home, journal);
  }
  const target = await resolveSnapshot(home, journal.target);
  const cron = target ? await restoreCronLinks(home, target) : undefined;
  await finishCleanup(home, journal);
  const cronNote = cron
    ? rollbackMessage(journal.target, cron).replace(/^restored from snapshot \S+/, "")
    : "";
  return `curator: an interrupted rollback to snapshot ${journal.target} was completed${cronNote}.`;
}

/** True when a purge left its trash dir behind, or a journal write left its temp file. */
async function hasPurgeTrash(home: string): Promise<boolean> {
  const names = await fs.readdir(homePaths(home).skills).catch(() => [] as string[]);
  return names.some((name) => name.startsWith(".purge-trash") || journalTempPid(name) !== undefined);
}

/**
 * The writer's pid of a journal temp file, or undefined for any other name. `atomicWriteFile` names its
 * temp file `.<file>.<pid>.<hex>.tmp`, and the journal's own name starts with a dot, so it has two.
 */
export function journalTempPid(name: string): number | undefined {
  const match = /^\.\.?rollback-journal\.json\.(\d+)\.[0-9a-f]+\.tmp$/.exec(name);
  return match ? Number(match[1]) : undefined;
}

/** Deletes leftovers of interrupted purges (their packages were ledgered before being moved there). */
export async function emptyPurgeTrash(home: string): Promise<void> {
  const skills = homePaths(home).skills;
  const names = await fs.readdir(skills).catch(() => [] as string[]);
  for (const name of names) {
    if (name.startsWith(".purge-trash"))
      await fs.rm(path.join(skills, name), { recursive: true, force: true });
    const writer = journalTempPid(name);
    // Left by a process that died mid-write (a live one other than us may be writing it right now).
    if (writer !== undefined && (writer === process.pid || !processAlive(writer)))
      await fs.rm(path.join(skills, name), { force: true });
  }
}

/** How many cron jobs got their skill links back. */
export interface CronRestoreResult {
  restored: number;
  skipped: number;
  matched: number;
  /** Why cron links were not considered, when they were not. */
  note?: string;
}

type CronJob = Record<string, unknown> & { id?: unknown };

/**
 * Puts back the `skills`/`skill` fields of jobs that still exist (matched by id) from the snapshot's
 * `cron-jobs.json`. Jobs created since are untouched; deleted ones are counted as skipped.
 */
export async function restoreCronLinks(home: string, snapshot: SnapshotInfo): Promise<CronRestoreResult> {
  const result: CronRestoreResult = { restored: 0, skipped: 0, matched: 0 };
  let backed: CronJob[];
  try {
    const doc = JSON.parse(await fs.readFile(path.join(snapshot.dir, "cron-jobs.json"), "utf8")) as {
      jobs?: unknown;
    };
    backed = Array.isArray(doc?.jobs) ? (doc.jobs as CronJob[]) : [];
  } catch {
    return { ...result, note: "no readable cron-jobs.json in the snapshot" };
  }
  const live = homePaths(home).cronJobs;
  await withLock(
    `${live}.lock`,
    async () => {
      let doc: { jobs?: unknown };
      try {
        doc = JSON.parse(await fs.readFile(live, "utf8")) as { jobs?: unknown };
      } catch {
        result.skipped = backed.length;
        result.note = "cron/jobs.json is missing or unreadable";
        return;
      }
      const jobs = Array.isArray(doc?.jobs) ? (doc.jobs as CronJob[]) : [];
      const byId = new Map(jobs.filter((job) => job && typeof job === "object").map((job) => [job.id, job]));
      let changed = false;
      for (const old of backed) {
        const job = old && typeof old === "object" ? byId.get(old.id) : undefined;
        if (!job) {
          result.skipped++;
          continue;
        }
        if (
          JSON.stringify(job.skills) === JSON.stringify(old.skills) &&
          JSON.stringify(job.skill) === JSON.stringify(old.skill)
        ) {
          result.matched++;
          continue;
        }
        for (const key of ["skills", "skill"]) {
          if (key in old) job[key] = old[key];
          else delete job[key];
        }
        result.restored++;
        changed = true;
      }
      if (changed) await atomicWriteFile(live, JSON.stringify(doc, null, 2));
    },
    { waitMs: 30_000 },
  );
  return result;
}

function rollbackMessage(id: string, cron: CronRestoreResult): string {
  const parts: string[] = [];
  if (cron.restored > 0) parts.push(`${cron.restored} job(s) had skill links restored`);
  if (cron.skipped > 0) parts.push(`${cron.skipped} backed-up job(s) no longer exist (skipped)`);
  if (cron.matched > 0) parts.push(`${cron.matched} already matched`);
  return `restored from snapshot ${id}${parts.length > 0 ? `; cron links: ${parts.join(", ")}` : ""}`;
}

/** Outcome of a per-entry rollback. */
export interface EntryRollbackResult {
  entry: LedgerEntry;
  safetyEntryId: string;
  rollbackEntryId: string | null;
  restored: number;
  removed: number;
  message: string;
}

/** Options of `rollbackEntry`. */
export interface EntryRollbackOptions {
  home: string;
  config: SkillgateConfig;
  entryId: string;
  actor?: LedgerActor;
}

/** True when `target` is inside `root` (not equal to it). */
function isStrictlyInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel !== "" && !rel.startsWith(`..${path.sep}`) && rel !== ".." && !path.isAbsolute(rel);
}

/** Paths a ledger rollback may never write: the backups, blobs, locks, hub and the ledger itself. */
function isForbiddenTarget(home: string, target: string): boolean {
  const p = homePaths(home);
  const roots = [p.backups, path.join(home, ".curator_backups"), p.locks, path.join(p.skills, ".hub")];
  return target === p.ledger || roots.some((root) => target === root || isStrictlyInside(root, target));
}

/**
 * Refuses any path outside the home, lexically or through a symlinked ancestor, or inside the
 * safety net's own storage.
 */
async function confinePaths(home: string, targets: string[]): Promise<void> {
  const realHome = await fs.realpath(home);
  for (const target of targets) {
    const resolved = path.resolve(target);
    if (!path.isAbsolute(target) || !isStrictlyInside(home, resolved) || isForbiddenTarget(home, resolved)) {
      throw new CuratorError(
        "rollback",
        `refusing rollback: entry references a path outside ${home}: ${target}`,
        {
          code: "curator.path_outside",
        },
      );
    }
    let ancestor = path.dirname(resolved);
    while (!(await exists(ancestor)) && ancestor !== path.dirname(ancestor))
      ancestor = path.dirname(ancestor);
    const real = await fs.realpath(ancestor);
    if (real !== realHome && !isStrictlyInside(realHome, real)) {
      throw new CuratorError(
        "rollback",
        `refusing rollback: entry references a path outside ${home} (through a symlink): ${target}`,
        {
          code: "curator.path_outside",
        },
      );
    }
  }
}

/**
 * Completes a hollow delete/archive/purge entry (one that captured only SKILL.md) from the newest
 * snapshot: regular files under the package's directory that the entry lacks are added to its before
 * set. Paths already in the entry keep their recorded content.
 */
async function fillFromNewestSnapshot(home: string, entry: LedgerEntry): Promise<LedgerFile[]> {
  const before = new Map(entry.before.map((file) => [file.path, file]));
  if (!["delete", "archive", "purge"].includes(entry.action)) return [...before.values()];
  const snapshot = await resolveSnapshot(home);
  if (!snapshot) return [...before.values()];
  const skills = homePaths(home).skills;
  const prefixes = new Set<string>();
  for (const file of entry.before) {
    if (path.basename(file.path) !== "SKILL.md" || !isStrictlyInside(skills, file.path)) continue;
    const rel = path.relative(skills, path.dirname(file.path)).split(path.sep).join("/");
    const top = rel.split("/")[0] ?? "";
    if (rel !== "" && isLibraryEntry(top)) prefixes.add(rel);
  }
  if (prefixes.size === 0) return [...before.values()];
  const pending: Array<Promise<void>> = [];
  await tarList({
    file: snapshot.archive,
    onReadEntry: (member) => {
      const checked = checkMemberPath(String(member.path));
      if (!checked.ok || (member.type !== "File" && member.type !== "OldFile")) return;
      const rel = checked.path;
      if (![...prefixes].some((prefix) => rel.startsWith(`${prefix}/`))) return;
      if (rel.split("/").some((part) => CAPTURE_SKIP_DIRS.has(part))) return;
      const abs = path.join(skills, ...rel.split("/"));
      if (before.has(abs)) return;
      const chunks: Buffer[] = [];
      member.on("data", (chunk: Buffer) => chunks.push(chunk));
      pending.push(
        new Promise<void>((resolve) => member.on("end", () => resolve())).then(async () => {
          before.set(abs, { path: abs, sha256: await storeBytes(home, Buffer.concat(chunks)) });
        }),
      );
    },
  });
  await Promise.all(pending);
  return [...before.values()];
}

/** Writes a captured file or link at its path atomically (parents created). */
async function writeCaptured(home: string, file: LedgerFile): Promise<void> {
  await fs.mkdir(path.dirname(file.path), { recursive: true });
  const current = await fs.lstat(file.path).catch(() => undefined);
  if (current?.isDirectory()) await fs.rm(file.path, { recursive: true, force: true });
  if ("sha256" in file) {
    await atomicWriteFile(file.path, await readBlob(home, file.sha256));
    return;
  }
  const tmp = `${file.path}.link-${process.pid}.tmp`;
  await fs.rm(tmp, { force: true });
  await fs.symlink(file.link, tmp);
  await fs.rename(tmp, file.path);
}

/** Removes now-empty directories from `start` up to (and including) the enclosing root. */
async function pruneEmptyDirs(start: string, roots: string[]): Promise<void> {
  const root = roots
    .filter((r) => start === r || isStrictlyInside(r, start))
    .sort((a, b) => a.length - b.length)[0];
  if (!root) return;
  let dir = start;
  while (dir === root || isStrictlyInside(root, dir)) {
    try {
      await fs.rmdir(dir);
    } catch {
      return;
    }
    dir = path.dirname(dir);
  }
}

/** Lifecycle keys a per-entry rollback puts back; counters keep counting. */
const LIFECYCLE_KEYS = ["created_by", "agent_created", "state", "pinned", "archived_at"] as const;

/** Restores the lifecycle part of the skill's usage record as it was before the entry. */
async function restoreUsage(home: string, entry: LedgerEntry): Promise<boolean> {
  if (entry.usage_before === undefined || entry.skill === "") return false;
  const before = entry.usage_before;
  const store = new UsageStore(homePaths(home).skills);
  if (before === null && (await store.read())[entry.skill] === undefined) return false;
  return store.update((records) => {
    const current = records[entry.skill];
    if (before === null) {
      if (current === undefined) return false;
      delete records[entry.skill];
      return true;
    }
    if (current === undefined) {
      records[entry.skill] = { ...before };
      return true;
    }
    for (const key of LIFECYCLE_KEYS) {
      if (key in before) current[key] = before[key] as never;
      else delete current[key];
    }
    return true;
  });
}

/**
 * Undoes one ledger entry: every file of its before set is put back (whole packages, support files
 * included), files it created are removed (and directories left empty under its roots), and the skill's
 * lifecycle state is restored. Every blob
 * is checked and a `pre-rollback` safety entry is written before anything on disk changes; if either
 * fails, nothing is changed. A `rollback` entry records the result.
 */
export async function rollbackEntry(opts: EntryRollbackOptions): Promise<EntryRollbackResult> {
  const { home, config } = opts;
  const actor = opts.actor ?? "user";
  const entry = await findEntry(home, opts.entryId);
  if (!entry) {
    throw new CuratorError(
      "rollback",
      `no ledger entry with id '${opts.entryId}'; see \`curator ledger\` for ids.`,
      {
        code: "curator.no_entry",
      },
    );
  }
  const roots = (entry.roots ?? []).filter((root) => typeof root === "string");
  await confinePaths(home, [...entry.before, ...entry.after].map((file) => file.path).concat(roots));
  const target = await fillFromNewestSnapshot(home, entry);
  await confinePaths(
    home,
    target.map((file) => file.path),
  );
  for (const file of target) {
    if ("sha256" in file && !(await hasBlob(home, file.sha256))) {
      throw new CuratorError(
        "rollback",
        `missing blob ${file.sha256} for ${file.path}; rollback aborted, nothing was changed.`,
        {
          code: "curator.missing_blob",
        },
      );
    }
  }
  const targetPaths = new Set(target.map((file) => file.path));
  // Files the entry created (after-only) go; everything in its before set comes back. Files that other,
  // later mutations added are theirs to undo, so they stay.
  const afterOnly = entry.after.map((file) => file.path).filter((p) => !targetPaths.has(p));
  const current = await captureState(home, [...new Set([...afterOnly, ...targetPaths])]);
  const toRemove = current.files.filter((file) => !targetPaths.has(file.path));
  const currentByPath = new Map(current.files.map((file) => [file.path, file]));
  const touched = current.files;
  let safety: LedgerEntry | null = null;
  try {
    safety = await appendEntry(home, config, {
      actor,
      action: "pre-rollback",
      skill: entry.skill,
      evidence: { rollback_target: entry.id },
      before: touched,
      after: touched,
      roots: roots.length > 0 ? roots : undefined,
    });
  } catch {
    safety = null;
  }
  if (!safety) {
    throw new CuratorError(
      "rollback",
      "pre-rollback safety capture failed (ledger disabled or unwritable); rollback aborted and current skills were not changed.",
      { code: "curator.safety_capture_failed" },
    );
  }
  const usageBefore = (await new UsageStore(homePaths(home).skills).read())[entry.skill] ?? null;
  let restored = 0;
  for (const file of target) {
    const now = currentByPath.get(file.path);
    if (now && fileKey(now) === fileKey(file)) continue;
    await writeCaptured(home, file);
    restored++;
  }
  for (const file of toRemove) {
    await fs.rm(file.path, { force: true });
    if (roots.length > 0) await pruneEmptyDirs(path.dirname(file.path), roots);
  }
  await restoreUsage(home, entry);
  const usageAfter = (await new UsageStore(homePaths(home).skills).read())[entry.skill] ?? null;
  const after = await captureState(home, [...targetPaths]);
  let record: LedgerEntry | null = null;
  try {
    record = await appendEntry(home, config, {
      actor,
      action: "rollback",
      skill: entry.skill,
      evidence: { rollback_target: entry.id, restored, removed: toRemove.length },
      before: touched,
      after: after.files,
      roots: roots.length > 0 ? roots : undefined,
      usage_before: usageBefore,
      usage_after: usageAfter,
    });
  } catch {
    record = null;
  }
  return {
    entry,
    safetyEntryId: safety.id,
    rollbackEntryId: record?.id ?? null,
    restored,
    removed: toRemove.length,
    message: `rolled back entry ${entry.id} (${entry.action} on '${entry.skill}'): ${restored} file(s) restored, ${toRemove.length} removed. Safety entry ${safety.id} captured the pre-rollback state.`,
  };
}
