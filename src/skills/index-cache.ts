/**
 * The persistent scan index: the `ScanCache` of the last scan, kept in
 * `<home>/.cache/skillgate/skills-index.json` so a fresh process (`skillgate skills list`, `curator run`)
 * validates the library with one `stat` per folder and per SKILL.md instead of walking and parsing it
 * again. It lives outside `<home>/skills`, which belongs to the agent and gets snapshotted.
 *
 * It is only a cache. Every entry carries the stamp its path had when it was read and is reused only when
 * the path still has that stamp (see `scan.ts`), so the index never decides what the library contains;
 * folders are keyed by their root's absolute path and their path below it, so changed roots
 * (`skills.external_dirs`, a moved home) simply miss, and a retargeted symlink fails the stamp check.
 * Anything unexpected on load (missing file, bad JSON, another version, a malformed column) means no
 * index, and the scan starts from scratch. Writes are a plain tmp file + rename (no fsync: a torn file
 * fails to parse and is ignored), and a failed write (read-only home) is ignored.
 *
 * Layout, one line each: a fixed-size header (format, version, a random id of this write, the byte
 * lengths of the next two lines); the listings, as the `ScanCache` columns plus what a head needs besides
 * its description (name, the inputs of the OS/environment gates, which are evaluated again on load); the
 * descriptions; the frontmatters. Loading reads the header and the listings only: a `curator run` never
 * needs the rest, `skills list` needs the descriptions, and only some callers need a frontmatter. Each
 * later line is read when first needed, after checking by the id that the file is still the one loaded.
 * A frontmatter JSON cannot carry exactly (non-finite numbers, -0) is stored as null and read from its
 * file when needed; a skill whose gate inputs are such values is left out of the index.
 */
import { randomBytes } from "node:crypto";
import { closeSync, fstatSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { readRangeSync } from "../core/fsutil.js";
import { type Gates, isJsonExact, isStorableHead, loadHead } from "./scan.js";
import {
  appendStamp,
  PLAIN_SKILL,
  ScanCache,
  type ScanColumns,
  type SkillHead,
  STAMP_FIELDS,
} from "./scan-cache.js";

/** Bump when the stored shape or the meaning of a listing/head changes. */
const INDEX_VERSION = 4;
const INDEX_FORMAT = "skillgate-skills-index";
/** `<format> v<version> <id: 16 hex> <listings line's bytes: 12 digits> <descriptions line's bytes: 12 digits>\n` */
const HEADER = new RegExp(`^${INDEX_FORMAT} v${INDEX_VERSION} ([0-9a-f]{16}) (\\d{12}) (\\d{12})\n$`);
const HEADER_BYTES =
  `${INDEX_FORMAT} v${INDEX_VERSION} ${"0".repeat(16)} ${"0".repeat(12)} ${"0".repeat(12)}\n`.length;

/** Where the index of `home` lives. */
export function indexPath(home: string): string {
  return path.join(home, ".cache", "skillgate", "skills-index.json");
}

/**
 * The listings line: the `ScanCache` columns (a plain SKILL.md listing stored as 0), then per head its
 * name, declared name (0: equal to `name`, null: none), frontmatter name (0: equal to the declared name or
 * `name`, null: not a string) and gate inputs (0: neither gate declared).
 */
interface StoredListings extends Omit<ScanColumns, "dirEntries"> {
  dirEntries: (string | 0)[];
  names: string[];
  declared: (string | 0 | null)[];
  frontmatterNames: (string | 0 | null)[];
  gates: (0 | [platforms: unknown, environments: unknown])[];
}

/** Thrown inside `loadIndex` when the file does not have the expected shape. */
class Malformed extends Error {}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** `value` as an array of `length` items (any length when undefined) that all pass `check`. */
function column<T>(value: unknown, length: number | undefined, check: (item: unknown) => boolean): T[] {
  if (!Array.isArray(value) || (length !== undefined && value.length !== length)) throw new Malformed();
  for (const item of value) if (!check(item)) throw new Malformed();
  return value as T[];
}

const isString = (item: unknown) => typeof item === "string";
const isNumber = (item: unknown) => typeof item === "number";
const isOptionalName = (item: unknown) => item === null || item === 0 || typeof item === "string";
const isRowOf = (count: number) => (item: unknown) =>
  Number.isInteger(item) && (item as number) >= 0 && (item as number) < count;

/** The listings line checked column by column; plain listings are expanded back to their text. */
function checkListings(value: unknown): StoredListings & { dirEntries: string[] } {
  if (!isPlainObject(value)) throw new Malformed();
  const roots = column<string>(value.roots, undefined, isString);
  const dirRel = column<string>(value.dirRel, undefined, isString);
  const dirs = dirRel.length;
  const dirRoot = column<number>(value.dirRoot, dirs, isRowOf(roots.length));
  // An unsettled folder is stored with a null mtime (NaN in memory): its row keys its head, but its
  // listing is never trusted.
  const dirStamps = column<number | null>(
    value.dirStamps,
    dirs * STAMP_FIELDS,
    (item) => isNumber(item) || item === null,
  );
  dirStamps.forEach((item, at) => {
    if (item !== null) return;
    if (at % STAMP_FIELDS !== 0) throw new Malformed();
    dirStamps[at] = Number.NaN;
  });
  const dirEntries = column<string | 0>(value.dirEntries, dirs, (item) => item === 0 || isString(item));
  const headDir = column<number>(value.headDir, undefined, isRowOf(dirs));
  const heads = headDir.length;
  if (new Set(headDir).size !== heads) throw new Malformed();
  const gates = column<StoredListings["gates"][number]>(
    value.gates,
    heads,
    (item) => item === 0 || (Array.isArray(item) && item.length === 2),
  );
  for (let row = 0; row < dirs; row++) if (dirEntries[row] === 0) dirEntries[row] = PLAIN_SKILL;
  return {
    roots,
    dirRoot,
    dirRel,
    dirStamps: dirStamps as number[],
    dirEntries: dirEntries as string[],
    headDir,
    headStamps: column<number>(value.headStamps, heads * STAMP_FIELDS, isNumber),
    names: column<string>(value.names, heads, isString),
    declared: column<string | 0 | null>(value.declared, heads, isOptionalName),
    frontmatterNames: column<string | 0 | null>(value.frontmatterNames, heads, isOptionalName),
    gates,
  };
}

/** What a header says, or undefined when it is not one this version reads. */
interface Header {
  id: string;
  listingsBytes: number;
  descriptionsBytes: number;
}

function readHeader(fd: number): Header | undefined {
  const match = HEADER.exec(readRangeSync(fd, 0, HEADER_BYTES).toString("latin1"));
  return match
    ? { id: match[1] as string, listingsBytes: Number(match[2]), descriptionsBytes: Number(match[3]) }
    : undefined;
}

/**
 * The lines an index-backed head reads on first use (descriptions, frontmatters), from the index file it
 * was loaded from. When that file is gone, replaced (another id) or damaged, each head reads its SKILL.md.
 */
class LaterLines {
  private descriptions: unknown[] | undefined;
  private frontmatters: unknown[] | undefined;

  constructor(
    private readonly file: string,
    private readonly header: Header,
    private readonly listings: StoredListings,
    private readonly gates: Gates,
  ) {}

  /** The description of head row `row`. */
  description(row: number): string {
    this.descriptions ??= this.readLine("descriptions");
    const description = this.descriptions[row];
    return typeof description === "string" ? description : (this.fromFile(row)?.description ?? "");
  }

  /** The frontmatter of head row `row`. */
  frontmatter(row: number): Record<string, unknown> {
    this.frontmatters ??= this.readLine("frontmatters");
    const frontmatter = this.frontmatters[row];
    return isPlainObject(frontmatter) ? frontmatter : (this.fromFile(row)?.frontmatter ?? {});
  }

  /** One of the later lines as an array, or [] when the file is not the one loaded or the line is damaged. */
  private readLine(line: "descriptions" | "frontmatters"): unknown[] {
    const { id, listingsBytes, descriptionsBytes } = this.header;
    try {
      const fd = openSync(this.file, "r");
      try {
        if (readHeader(fd)?.id !== id) return [];
        const descriptionsAt = HEADER_BYTES + listingsBytes + 1;
        const from = line === "descriptions" ? descriptionsAt : descriptionsAt + descriptionsBytes + 1;
        const length = line === "descriptions" ? descriptionsBytes : fstatSync(fd).size - from;
        const value: unknown = JSON.parse(readRangeSync(fd, from, length).toString("utf8"));
        return Array.isArray(value) ? value : [];
      } finally {
        closeSync(fd);
      }
    } catch {
      return [];
    }
  }

  /** The head of row `row` read from its SKILL.md, or undefined when it cannot be read. */
  private fromFile(row: number): SkillHead | undefined {
    const { roots, dirRoot, dirRel, headDir } = this.listings;
    const dir = headDir[row] as number;
    const folder = path.join(roots[dirRoot[dir] as number] as string, dirRel[dir] as string);
    try {
      return loadHead(path.join(folder, "SKILL.md"), path.basename(folder), this.gates);
    } catch {
      return undefined;
    }
  }
}

/**
 * A head read from the index; its description and frontmatter are read from the later lines on first
 * access. The getters sit on the prototype: as accessors in an object literal they would put every head
 * in V8's dictionary mode and cost a closure and a context per skill.
 */
class IndexedHead implements SkillHead {
  private parsed: Record<string, unknown> | undefined;
  private described: string | undefined;
  constructor(
    readonly name: string,
    readonly declaredName: string | undefined,
    readonly frontmatterName: string | undefined,
    readonly osOk: boolean,
    readonly envOk: boolean,
    private readonly row: number,
    private readonly lines: LaterLines,
  ) {}

  get description(): string {
    this.described ??= this.lines.description(this.row);
    return this.described;
  }

  get frontmatter(): Record<string, unknown> {
    if (this.parsed) return this.parsed;
    const frontmatter = this.lines.frontmatter(this.row);
    // Equal strings the head already holds are shared, so a parsed frontmatter does not keep a second
    // copy of every description and name.
    if (this.described !== undefined && frontmatter.description === this.described)
      frontmatter.description = this.described;
    if (frontmatter.name === this.frontmatterName) frontmatter.name = this.frontmatterName;
    this.parsed = frontmatter;
    return frontmatter;
  }
}

/** Builds head row `row` of `listings`, its gates evaluated here. */
function headMaker(listings: StoredListings, lines: LaterLines, gates: Gates): (row: number) => SkillHead {
  return (row) => {
    const name = listings.names[row] as string;
    const declared = listings.declared[row];
    const declaredName = declared === null ? undefined : declared === 0 ? name : (declared as string);
    const stored = listings.frontmatterNames[row];
    const frontmatterName = stored === null ? undefined : stored === 0 ? (declaredName ?? name) : stored;
    const gateInputs = listings.gates[row];
    return new IndexedHead(
      name,
      declaredName,
      frontmatterName as string | undefined,
      gateInputs === 0 || gates.osOk({ platforms: gateInputs?.[0] }),
      gateInputs === 0 || gates.envOk({ environments: gateInputs?.[1] }),
      row,
      lines,
    );
  };
}

/** Reads the index of `home` (header and listings); undefined when there is none or it cannot be used. */
export function loadIndex(home: string, gates: Gates): ScanCache | undefined {
  const file = indexPath(home);
  try {
    const fd = openSync(file, "r");
    let header: Header | undefined;
    let text: string;
    try {
      header = readHeader(fd);
      if (!header) return undefined;
      const { listingsBytes, descriptionsBytes } = header;
      // The listings and descriptions lines must be whole and end where the header says.
      if (HEADER_BYTES + listingsBytes + descriptionsBytes + 2 > fstatSync(fd).size) return undefined;
      const listings = readRangeSync(fd, HEADER_BYTES, listingsBytes + 1);
      if (listings.length !== listingsBytes + 1 || listings[listingsBytes] !== 0x0a) return undefined;
      text = listings.toString("utf8", 0, listingsBytes);
    } finally {
      closeSync(fd);
    }
    const listings = checkListings(JSON.parse(text));
    const lines = new LaterLines(file, header, listings, gates);
    const heads = new Array<SkillHead | undefined>(listings.headDir.length);
    return new ScanCache(listings, heads, headMaker(listings, lines, gates));
  } catch {
    return undefined;
  }
}

/** The text of an index for `cache` (unsettled heads and heads with inexact gate inputs left out). */
export function serializeIndex(cache: ScanCache): string {
  const { columns } = cache;
  const stored: StoredListings = {
    roots: columns.roots,
    dirRoot: [],
    dirRel: [],
    dirStamps: [],
    dirEntries: [],
    headDir: [],
    headStamps: [],
    names: [],
    declared: [],
    frontmatterNames: [],
    gates: [],
  };
  for (let row = 0; row < cache.dirCount; row++) {
    stored.dirRoot.push(columns.dirRoot[row] as number);
    stored.dirRel.push(columns.dirRel[row] as string);
    // An unsettled mtime (NaN) is written as null.
    appendStamp(stored.dirStamps, columns.dirStamps, row);
    const entries = columns.dirEntries[row] as string;
    stored.dirEntries.push(entries === PLAIN_SKILL ? 0 : entries);
  }
  const descriptions: string[] = [];
  const frontmatters: (Record<string, unknown> | null)[] = [];
  for (let row = 0; row < cache.headCount; row++) {
    if (Number.isNaN(columns.headStamps[row * STAMP_FIELDS])) continue;
    const head = cache.headAt(row);
    if (!isStorableHead(head)) continue;
    const { name, declaredName, frontmatterName, frontmatter } = head;
    stored.headDir.push(columns.headDir[row] as number);
    appendStamp(stored.headStamps, columns.headStamps, row);
    stored.names.push(name);
    stored.declared.push(declaredName === undefined ? null : declaredName === name ? 0 : declaredName);
    stored.frontmatterNames.push(
      frontmatterName === undefined ? null : frontmatterName === (declaredName ?? name) ? 0 : frontmatterName,
    );
    const platforms = frontmatter.platforms ?? null;
    const environments = frontmatter.environments ?? null;
    stored.gates.push(platforms === null && environments === null ? 0 : [platforms, environments]);
    descriptions.push(head.description);
    // null: JSON would alter a value, so that frontmatter is read from the file when needed.
    frontmatters.push(isJsonExact(frontmatter) ? frontmatter : null);
  }
  const listingsLine = JSON.stringify(stored);
  const descriptionsLine = JSON.stringify(descriptions);
  const lengths = [listingsLine, descriptionsLine].map((line) =>
    String(Buffer.byteLength(line)).padStart(12, "0"),
  );
  const header = `${INDEX_FORMAT} v${INDEX_VERSION} ${randomBytes(8).toString("hex")} ${lengths.join(" ")}\n`;
  return `${header}${listingsLine}\n${descriptionsLine}\n${JSON.stringify(frontmatters)}\n`;
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
