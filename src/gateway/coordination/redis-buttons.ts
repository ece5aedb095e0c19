/**
 * Shown buttons on Redis, shared by every replica of a home: a button is one key (its stored action,
 * kept for twice its lifetime so a late press is told "expired", not "unknown"), and using up a group is
 * one `SET NX` of the group's key — of two replicas receiving the same press, exactly one goes on.
 */
import {
  ACTION_TTL_MS,
  type ActionLookup,
  type ButtonStore,
  isActionId,
  newStoredActions,
  type StoredAction,
} from "../action-store.js";
import type { RedisClient } from "./redis.js";

/** Options of `RedisButtonStore`. */
export interface RedisButtonOptions {
  redis: RedisClient;
  prefix: string;
  ttlMs?: number;
  now?: () => number;
}

/** A group's use: who pressed and when. */
interface GroupUse {
  at: number;
  by: string;
}

/** The button store of a coordinated home (see the file's comment). */
export class RedisButtonStore implements ButtonStore {
  readonly ttlMs: number;
  private readonly now: () => number;

  constructor(private readonly options: RedisButtonOptions) {
    this.ttlMs = options.ttlMs ?? ACTION_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  private key(id: string): string {
    return `${this.options.prefix}button:${id}`;
  }

  private groupKey(group: string): string {
    return `${this.options.prefix}button-group:${group}`;
  }

  async add(
    items: Parameters<ButtonStore["add"]>[0],
    where: { platform: string; chatId: string },
  ): Promise<string[]> {
    const batch = this.options.redis.multi();
    const ids = newStoredActions(items, where, this.now(), this.ttlMs).map(([id, entry]) => {
      batch.set(this.key(id), JSON.stringify(entry), { expiration: { type: "PX", value: 2 * this.ttlMs } });
      return id;
    });
    if (ids.length > 0) await batch.exec();
    return ids;
  }

  async lookup(id: string, where: { platform: string; chatId: string }): Promise<ActionLookup> {
    if (!isActionId(id)) return { status: "unknown" };
    const text = await this.options.redis.get(this.key(id));
    if (!text) return { status: "unknown" };
    let action: StoredAction;
    try {
      action = JSON.parse(text) as StoredAction;
    } catch {
      return { status: "unknown" };
    }
    if (action.platform !== where.platform || action.chatId !== where.chatId) return { status: "unknown" };
    const used = await this.options.redis.get(this.groupKey(action.group));
    if (used) {
      const use = JSON.parse(used) as GroupUse;
      return { status: "used", action: { ...action, usedAt: use.at, usedBy: use.by } };
    }
    if (this.now() >= action.expiresAt) return { status: "expired", action };
    return { status: "ok", action };
  }

  async consume(id: string, by: string): Promise<boolean> {
    if (!isActionId(id)) return false;
    const text = await this.options.redis.get(this.key(id));
    if (!text) return false;
    const action = JSON.parse(text) as StoredAction;
    const use: GroupUse = { at: this.now(), by };
    const set = await this.options.redis.set(this.groupKey(action.group), JSON.stringify(use), {
      condition: "NX",
      expiration: { type: "PX", value: 2 * this.ttlMs },
    });
    return set !== null;
  }

  async flush(): Promise<void> {}
}
