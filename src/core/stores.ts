/**
 * The stores that coordinate gateway processes, as small interfaces. Today each is a file under the
 * home (`gateway/sessions.json`, `gateway/dedupe.json`, `gateway/activity.json`, the curator's run lock
 * and the in-memory stranger-notice clock); another backend (a shared server for several gateway
 * replicas) implements these and is handed to the gateway without touching the callers.
 */
import type { Locale } from "./i18n/locale.js";

/** One remembered message of a chat session. */
export interface HistoryEntry {
  role: "user" | "assistant";
  text: string;
  /** ISO time. */
  at: string;
}

/** A loaded skill as a chat session saw it when it was loaded (or when its last change was told). */
export interface LoadedSkillVersion {
  /** The `version` frontmatter field, or null. */
  version: string | null;
  /** sha256 of SKILL.md and every linked file (paths and bytes). */
  digest: string;
  /** Path, mtime and size of each of those files: a cheap first check before any digest. */
  stamp: string;
  /** SKILL.md as it was (capped), for the diff of the next change. */
  text: string;
  /** What it was before the last change told in this chat (the "What changed" diff). */
  previous?: { version: string | null; text: string };
}

/**
 * Loaded skills and bounded history per chat session key (`platform:chat[:thread]`). Asynchronous: a
 * network store (several replicas) answers over the wire.
 */
export interface ChatSessions {
  /** Skills loaded in this session, in load order. */
  loadedSkills(sessionKey: string): Promise<string[]>;
  /** Adds skills to this session (already loaded ones keep their place). */
  addLoadedSkills(sessionKey: string, names: string[]): Promise<void>;
  /** Forgets the skills loaded in this session. */
  clearLoadedSkills(sessionKey: string): Promise<void>;
  /** The session's history, oldest first. */
  history(sessionKey: string): Promise<HistoryEntry[]>;
  /** Appends to the session's history, keeping at most `limit` entries. */
  appendHistory(sessionKey: string, entry: HistoryEntry, limit?: number): Promise<void>;
  /** Forgets the session's history. */
  clearHistory(sessionKey: string): Promise<void>;
  /** The version records of the skills loaded in this session, by name (optional for stand-in stores). */
  skillVersions?(sessionKey: string): Promise<Record<string, LoadedSkillVersion>>;
  /** Records (replaces) the version records of the named skills in this session. */
  setSkillVersions?(sessionKey: string, records: Record<string, LoadedSkillVersion>): Promise<void>;
  /** The keys of the sessions that hold version records (the chats to tell of a change as it happens). */
  sessionsWithSkillVersions?(): Promise<string[]>;
  /**
   * The language a chat chose with `/language` (`platform:chat`), if it chose one; every reply and post
   * in that chat uses it.
   */
  chatLanguage(chatKey: string): Promise<Locale | undefined>;
  /** Remembers a chat's language; undefined forgets it (the chat follows its readers again). */
  setChatLanguage(chatKey: string, locale: Locale | undefined): Promise<void>;
  /**
   * The last language tag a reader's platform reported for them (`platform:user`), where the platform
   * reports it only on some events (optional for stand-in stores).
   */
  readerLanguage?(readerKey: string): Promise<string | undefined>;
  /** Remembers the last language tag reported for a reader. */
  setReaderLanguage?(readerKey: string, tag: string): Promise<void>;
  /** Writes pending changes now. */
  flush(): Promise<void>;
}

/** Remembers delivered event ids so a platform's redelivery is handled once. */
export interface EventDedupe {
  /**
   * Marks `platform`/`eventId` as seen, atomically (of two replicas receiving it, one handles it); true
   * when it was already seen (a redelivery to drop).
   */
  checkAndMark(platform: string, eventId: string): Promise<boolean>;
  /** Writes pending changes now. */
  flush(): Promise<void>;
}

/** When the gateway last handled anything (the curator waits for idle time). */
export interface LastActivity {
  /** Records activity at `at` (ms since epoch; now by default). */
  touch(at?: number): void;
  /** The last recorded activity, if any. */
  lastActivity(): Promise<number | undefined>;
  /** Seconds since the last activity. */
  idleSeconds(): Promise<number>;
  /** Writes pending changes now. */
  flush(): Promise<void>;
}

/** When each stranger last got the "who are you" notice. */
export interface StrangerNotices {
  /** The time `who` was last noticed, if remembered. */
  lastNoticed(who: string): Promise<number | undefined>;
  /** Records a notice to `who` at `at`. */
  noticed(who: string, at: number): Promise<void>;
}

/** A held cross-process lock; `release` is idempotent. */
export interface HeldRunLock {
  release(): Promise<void>;
}

/** The one-curator-run-at-a-time lock of a home. */
export interface RunLock {
  /** Takes the lock or throws a coded error naming who holds it. */
  acquire(): Promise<HeldRunLock>;
}

/** All coordination stores of one gateway. */
export interface CoordinationStores {
  sessions: ChatSessions;
  dedupe: EventDedupe;
  activity: LastActivity;
  strangers: StrangerNotices;
  runLock: RunLock;
}
