/**
 * What every HTTP listener of skillgate (the Telegram and Feishu webhooks, `/healthz`) applies to a
 * request before trusting it: a body limit enforced while reading (a declared `Content-Length` over it is
 * refused before a byte is read, and reading stops at the limit, so a 100 MB body never sits in memory),
 * the client address (the peer, or — only when the peer is a configured trusted proxy — the right-most
 * untrusted `X-Forwarded-For` entry), and a rate limit that counts only requests that failed verification,
 * so junk from the address a proxy shares with the platform can never push a correctly signed event out.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

/** Why a body could not be read. */
export type BodyRefusal = "too-large" | "aborted";

/**
 * Reads a request body of at most `limit` bytes. Resolves with the bytes, or with `"too-large"` as soon
 * as the declared length or the bytes received pass the limit (the rest is discarded, not kept).
 */
export function readBodyLimited(req: IncomingMessage, limit: number): Promise<Buffer | BodyRefusal> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.resolve("too-large");
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (value: Buffer | BodyRefusal) => {
      if (done) return;
      done = true;
      resolve(value);
    };
    req.on("data", (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        finish("too-large");
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => finish(Buffer.concat(chunks)));
    req.on("error", () => finish("aborted"));
    req.on("aborted", () => finish("aborted"));
  });
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
