/**
 * The snapshot tar writer: a gzipped tar of the library streamed from disk in a stable depth-first
 * order, members encoded straight into large batches so memory stays flat and the event loop is never
 * blocked for long. Symlinks are recorded as they are met (a rollback restores them as-is).
 */
import { once } from "node:events";
import {
  closeSync,
  createReadStream,
  createWriteStream,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
} from "node:fs";
import path from "node:path";
import type { TransformOptions } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip, type Gzip, type ZlibOptions } from "node:zlib";
import { Header, type HeaderData, Pax } from "tar";
import { moduleWorker } from "../../core/workers.js";
import { HERMES_SKIP_DIRS, SUPPORT_DIRS } from "../../skills/skip-dirs.js";

/** A symlink found while archiving: restored as-is by a rollback even when it points outside the tree. */
export interface RecordedLink {
  path: string;
  target: string;
}

/**
 * Members are encoded straight into batches of this size; each full batch is one gzip write (one
 * thread-pool job), so headers, bodies and padding never exist as separate small buffers.
 */
const BATCH_BYTES = 256 * 1024;
/**
 * The gzip level of snapshots. Deflate is most of a snapshot's CPU time; on skill libraries (Markdown,
 * scripts) level 4, the cheapest level that still defers matches lazily, compresses about 40 % faster
 * than gzip's default 6 for an archive about 4 % larger. Any level reads back the same.
 */
const GZIP_LEVEL = 4;
/** Files above this size are streamed from disk instead of read into a batch. */
const STREAMED_FILE_BYTES = BATCH_BYTES / 2;
/**
 * Batches gzip may hold before the walk waits for it: enough for gzip (on the thread pool) to compress
 * one batch while the walk fills the next, small enough to keep memory flat.
 */
const GZIP_QUEUE_BATCHES = 3;
/**
 * Reads are synchronous (thousands of tiny files cost far less without a thread-pool hop each), so the
 * walk yields to the event loop at least this often (ms) and a gateway keeps answering.
 */
const MAX_BLOCKING_MS = 20;
/** How often (ms) the walk reports the skills archived so far. */
const PROGRESS_MS = 100;

/** What one lstat told about a path: enough to encode its member. */
interface MemberInfo {
  rel: string;
  abs: string;
  type: "File" | "Directory" | "SymbolicLink";
  mode: number;
  mtime: Date;
  size: number;
  linkpath?: string;
  /** The content, once read outside a batch (a file that changed size while it was read). */
  body?: Buffer;
}

/** How writing a member into the current batch went. */
type BatchResult = "written" | "skipped" | "full";

/** Lstats a path (and reads a symlink's target); null for other file types and vanished paths. */
function statMember(abs: string, rel: string): MemberInfo | null {
  try {
    const stat = lstatSync(abs, { throwIfNoEntry: false });
    if (!stat) return null;
    const mode = stat.mode & 0o777;
    // Truncated, never rounded: Node's `stat.mtime` rounds to the millisecond, which moves a file
    // stamped x.9995 s into the next second; tar headers (like tar(1) and Python's tarfile) keep the
    // second the file was written in.
    const mtime = new Date(Math.floor(stat.mtimeMs));
    if (stat.isDirectory()) return { rel, abs, type: "Directory", mode, mtime, size: 0 };
    if (stat.isSymbolicLink())
      return { rel, abs, type: "SymbolicLink", mode, mtime, size: 0, linkpath: readlinkSync(abs) };
    if (stat.isFile()) return { rel, abs, type: "File", mode, mtime, size: stat.size };
    return null;
  } catch {
    // Vanished or unreadable while we walked: leave it out rather than fail the whole snapshot.
    return null;
  }
}

/** A directory's entry names, sorted; empty when it vanished meanwhile. */
function listDir(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** `size` rounded up to whole 512-byte blocks. */
function padded(size: number): number {
  return Math.ceil(size / 512) * 512;
}

/** The tar header fields of a member (the body size given separately when it was re-read). */
function headerData(member: MemberInfo, size: number): HeaderData {
  return {
    path: member.type === "Directory" ? `${member.rel}/` : member.rel,
    mode: member.mode,
    mtime: member.mtime,
    uid: 0,
    gid: 0,
    type: member.type,
    size,
    linkpath: member.linkpath,
  };
}

/**
 * The tar byte stream on its way into gzip: members are encoded with tar's header and pax encoders
 * directly into a zero-filled batch buffer, and small files are read straight into it, so the common
 * member costs no allocation and no await. A full batch goes to gzip as one write.
 */
class TarBatcher {
  private batch = Buffer.alloc(BATCH_BYTES);
  private used = 0;

  constructor(private readonly gzip: Gzip) {}

  /**
   * Writes a member into the current batch: "full" (nothing written) when it does not fit,
   * "skipped" when the file could not be read (vanished or unreadable meanwhile).
   */
  tryMember(member: MemberInfo): BatchResult {
    const start = this.used;
    if (member.type !== "File") return this.putHeaders(headerData(member, 0), 0) ? "written" : "full";
    if (member.body) {
      const { body } = member;
      if (!this.putHeaders(headerData(member, body.length), padded(body.length))) return "full";
      body.copy(this.batch, this.used);
      this.used += padded(body.length);
      return "written";
    }
    const { size } = member;
    // One byte more than lstat said is read, so a file that grew meanwhile is noticed.
    if (size > STREAMED_FILE_BYTES || !this.putHeaders(headerData(member, size), padded(size + 1)))
      return "full";
    const bodyAt = this.used;
    let length: number;
    try {
      length = readInto(member.abs, this.batch, bodyAt, size);
    } catch {
      this.rewind(start);
      return "skipped";
    }
    if (length !== size) {
      // Changed size since lstat: archive what it holds now, with a header that says so.
      const body =
        length < size
          ? Buffer.from(this.batch.subarray(bodyAt, bodyAt + length))
          : readFileOrNull(member.abs);
      this.rewind(start);
      if (!body) return "skipped";
      member.body = body;
      return this.tryMember(member);
    }
    this.used = bodyAt + padded(size);
    return "written";
  }

  /** Writes a member too large for a batch: its headers, then its body streamed, then padding. */
  async writeStreamed(member: MemberInfo): Promise<void> {
    const size = member.body?.length ?? member.size;
    await this.flush();
    if (!this.putHeaders(headerData(member, size), 0))
      throw new Error(`tar headers of ${member.rel} do not fit in a batch`);
    await this.flush();
    let sent = 0;
    if (member.body) {
      await this.send(member.body);
      sent = member.body.length;
    } else if (size > 0) {
      const chunks = createReadStream(member.abs, { start: 0, end: size - 1 }) as AsyncIterable<Buffer>;
      for await (const chunk of chunks) {
        sent += chunk.length;
        await this.send(chunk);
      }
    }
    // Shrank meanwhile: zero-fill to the size the header announced.
    if (sent < size) await this.send(Buffer.alloc(size - sent));
    this.used = padded(size) - size;
  }

  /** Hands the current batch to gzip and starts a fresh one. */
  async flush(): Promise<void> {
    if (this.used === 0) return;
    const chunk = this.batch.subarray(0, this.used);
    this.batch = Buffer.alloc(BATCH_BYTES);
    this.used = 0;
    await this.send(chunk);
  }

  /** Appends the two zero blocks that end an archive and flushes. */
  async finish(): Promise<void> {
    if (BATCH_BYTES - this.used < 1024) await this.flush();
    this.used += 1024;
    await this.flush();
  }

  /**
   * Writes to gzip, waiting when its queue is full; otherwise yields once to the event loop, so gzip's
   * finished jobs are collected and it starts on the next queued batch while the walk goes on.
   */
  private async send(chunk: Buffer): Promise<void> {
    if (!this.gzip.write(chunk)) await once(this.gzip, "drain");
    else await new Promise((resolve) => setImmediate(resolve));
  }

  /**
   * Encodes the header (a pax header first when the ustar fields cannot hold the path or link) at the
   * current position, if they fit with `reserve` more bytes after them; false (nothing written) if not.
   */
  private putHeaders(data: HeaderData, reserve: number): boolean {
    const at = this.used;
    if (this.batch.length - at < 512 + reserve) return false;
    const header = new Header(data);
    if (!header.encode(this.batch, at)) {
      this.used = at + 512;
      return true;
    }
    const pax = new Pax({
      path: data.path,
      linkpath: data.linkpath,
      size: data.size,
      mtime: data.mtime,
    }).encode();
    if (this.batch.length - at < pax.length + 512 + reserve) {
      this.rewind(at);
      return false;
    }
    // The pax blocks (at least two) cover the ustar header just encoded; the header goes after them.
    pax.copy(this.batch, at);
    header.encode(this.batch, at + pax.length);
    this.used = at + pax.length + 512;
    return true;
  }

  /** Drops everything written from `position` on (the batch must stay zero past `used`). */
  private rewind(position: number): void {
    this.batch.fill(0, position);
    this.used = position;
  }
}

/**
 * Reads a regular file of `size` bytes into `buffer` at `offset`, asking for one byte more: a read
 * that comes back short of that is at end of file, so the common case costs one read. Returns the
 * length read (size + 1 when the file grew).
 */
function readInto(file: string, buffer: Buffer, offset: number, size: number): number {
  const fd = openSync(file, "r");
  try {
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, offset + length, size + 1 - length, null);
      if (n === 0) return length;
      length += n;
      if (length >= size) return length;
    }
  } finally {
    closeSync(fd);
  }
}

/** A file's current content, or null when it vanished. */
function readFileOrNull(file: string): Buffer | null {
  try {
    return readFileSync(file);
  } catch {
    return null;
  }
}

/**
 * True when `rel` (a file under `skills/`) is a live skill's `SKILL.md` as Hermes counts them for a
 * snapshot manifest's `skill_files`: not below an excluded folder, not inside a support folder of a
 * folder that holds a `SKILL.md` itself.
 */
export function countsAsSkillFile(rel: string, rootPrefix: string): boolean {
  const parts = rel.split("/");
  if (parts[parts.length - 1] !== "SKILL.md") return false;
  if (parts.some((part) => HERMES_SKIP_DIRS.has(part))) return false;
  for (let at = 0; at < parts.length - 1; at++) {
    if (!SUPPORT_DIRS.has(parts[at] as string)) continue;
    const owner = `${rootPrefix}${parts
      .slice(0, at)
      .map((part) => `${part}/`)
      .join("")}SKILL.md`;
    if (lstatSync(owner, { throwIfNoEntry: false })?.isFile()) return false;
  }
  return true;
}

/**
 * Streams a gzipped tar of `entries` to `dest` depth-first in a stable order; gzip backpressure paces
 * the walk, so memory stays flat however large the library is. Counts SKILL.md files and records
 * symlinks on the way; `progress` hears how many live skills (SKILL.md files) are in so far.
 */
export async function streamArchive(
  root: string,
  entries: string[],
  dest: string,
  progress: (done: number) => void = () => undefined,
  signal?: AbortSignal,
): Promise<{ skillFiles: number; links: RecordedLink[] }> {
  let skillFiles = 0;
  const links: RecordedLink[] = [];
  // zlib hands its options to the underlying Transform, which is where the queue bound lives.
  const gzip = createGzip({
    level: GZIP_LEVEL,
    chunkSize: 64 * 1024,
    writableHighWaterMark: GZIP_QUEUE_BATCHES * BATCH_BYTES,
  } as ZlibOptions & TransformOptions);
  const written = pipeline(gzip, createWriteStream(dest, { mode: 0o644 }));
  const tar = new TarBatcher(gzip);
  const rootPrefix = root.endsWith(path.sep) ? root : root + path.sep;
  try {
    // One lstat per member decides both its header and whether to descend.
    const stack: string[] = [...entries].reverse();
    let since = performance.now();
    let reported = 0;
    while (stack.length > 0) {
      // Stopped: the error below closes gzip and the file (the partial file is the caller's to remove).
      signal?.throwIfAborted();
      const rel = stack.pop() as string;
      const member = statMember(rootPrefix + rel, rel);
      if (!member) continue;
      let result = tar.tryMember(member);
      if (result === "full") {
        await tar.flush();
        result = tar.tryMember(member);
        if (result === "full") {
          await tar.writeStreamed(member);
          result = "written";
        }
      }
      if (result === "skipped") continue;
      // Live skills only, as Hermes counts them (see `countsAsSkillFile`).
      if (member.type === "File" && countsAsSkillFile(rel, rootPrefix)) {
        skillFiles++;
        // At most every PROGRESS_MS: a worker posts each report, and a library can hold 50k skills.
        if (performance.now() - reported > PROGRESS_MS) {
          progress(skillFiles);
          reported = performance.now();
        }
      }
      if (member.linkpath !== undefined) links.push({ path: rel, target: member.linkpath });
      if (member.type === "Directory") {
        const names = listDir(member.abs);
        for (let i = names.length - 1; i >= 0; i--) stack.push(`${rel}/${names[i]}`);
      }
      if (performance.now() - since > MAX_BLOCKING_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        since = performance.now();
      }
    }
    await tar.finish();
    progress(skillFiles);
    gzip.end();
  } catch (error) {
    gzip.destroy(error as Error);
    await written.catch(() => undefined);
    throw error;
  }
  await written;
  return { skillFiles, links };
}

/** What `streamArchiveOffThread` hands its worker. */
export interface ArchiveJob {
  root: string;
  entries: string[];
  dest: string;
}

/** What the archive worker posts: progress, then its outcome. */
export type ArchiveMessage =
  | { kind: "progress"; done: number }
  | { kind: "done"; skillFiles: number; links: RecordedLink[] }
  | { kind: "failed"; message: string };

/** What the parent may send the archive worker: stop writing (it then fails with the reason and exits). */
export interface ArchiveStop {
  kind: "stop";
}

/** How long a stopped worker may take to wind down before it is terminated. */
const STOP_GRACE_MS = 10_000;

/** An archive being written, in this thread or in a worker. */
export interface ArchiveInProgress {
  result: Promise<{ skillFiles: number; links: RecordedLink[] }>;
  /** Stops the writing as soon as it can (the partial file is left to the caller). */
  stop(): Promise<void>;
}

/**
 * `streamArchive` in a worker thread, so the calling thread is free meanwhile (the curator plans while
 * its pre-run snapshot is written; a gateway keeps answering). Same archive, same progress.
 */
export function streamArchiveOffThread(
  root: string,
  entries: string[],
  dest: string,
  progress: (done: number) => void = () => undefined,
): ArchiveInProgress {
  const workerData: ArchiveJob = { root, entries, dest };
  const worker = moduleWorker(new URL("./archive-worker.js", import.meta.url), { workerData });
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  const result = new Promise<{ skillFiles: number; links: RecordedLink[] }>((resolve, reject) => {
    worker.on("message", (message: ArchiveMessage) => {
      if (message.kind === "progress") progress(message.done);
      else if (message.kind === "done") resolve({ skillFiles: message.skillFiles, links: message.links });
      else reject(new Error(message.message));
    });
    worker.on("error", reject);
    // After an outcome this changes nothing (a promise settles once).
    worker.on("exit", (code) => reject(new Error(`the archive worker stopped early (exit code ${code})`)));
  });
  return {
    result,
    // Asked, not killed: the worker ends its archive at the next member and closes its file itself; it is
    // terminated only if it has not exited within the grace period.
    stop: async () => {
      const stop: ArchiveStop = { kind: "stop" };
      worker.postMessage(stop);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<"late">((resolve) => {
        timer = setTimeout(() => resolve("late"), STOP_GRACE_MS);
        timer.unref();
      });
      if ((await Promise.race([exited, late])) === "late") await worker.terminate();
      clearTimeout(timer);
    },
  };
}

/** `streamArchive` in this thread, as an `ArchiveInProgress` (stopping ends it at its next member). */
export function streamArchiveHere(
  root: string,
  entries: string[],
  dest: string,
  progress?: (done: number) => void,
): ArchiveInProgress {
  const stopped = new AbortController();
  const result = streamArchive(root, entries, dest, progress, stopped.signal);
  return {
    result,
    stop: async () => {
      stopped.abort(new Error("the snapshot was discarded"));
      await result.catch(() => undefined);
    },
  };
}
