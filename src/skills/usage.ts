/**
 * Usage telemetry `<home>/skills/.usage.json`, byte-compatible with Hermes: an object keyed by skill
 * name, written atomically with indent 2 and sorted keys. Every read-modify-write holds the lock file
 * `.usage.json.lock`, so bumps from several processes never lose a count. A corrupt file is moved aside
 * (`.usage.json.corrupt-<timestamp>`) and read as empty, never silently overwritten in place. The
 * record inside it is defined in `usage-record.ts`.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { checkWriteFence } from "../core/fence.js";
import {
  atomicWriteFile,
  isoTimestamp,
  parseJsonObject,
  readTextIfExists,
  stableJsonPieces,
  withLock,
} from "../core/fsutil.js";
import { addWarning, type Text, t } from "../core/i18n/messages.js";
import { cachedByFile, contentKey, takeSettled } from "../core/read-cache.js";
import { backfill, emptyRecord, type SkillState, type UsageMap, type UsageRecord } from "./usage-record.js";
import { spliceUsageText } from "./usage-splice.js";

/** What a bump counts. */
export type UsageKind = "use" | "view" | "patch";

/**
 * The bytes of each `.usage.json` this process last bumped, with the content key the file had right
 * after that write. One entry per file; any other write through this module drops it.
 */
const bumpedFiles = new Map<string, { key: string; bytes: Buffer }>();

const RECORD_KEYS = Object.keys(emptyRecord()).filter((key) => key !== "created_by");

/** True when the keys of `value` (and of every object inside it) are in ascending order. */
function sortedDeep(value: unknown): boolean {
  if (Array.isArray(value)) return value.every(sortedDeep);
  if (value === null || typeof value !== "object") return true;
  let previous: string | undefined;
  for (const key of Object.keys(value)) {
    if (previous !== undefined && !(previous < key)) return false;
    previous = key;
    if (!sortedDeep((value as Record<string, unknown>)[key])) return false;
  }
  return true;
}

/**
 * True when serialising `doc` as it is gives exactly what `backfill` + `stableJson` give: every record is
 * an object with every backfilled key, well-typed, and keys are sorted at every level.
 */
function isCanonicalUsage(doc: Record<string, unknown>): boolean {
  for (const value of Object.values(doc)) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
    const record = value as Record<string, unknown>;
    for (const key of RECORD_KEYS) if (!Object.hasOwn(record, key)) return false;
    for (const key of ["use_count", "view_count", "patch_count"])
      if (typeof record[key] !== "number" || !Number.isFinite(record[key])) return false;
    if (record.state !== "active" && record.state !== "stale" && record.state !== "archived") return false;
    if (typeof record.pinned !== "boolean") return false;
  }
  return sortedDeep(doc);
}

/**
 * The bytes of a canonical usage file (as `JSON.stringify(doc, null, 2)` wrote them) with `name`'s record
 * changed by `apply` (`bytes` itself, changed in place, when the record keeps its length), or undefined
 * when the record is not there. Only that record is parsed and
 * serialised again: in this layout a top-level key is the only line that starts with exactly two spaces
 * and a quote, and its record ends at the first line that is exactly two spaces and `}`.
 */
function spliceRecord(bytes: Buffer, name: string, apply: (record: UsageRecord) => void): Buffer | undefined {
  const head = Buffer.from(`\n  ${JSON.stringify(name)}: `);
  const at = bytes.indexOf(head);
  if (at < 0) return undefined;
  const start = at + head.length;
  const close = bytes.indexOf("\n  }", start);
  if (close < 0) return undefined;
  const end = close + 4;
  const record = JSON.parse(bytes.toString("utf8", start, end)) as UsageRecord;
  apply(record);
  const replacement = Buffer.from(JSON.stringify(record, null, 2).replaceAll("\n", "\n  "));
  // Usually the same length (counters and timestamps keep their width): overwrite in place, no new copy.
  if (replacement.length === end - start) {
    replacement.copy(bytes, start);
    return bytes;
  }
  return Buffer.concat([bytes.subarray(0, start), replacement, bytes.subarray(end)]);
}

/** The bytes of `file`, or undefined when it does not exist. */
async function readBytesIfExists(file: string): Promise<Buffer | undefined> {
  try {
    return await fs.readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** A top-level key V8 would enumerate before the others (an array index): the layout check leaves those alone. */
const INDEX_KEY = /^\d+$/;

/**
 * True when `bytes` are exactly what `JSON.stringify(doc, null, 2)` gives for a canonical usage document
 * (see `isCanonicalUsage`), checked one record at a time so the whole file is never held as objects:
 * each record is parsed on its own, must be canonical, must serialise back to its own bytes, and the
 * names must ascend. Splicing one record of such a file gives the same bytes as the full rewrite.
 */
function isCanonicalLayout(bytes: Buffer): boolean {
  const open = "{\n".length;
  if (bytes.length < 4 || bytes[0] !== 0x7b || bytes[1] !== 0x0a) return false;
  let start = open;
  let previous: string | undefined;
  for (;;) {
    const close = bytes.indexOf("\n  }", start);
    if (close < 0) return false;
    const end = close + 4;
    let one: Record<string, unknown> | undefined;
    try {
      one = parseJsonObject(`{${bytes.toString("utf8", start, end)}}`);
    } catch {
      return false;
    }
    if (one === undefined) return false;
    const names = Object.keys(one);
    const name = names[0];
    if (names.length !== 1 || name === undefined || INDEX_KEY.test(name)) return false;
    if (previous !== undefined && !(previous < name)) return false;
    if (!isCanonicalUsage(one)) return false;
    const expected = Buffer.from(JSON.stringify(one, null, 2));
    // `{\n` + the record + `\n}`: compared in place, without copying the record's bytes.
    if (expected.length !== end - start + 4) return false;
    if (bytes.compare(expected, 2, expected.length - 2, start, end) !== 0) return false;
    previous = name;
    if (end === bytes.length - 2) return bytes[end] === 0x0a && bytes[end + 1] === 0x7d;
    if (bytes[end] !== 0x2c || bytes[end + 1] !== 0x0a) return false;
    start = end + 2;
  }
}

/** The read cache's slot for the parsed records of `.usage.json` (see `readShared`). */
const SHARED_SLOT = "usage-map";

/** Reads, locks and atomically rewrites `.usage.json`. One instance per skills directory. */
export class UsageStore {
  readonly file: string;
  readonly lockFile: string;
  /** Warnings about corrupt files moved aside (for the caller to show), in English. */
  readonly warnings: string[] = [];
  /** The same warnings as texts for the reader. */
  readonly warningTexts: Text[] = [];

  /** The home this library belongs to (the write fence is kept per home). */
  private readonly home: string;

  constructor(skillsDir: string) {
    this.file = path.join(skillsDir, ".usage.json");
    this.lockFile = path.join(skillsDir, ".usage.json.lock");
    this.home = path.dirname(skillsDir);
  }

  /** Current records (backfilled). A corrupt file is moved aside and read as empty. */
  async read(): Promise<UsageMap> {
    const text = await readTextIfExists(this.file);
    if (text === undefined) return {};
    const parsed = this.parse(text);
    if (parsed !== undefined) return parsed;
    return withLock(
      this.lockFile,
      async () => {
        // Re-check under the lock: another process may have repaired or replaced it meanwhile.
        const again = await readTextIfExists(this.file);
        if (again === undefined) return {};
        const reparsed = this.parse(again);
        if (reparsed !== undefined) return reparsed;
        await this.moveAside();
        return {};
      },
      { recordHolder: false },
    );
  }

  /**
   * All records from one parse shared by every caller while the file is unchanged. Read-only: callers
   * that change records use `update`.
   */
  readShared(): Promise<Readonly<UsageMap>> {
    return cachedByFile(this.file, SHARED_SLOT, () => this.read());
  }

  /**
   * One skill's record (a copy), or null. Repeated calls on an unchanged file reuse one parse (see
   * `cachedByFile`): the ledger asks for one record around each of thousands of mutations.
   */
  async readRecord(name: string): Promise<UsageRecord | null> {
    const record = (await this.readShared())[name];
    return record ? structuredClone(record) : null;
  }

  /**
   * Runs `mutate` on the current records under the lock and writes the result atomically. Returns what
   * `mutate` returns. Nothing is written when `mutate` throws.
   *
   * `reuseShared`: when the records `readShared` returned still are what the file holds (see
   * `takeSettled`), `mutate` gets that very object instead of a new parse, and holders of it see the
   * changes at once. Only for a `mutate` that cannot throw halfway (the curator's batch of archives and
   * transitions, where this saves reading and parsing a 4 MB file).
   */
  async update<T>(
    mutate: (records: UsageMap) => T | Promise<T>,
    options: { reuseShared?: boolean } = {},
  ): Promise<T> {
    await checkWriteFence(this.home, t("fence.what.usageWrite"));
    return withLock(this.lockFile, () => this.updateLocked(mutate, options.reuseShared === true), {
      waitMs: 60_000,
      recordHolder: false,
    });
  }

  private async updateLocked<T>(
    mutate: (records: UsageMap) => T | Promise<T>,
    reuseShared = false,
  ): Promise<T> {
    bumpedFiles.delete(this.file);
    let records = reuseShared ? takeSettled<UsageMap>(this.file, SHARED_SLOT) : undefined;
    if (records === undefined) {
      records = {};
      const text = await readTextIfExists(this.file);
      if (text !== undefined) {
        const parsed = this.parse(text);
        if (parsed === undefined) await this.moveAside();
        else records = parsed;
      }
    }
    const result = await mutate(records);
    // Asked again at the commit: the wait for the lock, or a pause of this process, may have outlived
    // the lead.
    await checkWriteFence(this.home, t("fence.what.usageWrite"));
    // 0600, as Hermes writes it (a tmp file from mkstemp, renamed over).
    await atomicWriteFile(this.file, stableJsonPieces(records), { mode: 0o600 });
    return result;
  }

  /**
   * Counts one use, view or patch of `name` at `now`, at about the cost of rewriting the file once. When
   * the file is canonical (keys sorted at every level, every record complete and well-typed: what
   * skillgate and Hermes write), the record is changed in the parsed document and the whole is serialised
   * natively — the same bytes as the general path. A warm process keeps the bytes it wrote and, while the
   * file is unchanged, splices the one record in place of a read, parse and full serialisation. Any other
   * layout (a record not there yet, a legacy or hand-edited file) gets only the bumped record rewritten
   * (see `spliceUsageText`); a file that is not a JSON object takes the general `update` path.
   */
  async bump(name: string, kind: UsageKind, now: Date = new Date()): Promise<void> {
    if (name === "") return;
    await checkWriteFence(this.home, t("fence.what.usageBump"));
    const stamp = isoTimestamp(now);
    const apply = (record: UsageRecord) => {
      if (kind === "use") {
        record.use_count += 1;
        record.last_used_at = stamp;
      } else if (kind === "view") {
        record.view_count += 1;
        record.last_viewed_at = stamp;
      } else {
        record.patch_count += 1;
        record.last_patched_at = stamp;
      }
    };
    await withLock(
      this.lockFile,
      async () => {
        const warm = bumpedFiles.get(this.file);
        bumpedFiles.delete(this.file);
        const bytes =
          warm && warm.key === contentKey(this.file)
            ? spliceRecord(warm.bytes, name, apply)
            : await this.canonicalBump(name, apply);
        if (bytes === undefined) {
          // Any other layout: only this record's bytes change (hand-edited numbers, legacy records and
          // key order elsewhere stay as they are); a file that is not a JSON object takes the full path.
          const text = await readTextIfExists(this.file);
          const spliced =
            text === undefined
              ? undefined
              : spliceUsageText(text, name, (stored) => {
                  const record = stored ? backfill({ ...stored }) : emptyRecord(stamp);
                  apply(record);
                  return record;
                });
          if (spliced !== undefined) {
            await checkWriteFence(this.home, t("fence.what.usageBump"));
            await atomicWriteFile(this.file, spliced, { mode: 0o600 });
            return;
          }
          await this.updateLocked((records) => {
            const current = records[name] ?? emptyRecord(stamp);
            apply(current);
            records[name] = current;
          });
          return;
        }
        // Asked again at the commit: the wait for the lock (up to a minute), or a pause of this process,
        // may have outlived the lead, and a newer leader may have written since.
        await checkWriteFence(this.home, t("fence.what.usageBump"));
        await atomicWriteFile(this.file, bytes, { mode: 0o600 });
        const key = contentKey(this.file);
        if (key !== null && key !== "missing") bumpedFiles.set(this.file, { key, bytes });
      },
      { waitMs: 60_000, recordHolder: false },
    );
  }

  /** The bumped file's bytes when the file is in the canonical layout and has `name`'s record, else undefined. */
  private async canonicalBump(
    name: string,
    apply: (record: UsageRecord) => void,
  ): Promise<Buffer | undefined> {
    const bytes = await readBytesIfExists(this.file);
    if (bytes === undefined) return undefined;
    // The usual case: splice the one record, without parsing the whole file into objects (a 10k
    // library's file is ~4 MB of text and ~30 MB of objects).
    return isCanonicalLayout(bytes) ? spliceRecord(bytes, name, apply) : undefined;
  }

  /**
   * Sets a skill's lifecycle state: `archived` stamps `archived_at`, `active` clears it, `stale` leaves it.
   * An unknown state or an empty name is a no-op (returns false). Whether a skill may get lifecycle
   * writes at all (bundled, hub, external) is the caller's decision.
   */
  async setState(name: string, state: string, now: Date = new Date()): Promise<boolean> {
    if (name === "" || !["active", "stale", "archived"].includes(state)) return false;
    await this.update((records) => {
      const record = records[name] ?? emptyRecord(isoTimestamp(now));
      record.state = state as SkillState;
      if (state === "archived") record.archived_at = isoTimestamp(now);
      else if (state === "active") record.archived_at = null;
      records[name] = record;
    });
    return true;
  }

  /** Deletes a skill's record; returns whether there was one. */
  async forget(name: string): Promise<boolean> {
    return this.update((records) => {
      if (!Object.hasOwn(records, name)) return false;
      delete records[name];
      return true;
    });
  }

  private parse(text: string): UsageMap | undefined {
    const data = parseJsonObject(text);
    if (data === undefined) return undefined;
    // The parsed document becomes the map (records backfilled in place, non-objects dropped): no second
    // object of 10k keys is built.
    for (const name of Object.keys(data)) {
      const value = data[name];
      if (value !== null && typeof value === "object" && !Array.isArray(value)) {
        const record = backfill(value as Record<string, unknown>);
        if (record !== value) data[name] = record;
      } else delete data[name];
    }
    return data as UsageMap;
  }

  private async moveAside(): Promise<void> {
    const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*$/, "");
    const aside = `${this.file}.corrupt-${stamp}`;
    await fs.rename(this.file, aside).catch(() => undefined);
    const warning = t("usage.movedAside", { file: path.basename(this.file), aside: path.basename(aside) });
    addWarning(this, warning);
    const pending = pendingWarnings.get(path.dirname(this.file)) ?? [];
    pending.push(warning);
    pendingWarnings.set(path.dirname(this.file), pending);
  }
}

/** Warnings about files moved aside, per skills folder, until a command hands them to the person. */
const pendingWarnings = new Map<string, Text[]>();

/**
 * Takes the warnings raised in `skillsDir` since the last call (a corrupt `.usage.json` moved aside by
 * whichever store met it), so the command that triggered it can tell the person.
 */
export function takeUsageWarnings(skillsDir: string): Text[] {
  const pending = pendingWarnings.get(skillsDir) ?? [];
  pendingWarnings.delete(skillsDir);
  return pending;
}
