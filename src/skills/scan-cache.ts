/**
 * What one scan records for the next: every folder listing and every SKILL.md head, each with the stamp
 * its path had when it was read (see `scan.ts` for how stamps decide reuse).
 *
 * The rows are kept in columns rather than one object per row: a fresh process loads this from the
 * persistent index (`index-cache.ts`) before every `curator run` or `skills list`, and at 10k skills a
 * row object per folder and per head (with its own path string) was most of what that load allocated.
 * A folder is keyed by its root and its path below that root, in the order the walk visits folders, so a
 * walk over an unchanged tree finds each row where it expects it (`findDir`'s `hint`) without hashing a
 * path; a head belongs to its folder's row.
 */
import type { Stats } from "node:fs";

/** What listing needs from one SKILL.md head. */
export interface SkillHead {
  /** Frontmatter name (or folder name), truncated to 64. */
  readonly name: string;
  /** The untruncated frontmatter name, when declared. */
  readonly declaredName: string | undefined;
  /** `frontmatter.name` when it is a string: the disabled lists are matched against it too. */
  readonly frontmatterName: string | undefined;
  /** The description listing shows (a head from the persistent index reads it on first access). */
  readonly description: string;
  /** The parsed frontmatter (a head from the persistent index parses it on first access). */
  readonly frontmatter: Record<string, unknown>;
  /** The `platforms:` gate passes on this OS. */
  readonly osOk: boolean;
  /** The `environments:` gate passes here. */
  readonly envOk: boolean;
  /**
   * Whether the persistent index can store this head's gate inputs, when the head knows it without
   * parsing its frontmatter (see `isStorableHead`).
   */
  readonly storableGates?: boolean;
  /**
   * The frontmatter for a pass that looks at every head once (the index writer), read without being
   * kept by the head; `pass` holds what the heads read for the pass and is dropped with it.
   */
  frontmatterOnce?(pass: Map<object, unknown>): Record<string, unknown>;
}

/**
 * Numbers per row in a stamps column: the path's mtimeMs, ctimeMs, size, ino and dev (`stat`, following
 * symlinks). An mtime of NaN marks a stamp recorded as unsettled: it never matches, so the entry is read
 * again until it settles.
 */
export const STAMP_FIELDS = 5;

/** Appends the stamp of row `row` of the stamps column `from` to `to`. */
export function appendStamp(to: number[], from: ArrayLike<number>, row: number): void {
  const at = row * STAMP_FIELDS;
  for (let field = 0; field < STAMP_FIELDS; field++) to.push(from[at + field] as number);
}

/** The listing of a skill folder whose only walkable entry is a regular SKILL.md. */
export const PLAIN_SKILL = "fSKILL.md";

/** The columns of a `ScanCache`; index `i` of each folder column (and `5i…5i+4` of its stamps) is row `i`. */
export interface ScanColumns {
  /** Root folders (lexical paths) the folder rows are relative to. */
  roots: string[];
  /** Per folder row: index into `roots`. */
  dirRoot: number[];
  /** Per folder row: its path below the root, `/`-separated ("" for the root itself). */
  dirRel: string[];
  /** Per folder row: the folder's stamp (mtime NaN when unsettled). */
  dirStamps: ArrayLike<number>;
  /** Per folder row: the walkable entries, encoded as `scan.ts` describes. */
  dirEntries: string[];
  /** Per head row: the folder row its SKILL.md sits in. */
  headDir: number[];
  /** Per head row: the SKILL.md's stamp (mtime NaN when unsettled). */
  headStamps: ArrayLike<number>;
}

/**
 * The listings and heads one scan recorded. Heads are objects (they are what the library's records
 * point at); a cache loaded from the index builds each head when a scan first asks for it.
 */
export class ScanCache {
  /** Per root: folder path below it → row, built on the first lookup that misses its hint. */
  private byRel: Map<string, number>[] | undefined;
  /** Folder row → head row (-1: none), built on the first head lookup. */
  private headOfDir: Int32Array | undefined;

  /**
   * `heads[i]` is head row `i`, or undefined until `makeHead(i)` builds it (a cache loaded from the index).
   */
  constructor(
    readonly columns: ScanColumns,
    private readonly heads: (SkillHead | undefined)[],
    private readonly makeHead?: (row: number) => SkillHead,
  ) {}

  /** A cache with nothing recorded. */
  static empty(): ScanCache {
    return new ScanCache(
      { roots: [], dirRoot: [], dirRel: [], dirStamps: [], dirEntries: [], headDir: [], headStamps: [] },
      [],
    );
  }

  /** How many folder listings are recorded. */
  get dirCount(): number {
    return this.columns.dirRel.length;
  }

  /** How many heads are recorded. */
  get headCount(): number {
    return this.columns.headDir.length;
  }

  /** The row of the folder `rel` below root `root` (an index into `roots`), or -1; `hint` is tried first. */
  findDir(root: number, rel: string, hint: number): number {
    const { dirRoot, dirRel } = this.columns;
    if (hint < dirRel.length && dirRoot[hint] === root && dirRel[hint] === rel) return hint;
    if (!this.byRel) {
      this.byRel = this.columns.roots.map(() => new Map<string, number>());
      for (let row = 0; row < dirRel.length; row++)
        this.byRel[dirRoot[row] as number]?.set(dirRel[row] as string, row);
    }
    return this.byRel[root]?.get(rel) ?? -1;
  }

  /** True when folder row `row` was recorded under the stamp `stat` has now. */
  dirMatches(row: number, stat: Stats): boolean {
    return matches(this.columns.dirStamps, row, stat);
  }

  /** The encoded entries of folder row `row`. */
  entriesAt(row: number): string {
    return this.columns.dirEntries[row] as string;
  }

  /** The head row of the SKILL.md in folder row `dirRow`, or -1. */
  headRowOf(dirRow: number): number {
    if (!this.headOfDir) {
      this.headOfDir = new Int32Array(this.dirCount).fill(-1);
      this.columns.headDir.forEach((dir, row) => {
        (this.headOfDir as Int32Array)[dir] = row;
      });
    }
    return this.headOfDir[dirRow] ?? -1;
  }

  /** True when head row `row` was recorded under the stamp `stat` has now. */
  headMatches(row: number, stat: Stats): boolean {
    return matches(this.columns.headStamps, row, stat);
  }

  /** The head of head row `row`. */
  headAt(row: number): SkillHead {
    let head = this.heads[row];
    if (!head) {
      head = (this.makeHead as (row: number) => SkillHead)(row);
      this.heads[row] = head;
    }
    return head;
  }
}

function matches(stamps: ArrayLike<number>, row: number, stat: Stats): boolean {
  const at = row * STAMP_FIELDS;
  return (
    stamps[at] === stat.mtimeMs &&
    stamps[at + 1] === stat.ctimeMs &&
    stamps[at + 2] === stat.size &&
    stamps[at + 3] === stat.ino &&
    stamps[at + 4] === stat.dev
  );
}
