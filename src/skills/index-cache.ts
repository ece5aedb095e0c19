/**
 * The persistent scan index: the `ScanCache` of the last scan, kept in
 * `<home>/.cache/skillgate/skills-index.json` so a fresh process (`skillgate skills list`) validates the
 * library with one `stat` per folder and per SKILL.md instead of walking and parsing it again. It lives
 * outside `<home>/skills`, which belongs to the agent and gets snapshotted.
 *
 * It is only a cache. Every entry carries the stamp its path had when it was read and is reused only when
 * the path still has that stamp (see `scan.ts`), so the index never decides what the library contains;
 * entries are keyed by absolute path, so changed roots (`skills.external_dirs`, a retargeted symlink) simply
 * miss or fail the stamp check. Anything unexpected on load (missing file, bad JSON, another version, a
 * malformed entry) means no index, and the scan starts from scratch. Writes are a plain tmp file + rename
 * (no fsync: a torn file fails to parse and is ignored), and a failed write (read-only home) is ignored.
 *
 * Frontmatter is stored as JSON; values JSON cannot carry exactly (non-finite numbers, -0) keep that
 * skill out of the index. Descriptions are stored only when they do not follow from the frontmatter;
 * names and the OS/environment gates are derived again on load.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  buildHead,
  type CachedHead,
  type DirListing,
  declaredDescription,
  type Gates,
  type ScanCache,
  type Stamp,
  UNSETTLED,
} from "./scan.js";

/** Bump when the stored shape or the meaning of a listing/head changes. */
const INDEX_VERSION = 1;
const INDEX_FORMAT = "skillgate-skills-index";

/** Where the index of `home` lives. */
export function indexPath(home: string): string {
  return path.join(home, ".cache", "skillgate", "skills-index.json");
}

type StoredStamp = [mtimeMs: number, ctimeMs: number, size: number, ino: number, dev: number];
type StoredDir = [dir: string, ...stamp: StoredStamp, entries: string];
type StoredHead = [
  file: string,
  ...stamp: StoredStamp,
  frontmatter: Record<string, unknown>,
  description: string | 0,
];

interface StoredIndex {
  format: string;
  version: number;
  dirs: StoredDir[];
  heads: StoredHead[];
}

/** Thrown inside `loadIndex` when the file does not have the expected shape. */
class Malformed extends Error {}

function stampAt(item: unknown[]): Stamp {
  for (let index = 1; index <= 5; index++) if (typeof item[index] !== "number") throw new Malformed();
  return {
    mtimeMs: item[1] as number,
    ctimeMs: item[2] as number,
    size: item[3] as number,
    ino: item[4] as number,
    dev: item[5] as number,
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function parseDirs(items: unknown): Map<string, DirListing> {
  if (!Array.isArray(items)) throw new Malformed();
  const dirs = new Map<string, DirListing>();
  for (const item of items as unknown[][]) {
    if (!Array.isArray(item) || typeof item[0] !== "string" || typeof item[6] !== "string")
      throw new Malformed();
    dirs.set(item[0], { stamp: stampAt(item), entries: item[6] });
  }
  return dirs;
}

function parseHeads(items: unknown, gates: Gates): Map<string, CachedHead> {
  if (!Array.isArray(items)) throw new Malformed();
  const heads = new Map<string, CachedHead>();
  for (const item of items as unknown[][]) {
    const file = item[0];
    const frontmatter = item[6];
    const description = item[7];
    if (typeof file !== "string" || !isPlainObject(frontmatter)) throw new Malformed();
    if (description !== 0 && typeof description !== "string") throw new Malformed();
    const dirName = path.basename(path.dirname(file));
    const text = description === 0 ? declaredDescription(frontmatter) : description;
    heads.set(file, { stamp: stampAt(item), head: buildHead(frontmatter, text, dirName, gates) });
  }
  return heads;
}

/** Reads the index of `home`; undefined when there is none or it cannot be used. */
export function loadIndex(home: string, gates: Gates): ScanCache | undefined {
  try {
    const stored = JSON.parse(readFileSync(indexPath(home), "utf8")) as Partial<StoredIndex>;
    if (stored.format !== INDEX_FORMAT || stored.version !== INDEX_VERSION) return undefined;
    return { dirs: parseDirs(stored.dirs), heads: parseHeads(stored.heads, gates) };
  } catch {
    return undefined;
  }
}

/** True when JSON carries `value` exactly (plain objects, arrays, strings, booleans, null, finite numbers). */
function isJsonExact(value: unknown): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value) && !Object.is(value, -0);
    case "object":
      if (value === null) return true;
      if (Array.isArray(value)) return value.every(isJsonExact);
      return isPlainObject(value) && Object.values(value).every(isJsonExact);
    default:
      return false;
  }
}

function storedStamp(stamp: Stamp): StoredStamp {
  return [stamp.mtimeMs, stamp.ctimeMs, stamp.size, stamp.ino, stamp.dev];
}

/** The JSON text of an index for `cache` (unsettled entries and inexact frontmatter left out). */
export function serializeIndex(cache: ScanCache): string {
  const dirs: StoredDir[] = [];
  for (const [dir, listing] of cache.dirs) {
    if (listing.stamp !== UNSETTLED) dirs.push([dir, ...storedStamp(listing.stamp), listing.entries]);
  }
  const heads: StoredHead[] = [];
  for (const [file, { stamp, head }] of cache.heads) {
    if (stamp === UNSETTLED || !isJsonExact(head.frontmatter)) continue;
    const description = head.description === declaredDescription(head.frontmatter) ? 0 : head.description;
    heads.push([file, ...storedStamp(stamp), head.frontmatter, description]);
  }
  const index: StoredIndex = { format: INDEX_FORMAT, version: INDEX_VERSION, dirs, heads };
  return JSON.stringify(index);
}

/** Writes the index of `home` (tmp file + rename). Returns false when it could not be written. */
export function saveIndex(home: string, cache: ScanCache): boolean {
  const file = indexPath(home);
  const tmp = `${path.dirname(file)}${path.sep}.${path.basename(file)}.${process.pid}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(tmp, serializeIndex(cache));
    renameSync(tmp, file);
    return true;
  } catch {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // Nothing was written.
    }
    return false;
  }
}
