/**
 * The console's live feed. While at least one page listens (server-sent events), the library is checked
 * once a second: the skill library's own watcher decides whether a rescan is needed (a clean library
 * answers from memory), and a handful of `stat`s cover what lives beside the skills (usage, ledger,
 * archive, snapshots, curator state and reports). A difference becomes one `change` event; actions and
 * curator runs add `progress` and `changed` events of their own.
 */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import { homePaths } from "../../config/home.js";
import type { SkillLibrary } from "../../skills/types.js";

/** One event sent to every listening page. */
export interface ConsoleEvent {
  type: "change" | "progress" | "run-finished";
  data: unknown;
}

/** A listener of the feed. */
export type ConsoleListener = (event: ConsoleEvent) => void;

/** How often the feed looks for changes while pages listen. */
const CHECK_MS = 1000;

/** Fan-out of console events, and the change check that runs while anyone listens. */
export class ConsoleEvents {
  private readonly listeners = new Set<ConsoleListener>();
  private timer: NodeJS.Timeout | undefined;
  private last: string | undefined;
  private checking = false;

  constructor(
    private readonly home: string,
    private readonly library: SkillLibrary,
  ) {}

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: ConsoleListener): () => void {
    this.listeners.add(listener);
    if (!this.timer) {
      this.timer = setInterval(() => void this.check(), CHECK_MS);
      this.timer.unref();
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stopTimer();
    };
  }

  /** Sends `event` to every listener. */
  emit(event: ConsoleEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A closed stream is removed by its own abort handler.
      }
    }
  }

  /** Stops the check and forgets every listener. */
  close(): void {
    this.stopTimer();
    this.listeners.clear();
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** A digest of what the pages show; changes when the library or its side files change. */
  async fingerprint(): Promise<string> {
    const paths = homePaths(this.home);
    const hash = createHash("sha1");
    for (const entry of await this.library.all().catch(() => []))
      hash.update(`${entry.name}\0${entry.dir}\n`);
    const files = [
      paths.skills,
      paths.usage,
      paths.ledger,
      paths.archive,
      paths.backups,
      paths.curatorState,
      paths.curatorLogs,
    ];
    for (const file of files) {
      const stat = await fs.stat(file).catch(() => undefined);
      hash.update(stat ? `${stat.mtimeMs}:${stat.size}\n` : "-\n");
    }
    return hash.digest("hex");
  }

  private async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      const now = await this.fingerprint();
      if (this.last !== undefined && now !== this.last)
        this.emit({ type: "change", data: { at: Date.now() } });
      this.last = now;
    } finally {
      this.checking = false;
    }
  }
}
