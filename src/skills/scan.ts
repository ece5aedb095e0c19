/**
 * The walk over skill roots, following Hermes' rules: dependency and metadata folders are pruned
 * everywhere; inside a folder that has a SKILL.md, the support folders (`references templates assets
 * scripts`) are pruned too (a category merely named `scripts` stays discoverable); symlinked folders are
 * followed, each real folder at most once, so link loops end. Each SKILL.md is read up to its first 4000
 * characters with a bounded read (`skill-head.ts`).
 *
 * Incremental scans: every folder listing and every SKILL.md head is kept in a `ScanCache` together with
 * the stamp (mtime, ctime, size, inode) its path had just before it was read. A later scan stats each
 * path first and reuses what it recorded when the stamp is unchanged, so an unchanged tree costs one
 * `stat` per folder and per SKILL.md instead of a `readdir`, an open/read/close and a parse. Adding,
 * removing or renaming an entry changes its folder's mtime; editing a file changes its own mtime/ctime;
 * an atomic replace changes its inode; a retargeted symlink leads to another inode. Entries whose mtime or
 * ctime is within `RACY_MS` of the scan are never trusted later (a change in the same clock tick would
 * keep the stamp), so they are re-read until they settle. The same cache backs the long-running library
 * and, through `index-cache.ts`, fresh processes.
 *
 * The walk is synchronous on purpose: on a warm page cache, sync `readdir`/`open`/`read` are about twice
 * as fast as their promise versions on this kind of tree.
 */

import { type Dirent, readdirSync, realpathSync, type Stats, statSync } from "node:fs";
import path from "node:path";
import { errorCause } from "../core/errors.js";
import { type Text, t } from "../core/i18n/messages.js";
import { RACY_MS } from "../core/read-cache.js";
import { escapeError, isWithin, MAX_SKILL_MD_BYTES, realPathOf, tooLargeError } from "./containment.js";
import type { SkillRoot } from "./roots.js";
import { appendStamp, PLAIN_SKILL, ScanCache, type ScanColumns, type SkillHead } from "./scan-cache.js";
import { categoryOf, Gates, isStorableHead, loadHead } from "./skill-head.js";
import { HERMES_SKIP_DIRS, SUPPORT_DIR_NAMES, SUPPORT_DIRS } from "./skip-dirs.js";

/** Folders never walked: Hermes' list; `.curator_backups` and `.locks` (and rollback staging) are skillgate additions. */
export const EXCLUDED_DIRS = new Set([...HERMES_SKIP_DIRS, ".curator_backups", ".locks"]);

export { SUPPORT_DIR_NAMES, SUPPORT_DIRS };

/** True for a folder name the walk skips everywhere. */
export function isExcludedDir(name: string): boolean {
  return EXCLUDED_DIRS.has(name) || name.startsWith(".rollback-staging-");
}

/** One SKILL.md found by the walk. */
export interface ScanRecord {
  rootIndex: number;
  /** Skill folder as reached from the root (symlinks not resolved). */
  dir: string;
  /** Skill folder resolved through symlinks. */
  realDir: string;
  /** SKILL.md path relative to the root, POSIX separators. */
  relFile: string;
  skillFile: string;
  /** First path component when the skill sits in a category folder, else null. */
  category: string | null;
  /** The row of the skill folder's listing in this scan's cache (`ScanCache`). */
  dirRow: number;
  /** SKILL.md is a symlink (or of unknown type): its real path is checked against `realDir` each scan. */
  linked?: boolean;
  head?: SkillHead;
  /** Why the file could not be read (the skill is skipped, and listing says so). */
  error?: Text;
}

/** How much of the disk a scan had to read (for tests and diagnostics). */
export interface ScanStats {
  /** Folders listed with `readdir` (the rest came from the cache). */
  dirsListed: number;
  /** SKILL.md heads read and parsed (the rest came from the cache). */
  headsRead: number;
}

/** The outcome of one walk over all roots. */
export interface ScanResult {
  roots: SkillRoot[];
  /** Sorted by root order, then by relative SKILL.md path. */
  records: ScanRecord[];
  /** Legacy single-file skills: `<stem>` → `.md` files outside skill folders, in walk order. */
  legacy: Map<string, string[]>;
  /** Every real folder walked (for watchers). */
  dirs: string[];
  /** The listings and heads of this scan, for the next one. */
  cache: ScanCache;
  /** True when `cache` differs from the cache the scan was given. */
  changed: boolean;
  stats: ScanStats;
}

/** `stat` of `file` (following symlinks), or undefined when it cannot be stat'ed. */
function statOf(file: string): Stats | undefined {
  try {
    return statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

type Kind = "dir" | "file" | "other";

function statKind(full: string): Kind {
  try {
    const stat = statSync(full);
    return stat.isDirectory() ? "dir" : stat.isFile() ? "file" : "other";
  } catch {
    return "other";
  }
}

/** The kind of one encoded entry (`d`, `f`, or `l`/`u`, which are resolved with `stat`). */
function kindOfEntry(type: string, full: string): Kind {
  return type === "d" ? "dir" : type === "f" ? "file" : statKind(full);
}

function typeLetter(entry: Dirent): string | undefined {
  if (entry.isDirectory()) return "d";
  if (entry.isFile()) return "f";
  if (entry.isSymbolicLink()) return "l";
  if (entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice())
    return undefined;
  return "u";
}

/**
 * Encodes a folder's entries as the cache keeps them: each entry the walk needs as a type letter and the
 * name (`d` folder, `f` file, `l` symlink, `u` unknown type), joined by `/` (which no name contains).
 * Entries the walk can never use (excluded names, non-`.md` files, devices; support folders beside a
 * regular SKILL.md) are left out.
 */
function encodeEntries(entries: Dirent[]): string {
  let skillType: string | undefined;
  for (const entry of entries) if (entry.name === "SKILL.md") skillType = typeLetter(entry);
  const parts: string[] = [];
  for (const entry of entries) {
    const name = entry.name;
    const type = typeLetter(entry);
    if (type === undefined) continue;
    if (name !== "SKILL.md") {
      if (isExcludedDir(name) || (skillType === "f" && SUPPORT_DIRS.has(name))) continue;
      if (type === "f" && !name.endsWith(".md")) continue;
    }
    parts.push(type + name);
  }
  return parts.join("/");
}

/** Options of `scanRoots`. */
export interface ScanOptions {
  /** What an earlier scan recorded: listings and heads whose stamps still match are reused. */
  cache?: ScanCache;
  /** OS/environment gates (default: detected for this process). */
  gates?: Gates;
  /** Settle time (default `RACY_MS`): entries changed more recently than this are re-read next time. */
  racyMs?: number;
}

/** Walks every root and reads every SKILL.md head. Never throws for unreadable entries. */
export function scanRoots(roots: SkillRoot[], options: ScanOptions = {}): ScanResult {
  const walker = new Walker(roots, options.cache, options.gates ?? new Gates(), options.racyMs ?? RACY_MS);
  const records: ScanRecord[] = [];
  const legacy = new Map<string, string[]>();
  const dirs: string[] = [];
  roots.forEach((root, rootIndex) => {
    if (!root.exists) return;
    const found = walker.walkRoot(root, rootIndex, legacy, dirs);
    found.sort((a, b) => (a.relFile < b.relFile ? -1 : a.relFile > b.relFile ? 1 : 0));
    for (const record of found) {
      walker.readHead(record);
      records.push(record);
    }
  });
  return { roots, records, legacy, dirs, ...walker.outcome() };
}

/** A folder this walk listed with `readdir`: new, or recorded before under another stamp. */
interface FreshDir {
  rel: string;
  /** mtimeMs (NaN when unsettled), ctimeMs, size, ino, dev. */
  stamp: number[];
  entries: string;
  /** Its row in the old cache, or -1. */
  oldRow: number;
  /** Same entries as its old row: only something the walk ignores changed. */
  restamped: boolean;
}

/** A SKILL.md this walk read: new, or recorded before under another stamp. */
interface FreshHead {
  stamp: number[];
  head: SkillHead;
}

/** One walk: reuses the old cache where stamps match and records the new one. */
class Walker {
  private readonly old: ScanCache;
  /** Per root of this walk: its index among the old cache's roots, or -1. */
  private readonly oldRoots: number[];
  /** The old row the next folder is expected at: the walk visits folders in the order it recorded them. */
  private hint = 0;
  /**
   * This walk's folder rows, in visit order: an old row reused as it was (≥ 0), or `~i` for
   * `freshDirs[i]`. `dirVisitRoots` holds each one's root. The new cache is built from these.
   */
  private readonly dirVisits: number[] = [];
  private readonly dirVisitRoots: number[] = [];
  private readonly freshDirs: FreshDir[] = [];
  /** This walk's heads, in read order: an old head row (≥ 0) or `~i` for `freshHeads[i]`; and their folder rows. */
  private readonly headVisits: number[] = [];
  private readonly headVisitDirs: number[] = [];
  private readonly freshHeads: FreshHead[] = [];
  /** Old folder rows this walk reused, as they were or under a new stamp. */
  private reusedDirs = 0;
  private keptHeads = 0;
  private readonly stats: ScanStats = { dirsListed: 0, headsRead: 0 };
  /** Stamps at or after this time are recorded as unsettled. */
  private readonly settledBefore: number;

  constructor(
    private readonly roots: SkillRoot[],
    old: ScanCache | undefined,
    private readonly gates: Gates,
    racyMs: number,
  ) {
    this.old = old ?? ScanCache.empty();
    const oldRoots = this.old.columns.roots;
    this.oldRoots = roots.map((root) => oldRoots.indexOf(root.dir));
    this.settledBefore = Date.now() - racyMs;
  }

  /**
   * The new cache, and whether it differs from the old one in what the persistent index stores: an entry
   * dropped, or a new settled (and storable) one. Every walked path is visited once, so "nothing new and
   * every old row reused" means the same cache.
   */
  outcome(): Pick<ScanResult, "cache" | "changed" | "stats"> {
    const dropped = this.reusedDirs < this.old.dirCount || this.keptHeads < this.old.headCount;
    const added =
      this.freshDirs.some((dir) => !dir.restamped && !Number.isNaN(dir.stamp[0])) ||
      this.freshHeads.some((fresh) => !Number.isNaN(fresh.stamp[0]) && isStorableHead(fresh.head));
    const same = !dropped && this.freshDirs.length === 0 && this.freshHeads.length === 0;
    return { cache: same ? this.old : this.newCache(), changed: dropped || added, stats: this.stats };
  }

  /** The cache of this walk: its rows in visit order, old rows copied over. */
  private newCache(): ScanCache {
    const old = this.old.columns;
    const columns = {
      roots: this.roots.map((root) => root.dir),
      dirRoot: this.dirVisitRoots,
      dirRel: [] as string[],
      dirStamps: [] as number[],
      dirEntries: [] as string[],
      headDir: this.headVisitDirs,
      headStamps: [] as number[],
    } satisfies ScanColumns;
    for (const visit of this.dirVisits) {
      if (visit >= 0) {
        columns.dirRel.push(old.dirRel[visit] as string);
        columns.dirEntries.push(old.dirEntries[visit] as string);
        appendStamp(columns.dirStamps, old.dirStamps, visit);
      } else {
        const fresh = this.freshDirs[~visit] as FreshDir;
        columns.dirRel.push(fresh.rel);
        columns.dirEntries.push(fresh.entries);
        appendStamp(columns.dirStamps, fresh.stamp, 0);
      }
    }
    const heads: SkillHead[] = [];
    for (const visit of this.headVisits) {
      if (visit >= 0) {
        heads.push(this.old.headAt(visit));
        appendStamp(columns.headStamps, old.headStamps, visit);
      } else {
        const fresh = this.freshHeads[~visit] as FreshHead;
        heads.push(fresh.head);
        appendStamp(columns.headStamps, fresh.stamp, 0);
      }
    }
    return new ScanCache(columns, heads);
  }

  /** The stamp to record for `stat`: its mtime is NaN (never matches) while the entry may still change. */
  private stampOf(stat: Stats): number[] {
    const settled = stat.mtimeMs < this.settledBefore && stat.ctimeMs < this.settledBefore;
    return [settled ? stat.mtimeMs : Number.NaN, stat.ctimeMs, stat.size, stat.ino, stat.dev];
  }

  /** The old row of this walk's folder row `row`, or -1. */
  private oldRowOf(row: number): number {
    const visit = this.dirVisits[row] as number;
    return visit >= 0 ? visit : (this.freshDirs[~visit] as FreshDir).oldRow;
  }

  /**
   * The encoded entries of `dir` (`rel` below root `rootIndex`), from the cache when its stamp is
   * unchanged; undefined if unreadable. A listed folder becomes this walk's last folder row.
   */
  private list(dir: string, rootIndex: number, rel: string): string | undefined {
    const stat = statOf(dir);
    if (!stat) return undefined;
    const oldRoot = this.oldRoots[rootIndex] as number;
    const row = oldRoot < 0 ? -1 : this.old.findDir(oldRoot, rel, this.hint);
    if (row >= 0) {
      this.hint = row + 1;
      if (this.old.dirMatches(row, stat)) {
        this.reusedDirs += 1;
        this.dirVisits.push(row);
        this.dirVisitRoots.push(rootIndex);
        return this.old.entriesAt(row);
      }
    }
    let entries: string;
    try {
      entries = encodeEntries(readdirSync(dir, { withFileTypes: true }));
    } catch {
      return undefined;
    }
    this.stats.dirsListed += 1;
    // Same walkable entries under a new stamp: only something the walk ignores changed (a write of
    // `.usage.json` or another dotfile renames a file into the folder). The new stamp is kept in memory,
    // but the persistent index is not rewritten for it; a later process lists this one folder again.
    const restamped = row >= 0 && this.old.entriesAt(row) === entries;
    if (restamped) this.reusedDirs += 1;
    this.freshDirs.push({ rel, stamp: this.stampOf(stat), entries, oldRow: row, restamped });
    this.dirVisits.push(~(this.freshDirs.length - 1));
    this.dirVisitRoots.push(rootIndex);
    return entries;
  }

  /**
   * Fills `record.head` (or `record.error`), reusing the cached head when the file is unchanged. A
   * SKILL.md that is a link must resolve inside the skill's real folder (the containment rule), and one
   * over `MAX_SKILL_MD_BYTES` is refused; both are skipped with the reason in `record.error`.
   */
  readHead(record: ScanRecord): void {
    const file = record.skillFile;
    let source = file;
    if (record.linked) {
      const name = path.basename(record.dir);
      const real = realPathOf(file);
      if (real === undefined || !isWithin(record.realDir, real)) {
        record.error = escapeError("SKILL.md", name).text;
        return;
      }
      source = real;
    }
    const stat = statOf(file);
    const oldDir = this.oldRowOf(record.dirRow);
    const oldHead = oldDir < 0 ? -1 : this.old.headRowOf(oldDir);
    if (stat && oldHead >= 0 && this.old.headMatches(oldHead, stat)) {
      this.keptHeads += 1;
      this.headVisits.push(oldHead);
      this.headVisitDirs.push(record.dirRow);
      record.head = this.old.headAt(oldHead);
      return;
    }
    // Named only when the file has to be read (or refused): the common unchanged case needs no name.
    const name = path.basename(record.dir);
    if (stat && stat.size > MAX_SKILL_MD_BYTES) {
      record.error = tooLargeError("SKILL.md", name, stat.size, MAX_SKILL_MD_BYTES).text;
      return;
    }
    try {
      const head = loadHead(source, name, this.gates);
      record.head = head;
      this.stats.headsRead += 1;
      if (stat) {
        this.freshHeads.push({ stamp: this.stampOf(stat), head });
        this.headVisits.push(~(this.freshHeads.length - 1));
        this.headVisitDirs.push(record.dirRow);
      }
    } catch (error) {
      record.error =
        error instanceof TypeError && /encoded data/i.test(error.message)
          ? t("skill.notUtf8", { skill: name })
          : t("skill.unreadable", { skill: name, cause: errorCause(error) });
    }
  }

  /** Depth-first, sorted walk of one root; returns its SKILL.md records (heads not read yet). */
  walkRoot(root: SkillRoot, rootIndex: number, legacy: Map<string, string[]>, dirs: string[]): ScanRecord[] {
    const found: ScanRecord[] = [];
    const visited = new Set<string>([root.real]);
    // Each item: lexical dir, real dir, relative dir ("" for the root).
    const stack: [string, string, string][] = [[root.dir, root.real, ""]];
    while (stack.length > 0) {
      const [dir, real, rel] = stack.pop() as [string, string, string];
      dirs.push(real);
      const encoded = this.list(dir, rootIndex, rel);
      if (encoded === undefined || encoded === "") continue;
      const dirRow = this.dirVisits.length - 1;
      if (encoded === PLAIN_SKILL) {
        // The common case: a skill folder with nothing else to walk.
        found.push(skillRecord(rootIndex, dir, real, rel, dirRow));
        continue;
      }
      const entries = encoded.split("/");
      let hasSkill = false;
      let linkedSkill = false;
      for (const entry of entries) {
        if (entry.endsWith("SKILL.md") && entry.length === 9) {
          hasSkill = kindOfEntry(entry[0] as string, `${dir}${path.sep}SKILL.md`) === "file";
          linkedSkill = entry[0] !== "f";
          break;
        }
      }
      if (hasSkill) {
        const record = skillRecord(rootIndex, dir, real, rel, dirRow);
        if (linkedSkill) record.linked = true;
        found.push(record);
      }
      const children: [string, string, string][] = [];
      for (const entry of entries) {
        const type = entry[0] as string;
        const name = entry.slice(1);
        if (isExcludedDir(name) || (hasSkill && SUPPORT_DIRS.has(name))) continue;
        const full = dir + path.sep + name;
        const kind = kindOfEntry(type, full);
        if (kind === "file") {
          // A linked single-file skill must stay inside its folder, like any skill file.
          const contained = type === "f" || isWithin(real, realPathOf(full) ?? "\0");
          if (!hasSkill && contained && name.endsWith(".md") && name !== "SKILL.md")
            addLegacy(legacy, name.slice(0, -3), full);
          continue;
        }
        if (kind !== "dir") continue;
        // Below a folder reached without links, the real path is the lexical one (one string for both).
        let childReal = real === dir ? full : real + path.sep + name;
        if (type === "l") {
          try {
            childReal = realpathSync.native(full);
          } catch {
            continue;
          }
        }
        if (visited.has(childReal)) continue;
        visited.add(childReal);
        children.push([full, childReal, rel === "" ? name : `${rel}/${name}`]);
      }
      children.sort((a, b) => (a[2] < b[2] ? 1 : a[2] > b[2] ? -1 : 0));
      for (const child of children) stack.push(child);
    }
    return found;
  }
}

function skillRecord(rootIndex: number, dir: string, real: string, rel: string, dirRow: number): ScanRecord {
  const relFile = rel === "" ? "SKILL.md" : `${rel}/SKILL.md`;
  return {
    rootIndex,
    dirRow,
    dir,
    realDir: real,
    relFile,
    skillFile: `${dir}${path.sep}SKILL.md`,
    category: categoryOf(relFile),
  };
}

function addLegacy(legacy: Map<string, string[]>, stem: string, file: string): void {
  const list = legacy.get(stem);
  if (list) list.push(file);
  else legacy.set(stem, [file]);
}
