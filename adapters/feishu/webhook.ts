/**
 * The Feishu webhook's HTTP security: signature and timestamp checks, the verification token, body
 * decryption and size limits, and the small HTTP helpers the webhook server uses.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { ServerResponse } from "node:http";
import * as lark from "@larksuiteoapi/node-sdk";

/** Outcome of checking a webhook body: the parsed (still encrypted, if it was) body, or an HTTP error. */
export type WebhookVerdict =
  | { ok: true; body: Record<string, unknown>; decrypted: Record<string, unknown> }
  | { ok: false; status: number; reason: string };

/** How far a signed webhook request's timestamp may be from our clock. */
const WEBHOOK_MAX_SKEW_MS = 5 * 60_000;

/**
 * Checks a webhook body the way the SDK does not: the signature (when `encryptKey` is set; over the
 * raw body or its compact form) for everything but `url_verification`, with a signed timestamp no more
 * than five minutes from `now`, and the verification token of both events (`header.token`) and
 * challenges (`token`), compared in constant time.
 */
export function verifyWebhook(
  raw: string,
  headers: Record<string, string | string[] | undefined>,
  encryptKey: string | undefined,
  verificationToken: string | undefined,
  now: number = Date.now(),
): WebhookVerdict {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return { ok: false, status: 400, reason: "body is not JSON" };
  }
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return { ok: false, status: 400, reason: "body is not a JSON object" };
  const record = body as Record<string, unknown>;
  let decrypted = record;
  if (typeof record.encrypt === "string") {
    if (!encryptKey)
      return { ok: false, status: 400, reason: "encrypted event but gateway.feishu.encrypt_key is not set" };
    try {
      decrypted = JSON.parse(new lark.AESCipher(encryptKey).decrypt(record.encrypt)) as Record<
        string,
        unknown
      >;
    } catch {
      return {
        ok: false,
        status: 400,
        reason: "event could not be decrypted with gateway.feishu.encrypt_key",
      };
    }
  }
  const isChallenge = decrypted.type === "url_verification";
  if (encryptKey && !isChallenge) {
    if (!signatureMatches(raw, record, headers, encryptKey))
      return { ok: false, status: 401, reason: "bad signature" };
    // A signed request is only good for a few minutes: a captured one cannot be replayed later.
    const signedAt = Number(headerValue(headers["x-lark-request-timestamp"])) * 1000;
    if (!Number.isFinite(signedAt) || Math.abs(now - signedAt) > WEBHOOK_MAX_SKEW_MS) {
      return { ok: false, status: 401, reason: "request timestamp too old or too far ahead" };
    }
  }
  if (verificationToken) {
    const header = decrypted.header as { token?: unknown } | undefined;
    const token = typeof header?.token === "string" ? header.token : decrypted.token;
    if (typeof token !== "string" || !constantTimeEqual(token, verificationToken)) {
      return { ok: false, status: 401, reason: "verification token mismatch" };
    }
  }
  return { ok: true, body: record, decrypted };
}

export function signatureMatches(
  raw: string,
  body: Record<string, unknown>,
  headers: Record<string, string | string[] | undefined>,
  encryptKey: string,
): boolean {
  const timestamp = headerValue(headers["x-lark-request-timestamp"]);
  const nonce = headerValue(headers["x-lark-request-nonce"]);
  const signature = headerValue(headers["x-lark-signature"]);
  if (!timestamp || !nonce || !signature) return false;
  return [raw, JSON.stringify(body)].some((text) =>
    constantTimeEqual(sign(timestamp, nonce, encryptKey, text), signature),
  );
}

/** `sha256_hex(timestamp + nonce + encryptKey + body)`, Feishu's event signature. */
export function sign(timestamp: string, nonce: string, encryptKey: string, body: string): string {
  return createHash("sha256")
    .update(timestamp + nonce + encryptKey + body)
    .digest("hex");
}

export function signatureHeaders(body: string, encryptKey: string | undefined): Record<string, string> {
  if (!encryptKey) return {};
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = createHash("sha256")
    .update(body + timestamp)
    .digest("hex")
    .slice(0, 16);
  return {
    "x-lark-request-timestamp": timestamp,
    "x-lark-request-nonce": nonce,
    "x-lark-signature": sign(timestamp, nonce, encryptKey, body),
  };
}

export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash("sha256").update(a).digest();
  const right = createHash("sha256").update(b).digest();
  return timingSafeEqual(left, right) && a.length === b.length;
}

export function normalizePath(path: string): string {
  return path.startsWith("/") ? path : `/${path}`;
}

export function respond(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: message }));
}
