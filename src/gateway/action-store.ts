/**
 * Persistent store of the buttons the gateway has shown, keyed by an opaque random id (the callback
 * data a platform echoes back). A press can only name an id; what it does is what was stored here
 * when the button was shown, so a client cannot forge a command. Entries are bound to the platform and
 * chat they were shown in, expire (`gateway.actions.ttl_hours`, default 24 h), and are used up once
 * (with every button of their group) when a press is accepted; used entries are kept until they expire
 * so a second press is told it was already done. Buttons survive a restart: what is shown and what is
 * used is appended to the journal `<home>/gateway/actions.log` before a button is shown and before a
 * press acts; the journal is folded into the snapshot `<home>/gateway/actions.json` (written
 * atomically) once it holds about as many lines as the store has entries, so a reply costs one short
 * append instead of rewriting every stored button. A press's line is synced to the disk before the press
 * acts, so a button is never used twice, not even across a power cut. Shown buttons are synced just
 * after the reply, off its path: an append survives a crash or restart of the gateway as soon as it is
 * written, and what a power cut within those milliseconds could lose is a button that then answers
 * that it expired. Waiting for that sync held every reply behind the disk: a sync that stalled for 200 ms
 * (a file-system commit) delayed every chat's answer as long.
 */

import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
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

const ID_BYTES = 16;
/**
 * Random bytes for ids, drawn from the CSPRNG 256 ids at a time (each reply's buttons asked it one
 * synchronous call per id, a visible cost under chat load); every byte is used once.
 */
let idPool = Buffer.alloc(0);
let idPoolAt = 0;

/** New stored actions (fresh ids) for buttons shown in a chat at `createdAt`, good for `ttlMs`. */
export function newStoredActions(
  items: Parameters<ButtonStore["add"]>[0],
  where: { platform: string; chatId: string },
  createdAt: number,
  ttlMs: number,
): [string, StoredAction][] {
  return items.map((item) => [
    newActionId(),
    { ...item, platform: where.platform, chatId: where.chatId, createdAt, expiresAt: createdAt + ttlMs },
  ]);
}

/** A button id: 16 random bytes, base64url (22 characters; fits Telegram's 64-byte callback data). */
export function newActionId(): string {
  if (idPoolAt + ID_BYTES > idPool.length) {
    idPool = randomBytes(ID_BYTES * 256);
    idPoolAt = 0;
  }
  const id = idPool.toString("base64url", idPoolAt, idPoolAt + ID_BYTES);
  idPoolAt += ID_BYTES;
  return id;
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

/** A stored entry read from disk, or undefined when it is malformed. */
function entryOf(id: string, value: unknown): StoredAction | undefined {
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
    return undefined;
  }
  return {
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
  };
}

/** Adds the well-formed entries of an `{ id: entry }` object to `entries`. */
function addEntries(entries: Map<string, StoredAction>, actions: unknown): void {
  if (typeof actions !== "object" || actions === null) return;
  for (const [id, value] of Object.entries(actions as Record<string, unknown>)) {
    const entry = entryOf(id, value);
    if (entry) entries.set(id, entry);
  }
}

/** Marks the unused entries of `group` used (a press accepted). */
function useGroup(entries: Map<string, StoredAction>, group: string, usedAt: number, usedBy: string): void {
  for (const entry of entries.values()) {
    if (entry.group === group && entry.usedAt === undefined) {
      entry.usedAt = usedAt;
      entry.usedBy = usedBy;
    }
  }
}

/**
 * The entries of a snapshot text with the journal replayed over it. A journal line is
 * `{"add": {id: entry, …}}` or `{"use": {"group", "at", "by"}}`; a line that does not parse (a write
 * torn by a crash) is skipped. Replaying a journal over a snapshot that already holds its lines gives the
 * same entries, so a crash between writing a snapshot and emptying the journal loses nothing.
 */
function parseEntries(snapshot: string | undefined, journal: string | undefined): Map<string, StoredAction> {
  const entries = new Map<string, StoredAction>();
  const data = snapshot === undefined ? undefined : parseJsonObject(snapshot);
  addEntries(entries, data?.actions);
  for (const line of (journal ?? "").split("\n")) {
    if (line === "") continue;
    const record = parseJsonObject(line);
    if (!record) continue;
    if (record.add !== undefined) addEntries(entries, record.add);
    const use = record.use as { group?: unknown; at?: unknown; by?: unknown } | undefined;
    if (use && typeof use.group === "string" && typeof use.at === "number" && typeof use.by === "string")
      useGroup(entries, use.group, use.at, use.by);
  }
  return entries;
}

/** The journal beside a store's snapshot file (`actions.json` → `actions.log`). */
function journalOf(file: string): string {
  return file.replace(/\.json$/, ".log");
}

/** Journal lines before it is folded into the snapshot, at least (else the store's size). */
const MIN_JOURNAL_LINES = 500;

/** Options of `ActionStore.open`. */
/**
 * Where shown buttons are kept: this file store for one gateway, Redis for several replicas of a home
 * (`coordination/redis-buttons.ts`). A press is single-use across every replica: `consume` is atomic.
 */
export interface ButtonStore {
  /** How long a shown button works (ms). */
  readonly ttlMs: number;
  /** Stores buttons; returns their ids in order. */
  add(
    items: { intent: ActionIntent; placement: ActionPlacement; group: string; once: boolean }[],
    where: { platform: string; chatId: string },
  ): Promise<string[]>;
  /** Resolves a pressed id for a chat (unknown for a malformed id or another chat's). */
  lookup(id: string, where: { platform: string; chatId: string }): Promise<ActionLookup>;
  /** Uses up a single-use button and its group; false when it was already used. */
  consume(id: string, by: string): Promise<boolean>;
  /** Waits for writes in progress. */
  flush(): Promise<void>;
}

/** True for a well-formed button id. */
export function isActionId(id: string): boolean {
  return ID_PATTERN.test(id);
}

export interface ActionStoreOptions {
  now?: () => number;
  ttlMs?: number;
  maxEntries?: number;
}

/** The store of shown buttons of one home, in `gateway/actions.json` and its journal. */
export class ActionStore implements ButtonStore {
  private writing: Promise<void> = Promise.resolve();
  /** The write queued behind the one in progress; saves asked for meanwhile share it. */
  private queued: Promise<void> | undefined;
  /** Journal lines not written yet. */
  private pending: string[] = [];
  /** Some pending line must be on the disk before its save resolves (a press). */
  private pendingDurable = false;
  /** The background sync of appended lines of shown buttons, while one runs. */
  private syncing: Promise<void> | undefined;
  /** Lines were appended since the last sync started. */
  private unsynced = false;
  /** Lines in the journal on disk. */
  private journalLines: number;
  /** A write failed: the next one rewrites the snapshot, so the disk catches up with memory. */
  private mustCompact = false;

  private constructor(
    readonly file: string,
    private readonly entries: Map<string, StoredAction>,
    private readonly now: () => number,
    readonly ttlMs: number,
    private readonly maxEntries: number,
    journalLines: number,
  ) {
    this.journalLines = journalLines;
  }

  /** The journal beside the snapshot. */
  get journalFile(): string {
    return journalOf(this.file);
  }

  /** Loads the store of a home; a missing or corrupt file starts empty (old buttons then say so). */
  static async open(home: string, options: ActionStoreOptions = {}): Promise<ActionStore> {
    const file = path.join(home, "gateway", "actions.json");
    const journal = await readTextIfExists(journalOf(file));
    // Oldest first (a journal replayed over a newer snapshot may re-add old entries at the end).
    const entries = new Map(
      [...parseEntries(await readTextIfExists(file), journal)].sort(
        (a, b) => a[1].createdAt - b[1].createdAt,
      ),
    );
    const store = new ActionStore(
      file,
      entries,
      options.now ?? Date.now,
      options.ttlMs ?? ACTION_TTL_MS,
      options.maxEntries ?? ACTION_MAX_ENTRIES,
      journal === undefined ? 0 : journal.split("\n").length - 1,
    );
    // A torn last line (a crash mid-append) would swallow the next one: start the next write afresh.
    if (journal !== undefined && journal !== "" && !journal.endsWith("\n")) store.mustCompact = true;
    store.prune();
    return store;
  }

  /** Number of entries held (used ones included). */
  get size(): number {
    return this.entries.size;
  }

  /** Stores buttons and writes them to disk; returns their ids in order. */
  async add(
    items: { intent: ActionIntent; placement: ActionPlacement; group: string; once: boolean }[],
    where: { platform: string; chatId: string },
  ): Promise<string[]> {
    const added: Record<string, StoredAction> = {};
    const ids = newStoredActions(items, where, this.now(), this.ttlMs).map(([id, entry]) => {
      this.entries.set(id, entry);
      added[id] = entry;
      return id;
    });
    this.pruneOldest();
    this.pending.push(JSON.stringify({ add: added }));
    await this.save();
    return ids;
  }

  /** Resolves a pressed id for a chat. A malformed id, or one from another platform or chat, is unknown. */
  async lookup(id: string, where: { platform: string; chatId: string }): Promise<ActionLookup> {
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
   * Uses up a single-use button and its group, and writes that to disk before returning. False when it
   * was already used (a second press, even one racing the first): the caller then does nothing.
   */
  async consume(id: string, by: string): Promise<boolean> {
    const action = this.entries.get(id);
    if (!action || action.usedAt !== undefined) return false;
    const usedAt = this.now();
    useGroup(this.entries, action.group, usedAt, by);
    this.pending.push(JSON.stringify({ use: { group: action.group, at: usedAt, by } }));
    this.pendingDurable = true;
    await this.save();
    return true;
  }

  /** Waits for writes in progress and for the sync of what they appended. */
  async flush(): Promise<void> {
    await this.writing;
    await this.syncing;
  }

  /** Drops every expired entry, then the oldest beyond the cap. */
  private prune(): void {
    const now = this.now();
    for (const [id, entry] of this.entries) if (now >= entry.expiresAt) this.entries.delete(id);
    trimOldest(this.entries, this.maxEntries);
  }

  /**
   * The per-add prune: expired entries from the oldest end (entries are kept in the order they were
   * shown, so this stops at the first live one), then the cap. An expired entry left behind by a TTL
   * change is still answered "expired" and goes at the next full prune (open, snapshot).
   */
  private pruneOldest(): void {
    const now = this.now();
    for (const [id, entry] of this.entries) {
      if (now < entry.expiresAt) break;
      this.entries.delete(id);
    }
    trimOldest(this.entries, this.maxEntries);
  }

  /**
   * Writes what changed (group commit): a save asked for while a write is in progress joins the one
   * queued behind it, which takes every line pending when it starts. A write appends those lines to the
   * journal and syncs it; once the journal holds about as many lines as there are entries, the entries
   * are written as a new snapshot instead and the journal is emptied.
   */
  private save(): Promise<void> {
    if (this.queued) return this.queued;
    const next = this.writing.then(async () => {
      this.queued = undefined;
      const lines = this.pending;
      const durable = this.pendingDurable;
      this.pending = [];
      this.pendingDurable = false;
      try {
        await this.write(lines, durable);
      } catch (error) {
        this.mustCompact = true;
        throw error;
      }
    });
    this.queued = next;
    this.writing = next.catch(() => undefined);
    return next;
  }

  /**
   * Appends `lines` to the journal (or writes a new snapshot, see `save`). `durable`: the journal is
   * synced before this resolves; otherwise a background sync follows (`syncSoon`).
   */
  private async write(lines: string[], durable: boolean): Promise<void> {
    const compact =
      this.mustCompact || this.journalLines + lines.length > Math.max(MIN_JOURNAL_LINES, this.entries.size);
    if (compact) {
      this.prune();
      await atomicWriteFile(
        this.file,
        `${JSON.stringify({ version: 1, actions: Object.fromEntries(this.entries) })}\n`,
      );
      await atomicWriteFile(this.journalFile, "");
      this.journalLines = 0;
      this.mustCompact = false;
      return;
    }
    if (lines.length === 0) return;
    await fs.mkdir(path.dirname(this.journalFile), { recursive: true });
    const handle = await fs.open(this.journalFile, "a", 0o644);
    try {
      await handle.writeFile(`${lines.join("\n")}\n`);
      if (durable) await handle.datasync();
    } finally {
      await handle.close();
    }
    this.journalLines += lines.length;
    if (!durable) this.syncSoon();
  }

  /**
   * Syncs the journal in the background: one sync at a time, and one more after it when lines were
   * appended meanwhile. A sync that fails is left to the next one (a snapshot rewrite syncs everything).
   */
  private syncSoon(): void {
    this.unsynced = true;
    if (this.syncing) return;
    this.syncing = (async () => {
      while (this.unsynced) {
        this.unsynced = false;
        try {
          const handle = await fs.open(this.journalFile, "r");
          try {
            await handle.datasync();
          } finally {
            await handle.close();
          }
        } catch {
          // The journal was replaced or is unreadable: the next write or snapshot covers it.
        }
      }
    })().finally(() => {
      this.syncing = undefined;
    });
  }
}
