/**
 * The coordination stores (`src/core/stores.ts`) on Redis, shared by every replica of a home. Each
 * operation is one atomic command or script, so two replicas never both handle an event, lose a loaded
 * skill or move the last activity backwards:
 * - event dedupe: `SET NX PX` (`retention_hours`, default 48 h) — the replica that sets the key handles
 *   the event;
 * - last activity: the larger of the stored and the new time (a script), at most once a second;
 * - chat sessions: loaded skills (a list kept unique by a script) and bounded history (`RPUSH` + `LTRIM`);
 * - a chat's `/language` choice: one key per chat, no expiry;
 * - stranger notices: one key per stranger with the time of the last notice;
 * - the curator run lock: the file lock of the home (it is the library's), taken by the leader only.
 * Keys live under the home's prefix (`skillgate:<home id>:`).
 */
import { isLanguageTag, isLocale, type Locale } from "../../core/i18n/locale.js";
import type {
  ChatSessions,
  CoordinationStores,
  EventDedupe,
  HistoryEntry,
  LastActivity,
  LoadedSkillVersion,
  RunLock,
  StrangerNotices,
} from "../../core/stores.js";
import { DEDUPE_TTL_MS } from "../dedupe.js";
import { DEFAULT_HISTORY_LIMIT } from "../sessions.js";
import type { RedisClient } from "./redis.js";

/** How long a session's loaded skills and history are kept after its last change (ms). */
const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** How long a reader's last reported language is kept without a new one: 180 days. */
const READER_LANGUAGE_TTL_MS = 180 * 24 * 60 * 60 * 1000;

/** How long a stranger notice is remembered (ms): past it the stranger would be told again anyway. */
const STRANGER_TTL_MS = 24 * 60 * 60 * 1000;

// Keeps the larger of the stored time and ARGV[1].
const MAX_TIME = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local next = tonumber(ARGV[1])
if next > current then redis.call('SET', KEYS[1], ARGV[1]) return next end
return current`;

// Appends names not in the list yet, then refreshes its lifetime.
const ADD_UNIQUE = `
local present = {}
for _, name in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do present[name] = true end
for i = 2, #ARGV do
  if not present[ARGV[i]] then
    redis.call('RPUSH', KEYS[1], ARGV[i])
    present[ARGV[i]] = true
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`;

/** Options of `redisStores`. */
export interface RedisStoresOptions {
  redis: RedisClient;
  /** Key prefix of this home. */
  prefix: string;
  runLock: RunLock;
  /** Clock in ms since epoch. */
  now?: () => number;
  /** Called when a fire-and-forget write fails (the gateway logs it). */
  onError?: (error: unknown) => void;
  /** How long an event is remembered as seen (ms, `retention_hours`); default `DEDUPE_TTL_MS`. */
  retentionMs?: number;
}

/** Event dedupe on Redis: the first `SET NX` wins; the mark is kept `retentionMs`. */
export class RedisDedupe implements EventDedupe {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly retentionMs = DEDUPE_TTL_MS,
  ) {}

  async checkAndMark(platform: string, eventId: string): Promise<boolean> {
    const set = await this.redis.set(`${this.prefix}dedupe:${platform}:${eventId}`, "1", {
      condition: "NX",
      expiration: { type: "PX", value: this.retentionMs },
    });
    return set === null;
  }

  async flush(): Promise<void> {}
}

/**
 * How often last activity is written at most (ms). Idleness is judged in minutes (the curator waits for
 * `gateway.maintenance` idle time), so a second's lag costs nothing and spares each event a round trip.
 */
const ACTIVITY_WRITE_INTERVAL_MS = 1_000;

/**
 * Last activity on Redis: only ever forward, written at most once per `ACTIVITY_WRITE_INTERVAL_MS`
 * (the latest time touched in the interval is written at its end; `flush` writes it at once).
 */
export class RedisActivity implements LastActivity {
  private writing: Promise<unknown> = Promise.resolve();
  /** The latest time touched and not yet written. */
  private pending: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** The latest time written (or being written) by this replica. */
  private written = 0;

  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
    private readonly now: () => number,
    private readonly onError: (error: unknown) => void,
  ) {}

  touch(at: number = this.now()): void {
    const time = Math.floor(at);
    if (time <= this.written || time <= (this.pending ?? 0)) return;
    this.pending = time;
    if (this.timer) return;
    // The first touch is written at once; the rest of the interval's touches wait for its end.
    this.write();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.pending !== undefined) this.touchLater();
    }, ACTIVITY_WRITE_INTERVAL_MS);
    this.timer.unref();
  }

  /** A touch arrived during the interval: write it now and open the next interval. */
  private touchLater(): void {
    const time = this.pending;
    this.pending = undefined;
    if (time !== undefined) this.touch(time);
  }

  private write(): void {
    const time = this.pending;
    this.pending = undefined;
    if (time === undefined) return;
    this.written = time;
    const previous = this.writing;
    this.writing = previous
      .then(() => this.redis.eval(MAX_TIME, { keys: [this.key], arguments: [String(time)] }))
      .catch(this.onError);
  }

  async lastActivity(): Promise<number | undefined> {
    const stored = Number(await this.redis.get(this.key));
    // This replica's own latest touch counts before it is written.
    const latest = Math.max(Number.isFinite(stored) ? stored : 0, this.written, this.pending ?? 0);
    return latest > 0 ? latest : undefined;
  }

  async idleSeconds(): Promise<number> {
    const last = await this.lastActivity();
    return last === undefined ? Number.POSITIVE_INFINITY : Math.max(0, (this.now() - last) / 1000);
  }

  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.write();
    await this.writing;
  }
}

/** Chat sessions on Redis. */
export class RedisSessions implements ChatSessions {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  private skillsKey(sessionKey: string): string {
    return `${this.prefix}session:${sessionKey}:skills`;
  }

  private historyKey(sessionKey: string): string {
    return `${this.prefix}session:${sessionKey}:history`;
  }

  async loadedSkills(sessionKey: string): Promise<string[]> {
    return this.redis.lRange(this.skillsKey(sessionKey), 0, -1);
  }

  async addLoadedSkills(sessionKey: string, names: string[]): Promise<void> {
    if (names.length === 0) return;
    await this.redis.eval(ADD_UNIQUE, {
      keys: [this.skillsKey(sessionKey)],
      arguments: [String(SESSION_TTL_MS), ...names],
    });
  }

  async clearLoadedSkills(sessionKey: string): Promise<void> {
    await this.redis.del([this.skillsKey(sessionKey), this.versionsKey(sessionKey)]);
  }

  private versionsKey(sessionKey: string): string {
    return `${this.prefix}session:${sessionKey}:versions`;
  }

  async skillVersions(sessionKey: string): Promise<Record<string, LoadedSkillVersion>> {
    const fields = await this.redis.hGetAll(this.versionsKey(sessionKey));
    const records: Record<string, LoadedSkillVersion> = {};
    for (const [name, value] of Object.entries(fields)) {
      try {
        records[name] = JSON.parse(value) as LoadedSkillVersion;
      } catch {
        // A damaged field is forgotten: the skill is recorded again at its next load.
      }
    }
    return records;
  }

  async setSkillVersions(sessionKey: string, records: Record<string, LoadedSkillVersion>): Promise<void> {
    const entries = Object.entries(records);
    if (entries.length === 0) return;
    const key = this.versionsKey(sessionKey);
    await this.redis
      .multi()
      .hSet(key, Object.fromEntries(entries.map(([name, record]) => [name, JSON.stringify(record)])))
      .pExpire(key, SESSION_TTL_MS)
      .exec();
  }

  /** The keys of the sessions that hold version records, found by a SCAN (run only when a change happens). */
  async sessionsWithSkillVersions(): Promise<string[]> {
    const head = `${this.prefix}session:`;
    const keys: string[] = [];
    for await (const batch of this.redis.scanIterator({ MATCH: `${head}*:versions`, COUNT: 500 }))
      for (const key of batch) keys.push(key.slice(head.length, -":versions".length));
    return [...new Set(keys)];
  }

  async history(sessionKey: string): Promise<HistoryEntry[]> {
    const items = await this.redis.lRange(this.historyKey(sessionKey), 0, -1);
    return items.flatMap((item) => {
      try {
        return [JSON.parse(item) as HistoryEntry];
      } catch {
        return [];
      }
    });
  }

  async appendHistory(sessionKey: string, entry: HistoryEntry, limit = DEFAULT_HISTORY_LIMIT): Promise<void> {
    const key = this.historyKey(sessionKey);
    await this.redis
      .multi()
      .rPush(key, JSON.stringify(entry))
      .lTrim(key, -Math.max(1, limit), -1)
      .pExpire(key, SESSION_TTL_MS)
      .exec();
  }

  async clearHistory(sessionKey: string): Promise<void> {
    await this.redis.del(this.historyKey(sessionKey));
  }

  /** A chat's `/language` choice, kept without expiry (a setting, not session state). */
  private languageKey(chatKey: string): string {
    return `${this.prefix}chat:${chatKey}:language`;
  }

  async chatLanguage(chatKey: string): Promise<Locale | undefined> {
    const value = await this.redis.get(this.languageKey(chatKey));
    return isLocale(value) ? value : undefined;
  }

  async setChatLanguage(chatKey: string, locale: Locale | undefined): Promise<void> {
    if (locale) await this.redis.set(this.languageKey(chatKey), locale);
    else await this.redis.del(this.languageKey(chatKey));
  }

  /** A reader's last reported language, forgotten after `READER_LANGUAGE_TTL_MS` without a new one. */
  private readerLanguageKey(readerKey: string): string {
    return `${this.prefix}reader:${readerKey}:language`;
  }

  async readerLanguage(readerKey: string): Promise<string | undefined> {
    const value = await this.redis.get(this.readerLanguageKey(readerKey));
    return isLanguageTag(value) ? value : undefined;
  }

  async setReaderLanguage(readerKey: string, tag: string): Promise<void> {
    if (!isLanguageTag(tag)) return;
    await this.redis.set(this.readerLanguageKey(readerKey), tag, { PX: READER_LANGUAGE_TTL_MS });
  }

  async flush(): Promise<void> {}
}

/** Stranger notices on Redis: one key per stranger. */
export class RedisStrangerNotices implements StrangerNotices {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  async lastNoticed(who: string): Promise<number | undefined> {
    const value = Number(await this.redis.get(`${this.prefix}stranger:${who}`));
    return Number.isFinite(value) && value > 0 ? value : undefined;
  }

  async noticed(who: string, at: number): Promise<void> {
    await this.redis.set(`${this.prefix}stranger:${who}`, String(at), {
      expiration: { type: "PX", value: STRANGER_TTL_MS },
    });
  }
}

/** Every coordination store of one home on Redis (see the file's comment). */
export function redisStores(options: RedisStoresOptions): CoordinationStores {
  const now = options.now ?? Date.now;
  const onError = options.onError ?? (() => undefined);
  return {
    dedupe: new RedisDedupe(options.redis, options.prefix, options.retentionMs),
    activity: new RedisActivity(options.redis, `${options.prefix}activity`, now, onError),
    sessions: new RedisSessions(options.redis, options.prefix),
    strangers: new RedisStrangerNotices(options.redis, options.prefix),
    runLock: options.runLock,
  };
}
