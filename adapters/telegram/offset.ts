/**
 * The long-polling offset, ours rather than grammy's: the next offset is persisted in
 * `<home>/gateway/telegram-offset.json` after each batch and passed to `getUpdates` on restart, which
 * confirms what was handled (nothing replayed) and fetches what arrived while we were down (nothing
 * lost). Writes are batched (`offsetFlushMs`); the gateway's dedupe drops what a crash replays. With
 * several replicas (`sharedState`) the offset lives in the shared state instead, written only under the
 * leader's epoch and never backwards; the file is still read once when the shared state has none (a home
 * that ran a single gateway before).
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { atomicWriteFile } from "../../src/core/fsutil.js";
import type { TelegramContext } from "./context.js";

/** An offset older than this is not reused: Telegram may restart update ids after a week of silence. */
const OFFSET_MAX_AGE_MS = 6 * 24 * 60 * 60 * 1000;

interface PersistedOffset {
  bot_id: number;
  offset: number;
  saved_at: string;
}

/** The saved update offset of one Telegram bot. */
export class UpdateOffset {
  /** The next update id to ask for; undefined until one was handled or loaded. */
  value: number | undefined;
  private readonly file: string;
  private write: Promise<void> | undefined;
  private dirty = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly ctx: TelegramContext) {
    this.file = path.join(ctx.options.home, "gateway", "telegram-offset.json");
  }

  /** Reads the saved offset (one of another bot, too old or unreadable is ignored). */
  async load(): Promise<void> {
    this.value = (await this.readShared()) ?? (await this.read());
  }

  /** The key of this bot's offset in the shared state. */
  private get sharedKey(): string {
    return `telegram:${this.ctx.botId}:offset`;
  }

  private async readShared(): Promise<number | undefined> {
    const state = this.ctx.hooks?.sharedState;
    if (!state) return undefined;
    try {
      const value = Number(await state.get(this.sharedKey));
      return Number.isSafeInteger(value) && value > 0 ? value : undefined;
    } catch (error) {
      this.ctx.logger.warn({ err: error }, "telegram: cannot read the shared update offset");
      return undefined;
    }
  }

  private async read(): Promise<number | undefined> {
    let text: string;
    try {
      text = await fs.readFile(this.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT")
        this.ctx.logger.warn({ err: error }, "telegram: cannot read the saved offset");
      return undefined;
    }
    try {
      const saved = JSON.parse(text) as Partial<PersistedOffset>;
      const age = Date.now() - Date.parse(String(saved.saved_at));
      if (saved.bot_id !== this.ctx.botId || !Number.isInteger(saved.offset) || !(age < OFFSET_MAX_AGE_MS))
        return undefined;
      return saved.offset;
    } catch {
      this.ctx.logger.warn(
        { file: this.file },
        "telegram: the saved offset is not valid JSON; starting from Telegram's queue (the gateway's dedupe drops repeats)",
      );
      return undefined;
    }
  }

  /**
   * Saves the offset without holding up the next poll (an fsync can take tens of ms), at most once per
   * `offsetFlushMs`: a crash replays at most that much, and the gateway's dedupe drops the replay.
   */
  scheduleSave(): void {
    this.dirty = true;
    if (this.timer || this.write) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.ctx.tuning.offsetFlushMs);
    this.timer.unref();
  }

  /** Writes the newest offset now (after any write in progress); `stop()` calls it last. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.write) await this.write;
    if (!this.dirty) return;
    this.dirty = false;
    this.write = this.save().finally(() => {
      this.write = undefined;
      if (this.dirty && this.ctx.running) this.scheduleSave();
    });
    await this.write;
  }

  private async save(): Promise<void> {
    if (this.value === undefined) return;
    // A replica that may not take events (no longer the leader) leaves the offset to the one that does;
    // and a saved offset never goes backwards (replicas share the file through the home).
    if (this.ctx.hooks?.mayTakeEvents?.() === false) return;
    const state = this.ctx.hooks?.sharedState;
    if (state) {
      // It expires after the same week of silence after which a saved offset is no longer reused.
      const stored = await state
        .set(this.sharedKey, String(this.value), { ttlMs: OFFSET_MAX_AGE_MS, forwardOnly: true })
        .catch((error: unknown) => {
          this.ctx.logger.warn({ err: error }, "telegram: cannot save the shared update offset");
          return true;
        });
      if (!stored)
        this.ctx.logger.warn(
          { offset: this.value },
          "telegram: the update offset was not saved: this replica no longer leads under the current epoch",
        );
      return;
    }
    const saved = await this.read();
    if (saved !== undefined && saved > this.value) return;
    const data: PersistedOffset = {
      bot_id: this.ctx.botId,
      offset: this.value,
      saved_at: new Date().toISOString(),
    };
    try {
      await atomicWriteFile(this.file, `${JSON.stringify(data)}\n`);
    } catch (error) {
      this.ctx.logger.warn(
        { err: error },
        "telegram: cannot save the update offset; a restart may see repeats (dropped by dedupe)",
      );
    }
  }
}
