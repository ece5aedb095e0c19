/**
 * Persistent store of the buttons the gateway has shown, keyed by an opaque random id (the callback
 * data a platform echoes back). A press can only name an id; what it does is what was stored here
 * when the button was shown, so a client cannot forge a command. Entries are bound to the platform and
 * chat they were shown in, expire (`gateway.actions.ttl_hours`, default 24 h), and are used up once
 * (with every button of their group) when a press is accepted; used entries are kept until they expire
 * so a second press is told it was already done. The file is `<home>/gateway/actions.json`, written
 * atomically before a button is shown and before a press acts, so buttons survive a restart.
 */

import { randomBytes } from "node:crypto";
import path from "node:path";
import type { ActionIntent, ActionPlacement } from "../core/actions.js";
import { trimOldest } from "../core/bounded.js";
import { atomicWriteFile, parseJsonObject, readTextIfExists } from "../core/fsutil.js";

/** Default lifetime of a shown button. */
export const ACTION_TTL_MS = 24 * 60 * 60 * 1000;

/** Most entries kept; the oldest are dropped first. */
export const ACTION_MAX_ENTRIES = 5000;

/** One stored button. */
export interface StoredAction {
  intent: ActionIntent;
  placement: ActionPlacement;
  /** Buttons of one group are used up together. */
  group: string;
  /** Single-use (commands and cancel); page buttons may be pressed again. */
  once: boolean;
  platform: string;
  chatId: string;
  createdAt: number;
  expiresAt: number;
  /** Set when used up: who pressed and when. */
  usedAt?: number;
  usedBy?: string;
}

/** What a stored id resolves to for a press. */
export type ActionLookup =
  | { status: "ok"; action: StoredAction }
  | { status: "unknown" }
  | { status: "expired"; action: StoredAction }
  | { status: "used"; action: StoredAction };

/** A button id: 16 random bytes, base64url (22 characters; fits Telegram's 64-byte callback data). */
export function newActionId(): string {
  return randomBytes(16).toString("base64url");
}

const ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;

function isIntent(value: unknown): value is ActionIntent {
  if (typeof value !== "object" || value === null) return false;
  const kind = (value as { kind?: unknown }).kind;
  if (kind === "cancel") return true;
  if (kind === "secret") {
    const { skill, key } = value as { skill?: unknown; key?: unknown };
    return typeof skill === "string" && typeof key === "string";
  }
  const invocation = (value as { invocation?: unknown }).invocation as
    | { path?: unknown; args?: unknown; options?: unknown }
    | undefined;
  const valid =
    typeof invocation === "object" &&
    invocation !== null &&
    Array.isArray(invocation.path) &&
    invocation.path.every((part) => typeof part === "string") &&
    Array.isArray(invocation.args) &&
    invocation.args.every((part) => typeof part === "string") &&
    typeof invocation.options === "object" &&
    invocation.options !== null;
  if (kind === "run") return valid;
  if (kind === "page") return valid && Number.isInteger((value as { page?: unknown }).page);
  return false;
}

function parseEntries(text: string | undefined): Map<string, StoredAction> {
  const entries = new Map<string, StoredAction>();
  const data = text === undefined ? undefined : parseJsonObject(text);
  const actions = data?.actions;
  if (typeof actions !== "object" || actions === null) return entries;
  for (const [id, value] of Object.entries(actions as Record<string, unknown>)) {
    const entry = value as Partial<StoredAction> | null;
    if (
      !ID_PATTERN.test(id) ||
      !entry ||
      !isIntent(entry.intent) ||
      typeof entry.platform !== "string" ||
      typeof entry.chatId !== "string" ||
      typeof entry.group !== "string" ||
      typeof entry.expiresAt !== "number" ||
      typeof entry.createdAt !== "number"
    ) {
      continue;
    }
    entries.set(id, {
      intent: entry.intent,
      placement: entry.placement === "reply" ? "reply" : "replace",
      group: entry.group,
      once: entry.once !== false,
      platform: entry.platform,
      chatId: entry.chatId,
      createdAt: entry.createdAt,
      expiresAt: entry.expiresAt,
      usedAt: typeof entry.usedAt === "number" ? entry.usedAt : undefined,
      usedBy: typeof entry.usedBy === "string" ? entry.usedBy : undefined,
    });
  }
  return entries;
}

/** Options of `ActionStore.open`. */
export interface ActionStoreOptions {
  now?: () => number;
  ttlMs?: number;
  maxEntries?: number;
}

/** The store of shown buttons of one home. */
export class ActionStore {
  private writing: Promise<void> = Promise.resolve();
  /** The write queued behind the one in progress; saves asked for meanwhile share it. */
  private queued: Promise<void> | undefined;

  private constructor(
    readonly file: string,
    private readonly entries: Map<string, StoredAction>,
    private readonly now: () => number,
    readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  /** Loads the store of a home; a missing or corrupt file starts empty (old buttons then say so). */
  static async open(home: string, options: ActionStoreOptions = {}): Promise<ActionStore> {
    const file = path.join(home, "gateway", "actions.json");
    const store = new ActionStore(
      file,
      parseEntries(await readTextIfExists(file)),
      options.now ?? Date.now,
      options.ttlMs ?? ACTION_TTL_MS,
      options.maxEntries ?? ACTION_MAX_ENTRIES,
    );
    store.prune();
    return store;
  }

  /** Number of entries held (used ones included). */
  get size(): number {
    return this.entries.size;
  }

  /** Stores buttons and writes the file; returns their ids in order. */
  async add(
    items: { intent: ActionIntent; placement: ActionPlacement; group: string; once: boolean }[],
    where: { platform: string; chatId: string },
  ): Promise<string[]> {
    const createdAt = this.now();
    const ids = items.map((item) => {
      const id = newActionId();
      this.entries.set(id, {
        ...item,
        platform: where.platform,
        chatId: where.chatId,
        createdAt,
        expiresAt: createdAt + this.ttlMs,
      });
      return id;
    });
    this.prune();
    await this.save();
    return ids;
  }

  /** Resolves a pressed id for a chat. A malformed id, or one from another platform or chat, is unknown. */
  lookup(id: string, where: { platform: string; chatId: string }): ActionLookup {
    if (!ID_PATTERN.test(id)) return { status: "unknown" };
    const action = this.entries.get(id);
    if (!action || action.platform !== where.platform || action.chatId !== where.chatId) {
      return { status: "unknown" };
    }
    if (action.usedAt !== undefined) return { status: "used", action };
    if (this.now() >= action.expiresAt) return { status: "expired", action };
    return { status: "ok", action };
  }

  /**
   * Uses up a single-use button and its group, and writes the file before returning. False when it was
   * already used (a second press, even one racing the first): the caller then does nothing.
   */
  async consume(id: string, by: string): Promise<boolean> {
    const action = this.entries.get(id);
    if (!action || action.usedAt !== undefined) return false;
    const usedAt = this.now();
    for (const entry of this.entries.values()) {
      if (entry.group === action.group && entry.usedAt === undefined) {
        entry.usedAt = usedAt;
        entry.usedBy = by;
      }
    }
    await this.save();
    return true;
  }

  /** Waits for writes in progress. */
  async flush(): Promise<void> {
    await this.writing;
  }

  private prune(): void {
    const now = this.now();
    for (const [id, entry] of this.entries) if (now >= entry.expiresAt) this.entries.delete(id);
    trimOldest(this.entries, this.maxEntries);
  }

  /**
   * Writes the whole file (group commit): a save asked for while a write is in progress joins the one
   * queued behind it, which serialises the entries when it starts, so it holds every change made
   * before it. Under a burst of replies with buttons the file (up to 5,000 entries, ~1 MB) is written
   * about twice instead of once per reply.
   */
  private save(): Promise<void> {
    if (this.queued) return this.queued;
    const next = this.writing.then(() => {
      this.queued = undefined;
      return atomicWriteFile(
        this.file,
        `${JSON.stringify({ version: 1, actions: Object.fromEntries(this.entries) })}\n`,
      );
    });
    this.queued = next;
    this.writing = next.catch(() => undefined);
    return next;
  }
}
