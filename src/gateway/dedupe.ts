/**
 * Persistent dedupe of inbound events, keyed `platform:eventId`. Platforms redeliver (Feishu retries for
 * hours, Discord replays on RESUME, webhooks retry after timeouts), so an entry must outlive the longest
 * redelivery window and survive restarts: entries live 48 h.
 *
 * On disk: a snapshot `<home>/gateway/dedupe.json` (`{"version":1,"entries":{key: at}}`) and a journal
 * `<home>/gateway/dedupe.log` with one `["key",at]` line per new event. A batched write appends the new
 * lines and syncs them; once the journal holds about as many lines as the store has entries, the
 * entries are written as a new snapshot (atomically) and the journal is emptied. So a message costs a
 * short append instead of rewriting every remembered id (20,000 at most) ten times a second under load.
 * Writes hold a lock; other processes on this home append to the same journal, and a write that finds
 * the snapshot or the journal changed by someone else reads both again and merges before writing.
 */
import { promises as fs, statSync } from "node:fs";
import path from "node:path";
import { trimOldest } from "../core/bounded.js";
import { atomicWriteFile, readTextIfExists, withLock } from "../core/fsutil.js";
import { contentKey } from "../core/read-cache.js";
import type { EventDedupe } from "../core/stores.js";
import { BatchedWriter } from "./batched-writer.js";

/** How long an event id is remembered: longer than any platform's redelivery window (Feishu ≈ 6 h). */
export const DEDUPE_TTL_MS = 48 * 60 * 60 * 1000;

/** Most ids kept; the oldest are forgotten first. */
export const DEDUPE_MAX_ENTRIES = 20_000;

/** Journal lines before it is folded into the snapshot, at least (else the store's size). */
const MIN_JOURNAL_LINES = 1000;

/** Options of `DedupeStore.open`. */
export interface DedupeOptions {
  now?: () => number;
  ttlMs?: number;
  maxEntries?: number;
  /** Delay before a batched write (ms). */
  flushDelayMs?: number;
  onError?: (error: unknown) => void;
}

/** What the files of a store hold, as read. */
interface DiskState {
  /** Entries of the snapshot with the journal replayed over it, oldest first. */
  entries: Map<string, number>;
  journalLines: number;
  journalBytes: number;
  /** The snapshot did not parse, or the journal ends in a torn line: the next write must fold. */
  damaged: boolean;
}

/** The journal beside a snapshot file (`dedupe.json` → `dedupe.log`). */
function journalOf(file: string): string {
  return file.replace(/\.json$/, ".log");
}

/** Sets `key` to `at` unless a later time is already there. */
function keepLatest(entries: Map<string, number>, key: unknown, at: unknown): void {
  if (typeof key !== "string" || typeof at !== "number" || !Number.isFinite(at)) return;
  const known = entries.get(key);
  if (known === undefined || at > known) entries.set(key, at);
}

/** Reads the snapshot and journal of `file`; missing files are empty, unreadable lines are skipped. */
async function readDisk(file: string): Promise<DiskState> {
  const [snapshot, journal] = await Promise.all([readTextIfExists(file), readTextIfExists(journalOf(file))]);
  const entries = new Map<string, number>();
  let damaged = false;
  if (snapshot !== undefined) {
    try {
      const data = JSON.parse(snapshot) as { entries?: Record<string, unknown> };
      for (const [key, at] of Object.entries(data.entries ?? {})) keepLatest(entries, key, at);
    } catch {
      // A corrupt snapshot only costs the memory of past events; the next write replaces it.
      damaged = true;
    }
  }
  let journalLines = 0;
  for (const line of (journal ?? "").split("\n")) {
    if (line === "") continue;
    journalLines += 1;
    try {
      const [key, at] = JSON.parse(line) as [unknown, unknown];
      keepLatest(entries, key, at);
    } catch {
      // A line torn by a crash mid-append.
    }
  }
  // An append after a torn last line would be glued to it: fold instead.
  if (journal !== undefined && journal !== "" && !journal.endsWith("\n")) damaged = true;
  return {
    entries: new Map([...entries].sort((a, b) => a[1] - b[1])),
    journalLines,
    journalBytes: journal === undefined ? 0 : Buffer.byteLength(journal),
    damaged,
  };
}

/** Size of a file in bytes, 0 when it is missing. */
function sizeOf(file: string): number {
  return statSync(file, { throwIfNoEntry: false })?.size ?? 0;
}

/** Remembers which inbound events were already handled. */
export class DedupeStore implements EventDedupe {
  private readonly writer: BatchedWriter;
  /** Events recorded here and not written yet. */
  private pending: [key: string, at: number][] = [];
  /** The snapshot's identity as this store last read or wrote it. */
  private snapshotKey: string | null;
  /** The journal's length and line count as this store last read or wrote it. */
  private journalBytes: number;
  private journalLines: number;
  /** The next write replaces the snapshot and empties the journal. */
  private mustFold: boolean;

  private constructor(
    readonly file: string,
    /** Entries oldest first (insertion order), so pruning stops at the first live one. */
    private entries: Map<string, number>,
    private readonly now: () => number,
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    disk: DiskState,
    options: DedupeOptions,
  ) {
    this.snapshotKey = contentKey(file);
    this.journalBytes = disk.journalBytes;
    this.journalLines = disk.journalLines;
    this.mustFold = disk.damaged;
    this.writer = new BatchedWriter(() => this.write(), options.flushDelayMs ?? 100, options.onError);
  }

  /** Loads the store of a home (missing or corrupt files start empty). */
  static async open(home: string, options: DedupeOptions = {}): Promise<DedupeStore> {
    const file = path.join(home, "gateway", "dedupe.json");
    const disk = await readDisk(file);
    const store = new DedupeStore(
      file,
      disk.entries,
      options.now ?? Date.now,
      options.ttlMs ?? DEDUPE_TTL_MS,
      options.maxEntries ?? DEDUPE_MAX_ENTRIES,
      disk,
      options,
    );
    store.prune();
    return store;
  }

  /** The journal beside the snapshot. */
  get journalFile(): string {
    return journalOf(this.file);
  }

  /** Records `platform:eventId`; true when it was already seen within the TTL (a duplicate). */
  async checkAndMark(platform: string, eventId: string): Promise<boolean> {
    const key = `${platform}:${eventId}`;
    const now = this.now();
    const seenAt = this.entries.get(key);
    if (seenAt !== undefined && now - seenAt < this.ttlMs) return true;
    // Re-added at the newest end, so the map stays oldest first.
    if (seenAt !== undefined) this.entries.delete(key);
    this.entries.set(key, now);
    this.pending.push([key, now]);
    this.prune();
    this.writer.schedule();
    return false;
  }

  /** Number of remembered ids. */
  get size(): number {
    return this.entries.size;
  }

  /** Writes pending entries now. */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  /** Forgets expired ids from the oldest end, then the oldest beyond the cap. */
  private prune(): void {
    const cutoff = this.now() - this.ttlMs;
    for (const [key, at] of this.entries) {
      if (at > cutoff) break;
      this.entries.delete(key);
    }
    trimOldest(this.entries, this.maxEntries);
  }

  /** True when another process replaced the snapshot or appended to the journal since this store looked. */
  private changedElsewhere(): boolean {
    return contentKey(this.file) !== this.snapshotKey || sizeOf(this.journalFile) !== this.journalBytes;
  }

  /**
   * Merges what the files hold (other processes' events) into memory. When memory then holds an entry
   * the files lack (beyond the `writing` ones about to be appended), the write must fold: another process
   * dropped it, and appending alone would not put it back.
   */
  private async merge(writing: Set<string>): Promise<void> {
    this.snapshotKey = contentKey(this.file);
    const disk = await readDisk(this.file);
    for (const [key, at] of this.entries) {
      const known = disk.entries.get(key);
      if (known !== undefined && known >= at) continue;
      disk.entries.set(key, at);
      if (!writing.has(key)) this.mustFold = true;
    }
    this.entries = new Map([...disk.entries].sort((a, b) => a[1] - b[1]));
    this.journalBytes = disk.journalBytes;
    this.journalLines = disk.journalLines;
    this.mustFold ||= disk.damaged;
    this.prune();
  }

  private async write(): Promise<void> {
    const lines = this.pending;
    this.pending = [];
    try {
      await withLock(`${this.file}.lock`, async () => {
        if (this.changedElsewhere()) await this.merge(new Set(lines.map(([key]) => key)));
        const fold =
          this.mustFold ||
          this.snapshotKey === "missing" ||
          this.journalLines + lines.length > Math.max(MIN_JOURNAL_LINES, this.entries.size);
        if (fold) await this.fold();
        else await this.append(lines);
        this.snapshotKey = contentKey(this.file);
      });
    } catch (error) {
      // Nothing is lost: the lines go out with the next write, which rewrites the snapshot.
      this.pending = [...lines, ...this.pending];
      this.mustFold = true;
      throw error;
    }
  }

  /** Writes every entry as the snapshot and empties the journal. */
  private async fold(): Promise<void> {
    this.prune();
    await atomicWriteFile(
      this.file,
      JSON.stringify({ version: 1, entries: Object.fromEntries(this.entries) }),
    );
    await atomicWriteFile(this.journalFile, "");
    this.journalBytes = 0;
    this.journalLines = 0;
    this.mustFold = false;
  }

  /** Appends one `["key",at]` line per event to the journal and syncs it. */
  private async append(lines: [key: string, at: number][]): Promise<void> {
    if (lines.length === 0) return;
    const text = `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`;
    const handle = await fs.open(this.journalFile, "a", 0o644);
    try {
      await handle.writeFile(text);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    this.journalBytes += Buffer.byteLength(text);
    this.journalLines += lines.length;
  }
}
