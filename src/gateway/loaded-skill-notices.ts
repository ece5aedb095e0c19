/**
 * Chats told of a change to a skill they loaded when it happens, not at their next message. The curator's
 * changes, restores and rollbacks each write an audit-log line; the gateway looks at the log's size and
 * time (one `stat`) every few seconds and right after its own curator runs and mutating commands, so a
 * change made from the terminal is told as well as one made from a chat. For each new line of those kinds,
 * every chat session that loaded the skill (a rollback of a whole snapshot: any loaded skill) is checked as
 * at its next message, and a changed one gets the notice, naming what changed it, in the chat's language,
 * with its "What changed" button. The check records the new version, so the chat's next message does not
 * tell it again. Under several replicas only the leader tells.
 */
import { statSync } from "node:fs";
import { type ChangeCause, detectSessionChanges, withChangeNotices } from "../../commands/skill-versions.js";
import { homePaths } from "../config/home.js";
import type { Logger } from "../core/logger.js";
import { reply as emptyReply, type Reply } from "../core/reply.js";
import type { ChatSessions } from "../core/stores.js";
import { type LedgerEntry, readEntries } from "../curator/ledger.js";
import type { SkillLibrary } from "../skills/types.js";

/** How often the audit log is looked at by default. */
export const LOADED_SKILL_POLL_MS = 5_000;

/** A chat to post to, from a session key `platform:chat[:thread]`. */
export interface ChatTarget {
  platform: string;
  chatId: string;
  threadId?: string;
}

/** What the notices need from the gateway. */
export interface LoadedSkillNoticeOptions {
  home: string;
  library: Pick<SkillLibrary, "find">;
  /** The sessions store, once the gateway opened it. */
  sessions: () => ChatSessions | undefined;
  /** True when this replica may post (alone, or the leader). */
  leading: () => boolean;
  /** Posts a reply to a chat in its language; false when its platform is not running. */
  post: (target: ChatTarget, reply: Reply) => Promise<boolean>;
  logger: Logger;
}

/** What a ledger line's change is told as, or undefined for changes told at the next message only. */
export function changeCauseOf(entry: Pick<LedgerEntry, "actor" | "action">): ChangeCause | undefined {
  if (entry.action === "restore") return "restore";
  if (entry.action === "rollback" || entry.action === "snapshot-rollback") return "rollback";
  if (entry.actor === "curator") return "curator";
  return undefined;
}

/** The chat of a session key. */
export function chatTargetOf(sessionKey: string): ChatTarget | undefined {
  const [platform, chatId, threadId] = sessionKey.split(":");
  if (!platform || !chatId) return undefined;
  return threadId ? { platform, chatId, threadId } : { platform, chatId };
}

/** Watches the audit log and tells chats of changes to the skills they loaded. */
export class LoadedSkillNotices {
  private timer: NodeJS.Timeout | undefined;
  /** Size and time of the audit log when last read. */
  private seenStamp = "";
  /** The newest entry already considered. */
  private seen: { id: string; ts: string } | undefined;
  private primed = false;
  private current: Promise<number> | undefined;
  private again = false;

  constructor(private readonly options: LoadedSkillNoticeOptions) {}

  /** Takes the audit log as it is now as already told, then checks every `intervalMs`. */
  async start(intervalMs: number = LOADED_SKILL_POLL_MS): Promise<void> {
    this.stop();
    await this.prime();
    this.timer = setInterval(() => void this.check(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * Tells chats of the changes logged since the last check; resolves with the number of notices posted. A
   * check asked for while one runs runs once more after it.
   */
  check(): Promise<number> {
    if (this.current) {
      this.again = true;
      return this.current;
    }
    this.current = this.run()
      .catch((error: unknown) => {
        this.options.logger.warn({ err: error }, "gateway: telling chats of changed skills failed");
        return 0;
      })
      .finally(() => {
        this.current = undefined;
        if (this.again) {
          this.again = false;
          void this.check();
        }
      });
    return this.current;
  }

  private ledgerStamp(): string {
    try {
      const stat = statSync(homePaths(this.options.home).ledger);
      return `${stat.size}:${stat.mtimeMs}`;
    } catch {
      return "";
    }
  }

  private async prime(): Promise<void> {
    this.seenStamp = this.ledgerStamp();
    const last = (await readEntries(this.options.home).catch(() => [])).at(-1);
    this.seen = last ? { id: last.id, ts: last.ts } : undefined;
    this.primed = true;
  }

  /** Entries written since the last one considered (by id; by time when compaction dropped it). */
  private async newEntries(): Promise<LedgerEntry[]> {
    const entries = await readEntries(this.options.home);
    const seen = this.seen;
    const last = entries.at(-1);
    if (last) this.seen = { id: last.id, ts: last.ts };
    if (!seen) return entries;
    const index = entries.findIndex((entry) => entry.id === seen.id);
    return index >= 0 ? entries.slice(index + 1) : entries.filter((entry) => entry.ts > seen.ts);
  }

  private async run(): Promise<number> {
    if (!this.primed) await this.prime();
    const stamp = this.ledgerStamp();
    if (stamp === this.seenStamp) return 0;
    this.seenStamp = stamp;
    const causes = new Map<string, ChangeCause>();
    let everySkill: ChangeCause | undefined;
    for (const entry of await this.newEntries()) {
      const cause = changeCauseOf(entry);
      if (!cause) continue;
      if (entry.skill) causes.set(entry.skill, cause);
      else everySkill = cause;
    }
    const sessions = this.options.sessions();
    if ((causes.size === 0 && !everySkill) || !sessions?.sessionsWithSkillVersions) return 0;
    if (!this.options.leading()) return 0;
    const only = everySkill ? undefined : new Set(causes.keys());
    let posted = 0;
    for (const key of await sessions.sessionsWithSkillVersions()) {
      const target = chatTargetOf(key);
      if (!target) continue;
      const changes = await detectSessionChanges(sessions, key, this.options.library, only);
      if (changes.length === 0) continue;
      const told = changes.map((change) => ({
        ...change,
        cause: causes.get(change.name) ?? everySkill,
      }));
      try {
        if (await this.options.post(target, withChangeNotices(emptyReply([]), told))) posted++;
      } catch (error) {
        this.options.logger.warn(
          { err: error, platform: target.platform },
          "gateway: telling a chat of its changed skills failed",
        );
      }
    }
    return posted;
  }
}
