/**
 * Whole-library snapshots: `skills/.curator_backups/<id>/skills.tar.gz` plus `manifest.json` (indent 2,
 * sorted keys) and, when present, a copy of `cron/jobs.json` as `cron-jobs.json`. The archive is streamed
 * from disk to a tmp file and renamed into place, so memory stays flat whatever the library size, and a
 * snapshot directory without `skills.tar.gz` is an unfinished one that listings ignore and pruning removes.
 */
import { once } from "node:events";
import {
  closeSync,
  createReadStream,
  createWriteStream,
  promises as fs,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
} from "node:fs";
import path from "node:path";
import type { TransformOptions } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip, type Gzip, type ZlibOptions } from "node:zlib";
import { Header, type HeaderData, Pax } from "tar";
import type { SkillgateConfig } from "../config/config.js";
import { homePaths } from "../config/home.js";
import { CuratorError } from "../core/errors.js";
import { atomicWriteFile, isoTimestamp, stableJson, withLock } from "../core/fsutil.js";
import { crashPoint as hook } from "./journal.js";

/** A snapshot id: UTC with dashes, `2026-05-01T13-05-42Z`, plus `-01`, `-02`… on a collision. */
export const SNAPSHOT_ID_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z(-\d{2})?$/;

/** The archive's file name inside a snapshot directory. */
export const SNAPSHOT_ARCHIVE = "skills.tar.gz";

/** The audit ledger's name under `skills/`. */
const LEDGER_ENTRY = ".curator_ledger.jsonl";

/**
 * Top-level entries of `skills/` never swapped by a rollback: backups, the hub, locks, the rollback
 * journal, and the audit ledger (an append-only history that must outlive any rollback).
 */
const ALWAYS_EXCLUDED = new Set([
  LEDGER_ENTRY,
  ".curator_backups",
  ".hub",
  ".locks",
  ".usage.json.lock",
  ".rollback-journal.json",
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

/** A symlink found while archiving: restored as-is by a rollback even when it points outside the tree. */
export interface RecordedLink {
  path: string;
  target: string;
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
  const paths = homePaths(opts.home);
  if (!opts.config.curator.backup.enabled) {
    throw new CuratorError(
      "snapshot",
      "backups are disabled via config (`curator.backup.enabled: false`); re-enable them to take a snapshot.",
      { code: "curator.backup_disabled" },
    );
  }
  try {
    const stat = await fs.stat(paths.skills);
    if (!stat.isDirectory()) throw new Error("not a directory");
  } catch {
    throw new CuratorError("snapshot", `no skills directory at ${paths.skills}; nothing to snapshot.`);
  }
  await fs.mkdir(paths.backups, { recursive: true });
  return withLock(
    path.join(paths.locks, "snapshot.lock"),
    async () => {
      const now = opts.now ?? new Date();
      const { id, dir } = await claimSnapshotDir(paths.backups, snapshotIdFor(now));
      try {
        await writeSnapshot({
          skills: paths.skills,
          cronJobs: paths.cronJobs,
          dir,
          id,
          reason: opts.reason,
          now,
        });
      } catch (error) {
        await fs.rm(dir, { recursive: true, force: true });
        throw new CuratorError("snapshot", `snapshot failed: ${(error as Error).message}`, { cause: error });
      }
      await pruneSnapshots(paths.backups, opts.config.curator.backup.keep, [id, ...(opts.protectIds ?? [])]);
      return { id, dir };
    },
    { waitMs: 300_000 },
  );
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
  throw new CuratorError(
    "snapshot",
    `too many snapshots within one second (${base}); wait a second and retry.`,
  );
}

interface WriteSnapshotInput {
  skills: string;
  cronJobs: string;
  dir: string;
  id: string;
  reason: string;
  now: Date;
}

/** Streams the tar, copies cron jobs, writes the manifest, then commits by renaming the archive in. */
async function writeSnapshot(input: WriteSnapshotInput): Promise<void> {
  const entries = (await fs.readdir(input.skills)).filter(isSnapshotEntry).sort();
  const tmpArchive = path.join(input.dir, `${SNAPSHOT_ARCHIVE}.partial`);
  await hook("snapshot:before-tar");
  const { skillFiles, links } = await streamArchive(input.skills, entries, tmpArchive);
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

/**
 * Members are encoded straight into batches of this size; each full batch is one gzip write (one
 * thread-pool job), so headers, bodies and padding never exist as separate small buffers.
 */
const BATCH_BYTES = 256 * 1024;
/** Files above this size are streamed from disk instead of read into a batch. */
const STREAMED_FILE_BYTES = BATCH_BYTES / 2;
/**
 * Batches gzip may hold before the walk waits for it: enough for gzip (on the thread pool) to compress
 * one batch while the walk fills the next, small enough to keep memory flat.
 */
const GZIP_QUEUE_BATCHES = 3;
/**
 * Reads are synchronous (thousands of tiny files cost far less without a thread-pool hop each), so the
 * walk yields to the event loop at least this often (ms) and a gateway keeps answering.
 */
const MAX_BLOCKING_MS = 20;

/** What one lstat told about a path: enough to encode its member. */
interface MemberInfo {
  rel: string;
  abs: string;
  type: "File" | "Directory" | "SymbolicLink";
  mode: number;
  mtime: Date;
  size: number;
  linkpath?: string;
  /** The content, once read outside a batch (a file that changed size while it was read). */
  body?: Buffer;
}

/** How writing a member into the current batch went. */
type BatchResult = "written" | "skipped" | "full";

/** Lstats a path (and reads a symlink's target); null for other file types and vanished paths. */
function statMember(abs: string, rel: string): MemberInfo | null {
  try {
    const stat = lstatSync(abs, { throwIfNoEntry: false });
    if (!stat) return null;
    const mode = stat.mode & 0o777;
    const mtime = stat.mtime;
    if (stat.isDirectory()) return { rel, abs, type: "Directory", mode, mtime, size: 0 };
    if (stat.isSymbolicLink())
      return { rel, abs, type: "SymbolicLink", mode, mtime, size: 0, linkpath: readlinkSync(abs) };
    if (stat.isFile()) return { rel, abs, type: "File", mode, mtime, size: stat.size };
    return null;
  } catch {
    // Vanished or unreadable while we walked: leave it out rather than fail the whole snapshot.
    return null;
  }
}

/** A directory's entry names, sorted; empty when it vanished meanwhile. */
function listDir(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** `size` rounded up to whole 512-byte blocks. */
function padded(size: number): number {
  return Math.ceil(size / 512) * 512;
}

/** The tar header fields of a member (the body size given separately when it was re-read). */
function headerData(member: MemberInfo, size: number): HeaderData {
  return {
    path: member.type === "Directory" ? `${member.rel}/` : member.rel,
    mode: member.mode,
    mtime: member.mtime,
    uid: 0,
    gid: 0,
    type: member.type,
    size,
    linkpath: member.linkpath,
  };
}

/**
 * The tar byte stream on its way into gzip: members are encoded with tar's header and pax encoders
 * directly into a zero-filled batch buffer, and small files are read straight into it, so the common
 * member costs no allocation and no await. A full batch goes to gzip as one write.
 */
class TarBatcher {
  private batch = Buffer.alloc(BATCH_BYTES);
  private used = 0;

  constructor(private readonly gzip: Gzip) {}

  /**
   * Writes a member into the current batch: "full" (nothing written) when it does not fit,
   * "skipped" when the file could not be read (vanished or unreadable meanwhile).
   */
  tryMember(member: MemberInfo): BatchResult {
    const start = this.used;
    if (member.type !== "File") return this.putHeaders(headerData(member, 0), 0) ? "written" : "full";
    if (member.body) {
      const { body } = member;
      if (!this.putHeaders(headerData(member, body.length), padded(body.length))) return "full";
      body.copy(this.batch, this.used);
      this.used += padded(body.length);
      return "written";
    }
    const { size } = member;
    // One byte more than lstat said is read, so a file that grew meanwhile is noticed.
    if (size > STREAMED_FILE_BYTES || !this.putHeaders(headerData(member, size), padded(size + 1)))
      return "full";
    const bodyAt = this.used;
    let length: number;
    try {
      length = readInto(member.abs, this.batch, bodyAt, size);
    } catch {
      this.rewind(start);
      return "skipped";
    }
    if (length !== size) {
      // Changed size since lstat: archive what it holds now, with a header that says so.
      const body =
        length < size
          ? Buffer.from(this.batch.subarray(bodyAt, bodyAt + length))
          : readFileOrNull(member.abs);
      this.rewind(start);
      if (!body) return "skipped";
      member.body = body;
      return this.tryMember(member);
    }
    this.used = bodyAt + padded(size);
    return "written";
  }

  /** Writes a member too large for a batch: its headers, then its body streamed, then padding. */
  async writeStreamed(member: MemberInfo): Promise<void> {
    const size = member.body?.length ?? member.size;
    await this.flush();
    if (!this.putHeaders(headerData(member, size), 0))
      throw new Error(`tar headers of ${member.rel} do not fit in a batch`);
    await this.flush();
    let sent = 0;
    if (member.body) {
      await this.send(member.body);
      sent = member.body.length;
    } else if (size > 0) {
      const chunks = createReadStream(member.abs, { start: 0, end: size - 1 }) as AsyncIterable<Buffer>;
      for await (const chunk of chunks) {
        sent += chunk.length;
        await this.send(chunk);
      }
    }
    // Shrank meanwhile: zero-fill to the size the header announced.
    if (sent < size) await this.send(Buffer.alloc(size - sent));
    this.used = padded(size) - size;
  }

  /** Hands the current batch to gzip and starts a fresh one. */
  async flush(): Promise<void> {
    if (this.used === 0) return;
    const chunk = this.batch.subarray(0, this.used);
    this.batch = Buffer.alloc(BATCH_BYTES);
    this.used = 0;
    await this.send(chunk);
  }

  /** Appends the two zero blocks that end an archive and flushes. */
  async finish(): Promise<void> {
    if (BATCH_BYTES - this.used < 1024) await this.flush();
    this.used += 1024;
    await this.flush();
  }

  /**
   * Writes to gzip, waiting when its queue is full; otherwise yields once to the event loop, so gzip's
   * finished jobs are collected and it starts on the next queued batch while the walk goes on.
   */
  private async send(chunk: Buffer): Promise<void> {
    if (!this.gzip.write(chunk)) await once(this.gzip, "drain");
    else await new Promise((resolve) => setImmediate(resolve));
  }

  /**
   * Encodes the header (a pax header first when the ustar fields cannot hold the path or link) at the
   * current position, if they fit with `reserve` more bytes after them; false (nothing written) if not.
   */
  private putHeaders(data: HeaderData, reserve: number): boolean {
    const at = this.used;
    if (this.batch.length - at < 512 + reserve) return false;
    const header = new Header(data);
    if (!header.encode(this.batch, at)) {
      this.used = at + 512;
      return true;
    }
    const pax = new Pax({
      path: data.path,
      linkpath: data.linkpath,
      size: data.size,
      mtime: data.mtime,
    }).encode();
    if (this.batch.length - at < pax.length + 512 + reserve) {
      this.rewind(at);
      return false;
    }
    // The pax blocks (at least two) cover the ustar header just encoded; the header goes after them.
    pax.copy(this.batch, at);
    header.encode(this.batch, at + pax.length);
    this.used = at + pax.length + 512;
    return true;
  }

  /** Drops everything written from `position` on (the batch must stay zero past `used`). */
  private rewind(position: number): void {
    this.batch.fill(0, position);
    this.used = position;
  }
}

/**
 * Reads a regular file of `size` bytes into `buffer` at `offset`, asking for one byte more: a read
 * that comes back short of that is at end of file, so the common case costs one read. Returns the
 * length read (size + 1 when the file grew).
 */
function readInto(file: string, buffer: Buffer, offset: number, size: number): number {
  const fd = openSync(file, "r");
  try {
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, offset + length, size + 1 - length, null);
      if (n === 0) return length;
      length += n;
      if (length >= size) return length;
    }
  } finally {
    closeSync(fd);
  }
}

/** A file's current content, or null when it vanished. */
function readFileOrNull(file: string): Buffer | null {
  try {
    return readFileSync(file);
  } catch {
    return null;
  }
}

/**
 * Streams a gzipped tar of `entries` to `dest` depth-first in a stable order; gzip backpressure paces
 * the walk, so memory stays flat however large the library is. Counts SKILL.md files and records
 * symlinks on the way.
 */
async function streamArchive(
  root: string,
  entries: string[],
  dest: string,
): Promise<{ skillFiles: number; links: RecordedLink[] }> {
  let skillFiles = 0;
  const links: RecordedLink[] = [];
  // zlib hands its options to the underlying Transform, which is where the queue bound lives.
  const gzip = createGzip({
    chunkSize: 64 * 1024,
    writableHighWaterMark: GZIP_QUEUE_BATCHES * BATCH_BYTES,
  } as ZlibOptions & TransformOptions);
  const written = pipeline(gzip, createWriteStream(dest, { mode: 0o644 }));
  const tar = new TarBatcher(gzip);
  const rootPrefix = root.endsWith(path.sep) ? root : root + path.sep;
  try {
    // One lstat per member decides both its header and whether to descend.
    const stack: string[] = [...entries].reverse();
    let since = performance.now();
    while (stack.length > 0) {
      const rel = stack.pop() as string;
      const member = statMember(rootPrefix + rel, rel);
      if (!member) continue;
      let result = tar.tryMember(member);
      if (result === "full") {
        await tar.flush();
        result = tar.tryMember(member);
        if (result === "full") {
          await tar.writeStreamed(member);
          result = "written";
        }
      }
      if (result === "skipped") continue;
      // Live skills only, as Hermes counts them: archived packages are in the archive but not counted.
      if (member.type === "File" && rel.endsWith("/SKILL.md") && !rel.startsWith(".archive/")) skillFiles++;
      else if (rel === "SKILL.md") skillFiles++;
      if (member.linkpath !== undefined) links.push({ path: rel, target: member.linkpath });
      if (member.type === "Directory") {
        const names = listDir(member.abs);
        for (let i = names.length - 1; i >= 0; i--) stack.push(`${rel}/${names[i]}`);
      }
      if (performance.now() - since > MAX_BLOCKING_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        since = performance.now();
      }
    }
    await tar.finish();
    gzip.end();
  } catch (error) {
    gzip.destroy(error as Error);
    await written.catch(() => undefined);
    throw error;
  }
  await written;
  return { skillFiles, links };
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
    const complete = await fs
      .stat(path.join(dir, SNAPSHOT_ARCHIVE))
      .then((stat) => stat.isFile())
      .catch(() => false);
    if (!complete) {
      if (!protect.includes(id)) await fs.rm(dir, { recursive: true, force: true });
      continue;
    }
    kept++;
    if (kept > Math.max(1, keep) && !protect.includes(id)) await fs.rm(dir, { recursive: true, force: true });
  }
}
