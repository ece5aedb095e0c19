/**
 * The Feishu webhook: the listener (`FeishuWebhook`, bound to 127.0.0.1; put a reverse proxy in front)
 * and its HTTP security. The listener caps connections and request times (`createGuardedServer`). We
 * check what the SDK does not: with an `encrypt_key`, the signature headers before the body is read
 * (present, well-formed, `X-Lark-Request-Timestamp` within five minutes), then the signature
 * `sha256(timestamp + nonce + encrypt_key + body)` before anything is decrypted — so a forged body is
 * never decrypted and no answer tells whether it would have (Feishu open platform, "Encrypt and
 * verify event": 加密策略 / 安全校验, and the Node SDK's `checkIsEventValidated`); the verification
 * token (constant-time, 401 on mismatch, also for `url_verification`), body size (413, enforced while
 * reading, with a deadline) and a rate limit of failed verifications per client (429;
 * `gateway.trusted_proxies` names the proxies whose `X-Forwarded-For` is believed). A checked request
 * goes to the SDK's `adaptDefault` (with `autoChallenge`) as a canonical, re-signed body; an event the
 * shared inbox did not take (several replicas, Redis unreachable) is answered 503 so Feishu retries.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import type * as Lark from "@larksuiteoapi/node-sdk";
import { AdapterError, ConfigError } from "../../src/core/errors.js";
import {
  clientAddress,
  createGuardedServer,
  FailureRateLimiter,
  readBodyLimited,
  refuseAndClose,
  refuseBody,
  timestampFresh,
} from "../../src/core/http-guard.js";
import { describeError } from "./api-errors.js";
import type { FeishuContext } from "./context.js";
import { isNotTaken } from "./interactions.js";
import { lark } from "./lark-sdk.js";

/** Outcome of checking a webhook body: the parsed (still encrypted, if it was) body, or an HTTP error. */
export type WebhookVerdict =
  | { ok: true; body: Record<string, unknown>; decrypted: Record<string, unknown> }
  | { ok: false; status: number; reason: string };

/** How far a signed webhook request's timestamp may be from our clock. */
const WEBHOOK_MAX_SKEW_MS = 5 * 60_000;

/** The headers of a signed webhook request. */
const SIGNATURE_HEADERS = ["x-lark-request-timestamp", "x-lark-request-nonce", "x-lark-signature"] as const;

/** Said of every unsigned request refused when an encrypt key is set, whatever the reason (no oracle). */
const UNSIGNED_REFUSED = "unsigned request is not a URL verification";

/** The request carries any of the signature headers. */
export function isSigned(headers: Record<string, string | string[] | undefined>): boolean {
  return SIGNATURE_HEADERS.some((name) => headers[name] !== undefined);
}

/**
 * What the headers of a signed request allow to be checked before its body is read: all three signature
 * headers present, the signature 64 hex digits, the timestamp digits within five minutes of `now`.
 * Undefined when they pass, else the reason.
 */
export function signatureHeadersProblem(
  headers: Record<string, string | string[] | undefined>,
  now: number = Date.now(),
): string | undefined {
  const [timestamp, nonce, signature] = SIGNATURE_HEADERS.map((name) => headerValue(headers[name]));
  if (!timestamp || !nonce || !signature) return "signature headers incomplete";
  if (!/^[0-9a-fA-F]{64}$/.test(signature)) return "signature malformed";
  if (!timestampFresh(timestamp, now, WEBHOOK_MAX_SKEW_MS))
    return "request timestamp too old or too far ahead";
  return undefined;
}

/**
 * Checks a webhook body the way the SDK does not. With `encryptKey` set, a signed request's headers
 * (timestamp within five minutes of `now`) and signature (over the raw body or its compact form) are
 * checked before anything is decrypted; an unsigned one may only be a `url_verification` challenge, and
 * every other unsigned request is refused alike, so an answer never tells whether a forged ciphertext
 * decrypts. Then the verification token of both events (`header.token`) and challenges (`token`),
 * compared in constant time.
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
  if ("encrypt" in record && typeof record.encrypt !== "string")
    return { ok: false, status: 400, reason: "encrypt is not a string" };
  if (typeof record.encrypt === "string" && !encryptKey)
    return { ok: false, status: 400, reason: "encrypted event but gateway.feishu.encrypt_key is not set" };
  const signed = isSigned(headers);
  if (encryptKey && signed) {
    const problem = signatureHeadersProblem(headers, now);
    if (problem) return { ok: false, status: 401, reason: problem };
    if (!signatureMatches(raw, record, headers, encryptKey))
      return { ok: false, status: 401, reason: "bad signature" };
  }
  let decrypted = record;
  if (typeof record.encrypt === "string" && encryptKey) {
    try {
      decrypted = JSON.parse(new lark.AESCipher(encryptKey).decrypt(record.encrypt)) as Record<
        string,
        unknown
      >;
    } catch {
      decrypted = {};
    }
    if (typeof decrypted !== "object" || decrypted === null || Array.isArray(decrypted)) decrypted = {};
    if (signed && Object.keys(decrypted).length === 0)
      return {
        ok: false,
        status: 400,
        reason: "event could not be decrypted with gateway.feishu.encrypt_key",
      };
  }
  if (encryptKey && !signed) {
    // Only Feishu's URL check may come unsigned; anything else is refused with one answer.
    if (decrypted.type !== "url_verification") return { ok: false, status: 401, reason: UNSIGNED_REFUSED };
    if (verificationToken && !tokenMatches(decrypted, verificationToken))
      return { ok: false, status: 401, reason: UNSIGNED_REFUSED };
    return { ok: true, body: record, decrypted };
  }
  if (verificationToken && !tokenMatches(decrypted, verificationToken))
    return { ok: false, status: 401, reason: "verification token mismatch" };
  return { ok: true, body: record, decrypted };
}

/** The verification token of an event (`header.token`) or a challenge (`token`) is `expected`. */
function tokenMatches(decrypted: Record<string, unknown>, expected: string): boolean {
  const header = decrypted.header as { token?: unknown } | undefined;
  const token = typeof header?.token === "string" ? header.token : decrypted.token;
  return typeof token === "string" && constantTimeEqual(token, expected);
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

/** Largest webhook body accepted (bytes). */
const MAX_WEBHOOK_BODY = 1024 * 1024;
/** Largest unsigned body read when an encrypt key is set: only a URL check (a few hundred bytes) may be. */
const MAX_UNSIGNED_BODY = 16 * 1024;
/** Failed webhook verifications answered with 401 per client per minute; more get 429. */
const WEBHOOK_RATE_PER_MINUTE = 120;

/** The webhook listener of one Feishu adapter. */
export class FeishuWebhook {
  private server: Server | undefined;
  private readonly failures = new FailureRateLimiter(WEBHOOK_RATE_PER_MINUTE);

  constructor(private readonly ctx: FeishuContext) {}

  /** Listens on 127.0.0.1 (`gateway.feishu.webhook.port`, path `webhook.path`) and hands checked requests to the SDK. */
  async start(dispatcher: Lark.EventDispatcher): Promise<void> {
    const { verificationToken, encryptKey } = this.ctx.settings;
    if (!verificationToken && !encryptKey) {
      throw new ConfigError(
        "gateway.feishu.verification_token",
        "Feishu webhook mode needs gateway.feishu.verification_token (and preferably encrypt_key) so forged events can be rejected; copy them from the app's Events & Callbacks page.",
      );
    }
    const path = normalizePath(this.ctx.settings.webhook.path ?? "/feishu/webhook");
    const sdkHandler = lark.adaptDefault(path, dispatcher, { autoChallenge: true });
    const server = createGuardedServer((req, res) => {
      this.handle(req, res, path, sdkHandler).catch((error: unknown) => {
        // A checked event the shared inbox did not take: 503, so Feishu delivers it again (to any replica).
        if (isNotTaken(error)) {
          if (!res.headersSent) respond(res, 503, "event not taken now; deliver it again");
          return;
        }
        this.ctx.log.error({ err: describeError(error) }, "feishu webhook request failed");
        this.ctx.intakeFailures.record();
        if (!res.headersSent) respond(res, 500, "internal error");
      });
    }, this.ctx.opts.config.gateway.trustedProxies);
    await new Promise<void>((resolve, reject) => {
      server.once("error", (error) =>
        reject(
          new AdapterError(
            "feishu",
            `Could not listen for Feishu webhooks on port ${this.ctx.settings.webhook.port ?? 0}: ${error.message}`,
            { cause: error },
          ),
        ),
      );
      server.listen(this.ctx.settings.webhook.port ?? 0, this.ctx.settings.webhook.bind, () => resolve());
    });
    this.server = server;
    const { port } = server.address() as AddressInfo;
    this.ctx.webhookUrl = `http://127.0.0.1:${port}${path}`;
  }

  /**
   * Checks a webhook request — path, the signature headers before the body is read, then size, deadline,
   * signature and token — and hands it to the SDK.
   */
  private async handle(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    sdkHandler: (req: unknown, res: unknown) => Promise<void>,
  ): Promise<void> {
    if (new URL(req.url ?? "/", "http://localhost").pathname !== path) return respond(res, 404, "not found");
    if (req.method !== "POST") return respond(res, 405, "POST only");
    const { encryptKey } = this.ctx.settings;
    const signed = isSigned(req.headers);
    const early = encryptKey && signed ? signatureHeadersProblem(req.headers) : undefined;
    if (early) return this.refuse(req, res, 401, early, true);
    const limit = encryptKey && !signed ? MAX_UNSIGNED_BODY : MAX_WEBHOOK_BODY;
    const bytes = await readBodyLimited(req, limit);
    if (typeof bytes === "string") {
      if (bytes === "too-large" && limit === MAX_UNSIGNED_BODY)
        return this.refuse(req, res, 401, UNSIGNED_REFUSED, true);
      return refuseBody(req, res, bytes, limit);
    }
    const verdict = verifyWebhook(
      bytes.toString("utf8"),
      req.headers,
      this.ctx.settings.encryptKey,
      this.ctx.settings.verificationToken,
    );
    if (!verdict.ok) return this.refuse(req, res, verdict.status, verdict.reason, false);
    // Hand the SDK a canonical request: compact JSON, re-signed, so its own checks agree with ours.
    const body = JSON.stringify(verdict.body);
    const headers = { ...req.headers, ...signatureHeaders(body, this.ctx.settings.encryptKey) };
    const forwarded = Object.assign(Readable.from([Buffer.from(body)]), {
      url: path,
      headers,
      method: "POST",
    });
    await sdkHandler(forwarded, res);
  }

  /**
   * Answers a request that failed verification. Only failures are rate limited, per client (behind a
   * trusted proxy: the forwarded address), so junk can never crowd out a correctly signed event; a
   * refusal decided before the body was read closes the connection.
   */
  private refuse(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    reason: string,
    beforeBody: boolean,
  ): void {
    const client = clientAddress(req, this.ctx.opts.config.gateway.trustedProxies);
    const limited = this.failures.failed(client);
    this.ctx.log.warn({ status: limited ? 429 : status, reason, client }, "feishu webhook request rejected");
    const answer = limited ? "too many failed requests" : reason;
    if (beforeBody) refuseAndClose(req, res, limited ? 429 : status, answer);
    else respond(res, limited ? 429 : status, answer);
  }

  /** Closes the listener and its open connections. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
  }
}
