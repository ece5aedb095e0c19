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
 * Layout: the first line is a JSON document with the folder listings and, per SKILL.md, what listing
 * needs (name, description, the inputs of the OS/environment gates, which are evaluated again on load);
 * the second line is a JSON array of the frontmatters, parsed only when some caller reads a frontmatter,
 * so `skills list` never pays for it. A frontmatter JSON cannot carry exactly (non-finite numbers, -0) is
 * stored as null and read from its file when needed; a skill whose gate inputs are such values is left
 * out of the index.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
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
const INDEX_VERSION = 2;
const INDEX_FORMAT = "skillgate-skills-index";
const NEWLINE = 10;

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
  format: string;
  version: number;
  dirs: DirListing[];
  /** In the order of the frontmatter array on the second line. */
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

/** The frontmatters on the second line, parsed on first use; undefined entries when unusable. */
type FrontmatterSource = (position: number, file: string) => Record<string, unknown>;

function frontmatterSource(bytes: Buffer, from: number, gates: Gates): FrontmatterSource {
  let parsed: unknown[] | undefined;
  // Only the second line is kept (a copy), so the listings and heads of the first are not held as bytes.
  let pending: Buffer | undefined = Buffer.from(bytes.subarray(from));
  return (position, file) => {
    if (pending) {
      try {
        const value: unknown = JSON.parse(pending.toString("utf8"));
        parsed = Array.isArray(value) ? value : [];
      } catch {
        parsed = [];
      }
      pending = undefined;
    }
    const frontmatter = parsed?.[position];
    if (isPlainObject(frontmatter)) return frontmatter;
    // The second line is damaged: read the file itself.
    try {
      return loadHead(file, path.basename(path.dirname(file)), gates).frontmatter;
    } catch {
      return {};
    }
  };
}

/**
 * A head read from the index; its frontmatter is parsed from the second line on first access. The getter
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

/** Reads the index of `home`; undefined when there is none or it cannot be used. */
export function loadIndex(home: string, gates: Gates): ScanCache | undefined {
  try {
    const bytes = readFileSync(indexPath(home));
    const end = bytes.indexOf(NEWLINE);
    if (end < 0) return undefined;
    const stored = JSON.parse(bytes.toString("utf8", 0, end)) as Partial<StoredIndex>;
    if (stored.format !== INDEX_FORMAT || stored.version !== INDEX_VERSION) return undefined;
    const source = frontmatterSource(bytes, end + 1, gates);
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
  const index: StoredIndex = { format: INDEX_FORMAT, version: INDEX_VERSION, dirs, heads };
  return `${JSON.stringify(index)}\n${JSON.stringify(frontmatters)}\n`;
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
