/**
 * Chat sessions of a home, persisted in `<home>/gateway/sessions.json`: the skills loaded in each chat
 * session (`/skill x`, `/<skill>`) and a bounded message history the agent uses. Keys are session keys
 * `platform:chat[:thread]`. One store per home per process (`SessionStore.for`); writes are batched.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { atomicWriteFile } from "../core/fsutil.js";
import { isLanguageTag, isLocale, type Locale } from "../core/i18n/locale.js";
import type { ChatSessions, HistoryEntry, LoadedSkillVersion } from "../core/stores.js";
import { BatchedWriter } from "./batched-writer.js";

interface SessionRecord {
  loaded_skills: string[];
  history: HistoryEntry[];
  /** Per loaded skill, its version and digest when it was loaded (absent in older files). */
  skill_versions?: Record<string, LoadedSkillVersion>;
  updated_at: string;
  /** The chat's `/language` choice (on the `platform:chat` record only). */
  language?: Locale;
  /** A reader's last reported language tag (on the `reader:platform:user` record only). */
  reader_language?: string;
}

/** A reader's record among the sessions: never a chat's or a session's key. */
function readerRecordKey(readerKey: string): string {
  return `reader:${readerKey}`;
}

/** Most sessions kept (least recently updated forgotten first). */
const MAX_SESSIONS = 2000;
/** Default bound on history entries kept per session. */
export const DEFAULT_HISTORY_LIMIT = 50;

const stores = new Map<string, SessionStore>();

function readSessions(file: string): Map<string, SessionRecord> {
  const sessions = new Map<string, SessionRecord>();
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return sessions;
  }
  const raw = (data as { sessions?: Record<string, Partial<SessionRecord>> }).sessions ?? {};
  for (const [key, value] of Object.entries(raw)) {
    if (!value || typeof value !== "object") continue;
    sessions.set(key, {
      loaded_skills: Array.isArray(value.loaded_skills)
        ? value.loaded_skills.filter((name) => typeof name === "string")
        : [],
      history: Array.isArray(value.history)
        ? value.history.filter((entry) => entry && typeof entry.text === "string")
        : [],
      updated_at: typeof value.updated_at === "string" ? value.updated_at : new Date(0).toISOString(),
      ...(value.skill_versions && typeof value.skill_versions === "object"
        ? { skill_versions: value.skill_versions }
        : {}),
      ...(isLocale(value.language) ? { language: value.language } : {}),
      ...(isLanguageTag(value.reader_language) ? { reader_language: value.reader_language } : {}),
    });
  }
  return sessions;
}

/** Loaded skills and history per chat session, in one JSON file. */
export class SessionStore implements ChatSessions {
  private readonly sessions: Map<string, SessionRecord>;
  private readonly writer: BatchedWriter;

  /** Opens the file directly; prefer `SessionStore.for(home)` to share one instance. */
  constructor(readonly file: string) {
    this.sessions = readSessions(file);
    this.writer = new BatchedWriter(() => this.write(), 100);
  }

  /** The shared store of a home. */
  static for(home: string): SessionStore {
    const file = path.join(path.resolve(home), "gateway", "sessions.json");
    let store = stores.get(file);
    if (!store) {
      store = new SessionStore(file);
      stores.set(file, store);
    }
    return store;
  }

  /** Skills loaded in this session, in load order. */
  async loadedSkills(sessionKey: string): Promise<string[]> {
    return [...(this.sessions.get(sessionKey)?.loaded_skills ?? [])];
  }

  /** Adds skills to this session (already loaded ones keep their place). */
  async addLoadedSkills(sessionKey: string, names: string[]): Promise<void> {
    const record = this.record(sessionKey);
    for (const name of names) if (!record.loaded_skills.includes(name)) record.loaded_skills.push(name);
    this.touch(record);
  }

  /** Forgets the skills loaded in this session. */
  async clearLoadedSkills(sessionKey: string): Promise<void> {
    const record = this.sessions.get(sessionKey);
    if (!record) return;
    record.loaded_skills = [];
    delete record.skill_versions;
    this.touch(record);
  }

  /** The version records of the skills loaded in this session, by name. */
  async skillVersions(sessionKey: string): Promise<Record<string, LoadedSkillVersion>> {
    return structuredClone(this.sessions.get(sessionKey)?.skill_versions ?? {});
  }

  /** The keys of the sessions that hold version records. */
  async sessionsWithSkillVersions(): Promise<string[]> {
    return [...this.sessions]
      .filter(([, record]) => Object.keys(record.skill_versions ?? {}).length > 0)
      .map(([key]) => key);
  }

  /** Records (replaces) the version records of the named skills in this session. */
  async setSkillVersions(sessionKey: string, records: Record<string, LoadedSkillVersion>): Promise<void> {
    const record = this.record(sessionKey);
    record.skill_versions = { ...record.skill_versions, ...structuredClone(records) };
    this.touch(record);
  }

  /** The session's history, oldest first. */
  async history(sessionKey: string): Promise<HistoryEntry[]> {
    return (this.sessions.get(sessionKey)?.history ?? []).map((entry) => ({ ...entry }));
  }

  /** Appends to the session's history, keeping at most `limit` entries. */
  async appendHistory(sessionKey: string, entry: HistoryEntry, limit = DEFAULT_HISTORY_LIMIT): Promise<void> {
    const record = this.record(sessionKey);
    record.history.push({ ...entry });
    if (record.history.length > limit) record.history.splice(0, record.history.length - limit);
    this.touch(record);
  }

  /** Forgets the session's history. */
  async clearHistory(sessionKey: string): Promise<void> {
    const record = this.sessions.get(sessionKey);
    if (!record) return;
    record.history = [];
    this.touch(record);
  }

  /** The language the chat `chatKey` (`platform:chat`) chose with `/language`, if any. */
  async chatLanguage(chatKey: string): Promise<Locale | undefined> {
    return this.sessions.get(chatKey)?.language;
  }

  /** Remembers (or, with undefined, forgets) the language of the chat `chatKey`. */
  async setChatLanguage(chatKey: string, locale: Locale | undefined): Promise<void> {
    const record = this.record(chatKey);
    if (locale) record.language = locale;
    else delete record.language;
    this.touch(record);
  }

  /** The last language tag reported for the reader `readerKey` (`platform:user`). */
  async readerLanguage(readerKey: string): Promise<string | undefined> {
    return this.sessions.get(readerRecordKey(readerKey))?.reader_language;
  }

  /** Remembers the last language tag reported for the reader `readerKey`. */
  async setReaderLanguage(readerKey: string, tag: string): Promise<void> {
    if (!isLanguageTag(tag)) return;
    const record = this.record(readerRecordKey(readerKey));
    record.reader_language = tag;
    this.touch(record);
  }

  /** Writes pending changes now. */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  private record(sessionKey: string): SessionRecord {
    let record = this.sessions.get(sessionKey);
    if (!record) {
      record = { loaded_skills: [], history: [], updated_at: new Date().toISOString() };
      this.sessions.set(sessionKey, record);
    }
    return record;
  }

  private touch(record: SessionRecord): void {
    record.updated_at = new Date().toISOString();
    if (this.sessions.size > MAX_SESSIONS) {
      const oldest = [...this.sessions].sort((a, b) => a[1].updated_at.localeCompare(b[1].updated_at))[0];
      if (oldest) this.sessions.delete(oldest[0]);
    }
    this.writer.schedule();
  }

  private async write(): Promise<void> {
    const sessions = Object.fromEntries([...this.sessions].sort((a, b) => a[0].localeCompare(b[0])));
    await atomicWriteFile(this.file, JSON.stringify({ version: 1, sessions }, null, 2));
  }
}
