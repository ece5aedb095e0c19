/**
 * Batches writes of a small state file: callers mark it dirty, one write happens after a short delay
 * (or on `flush`), and writes never overlap. Used by the dedupe, activity and session stores.
 */

/** Runs `write` at most once per `delayMs` while changes keep coming; writes never overlap. */
export class BatchedWriter {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;

  constructor(
    private readonly write: () => Promise<void>,
    private readonly delayMs = 100,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /** Notes a change; the write follows within `delayMs`. */
  schedule(): void {
    this.dirty = true;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush().catch(this.onError);
    }, this.delayMs);
    this.timer.unref();
  }

  /** Writes pending changes now and resolves once they are on disk. */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const run = this.writing.then(async () => {
      if (!this.dirty) return;
      this.dirty = false;
      try {
        await this.write();
      } catch (error) {
        this.dirty = true;
        throw error;
      }
    });
    this.writing = run.catch(() => undefined);
    await run;
  }
}
