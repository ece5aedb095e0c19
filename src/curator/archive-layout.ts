/**
 * The archive layout shared with Hermes: archived packages sit flat under `skills/.archive/<dir>`
 * (`<dir>-YYYYMMDDHHMMSS` when that name is taken), where Hermes' `list-archived` and `restore` find
 * them. Where each package lived (`category/name`) is recorded in `skills/.archive_origins.json`, a
 * file Hermes ignores (and `.usage.json` stays exactly as Hermes would write it), so skillgate's restore
 * can put a skill back in its category.
 *
 * A record names the very archive it was made for, by two marks taken when it is written: the digest of
 * the archived `SKILL.md`, and the archived folder's identity (inode and change time). Hermes archives
 * and restores by renaming the folder (`tools/skill_usage.py`, `archive_skill` and `restore_skill`, in
 * NousResearch/hermes-agent): the content and the inode survive, but every rename sets a new change
 * time. So a record left behind by a Hermes restore never applies to the package Hermes archives again
 * later — whether it is the same content (moved to another category in between) or another package
 * under the same folder name. Records written before the identity was kept carry only the digest (or
 * nothing) and are trusted after the ledger (see `archive-ledger-origin.ts`).
 *
 * Homes archived by earlier skillgate versions in `.archive/<category>/<name>` are migrated to the flat
 * layout, their category recorded the same way.
 */
import { createHash } from "node:crypto";
import { promises as fs, lstatSync, readFileSync } from "node:fs";
import path from "node:path";
import { homePaths } from "../config/home.js";
import {
  atomicWriteFile,
  namesUpTo,
  parseJsonObject,
  pathExists,
  readTextIfExists,
  stableJson,
  withLock,
} from "../core/fsutil.js";

/**
 * The sidecar holding where each archived package lived:
 * `{ "<folder under .archive>": {"from": "<category/name>", "skill_md_sha256": "<hex>",
 * "folder_identity": "<inode>:<ctime ns>"} }` (older files hold the bare `"<category/name>"`, or no
 * identity).
 */
export function archiveOriginsFile(home: string): string {
  return path.join(homePaths(home).skills, ".archive_origins.json");
}

/** Where an archived folder lived, and which archive it was (its `SKILL.md` digest and folder identity). */
export interface ArchiveOrigin {
  from: string;
  /** sha256 of the `SKILL.md` archived; absent in records written before it was kept. */
  skillMd?: string;
  /**
   * The archived folder's `archiveFolderIdentity` when the record was written; set by
   * `updateArchiveOrigins`, absent in records written before it was kept.
   */
  folder?: string;
}

function originsLock(home: string): string {
  return path.join(homePaths(home).locks, "archive-origins");
}

/** The sha256 of `<dir>/SKILL.md` (hex), or undefined when it cannot be read. */
export function skillMdDigest(dir: string): string | undefined {
  try {
    return createHash("sha256")
      .update(readFileSync(path.join(dir, "SKILL.md")))
      .digest("hex");
  } catch {
    return undefined;
  }
}

/**
 * What tells one archive of a folder from another: its inode and change time (`<ino>:<ctime ns>`, of the
 * folder itself, a link not followed), or undefined when it cannot be read. A rename (Hermes' archive
 * and restore, a move between categories) sets a new change time; nothing skillgate or Hermes does to
 * an archived package in place changes it.
 */
export function archiveFolderIdentity(dir: string): string | undefined {
  try {
    const stat = lstatSync(dir, { bigint: true, throwIfNoEntry: false });
    return stat ? `${stat.ino}:${stat.ctimeNs}` : undefined;
  } catch {
    return undefined;
  }
}

/** Every origin record, keyed by the folder under `.archive/`. */
export async function readArchiveOriginRecords(home: string): Promise<Record<string, ArchiveOrigin>> {
  const text = await readTextIfExists(archiveOriginsFile(home)).catch(() => undefined);
  const parsed = text === undefined ? undefined : parseJsonObject(text);
  const out: Record<string, ArchiveOrigin> = {};
  for (const [key, value] of Object.entries(parsed ?? {})) {
    if (typeof value === "string") out[key] = { from: value };
    else if (value && typeof value === "object" && typeof (value as { from?: unknown }).from === "string") {
      const record = value as { from: string; skill_md_sha256?: unknown; folder_identity?: unknown };
      out[key] = {
        from: record.from,
        ...(typeof record.skill_md_sha256 === "string" ? { skillMd: record.skill_md_sha256 } : {}),
        ...(typeof record.folder_identity === "string" ? { folder: record.folder_identity } : {}),
      };
    }
  }
  return out;
}

/** Where each archived folder (its path under `.archive/`) lived, relative to `skills/`. */
export async function readArchiveOrigins(home: string): Promise<Record<string, string>> {
  const records = await readArchiveOriginRecords(home);
  return Object.fromEntries(Object.entries(records).map(([folder, origin]) => [folder, origin.from]));
}

/**
 * True when `origin` was recorded for the archive whose folder has the identity `identity` and whose
 * `SKILL.md` has the digest `digest`. A mark the record lacks (written before it was kept) is not
 * checked: such a record is only trusted after the ledger (see `listArchived`).
 */
export function originApplies(
  origin: ArchiveOrigin,
  digest: () => string | undefined,
  identity: () => string | undefined,
): boolean {
  if (origin.folder !== undefined && origin.folder !== identity()) return false;
  return origin.skillMd === undefined || origin.skillMd === digest();
}

/**
 * Records (an origin) or forgets (null) the origins of archived folders, under the origins lock. Each
 * record written is stamped with its folder's identity as it is now (the caller has just moved it
 * there), whatever `folder` the caller passed.
 */
export async function updateArchiveOrigins(
  home: string,
  changes: Record<string, ArchiveOrigin | null>,
): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  await withLock(originsLock(home), async () => {
    const origins = await readArchiveOriginRecords(home);
    const archive = homePaths(home).archive;
    for (const [folder, origin] of Object.entries(changes)) {
      if (origin === null) {
        delete origins[folder];
        continue;
      }
      const marks = {
        from: origin.from,
        ...(origin.skillMd === undefined ? {} : { skillMd: origin.skillMd }),
      };
      const identity = archiveFolderIdentity(path.join(archive, ...folder.split("/")));
      origins[folder] = identity === undefined ? marks : { ...marks, folder: identity };
    }
    const onDisk = Object.fromEntries(
      Object.entries(origins).map(([folder, origin]) => [
        folder,
        origin.skillMd === undefined && origin.folder === undefined
          ? origin.from
          : {
              from: origin.from,
              ...(origin.skillMd === undefined ? {} : { skill_md_sha256: origin.skillMd }),
              ...(origin.folder === undefined ? {} : { folder_identity: origin.folder }),
            },
      ]),
    );
    await atomicWriteFile(archiveOriginsFile(home), stableJson(onDisk));
  });
}

/** Forgets the origins of folders no longer under `.archive/` (restored or rolled back by either program). */
export async function forgetMissingOrigins(home: string, folders: readonly string[]): Promise<void> {
  const archive = homePaths(home).archive;
  const gone: Record<string, null> = {};
  for (const folder of folders) {
    if (!(await pathExists(path.join(archive, ...folder.split("/"))))) gone[folder] = null;
  }
  await updateArchiveOrigins(home, gone);
}

/**
 * A free flat place under `.archive/` for a folder called `base`: `.archive/<base>`, suffixed with `stamp`
 * (and `-2`, `-3`, …) on a collision. A batch passes `taken`, the archive's names it listed
 * (`listArchiveNames`): names are then looked up there instead of on disk, and the chosen one is added.
 */
export function flatArchiveDestination(
  archiveRoot: string,
  base: string,
  stamp: string,
  taken?: Set<string>,
): string {
  // Usually free at the first try: told without an exception, or without a look at the disk at all.
  const free = (name: string) => {
    if (taken) return !taken.has(archiveNameKey(name));
    try {
      return lstatSync(path.join(archiveRoot, name), { throwIfNoEntry: false }) === undefined;
    } catch {
      return true;
    }
  };
  let name = base;
  if (!free(name)) {
    name = `${base}-${stamp}`;
    for (let n = 2; !free(name); n += 1) name = `${base}-${stamp}-${n}`;
  }
  taken?.add(archiveNameKey(name));
  return path.join(archiveRoot, name);
}

/**
 * How an archive folder name is compared with the listed ones: case and Unicode form folded, so a
 * name a case-insensitive or normalizing file system would see as taken is taken here too.
 */
function archiveNameKey(name: string): string {
  return name.normalize("NFC").toLowerCase();
}

/**
 * The archive folder's names, folded (see `archiveNameKey`), when it is small enough to list for a batch
 * of `count` archives; undefined when each destination is looked up on disk instead.
 */
export function listArchiveNames(archiveRoot: string, count: number): Set<string> | undefined {
  const names = namesUpTo(archiveRoot, 16 * count);
  return names && new Set([...names].map(archiveNameKey));
}

/** True when `dir` holds a regular `SKILL.md` (an unreadable folder is left to the walk). */
function isFlatPackage(dir: string): boolean {
  try {
    return lstatSync(path.join(dir, "SKILL.md"), { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false;
  }
}

/** Packages found below a category folder of `.archive/` (the old layout), deepest paths relative to the root. */
async function nestedPackages(root: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, rel: string, depth: number): Promise<void> => {
    let children: import("node:fs").Dirent[];
    try {
      children = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    if (depth > 0 && children.some((child) => child.isFile() && child.name === "SKILL.md")) {
      if (depth > 1) found.push(rel);
      return;
    }
    for (const child of children) {
      if (!child.isDirectory() || child.isSymbolicLink()) continue;
      const full = path.join(dir, child.name);
      // A flat package (the usual case, thousands of them) is told by one synchronous lstat of its
      // SKILL.md instead of a listing through the thread pool; only other folders are walked.
      if (depth === 0 && isFlatPackage(full)) continue;
      await walk(full, rel ? `${rel}/${child.name}` : child.name, depth + 1);
    }
  };
  await walk(root, "", 0);
  return found.sort();
}

/**
 * Moves packages archived in the old `.archive/<category>/<name>` layout to `.archive/<name>` and
 * records their category in `.usage.json`, then removes the category folders left empty. Idempotent
 * and safe to run from several processes (one at a time, under a lock). Returns how many moved.
 */
export async function migrateArchiveLayout(home: string, now: Date = new Date()): Promise<number> {
  const paths = homePaths(home);
  if (!(await pathExists(paths.archive))) return 0;
  if ((await nestedPackages(paths.archive)).length === 0) return 0;
  return withLock(path.join(paths.locks, "archive-layout"), async () => {
    const nested = await nestedPackages(paths.archive);
    const stamp = now.toISOString().replace(/[-:T]/g, "").replace(/\..*$/, "");
    const moved: Array<{ folder: string; origin: ArchiveOrigin }> = [];
    for (const rel of nested) {
      const source = path.join(paths.archive, ...rel.split("/"));
      const base = path.posix.basename(rel);
      const dest = flatArchiveDestination(paths.archive, base, stamp);
      await fs.rename(source, dest);
      moved.push({
        folder: path.basename(dest),
        origin: { from: rel.replace(/-\d{14}(-\d+)?$/, ""), skillMd: skillMdDigest(dest) },
      });
      // Empty category folders left behind go too (never one that still holds anything).
      let parent = path.dirname(source);
      while (parent !== paths.archive && (await fs.readdir(parent).catch(() => ["?"])).length === 0) {
        await fs.rmdir(parent).catch(() => undefined);
        parent = path.dirname(parent);
      }
    }
    await updateArchiveOrigins(home, Object.fromEntries(moved.map(({ folder, origin }) => [folder, origin])));
    return moved.length;
  });
}
