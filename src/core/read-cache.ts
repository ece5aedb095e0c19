/**
 * Read-path cache for small metadata files read on every command (`/curator status`, ledger captures):
 * `.curator_state`, `.usage.json`, `.bundled_manifest`, `.hub/lock.json`. Each read stats the file
 * (one synchronous `stat`, no error object when it is missing) and reuses the previous text, or a value
 * derived from it, while the file's inode, size, mtime and ctime are unchanged. Every writer replaces
 * these files atomically (new inode), and an in-place edit changes mtime/ctime, so a change is seen on
 * the very next read.
 */

import { statSync } from "node:fs";
import { readTextIfExists } from "../core/fsutil.js";
import { trimOldest } from "./bounded.js";

/**
 * How long after a file's last change (its ctime) a read of it is "settled": a later change then shows
 * as a new ctime even on a file system with a coarse clock. Changes closer to the read (or after it) may
 * share the tick and leave the stamp as it was.
 */
export const RACY_MS = 2000;

/** A file's stamp: its content key and its ctime in ms, or null when it cannot be stat'ed. */
function stampOf(file: string): { key: string; ctimeMs: number } | null {
  try {
    const stat = statSync(file, { bigint: true, throwIfNoEntry: false });
    if (stat === undefined) return { key: "missing", ctimeMs: Number.POSITIVE_INFINITY };
    return {
      key: `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`,
      ctimeMs: Number(stat.ctimeNs / 1_000_000n),
    };
  } catch {
    return null;
  }
}

/** Identity of a file's current content, "missing" when absent, or null when it cannot be stat'ed. */
export function contentKey(file: string): string | null {
  return stampOf(file)?.key ?? null;
}

interface Entry {
  key: string;
  value: unknown;
  /** The file was last changed `RACY_MS` or more before the read began (see `takeSettled`). */
  settled: boolean;
}

/** Cached values by file and by what was derived from it. Bounded by the files a home has. */
const cache = new Map<string, Map<string, Entry>>();
/** Cap on the files remembered (one gateway serves one home; tests make many). */
const MAX_FILES = 64;

/**
 * The value `compute` derives from `file`, reused while the file is unchanged. `slot` names the kind of
 * value (one file can feed several). The key is taken before `compute` runs, so a change racing with
 * it is re-read next time. Callers must not mutate the value they get.
 */
export async function cachedByFile<T>(file: string, slot: string, compute: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const stamp = stampOf(file);
  if (stamp === null) return compute();
  const { key } = stamp;
  const slots = cache.get(file);
  const hit = slots?.get(slot);
  if (hit && hit.key === key) return hit.value as T;
  const value = await compute();
  if (!cache.has(file)) trimOldest(cache, MAX_FILES - 1);
  const target = slots ?? new Map<string, Entry>();
  target.set(slot, { key, value, settled: stamp.ctimeMs <= started - RACY_MS });
  cache.set(file, target);
  return value;
}

/**
 * Takes `slot`'s value out of the cache for a writer that holds `file`'s lock and will replace the file:
 * returned only while the file still has the stamp it was read under and that read was settled, so the
 * value is what the file holds now. The caller owns it from then on (it may change it in place, which
 * holders of the shared value also see); the next read of the file computes it again.
 */
export function takeSettled<T>(file: string, slot: string): T | undefined {
  const slots = cache.get(file);
  const hit = slots?.get(slot);
  if (!slots || !hit) return undefined;
  slots.delete(slot);
  return hit.settled && hit.key === contentKey(file) ? (hit.value as T) : undefined;
}

/** `readTextIfExists` through the cache: the file's text, or undefined when it does not exist. */
export function readTextCached(file: string): Promise<string | undefined> {
  return cachedByFile(file, "text", () => readTextIfExists(file));
}
