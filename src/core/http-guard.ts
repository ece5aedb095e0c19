/**
 * What every HTTP listener of skillgate (the Discord Interactions Endpoint, the Telegram and Feishu
 * webhooks, the secret form, `/healthz`) applies before trusting a request. A stranger's cost is capped
 * before anything is verified: the server itself (`createGuardedServer`) bounds the connections open at
 * once, per listener and per peer address, and the time to send the headers and the whole request; a
 * body is read only after what the headers allow to be checked was checked (by each listener), within a
 * size limit enforced while reading (a declared `Content-Length` over it is refused before a byte is
 * read), a deadline, and a budget of bytes held at once by all the listener's unfinished bodies — so
 * slow unauthenticated connections hold kilobytes, not a megabyte each. Also here: the client address
 * (the peer, or — only when the peer is a configured trusted proxy — the right-most untrusted
 * `X-Forwarded-For` entry), and a rate limit that counts only requests that failed verification, so junk
 * from the address a proxy shares with the platform can never push a correctly signed event out.
 */
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";

/** Why a body could not be read. */
export type BodyRefusal = "too-large" | "aborted" | "too-slow" | "busy";

/** What a listener allows every client, before anything is verified. */
export interface ListenerLimits {
  /** Connections open at once; more are closed as they arrive. */
  maxConnections: number;
  /** Connections open at once from one peer address (a configured trusted proxy is not limited). */
  maxConnectionsPerAddress: number;
  /** Time a client has to send the request headers (ms). */
  headersTimeoutMs: number;
  /** Time a client has to send the whole request (ms). */
  requestTimeoutMs: number;
  /** Time a body may take to arrive once the headers were checked (ms). */
  bodyDeadlineMs: number;
  /** Bytes all the listener's unfinished bodies may hold at once; a body that would pass it is refused. */
  bodyBudgetBytes: number;
}

/** The limits of every webhook listener. */
export const LISTENER_LIMITS: Readonly<ListenerLimits> = {
  maxConnections: 512,
  maxConnectionsPerAddress: 128,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  bodyDeadlineMs: 10_000,
  bodyBudgetBytes: 8 * 1024 * 1024,
};

/** The bytes held at once by one listener's unfinished bodies. */
class BodyBudget {
  private held = 0;

  constructor(readonly limit: number) {}

  /** Takes `bytes` more; false (nothing taken) when that would pass the limit. */
  take(bytes: number): boolean {
    if (this.held + bytes > this.limit) return false;
    this.held += bytes;
    return true;
  }

  /** Gives back `bytes` taken earlier. */
  release(bytes: number): void {
    this.held = Math.max(0, this.held - bytes);
  }
}

/** What a guarded server's bodies share: its budget, and the deadline each has. */
interface BodyRules {
  budget: BodyBudget;
  deadlineMs: number;
}

const bodyRules = new WeakMap<http.Server, BodyRules>();

/**
 * An HTTP server whose connections are capped (`maxConnections`, and per peer address unless the peer is
 * one of `trustedProxies`) and whose clients must send their headers and their request in time. Bodies
 * its handler reads with `readBodyLimited` share the server's body budget.
 */
export function createGuardedServer(
  handler: http.RequestListener,
  trustedProxies: readonly string[] = [],
  limits: Readonly<ListenerLimits> = LISTENER_LIMITS,
): http.Server {
  const server = http.createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // How often Node looks for requests over those times (its default, 30 s, would let them run long).
      connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
    },
    handler,
  );
  server.maxConnections = limits.maxConnections;
  server.keepAliveTimeout = 5_000;
  const trusted = new Set(trustedProxies.map(normalizeAddress));
  const open = new Map<string, number>();
  server.on("connection", (socket: Socket) => {
    const peer = normalizeAddress(socket.remoteAddress ?? "");
    if (trusted.has(peer)) return;
    const count = (open.get(peer) ?? 0) + 1;
    if (count > limits.maxConnectionsPerAddress) {
      socket.destroy();
      return;
    }
    open.set(peer, count);
    socket.once("close", () => {
      const left = (open.get(peer) ?? 1) - 1;
      if (left <= 0) open.delete(peer);
      else open.set(peer, left);
    });
  });
  bodyRules.set(server, {
    budget: new BodyBudget(limits.bodyBudgetBytes),
    deadlineMs: limits.bodyDeadlineMs,
  });
  return server;
}

/** The body rules of the server `req` came to (a server not made by `createGuardedServer` has none). */
function bodyRulesOf(req: IncomingMessage): BodyRules | undefined {
  const server = (req.socket as Socket & { server?: http.Server }).server;
  return server ? bodyRules.get(server) : undefined;
}

/**
 * Reads a request body of at most `limit` bytes. Resolves with the bytes, or with `"too-large"` as soon
 * as the declared length or the bytes received pass the limit (the rest is discarded, not kept),
 * `"too-slow"` when it has not all arrived within the listener's body deadline, or `"busy"` when the
 * listener's unfinished bodies already hold its budget (see `createGuardedServer`).
 */
export function readBodyLimited(req: IncomingMessage, limit: number): Promise<Buffer | BodyRefusal> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.resolve("too-large");
  }
  const rules = bodyRulesOf(req);
  const budget = rules?.budget;
  const deadlineMs = rules?.deadlineMs ?? LISTENER_LIMITS.bodyDeadlineMs;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (value: Buffer | BodyRefusal) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      budget?.release(size);
      chunks.length = 0;
      if (value !== "aborted" && typeof value === "string") req.resume();
      resolve(value);
    };
    const timer = setTimeout(() => finish("too-slow"), deadlineMs);
    req.on("data", (chunk: Buffer) => {
      if (done) return;
      if (size + chunk.length > limit) {
        finish("too-large");
        return;
      }
      if (budget && !budget.take(chunk.length)) {
        finish("busy");
        return;
      }
      size += chunk.length;
      chunks.push(chunk);
    });
    req.on("end", () => finish(Buffer.concat(chunks)));
    req.on("error", () => finish("aborted"));
    req.on("aborted", () => finish("aborted"));
  });
}

/**
 * Answers a body that could not be read: 413 (too large), 408 (too slow) or 503 (the listener is busy
 * holding other bodies), and closes the connection so the rest is never read. An aborted request is
 * left alone.
 */
export function refuseBody(
  req: IncomingMessage,
  res: ServerResponse,
  refusal: BodyRefusal,
  limit: number,
): void {
  if (refusal === "aborted") return;
  if (refusal === "too-large") {
    refuseTooLarge(req, res, limit);
    return;
  }
  refuseAndClose(
    req,
    res,
    refusal === "too-slow" ? 408 : 503,
    refusal === "too-slow" ? "request body too slow" : "busy; try again",
  );
}

/**
 * Answers `status` with a short JSON error and closes the connection once it is written, so a body still
 * coming is never read (a refusal decided from the headers alone).
 */
export function refuseAndClose(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  message: string,
): void {
  if (!res.headersSent) {
    res.writeHead(status, { "content-type": "application/json", connection: "close" });
    res.end(`${JSON.stringify({ error: message })}\n`, () => req.socket.destroy());
  } else req.socket.destroy();
}

/**
 * A request timestamp in whole seconds since the epoch (digits only) within `maxSkewMs` of `now`, either
 * way: a signed request captured earlier, or stamped in the future, is refused.
 */
export function timestampFresh(seconds: string | undefined, now: number, maxSkewMs: number): boolean {
  if (seconds === undefined || !/^[0-9]{1,12}$/.test(seconds)) return false;
  return Math.abs(now - Number(seconds) * 1000) <= maxSkewMs;
}

/** One header's value (the first, when repeated). */
export function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Answers 413 and closes the connection, so a client still sending a huge body is cut off instead of
 * being read to the end.
 */
export function refuseTooLarge(req: IncomingMessage, res: ServerResponse, limit: number): void {
  if (!res.headersSent) {
    res.writeHead(413, { "content-type": "application/json", connection: "close" });
    res.end(`${JSON.stringify({ error: `request body over ${limit} bytes` })}\n`, () => req.socket.destroy());
  } else req.socket.destroy();
}

/**
 * The client address of a request: the peer address, unless the peer is in `trustedProxies`; then the
 * right-most `X-Forwarded-For` entry that is not itself a trusted proxy.
 */
export function clientAddress(req: IncomingMessage, trustedProxies: readonly string[]): string {
  const peer = normalizeAddress(req.socket.remoteAddress ?? "");
  if (trustedProxies.length === 0 || !trustedProxies.map(normalizeAddress).includes(peer)) return peer || "?";
  const header = req.headers["x-forwarded-for"];
  const hops = (Array.isArray(header) ? header.join(",") : (header ?? ""))
    .split(",")
    .map((hop) => normalizeAddress(hop.trim()))
    .filter((hop) => hop !== "");
  const trusted = new Set(trustedProxies.map(normalizeAddress));
  for (let index = hops.length - 1; index >= 0; index -= 1) {
    const hop = hops[index] as string;
    if (!trusted.has(hop)) return hop;
  }
  return peer || "?";
}

function normalizeAddress(address: string): string {
  return address.startsWith("::ffff:") ? address.slice(7) : address;
}

/**
 * Counts failed verifications per client address in a sliding one-minute window. `failed(key)` records
 * one and says whether the address is now over the limit (answer 429 instead of 401); requests that pass
 * verification are never counted or refused.
 */
export class FailureRateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records a failed verification from `key`; true when `key` has failed more than `perMinute` times. */
  failed(key: string): boolean {
    const now = this.now();
    const window = this.windows.get(key);
    if (!window || now - window.start >= 60_000) {
      if (this.windows.size > 10_000) this.windows.clear();
      this.windows.set(key, { start: now, count: 1 });
      return 1 > this.perMinute;
    }
    window.count += 1;
    return window.count > this.perMinute;
  }
}
