/**
 * Logins of the web console. The home holds one random secret (`<home>/gateway/console.secret`, mode
 * 0600) that signs everything: one-time login tokens (printed as a link at start or by
 * `skillgate console --link`), session cookies and CSRF tokens. A login token works once, for 15 minutes,
 * and only if it was minted after this server started (a link printed by an earlier run is dead). A
 * session is an admin (every action) or read-only (pages only; every POST refused but logging out).
 * Logging out revokes that session; "end all sessions" revokes every session issued until then. Both are
 * kept in `<home>/gateway/console.sessions.json`, so they hold across restarts and for every console on
 * the home.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { homePaths } from "../../config/home.js";

/** What a console login may do. */
export type ConsoleRole = "admin" | "read-only";

/** A verified session. */
export interface ConsoleSession {
  id: string;
  role: ConsoleRole;
  /** When it was issued and when it ends (ms). */
  issuedAt: number;
  expiresAt: number;
}

/** How long a login link works. */
export const LOGIN_TOKEN_TTL_MS = 15 * 60_000;
/** How long a session lasts. */
export const SESSION_TTL_MS = 12 * 3_600_000;
/** The session cookie's name. */
export const SESSION_COOKIE = "skillgate_console";
/** Most redeemed login nonces remembered (they expire after 15 minutes anyway). */
const MAX_USED_NONCES = 10_000;

/** Where the console's signing secret lives. */
export function consoleSecretPath(home: string): string {
  return path.join(homePaths(home).gateway, "console.secret");
}

/**
 * Reads the console's signing secret, creating it (32 random bytes, mode 0600) when absent. An existing
 * file with looser permissions is tightened to 0600; a file too short to be a secret is replaced.
 */
export function loadConsoleSecret(home: string): Buffer {
  const file = consoleSecretPath(home);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    const text = readFileSync(file, "utf8").trim();
    if (/^[0-9a-f]{64,}$/.test(text)) {
      chmodSync(file, 0o600);
      return Buffer.from(text, "hex");
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const secret = randomBytes(32);
  writeFileSync(file, `${secret.toString("hex")}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}

/** Where logouts and "end all sessions" are kept. */
export function consoleSessionsPath(home: string): string {
  return path.join(homePaths(home).gateway, "console.sessions.json");
}

interface Revocations {
  /** Sessions issued before this instant (ms) are ended. */
  notBefore: number;
  /** Session ids logged out, with when they would have expired anyway. */
  revoked: Map<string, number>;
}

/**
 * Logged-out sessions and the "end all sessions" instant of a home, read again whenever the file
 * changes (another console on the same home may have written it). Written atomically, mode 0600.
 */
export class ConsoleRevocations {
  private stamp = "";
  private state: Revocations = { notBefore: 0, revoked: new Map() };

  constructor(
    private readonly file: string,
    private readonly now: () => number = Date.now,
  ) {}

  private current(): Revocations {
    let stamp = "missing";
    try {
      const stat = statSync(this.file);
      stamp = `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
    } catch {
      // none written yet
    }
    if (stamp === this.stamp) return this.state;
    this.stamp = stamp;
    this.state = { notBefore: 0, revoked: new Map() };
    try {
      const value = JSON.parse(readFileSync(this.file, "utf8")) as {
        not_before?: unknown;
        revoked?: Record<string, unknown>;
      };
      if (typeof value.not_before === "number") this.state.notBefore = value.not_before;
      for (const [id, until] of Object.entries(value.revoked ?? {}))
        if (typeof until === "number") this.state.revoked.set(id, until);
    } catch {
      // An unreadable file ends nothing; the next write replaces it.
    }
    return this.state;
  }

  private write(state: Revocations): void {
    const now = this.now();
    const revoked = Object.fromEntries([...state.revoked].filter(([, until]) => until > now));
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify({ not_before: state.notBefore, revoked })}\n`, { mode: 0o600 });
    renameSync(tmp, this.file);
    this.stamp = "";
  }

  /** True when `session` was logged out or ended with all others. */
  ended(session: ConsoleSession): boolean {
    const state = this.current();
    return session.issuedAt < state.notBefore || state.revoked.has(session.id);
  }

  /** Logs one session out. */
  revoke(session: ConsoleSession): void {
    const state = this.current();
    state.revoked.set(session.id, session.expiresAt);
    this.write(state);
  }

  /** Ends every session issued until now (this one included). */
  endAll(): void {
    // The next millisecond: a session issued in this very one is ended too.
    this.write({ notBefore: this.now() + 1, revoked: new Map() });
  }
}

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

function decode(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as unknown;
    return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function isRole(value: unknown): value is ConsoleRole {
  return value === "admin" || value === "read-only";
}

/**
 * Marks a login token's nonce as redeemed wherever redemptions are shared (the replicas' coordination
 * store); true when some replica redeemed it already.
 */
export type SharedRedemption = (nonce: string) => Promise<boolean>;

/** Mints and checks login tokens, session cookies and CSRF tokens with one secret. */
export class ConsoleAuth {
  private readonly usedNonces = new Set<string>();
  private readonly startedAt: number;

  constructor(
    private readonly secret: Buffer,
    private readonly now: () => number = Date.now,
    private readonly sharedRedemption?: SharedRedemption,
  ) {
    this.startedAt = now();
  }

  private sign(purpose: string, payload: string): string {
    return createHmac("sha256", this.secret).update(`${purpose}:${payload}`).digest("base64url");
  }

  private signed(purpose: string, value: unknown): string {
    const payload = encode(value);
    return `${payload}.${this.sign(purpose, payload)}`;
  }

  private verified(purpose: string, token: string): Record<string, unknown> | null {
    const [payload, mac, extra] = token.split(".");
    if (!payload || !mac || extra !== undefined) return null;
    if (!sameText(mac, this.sign(purpose, payload))) return null;
    return decode(payload);
  }

  /** A one-time login token for `role`. */
  mintLoginToken(role: ConsoleRole): string {
    const issued = this.now();
    return this.signed("login", { r: role, i: issued, e: issued + LOGIN_TOKEN_TTL_MS, n: randomNonce() });
  }

  /**
   * Redeems a login token once — across every replica when redemptions are shared — : the role it
   * grants, or null (forged, expired, used, from an earlier run). A shared store that cannot be reached
   * refuses the token rather than risk a second use.
   */
  async redeemLoginToken(token: string): Promise<ConsoleRole | null> {
    const value = this.verified("login", token);
    if (!value || !isRole(value.r) || typeof value.n !== "string") return null;
    const now = this.now();
    if (typeof value.e !== "number" || value.e < now) return null;
    // Minted before this server started (with a small allowance for clock steps): a stale printed link.
    if (typeof value.i !== "number" || value.i < this.startedAt - 2000) return null;
    if (this.usedNonces.has(value.n)) return null;
    this.usedNonces.add(value.n);
    if (this.usedNonces.size > MAX_USED_NONCES) {
      const oldest = this.usedNonces.values().next().value;
      if (oldest !== undefined) this.usedNonces.delete(oldest);
    }
    if (this.sharedRedemption) {
      const usedElsewhere = await this.sharedRedemption(value.n).catch(() => true);
      if (usedElsewhere) return null;
    }
    return value.r;
  }

  /** A new session cookie value for `role`. */
  newSession(role: ConsoleRole): { cookie: string; session: ConsoleSession } {
    const issuedAt = this.now();
    const session = { id: randomNonce(), role, issuedAt, expiresAt: issuedAt + SESSION_TTL_MS };
    return {
      cookie: this.signed("session", { s: session.id, r: role, i: issuedAt, e: session.expiresAt }),
      session,
    };
  }

  /**
   * The session a cookie value carries, or null when it is forged, expired, or ended (`revocations`:
   * logged out, or issued before "end all sessions").
   */
  readSession(cookie: string | undefined, revocations?: ConsoleRevocations): ConsoleSession | null {
    if (!cookie) return null;
    const value = this.verified("session", cookie);
    if (!value || typeof value.s !== "string" || !isRole(value.r)) return null;
    if (typeof value.e !== "number" || value.e < this.now()) return null;
    const issuedAt = typeof value.i === "number" ? value.i : value.e - SESSION_TTL_MS;
    const session = { id: value.s, role: value.r, issuedAt, expiresAt: value.e };
    return revocations?.ended(session) ? null : session;
  }

  /** The CSRF token of a session (sent back in the `X-CSRF-Token` header of every state change). */
  csrfToken(session: ConsoleSession): string {
    return this.sign("csrf", session.id);
  }

  /** True when `token` is this session's CSRF token. */
  checkCsrf(session: ConsoleSession, token: string | undefined): boolean {
    return typeof token === "string" && sameText(token, this.csrfToken(session));
  }
}

function randomNonce(): string {
  return randomBytes(16).toString("base64url");
}
