/**
 * The records of one library scan: the library's own frozen entries built from the scan's heads
 * (`buildEntries`), their listing order, and the frozen plain copies handed to callers (`sharedRecords`),
 * whose description and frontmatter are read from the scan head only when asked for.
 */
import type { SharedRecords, Snapshot } from "./library-snapshot.js";
import type { SkillRoot } from "./roots.js";
import type { ScanResult } from "./scan.js";
import type { SkillHead } from "./scan-cache.js";
import type { SkillEntry } from "./types.js";

/**
 * A skill as the library keeps it. Its description and frontmatter are read from the scan's head on first
 * access, through getters on the prototype: an accessor written in an object literal puts every record in V8's
 * dictionary mode (~450 bytes of property storage each, ~9 MB at 10k skills), a class keeps them compact.
 * Frozen once built. `all()` hands out frozen plain copies (`sharedRecords`); only `records()` hands out
 * these, for read-only passes over the whole library.
 */
class LibraryEntry implements SkillEntry {
  declare hiddenBy?: "os" | "environment";
  constructor(
    readonly name: string,
    readonly category: string | null,
    readonly dir: string,
    readonly skillFile: string,
    readonly root: string,
    readonly rootKind: "local" | "external",
    readonly relPath: string,
    /** The scan's head of its SKILL.md. */
    readonly head: SkillHead,
  ) {}

  get description(): string {
    return this.head.description;
  }

  get frontmatter(): Record<string, unknown> {
    return this.head.frontmatter;
  }
}

/** Where a caller's record keeps the scan head its description and frontmatter come from (never copied). */
const HEAD = Symbol("skillgate.head");

/**
 * The `description` of a caller's record: read from its head when asked for. A head from the persistent
 * index reads the descriptions on first access, so `all()` for the curator, which needs none, never loads
 * them. One function shared by every record, so V8 keeps them all on one compact shape.
 */
function descriptionOfRecord(this: { [HEAD]: SkillHead }): string {
  return this[HEAD].description;
}

/**
 * The `frontmatter` of a caller's record, like `descriptionOfRecord`: the head parses (and keeps) its
 * frontmatter on first access, so `all()` never parses the frontmatters of a library nobody asks them of.
 */
function frontmatterOfRecord(this: { [HEAD]: SkillHead }): Record<string, unknown> {
  return this[HEAD].frontmatter;
}

/** The accessors of every caller's record, made once rather than per record. */
const DESCRIPTION: PropertyDescriptor = { get: descriptionOfRecord, enumerable: true };
const FRONTMATTER: PropertyDescriptor = { get: frontmatterOfRecord, enumerable: true };

/**
 * A frozen plain copy of a library record for callers. `description` and `frontmatter` are own enumerable
 * properties read through `descriptionOfRecord` and `frontmatterOfRecord`, so spreading,
 * `structuredClone`, `JSON.stringify` and `Object.keys` see them like data properties (in the usual key
 * order); the record cannot be changed.
 */
function plainEntry(entry: LibraryEntry): SkillEntry {
  const copy = { name: entry.name } as SkillEntry;
  Object.defineProperty(copy, "description", DESCRIPTION);
  copy.category = entry.category;
  copy.dir = entry.dir;
  copy.skillFile = entry.skillFile;
  copy.root = entry.root;
  copy.rootKind = entry.rootKind;
  copy.relPath = entry.relPath;
  Object.defineProperty(copy, "frontmatter", FRONTMATTER);
  if (entry.hiddenBy) copy.hiddenBy = entry.hiddenBy;
  Object.defineProperty(copy, HEAD, { value: entry.head });
  return Object.freeze(copy);
}

/**
 * The records callers get for one scan, built once: `all()`, `visible()` and `find()` hand out these
 * same frozen objects (and frozen arrays) until the next scan instead of copying every entry per call.
 */
export function sharedRecords(snapshot: Snapshot): SharedRecords {
  if (snapshot.shared) return snapshot.shared;
  const all = (snapshot.onDisk as LibraryEntry[]).map(plainEntry);
  const byName = new Map<string, SkillEntry>();
  for (const record of all) if (!byName.has(record.name)) byName.set(record.name, record);
  const shown = Object.freeze(all.slice(0, snapshot.entries.length)) as SkillEntry[];
  snapshot.shared = { all: Object.freeze(all) as SkillEntry[], shown, byName };
  return snapshot.shared;
}

/** `frontmatter.name` of a library record when it is a string (the disabled lists match it, unparsed). */
export function frontmatterNameOf(entry: SkillEntry): string | undefined {
  return (entry as LibraryEntry).head.frontmatterName;
}

/**
 * The library's records of `scan`: the shown skills (first name wins, in root then path order), and every
 * skill on disk, the shown ones then those the OS or environment gate hides here.
 */
export function buildEntries(scan: ScanResult): Pick<Snapshot, "entries" | "onDisk"> {
  const seen = new Set<string>();
  const entries: SkillEntry[] = [];
  const gated: SkillEntry[] = [];
  // Shown skills first, so a gated skill never shadows a shown one of the same name.
  for (const pass of ["shown", "gated"] as const) {
    for (const record of scan.records) {
      const head = record.head;
      if (!head || seen.has(head.name)) continue;
      const hiddenBy = !head.osOk ? "os" : !head.envOk ? "environment" : undefined;
      if ((pass === "shown") !== (hiddenBy === undefined)) continue;
      seen.add(head.name);
      const root = scan.roots[record.rootIndex] as SkillRoot;
      const relDir = record.relFile === "SKILL.md" ? "" : record.relFile.slice(0, -"/SKILL.md".length);
      const entry = new LibraryEntry(
        head.name,
        record.category,
        record.dir,
        record.skillFile,
        root.dir,
        root.kind,
        relDir,
        head,
      );
      if (hiddenBy) {
        entry.hiddenBy = hiddenBy;
        gated.push(Object.freeze(entry));
      } else entries.push(Object.freeze(entry));
    }
  }
  return { entries, onDisk: Object.freeze([...entries, ...gated]) };
}

/** The listing order: by (category or "", name), compared by code unit like Python's sort. */
export function sortForList(entries: SkillEntry[]): SkillEntry[] {
  return [...entries].sort((a, b) => {
    const left = a.category ?? "";
    const right = b.category ?? "";
    if (left !== right) return left < right ? -1 : 1;
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  });
}
