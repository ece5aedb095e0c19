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
 * Layout: a fixed-size header line (format, version, a random id of this write, the byte length of the
 * next line); a line with a JSON document of the folder listings and, per SKILL.md, what listing needs
 * (name, description, the inputs of the OS/environment gates, which are evaluated again on load); a last
 * line with a JSON array of the frontmatters. Loading reads the header and the listings only; the
 * frontmatters are read from the file when some caller first needs one (`skills list` never does), after
 * checking by the id that the file is still the one loaded. A frontmatter JSON cannot carry exactly
 * (non-finite numbers, -0) is stored as null and read from its file when needed; a skill whose gate
 * inputs are such values is left out of the index.
 */
import { randomBytes } from "node:crypto";
import { closeSync, fstatSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { readRangeSync } from "../core/fsutil.js";
import {
  type CachedHead,
  type DirListing,
  type Gates,
  isJsonExact,
  isStorableHead,
  isUnsettled,
  loadHead,
  type ScanCache,
  type SkillHead,
} from "./scan.js";

/** Bump when the stored shape or the meaning of a listing/head changes. */
const INDEX_VERSION = 3;
const INDEX_FORMAT = "skillgate-skills-index";
/** `<format> v<version> <id: 16 hex> <listings line's bytes: 12 digits>\n` */
const HEADER = new RegExp(`^${INDEX_FORMAT} v${INDEX_VERSION} ([0-9a-f]{16}) (\\d{12})\n$`);
const HEADER_BYTES = `${INDEX_FORMAT} v${INDEX_VERSION} ${"0".repeat(16)} ${"0".repeat(12)}\n`.length;

/** Where the index of `home` lives. */
export function indexPath(home: string): string {
  return path.join(home, ".cache", "skillgate", "skills-index.json");
}

type StoredStamp = [mtimeMs: number, ctimeMs: number, size: number, ino: number, dev: number];
/** `declared`: 0 when equal to `name`, null when absent. `gates`: 0 when neither gate is declared. */
type StoredHead = [
  file: string,
  ...stamp: StoredStamp,
  name: string,
  declared: string | 0 | null,
  frontmatterName: string | 0 | null,
  description: string,
  gates: 0 | [platforms: unknown, environments: unknown],
];

interface StoredIndex {
  dirs: DirListing[];
  /** In the order of the frontmatter array on the last line. */
  heads: StoredHead[];
}

/** Thrown inside `loadIndex` when the file does not have the expected shape. */
class Malformed extends Error {}

function hasStamp(item: unknown[]): boolean {
  for (let index = 1; index <= 5; index++) if (typeof item[index] !== "number") return false;
  return true;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function optionalString(value: unknown, zero: string): string | undefined {
  if (value === null) return undefined;
  if (value === 0) return zero;
  if (typeof value !== "string") throw new Malformed();
  return value;
}

function parseDirs(items: unknown): Map<string, DirListing> {
  if (!Array.isArray(items)) throw new Malformed();
  const dirs = new Map<string, DirListing>();
  for (const item of items as unknown[][]) {
    if (
      !Array.isArray(item) ||
      item.length !== 7 ||
      typeof item[0] !== "string" ||
      typeof item[6] !== "string"
    )
      throw new Malformed();
    if (!hasStamp(item)) throw new Malformed();
    // Stored exactly as the scan keeps it.
    dirs.set(item[0], item as DirListing);
  }
  return dirs;
}

/** The frontmatters of the last line, read and parsed on first use; undefined entries when unusable. */
type FrontmatterSource = (position: number, file: string) => Record<string, unknown>;

/** The id and listings length of an index file's header, or undefined when it is not one this version reads. */
function readHeader(fd: number): { id: string; listingsBytes: number } | undefined {
  const match = HEADER.exec(readRangeSync(fd, 0, HEADER_BYTES).toString("latin1"));
  return match ? { id: match[1] as string, listingsBytes: Number(match[2]) } : undefined;
}

/** The frontmatter array of the index written as `id`, or [] when the file is gone, replaced or damaged. */
function readFrontmatters(file: string, id: string): unknown[] {
  try {
    const fd = openSync(file, "r");
    try {
      const header = readHeader(fd);
      if (header?.id !== id) return [];
      const from = HEADER_BYTES + header.listingsBytes + 1;
      const value: unknown = JSON.parse(readRangeSync(fd, from, fstatSync(fd).size - from).toString("utf8"));
      return Array.isArray(value) ? value : [];
    } finally {
      closeSync(fd);
    }
  } catch {
    return [];
  }
}

function frontmatterSource(indexFile: string, id: string, gates: Gates): FrontmatterSource {
  let parsed: unknown[] | undefined;
  return (position, file) => {
    parsed ??= readFrontmatters(indexFile, id);
    const frontmatter = parsed[position];
    if (isPlainObject(frontmatter)) return frontmatter;
    // The index changed since it was loaded, or its last line is damaged: read the file itself.
    try {
      return loadHead(file, path.basename(path.dirname(file)), gates).frontmatter;
    } catch {
      return {};
    }
  };
}

/**
 * A head read from the index; its frontmatter is read from the last line on first access. The getter
 * sits on the prototype: as an accessor in an object literal it would put every head in V8's dictionary
 * mode and cost a closure and a context per skill.
 */
class IndexedHead implements SkillHead {
  private parsed: Record<string, unknown> | undefined;
  constructor(
    readonly name: string,
    readonly declaredName: string | undefined,
    readonly frontmatterName: string | undefined,
    readonly description: string,
    readonly osOk: boolean,
    readonly envOk: boolean,
    private readonly position: number,
    private readonly file: string,
    private readonly source: FrontmatterSource,
  ) {}

  get frontmatter(): Record<string, unknown> {
    if (this.parsed) return this.parsed;
    const frontmatter = this.source(this.position, this.file);
    // Equal strings the head already holds are shared, so a parsed frontmatter does not keep a second
    // copy of every description and name.
    if (frontmatter.description === this.description) frontmatter.description = this.description;
    if (frontmatter.name === this.frontmatterName) frontmatter.name = this.frontmatterName;
    this.parsed = frontmatter;
    return frontmatter;
  }
}

function indexedHead(item: unknown[], position: number, source: FrontmatterSource, gates: Gates): SkillHead {
  const file = item[0] as string;
  const name = item[6];
  const description = item[9];
  const gateInputs = item[10];
  if (typeof name !== "string" || typeof description !== "string") throw new Malformed();
  if (gateInputs !== 0 && !(Array.isArray(gateInputs) && gateInputs.length === 2)) throw new Malformed();
  const declaredName = optionalString(item[7], name);
  return new IndexedHead(
    name,
    declaredName,
    optionalString(item[8], declaredName ?? name),
    description,
    gateInputs === 0 || gates.osOk({ platforms: gateInputs[0] }),
    gateInputs === 0 || gates.envOk({ environments: gateInputs[1] }),
    position,
    file,
    source,
  );
}

function parseHeads(items: unknown, source: FrontmatterSource, gates: Gates): Map<string, CachedHead> {
  if (!Array.isArray(items)) throw new Malformed();
  const heads = new Map<string, CachedHead>();
  (items as unknown[][]).forEach((item, position) => {
    if (!Array.isArray(item) || typeof item[0] !== "string" || !hasStamp(item)) throw new Malformed();
    heads.set(item[0], {
      file: item[0],
      mtimeMs: item[1] as number,
      ctimeMs: item[2] as number,
      size: item[3] as number,
      ino: item[4] as number,
      dev: item[5] as number,
      head: indexedHead(item, position, source, gates),
    });
  });
  return heads;
}

/** Reads the index of `home` (header and listings); undefined when there is none or it cannot be used. */
export function loadIndex(home: string, gates: Gates): ScanCache | undefined {
  const file = indexPath(home);
  try {
    const fd = openSync(file, "r");
    let text: string;
    let id: string;
    try {
      const header = readHeader(fd);
      // The listings line must be whole and end where the header says.
      if (!header || HEADER_BYTES + header.listingsBytes + 1 > fstatSync(fd).size) return undefined;
      id = header.id;
      const listings = readRangeSync(fd, HEADER_BYTES, header.listingsBytes + 1);
      if (listings.length !== header.listingsBytes + 1 || listings[header.listingsBytes] !== 0x0a)
        return undefined;
      text = listings.toString("utf8", 0, header.listingsBytes);
    } finally {
      closeSync(fd);
    }
    const stored = JSON.parse(text) as Partial<StoredIndex>;
    const source = frontmatterSource(file, id, gates);
    return { dirs: parseDirs(stored.dirs), heads: parseHeads(stored.heads, source, gates) };
  } catch {
    return undefined;
  }
}

function storedHead(entry: CachedHead): StoredHead {
  const { file, head } = entry;
  const { name, declaredName, frontmatterName, frontmatter } = head;
  const platforms = frontmatter.platforms ?? null;
  const environments = frontmatter.environments ?? null;
  return [
    file,
    entry.mtimeMs,
    entry.ctimeMs,
    entry.size,
    entry.ino,
    entry.dev,
    name,
    declaredName === undefined ? null : declaredName === name ? 0 : declaredName,
    frontmatterName === undefined ? null : frontmatterName === (declaredName ?? name) ? 0 : frontmatterName,
    head.description,
    platforms === null && environments === null ? 0 : [platforms, environments],
  ];
}

/** The text of an index for `cache` (unsettled entries and inexact frontmatter left out). */
export function serializeIndex(cache: ScanCache): string {
  const dirs: DirListing[] = [];
  for (const listing of cache.dirs.values()) if (!isUnsettled({ mtimeMs: listing[1] })) dirs.push(listing);
  const heads: StoredHead[] = [];
  const frontmatters: (Record<string, unknown> | null)[] = [];
  for (const entry of cache.heads.values()) {
    if (isUnsettled(entry) || !isStorableHead(entry.head)) continue;
    heads.push(storedHead(entry));
    const { frontmatter } = entry.head;
    // null: JSON would alter a value, so that frontmatter is read from the file when needed.
    frontmatters.push(isJsonExact(frontmatter) ? frontmatter : null);
  }
  const index: StoredIndex = { dirs, heads };
  const listings = JSON.stringify(index);
  const header = `${INDEX_FORMAT} v${INDEX_VERSION} ${randomBytes(8).toString("hex")} ${String(Buffer.byteLength(listings)).padStart(12, "0")}\n`;
  return `${header}${listings}\n${JSON.stringify(frontmatters)}\n`;
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
