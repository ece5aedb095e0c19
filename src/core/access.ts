/**
 * Who may talk to the gateway. Identities are `platform:id` strings from `gateway.admins`,
 * `gateway.allowed_users` and `gateway.allowed_chats`. Admins run everything, allowed users (and every
 * member of an allowed chat) run read-only commands, everyone else is a stranger: a stranger in a DM gets
 * one rate-limited reply naming their `platform:id` so the owner can add it; in groups they get silence.
 * The local terminal chat (`console`) is the owner. The policy lives in the core so the gateway, the
 * command runner and adapters (through their `admit` hook) all apply the same rules.
 */
import { trimOldest } from "./bounded.js";
import { t } from "./i18n/messages.js";
import type { InboundMessage, SenderAdmission } from "./message.js";
import { type Reply, textReply } from "./reply.js";
import type { StrangerNotices } from "./stores.js";

/** What a sender may do. */
export type Role = "admin" | "user" | "stranger";

/** The access lists the policy reads (the `gateway` section of the configuration). */
export interface AccessRules {
  gateway: {
    admins: readonly string[];
    allowedUsers: readonly string[];
    allowedChats: readonly string[];
  };
}

/** The role of a sender on a platform, optionally inside a chat (allowed chats admit their members). */
export function roleOf(config: AccessRules, platform: string, senderId: string, chatId?: string): Role {
  if (platform === "console") return "admin";
  const who = `${platform}:${senderId}`;
  if (config.gateway.admins.includes(who)) return "admin";
  if (config.gateway.allowedUsers.includes(who)) return "user";
  if (chatId !== undefined && config.gateway.allowedChats.includes(`${platform}:${chatId}`)) return "user";
  return "stranger";
}

/** What the gateway does with an inbound message after the access check. */
export type Admission =
  | { admit: true; role: Exclude<Role, "stranger"> }
  | { admit: false; reason: "bot" | "stranger-group" | "stranger-dm" | "stranger-dm-quiet"; notice?: Reply };

/** How long a stranger waits before the "who are you" reply is sent again. */
export const STRANGER_NOTICE_INTERVAL_MS = 60 * 60 * 1000;

/** Cap on remembered strangers (oldest forgotten first). */
const MAX_REMEMBERED = 5000;

/** Applies the access rules to inbound messages and rate-limits the stranger notice. */
export class AccessGate {
  constructor(
    private readonly config: AccessRules,
    private readonly now: () => number = Date.now,
    private readonly notices: StrangerNotices = new RecentStrangerNotices(),
  ) {}

  /** Decides whether `message` is handled; a first-time stranger in a DM gets a `notice` to send. */
  async admit(message: InboundMessage): Promise<Admission> {
    if (message.sender.isBot) return { admit: false, reason: "bot" };
    const role = roleOf(this.config, message.platform, message.sender.id, message.chat.id);
    if (role !== "stranger") return { admit: true, role };
    if (message.chat.kind !== "dm") return { admit: false, reason: "stranger-group" };
    const who = `${message.platform}:${message.sender.id}`;
    const last = await this.notices.lastNoticed(who);
    const now = this.now();
    if (last !== undefined && now - last < STRANGER_NOTICE_INTERVAL_MS)
      return { admit: false, reason: "stranger-dm-quiet" };
    await this.notices.noticed(who, now);
    return { admit: false, reason: "stranger-dm", notice: strangerNotice(who) };
  }
}

/** The in-process stranger-notice clock: the most recent `MAX_REMEMBERED` strangers. */
export class RecentStrangerNotices implements StrangerNotices {
  private readonly noticedAt = new Map<string, number>();

  async lastNoticed(who: string): Promise<number | undefined> {
    return this.noticedAt.get(who);
  }

  async noticed(who: string, at: number): Promise<void> {
    this.noticedAt.delete(who);
    this.noticedAt.set(who, at);
    trimOldest(this.noticedAt, MAX_REMEMBERED);
  }
}

/** The one reply a stranger gets in a DM. */
export function strangerNotice(who: string): Reply {
  return textReply(t("access.stranger", { who }), { exitCode: 1 });
}

/** The side-effect-free check behind the adapters' `admit` hook: strangers get their notice, never rate-limited. */
export function admitSender(config: AccessRules, message: InboundMessage): SenderAdmission {
  if (roleOf(config, message.platform, message.sender.id, message.chat.id) !== "stranger")
    return { admitted: true };
  return { admitted: false, notice: strangerNotice(`${message.platform}:${message.sender.id}`) };
}
