/**
 * File helpers every writer in skillgate uses: atomic replacement (tmp + fsync + rename) and a
 * cross-process lock file (`flock(2)`, see `flock.ts`), so two processes on one home never lose each
 * other's writes.
 */

import { type Dir, promises as fs, opendirSync, readSync } from "node:fs";
import path from "node:path";
import { tempSuffix } from "./temp-files.js";

export { acquireLock, type HeldLock, LockBusyError, type LockOptions, withLock } from "./flock.js";

/**
 * Writes `data` to `file` atomically: a sibling tmp file is written, fsynced and renamed over it. Text
 * may come in pieces (see `stableJsonPieces`), each encoded as UTF-8 on its own and written in order.
 * The tmp file is named after its writer (`.<name>.<pid>.<host tag + 4 hex>.tmp`), so recovery can tell
 * one left by a killed process (`removeDeadTemps`).
 */
export async function atomicWriteFile(
  file: string,
  data: string | Uint8Array | Iterable<string>,
  options: { mode?: number } = {},
): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${tempSuffix()}.tmp`);
  const handle = await fs.open(tmp, "w", options.mode ?? 0o644);
  try {
    if (typeof data === "string") {
      if (data.length > LONG_TEXT) await writeTextInChunks(handle, [data]);
      else await handle.writeFile(data);
    } else if (data instanceof Uint8Array) await handle.writeFile(data);
    else await writeTextInChunks(handle, data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.rename(tmp, file);
  } catch (error) {
    await fs.rm(tmp, { force: true });
    throw error;
  }
}

/** Bytes encoded per write of a long text. */
const TEXT_CHUNK_BYTES = 256 * 1024;
/** Texts longer than this (in UTF-16 units) are written in chunks. */
const LONG_TEXT = 64 * 1024;

/**
 * Writes text pieces in order at the handle's position (its end when opened to append), through one small
 * buffer instead of encoding the text whole first: on these VMs every fresh page costs a fault, and a 4 MB
 * `.usage.json` encoded at once was ~1,000 of them. A unit takes at most 3 bytes, so what is encoded
 * always fits; a chunk never ends between the two halves of a surrogate pair.
 */
export async function writeTextInChunks(handle: fs.FileHandle, pieces: Iterable<string>): Promise<void> {
  const chunk = Buffer.allocUnsafe(TEXT_CHUNK_BYTES);
  let used = 0;
  const flush = async () => {
    for (let written = 0; written < used; )
      written += (await handle.write(chunk, written, used - written)).bytesWritten;
    used = 0;
  };
  for (const piece of pieces) {
    for (let at = 0; at < piece.length; ) {
      let end = Math.min(piece.length, at + Math.floor((TEXT_CHUNK_BYTES - used) / 3));
      const last = piece.charCodeAt(end - 1);
      if (end < piece.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
      if (end <= at) {
        await flush();
        continue;
      }
      used += chunk.write(at === 0 && end === piece.length ? piece : piece.slice(at, end), used, "utf8");
      at = end;
    }
  }
  await flush();
}

/** JSON as Hermes writes it: indent 2, keys sorted at every level, trailing newline omitted. */
export function stableJson(value: unknown): string {
  return JSON.stringify(sortedKeys(value), null, 2);
}

/**
 * `stableJson(value)` of JSON data in pieces whose concatenation is that text, each holding a run of
 * entries of a top-level object. Written with `atomicWriteFile`, a 4 MB `.usage.json` is never built as
 * one string, which JSON.stringify returns as a rope that the write must first copy flat.
 */
export function* stableJsonPieces(value: unknown): Generator<string> {
  const sorted = sortedKeys(value);
  if (sorted === null || typeof sorted !== "object" || Array.isArray(sorted) || "toJSON" in sorted) {
    yield JSON.stringify(sorted, null, 2);
    return;
  }
  const record = sorted as Record<string, unknown>;
  const keys = Object.keys(record);
  let first = true;
  for (let start = 0; start < keys.length; start += ENTRIES_PER_PIECE) {
    // A run of entries as an object of their own gives `{\n  "a": …,\n  "b": …\n}`, indented as in the
    // whole object. It has no prototype, so a `__proto__` key stays a key; keys keep their order (integer-
    // like ones first, as in the whole). Entries JSON leaves out (undefined values) are left out here too.
    const run: Record<string, unknown> = Object.create(null);
    const end = Math.min(keys.length, start + ENTRIES_PER_PIECE);
    for (let at = start; at < end; at++) {
      const key = keys[at] as string;
      run[key] = record[key];
    }
    const text = JSON.stringify(run, null, 2);
    if (text === "{}") continue;
    yield first ? "{\n" : ",\n";
    yield text.slice(2, -2);
    first = false;
  }
  yield first ? "{}" : "\n}";
}

/**
 * Entries per piece of `stableJsonPieces`: one JSON.stringify call per 64 `.usage.json` records costs
 * about half of one call per record in a fresh process, and a piece stays small (about 25 KB).
 */
const ENTRIES_PER_PIECE = 64;

/**
 * `value` with object keys sorted at every level (arrays keep their order). Parts already in order are
 * returned as they are, not copied: `.usage.json` is read sorted and written back sorted, and copying
 * its 10k records on every write was most of the write's time. Either way the JSON text is the same
 * (enumeration order follows the keys' order in both).
 */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item = sortedKeys(value[index]);
      if (item !== value[index]) {
        copy ??= value.slice();
        copy[index] = item;
      }
    }
    return copy ?? value;
  }
  if (value === null || typeof value !== "object" || value instanceof Date) return value;
  const record = value as Record<string, unknown>;
  if (isSortedFlat(record)) return record;
  const keys = Object.keys(record);
  let ordered = true;
  for (let index = 1; index < keys.length && ordered; index++)
    ordered = (keys[index - 1] as string) < (keys[index] as string);
  let out: Record<string, unknown> | undefined;
  if (!ordered) {
    // No prototype: a `__proto__` key (a skill may be named so) is copied as a key, not made the prototype.
    out = Object.create(null) as Record<string, unknown>;
    for (const key of keys.sort()) out[key] = record[key];
  }
  for (const key of keys) {
    const item = record[key];
    const sorted = sortedKeys(item);
    if (sorted !== item) {
      out ??= { ...record };
      out[key] = sorted;
    }
  }
  return out ?? record;
}

/**
 * True for a plain object whose keys are in order and whose values are all primitives (a `.usage.json`
 * record), checked without allocating: `for...in` over such an object walks V8's cached key list, where
 * `Object.keys` would build an array per record.
 */
function isSortedFlat(record: Record<string, unknown>): boolean {
  const proto = Object.getPrototypeOf(record);
  if (proto !== Object.prototype && proto !== null) return false;
  let previous: string | undefined;
  for (const key in record) {
    if (previous !== undefined && !(previous < key)) return false;
    previous = key;
    const item = record[key];
    if (item !== null && typeof item === "object") return false;
  }
  return true;
}

/**
 * The names in `dir` (an empty set when it does not exist), or undefined when it holds more than `cap`
 * entries or cannot be read. For a batch that would otherwise look up many names in one folder one by
 * one: reading a name costs far less than a lookup, and the cap bounds what a huge folder costs.
 */
export function namesUpTo(dir: string, cap: number): Set<string> | undefined {
  let handle: Dir;
  try {
    handle = opendirSync(dir, { bufferSize: 128 });
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? new Set() : undefined;
  }
  const names = new Set<string>();
  try {
    for (let entry = handle.readSync(); entry !== null; entry = handle.readSync()) {
      if (names.size >= cap) return undefined;
      names.add(entry.name);
    }
    return names;
  } catch {
    return undefined;
  } finally {
    handle.closeSync();
  }
}

/** `length` bytes of the open file `fd` from `position` (fewer when the file ends first). */
export function readRangeSync(fd: number, position: number, length: number): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const got = readSync(fd, bytes, filled, length - filled, position + filled);
    if (got === 0) break;
    filled += got;
  }
  return filled === length ? bytes : bytes.subarray(0, filled);
}

/**
 * Reads a file as UTF-8, or `undefined` when it does not exist. Decoded in one piece: `readFile` with an
 * encoding decodes chunk by chunk into a rope, which `JSON.parse` of a 4 MB `.usage.json` must flatten.
 */
export async function readTextIfExists(file: string): Promise<string | undefined> {
  try {
    return (await fs.readFile(file)).toString("utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Parses JSON text (a BOM tolerated) that must hold an object; anything else is `undefined`. */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    return undefined;
  }
  return data !== null && typeof data === "object" && !Array.isArray(data)
    ? (data as Record<string, unknown>)
    : undefined;
}

/** Hermes-style timestamp: ISO 8601 UTC with microseconds and `+00:00`. */
export function isoTimestamp(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000+00:00");
}

/** True when something (a file, a folder, a dangling symlink) exists at `file`; links are not followed. */
export async function pathExists(file: string): Promise<boolean> {
  try {
    await fs.lstat(file);
    return true;
  } catch {
    return false;
  }
}
