/**
 * The Feishu/Lark adapter: a thin network shell (official `@larksuiteoapi/node-sdk`) around the pure
 * `normalizeEvent` and `renderReply`.
 *
 * - Inbound: the long connection (`WSClient`) by default, or webhook mode (`EventDispatcher` behind
 *   `adaptDefault` with `autoChallenge`) on `gateway.feishu.webhook.{port,path}` (bound to 127.0.0.1;
 *   put a reverse proxy in front). In webhook mode we check what the SDK does not: the verification
 *   token (constant-time, 401 on mismatch, also for `url_verification`), the signature when an
 *   `encrypt_key` is set (401), body size (413, enforced while reading) and a rate limit of failed
 *   verifications per client (429; `gateway.trusted_proxies` names the proxies whose
 *   `X-Forwarded-For` is believed).
 * - Every event is acknowledged at once; the message goes to the gateway's queue without being awaited
 *   (Feishu redelivers when the ack takes over 3 s). Redeliveries are dropped here for the recent past
 *   and by the gateway's persistent dedupe (keyed by event id) across restarts.
 * - Outbound: `im.message.reply` to the triggering message (first part; all parts inside a thread) or
 *   `im.message.create` to a chat; each part as a post, re-sent as plain text when the API rejects it.
 *   A send refused by frequency control (HTTP 429 / code 99991400, or 230020 for a busy chat) is
 *   retried after `x-ogw-ratelimit-reset` seconds (or a short backoff), so a long reply arrives whole.
 * - Files (the reply budget's file part): uploaded first through `im/v1/files` (needs `im:resource`),
 *   then sent as a `file` message after the text. An upload Feishu refuses (over 30 MB, empty, no scope)
 *   raises `FileRefusedError` before anything of the reply went out, so the gateway sends it cut instead.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import * as lark from "@larksuiteoapi/node-sdk";
import { trimOldest } from "../../src/core/bounded.js";
import { AdapterError, ConfigError, FileRefusedError } from "../../src/core/errors.js";
import {
  clientAddress,
  FailureRateLimiter,
  readBodyLimited,
  refuseTooLarge,
} from "../../src/core/http-guard.js";
import type { Logger } from "../../src/core/logger.js";
import type {
  Adapter,
  AdapterCapabilities,
  AdapterHealth,
  AdapterHooks,
  InboundMessage,
  InboundSink,
  OutboundTarget,
  SecretInputOpening,
} from "../../src/core/message.js";
import type { AdapterOptions } from "../../src/core/platforms.js";
import type { Reply } from "../../src/core/reply.js";
import { connectWithRetries } from "../../src/core/startup.js";
import { CARD_ACTION_EVENT_TYPE, hasButtons, normalizeCardAction, renderCard } from "./actions.js";
import { checkResponse, describeError, feishuErrorCode, isContentRejection } from "./api-errors.js";
import { feishuConfig } from "./config.js";
import { envelopeFromDispatcher, MESSAGE_EVENT_TYPE, normalizeEvent } from "./normalize.js";
import {
  FEISHU_MAX_CHARS,
  type FeishuPayload,
  type FeishuUpload,
  fileMessage,
  postToTextPayloads,
  renderReply,
  renderText,
  splitUploads,
} from "./render.js";
import { sdkLoggerFor } from "./sdk-logger.js";
import { readSecretSubmit, type SecretFormSubmit, secretCard, secretCardResponse } from "./secret-input.js";
import { normalizePath, respond, signatureHeaders, verifyWebhook } from "./webhook.js";

/** What the Feishu adapter factory receives: the shared `AdapterOptions`, plus timings tests shorten. */
export interface FeishuAdapterOptions extends AdapterOptions {
  tuning?: Partial<FeishuTuning>;
}

/** Retry timings of the Feishu adapter. */
export interface FeishuTuning {
  /** Length of one second of `x-ogw-ratelimit-reset` (ms): 1000, shortened in tests. */
  secondMs: number;
  /** Wait before retrying a throttled send without a reset header (ms); doubles per attempt. */
  throttleBaseMs: number;
  /** Attempts per send under frequency control. */
  maxThrottleAttempts: number;
  /** Longest wait for one retry (ms); a longer reset fails the send. */
  maxThrottleWaitMs: number;
  /**
   * How long a card callback may take before it is answered empty (ms): Feishu fails a callback not
   * answered within 3 s, so what the press says is then posted to the chat instead.
   */
  callbackDeadlineMs: number;
  /** Shortest gap between two updates of one card (ms): Feishu allows 5 updates a second per message. */
  cardUpdateGapMs: number;
}

const DEFAULT_TUNING: FeishuTuning = {
  secondMs: 1000,
  throttleBaseMs: 500,
  maxThrottleAttempts: 5,
  maxThrottleWaitMs: 60_000,
  callbackDeadlineMs: 2_500,
  cardUpdateGapMs: 200,
};

/** Frequency-control codes: the platform-wide limit (99991400) and a chat's 5 messages a second (230020). */
const THROTTLE_CODES = new Set([99991400, 230020]);

/** Feishu's capabilities: no native command menu; messages can be edited and threaded. */
export const FEISHU_CAPABILITIES: AdapterCapabilities = {
  maxMessageLength: FEISHU_MAX_CHARS,
  nativeCommands: false,
  edit: true,
  threads: true,
  buttons: true,
  files: true,
  privateInput: "form",
};

/** Attempts of the first connection (bot/v3/info) before the adapter reports `failed`. */
const START_ATTEMPTS = 3;
/** Largest webhook body accepted (bytes). */
const MAX_WEBHOOK_BODY = 1024 * 1024;
/** Failed webhook verifications answered with 401 per client per minute; more get 429. */
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
  private readonly tuning: FeishuTuning;
  private readonly log: Logger;
  private client: lark.Client | undefined;
  private wsClient: lark.WSClient | undefined;
  private hooks: AdapterHooks | undefined;
  private server: Server | undefined;
  private sink: InboundSink | undefined;
  private state: AdapterHealth = { state: "stopped" };
  private readonly recent = new RecentIds(RECENT_IDS);
  private readonly failures = new FailureRateLimiter(WEBHOOK_RATE_PER_MINUTE);
  private stopped = false;
  /** Card presses being judged: a private refusal for one is answered as the callback's toast. */
  private readonly toasts = new Map<string, string | undefined>();
  /** Per card: the last update's turn (updates of one card go one after another) and when it went out. */
  private readonly cardUpdates = new Map<string, { turn: Promise<unknown>; at: number }>();

  constructor(opts: FeishuAdapterOptions) {
    this.opts = opts;
    this.tuning = { ...DEFAULT_TUNING, ...opts.tuning };
    this.log = opts.logger.child({ platform: "feishu" });
  }

  private get settings() {
    return feishuConfig(this.opts.config);
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
    this.botOpenId = await connectWithRetries({
      platform: "feishu",
      attempts: START_ATTEMPTS,
      baseDelayMs: 1_000,
      maxDelayMs: 30_000,
      logger: this.log,
      onState: (detail) => {
        this.state = { state: "starting", detail };
      },
      // An answer with an error code is the app's configuration, not the network: no retry helps.
      fatal: (error) => error instanceof AdapterError && error.cause === undefined,
      attempt: () => this.fetchBotOpenId(),
    }).catch((error: unknown) => {
      this.state = { state: "failed", detail: (error as Error).message };
      throw error;
    });
    const dispatcher = new lark.EventDispatcher({
      encryptKey: this.settings.encryptKey,
      verificationToken: this.settings.verificationToken,
      logger: sdkLogger,
      loggerLevel: lark.LoggerLevel.warn,
    }).register({
      [MESSAGE_EVENT_TYPE]: async (data: Record<string, unknown>) => {
        this.onEvent(data);
      },
      [CARD_ACTION_EVENT_TYPE]: (data: Record<string, unknown>) => this.onCardAction(data),
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
   * Sends a reply, rendered as posts and chunked (a rejected post part is re-sent as plain text), or as
   * a card; its file parts are uploaded before anything is sent and follow the text as file messages.
   */
  async send(target: OutboundTarget, reply: Reply, inReplyTo?: InboundMessage): Promise<void> {
    if (reply.private && inReplyTo?.press && this.toasts.has(inReplyTo.eventId)) {
      this.toasts.set(inReplyTo.eventId, toastText(reply));
      return;
    }
    const { text, uploads } = splitUploads(reply);
    const fileKeys: string[] = [];
    for (const upload of uploads) fileKeys.push(await this.upload(upload));
    const withText = text.blocks.length > 0 || uploads.length === 0;
    if (withText) await this.sendText(target, text, inReplyTo);
    const inThread = Boolean(target.threadId);
    for (const fileKey of fileKeys) {
      // Like the parts of a long reply: the first message answers the user's, the rest follow in the chat.
      const anchor = !withText || inThread ? replyTargetId(target, inReplyTo) : undefined;
      await this.sendWithFallback(target, fileMessage(fileKey), anchor, inThread);
    }
  }

  /** Measures a reply as it goes out: its text messages, plus one message per file. */
  measure(reply: Reply): number {
    const { text, uploads } = splitUploads(reply);
    const withText = text.blocks.length > 0 || uploads.length === 0;
    return (withText ? renderReply(text).length : 0) + uploads.length;
  }

  /**
   * Uploads one file (`POST im/v1/files`, multipart) and returns its `file_key`. Any failure (over
   * 30 MB, empty, the app lacks `im:resource`) is a `FileRefusedError`: nothing of the reply was sent.
   */
  private async upload(upload: FeishuUpload): Promise<string> {
    const client = this.requireClient();
    let fileKey: string | undefined;
    try {
      await this.throttled(async () => {
        const answer = await client.im.file.create({
          data: { file_type: upload.file_type, file_name: upload.file_name, file: upload.data },
        });
        fileKey = answer?.file_key;
      });
    } catch (error) {
      throw new FileRefusedError(
        "feishu",
        upload.file_name,
        `Feishu did not take the file ${upload.file_name} (${upload.data.length.toLocaleString("en-US")} bytes): ${describeError(error)}. Uploads need the im:resource permission and at most 30 MB.`,
        { cause: error },
      );
    }
    if (!fileKey)
      throw new FileRefusedError(
        "feishu",
        upload.file_name,
        `Feishu answered the upload of ${upload.file_name} without a file_key.`,
      );
    return fileKey;
  }

  private async sendText(target: OutboundTarget, reply: Reply, inReplyTo?: InboundMessage): Promise<void> {
    const wantsCard = hasButtons(reply) || reply.layout === "card" || target.editMessageId !== undefined;
    const card = wantsCard ? renderCard(reply) : undefined;
    if (card && target.editMessageId && (await this.patchCard(target.editMessageId, card))) return;
    if (card) {
      await this.sendWithFallback(target, card, replyTargetId(target, inReplyTo), Boolean(target.threadId));
      return;
    }
    if (target.editMessageId) {
      // Too large for a card: the card it was to replace ("⏳ Running…", or a page) points to the posts.
      const pointer = renderCard({
        blocks: [{ kind: "paragraph", text: "✓ Done — the result is below (too long for a card)." }],
        exitCode: reply.exitCode,
      });
      if (pointer) await this.patchCard(target.editMessageId, pointer);
    }
    await this.sendPosts(target, reply, inReplyTo);
    if (hasButtons(reply)) {
      // Too large for one card: the text went as posts; the buttons follow on a small card of their own.
      const buttonsOnly = renderCard({ ...reply, blocks: [{ kind: "paragraph", text: "Choose:" }] });
      if (buttonsOnly) await this.sendWithFallback(target, buttonsOnly, undefined, Boolean(target.threadId));
    }
  }

  /**
   * The "running…" notice of slow work, as a card: only interactive messages can be updated
   * (`PATCH /im/v1/messages/:message_id`), so the result can replace it. It replaces the pressed card
   * when there is one, else goes as a reply to the command; the id of the card to replace comes back.
   */
  async acknowledge(
    target: OutboundTarget,
    notice: Reply,
    inReplyTo?: InboundMessage,
  ): Promise<string | undefined> {
    const card = renderCard({ ...notice, layout: "card" });
    if (!card) return undefined;
    if (target.editMessageId)
      return (await this.patchCard(target.editMessageId, card)) ? target.editMessageId : undefined;
    const client = this.requireClient();
    const replyTo = replyTargetId(target, inReplyTo);
    const data = { msg_type: card.msg_type, content: card.content };
    const response = replyTo
      ? await client.im.message.reply({
          path: { message_id: replyTo },
          data: { ...data, reply_in_thread: Boolean(target.threadId) || undefined },
        })
      : await client.im.message.create({
          params: { receive_id_type: receiveIdType(target.chatId) },
          data: { receive_id: target.chatId, ...data },
        });
    checkResponse(response);
    return response.data?.message_id;
  }

  /**
   * Replaces a card the bot sent (`PATCH /im/v1/messages/:id`, interactive messages only, both cards
   * shared). False when Feishu refuses (too old, withdrawn, not a card): the caller sends anew.
   */
  private async patchCard(messageId: string, card: FeishuPayload): Promise<boolean> {
    // Feishu allows 5 updates a second per message: updates of one card wait their turn and keep the gap,
    // and one refused by frequency control is retried, never replaced by a second card.
    const previous = this.cardUpdates.get(messageId);
    const turn = (previous?.turn ?? Promise.resolve()).then(async () => {
      const since = Date.now() - (this.cardUpdates.get(messageId)?.at ?? 0);
      if (since < this.tuning.cardUpdateGapMs)
        await new Promise((resolve) => setTimeout(resolve, this.tuning.cardUpdateGapMs - since));
      try {
        await this.throttled(async () =>
          checkResponse(
            await this.requireClient().im.message.patch({
              path: { message_id: messageId },
              data: { content: card.content },
            }),
          ),
        );
        return true;
      } catch (error) {
        this.log.warn(
          { err: describeError(error) },
          "feishu could not update the card; sending a new message",
        );
        return false;
      } finally {
        const entry = this.cardUpdates.get(messageId);
        if (entry) entry.at = Date.now();
      }
    });
    this.cardUpdates.set(messageId, { turn, at: previous?.at ?? 0 });
    trimOldest(this.cardUpdates, RECENT_IDS);
    return turn;
  }

  /**
   * A card button press (`card.action.trigger`): handed to the gateway, which judges it before the
   * sink resolves; the callback must be answered within 3 s, with a toast only the presser sees when
   * the press was refused, else with nothing (the card is then updated through the API).
   */
  private async onCardAction(data: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (this.stopped) return {};
    const work = this.answerCardAction(data);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.tuning.callbackDeadlineMs);
    });
    const answer = await Promise.race([work, late]);
    clearTimeout(timer);
    if (answer !== undefined) return answer;
    // Feishu fails a callback not answered within 3 s: it is answered empty now, and what the press has to
    // say (a refusal, "a form was posted") goes to the chat when it is known.
    void work.then(
      (later) => this.postLateToast(data, later),
      (error: unknown) => this.log.warn({ err: describeError(error) }, "feishu: a late card press failed"),
    );
    return {};
  }

  /** A callback's toast that came after the callback was answered, posted to the press's chat instead. */
  private async postLateToast(data: Record<string, unknown>, answer: Record<string, unknown>): Promise<void> {
    const toast = answer.toast as { type?: string; content?: string } | undefined;
    const chatId = (data.context as { open_chat_id?: unknown } | undefined)?.open_chat_id;
    if (!toast?.content || toast.type === "success" || typeof chatId !== "string") return;
    await this.send({ chatId }, { blocks: [{ kind: "paragraph", text: toast.content }], exitCode: 0 }).catch(
      (error: unknown) =>
        this.log.warn({ err: describeError(error) }, "feishu: posting a late answer failed"),
    );
  }

  /** The answer to a card callback (see `onCardAction`, which bounds how long it may take). */
  private async answerCardAction(data: Record<string, unknown>): Promise<Record<string, unknown>> {
    const submit = readSecretSubmit(data);
    if (submit) return this.onSecretSubmit(submit);
    const message = normalizeCardAction(data);
    if (!message) return {};
    const key = `event:${message.eventId}`;
    if (this.recent.has(key)) return {};
    this.recent.add(key);
    // A "Set KEY" button posts a card form for the presser (the value goes from the form to the bot only).
    const opened = (await this.hooks?.secretInput?.open(message)) ?? null;
    if (opened !== null) return this.postSecretForm(message, opened);
    this.toasts.set(message.eventId, undefined);
    try {
      await this.sink?.(message);
    } catch (error) {
      this.recent.delete(key);
      this.log.error(
        { eventId: message.eventId, err: describeError(error) },
        "feishu press could not be queued",
      );
    }
    const toast = this.toasts.get(message.eventId);
    this.toasts.delete(message.eventId);
    return toast ? { toast: { type: "error", content: toast } } : {};
  }

  /** Posts the card form a "Set KEY" press opened (or answers the presser's refusal with a toast). */
  private async postSecretForm(
    press: InboundMessage,
    opened: SecretInputOpening | { refused: string },
  ): Promise<Record<string, unknown>> {
    if ("refused" in opened) return { toast: { type: "error", content: opened.refused.slice(0, 200) } };
    try {
      await this.sendPayload(
        { chatId: press.chat.id, threadId: press.chat.threadId },
        secretCard(opened),
        undefined,
        Boolean(press.chat.threadId),
      );
    } catch (error) {
      this.log.warn({ err: describeError(error) }, "feishu: posting a secret form failed");
      return { toast: { type: "error", content: "The form could not be posted; try again." } };
    }
    return {
      toast: { type: "info", content: `A form to set ${opened.key} was posted; only you can use it.` },
    };
  }

  /**
   * A submitted secret form: the value goes to the gateway's hook only (never logged here); the chat
   * then gets the hook's answer ("`KEY` set ✓" and the readiness) and the form card closes.
   */
  private async onSecretSubmit(submit: SecretFormSubmit): Promise<Record<string, unknown>> {
    const hooks = this.hooks?.secretInput;
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

  private async sendPosts(target: OutboundTarget, reply: Reply, inReplyTo?: InboundMessage): Promise<void> {
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
        await this.throttled(async () =>
          checkResponse(
            await client.im.message.reply({
              path: { message_id: replyTo },
              data: {
                msg_type: payload.msg_type,
                content: payload.content,
                reply_in_thread: inThread || undefined,
              },
            }),
          ),
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
    await this.throttled(async () =>
      checkResponse(
        await client.im.message.create({
          params: { receive_id_type: receiveIdType(target.chatId) },
          data: { receive_id: target.chatId, msg_type: payload.msg_type, content: payload.content },
        }),
      ),
    );
    return replyTo ? "gone" : "sent";
  }

  /**
   * Runs one send, waiting out frequency control: `x-ogw-ratelimit-reset` seconds when the answer
   * carries it, else a doubling backoff, up to `maxThrottleAttempts`.
   */
  private async throttled(send: () => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await send();
        return;
      } catch (error) {
        const code = feishuErrorCode(error);
        const status = (error as { response?: { status?: unknown } })?.response?.status;
        const throttled = (code !== undefined && THROTTLE_CODES.has(code)) || status === 429;
        if (!throttled || this.stopped) throw error;
        if (attempt >= this.tuning.maxThrottleAttempts)
          throw new AdapterError(
            "feishu",
            `Feishu frequency control refused the message ${attempt} times (code ${code ?? status}); it was not sent. Fewer or shorter replies help; the limit is 5 messages a second per chat.`,
            { cause: error, code: "adapter.feishu.throttled" },
          );
        const reset = Number(
          (error as { response?: { headers?: Record<string, unknown> } })?.response?.headers?.[
            "x-ogw-ratelimit-reset"
          ],
        );
        const wait =
          Number.isFinite(reset) && reset >= 0
            ? reset * this.tuning.secondMs
            : this.tuning.throttleBaseMs * 2 ** (attempt - 1);
        if (wait > this.tuning.maxThrottleWaitMs) throw error;
        this.log.warn({ code, attempt, waitMs: wait }, "feishu frequency control: waiting before resending");
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
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
      // The SDK's long-connection client refuses app ids it does not recognise by logging
      // "invalid appId" and returning; turn that into a prompt failure that names the way out.
      const logger: lark.Logger = {
        ...params.logger,
        error: (...args: unknown[]) => {
          // The SDK's logger proxy hands over its arguments as one array.
          if (args.flat(2).some((arg) => typeof arg === "string" && /invalid appId/i.test(arg)))
            fail(
              new Error(
                `the Lark SDK's long-connection client does not accept FEISHU_APP_ID "${params.appId}". Check the App ID on the app's Credentials page; if it is right, receive events by webhook instead (gateway.feishu.mode: webhook)`,
              ),
            );
          params.logger.error(...args);
        },
      };
      this.wsClient = new lark.WSClient({
        ...params,
        logger,
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
    const bytes = await readBodyLimited(req, MAX_WEBHOOK_BODY);
    if (bytes === "too-large") return refuseTooLarge(req, res, MAX_WEBHOOK_BODY);
    if (bytes === "aborted") return;
    const verdict = verifyWebhook(
      bytes.toString("utf8"),
      req.headers,
      this.settings.encryptKey,
      this.settings.verificationToken,
    );
    if (!verdict.ok) {
      // Only failures are rate limited, per client (behind a trusted proxy: the forwarded address), so
      // junk can never crowd out a correctly signed event.
      const client = clientAddress(req, this.opts.config.gateway.trustedProxies);
      const limited = this.failures.failed(client);
      this.log.warn(
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
    const headers = { ...req.headers, ...signatureHeaders(body, this.settings.encryptKey) };
    const forwarded = Object.assign(Readable.from([Buffer.from(body)]), {
      url: path,
      headers,
      method: "POST",
    });
    await sdkHandler(forwarded, res);
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

/** A private reply as a card-callback toast: its plain text, on one short line. */
function toastText(reply: Reply): string {
  const text = renderText(reply)
    .map((payload) => String((JSON.parse(payload.content) as { text?: string }).text ?? ""))
    .join(" ")
    .replace(/`/g, "")
    .replace(/\s+/g, " ")
    .trim();
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}
