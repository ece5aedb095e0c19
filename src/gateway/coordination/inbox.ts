/**
 * The shared inbox of a home's replicas: a Redis Stream every replica appends the platform events it
 * received to, and the leader consumes through a consumer group.
 *
 * - **Intake** (any replica, before the platform is answered): one script marks the event seen
 *   (`SET NX`, 48 h) and appends it; an event seen before is not appended again. Redis unreachable: the
 *   append throws and the adapter makes the platform deliver again.
 * - **Consuming** (the leader): entries left pending by an earlier leader are claimed first
 *   (`XAUTOCLAIM`, oldest first), then new ones are read (`XREADGROUP … BLOCK`) on a connection of the
 *   consumer's own, since a blocked read holds its connection.
 * - **Done** (the leader, after the reply was sent): one script marks the event handled, acknowledges
 *   and deletes the entry. An entry claimed from another leader whose event is marked handled is only
 *   acknowledged, never answered again.
 * - **Effects**: an entry claimed from another leader may have been half handled when that leader died.
 *   A command records each effect it made durable (a usage count) under the event's operation id, and a
 *   replay of the event skips an effect recorded already.
 */
import type { InboundMessage } from "../../core/message.js";
import { REDIS_COMMAND_TIMEOUT_MS, type RedisClient, type RoundTrips, withinDeadline } from "./redis.js";

/** How long an event is remembered as seen or handled (ms): far beyond any platform's redelivery. */
export const INBOX_SEEN_TTL_MS = 48 * 60 * 60 * 1000;

/**
 * The most entries the inbox holds. It is never trimmed (an entry leaves once handled): at this bound
 * intake refuses (503) and the platforms deliver again later, rather than drop what no leader answered.
 */
export const INBOX_MAX_ENTRIES = 100_000;

/** How often the leader reclaims entries other consumers left idle, and how idle they must be (ms). */
export const RECLAIM_EVERY_MS = 5_000;
export const RECLAIM_IDLE_MS = 10_000;

/** How long a chat told "your message is queued" is not told again (ms): one notice per failover. */
export const QUEUED_NOTICE_MS = 60_000;

/** A consumer of the group with nothing pending, idle this long (ms), is removed by the leader. */
export const CONSUMER_IDLE_MS = 10 * 60_000;

/** Thrown by `append` when the inbox holds `INBOX_MAX_ENTRIES` unhandled entries. */
export class InboxFullError extends Error {
  constructor(entries: number) {
    super(`the shared inbox holds ${entries} unhandled events; refusing more until the leader catches up`);
  }
}

/** The consumer group every leader of the home reads through. */
const GROUP = "leaders";

// KEYS: seen, stream. ARGV: ttl, payload, max length. 1 appended, 0 seen before, -1 full.
const APPEND = `
if redis.call('XLEN', KEYS[2]) >= tonumber(ARGV[3]) then return -1 end
if redis.call('SET', KEYS[1], 'queued', 'NX', 'PX', ARGV[1]) == false then return 0 end
redis.call('XADD', KEYS[2], '*', 'm', ARGV[2])
return 1`;

// KEYS: seen, stream. ARGV: entry id, ttl. Marks the event handled, acknowledges and deletes the entry.
const DONE = `
redis.call('SET', KEYS[1], 'done', 'PX', ARGV[2])
redis.call('XACK', KEYS[2], '${GROUP}', ARGV[1])
redis.call('XDEL', KEYS[2], ARGV[1])
return 1`;

/** One event taken from the inbox. */
export interface InboxEntry {
  /** The stream entry id (`<ms>-<seq>`). */
  entryId: string;
  message: InboundMessage;
  /** Claimed from another leader, which may have begun handling it. */
  replayed: boolean;
}

/** Options of `SharedInbox`. */
export interface SharedInboxOptions {
  /** The client for intake and acknowledgements (the counted one). */
  redis: RedisClient;
  /** The home's key prefix (`skillgate:<home id>:`). */
  prefix: string;
  /** This process's consumer name in the group (unique per process). */
  consumer: string;
  /** Counts the blocked reads, which go over the consumer's own uncounted connection. */
  trips?: RoundTrips;
  /** How long an event is remembered as seen or handled (ms); default `INBOX_SEEN_TTL_MS`. */
  retentionMs?: number;
  /** The bound of unhandled entries; default `INBOX_MAX_ENTRIES`. */
  maxEntries?: number;
}

/** The JSON form of an inbound message: class instances in `raw` by their `toJSON`, bigints as strings. */
export function portableMessage(message: InboundMessage): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(message, (_key, value: unknown) => {
    if (typeof value === "bigint") return value.toString();
    if (value !== null && typeof value === "object") {
      if (seen.has(value)) return undefined;
      seen.add(value);
    }
    return value;
  });
}

/** The shared inbox (see the file's comment). */
export class SharedInbox {
  private readonly stream: string;
  private blocking: RedisClient | undefined;
  private groupReady = false;

  private readonly retentionMs: number;

  constructor(private readonly options: SharedInboxOptions) {
    this.stream = `${options.prefix}inbox`;
    this.retentionMs = options.retentionMs ?? INBOX_SEEN_TTL_MS;
  }

  private seenKey(platform: string, eventId: string): string {
    return `${this.options.prefix}seen:${platform}:${eventId}`;
  }

  private effectKey(message: InboundMessage, effect: string): string {
    return `${this.options.prefix}effect:${message.platform}:${message.eventId}:${effect}`;
  }

  /**
   * Appends `message` unless its event was seen before; true when appended. Throws when Redis cannot be
   * reached: the caller must not acknowledge the event to its platform then.
   */
  async append(message: InboundMessage): Promise<boolean> {
    const appended = await this.options.redis.eval(APPEND, {
      keys: [this.seenKey(message.platform, message.eventId), this.stream],
      arguments: [
        String(this.retentionMs),
        portableMessage(message),
        String(this.options.maxEntries ?? INBOX_MAX_ENTRIES),
      ],
    });
    if (Number(appended) === -1) throw new InboxFullError(this.options.maxEntries ?? INBOX_MAX_ENTRIES);
    return Number(appended) === 1;
  }

  /** Creates the consumer group (from the stream's start, so nothing appended before is missed). */
  private async ensureGroup(): Promise<void> {
    if (this.groupReady) return;
    try {
      await this.options.redis.xGroupCreate(this.stream, GROUP, "0", { MKSTREAM: true });
    } catch (error) {
      if (!String((error as Error).message).includes("BUSYGROUP")) throw error;
    }
    this.groupReady = true;
  }

  /**
   * Takes over every entry another consumer (an earlier leader) left pending, oldest first. Entries
   * whose event is marked handled are acknowledged and left out. With `minIdleMs`, only entries nobody
   * touched for that long: the leader calls it every few seconds, so what a stale leader took after this
   * one started leading (or a wipe left behind) is answered without waiting for the next take-over.
   */
  async claimAbandoned(minIdleMs = 0): Promise<InboxEntry[]> {
    await this.ensureGroup();
    const entries: InboxEntry[] = [];
    let cursor = "0-0";
    do {
      const reply = await this.options.redis.xAutoClaim(
        this.stream,
        GROUP,
        this.options.consumer,
        minIdleMs,
        cursor,
        {
          COUNT: 200,
        },
      );
      cursor = reply.nextId;
      for (const item of reply.messages) {
        if (!item) continue;
        const message = parseEntry(item.message);
        if (message) entries.push({ entryId: item.id, message, replayed: true });
        else await this.dropEntry(item.id);
      }
    } while (cursor !== "0-0");
    if (entries.length === 0) return entries;
    const states = await this.options.redis.mGet(
      entries.map((entry) => this.seenKey(entry.message.platform, entry.message.eventId)),
    );
    const open: InboxEntry[] = [];
    for (const [index, entry] of entries.entries()) {
      if (states[index] === "done") await this.done(entry);
      else open.push(entry);
    }
    return open;
  }

  /**
   * Waits up to `blockMs` for new entries and returns them in stream order (empty when none came).
   * Uses a connection of its own (a duplicate of the client), made on first use.
   */
  async read(blockMs: number, count = 100): Promise<InboxEntry[]> {
    await this.ensureGroup();
    if (!this.blocking) {
      const blocking = this.options.redis.duplicate();
      blocking.on("error", () => undefined);
      this.blocking = blocking as RedisClient;
      await withinDeadline(blocking.connect(), REDIS_COMMAND_TIMEOUT_MS * 3).catch((error) => {
        this.close();
        throw error;
      });
    }
    // The read's deadline is its block time plus a command's: a silent connection fails it too, and
    // the next read makes a fresh connection.
    const reply = await withinDeadline(
      this.blocking.xReadGroup(
        GROUP,
        this.options.consumer,
        { key: this.stream, id: ">" },
        { COUNT: count, BLOCK: blockMs },
      ),
      blockMs + REDIS_COMMAND_TIMEOUT_MS,
    ).catch((error) => {
      this.close();
      throw error;
    });
    // Counted only when it brought events: an idle wait costs no event anything.
    if (reply && this.options.trips) this.options.trips.count += 1;
    const entries: InboxEntry[] = [];
    for (const stream of (reply ?? []) as { messages: { id: string; message: Record<string, string> }[] }[]) {
      for (const item of stream.messages) {
        const message = parseEntry(item.message);
        if (message) entries.push({ entryId: item.id, message, replayed: false });
        else await this.dropEntry(item.id);
      }
    }
    return entries;
  }

  /** Marks the entry's event handled and removes the entry (one script). */
  async done(entry: InboxEntry): Promise<void> {
    await this.options.redis.eval(DONE, {
      keys: [this.seenKey(entry.message.platform, entry.message.eventId), this.stream],
      arguments: [entry.entryId, String(this.retentionMs)],
    });
  }

  /** An entry that is not a message (written by something else): acknowledged and deleted. */
  private async dropEntry(entryId: string): Promise<void> {
    await this.options.redis.xAck(this.stream, GROUP, entryId);
    await this.options.redis.xDel(this.stream, entryId);
  }

  /** Records that `message`'s `effect` was made durable, so a replay of the event skips it. */
  async recordEffect(message: InboundMessage, effect: string): Promise<void> {
    await this.options.redis.set(this.effectKey(message, effect), "1", {
      expiration: { type: "PX", value: this.retentionMs },
    });
  }

  /**
   * True for the first message of its chat to ask within `QUEUED_NOTICE_MS` (across replicas): only it
   * gets the "your message is queued" notice during a failover.
   */
  async firstQueuedNotice(message: InboundMessage): Promise<boolean> {
    const key = `${this.options.prefix}queued-notice:${message.platform}:${message.chat.id}`;
    return (
      (await this.options.redis.set(key, "1", {
        condition: "NX",
        expiration: { type: "PX", value: QUEUED_NOTICE_MS },
      })) !== null
    );
  }

  /** True when `message`'s `effect` was recorded (by whichever leader handled the event before). */
  async effectRecorded(message: InboundMessage, effect: string): Promise<boolean> {
    return (await this.options.redis.exists(this.effectKey(message, effect))) === 1;
  }

  /**
   * Removes the group's consumers other than this one that hold nothing pending and were idle for
   * `minIdleMs` (dead or earlier leaders' processes); returns how many went.
   */
  async removeIdleConsumers(minIdleMs: number): Promise<number> {
    await this.ensureGroup();
    const consumers = await this.options.redis.xInfoConsumers(this.stream, GROUP);
    let removed = 0;
    for (const consumer of consumers) {
      if (consumer.name === this.options.consumer || consumer.pending > 0 || consumer.idle < minIdleMs)
        continue;
      await this.options.redis.xGroupDelConsumer(this.stream, GROUP, consumer.name);
      removed += 1;
    }
    return removed;
  }

  /** Forgets that the group exists: after a wipe the next call creates it again. */
  forgetGroup(): void {
    this.groupReady = false;
  }

  /** Entries appended and not yet handled. */
  async backlog(): Promise<number> {
    return Number(await this.options.redis.xLen(this.stream));
  }

  /** Closes the consumer's own connection (a blocked read ends with it). */
  close(): void {
    this.blocking?.destroy();
    this.blocking = undefined;
  }
}

/** The message of a stream entry, or undefined when the entry is not one. */
function parseEntry(fields: Record<string, string>): InboundMessage | undefined {
  try {
    const message = JSON.parse(fields.m ?? "") as InboundMessage;
    return typeof message?.eventId === "string" && typeof message.platform === "string" ? message : undefined;
  } catch {
    return undefined;
  }
}
