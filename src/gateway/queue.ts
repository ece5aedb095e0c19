/**
 * Per-chat ordering under a global bound: each chat gets its own p-queue (one task at a time, so a
 * chat's commands run in the order they arrived) and every task also waits for a slot of a global
 * queue of `concurrency` slots, so a busy gateway never runs more than that many commands at once.
 */
import PQueue from "p-queue";

/** Ordered per-key execution with a global concurrency bound. */
export class ChatQueues {
  private readonly global: PQueue;
  private readonly chats = new Map<string, PQueue>();
  private active = 0;

  constructor(concurrency: number) {
    this.global = new PQueue({ concurrency });
  }

  /** Number of tasks queued or running across all chats. */
  get inFlight(): number {
    return this.active;
  }

  /** Runs `task` after the earlier tasks of `key`, within the global bound. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    let chat = this.chats.get(key);
    if (!chat) {
      chat = new PQueue({ concurrency: 1 });
      this.chats.set(key, chat);
    }
    const queue = chat;
    this.active++;
    const result = queue.add(() => this.global.add(task)) as Promise<T>;
    return result.finally(() => {
      this.active--;
      // Forget idle chats so the map does not grow with every chat ever seen.
      if (queue.size === 0 && queue.pending === 0 && this.chats.get(key) === queue) this.chats.delete(key);
    });
  }

  /** Resolves once every queued and running task has finished. */
  async idle(): Promise<void> {
    while (this.active > 0) {
      await Promise.all([...this.chats.values()].map((queue) => queue.onIdle()));
      await this.global.onIdle();
      if (this.active > 0) await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
