/**
 * The archive layout shared with Hermes: archived packages sit flat under `skills/.archive/<dir>`
 * (`<dir>-YYYYMMDDHHMMSS` when that name is taken), where Hermes' `list-archived` and `restore` find
 * them. Where a skill lived (`category/name`) is recorded in its `.usage.json` record as
 * `archived_from`, a key Hermes keeps but ignores, so skillgate's restore can put it back in its
 * category. Homes archived by earlier skillgate versions in `.archive/<category>/<name>` are migrated
 * to the flat layout, their category recorded the same way.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { homePaths } from "../config/home.js";
import { readTextIfExists, withLock } from "../core/fsutil.js";
import { emptyRecord, type UsageMap, UsageStore } from "../skills/usage.js";
import { frontmatterName } from "./provenance.js";

/** The usage-record key holding where an archived skill lived, relative to `skills/`. */
export const ARCHIVED_FROM_KEY = "archived_from";

/** Where the record says `name` lived before it was archived, or null. */
export function archivedFrom(records: Readonly<UsageMap>, name: string): string | null {
  const value = (records[name] as Record<string, unknown> | undefined)?.[ARCHIVED_FROM_KEY];
  return typeof value === "string" && value !== "" ? value : null;
}

/** Records (or, with null, forgets) where `name` lived before it was archived. */
export function setArchivedFrom(records: UsageMap, name: string, relPath: string | null): void {
  const record = (records[name] ?? emptyRecord()) as Record<string, unknown>;
  if (relPath === null) delete record[ARCHIVED_FROM_KEY];
  else record[ARCHIVED_FROM_KEY] = relPath;
  records[name] = record as UsageMap[string];
}

async function exists(target: string): Promise<boolean> {
  return fs
    .lstat(target)
    .then(() => true)
    .catch(() => false);
}

/** A free flat place under `.archive/` for a folder called `base`, suffixed with `stamp` on a collision. */
export async function flatArchiveDestination(
  archiveRoot: string,
  base: string,
  stamp: string,
): Promise<string> {
  const plain = path.join(archiveRoot, base);
  if (!(await exists(plain))) return plain;
  const stamped = `${plain}-${stamp}`;
  if (!(await exists(stamped))) return stamped;
  for (let n = 2; ; n += 1) {
    const candidate = `${stamped}-${n}`;
    if (!(await exists(candidate))) return candidate;
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
      if (child.isDirectory() && !child.isSymbolicLink())
        await walk(path.join(dir, child.name), rel ? `${rel}/${child.name}` : child.name, depth + 1);
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
  if (!(await exists(paths.archive))) return 0;
  if ((await nestedPackages(paths.archive)).length === 0) return 0;
  return withLock(path.join(paths.locks, "archive-layout"), async () => {
    const nested = await nestedPackages(paths.archive);
    const stamp = now.toISOString().replace(/[-:T]/g, "").replace(/\..*$/, "");
    const moved: Array<{ name: string; from: string }> = [];
    for (const rel of nested) {
      const source = path.join(paths.archive, ...rel.split("/"));
      const base = path.posix.basename(rel);
      const dest = await flatArchiveDestination(paths.archive, base, stamp);
      await fs.rename(source, dest);
      const text = await readTextIfExists(path.join(dest, "SKILL.md")).catch(() => undefined);
      const name =
        (text !== undefined ? frontmatterName(text) : undefined) ?? base.replace(/-\d{14}(-\d+)?$/, "");
      moved.push({ name, from: rel.replace(/-\d{14}(-\d+)?$/, "") });
      // Empty category folders left behind go too (never one that still holds anything).
      let parent = path.dirname(source);
      while (parent !== paths.archive && (await fs.readdir(parent).catch(() => ["?"])).length === 0) {
        await fs.rmdir(parent).catch(() => undefined);
        parent = path.dirname(parent);
      }
    }
    if (moved.length > 0) {
      await new UsageStore(paths.skills).update((records) => {
        for (const { name, from } of moved)
          if (archivedFrom(records, name) === null) setArchivedFrom(records, name, from);
      });
    }
    return moved.length;
  });
}
