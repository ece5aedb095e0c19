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
 * Layout: a fixed-size header line (format, version, a random id of this write, the byte lengths of the
 * next three parts); the stamps block, five little-endian float64 numbers per folder row and then per head
 * row (as JSON they were more than half of the listings and of their parse time); then one line each: the
 * listings, as the other `ScanCache` columns plus what a head needs besides its description (name, the
 * inputs of the OS/environment gates, which are evaluated again on load); the descriptions; the
 * frontmatters. Loading reads the header, the stamps and the listings only: a `curator run` never needs
 * the rest, `skills list` needs the descriptions, and only some callers need a frontmatter. Each later
 * line is read when first needed, after checking by the id that the file is still the one loaded.
 * A frontmatter JSON cannot carry exactly (non-finite numbers, -0) is stored as null and read from its
 * file when needed; a skill whose gate inputs are such values is left out of the index.
 */
import { randomBytes } from "node:crypto";
import { closeSync, fstatSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readRangeSync } from "../core/fsutil.js";
import {
  appendStamp,
  PLAIN_SKILL,
  ScanCache,
  type ScanColumns,
  type SkillHead,
  STAMP_FIELDS,
} from "./scan-cache.js";
import { type Gates, isJsonExact, isStorableHead, loadHead } from "./skill-head.js";

/** Bump when the stored shape or the meaning of a listing/head changes. */
const INDEX_VERSION = 4;
const INDEX_FORMAT = "skillgate-skills-index";
/**
 * `<format> v<version> <id: 16 hex> <stamps block's bytes> <listings line's bytes> <descriptions line's
 * bytes>\n`, each length in 12 digits.
 */
const HEADER = new RegExp(
  `^${INDEX_FORMAT} v${INDEX_VERSION} ([0-9a-f]{16}) (\\d{12}) (\\d{12}) (\\d{12})\n$`,
);
const HEADER_BYTES = `${INDEX_FORMAT} v${INDEX_VERSION} ${"0".repeat(16)}${` ${"0".repeat(12)}`.repeat(3)}\n`
  .length;
/** Bytes per stamp row in the stamps block: five float64 numbers, little-endian. */
const STAMP_BYTES = STAMP_FIELDS * 8;

/** Where the index of `home` lives. */
export function indexPath(home: string): string {
  return path.join(home, ".cache", "skillgate", "skills-index.json");
}

/**
 * The listings line: the `ScanCache` columns but the stamps (a plain SKILL.md listing stored as 0), then
 * per head its name, declared name (0: equal to `name`, null: none), frontmatter name (0: equal to the
 * declared name or `name`, null: not a string) and gate inputs (0: neither gate declared).
 */
interface StoredListings extends Omit<ScanColumns, "dirEntries" | "dirStamps" | "headStamps"> {
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
  // An indexed loop: these run once per load over 10k+ items, before V8 would optimize an iterator away.
  for (let at = 0; at < value.length; at++) if (!check(value[at])) throw new Malformed();
  return value as T[];
}

const isString = (item: unknown) => typeof item === "string";
const isOptionalName = (item: unknown) => item === null || item === 0 || typeof item === "string";
const isRowOf = (count: number) => (item: unknown) =>
  Number.isInteger(item) && (item as number) >= 0 && (item as number) < count;

/** The listings line checked column by column; plain listings are expanded back to their text. */
function checkListings(value: unknown): Omit<StoredListings, "dirEntries"> & { dirEntries: string[] } {
  if (!isPlainObject(value)) throw new Malformed();
  const roots = column<string>(value.roots, undefined, isString);
  const dirRel = column<string>(value.dirRel, undefined, isString);
  const dirs = dirRel.length;
  const dirRoot = column<number>(value.dirRoot, dirs, isRowOf(roots.length));
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
    dirEntries: dirEntries as string[],
    headDir,
    names: column<string>(value.names, heads, isString),
    declared: column<string | 0 | null>(value.declared, heads, isOptionalName),
    frontmatterNames: column<string | 0 | null>(value.frontmatterNames, heads, isOptionalName),
    gates,
  };
}

/** What a header says, or undefined when it is not one this version reads. */
interface Header {
  id: string;
  stampsBytes: number;
  listingsBytes: number;
  descriptionsBytes: number;
}

function readHeader(fd: number): Header | undefined {
  const match = HEADER.exec(readRangeSync(fd, 0, HEADER_BYTES).toString("latin1"));
  if (!match) return undefined;
  const [stampsBytes, listingsBytes, descriptionsBytes] = match.slice(2).map(Number) as [
    number,
    number,
    number,
  ];
  return { id: match[1] as string, stampsBytes, listingsBytes, descriptionsBytes };
}

/** What `LaterLines` needs of the listings to find a head's SKILL.md: its folder's root and path. */
type HeadFolders = Pick<StoredListings, "roots" | "dirRoot" | "dirRel" | "headDir">;

/**
 * The lines an index-backed head reads on first use (descriptions, frontmatters), from the index file it
 * was loaded from or last written to. When that file is gone, replaced (another id) or damaged, each head
 * reads its SKILL.md.
 */
class LaterLines {
  private descriptions: unknown[] | undefined;
  private frontmatters: unknown[] | undefined;

  constructor(
    private readonly file: string,
    private readonly header: Header,
    private readonly listings: HeadFolders,
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
    return this.frontmatterIn(this.frontmatters, row);
  }

  /**
   * The frontmatter of head row `row` for a pass over every head (`SkillHead.frontmatterOnce`): the line
   * is read once for the pass and not kept after it, unless it was read before.
   */
  frontmatterOnce(row: number, pass: Map<object, unknown>): Record<string, unknown> {
    let line = this.frontmatters ?? (pass.get(this) as unknown[] | undefined);
    if (!line) {
      line = this.readLine("frontmatters");
      pass.set(this, line);
    }
    return this.frontmatterIn(line, row);
  }

  private frontmatterIn(line: unknown[], row: number): Record<string, unknown> {
    const frontmatter = line[row];
    return isPlainObject(frontmatter) ? frontmatter : (this.fromFile(row)?.frontmatter ?? {});
  }

  /** One of the later lines as an array, or [] when the file is not the one loaded or the line is damaged. */
  private readLine(line: "descriptions" | "frontmatters"): unknown[] {
    const { id, stampsBytes, listingsBytes, descriptionsBytes } = this.header;
    try {
      const fd = openSync(this.file, "r");
      try {
        if (readHeader(fd)?.id !== id) return [];
        const descriptionsAt = HEADER_BYTES + stampsBytes + listingsBytes + 1;
        const from = line === "descriptions" ? descriptionsAt : descriptionsAt + descriptionsBytes + 1;
        const length = line === "descriptions" ? descriptionsBytes : fstatSync(fd).size - from;
        const bytes = readRangeSync(fd, from, length);
        const value: unknown =
          (line === "descriptions" ? stringArrayOf(bytes) : undefined) ?? JSON.parse(bytes.toString("utf8"));
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

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** What JSON forbids raw inside a string. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it finds.
const CONTROL = /[\u0000-\u001f]/;

/**
 * The JSON array of strings in `bytes` as `JSON.stringify` writes it (no spaces), each item decoded on
 * its own: a 10k library's descriptions line is ~2 MB, which as one string to `JSON.parse` would sit in
 * memory beside the bytes and the items. Undefined when `bytes` is anything else (then `JSON.parse`
 * decides); items with escapes go through `JSON.parse` one by one.
 */
export function stringArrayOf(bytes: Buffer): string[] | undefined {
  const end = bytes.length - 1;
  if (end < 1 || bytes[0] !== 0x5b || bytes[end] !== 0x5d) return undefined;
  const items: string[] = [];
  let at = 1;
  if (at === end) return items;
  for (;;) {
    if (bytes[at] !== QUOTE) return undefined;
    let close = bytes.indexOf(QUOTE, at + 1);
    while (close !== -1 && isEscaped(bytes, close, at)) close = bytes.indexOf(QUOTE, close + 1);
    if (close === -1 || close >= end) return undefined;
    const raw = bytes.toString("utf8", at + 1, close);
    if (CONTROL.test(raw)) return undefined;
    if (!raw.includes("\\")) items.push(raw);
    else {
      try {
        items.push(JSON.parse(`"${raw}"`) as string);
      } catch {
        return undefined;
      }
    }
    at = close + 1;
    if (at === end) return items;
    if (bytes[at] !== 0x2c) return undefined;
    at++;
  }
}

/** True when the quote at `quote` follows an odd run of backslashes (after `start`). */
function isEscaped(bytes: Buffer, quote: number, start: number): boolean {
  let slashes = 0;
  for (let at = quote - 1; at > start && bytes[at] === BACKSLASH; at--) slashes++;
  return slashes % 2 === 1;
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
    private row: number,
    private lines: LaterLines,
  ) {}

  /**
   * This head is row `row` of the index `lines` reads from now (the process wrote it): what it has not
   * read yet comes from there, and the lines it was loaded from can be let go.
   */
  moveTo(lines: LaterLines, row: number): void {
    this.lines = lines;
    this.row = row;
  }

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
    if (this.frontmatterName !== undefined && frontmatter.name === this.frontmatterName)
      frontmatter.name = this.frontmatterName;
    this.parsed = frontmatter;
    return frontmatter;
  }

  /** Only heads whose gate inputs JSON holds exactly are in the index. */
  get storableGates(): boolean {
    return true;
  }

  frontmatterOnce(pass: Map<object, unknown>): Record<string, unknown> {
    return this.parsed ?? this.lines.frontmatterOnce(this.row, pass);
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

/**
 * The stamps block as float64 numbers: a view of `bytes` when it is aligned for one, else a copy. Stored
 * little-endian; on a big-endian machine there is no usable index (a cache, so it is simply rebuilt).
 */
function stampsOf(bytes: Buffer): Float64Array | undefined {
  if (os.endianness() !== "LE" || bytes.length % STAMP_BYTES !== 0) return undefined;
  if (bytes.byteOffset % 8 === 0) return new Float64Array(bytes.buffer, bytes.byteOffset, bytes.length / 8);
  const copy = new Float64Array(bytes.length / 8);
  new Uint8Array(copy.buffer).set(bytes);
  return copy;
}

/**
 * Reads the index of `home` (header, stamps and listings); undefined when there is none or it cannot be
 * used.
 */
export function loadIndex(home: string, gates: Gates): ScanCache | undefined {
  const file = indexPath(home);
  try {
    const fd = openSync(file, "r");
    let header: Header | undefined;
    let stamps: Float64Array | undefined;
    let text: string;
    try {
      header = readHeader(fd);
      if (!header) return undefined;
      const { stampsBytes, listingsBytes, descriptionsBytes } = header;
      // The stamps and the listings and descriptions lines must be whole and end where the header says.
      if (HEADER_BYTES + stampsBytes + listingsBytes + descriptionsBytes + 2 > fstatSync(fd).size)
        return undefined;
      stamps = stampsOf(readRangeSync(fd, HEADER_BYTES, stampsBytes));
      const listings = readRangeSync(fd, HEADER_BYTES + stampsBytes, listingsBytes + 1);
      if (!stamps || listings.length !== listingsBytes + 1 || listings[listingsBytes] !== 0x0a)
        return undefined;
      text = listings.toString("utf8", 0, listingsBytes);
    } finally {
      closeSync(fd);
    }
    const stored = checkListings(JSON.parse(text));
    const dirFields = stored.dirRel.length * STAMP_FIELDS;
    if (stamps.length !== dirFields + stored.headDir.length * STAMP_FIELDS) return undefined;
    const listings = {
      ...stored,
      dirStamps: stamps.subarray(0, dirFields),
      headStamps: stamps.subarray(dirFields),
    };
    const lines = new LaterLines(file, header, stored, gates);
    const heads = new Array<SkillHead | undefined>(stored.headDir.length);
    return new ScanCache(listings, heads, headMaker(stored, lines, gates));
  } catch {
    return undefined;
  }
}

/** An index's bytes, and the index-backed heads written into it with their rows there. */
interface SerializedIndex {
  bytes: Buffer;
  header: Header;
  folders: HeadFolders;
  moved: { head: IndexedHead; row: number }[];
}

/** The index for `cache` (unsettled heads and heads with inexact gate inputs left out). */
function serializeIndex(cache: ScanCache): SerializedIndex {
  const { columns } = cache;
  const stored: StoredListings = {
    roots: columns.roots,
    dirRoot: [],
    dirRel: [],
    dirEntries: [],
    headDir: [],
    names: [],
    declared: [],
    frontmatterNames: [],
    gates: [],
  };
  // Every folder row is stored, an unsettled one (NaN mtime) too: its row keys its head.
  const stamps: number[] = [];
  for (let row = 0; row < cache.dirCount; row++) {
    stored.dirRoot.push(columns.dirRoot[row] as number);
    stored.dirRel.push(columns.dirRel[row] as string);
    appendStamp(stamps, columns.dirStamps, row);
    const entries = columns.dirEntries[row] as string;
    stored.dirEntries.push(entries === PLAIN_SKILL ? 0 : entries);
  }
  const descriptions: string[] = [];
  const frontmatters: (Record<string, unknown> | null)[] = [];
  // What the heads read for this pass only (an index's frontmatters line): dropped when it ends, so a
  // process that rewrites the index it loaded does not keep every frontmatter afterwards.
  const pass = new Map<object, unknown>();
  const moved: SerializedIndex["moved"] = [];
  for (let row = 0; row < cache.headCount; row++) {
    if (Number.isNaN(columns.headStamps[row * STAMP_FIELDS])) continue;
    const head = cache.headAt(row);
    if (!isStorableHead(head)) continue;
    const { name, declaredName, frontmatterName } = head;
    const frontmatter = head.frontmatterOnce?.(pass) ?? head.frontmatter;
    if (head instanceof IndexedHead) moved.push({ head, row: stored.headDir.length });
    stored.headDir.push(columns.headDir[row] as number);
    appendStamp(stamps, columns.headStamps, row);
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
  const stampBytes = Buffer.allocUnsafe(stamps.length * 8);
  for (let at = 0; at < stamps.length; at++) stampBytes.writeDoubleLE(stamps[at] as number, at * 8);
  const listingsLine = Buffer.from(JSON.stringify(stored));
  const descriptionsLine = Buffer.from(JSON.stringify(descriptions));
  // The header the file starts with, also what `LaterLines` checks the file against.
  const header: Header = {
    id: randomBytes(8).toString("hex"),
    stampsBytes: stampBytes.length,
    listingsBytes: listingsLine.length,
    descriptionsBytes: descriptionsLine.length,
  };
  const lengths = [header.stampsBytes, header.listingsBytes, header.descriptionsBytes]
    .map((length) => String(length).padStart(12, "0"))
    .join(" ");
  const newline = Buffer.from("\n");
  const bytes = Buffer.concat([
    Buffer.from(`${INDEX_FORMAT} v${INDEX_VERSION} ${header.id} ${lengths}\n`),
    stampBytes,
    listingsLine,
    newline,
    descriptionsLine,
    newline,
    Buffer.from(`${JSON.stringify(frontmatters)}\n`),
  ]);
  const { roots, dirRoot, dirRel, headDir } = stored;
  return { bytes, header, folders: { roots, dirRoot, dirRel, headDir }, moved };
}

/**
 * Writes the index of `home` (tmp file + rename). Returns false when it could not be written. The heads
 * of `cache` that came from the index it replaces read what they have not read yet from the new one
 * (`gates` evaluates a head read again from its file), so the old file's lines are not kept.
 */
export function saveIndex(home: string, cache: ScanCache, gates: Gates): boolean {
  const file = indexPath(home);
  const tmp = `${path.dirname(file)}${path.sep}.${path.basename(file)}.${process.pid}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    const index = serializeIndex(cache);
    writeFileSync(tmp, index.bytes);
    renameSync(tmp, file);
    const lines = new LaterLines(file, index.header, index.folders, gates);
    for (const { head, row } of index.moved) head.moveTo(lines, row);
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
