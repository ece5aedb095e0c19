/**
 * The ledger's content store `<home>/.curator_backups/blobs/<sha256>`: one write-once file per distinct
 * content. A blob is written to `.tmp-<pid>.<8hex>…` (its writer named, see `core/temp-files`) and renamed
 * into place; an existing blob is never
 * rewritten (a batch that listed the folder before another process stored the same content renames the
 * same bytes over it). Garbage collection removes unreferenced blobs older than one hour.
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  createReadStream,
  createWriteStream,
  promises as fs,
  fstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { homePaths } from "../config/home.js";
import { namesUpTo, readRangeSync } from "../core/fsutil.js";
import { tempSuffix, writerGone } from "../core/temp-files.js";

/** Files up to this size are hashed in memory; larger ones are streamed. */
const IN_MEMORY_LIMIT = 4 * 1024 * 1024;

/** Blobs and tmp files younger than this survive garbage collection. */
export const BLOB_GC_GRACE_MS = 3_600_000;

/** A blob's path. */
export function blobPath(home: string, digest: string): string {
  return path.join(homePaths(home).blobs, digest);
}

/** sha256 of some bytes, hex. */
export function sha256(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("hex");
}

/** True when the blob exists. */
export async function hasBlob(home: string, digest: string): Promise<boolean> {
  if (!/^[0-9a-f]{64}$/.test(digest)) return false;
  return fs
    .stat(blobPath(home, digest))
    .then((stat) => stat.isFile())
    .catch(() => false);
}

/** Reads a blob's bytes. */
export async function readBlob(home: string, digest: string): Promise<Buffer> {
  return fs.readFile(blobPath(home, digest));
}

/** The start of a new tmp blob's name: `.tmp-<pid>.<host tag + 4 hex>`. */
function tempPrefix(): string {
  return `.tmp-${process.pid}.${tempSuffix()}`;
}

/**
 * Removes the tmp blobs whose writer is gone (a capture killed mid-write; see `writerGone`) and returns
 * how many. Tmp blobs named before writers were recorded are left to `gcBlobs`' grace period.
 */
export async function removeDeadBlobTemps(home: string, atStart = false): Promise<number> {
  const dir = homePaths(home).blobs;
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    const match = /^\.tmp-(\d+)\.([0-9a-f]{8})[.-]/.exec(name);
    if (!match) continue;
    const file = path.join(dir, name);
    const stat = await fs.lstat(file).catch(() => undefined);
    if (!stat?.isFile()) continue;
    const writer = { pid: Number(match[1]), host: (match[2] as string).slice(0, 4) };
    // A streamed blob of a large file may take a while: only an hour makes a live writer's file abandoned.
    if (!writerGone(writer, stat.mtimeMs, { maxAgeMs: BLOB_GC_GRACE_MS, atStart })) continue;
    await fs.rm(file, { force: true });
    removed++;
  }
  return removed;
}

/** Stores bytes (write-once) and returns their digest. */
export async function storeBytes(home: string, data: Uint8Array): Promise<string> {
  const digest = sha256(data);
  const dest = blobPath(home, digest);
  if (await hasBlob(home, digest)) {
    await touch(dest);
    return digest;
  }
  const dir = path.dirname(dest);
  await fs.mkdir(dir, { recursive: true });
  const tmp = path.join(dir, `${tempPrefix()}-${digest}`);
  await fs.writeFile(tmp, data, { mode: 0o644 });
  await commitTmp(tmp, dest);
  return digest;
}

/**
 * Stores a regular file's content and returns its digest. Large files are streamed through the hash
 * into the tmp file, so the blob always matches its name even if the file changes meanwhile.
 */
export async function storeFile(home: string, file: string): Promise<string> {
  const stat = await fs.stat(file);
  if (stat.size <= IN_MEMORY_LIMIT) return storeBytes(home, await fs.readFile(file));
  const dir = homePaths(home).blobs;
  await fs.mkdir(dir, { recursive: true });
  const tmp = path.join(dir, `${tempPrefix()}-streaming`);
  const hash = createHash("sha256");
  try {
    await pipeline(
      createReadStream(file),
      async function* (source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          hash.update(chunk);
          yield chunk;
        }
      },
      createWriteStream(tmp, { mode: 0o644 }),
    );
  } catch (error) {
    await fs.rm(tmp, { force: true });
    throw error;
  }
  const digest = hash.digest("hex");
  await commitTmp(tmp, blobPath(home, digest));
  return digest;
}

/**
 * What a batch of synchronous captures shares: the digests stored or refreshed so far (not looked up
 * again), whether the blob folder is known to exist, and one prefix for its tmp files.
 */
export interface BlobBatch {
  known: Set<string>;
  dirReady: boolean;
  tag: string;
  next: number;
  /**
   * The blob folder's names when the batch began, when it was small enough to list (see `namesUpTo`):
   * a digest is looked up here instead of on disk. A blob another process stores meanwhile is then
   * written again with the same bytes (a rename over it), which changes nothing it holds.
   */
  listed?: Set<string>;
}

/**
 * A fresh `BlobBatch`. `expectedFiles`: about how many files the batch will capture; with it the blob
 * folder is listed once up front when it holds at most 16 names per expected file.
 */
export function newBlobBatch(home?: string, expectedFiles = 0): BlobBatch {
  const batch: BlobBatch = {
    known: new Set(),
    dirReady: false,
    tag: `${tempPrefix()}.`,
    next: 0,
  };
  if (home !== undefined && expectedFiles > 0)
    batch.listed = namesUpTo(homePaths(home).blobs, 16 * expectedFiles);
  return batch;
}

/** A file's bytes through one open descriptor (open, fstat, read, close); too large ones throw. */
function readSmallFileSync(file: string): Buffer {
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    if (size > IN_MEMORY_LIMIT) throw new BlobTooLargeForBatch(file);
    return readRangeSync(fd, 0, size);
  } finally {
    closeSync(fd);
  }
}

/**
 * `storeFile` with synchronous calls, for batches (see `captureStateSync`): per new content one read of
 * the file, one tmp write and one rename; per content seen earlier in the batch, only the read. Files
 * above the in-memory limit throw `BlobTooLargeForBatch`, and the caller falls back to the streaming,
 * asynchronous capture.
 */
export function storeFileSync(home: string, file: string, batch: BlobBatch = newBlobBatch()): string {
  const data = readSmallFileSync(file);
  const digest = sha256(data);
  if (batch.known.has(digest)) return digest;
  const dest = blobPath(home, digest);
  // A blob stored before gets its time refreshed (one call, which also tells whether it is there); one
  // not there, or gone since the folder was listed, is written.
  const stored = batch.listed ? batch.listed.has(digest) && refreshed(dest) : refreshed(dest);
  if (!stored) {
    const dir = path.dirname(dest);
    if (!batch.dirReady) {
      mkdirSync(dir, { recursive: true });
      batch.dirReady = true;
    }
    const tmp = path.join(dir, `${batch.tag}${(batch.next++).toString(36)}-${digest}`);
    writeFileSync(tmp, data, { mode: 0o644 });
    try {
      renameSync(tmp, dest);
    } catch (error) {
      rmSync(tmp, { force: true });
      throw error;
    }
  }
  batch.known.add(digest);
  return digest;
}

/**
 * Refreshes an existing blob's time (see `touch`); false when it is gone (a GC since it was seen), and
 * the caller stores it again.
 */
function refreshed(blob: string): boolean {
  const now = new Date();
  try {
    utimesSync(blob, now, now);
    return true;
  } catch {
    return false;
  }
}

/** Thrown by `storeFileSync` for a file too large to hash in memory. */
export class BlobTooLargeForBatch extends Error {
  constructor(file: string) {
    super(`${file} is too large for an in-memory capture`);
  }
}

/**
 * Refreshes a reused blob's time, so a concurrent GC's one-hour grace covers the ledger entry that is
 * about to cite it.
 */
async function touch(blob: string): Promise<void> {
  const now = new Date();
  await fs.utimes(blob, now, now).catch(() => undefined);
}

/** Renames a finished tmp blob into place unless the blob already exists. */
async function commitTmp(tmp: string, dest: string): Promise<void> {
  const exists = await fs
    .stat(dest)
    .then(() => true)
    .catch(() => false);
  if (exists) {
    await fs.rm(tmp, { force: true });
    await touch(dest);
    return;
  }
  await fs.rename(tmp, dest);
}

/**
 * Removes blobs not in `referenced` (and abandoned tmp files) older than the grace period. Returns the
 * number of files removed.
 */
export async function gcBlobs(home: string, referenced: Set<string>, now = Date.now()): Promise<number> {
  const dir = homePaths(home).blobs;
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (referenced.has(name)) continue;
    if (!/^[0-9a-f]{64}$/.test(name) && !name.startsWith(".tmp-")) continue;
    const file = path.join(dir, name);
    try {
      const stat = await fs.lstat(file);
      if (now - stat.mtimeMs < BLOB_GC_GRACE_MS) continue;
      await fs.rm(file, { force: true });
      removed++;
    } catch {
      // Gone already.
    }
  }
  return removed;
}
