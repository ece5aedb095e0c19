/**
 * The Feishu webhook: the listener (`FeishuWebhook`, bound to 127.0.0.1; put a reverse proxy in front)
 * and its HTTP security. We check what the SDK does not: the verification token (constant-time, 401 on
 * mismatch, also for `url_verification`), the signature when an `encrypt_key` is set (401), body size
 * (413, enforced while reading) and a rate limit of failed verifications per client (429;
 * `gateway.trusted_proxies` names the proxies whose `X-Forwarded-For` is believed). A checked request
 * goes to the SDK's `adaptDefault` (with `autoChallenge`) as a canonical, re-signed body; an event the
 * shared inbox did not take (several replicas, Redis unreachable) is answered 503 so Feishu retries.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import * as lark from "@larksuiteoapi/node-sdk";
import { AdapterError, ConfigError } from "../../src/core/errors.js";
import {
  clientAddress,
  FailureRateLimiter,
  readBodyLimited,
  refuseTooLarge,
} from "../../src/core/http-guard.js";
import { describeError } from "./api-errors.js";
import type { FeishuContext } from "./context.js";
import { isNotTaken } from "./interactions.js";

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

/** Largest webhook body accepted (bytes). */
const MAX_WEBHOOK_BODY = 1024 * 1024;
/** Failed webhook verifications answered with 401 per client per minute; more get 429. */
const WEBHOOK_RATE_PER_MINUTE = 120;

/** The webhook listener of one Feishu adapter. */
export class FeishuWebhook {
  private server: Server | undefined;
  private readonly failures = new FailureRateLimiter(WEBHOOK_RATE_PER_MINUTE);

  constructor(private readonly ctx: FeishuContext) {}

  /** Listens on 127.0.0.1 (`gateway.feishu.webhook.port`, path `webhook.path`) and hands checked requests to the SDK. */
  async start(dispatcher: lark.EventDispatcher): Promise<void> {
    const { verificationToken, encryptKey } = this.ctx.settings;
    if (!verificationToken && !encryptKey) {
      throw new ConfigError(
        "gateway.feishu.verification_token",
        "Feishu webhook mode needs gateway.feishu.verification_token (and preferably encrypt_key) so forged events can be rejected; copy them from the app's Events & Callbacks page.",
      );
    }
    const path = normalizePath(this.ctx.settings.webhook.path ?? "/feishu/webhook");
    const sdkHandler = lark.adaptDefault(path, dispatcher, { autoChallenge: true });
    const server = createServer((req, res) => {
      this.handle(req, res, path, sdkHandler).catch((error: unknown) => {
        // A checked event the shared inbox did not take: 503, so Feishu delivers it again (to any replica).
        if (isNotTaken(error)) {
          if (!res.headersSent) respond(res, 503, "event not taken now; deliver it again");
          return;
        }
        this.ctx.log.error({ err: describeError(error) }, "feishu webhook request failed");
        if (!res.headersSent) respond(res, 500, "internal error");
      });
    });
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

  /** Checks a webhook request (path, size, rate, signature, token), then hands it to the SDK. */
  private async handle(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    sdkHandler: (req: unknown, res: unknown) => Promise<void>,
  ): Promise<void> {
    if (new URL(req.url ?? "/", "http://localhost").pathname !== path) return respond(res, 404, "not found");
    if (req.method !== "POST") return respond(res, 405, "POST only");
    const bytes = await readBodyLimited(req, MAX_WEBHOOK_BODY);
    if (bytes === "too-large") return refuseTooLarge(req, res, MAX_WEBHOOK_BODY);
    if (bytes === "aborted") return;
    const verdict = verifyWebhook(
      bytes.toString("utf8"),
      req.headers,
      this.ctx.settings.encryptKey,
      this.ctx.settings.verificationToken,
    );
    if (!verdict.ok) {
      // Only failures are rate limited, per client (behind a trusted proxy: the forwarded address), so
      // junk can never crowd out a correctly signed event.
      const client = clientAddress(req, this.ctx.opts.config.gateway.trustedProxies);
      const limited = this.failures.failed(client);
      this.ctx.log.warn(
        { status: limited ? 429 : verdict.status, reason: verdict.reason, client },
        "feishu webhook request rejected",
      );
      return respond(
        res,
        limited ? 429 : verdict.status,
        limited ? "too many failed requests" : verdict.reason,
      );
    }
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
