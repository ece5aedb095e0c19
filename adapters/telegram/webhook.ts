/**
 * Telegram inbound by webhook: grammy's `webhookCallback(bot, "http")` with `secret_token` on
 * `gateway.telegram.webhook.port` (on `webhook.bind`, 127.0.0.1 by default; put a TLS reverse proxy in
 * front) at
 * `gateway.telegram.webhook.path` (default: the path of the public URL), registered with `setWebhook`
 * and `max_connections: 1` so Telegram sends one update at a time, in order; requests are also handled
 * one at a time here. The listener caps connections and request times (`createGuardedServer`); the
 * secret header and the declared size are checked before the body is read, and the body is read with a
 * deadline. An update whose handling throws (one gateway) is logged, counted for `/healthz` and answered
 * 200 — skipped, as polling skips it — so Telegram does not send it again ahead of every later update,
 * and the next update is handled as if it had not happened.
 *
 * Several replicas behind a load balancer (`hooks.sharedIngress`): every replica listens and checks the
 * secret; only the leader calls `setWebhook`, with Telegram's default of 40 connections. A request is
 * answered once its update is in the shared inbox, so Telegram — which sends a chat's next update only
 * after the previous one was answered — keeps each chat in order across replicas. An update the inbox
 * could not take is answered 503, and Telegram delivers it again (it retries any non-2xx answer:
 * https://core.telegram.org/bots/api#setwebhook).
 */
import { timingSafeEqual } from "node:crypto";
import type http from "node:http";
import { Readable } from "node:stream";
import { ConfigError } from "../../src/core/errors.js";
import {
  clientAddress,
  createGuardedServer,
  FailureRateLimiter,
  readBodyLimited,
  refuseAndClose,
  refuseBody,
} from "../../src/core/http-guard.js";
import { telegramConfig } from "./config.js";
import { ALLOWED_UPDATES, type TelegramContext } from "./context.js";
import { webhookCallback } from "./grammy.js";
import { callWithRetries } from "./outbound.js";

/** Largest webhook body read (bytes): an update is a few KB; Telegram's own limits keep it far below. */
const MAX_WEBHOOK_BODY = 1024 * 1024;

/** Connections Telegram may open to the replicas at once (its default; at most 100, per `setWebhook`). */
const SHARED_MAX_CONNECTIONS = 40;

/** Wrong-secret webhook requests answered with 401 per client per minute; more get 429. */
const WEBHOOK_FAILURES_PER_MINUTE = 120;

/** Constant-time comparison of two secrets. */
function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The webhook listener of one Telegram adapter. */
export class TelegramWebhook {
  private server: http.Server | undefined;

  constructor(private readonly ctx: TelegramContext) {}

  /** The listener is up (updates come by webhook, not by polling). */
  get listening(): boolean {
    return this.server !== undefined;
  }

  /** Listens on 127.0.0.1 (every replica; `register` tells Telegram where). */
  async listen(): Promise<void> {
    const { url, port, secret } = this.settings();
    const shared = this.ctx.hooks?.sharedIngress === true;
    const handle = webhookCallback(this.ctx.bot, "http", {
      secretToken: secret,
      onTimeout: "return",
      timeoutMilliseconds: 8_000,
    });
    const expectedPath = this.localPath(url);
    const failures = new FailureRateLimiter(WEBHOOK_FAILURES_PER_MINUTE);
    // One update at a time: Telegram is asked for one connection, and a second request (a retry, or a
    // proxy that opens more) waits here, so a chat's commands never run concurrently or reordered.
    // The chain itself never rejects: a failed update is that update's failure, not every later one's.
    let chain: Promise<void> = Promise.resolve();
    const trustedProxies = this.ctx.options.config.gateway.trustedProxies;
    const server = createGuardedServer((req, res) => {
      const requestPath = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
      if (req.method !== "POST" || requestPath !== expectedPath) {
        res.writeHead(404).end();
        return;
      }
      this.admit(req, res, secret, failures)
        .then((body) => {
          if (!body) return;
          // grammy reads the already-checked body from a canonical request (the secret header kept).
          const canonical = Object.assign(Readable.from([body]), {
            headers: req.headers,
            method: "POST",
            url: req.url,
          }) as unknown as http.IncomingMessage;
          // Replicas answer each request once its update is in the shared inbox, side by side.
          if (shared) return handle(canonical, res);
          const run = chain.then(() => handle(canonical, res));
          chain = run.catch(() => undefined);
          return run;
        })
        .catch((error: unknown) => {
          if (shared) {
            this.ctx.logger.warn({ err: error }, "telegram webhook: the shared inbox did not take an update");
            // 503: not taken, Telegram delivers the update again (to any replica).
            if (!res.headersSent) res.writeHead(503);
            res.end();
            return;
          }
          this.ctx.intakeFailures.record();
          this.ctx.logger.error({ err: error }, "telegram webhook: handling an update failed; it is skipped");
          // 200: taken (and skipped); answered otherwise, Telegram would send it again before any other.
          if (!res.headersSent) res.writeHead(200);
          res.end();
        });
    }, trustedProxies);
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, telegramConfig(this.ctx.options.config).webhook.bind, () => resolve());
    });
  }

  /** Registers the public URL with `setWebhook` (one gateway, or the leader of several). */
  async register(): Promise<void> {
    const { url, secret } = this.settings();
    const maxConnections = this.ctx.hooks?.sharedIngress ? SHARED_MAX_CONNECTIONS : 1;
    await callWithRetries(this.ctx, "setWebhook", () =>
      this.ctx.bot.api.setWebhook(
        url,
        { secret_token: secret, allowed_updates: [...ALLOWED_UPDATES], max_connections: maxConnections },
        this.ctx.signal,
      ),
    );
    this.ctx.state = { state: "connected", detail: `webhook ${url}` };
  }

  /**
   * The local path the listener answers: `gateway.telegram.webhook.path` when set (a reverse proxy may
   * map the public URL to another path), else the public URL's own path.
   */
  private localPath(url: string): string {
    const configured = telegramConfig(this.ctx.options.config).webhook.path;
    if (configured === undefined || configured.trim() === "") return new URL(url).pathname;
    return configured.startsWith("/") ? configured : `/${configured}`;
  }

  /**
   * Checks a webhook request before its body is read: the secret header (constant time; failures are
   * rate limited per client, 401 then 429, the connection closed), then reads the body within its size
   * (413), deadline (408) and the listener's budget (503). Returns the body, or undefined when the
   * request was answered here.
   */
  private async admit(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    secret: string,
    failures: FailureRateLimiter,
  ): Promise<Buffer | undefined> {
    const given = req.headers["x-telegram-bot-api-secret-token"];
    if (typeof given !== "string" || !sameSecret(given, secret)) {
      const client = clientAddress(req, this.ctx.options.config.gateway.trustedProxies);
      const limited = failures.failed(client);
      this.ctx.logger.warn({ client, status: limited ? 429 : 401 }, "telegram webhook: wrong secret token");
      refuseAndClose(req, res, limited ? 429 : 401, "wrong secret token");
      return undefined;
    }
    const body = await readBodyLimited(req, MAX_WEBHOOK_BODY);
    if (typeof body === "string") {
      if (body === "too-large")
        this.ctx.logger.warn(
          { limit: MAX_WEBHOOK_BODY },
          "telegram webhook: request body over the limit refused",
        );
      refuseBody(req, res, body, MAX_WEBHOOK_BODY);
      return undefined;
    }
    return body;
  }

  private settings(): { url: string; port: number; secret: string } {
    const webhook = telegramConfig(this.ctx.options.config).webhook;
    const url = webhook.url ?? this.ctx.options.secret("TELEGRAM_WEBHOOK_URL");
    const secret = webhook.secret ?? this.ctx.options.secret("TELEGRAM_WEBHOOK_SECRET");
    if (!url || !/^https?:\/\//.test(url)) {
      throw new ConfigError(
        "gateway.telegram.webhook.url",
        "gateway.telegram.mode is webhook but gateway.telegram.webhook.url is not a URL; set the public https:// address Telegram should POST to.",
      );
    }
    if (!secret || !/^[A-Za-z0-9_-]{1,256}$/.test(secret)) {
      throw new ConfigError(
        "gateway.telegram.webhook.secret",
        "Telegram webhook mode needs a secret token (1–256 of A-Z a-z 0-9 _ -): set gateway.telegram.webhook.secret or TELEGRAM_WEBHOOK_SECRET in .env.",
      );
    }
    return { url, port: webhook.port ?? 8443, secret };
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
