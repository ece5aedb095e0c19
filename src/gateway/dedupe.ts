/**
 * Persistent dedupe of inbound events, keyed `platform:eventId`. Platforms redeliver (Feishu retries for
 * hours, Discord replays on RESUME, webhooks retry after timeouts), so an entry must outlive the longest
 * redelivery window and survive restarts: entries live 48 h in `<home>/gateway/dedupe.json`, written
 * atomically in batches and merged under a lock with what other processes on this home recorded.
 */
import path from "node:path";
import { atomicWriteFile, readTextIfExists, withLock } from "../core/fsutil.js";
import { contentKey } from "../core/read-cache.js";
import type { EventDedupe } from "../core/stores.js";
import { BatchedWriter } from "./batched-writer.js";

/** How long an event id is remembered: longer than any platform's redelivery window (Feishu ≈ 6 h). */
export const DEDUPE_TTL_MS = 48 * 60 * 60 * 1000;

/** Most ids kept; the oldest are forgotten first. */
export const DEDUPE_MAX_ENTRIES = 20_000;

/** Options of `DedupeStore.open`. */
export interface DedupeOptions {
  now?: () => number;
  ttlMs?: number;
  maxEntries?: number;
  /** Delay before a batched write (ms). */
  flushDelayMs?: number;
  onError?: (error: unknown) => void;
}

function parseEntries(text: string | undefined): Map<string, number> {
  const entries = new Map<string, number>();
  if (text === undefined) return entries;
  try {
    const data = JSON.parse(text) as { entries?: Record<string, unknown> };
    for (const [key, value] of Object.entries(data.entries ?? {})) {
      if (typeof value === "number" && Number.isFinite(value)) entries.set(key, value);
    }
  } catch {
    // A corrupt file only costs the memory of past events; it is rewritten on the next flush.
  }
  return entries;
}

/** Remembers which inbound events were already handled. */
export class DedupeStore implements EventDedupe {
  private readonly writer: BatchedWriter;
  /** The identity of the file as this store last wrote it (null: not written yet, or unknown). */
  private writtenKey: string | null = null;

  private constructor(
    readonly file: string,
    private entries: Map<string, number>,
    private readonly now: () => number,
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    options: DedupeOptions,
  ) {
    this.writer = new BatchedWriter(() => this.write(), options.flushDelayMs ?? 100, options.onError);
  }

  /** Loads the store of a home (a missing or corrupt file starts empty). */
  static async open(home: string, options: DedupeOptions = {}): Promise<DedupeStore> {
    const file = path.join(home, "gateway", "dedupe.json");
    const store = new DedupeStore(
      file,
      parseEntries(await readTextIfExists(file)),
      options.now ?? Date.now,
      options.ttlMs ?? DEDUPE_TTL_MS,
      options.maxEntries ?? DEDUPE_MAX_ENTRIES,
      options,
    );
    store.prune();
    return store;
  }

  /** Records `platform:eventId`; true when it was already seen within the TTL (a duplicate). */
  checkAndMark(platform: string, eventId: string): boolean {
    const key = `${platform}:${eventId}`;
    const now = this.now();
    const seenAt = this.entries.get(key);
    if (seenAt !== undefined && now - seenAt < this.ttlMs) return true;
    this.entries.delete(key);
    this.entries.set(key, now);
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

  private prune(): void {
    const cutoff = this.now() - this.ttlMs;
    for (const [key, at] of this.entries) if (at <= cutoff) this.entries.delete(key);
    if (this.entries.size <= this.maxEntries) return;
    const sorted = [...this.entries].sort((a, b) => a[1] - b[1]);
    this.entries = new Map(sorted.slice(sorted.length - this.maxEntries));
  }

  /**
   * Merges what other processes on this home recorded, then writes every entry. The file is read only
   * when it is no longer the one this store wrote last (another process replaced it since), so a lone
   * gateway under load does not re-parse its own entries at every batched write.
   */
  private async write(): Promise<void> {
    await withLock(`${this.file}.lock`, async () => {
      if (this.writtenKey === null || contentKey(this.file) !== this.writtenKey) {
        for (const [key, at] of parseEntries(await readTextIfExists(this.file))) {
          const mine = this.entries.get(key);
          if (mine === undefined || at > mine) this.entries.set(key, at);
        }
      }
      this.prune();
      const sorted = Object.fromEntries([...this.entries].sort((a, b) => a[1] - b[1]));
      await atomicWriteFile(this.file, JSON.stringify({ version: 1, entries: sorted }));
      this.writtenKey = contentKey(this.file);
    });
  }
}
