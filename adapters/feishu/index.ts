/**
 * The Feishu/Lark adapter: a thin network shell (official `@larksuiteoapi/node-sdk`) around the pure
 * `normalizeEvent` and `renderReply`.
 *
 * - Inbound: the long connection (`WSClient`) by default, or webhook mode (`EventDispatcher` behind
 *   `adaptDefault` with `autoChallenge`) on `gateway.feishu.webhook.{port,path}` (bound to 127.0.0.1;
 *   put a reverse proxy in front). In webhook mode we check what the SDK does not: the verification
 *   token (constant-time, 401 on mismatch, also for `url_verification`), the signature when an
 *   `encrypt_key` is set (401), body size (413) and a per-IP rate limit (429).
 * - Every event is acknowledged at once; the message goes to the gateway's queue without being awaited
 *   (Feishu redelivers when the ack takes over 3 s). Redeliveries are dropped here for the recent past
 *   and by the gateway's persistent dedupe (keyed by event id) across restarts.
 * - Outbound: `im.message.reply` to the triggering message (first part; all parts inside a thread) or
 *   `im.message.create` to a chat; each part as a post, re-sent as plain text when the API rejects it.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import * as lark from "@larksuiteoapi/node-sdk";
import { trimOldest } from "../../src/core/bounded.js";
import { AdapterError, ConfigError } from "../../src/core/errors.js";
import type { Logger } from "../../src/core/logger.js";
import type {
  Adapter,
  AdapterCapabilities,
  AdapterHealth,
  AdapterHooks,
  InboundMessage,
  InboundSink,
  OutboundTarget,
} from "../../src/core/message.js";
import type { Reply } from "../../src/core/reply.js";
import type { AdapterOptions } from "../types.js";
import { checkResponse, describeError, feishuErrorCode, isContentRejection } from "./api-errors.js";
import { envelopeFromDispatcher, MESSAGE_EVENT_TYPE, normalizeEvent } from "./normalize.js";
import { FEISHU_MAX_CHARS, type FeishuPayload, postToTextPayloads, renderReply } from "./render.js";
import { sdkLoggerFor } from "./sdk-logger.js";
import { readSecretSubmit, secretCard, secretCardResponse } from "./secret-input.js";
import { normalizePath, readBody, respond, signatureHeaders, verifyWebhook } from "./webhook.js";

export { sdkLoggerFor } from "./sdk-logger.js";
// Webhook security, API error decoding and the SDK logger bridge have their own modules.
export { sign, verifyWebhook, type WebhookVerdict } from "./webhook.js";

/** What the Feishu adapter factory receives: the shared `AdapterOptions`. */
export type FeishuAdapterOptions = AdapterOptions;

/** Feishu's capabilities: no native command menu; messages can be edited and threaded. */
export const FEISHU_CAPABILITIES: AdapterCapabilities = {
  maxMessageLength: FEISHU_MAX_CHARS,
  nativeCommands: false,
  edit: true,
  threads: true,
  privateInput: "form",
};

/** Largest webhook body accepted (bytes). */
const MAX_WEBHOOK_BODY = 1024 * 1024;
/** Webhook requests accepted per IP per minute. */
const WEBHOOK_RATE_PER_MINUTE = 120;
/** Event and message ids remembered in memory for fast redelivery drops. */
const RECENT_IDS = 4096;
/** How long `start()` waits for the long connection to come up. */
const CONNECT_TIMEOUT_MS = 20_000;
/** Reply targets that no longer exist (withdrawn or deleted): fall back to a new chat message. */
const GONE_MESSAGE_CODES = new Set([230011, 231003]);

/** Builds the Feishu/Lark adapter from config and secrets (`FEISHU_APP_ID`, `FEISHU_APP_SECRET`). */
export function createFeishuAdapter(opts: FeishuAdapterOptions): FeishuAdapter {
  return new FeishuAdapter(opts);
}

/** The SDK's domain for `gateway.feishu.domain`: `feishu`, `lark`, or a full URL used verbatim. */
export function resolveDomain(domain: string | undefined): lark.Domain | string {
  if (domain === undefined || domain === "feishu") return lark.Domain.Feishu;
  if (domain === "lark") return lark.Domain.Lark;
  return domain.replace(/\/+$/, "");
}

/** The Feishu/Lark adapter. `webhookUrl` is set after `start()` in webhook mode. */
export class FeishuAdapter implements Adapter {
  readonly platform = "feishu" as const;
  readonly capabilities = FEISHU_CAPABILITIES;
  /** The bot's own open_id (from `bot/v3/info`), known after `start()`. */
  botOpenId = "";
  /** `http://127.0.0.1:PORT/path` of the webhook listener, in webhook mode after `start()`. */
  webhookUrl: string | undefined;

  private readonly opts: FeishuAdapterOptions;
  private readonly log: Logger;
  private client: lark.Client | undefined;
  private wsClient: lark.WSClient | undefined;
  private hooks: AdapterHooks | undefined;
  private server: Server | undefined;
  private sink: InboundSink | undefined;
  private state: AdapterHealth = { state: "stopped" };
  private readonly recent = new RecentIds(RECENT_IDS);
  private readonly rate = new Map<string, { windowStart: number; count: number }>();
  private stopped = false;

  constructor(opts: FeishuAdapterOptions) {
    this.opts = opts;
    this.log = opts.logger.child({ platform: "feishu" });
  }

  private get settings() {
    return this.opts.config.gateway.feishu;
  }

  /** Connects: reads the bot's open_id, then opens the long connection or the webhook listener. */
  async start(sink: InboundSink, hooks?: AdapterHooks): Promise<void> {
    this.hooks = hooks;
    const appId = this.opts.secret("FEISHU_APP_ID");
    const appSecret = this.opts.secret("FEISHU_APP_SECRET");
    if (!appId || !appSecret) {
      throw new AdapterError(
        "feishu",
        "Feishu needs FEISHU_APP_ID and FEISHU_APP_SECRET: put them in <home>/.env or the environment.",
      );
    }
    this.stopped = false;
    this.sink = sink;
    this.state = { state: "starting" };
    const domain = resolveDomain(this.settings.domain);
    const sdkLogger = sdkLoggerFor(this.log, [
      appSecret,
      this.settings.encryptKey,
      this.settings.verificationToken,
    ]);
    this.client = new lark.Client({
      appId,
      appSecret,
      domain,
      cache: new lark.DefaultCache(),
      logger: sdkLogger,
      loggerLevel: lark.LoggerLevel.warn,
    });
    this.botOpenId = await this.fetchBotOpenId();
    const dispatcher = new lark.EventDispatcher({
      encryptKey: this.settings.encryptKey,
      verificationToken: this.settings.verificationToken,
      logger: sdkLogger,
      loggerLevel: lark.LoggerLevel.warn,
    }).register({
      [MESSAGE_EVENT_TYPE]: async (data: Record<string, unknown>) => {
        this.onEvent(data);
      },
      // A submitted card form: its answer (toast and replacement card) is the callback's response.
      "card.action.trigger": async (data: Record<string, unknown>) => this.onCardAction(data),
    });
    if (this.settings.mode === "webhook") await this.startWebhook(dispatcher);
    else await this.startLongConnection({ appId, appSecret, domain, logger: sdkLogger }, dispatcher);
    this.state = {
      state: "connected",
      detail: this.settings.mode === "webhook" ? `webhook ${this.webhookUrl}` : "long connection",
    };
    this.log.info(
      { mode: this.settings.mode ?? "websocket", botOpenId: this.botOpenId },
      "feishu adapter connected",
    );
  }

  /** Closes the long connection or the webhook listener; no message is delivered afterwards. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wsClient?.close({ force: true });
    this.wsClient = undefined;
    const server = this.server;
    this.server = undefined;
    if (server) {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
    this.state = { state: "stopped" };
  }

  /** Current health; the long connection's own state is consulted when in use. */
  health(): AdapterHealth {
    if (this.state.state !== "connected" || !this.wsClient) return this.state;
    const status = this.wsClient.getConnectionStatus();
    if (status.state === "connected") return this.state;
    return {
      state: "degraded",
      detail: `long connection ${status.state} (${status.reconnectAttempts} reconnect attempts)`,
    };
  }

  /**
   * A card callback: a secret form's value goes to the gateway's hook only (never logged here); the chat
   * then gets the hook's answer ("`KEY` set ✓" and the readiness) and the card closes.
   */
  private async onCardAction(data: Record<string, unknown>): Promise<Record<string, unknown>> {
    const submit = readSecretSubmit(data);
    const hooks = this.hooks?.secretInput;
    if (!submit) return {};
    if (!hooks) return secretCardResponse(false, "Private secret entry is not available here.");
    const answer = await hooks.submit(submit.token, submit.operatorOpenId, submit.value);
    const text = answer.blocks
      .map((block) => ("text" in block ? block.text : ""))
      .join("\n")
      .replace(/`/g, "");
    if (answer.exitCode === 0 && submit.chatId) {
      await this.send({ chatId: submit.chatId }, answer).catch((error: unknown) =>
        this.log.warn({ err: describeError(error) }, "feishu: posting a secret confirmation failed"),
      );
    }
    return secretCardResponse(answer.exitCode === 0, text);
  }

  /**
   * Sends a reply, rendered as posts and chunked; a rejected post part is re-sent as plain text. Offered
   * secret inputs follow as one card form each.
   */
  async send(target: OutboundTarget, reply: Reply, inReplyTo?: InboundMessage): Promise<void> {
    await this.sendRendered(target, reply, inReplyTo);
    for (const offer of reply.secretInputs ?? []) {
      await this.sendPayload(target, secretCard(offer), undefined, Boolean(target.threadId));
    }
  }

  private async sendRendered(
    target: OutboundTarget,
    reply: Reply,
    inReplyTo?: InboundMessage,
  ): Promise<void> {
    const payloads = renderReply(reply);
    let replyTo = replyTargetId(target, inReplyTo);
    const inThread = Boolean(target.threadId);
    for (const [index, payload] of payloads.entries()) {
      const anchor = index === 0 || inThread ? replyTo : undefined;
      const sentAs = await this.sendWithFallback(target, payload, anchor, inThread);
      // Inside a topic the anchor is the only way in: without it the rest would open a top-level post.
      if (sentAs === "gone" && inThread) return;
      if (sentAs === "gone") replyTo = undefined;
    }
  }

  private async sendWithFallback(
    target: OutboundTarget,
    payload: FeishuPayload,
    replyTo: string | undefined,
    inThread: boolean,
  ): Promise<"sent" | "gone"> {
    try {
      return await this.sendPayload(target, payload, replyTo, inThread);
    } catch (error) {
      if (payload.msg_type !== "post" || !isContentRejection(error)) throw error;
      this.log.warn(
        { code: feishuErrorCode(error) },
        "feishu rejected a post message; sending it as plain text",
      );
      let result: "sent" | "gone" = "sent";
      for (const textPayload of postToTextPayloads(payload)) {
        const anchor = result === "gone" ? undefined : replyTo;
        if ((await this.sendPayload(target, textPayload, anchor, inThread)) === "gone") {
          result = "gone";
          if (inThread) break;
        }
      }
      return result;
    }
  }

  /** One API call; a withdrawn reply target falls back to a new chat message (never outside a thread). */
  private async sendPayload(
    target: OutboundTarget,
    payload: FeishuPayload,
    replyTo: string | undefined,
    inThread: boolean,
  ): Promise<"sent" | "gone"> {
    const client = this.requireClient();
    if (replyTo) {
      try {
        checkResponse(
          await client.im.message.reply({
            path: { message_id: replyTo },
            data: {
              msg_type: payload.msg_type,
              content: payload.content,
              reply_in_thread: inThread || undefined,
            },
          }),
        );
        return "sent";
      } catch (error) {
        const code = feishuErrorCode(error);
        if (code === undefined || !GONE_MESSAGE_CODES.has(code)) throw error;
        if (inThread) {
          this.log.warn(
            { code },
            "feishu reply target is gone inside a thread; not posting at the top level",
          );
          return "gone";
        }
        this.log.info({ code }, "feishu reply target is gone; posting to the chat instead");
      }
    }
    checkResponse(
      await client.im.message.create({
        params: { receive_id_type: receiveIdType(target.chatId) },
        data: { receive_id: target.chatId, msg_type: payload.msg_type, content: payload.content },
      }),
    );
    return replyTo ? "gone" : "sent";
  }

  private requireClient(): lark.Client {
    if (!this.client)
      throw new AdapterError("feishu", "The Feishu adapter is not started; call start() before sending.");
    return this.client;
  }

  /** Reads the bot's own open_id, needed to tell whether a group message mentions the bot. */
  private async fetchBotOpenId(): Promise<string> {
    let response: unknown;
    try {
      response = await this.requireClient().request({ method: "GET", url: "/open-apis/bot/v3/info" });
    } catch (error) {
      throw new AdapterError(
        "feishu",
        `Could not read the Feishu bot's identity (bot/v3/info): ${describeError(error)}. Check FEISHU_APP_ID, FEISHU_APP_SECRET and gateway.feishu.domain, and that the app has the bot capability enabled.`,
        { cause: error },
      );
    }
    const body = response as { code?: number; msg?: string; bot?: { open_id?: string } };
    if (body.code !== 0 || !body.bot?.open_id) {
      throw new AdapterError(
        "feishu",
        `Feishu bot/v3/info answered code ${body.code ?? "?"} (${body.msg ?? "no message"}): enable the bot capability of the app and check its credentials.`,
      );
    }
    return body.bot.open_id;
  }

  /** Handles one dispatched event synchronously (the ack goes out right after); delivery is not awaited. */
  private onEvent(data: Record<string, unknown>): void {
    if (this.stopped) return;
    const envelope = envelopeFromDispatcher(data);
    const message = normalizeEvent(envelope, this.botOpenId);
    if (!message) return;
    const messageId = envelope.event?.message?.message_id;
    const keys = [`event:${message.eventId}`, ...(messageId ? [`message:${messageId}`] : [])];
    if (keys.some((key) => this.recent.has(key))) {
      this.log.debug({ eventId: message.eventId }, "feishu redelivery dropped");
      return;
    }
    for (const key of keys) this.recent.add(key);
    void this.deliver(message, keys);
  }

  private async deliver(message: InboundMessage, keys: string[]): Promise<void> {
    try {
      await this.sink?.(message);
    } catch (error) {
      for (const key of keys) this.recent.delete(key);
      this.log.error(
        { eventId: message.eventId, err: describeError(error) },
        "feishu message could not be queued",
      );
    }
  }

  private async startLongConnection(
    params: { appId: string; appSecret: string; domain: lark.Domain | string; logger: lark.Logger },
    dispatcher: lark.EventDispatcher,
  ): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(
          new AdapterError(
            "feishu",
            `The Feishu long connection did not open within ${CONNECT_TIMEOUT_MS / 1000} s. Check gateway.feishu.domain and that the app uses "receive events through persistent connection".`,
          ),
        );
      }, CONNECT_TIMEOUT_MS);
      const fail = (error: Error) => {
        clearTimeout(timer);
        reject(
          new AdapterError("feishu", `The Feishu long connection failed: ${error.message}`, { cause: error }),
        );
      };
      if (!/^cli_[0-9a-fA-F]{16}$/.test(params.appId)) {
        fail(new Error("FEISHU_APP_ID must look like cli_ followed by 16 hex digits"));
        return;
      }
      this.wsClient = new lark.WSClient({
        ...params,
        loggerLevel: lark.LoggerLevel.warn,
        autoReconnect: true,
        onReady: () => {
          clearTimeout(timer);
          resolve();
        },
        onError: fail,
        onReconnecting: () => this.log.warn("feishu long connection lost; reconnecting"),
        onReconnected: () => this.log.info("feishu long connection restored"),
      });
      this.wsClient.start({ eventDispatcher: dispatcher }).catch(fail);
    }).catch((error: unknown) => {
      this.wsClient?.close({ force: true });
      this.wsClient = undefined;
      throw error;
    });
  }

  private async startWebhook(dispatcher: lark.EventDispatcher): Promise<void> {
    const { verificationToken, encryptKey } = this.settings;
    if (!verificationToken && !encryptKey) {
      throw new ConfigError(
        "gateway.feishu.verification_token",
        "Feishu webhook mode needs gateway.feishu.verification_token (and preferably encrypt_key) so forged events can be rejected; copy them from the app's Events & Callbacks page.",
      );
    }
    const path = normalizePath(this.settings.webhook.path ?? "/feishu/webhook");
    const sdkHandler = lark.adaptDefault(path, dispatcher, { autoChallenge: true });
    const server = createServer((req, res) => {
      this.handleWebhook(req, res, path, sdkHandler).catch((error: unknown) => {
        this.log.error({ err: describeError(error) }, "feishu webhook request failed");
        if (!res.headersSent) respond(res, 500, "internal error");
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", (error) =>
        reject(
          new AdapterError(
            "feishu",
            `Could not listen for Feishu webhooks on port ${this.settings.webhook.port ?? 0}: ${error.message}`,
            { cause: error },
          ),
        ),
      );
      server.listen(this.settings.webhook.port ?? 0, "127.0.0.1", () => resolve());
    });
    this.server = server;
    const { port } = server.address() as AddressInfo;
    this.webhookUrl = `http://127.0.0.1:${port}${path}`;
  }

  /** Checks a webhook request (path, size, rate, signature, token), then hands it to the SDK. */
  private async handleWebhook(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    sdkHandler: (req: unknown, res: unknown) => Promise<void>,
  ): Promise<void> {
    if (new URL(req.url ?? "/", "http://localhost").pathname !== path) return respond(res, 404, "not found");
    if (req.method !== "POST") return respond(res, 405, "POST only");
    if (!this.admitRate(req.socket.remoteAddress ?? "?")) return respond(res, 429, "too many requests");
    const raw = await readBody(req, MAX_WEBHOOK_BODY);
    if (raw === null) return respond(res, 413, "body too large");
    const verdict = verifyWebhook(
      raw,
      req.headers,
      this.settings.encryptKey,
      this.settings.verificationToken,
    );
    if (!verdict.ok) {
      this.log.warn({ status: verdict.status, reason: verdict.reason }, "feishu webhook request rejected");
      return respond(res, verdict.status, verdict.reason);
    }
    // Hand the SDK a canonical request: compact JSON, re-signed, so its own checks agree with ours.
    const body = JSON.stringify(verdict.body);
    const headers = { ...req.headers, ...signatureHeaders(body, this.settings.encryptKey) };
    const forwarded = Object.assign(Readable.from([Buffer.from(body)]), {
      url: path,
      headers,
      method: "POST",
    });
    await sdkHandler(forwarded, res);
  }

  private admitRate(ip: string): boolean {
    const now = Date.now();
    const entry = this.rate.get(ip);
    if (!entry || now - entry.windowStart >= 60_000) {
      if (this.rate.size > 10_000) this.rate.clear();
      this.rate.set(ip, { windowStart: now, count: 1 });
      return true;
    }
    entry.count += 1;
    return entry.count <= WEBHOOK_RATE_PER_MINUTE;
  }
}

/** The platform message id to reply to: the triggering message, else the target's `replyTo`. */
function replyTargetId(target: OutboundTarget, inReplyTo: InboundMessage | undefined): string | undefined {
  const fromEvent = inReplyTo?.platform === "feishu" ? inReplyTo.messageId : undefined;
  if (fromEvent) return fromEvent;
  return target.replyTo?.startsWith("om_") ? target.replyTo : undefined;
}

/** The id type of a receive id: `ou_` open_id, `on_` union_id, otherwise a chat id. */
export function receiveIdType(id: string): "open_id" | "union_id" | "chat_id" {
  if (id.startsWith("ou_")) return "open_id";
  if (id.startsWith("on_")) return "union_id";
  return "chat_id";
}

/** A bounded set of recently seen ids (oldest forgotten first). */
class RecentIds {
  private readonly ids = new Set<string>();
  constructor(private readonly capacity: number) {}
  has(id: string): boolean {
    return this.ids.has(id);
  }
  add(id: string): void {
    this.ids.add(id);
    trimOldest(this.ids, this.capacity);
  }
  delete(id: string): void {
    this.ids.delete(id);
  }
}
