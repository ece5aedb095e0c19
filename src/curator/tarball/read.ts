/**
 * Reading snapshot archives safely: every member is checked (type, path, link target) before anything
 * is written, and extraction writes only what the check passed. The one place the archive safety rules
 * live; whole-tree rollback uses it.
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
import { Parser, type ReadEntry } from "tar";
import { CuratorError } from "../../core/errors.js";
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
  const skipped: string[] = [];
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
      if (!SAFE_TYPES.has(entry.type))
        return refuse(raw, `is a ${entry.type}, which a snapshot never contains`);
      if (skipsMember(member)) {
        skipped.push(member);
        return;
      }
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
    if (skipsMember(link.target)) refuse(link.path, "is a hard link to a member a rollback skips");
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
  return { topLevel, links: [...symlinks].map(([p, target]) => ({ path: p, target })), skipped };
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
    if (skipsMember(checked.path)) {
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
