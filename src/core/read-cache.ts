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

/** Identity of a file's current content, "missing" when absent, or null when it cannot be stat'ed. */
function contentKey(file: string): string | null {
  try {
    const stat = statSync(file, { bigint: true, throwIfNoEntry: false });
    if (stat === undefined) return "missing";
    return `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
  } catch {
    return null;
  }
}

interface Entry {
  key: string;
  value: unknown;
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
  const key = contentKey(file);
  if (key === null) return compute();
  const slots = cache.get(file);
  const hit = slots?.get(slot);
  if (hit && hit.key === key) return hit.value as T;
  const value = await compute();
  if (!cache.has(file)) trimOldest(cache, MAX_FILES - 1);
  const target = slots ?? new Map<string, Entry>();
  target.set(slot, { key, value });
  cache.set(file, target);
  return value;
}

/** `readTextIfExists` through the cache: the file's text, or undefined when it does not exist. */
export function readTextCached(file: string): Promise<string | undefined> {
  return cachedByFile(file, "text", () => readTextIfExists(file));
}
