/**
 * Who may talk to the gateway. Identities are `platform:id` strings from `gateway.admins`,
 * `gateway.allowed_users` and `gateway.allowed_chats`. Admins run everything, allowed users (and every
 * member of an allowed chat) run read-only commands, everyone else is a stranger: a stranger in a DM gets
 * one rate-limited reply naming their `platform:id` so the owner can add it; in groups they get silence.
 * The local terminal chat (`console`) is the owner.
 */
import type { SkillgateConfig } from "../config/config.js";
import type { InboundMessage } from "../core/message.js";
import { type Reply, textReply } from "../core/reply.js";

/** What a sender may do. */
export type Role = "admin" | "user" | "stranger";

/** The role of a sender on a platform, optionally inside a chat (allowed chats admit their members). */
export function roleOf(config: SkillgateConfig, platform: string, senderId: string, chatId?: string): Role {
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
  private readonly noticed = new Map<string, number>();

  constructor(
    private readonly config: SkillgateConfig,
    private readonly now: () => number = Date.now,
  ) {}

  /** Decides whether `message` is handled; a first-time stranger in a DM gets a `notice` to send. */
  admit(message: InboundMessage): Admission {
    if (message.sender.isBot) return { admit: false, reason: "bot" };
    const role = roleOf(this.config, message.platform, message.sender.id, message.chat.id);
    if (role !== "stranger") return { admit: true, role };
    if (message.chat.kind !== "dm") return { admit: false, reason: "stranger-group" };
    const who = `${message.platform}:${message.sender.id}`;
    const last = this.noticed.get(who);
    const now = this.now();
    if (last !== undefined && now - last < STRANGER_NOTICE_INTERVAL_MS)
      return { admit: false, reason: "stranger-dm-quiet" };
    this.remember(who, now);
    return { admit: false, reason: "stranger-dm", notice: strangerNotice(who) };
  }

  private remember(who: string, at: number): void {
    this.noticed.delete(who);
    this.noticed.set(who, at);
    if (this.noticed.size > MAX_REMEMBERED) {
      const oldest = this.noticed.keys().next().value;
      if (oldest !== undefined) this.noticed.delete(oldest);
    }
  }
}

/** The one reply a stranger gets in a DM. */
export function strangerNotice(who: string): Reply {
  return textReply(
    `I don't know you yet. Your id is \`${who}\`. Ask the owner of this gateway to add it to ` +
      "`gateway.allowed_users` (read-only commands) or `gateway.admins` in config.yaml.",
    { exitCode: 1 },
  );
}
