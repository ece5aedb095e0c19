import { promises as fs } from "node:fs";
import path from "node:path";
import type { SkillgateConfig } from "../config/config.js";
import { homePaths } from "../config/home.js";
import { CuratorError, errorCause, interruptedError } from "../core/errors.js";
import {
  acquireLock,
  atomicWriteFile,
  type HeldLock,
  isoTimestamp,
  LockBusyError,
  stableJson,
} from "../core/fsutil.js";
import { t } from "../core/i18n/messages.js";
import { meterFor, type ProgressSink } from "../core/progress.js";
import { COMPILED } from "../core/workers.js";
import { crashPoint as hook } from "./journal.js";
import { SNAPSHOT_ARCHIVE, SNAPSHOT_ID_PATTERN } from "./snapshot-names.js";
import {
  type ArchiveInProgress,
  type RecordedLink,
  streamArchiveHere,
  streamArchiveOffThread,
} from "./tarball/write.js";

export { SNAPSHOT_ARCHIVE, SNAPSHOT_ID_PATTERN };

/** The audit ledger's name under `skills/`. */
const LEDGER_ENTRY = ".curator_ledger.jsonl";

/**
 * Top-level entries of `skills/` never swapped by a rollback: backups, the hub, locks, the journals, and
 * the audit ledger (an append-only history that must outlive any rollback).
 */
const ALWAYS_EXCLUDED = new Set([
  LEDGER_ENTRY,
  ".curator_backups",
  ".hub",
  ".locks",
  ".usage.json.lock",
  ".rollback-journal.json",
  ".move-journal.jsonl",
]);

/** Prefixes of transient top-level entries (rollback staging and side dirs, purge trash). */
const TRANSIENT_PREFIXES = [".rollback-staging-", ".rollback-side-", ".purge-trash"];

/**
 * True when a top-level entry of `skills/` belongs in snapshots and whole-tree rollbacks. Excludes the
 * backups, the hub, lock files, rollback and purge scratch space, and atomic-write tmp files.
 */
export function isLibraryEntry(name: string): boolean {
  if (ALWAYS_EXCLUDED.has(name)) return false;
  if (TRANSIENT_PREFIXES.some((prefix) => name.startsWith(prefix))) return false;
  if (name.startsWith(".") && name.endsWith(".tmp")) return false;
  return true;
}

/**
 * True when a top-level entry of `skills/` goes into snapshots: the library entries plus the audit
 * ledger. The ledger rides along so a program that rolls back by replacing `skills/` with the archive
 * (Hermes) restores a history instead of deleting it; skillgate's own rollback skips it and keeps the
 * live ledger (see `skipsMember` in rollback.ts).
 */
export function isSnapshotEntry(name: string): boolean {
  return name === LEDGER_ENTRY || isLibraryEntry(name);
}

/** How the cron jobs file fared in a snapshot. */
export interface CronBackupInfo {
  backed_up: boolean;
  jobs_count?: number;
  reason?: string;
  parse_warning?: string;
}

/** `manifest.json` of a snapshot (Hermes' fields plus `links`). */
export interface SnapshotManifest {
  id: string;
  reason: string;
  created_at: string;
  archive: string;
  archive_bytes: number;
  skill_files: number;
  cron_jobs: CronBackupInfo;
  /** Symlinks captured in the archive, so a rollback can tell a faithful link from a planted one. */
  links?: RecordedLink[];
}

/** A snapshot as listed (newest first). */
export interface SnapshotInfo {
  id: string;
  dir: string;
  archive: string;
  manifest: SnapshotManifest | null;
}

/** Options of `createSnapshot`. */
export interface CreateSnapshotOptions {
  home: string;
  config: SkillgateConfig;
  reason: string;
  now?: Date;
  /** Ids that retention must keep whatever `keep` says (a rollback's target). */
  protectIds?: string[];
  /** Counted progress: top-level library entries archived. */
  meter?: ProgressSink;
  /**
   * The process is stopping: the archive stops, the folder goes, and the snapshot fails with
   * `curator.interrupted` (nothing was changed).
   */
  signal?: AbortSignal;
}

/** Formats the base id (no collision suffix) for a moment. */
export function snapshotIdFor(now: Date): string {
  return `${now
    .toISOString()
    .replace(/\.\d{3}Z$/, "Z")
    .replace(/:/g, "-")}`;
}

/**
 * Takes a snapshot of the library. Throws `CuratorError` (phase `snapshot`) when backups are disabled,
 * the skills directory is missing, or writing fails; a failed attempt leaves no snapshot behind.
 * Retention (`curator.backup.keep`) is applied afterwards, never pruning `protectIds`.
 */
export async function createSnapshot(opts: CreateSnapshotOptions): Promise<{ id: string; dir: string }> {
  return (await beginSnapshot(opts)).keep();
}

/** A snapshot begun with `beginSnapshot`: its archive is being written while the caller goes on. */
export interface PendingSnapshot {
  /**
   * Waits for the archive and completes the snapshot (cron jobs, manifest, commit, retention), with the
   * errors of `createSnapshot`. Once only.
   */
  keep(): Promise<{ id: string; dir: string }>;
  /** Abandons it: stops the archive, removes its folder, releases the lock. A no-op once kept or discarded. */
  discard(): Promise<void>;
}

/**
 * Starts a snapshot and returns at once with the archive being written (in a worker thread when
 * `offThread`, by default when running compiled), holding the snapshot lock until it is kept or
 * discarded. Checks and errors as `createSnapshot`; retention runs only when it is kept, so a discarded
 * snapshot never costs an older one.
 */
export async function beginSnapshot(
  opts: CreateSnapshotOptions & { offThread?: boolean },
): Promise<PendingSnapshot> {
  const paths = homePaths(opts.home);
  if (!opts.config.curator.backup.enabled) {
    throw new CuratorError("snapshot", t("cmd.backup.disabledError"), { code: "curator.backup_disabled" });
  }
  try {
    const stat = await fs.stat(paths.skills);
    if (!stat.isDirectory()) throw new Error("not a directory");
  } catch {
    throw new CuratorError("snapshot", t("cmd.backup.noSkillsDir", { dir: paths.skills }));
  }
  await fs.mkdir(paths.backups, { recursive: true });
  const lock = await acquireLock(path.join(paths.locks, "snapshot.lock"), { waitMs: 300_000 });
  const now = opts.now ?? new Date();
  let claimed: { id: string; dir: string };
  try {
    claimed = await claimSnapshotDir(paths.backups, snapshotIdFor(now));
  } catch (error) {
    await lock.release();
    throw error;
  }
  const { id, dir } = claimed;
  const failed = (error: unknown) =>
    new CuratorError("snapshot", t("snapshot.failed", { cause: errorCause(error) }), { cause: error });
  let archive: ArchiveInProgress;
  try {
    archive = await startArchive(paths.skills, dir, opts.meter, opts.offThread ?? COMPILED);
  } catch (error) {
    await fs.rm(dir, { recursive: true, force: true });
    await lock.release();
    throw failed(error);
  }
  // Settled by `keep` or `discard`; never an unhandled rejection meanwhile.
  archive.result.catch(() => undefined);
  let state: "pending" | "kept" | "discarded" = "pending";
  return {
    keep: async () => {
      if (state !== "pending") throw new Error(`snapshot ${id} was already ${state}`);
      state = "kept";
      try {
        try {
          await untilStopped(
            finishSnapshot(archive, { cronJobs: paths.cronJobs, dir, id, reason: opts.reason, now }),
            opts.signal,
            () => archive.stop(),
          );
        } catch (error) {
          await fs.rm(dir, { recursive: true, force: true });
          throw error instanceof CuratorError ? error : failed(error);
        }
        await pruneSnapshots(paths.backups, opts.config.curator.backup.keep, [
          id,
          ...(opts.protectIds ?? []),
        ]);
        return { id, dir };
      } finally {
        await lock.release();
      }
    },
    discard: async () => {
      if (state !== "pending") return;
      state = "discarded";
      try {
        await archive.stop();
        await fs.rm(dir, { recursive: true, force: true });
      } finally {
        await lock.release();
      }
    },
  };
}

/**
 * `work`, unless `signal` asks to stop first: then `stop` is awaited and `curator.interrupted` thrown
 * (what `work` does after that is ignored).
 */
async function untilStopped<T>(work: Promise<T>, signal: AbortSignal | undefined, stop: () => Promise<void>) {
  if (!signal) return work;
  work.catch(() => undefined);
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(interruptedError("snapshot", t("error.what.snapshot")));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  try {
    return await Promise.race([work, aborted]);
  } catch (error) {
    if (signal.aborted) await stop().catch(() => undefined);
    throw error;
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/** Creates `<backups>/<base>` or the first free `<base>-NN`, exclusively. */
async function claimSnapshotDir(backups: string, base: string): Promise<{ id: string; dir: string }> {
  for (let n = 0; n < 100; n++) {
    const id = n === 0 ? base : `${base}-${String(n).padStart(2, "0")}`;
    const dir = path.join(backups, id);
    try {
      await fs.mkdir(dir);
      return { id, dir };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  throw new CuratorError("snapshot", t("snapshot.tooMany", { id: base }));
}

/** Starts the archive of the library's snapshot entries into `<dir>/skills.tar.gz.partial`. */
async function startArchive(
  skills: string,
  dir: string,
  meter: ProgressSink | undefined,
  offThread: boolean,
): Promise<ArchiveInProgress> {
  const entries = (await fs.readdir(skills)).filter(isSnapshotEntry).sort();
  const tmpArchive = path.join(dir, `${SNAPSHOT_ARCHIVE}.partial`);
  await hook("snapshot:before-tar");
  const write = offThread ? streamArchiveOffThread : streamArchiveHere;
  if (!meter) return write(skills, entries, tmpArchive);
  // Counted in skills: the total is the skill folders one level down, the bar ends when the archive does.
  const total = Math.max(1, await countSkillFolders(skills, entries));
  const tick = meterFor(meter, "snapshot", total, "skills");
  const archive = write(skills, entries, tmpArchive, (done) => tick(Math.min(done, total - 1)));
  // A discarded or failed archive stops where it was (the surface clears its bar when the command ends).
  void archive.result.then(
    () => tick(total),
    () => undefined,
  );
  return archive;
}

/**
 * About how many skills a snapshot holds, cheaply: a top-level entry with a SKILL.md is one, a category
 * counts its sub-folders (the archive and dot folders are not live skills).
 */
async function countSkillFolders(skills: string, entries: string[]): Promise<number> {
  const counts = await Promise.all(
    entries
      .filter((entry) => !entry.startsWith("."))
      .map(async (entry) => {
        const children = await fs.readdir(path.join(skills, entry), { withFileTypes: true }).catch(() => []);
        if (children.some((child) => child.name === "SKILL.md")) return 1;
        return children.filter((child) => child.isDirectory() && !child.name.startsWith(".")).length;
      }),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}

/** Waits for the archive, copies cron jobs, writes the manifest, then commits by renaming the archive in. */
async function finishSnapshot(
  archive: ArchiveInProgress,
  input: { cronJobs: string; dir: string; id: string; reason: string; now: Date },
): Promise<void> {
  const { skillFiles, links } = await archive.result;
  const tmpArchive = path.join(input.dir, `${SNAPSHOT_ARCHIVE}.partial`);
  await hook("snapshot:after-tar");
  const cron = await copyCronJobs(input.cronJobs, path.join(input.dir, "cron-jobs.json"));
  const manifest: SnapshotManifest = {
    id: input.id,
    reason: input.reason,
    created_at: isoTimestamp(input.now),
    archive: SNAPSHOT_ARCHIVE,
    archive_bytes: (await fs.stat(tmpArchive)).size,
    skill_files: skillFiles,
    cron_jobs: cron,
    links,
  };
  await atomicWriteFile(path.join(input.dir, "manifest.json"), stableJson(manifest));
  await hook("snapshot:before-commit");
  await fs.rename(tmpArchive, path.join(input.dir, SNAPSHOT_ARCHIVE));
}

/** Copies `cron/jobs.json` (raw bytes, even when it is not valid JSON) and describes the outcome. */
async function copyCronJobs(source: string, dest: string): Promise<CronBackupInfo> {
  let raw: Buffer;
  try {
    raw = await fs.readFile(source);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      return { backed_up: false, reason: "no cron/jobs.json present" };
    return { backed_up: false, reason: `read error: ${(error as Error).message}` };
  }
  try {
    await atomicWriteFile(dest, raw);
  } catch (error) {
    return { backed_up: false, reason: `write error: ${(error as Error).message}` };
  }
  try {
    const doc = JSON.parse(raw.toString("utf8").replace(/^\uFEFF/, "")) as { jobs?: unknown };
    const jobs = Array.isArray(doc?.jobs) ? doc.jobs.length : 0;
    return { backed_up: true, jobs_count: jobs };
  } catch {
    return { backed_up: true, jobs_count: 0, parse_warning: "jobs.json was not valid JSON at snapshot time" };
  }
}

/**
 * Snapshots newest first: directories whose name matches the id pattern and that hold an archive.
 * The manifest is `null` when it is missing or unreadable.
 */
export async function listSnapshots(home: string): Promise<SnapshotInfo[]> {
  const backups = homePaths(home).backups;
  let names: string[];
  try {
    names = await fs.readdir(backups);
  } catch {
    return [];
  }
  const out: SnapshotInfo[] = [];
  for (const id of names
    .filter((name) => SNAPSHOT_ID_PATTERN.test(name))
    .sort()
    .reverse()) {
    const dir = path.join(backups, id);
    const archive = path.join(dir, SNAPSHOT_ARCHIVE);
    try {
      if (!(await fs.stat(archive)).isFile()) continue;
    } catch {
      continue;
    }
    out.push({ id, dir, archive, manifest: await readManifest(dir) });
  }
  return out;
}

/** Reads a snapshot's manifest, or null. */
export async function readManifest(dir: string): Promise<SnapshotManifest | null> {
  try {
    const doc = JSON.parse(await fs.readFile(path.join(dir, "manifest.json"), "utf8")) as SnapshotManifest;
    return doc !== null && typeof doc === "object" ? doc : null;
  } catch {
    return null;
  }
}

/** The snapshot with this id, or the newest when `id` is omitted; null when none matches. */
export async function resolveSnapshot(home: string, id?: string): Promise<SnapshotInfo | null> {
  const all = await listSnapshots(home);
  if (id === undefined) return all[0] ?? null;
  return all.find((snapshot) => snapshot.id === id) ?? null;
}

/**
 * Keeps the `keep` newest complete snapshots plus `protect`, and removes unfinished snapshot dirs
 * (callers hold the snapshot lock, so no other writer is mid-way).
 */
async function pruneSnapshots(backups: string, keep: number, protect: string[]): Promise<void> {
  const names = (await fs.readdir(backups))
    .filter((name) => SNAPSHOT_ID_PATTERN.test(name))
    .sort()
    .reverse();
  let kept = 0;
  for (const id of names) {
    const dir = path.join(backups, id);
    if (!(await isComplete(dir))) {
      if (!protect.includes(id)) await fs.rm(dir, { recursive: true, force: true });
      continue;
    }
    kept++;
    if (kept > Math.max(1, keep) && !protect.includes(id)) await fs.rm(dir, { recursive: true, force: true });
  }
}

/** True when a snapshot folder holds its committed archive (the last step of writing one). */
async function isComplete(dir: string): Promise<boolean> {
  return fs
    .stat(path.join(dir, SNAPSHOT_ARCHIVE))
    .then((stat) => stat.isFile())
    .catch(() => false);
}

/**
 * Removes the folders of snapshots a killed process left unfinished (no committed archive) and returns
 * their ids. Nothing is removed while a snapshot is being written (its writer holds the snapshot lock).
 */
export async function removePartialSnapshots(home: string): Promise<string[]> {
  const paths = homePaths(home);
  const names = await fs.readdir(paths.backups).catch(() => [] as string[]);
  const ids = names.filter((name) => SNAPSHOT_ID_PATTERN.test(name));
  if (ids.length === 0) return [];
  let lock: HeldLock;
  try {
    lock = await acquireLock(path.join(paths.locks, "snapshot.lock"), { waitMs: 0 });
  } catch (error) {
    if (error instanceof LockBusyError) return [];
    throw error;
  }
  const removed: string[] = [];
  try {
    for (const id of ids) {
      const dir = path.join(paths.backups, id);
      if (await isComplete(dir)) continue;
      await fs.rm(dir, { recursive: true, force: true });
      removed.push(id);
    }
  } finally {
    await lock.release();
  }
  return removed;
}
