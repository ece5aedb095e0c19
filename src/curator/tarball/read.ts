/**
 * Reading snapshot archives safely: every member is checked (type, path, link target) before anything
 * is written, and extraction writes only what the check passed. The one place the archive safety rules
 * live; whole-tree rollback uses it.
 */
import {
  closeSync,
  createReadStream,
  createWriteStream,
  promises as fs,
  futimesSync,
  linkSync,
  mkdirSync,
  openSync,
  rmSync,
  utimesSync,
  type WriteStream,
  writeSync,
} from "node:fs";
import path from "node:path";
import { addAbortSignal } from "node:stream";
import { createGunzip } from "node:zlib";
import { Parser, type ReadEntry } from "tar";
import { CuratorError, errorCause } from "../../core/errors.js";
import { join, type Text, t } from "../../core/i18n/messages.js";
import { isLibraryEntry } from "../snapshot.js";
import type { RecordedLink } from "./write.js";

/** Member types a snapshot may contain. Everything else (devices, fifos, …) is refused. */
const SAFE_TYPES = new Set(["File", "OldFile", "ContiguousFile", "Directory", "SymbolicLink", "Link"]);

/** A verified archive: its top-level names and the symlinks to create after extraction. */
export interface VerifiedArchive {
  topLevel: string[];
  links: RecordedLink[];
  /** Members left out by the skip rule (`skipsMember`). */
  skipped: string[];
}

/**
 * Normalises a member path and returns it, or a reason it is unsafe: absolute, drive-letter, NUL,
 * backslash or `..` components, or empty.
 */
export function checkMemberPath(raw: string): { ok: true; path: string } | { ok: false; reason: Text } {
  if (raw.includes("\0")) return { ok: false, reason: t("tar.member.nul") };
  if (raw.startsWith("/") || /^[A-Za-z]:/.test(raw)) return { ok: false, reason: t("tar.member.absolute") };
  if (raw.includes("\\")) return { ok: false, reason: t("tar.member.backslash") };
  const parts = raw.split("/").filter((part) => part !== "" && part !== ".");
  if (parts.includes("..")) return { ok: false, reason: t("tar.member.dotdot") };
  if (parts.length === 0) return { ok: false, reason: t("tar.member.empty") };
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
 * The member checks of a snapshot archive, fed one member at a time: per-member rules as members
 * arrive, the rules that need the whole member list (nothing under a symlink, hard links) in `finish`.
 */
class MemberChecker {
  private readonly problems: Text[] = [];
  private readonly paths: string[] = [];
  private readonly symlinks = new Map<string, string>();
  private readonly hardlinks: Array<{ path: string; target: string }> = [];
  private readonly skipped: string[] = [];
  private readonly recorded: Set<string>;

  constructor(recordedLinks: RecordedLink[]) {
    this.recorded = new Set(recordedLinks.map((link) => `${link.path}\0${link.target}`));
  }

  private refuse(member: string, reason: Text): undefined {
    if (this.problems.length < 5) this.problems.push(t("tar.member", { member, reason }));
    return undefined;
  }

  /**
   * Checks one member; returns its normalised path when it is to be extracted, undefined when it is
   * refused (the archive will be) or left out by the skip rule.
   */
  check(entry: ReadEntry): string | undefined {
    const raw = String(entry.path);
    const checked = checkMemberPath(raw);
    if (!checked.ok) return this.refuse(raw, checked.reason);
    const member = checked.path;
    if (!SAFE_TYPES.has(entry.type)) return this.refuse(raw, t("tar.member.type", { type: entry.type }));
    if (skipsMember(member)) {
      this.skipped.push(member);
      return undefined;
    }
    this.paths.push(member);
    const linkpath = entry.linkpath === undefined ? "" : String(entry.linkpath);
    if (entry.type === "SymbolicLink") {
      const faithful = this.recorded.has(`${member}\0${linkpath}`);
      if (!linkStaysInside(member, linkpath) && !faithful)
        return this.refuse(raw, t("tar.member.linkLeaves", { target: linkpath }));
      this.symlinks.set(member, linkpath);
    } else if (entry.type === "Link") {
      const target = checkMemberPath(linkpath);
      if (!target.ok) return this.refuse(raw, t("tar.member.hardLinkTarget", { reason: target.reason }));
      this.hardlinks.push({ path: member, target: target.path });
    }
    return member;
  }

  /** True once any member was refused. */
  get refused(): boolean {
    return this.problems.length > 0;
  }

  /** The whole-archive rules; throws `curator.unsafe_archive` when anything was refused. */
  finish(): VerifiedArchive {
    const { symlinks } = this;
    for (const member of this.paths) {
      const parts = member.split("/");
      for (let i = 1; i < parts.length; i++) {
        if (symlinks.has(parts.slice(0, i).join("/"))) this.refuse(member, t("tar.member.throughLink"));
      }
    }
    for (const link of this.hardlinks) {
      if (symlinks.has(link.target)) this.refuse(link.path, t("tar.member.hardLinkToLink"));
      if (skipsMember(link.target)) this.refuse(link.path, t("tar.member.hardLinkToSkipped"));
      const parts = link.target.split("/");
      for (let i = 1; i < parts.length; i++) {
        if (symlinks.has(parts.slice(0, i).join("/")))
          this.refuse(link.path, t("tar.member.hardLinkThroughLink"));
      }
    }
    if (this.problems.length > 0) {
      throw new CuratorError("rollback", t("tar.unsafe", { problems: join(this.problems, "; ") }), {
        code: "curator.unsafe_archive",
      });
    }
    const topLevel = [...new Set(this.paths.map((member) => member.split("/")[0] ?? member))].sort();
    return {
      topLevel,
      links: [...symlinks].map(([p, target]) => ({ path: p, target })),
      skipped: this.skipped,
    };
  }
}

function unreadable(archive: string, error: unknown): CuratorError {
  return new CuratorError("rollback", t("tar.unreadable", { archive, cause: errorCause(error) }), {
    cause: error,
  });
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
  const checker = new MemberChecker(recordedLinks);
  try {
    await parseArchive(archive, (entry) => {
      entry.resume();
      checker.check(entry);
    });
  } catch (error) {
    throw unreadable(archive, error);
  }
  return checker.finish();
}

/**
 * The rollback skip rule: a member whose top-level name is not skill-library content — lock files
 * (`.usage.json.lock`, `.locks/`), the audit ledger, backups, the hub, rollback or purge scratch space,
 * atomic-write tmp files — is never extracted, and the live copy stays as it is. Hermes snapshots carry
 * such members (it archives everything under `skills/`); they are bookkeeping of whichever program is
 * running, not library state, so they are skipped rather than a reason to refuse the snapshot.
 */
export function skipsMember(member: string): boolean {
  return !isLibraryEntry(member.split("/")[0] ?? member);
}

/** Files up to this size are written from memory; larger ones are streamed. */
const BUFFERED_FILE_LIMIT = 1024 * 1024;

/**
 * Compressed bytes read from the archive at a time: large enough that per-chunk overhead (a thread-pool
 * read, an event-loop turn) stays small next to inflating it.
 */
const READ_CHUNK_BYTES = 256 * 1024;

/**
 * Inflated bytes handed to the parser at a time. Each chunk's members are written synchronously, so
 * this bounds how long the event loop is held (a few milliseconds) and lets other work on it — a
 * safety snapshot feeding its compressor — interleave finely.
 */
const INFLATE_CHUNK_BYTES = 64 * 1024;

/** An archive inflating to more than this many times its size is refused (a decompression bomb). */
const MAX_INFLATE_RATIO = 1000;

/** True when the file starts with the gzip magic bytes. */
async function isGzipFile(file: string): Promise<boolean> {
  const handle = await fs.open(file, "r");
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    return bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

/**
 * Feeds an archive through tar's parser, calling `onEntry` for every member; resolves when the archive
 * has been read to the end. A gzipped archive is inflated on the thread pool while the parser and
 * `onEntry` work on the main thread (tar's parser would inflate synchronously, between the writes);
 * the decompression-ratio limit tar applies to what it inflates itself is kept. `signal` stops reading.
 */
async function parseArchive(
  archive: string,
  onEntry: (entry: ReadEntry) => void,
  onBytes?: (read: number) => void,
  signal?: AbortSignal,
): Promise<void> {
  const gzipped = await isGzipFile(archive);
  const source = createReadStream(archive, { highWaterMark: READ_CHUNK_BYTES });
  if (signal) addAbortSignal(signal, source);
  if (onBytes) source.on("data", () => onBytes(source.bytesRead));
  const parser = new Parser({ strict: true });
  parser.on("entry", onEntry);
  await new Promise<void>((resolve, reject) => {
    const fail = (error: unknown) => {
      source.destroy();
      reject(error);
    };
    parser.on("end", () => resolve());
    parser.on("error", fail);
    source.on("error", fail);
    if (!gzipped) {
      source.pipe(parser);
      return;
    }
    const gunzip = createGunzip({ chunkSize: INFLATE_CHUNK_BYTES });
    let inflated = 0;
    gunzip.on("data", (chunk: Buffer) => {
      inflated += chunk.length;
      if (inflated > MAX_INFLATE_RATIO * Math.max(source.bytesRead, 1))
        gunzip.destroy(new Error(`inflates more than ${MAX_INFLATE_RATIO} times its size`));
    });
    gunzip.on("error", fail);
    source.pipe(gunzip).pipe(parser);
  });
}

/**
 * Writes a small file from its chunks through one descriptor: created (or truncated), written, its
 * mtime set on the descriptor (no second path lookup), closed.
 */
function writeSmallFile(file: string, chunks: Buffer[], mode: number, mtime: Date | undefined): void {
  const fd = openSync(file, "w", mode);
  try {
    const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    for (let at = 0; at < body.length; ) at += writeSync(fd, body, at, body.length - at);
    if (mtime) futimesSync(fd, mtime, mtime);
  } finally {
    closeSync(fd);
  }
}

/**
 * Checks and extracts an archive into `dest` (which must exist and be empty) in one pass, with the
 * rules of `verifyArchive`: when any member is refused, `curator.unsafe_archive` is thrown after the
 * pass and the caller removes `dest` — nothing outside it was touched. We write every member ourselves
 * (tar's parser only reads); member paths are plain relative paths, and no symlink exists inside `dest`
 * until the whole archive passed, when the symlinks are created exactly as archived. Modes keep only
 * permission bits; mtimes are kept. Small files are written synchronously (no thread-pool hop per
 * file); the parser still yields to the event loop between chunks of the archive.
 */
export async function extractChecked(
  archive: string,
  dest: string,
  recordedLinks: RecordedLink[] = [],
  progress?: (archiveBytesRead: number) => void,
  signal?: AbortSignal,
): Promise<VerifiedArchive> {
  const checker = new MemberChecker(recordedLinks);
  const streams: Array<Promise<void>> = [];
  const sinks: WriteStream[] = [];
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
      if (failure === undefined && !checker.refused) fn();
    } catch (error) {
      failure ??= error;
    }
  };
  try {
    await parseArchive(
      archive,
      (entry) => {
        const member = checker.check(entry);
        if (member === undefined || checker.refused) {
          entry.resume();
          return;
        }
        const abs = path.join(dest, ...member.split("/"));
        const mtime = entry.mtime;
        if (entry.type === "Directory" || entry.type === "SymbolicLink" || entry.type === "Link") {
          entry.resume();
          guarded(() => {
            if (entry.type === "Directory") {
              ensureDir(abs);
              if (mtime) dirTimes.push([abs, mtime]);
            } else if (entry.type === "Link") {
              const target = checkMemberPath(String(entry.linkpath ?? ""));
              if (!target.ok) throw new Error(`hard link '${member}' has an unsafe target`);
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
          sinks.push(sink);
          entry.pipe(sink);
          return;
        }
        const chunks: Buffer[] = [];
        entry.on("data", (chunk: Buffer) => chunks.push(chunk));
        entry.on("end", () =>
          guarded(() => {
            ensureDir(path.dirname(abs));
            writeSmallFile(abs, chunks, mode, mtime);
          }),
        );
      },
      progress,
      signal,
    );
  } catch (error) {
    // A member cut off by the failure never ends: its file is closed here, not waited for.
    for (const sink of sinks) sink.destroy();
    await Promise.allSettled(streams);
    throw unreadable(archive, error);
  }
  await Promise.allSettled(streams);
  // Refusals first: a member the checks refused may also have made a write fail.
  const verified = checker.finish();
  if (failure !== undefined) throw failure;
  for (const link of verified.links) {
    const where = path.join(dest, ...link.path.split("/"));
    ensureDir(path.dirname(where));
    await fs.rm(where, { force: true });
    await fs.symlink(link.target, where);
  }
  // Directories get their times last (writing into them changed them), deepest first, synchronously:
  // one awaited thread-pool trip per directory would cost more than the calls themselves.
  for (const [dir, mtime] of dirTimes.reverse()) {
    try {
      utimesSync(dir, mtime, mtime);
    } catch {
      // A directory time is cosmetic; its content is what was verified.
    }
  }
  return verified;
}
