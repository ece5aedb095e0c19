/**
 * The last chat activity of a home, persisted in `<home>/gateway/activity.json` so that idle time
 * (what `curator.min_idle_hours` is measured against) survives restarts and is shared by every
 * gateway serving this home. Writes are batched; the newest time always wins.
 */
import path from "node:path";
import { atomicWriteFile, isoTimestamp, readTextIfExists, withLock } from "../core/fsutil.js";
import type { LastActivity } from "../core/stores.js";
import { BatchedWriter } from "./batched-writer.js";

function parseLast(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  try {
    const value = (JSON.parse(text) as { last_activity_ms?: unknown }).last_activity_ms;
    return typeof value === "number" && Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Tracks and persists the last chat activity time (ms since epoch). */
export class ActivityStore implements LastActivity {
  private last: number | undefined;
  private readonly writer: BatchedWriter;
  /** When this process opened the store: idle time never counts from before it. */
  readonly startedAt: number;

  private constructor(
    readonly file: string,
    private readonly now: () => number,
    onError?: (error: unknown) => void,
  ) {
    this.writer = new BatchedWriter(() => this.write(), 1000, onError);
    this.startedAt = now();
  }

  /** Opens the store of a home. */
  static async open(
    home: string,
    options: { now?: () => number; onError?: (error: unknown) => void } = {},
  ): Promise<ActivityStore> {
    const store = new ActivityStore(
      path.join(home, "gateway", "activity.json"),
      options.now ?? Date.now,
      options.onError,
    );
    store.last = parseLast(await readTextIfExists(store.file));
    return store;
  }

  /** Notes chat activity now (or at `at`). */
  touch(at: number = this.now()): void {
    if (this.last === undefined || at > this.last) this.last = at;
    this.writer.schedule();
  }

  /** The last activity known here or recorded by another process on this home; undefined when never. */
  async lastActivity(): Promise<number | undefined> {
    const recorded = parseLast(await readTextIfExists(this.file));
    if (recorded === undefined) return this.last;
    return this.last === undefined ? recorded : Math.max(recorded, this.last);
  }

  /**
   * Seconds idle, counted from the later of this process's start and the home's last chat activity, so
   * a restart never makes a busy home look idle and a home with no recorded activity still has to wait.
   */
  async idleSeconds(): Promise<number> {
    const last = await this.lastActivity();
    const since = Math.max(this.startedAt, last ?? Number.NEGATIVE_INFINITY);
    return Math.max(0, (this.now() - since) / 1000);
  }

  /** Writes the pending time now. */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  private async write(): Promise<void> {
    await withLock(`${this.file}.lock`, async () => {
      const recorded = parseLast(await readTextIfExists(this.file));
      const last = Math.max(recorded ?? 0, this.last ?? 0);
      if (last === 0) return;
      await atomicWriteFile(
        this.file,
        JSON.stringify({ last_activity_at: isoTimestamp(new Date(last)), last_activity_ms: last }),
      );
    });
  }
}
