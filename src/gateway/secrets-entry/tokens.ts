/**
 * One-time tokens for private secret entry. A token names one variable of one skill and is bound to the
 * admin who asked (platform and user id) and to the chat the answer goes to; it is accepted once, for
 * ten minutes. Tokens live in memory only: a restart invalidates every open form, which is the safe side.
 */
import { randomBytes } from "node:crypto";
import type { Locale } from "../../core/i18n/locale.js";
import { type Text, t } from "../../core/i18n/messages.js";

/** How long a private input stays open. */
export const SECRET_TOKEN_TTL_MS = 10 * 60_000;
/** Most tokens kept at once (oldest dropped first), so nobody can grow the map without bound. */
const MAX_TOKENS = 1000;

/** What a token stands for. */
export interface PendingSecret {
  key: string;
  skill: string;
  prompt: Text;
  /** The locale of the admin who asked (the one-time form page speaks it). */
  locale?: Locale;
  platform: string;
  userId: string;
  /** Where the confirmation goes (the chat the admin asked in). */
  chatId: string;
  threadId?: string;
  expiresAt: number;
}

/** Why a token was refused. */
export type TokenRefusal = "unknown" | "expired" | "used" | "wrong-user";

/** The in-memory token table. */
export class SecretTokens {
  private readonly pending = new Map<string, PendingSecret & { used: boolean }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Issues a fresh token (128 random bits, URL-safe) for `secret`. */
  issue(secret: Omit<PendingSecret, "expiresAt">): string {
    this.prune();
    const token = randomBytes(16).toString("base64url");
    this.pending.set(token, { ...secret, expiresAt: this.now() + SECRET_TOKEN_TTL_MS, used: false });
    return token;
  }

  /** The pending secret of `token` for this user, without using it up; or why it is refused. */
  peek(token: string, platform: string, userId: string): PendingSecret | TokenRefusal {
    const entry = this.pending.get(token);
    if (!entry) return "unknown";
    if (entry.used) return "used";
    if (this.now() > entry.expiresAt) return "expired";
    if (entry.platform !== platform || entry.userId !== userId) return "wrong-user";
    const { used: _used, ...secret } = entry;
    return secret;
  }

  /** Like `peek`, and marks the token used when it is accepted. */
  take(token: string, platform: string, userId: string): PendingSecret | TokenRefusal {
    const result = this.peek(token, platform, userId);
    if (typeof result !== "string") (this.pending.get(token) as { used: boolean }).used = true;
    return result;
  }

  /** The pending secret of a one-time link (the link itself is the credential: no user to compare). */
  takeByLink(token: string): PendingSecret | TokenRefusal {
    const entry = this.pending.get(token);
    if (!entry) return "unknown";
    return this.take(token, entry.platform, entry.userId);
  }

  /** Same as `takeByLink` without using the token up (to show the form). */
  peekByLink(token: string): PendingSecret | TokenRefusal {
    const entry = this.pending.get(token);
    if (!entry) return "unknown";
    return this.peek(token, entry.platform, entry.userId);
  }

  private prune(): void {
    const now = this.now();
    for (const [token, entry] of this.pending) {
      // Used tokens are kept until they expire, so a replay is told "already used", not "unknown".
      if (now > entry.expiresAt) this.pending.delete(token);
    }
    while (this.pending.size >= MAX_TOKENS) {
      const oldest = this.pending.keys().next().value;
      if (oldest === undefined) break;
      this.pending.delete(oldest);
    }
  }
}

/** The person-facing text for a refused token. */
export function refusalText(refusal: TokenRefusal): Text {
  switch (refusal) {
    case "unknown":
      return t("secret.token.unknown");
    case "expired":
      return t("secret.token.expired");
    case "used":
      return t("secret.token.used");
    case "wrong-user":
      return t("secret.token.wrongUser");
  }
}
