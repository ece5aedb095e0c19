/**
 * The Telegram adapter: a thin network shell (grammy) around the pure `normalizeUpdate`, `renderReply`
 * and `buildCommandMenu`.
 *
 * - Inbound, polling (default): our own `getUpdates` loop over grammy's API client, so the offset is
 *   ours: the next offset is persisted in `<home>/gateway/telegram-offset.json` after each batch and
 *   passed to `getUpdates` on restart, which confirms what was handled (nothing replayed) and fetches
 *   what arrived while we were down (nothing lost). A 409 conflict (another poller on this token) puts
 *   health in `degraded` naming the conflict and is retried with exponential backoff.
 * - Inbound, webhook: grammy's `webhookCallback(bot, "http")` with `secret_token` on
 *   `gateway.telegram.webhook.port` (127.0.0.1; put a TLS reverse proxy in front) at
 *   `gateway.telegram.webhook.path` (default: the path of the public URL), registered with `setWebhook`
 *   and `max_connections: 1` so Telegram sends one update at a time, in order; requests are also
 *   handled one at a time here.
 * - Both run updates through `bot.handleUpdate`, one at a time in order, into the gateway's sink.
 * - Outbound: HTML chunks of ≤ 4096 UTF-16 units; a chunk Telegram cannot parse is re-sent as plain
 *   text; 429 `retry_after` is waited out; replies in a forum topic carry `message_thread_id`.
 * - One process per bot token and home: a lock file refuses a second gateway polling the same bot.
 */
import { timingSafeEqual } from "node:crypto";
import { promises as fs } from "node:fs";
import http from "node:http";
import path from "node:path";
import { Readable } from "node:stream";
import { Bot, GrammyError, HttpError, InputFile, webhookCallback } from "grammy";
import type { InlineKeyboardMarkup, Update } from "grammy/types";
import { AdapterError, ConfigError, FileRefusedError } from "../../src/core/errors.js";
import { acquireLock, atomicWriteFile, type HeldLock, LockBusyError } from "../../src/core/fsutil.js";
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
  CommandCatalogEntry,
  InboundMessage,
  InboundSink,
  OutboundTarget,
  SecretInputOpening,
} from "../../src/core/message.js";
import type { AdapterOptions } from "../../src/core/platforms.js";
import type { Reply, ReplyBlock } from "../../src/core/reply.js";
import { connectWithRetries } from "../../src/core/startup.js";
import { callbackNotice, inlineKeyboard } from "./actions.js";
import { telegramConfig } from "./config.js";
import { leanFetch } from "./fetch.js";
import {
  buildCommandMenu,
  fallbackMenus,
  type MenuCommand,
  type MenuLanguage,
  menuLanguages,
} from "./menu.js";
import { normalizeUpdate } from "./normalize.js";
import { htmlToPlain, renderReply, TELEGRAM_MAX_LENGTH, type TelegramChunk } from "./render.js";

/** The common adapter options, plus timings that tests shorten. */
export interface TelegramAdapterOptions extends AdapterOptions {
  tuning?: Partial<TelegramTuning>;
}

/** Timings and retry limits. */
export interface TelegramTuning {
  /** Long-poll timeout passed to getUpdates (s). */
  pollTimeoutSeconds: number;
  /** First delay after a 409 conflict (ms); doubles on each further conflict. */
  conflictBaseMs: number;
  /** Longest delay between conflict or network retries (ms). */
  maxBackoffMs: number;
  /** First delay after a network error (ms); doubles. */
  networkBaseMs: number;
  /** Least time between two writes of the update offset (ms). */
  offsetFlushMs: number;
  /** Attempts per API call (429 waits and network retries included). */
  maxAttempts: number;
  /** A `retry_after` above this many seconds is not waited out; the call fails instead. */
  maxRetryAfterSeconds: number;
  /** Attempts of the first connection (`getMe`) before the adapter gives up and reports `failed`. */
  startAttempts: number;
  /** How long one connection attempt may take (ms). */
  connectTimeoutMs: number;
}

const DEFAULT_TUNING: TelegramTuning = {
  pollTimeoutSeconds: 30,
  conflictBaseMs: 5_000,
  maxBackoffMs: 120_000,
  networkBaseMs: 1_000,
  offsetFlushMs: 250,
  maxAttempts: 5,
  maxRetryAfterSeconds: 300,
  startAttempts: 5,
  connectTimeoutMs: 15_000,
};

/** Telegram's capabilities. */
export const TELEGRAM_CAPABILITIES: AdapterCapabilities = {
  maxMessageLength: TELEGRAM_MAX_LENGTH,
  nativeCommands: true,
  edit: true,
  threads: true,
  buttons: true,
  files: true,
  privateInput: "link",
};

/** Largest webhook body read (bytes): an update is a few KB; Telegram's own limits keep it far below. */
const MAX_WEBHOOK_BODY = 1024 * 1024;

/** Wrong-secret webhook requests answered with 401 per client per minute; more get 429. */
const WEBHOOK_FAILURES_PER_MINUTE = 120;

/** Constant-time comparison of two secrets. */
function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Update types requested: messages and presses of our inline buttons; edits and the rest are not fetched. */
const ALLOWED_UPDATES = ["message", "callback_query"] as const;

/** An offset older than this is not reused: Telegram may restart update ids after a week of silence. */
const OFFSET_MAX_AGE_MS = 6 * 24 * 60 * 60 * 1000;

/** Builds the Telegram adapter; throws `AdapterError` when `TELEGRAM_BOT_TOKEN` is missing. */
export function createTelegramAdapter(options: TelegramAdapterOptions): Adapter {
  return new TelegramAdapter(options);
}

interface PersistedOffset {
  bot_id: number;
  offset: number;
  saved_at: string;
}

/**
 * The HTML chunks of a reply's text blocks (none when it only carries files), kept per blocks array
 * while that array lives: the gateway measures a reply against its budget and then sends the same
 * reply, and rendering a long one twice was a tenth of the gateway's CPU per command. A blocks array is
 * not changed once a reply is built; the length check guards against one that is.
 */
const renderedText = new WeakMap<ReplyBlock[], { length: number; chunks: readonly TelegramChunk[] }>();

function textChunks(reply: Reply): readonly TelegramChunk[] {
  const cached = renderedText.get(reply.blocks);
  if (cached && cached.length === reply.blocks.length) return cached.chunks;
  const text = reply.blocks.filter((block) => block.kind !== "file");
  const files = reply.blocks.length - text.length;
  const chunks = text.length > 0 || files === 0 ? renderReply({ ...reply, blocks: text }) : [];
  renderedText.set(reply.blocks, { length: reply.blocks.length, chunks });
  return chunks;
}

class TelegramAdapter implements Adapter {
  readonly platform = "telegram" as const;
  readonly capabilities = TELEGRAM_CAPABILITIES;

  private readonly bot: Bot;
  private readonly botId: number;
  private readonly logger: Logger;
  private readonly tuning: TelegramTuning;
  private readonly offsetFile: string;
  private state: AdapterHealth = { state: "stopped" };
  private sink: InboundSink | undefined;
  private hooks: AdapterHooks | undefined;
  private running = false;
  private abort = new AbortController();
  private pollLoop: Promise<void> | undefined;
  private offset: number | undefined;
  private offsetWrite: Promise<void> | undefined;
  private offsetDirty = false;
  private offsetTimer: NodeJS.Timeout | undefined;
  private webhookServer: http.Server | undefined;
  private lock: HeldLock | undefined;
  private menu: MenuCommand[] | undefined;
  /** Callback queries not answered yet (answered once, privately with a refusal or plainly). */
  private readonly openQueries = new Set<string>();

  constructor(private readonly options: TelegramAdapterOptions) {
    const token = options.secret("TELEGRAM_BOT_TOKEN");
    if (!token) {
      throw new AdapterError(
        "telegram",
        `TELEGRAM_BOT_TOKEN is not set. Put it in ${path.join(options.home, ".env")} (TELEGRAM_BOT_TOKEN=123456:ABC…, from @BotFather) or the environment, or set gateway.telegram.enabled: false.`,
        { code: "adapter.telegram.no_token" },
      );
    }
    this.botId = Number(token.split(":")[0]) || 0;
    this.logger = options.logger.child({ adapter: "telegram" });
    this.tuning = { ...DEFAULT_TUNING, ...options.tuning };
    this.offsetFile = path.join(options.home, "gateway", "telegram-offset.json");
    const apiRoot = telegramConfig(options.config).apiRoot?.replace(/\/+$/, "");
    // grammy's own `fetch` option (see fetch.ts); its type is the DOM `fetch`, which this covers for grammy.
    const fetch = leanFetch as unknown as typeof globalThis.fetch;
    this.bot = new Bot(token, { client: apiRoot ? { apiRoot, fetch } : { fetch } });
    this.bot.use(async (ctx) => {
      const message = normalizeUpdate(ctx.update, ctx.me.username);
      if (message === null) {
        this.logger.debug({ update_id: ctx.update.update_id }, "telegram update ignored");
        // A callback query skillgate cannot map (no message, a channel post's button, no data) is still
        // answered: Telegram clients show a progress bar until answerCallbackQuery is called.
        const unmapped = ctx.update.callback_query?.id;
        if (unmapped !== undefined) {
          await this.bot.api.answerCallbackQuery(unmapped).catch((error: unknown) => {
            this.logger.warn({ err: error }, "telegram: answering an unmapped button press failed");
          });
        }
        return;
      }
      if (!message.press) {
        await this.sink?.(message);
        return;
      }
      // A press: the gateway judges it before the sink resolves (a refusal is answered privately in
      // `send`); every callback query is then answered at once so the client stops its spinner.
      const queryId = ctx.update.callback_query?.id ?? "";
      // A "Set KEY" button opens a one-time form link, sent to the presser's private chat.
      const opened = (await this.hooks?.secretInput?.open(message)) ?? null;
      if (opened !== null) {
        await this.sendSecretLink(queryId, message, opened);
        return;
      }
      this.openQueries.add(queryId);
      try {
        await this.sink?.(message);
      } finally {
        if (this.openQueries.delete(queryId)) {
          await this.bot.api.answerCallbackQuery(queryId).catch((error: unknown) => {
            this.logger.warn({ err: error }, "telegram: answering a button press failed");
          });
        }
      }
    });
  }

  health(): AdapterHealth {
    return { ...this.state };
  }

  async start(sink: InboundSink, hooks?: AdapterHooks): Promise<void> {
    if (this.running) return;
    this.sink = sink;
    this.hooks = hooks;
    this.state = { state: "starting" };
    this.abort = new AbortController();
    await this.takeLock();
    try {
      await this.connect();
    } catch (error) {
      this.running = false;
      this.abort.abort();
      await this.closeWebhookServer();
      await this.releaseLock();
      this.state = { state: "failed", detail: (error as Error).message };
      throw error;
    }
  }

  private async connect(): Promise<void> {
    // Not `bot.init()`: it retries network errors forever on its own, silently. The first connection
    // gets bounded attempts here, each failure logged with its cause and shown on /healthz.
    this.bot.botInfo = await connectWithRetries({
      platform: "telegram",
      attempts: this.tuning.startAttempts,
      baseDelayMs: this.tuning.networkBaseMs,
      maxDelayMs: this.tuning.maxBackoffMs,
      logger: this.logger,
      signal: this.abort.signal,
      onState: (detail) => {
        this.state = { state: "starting", detail };
      },
      attempt: () =>
        this.bot.api.getMe(
          AbortSignal.any([
            this.abort.signal,
            AbortSignal.timeout(this.tuning.connectTimeoutMs),
          ]) as unknown as GrammySignal,
        ),
      fatal: (error) => error instanceof GrammyError && error.error_code === 401,
      wrap: (error) => this.connectError(error),
    });
    this.running = true;
    if (telegramConfig(this.options.config).mode === "webhook") {
      await this.startWebhook();
    } else {
      await this.call("deleteWebhook", () => this.bot.api.deleteWebhook({}, this.signal));
      this.offset = await this.loadOffset();
      this.state = { state: "connected", detail: "long polling" };
      this.pollLoop = this.poll();
    }
    this.logger.info(
      { bot: this.bot.botInfo.username, mode: telegramConfig(this.options.config).mode },
      "telegram connected",
    );
  }

  private connectError(error: unknown): AdapterError {
    if (error instanceof GrammyError && error.error_code === 401) {
      return new AdapterError(
        "telegram",
        "Telegram refused TELEGRAM_BOT_TOKEN (401 Unauthorized). Copy the token again from @BotFather into .env.",
        {
          cause: error,
          code: "adapter.telegram.unauthorized",
        },
      );
    }
    const root = telegramConfig(this.options.config).apiRoot ?? "https://api.telegram.org";
    return new AdapterError(
      "telegram",
      `Cannot reach the Telegram Bot API at ${root}: ${(error as Error).message}. Check the network or gateway.telegram.api_root.`,
      {
        cause: error,
        code: "adapter.telegram.unreachable",
      },
    );
  }

  async stop(): Promise<void> {
    const wasRunning = this.running;
    this.running = false;
    this.abort.abort();
    await this.pollLoop;
    this.pollLoop = undefined;
    await this.flushOffset();
    if (wasRunning && this.offset !== undefined && !this.webhookServer) {
      // Confirm what was handled so the server forgets it (a getUpdates with a later offset).
      await this.bot.api.getUpdates({ offset: this.offset, limit: 1, timeout: 0 }).catch((error: unknown) => {
        this.logger.warn(
          { err: error },
          "telegram: could not confirm the last update offset; the gateway's dedupe covers a replay",
        );
      });
    }
    await this.closeWebhookServer();
    await this.releaseLock();
    this.state = { state: "stopped" };
  }

  // ── inbound: long polling ────────────────────────────────────────────────────────────────────────

  private async poll(): Promise<void> {
    let conflicts = 0;
    let failures = 0;
    while (this.running) {
      let updates: Update[];
      try {
        updates = await this.bot.api.getUpdates(
          {
            offset: this.offset,
            limit: 100,
            timeout: this.tuning.pollTimeoutSeconds,
            allowed_updates: [...ALLOWED_UPDATES],
          },
          this.signal,
        );
      } catch (error) {
        if (!this.running) break;
        if (error instanceof GrammyError && error.error_code === 409) {
          conflicts += 1;
          await this.backoffConflict(error, conflicts);
        } else {
          failures += 1;
          await this.backoffPollError(error, failures);
        }
        continue;
      }
      if (conflicts > 0 || failures > 0) this.logger.info("telegram polling recovered");
      conflicts = 0;
      failures = 0;
      if (this.state.state !== "connected") this.state = { state: "connected", detail: "long polling" };
      await this.handleBatch(updates);
    }
  }

  private async handleBatch(updates: Update[]): Promise<void> {
    if (updates.length === 0) return;
    for (const update of updates) {
      if (!this.running) break;
      await this.dispatch(update);
      this.offset = update.update_id + 1;
    }
    this.scheduleOffsetSave();
  }

  private async dispatch(update: Update): Promise<void> {
    try {
      await this.bot.handleUpdate(update);
    } catch (error) {
      this.logger.error(
        { err: error, update_id: update.update_id },
        "telegram: handling an update failed; it is skipped",
      );
    }
  }

  private async backoffConflict(error: GrammyError, attempt: number): Promise<void> {
    const delay = Math.min(this.tuning.maxBackoffMs, this.tuning.conflictBaseMs * 2 ** (attempt - 1));
    const detail = `409 Conflict: another process is polling this bot token with getUpdates (${error.description}); retry ${attempt} in ${Math.round(delay / 1000)} s. Stop the other bot instance or use a different token.`;
    this.state = { state: "degraded", detail };
    this.logger.error({ attempt, delayMs: delay }, `telegram ${detail}`);
    await this.sleep(delay);
  }

  private async backoffPollError(error: unknown, attempt: number): Promise<void> {
    let delay = Math.min(this.tuning.maxBackoffMs, this.tuning.networkBaseMs * 2 ** (attempt - 1));
    let detail = `getUpdates failed: ${(error as Error).message}; retry ${attempt} in ${Math.round(delay / 1000)} s`;
    if (error instanceof GrammyError && error.error_code === 429) {
      delay = (error.parameters.retry_after ?? 1) * 1000;
      detail = `flood control on getUpdates; waiting ${error.parameters.retry_after ?? 1} s`;
    } else if (error instanceof GrammyError && error.error_code === 401) {
      detail =
        "Telegram refused TELEGRAM_BOT_TOKEN (401 Unauthorized); was the token revoked? Update .env and restart.";
      delay = this.tuning.maxBackoffMs;
    }
    this.state = { state: "degraded", detail };
    this.logger.warn({ attempt, delayMs: delay }, `telegram ${detail}`);
    await this.sleep(delay);
  }

  private async loadOffset(): Promise<number | undefined> {
    let text: string;
    try {
      text = await fs.readFile(this.offsetFile, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT")
        this.logger.warn({ err: error }, "telegram: cannot read the saved offset");
      return undefined;
    }
    try {
      const saved = JSON.parse(text) as Partial<PersistedOffset>;
      const age = Date.now() - Date.parse(String(saved.saved_at));
      if (saved.bot_id !== this.botId || !Number.isInteger(saved.offset) || !(age < OFFSET_MAX_AGE_MS))
        return undefined;
      return saved.offset;
    } catch {
      this.logger.warn(
        { file: this.offsetFile },
        "telegram: the saved offset is not valid JSON; starting from Telegram's queue (the gateway's dedupe drops repeats)",
      );
      return undefined;
    }
  }

  /**
   * Saves the offset without holding up the next poll (an fsync can take tens of ms), at most once per
   * `offsetFlushMs`: a crash replays at most that much, and the gateway's dedupe drops the replay.
   */
  private scheduleOffsetSave(): void {
    this.offsetDirty = true;
    if (this.offsetTimer || this.offsetWrite) return;
    this.offsetTimer = setTimeout(() => {
      this.offsetTimer = undefined;
      void this.flushOffset();
    }, this.tuning.offsetFlushMs);
    this.offsetTimer.unref();
  }

  /** Writes the newest offset now (after any write in progress); `stop()` calls it last. */
  private async flushOffset(): Promise<void> {
    clearTimeout(this.offsetTimer);
    this.offsetTimer = undefined;
    while (this.offsetWrite) await this.offsetWrite;
    if (!this.offsetDirty) return;
    this.offsetDirty = false;
    this.offsetWrite = this.saveOffset().finally(() => {
      this.offsetWrite = undefined;
      if (this.offsetDirty && this.running) this.scheduleOffsetSave();
    });
    await this.offsetWrite;
  }

  private async saveOffset(): Promise<void> {
    if (this.offset === undefined) return;
    const data: PersistedOffset = {
      bot_id: this.botId,
      offset: this.offset,
      saved_at: new Date().toISOString(),
    };
    try {
      await atomicWriteFile(this.offsetFile, `${JSON.stringify(data)}\n`);
    } catch (error) {
      this.logger.warn(
        { err: error },
        "telegram: cannot save the update offset; a restart may see repeats (dropped by dedupe)",
      );
    }
  }

  // ── inbound: webhook ─────────────────────────────────────────────────────────────────────────────

  private async startWebhook(): Promise<void> {
    const { url, port, secret } = this.webhookSettings();
    const handle = webhookCallback(this.bot, "http", {
      secretToken: secret,
      onTimeout: "return",
      timeoutMilliseconds: 8_000,
    });
    const expectedPath = this.webhookPath(url);
    const failures = new FailureRateLimiter(WEBHOOK_FAILURES_PER_MINUTE);
    // One update at a time: Telegram is asked for one connection, and a second request (a retry, or a
    // proxy that opens more) waits here, so a chat's commands never run concurrently or reordered.
    let chain: Promise<void> = Promise.resolve();
    const server = http.createServer((req, res) => {
      const requestPath = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
      if (req.method !== "POST" || requestPath !== expectedPath) {
        res.writeHead(404).end();
        return;
      }
      this.admitWebhook(req, res, secret, failures)
        .then((body) => {
          if (!body) return;
          // grammy reads the already-checked body from a canonical request (the secret header kept).
          const canonical = Object.assign(Readable.from([body]), {
            headers: req.headers,
            method: "POST",
            url: req.url,
          }) as unknown as http.IncomingMessage;
          chain = chain.then(() => handle(canonical, res));
          return chain;
        })
        .catch((error: unknown) => {
          this.logger.error({ err: error }, "telegram webhook: handling an update failed");
          if (!res.headersSent) res.writeHead(500);
          res.end();
        });
    });
    this.webhookServer = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
    await this.call("setWebhook", () =>
      this.bot.api.setWebhook(
        url,
        { secret_token: secret, allowed_updates: [...ALLOWED_UPDATES], max_connections: 1 },
        this.signal,
      ),
    );
    this.state = { state: "connected", detail: `webhook ${url}` };
  }

  /**
   * The local path the listener answers: `gateway.telegram.webhook.path` when set (a reverse proxy may
   * map the public URL to another path), else the public URL's own path.
   */
  private webhookPath(url: string): string {
    const configured = telegramConfig(this.options.config).webhook.path;
    if (configured === undefined || configured.trim() === "") return new URL(url).pathname;
    return configured.startsWith("/") ? configured : `/${configured}`;
  }

  /**
   * Checks a webhook request before anything is parsed: the secret header (constant time; failures are
   * rate limited per client, 401 then 429) and the body size (413, enforced while reading). Returns the
   * body, or undefined when the request was answered here.
   */
  private async admitWebhook(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    secret: string,
    failures: FailureRateLimiter,
  ): Promise<Buffer | undefined> {
    const given = req.headers["x-telegram-bot-api-secret-token"];
    if (typeof given !== "string" || !sameSecret(given, secret)) {
      const client = clientAddress(req, this.options.config.gateway.trustedProxies);
      const limited = failures.failed(client);
      this.logger.warn({ client, status: limited ? 429 : 401 }, "telegram webhook: wrong secret token");
      req.resume();
      res.writeHead(limited ? 429 : 401, { connection: "close" }).end();
      return undefined;
    }
    const body = await readBodyLimited(req, MAX_WEBHOOK_BODY);
    if (body === "too-large") {
      this.logger.warn({ limit: MAX_WEBHOOK_BODY }, "telegram webhook: request body over the limit refused");
      refuseTooLarge(req, res, MAX_WEBHOOK_BODY);
      return undefined;
    }
    if (body === "aborted") return undefined;
    return body;
  }

  private webhookSettings(): { url: string; port: number; secret: string } {
    const webhook = telegramConfig(this.options.config).webhook;
    const url = webhook.url ?? this.options.secret("TELEGRAM_WEBHOOK_URL");
    const secret = webhook.secret ?? this.options.secret("TELEGRAM_WEBHOOK_SECRET");
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

  private async closeWebhookServer(): Promise<void> {
    const server = this.webhookServer;
    if (!server) return;
    this.webhookServer = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  // ── outbound ─────────────────────────────────────────────────────────────────────────────────────

  /**
   * Sends a reply in chunks; the reply's buttons go under the last one, a pressed button's result may
   * replace the message it was on, and file blocks follow as documents.
   */
  async send(target: OutboundTarget, reply: Reply, inReplyTo?: InboundMessage): Promise<void> {
    if (reply.private && (await this.answerPrivately(reply, inReplyTo))) return;
    const files = reply.blocks.filter((block) => block.kind === "file");
    const chunks = textChunks(reply);
    const keyboard = inlineKeyboard(reply);
    const replyTo = target.replyTo ?? replyAnchor(inReplyTo);
    let first = 0;
    if (target.editMessageId !== undefined && chunks[0]) {
      const edited = await this.editChunk(
        target,
        target.editMessageId,
        chunks[0],
        chunks.length === 1 ? keyboard : undefined,
      );
      if (edited) first = 1;
    }
    for (let index = first; index < chunks.length; index += 1) {
      const chunk = chunks[index] as TelegramChunk;
      const markup = index === chunks.length - 1 ? keyboard : undefined;
      await this.sendChunk(target, chunk, index === 0 ? replyTo : undefined, markup);
    }
    // A reply over the budget carries its whole text as a file part: it goes as one document.
    for (const file of files) await this.sendFile(target, file.name, file.text, chunks.length);
  }

  /**
   * Answers a "Set KEY" press: the one-time form link goes as a URL button to the presser's private
   * chat (a link is a credential and must not sit in a group's history); the press itself is answered
   * with a notice only the presser sees. A refusal is that notice alone.
   */
  private async sendSecretLink(
    queryId: string,
    press: InboundMessage,
    opened: SecretInputOpening | { refused: string },
  ): Promise<void> {
    let notice: string;
    let alert = true;
    if ("refused" in opened) notice = opened.refused;
    else if (!opened.url) notice = "Private secret entry is not available here.";
    else {
      try {
        await this.sendChunk(
          { chatId: press.sender.id },
          {
            text: `Set <code>${escapeHtml(opened.key)}</code> for ${escapeHtml(opened.skill)} with this one-time form (it works once, for 10 minutes, and only for you):`,
            parse_mode: "HTML",
          },
          undefined,
          { inline_keyboard: [[{ text: `Set ${opened.key}`.slice(0, 64), url: opened.url }]] },
        );
        notice = "I sent you a one-time link to set it in our private chat.";
        alert = false;
      } catch {
        // Telegram refuses a private message to someone who never opened a chat with the bot.
        notice =
          "I could not message you privately: open a private chat with me, send /start, then press the button again.";
      }
    }
    await this.bot.api
      .answerCallbackQuery(queryId, { text: callbackNotice(notice), show_alert: alert })
      .catch((error: unknown) =>
        this.logger.warn({ err: error }, "telegram: answering a button press failed"),
      );
  }

  /**
   * The "running…" notice of slow work: it replaces the pressed message (dropping its keyboard, so the
   * button cannot be pressed twice meanwhile) or goes as a reply to the command; its id comes back so
   * the result can edit it (Bot API `editMessageText`, which works on the bot's own text messages).
   */
  async acknowledge(
    target: OutboundTarget,
    notice: Reply,
    inReplyTo?: InboundMessage,
  ): Promise<string | undefined> {
    const [chunk] = renderReply(notice);
    if (!chunk) return undefined;
    if (target.editMessageId !== undefined)
      return (await this.editChunk(target, target.editMessageId, chunk, undefined))
        ? target.editMessageId
        : undefined;
    return this.sendChunk(target, chunk, target.replyTo ?? replyAnchor(inReplyTo));
  }

  /**
   * A reply meant only for whoever pressed a button: the callback query's answer, shown as an alert to
   * that user alone (Bot API `answerCallbackQuery`, `show_alert`). False when there is no open query.
   */
  private async answerPrivately(reply: Reply, inReplyTo: InboundMessage | undefined): Promise<boolean> {
    const queryId = (inReplyTo?.raw as Update | undefined)?.callback_query?.id;
    if (!inReplyTo?.press || queryId === undefined || !this.openQueries.delete(queryId)) return false;
    const text = callbackNotice(htmlToPlain(renderReply(reply)[0]?.text ?? ""));
    await this.call("answerCallbackQuery", () =>
      this.bot.api.answerCallbackQuery(queryId, { text, show_alert: true }),
    );
    return true;
  }

  /**
   * Replaces the text (and keyboard: none when `markup` is undefined) of a message the bot sent, as a
   * pressed button asks. False when it cannot be edited (gone, too old): the caller sends instead.
   */
  private async editChunk(
    target: OutboundTarget,
    messageId: string,
    chunk: TelegramChunk,
    markup: InlineKeyboardMarkup | undefined,
  ): Promise<boolean> {
    const chatId = chatIdOf(target.chatId);
    const extra = {
      parse_mode: chunk.parse_mode,
      link_preview_options: { is_disabled: true },
      reply_markup: markup,
    };
    try {
      await this.call("editMessageText", () =>
        this.bot.api.editMessageText(chatId, Number(messageId), chunk.text, extra),
      );
      return true;
    } catch (error) {
      const description = error instanceof GrammyError && error.error_code === 400 ? error.description : "";
      if (/message is not modified/i.test(description)) return true;
      this.logger.warn(
        { chat: target.chatId, description },
        "telegram: could not edit the message; sending anew",
      );
      return false;
    }
  }

  measure(reply: Reply): number {
    const files = reply.blocks.filter((block) => block.kind === "file").length;
    return textChunks(reply).length + files;
  }

  /**
   * Sends content as a document (`sendDocument`, multipart upload), in the target's topic. A document
   * Telegram refuses (too large, say) is a `FileRefusedError` counting the `delivered` messages before it.
   */
  private async sendFile(
    target: OutboundTarget,
    name: string,
    content: string,
    delivered: number,
  ): Promise<void> {
    const threadId = target.threadId === undefined ? undefined : Number(target.threadId);
    try {
      await this.call("sendDocument", () =>
        this.bot.api.sendDocument(
          chatIdOf(target.chatId),
          new InputFile(Buffer.from(content, "utf8"), name),
          threadId !== undefined ? { message_thread_id: threadId } : {},
        ),
      );
    } catch (error) {
      const message = `Telegram did not accept the file ${name} for chat ${target.chatId}: ${(error as Error).message}`;
      // Telegram answered with an error about the document itself (not flood control): send it cut.
      if (error instanceof GrammyError && error.error_code !== 429)
        throw new FileRefusedError("telegram", name, message, { cause: error, delivered });
      throw new AdapterError("telegram", message, { cause: error, code: "adapter.telegram.send_failed" });
    }
  }

  private async sendChunk(
    target: OutboundTarget,
    chunk: TelegramChunk,
    replyTo: string | undefined,
    markup?: InlineKeyboardMarkup,
  ): Promise<string> {
    const chatId = chatIdOf(target.chatId);
    const base = {
      link_preview_options: { is_disabled: true },
      ...(replyTo
        ? { reply_parameters: { message_id: Number(replyTo), allow_sending_without_reply: true } }
        : {}),
    };
    let threadId = target.threadId === undefined ? undefined : Number(target.threadId);
    let html = true;
    for (;;) {
      const payload = {
        ...base,
        ...(html ? { parse_mode: chunk.parse_mode } : {}),
        ...(threadId !== undefined ? { message_thread_id: threadId } : {}),
        ...(markup ? { reply_markup: markup } : {}),
      };
      try {
        const sent = await this.call("sendMessage", () =>
          this.bot.api.sendMessage(chatId, html ? chunk.text : htmlToPlain(chunk.text), payload),
        );
        return String(sent.message_id);
      } catch (error) {
        const description = error instanceof GrammyError && error.error_code === 400 ? error.description : "";
        if (html && /can't parse entities/i.test(description)) {
          this.logger.warn(
            { chat: target.chatId, description },
            "telegram refused the HTML of a reply; sending it as plain text",
          );
          html = false;
        } else if (threadId !== undefined && /message thread not found/i.test(description)) {
          this.logger.warn(
            { chat: target.chatId, thread: threadId },
            "telegram: the topic no longer exists; replying in the chat",
          );
          threadId = undefined;
        } else {
          throw new AdapterError(
            "telegram",
            `Telegram did not accept the reply to chat ${target.chatId}: ${(error as Error).message}`,
            {
              cause: error,
              code: "adapter.telegram.send_failed",
            },
          );
        }
      }
    }
  }

  // ── command menu ─────────────────────────────────────────────────────────────────────────────────

  async syncCommands(catalog: CommandCatalogEntry[]): Promise<void> {
    const { gateway } = this.options.config;
    const settings = { platform: gateway.platforms.telegram?.locale, gateway: gateway.locale };
    for (const language of menuLanguages(settings)) await this.syncMenu(catalog, language);
  }

  /** Registers the menu of one language (`language_code` "" is the default menu). */
  private async syncMenu(catalog: CommandCatalogEntry[], language: MenuLanguage): Promise<void> {
    const menu = buildCommandMenu(catalog, language.locale);
    const scope = { language_code: language.languageCode || undefined };
    if (menu.commands.length === 0) {
      this.logger.warn("telegram: the command catalog is empty; the menu is left as it is");
      return;
    }
    for (const commands of fallbackMenus(menu)) {
      try {
        await this.call("setMyCommands", () => this.bot.api.setMyCommands(commands, scope, this.signal));
        this.menu = commands;
        if (commands.length < menu.commands.length) {
          this.logger.warn(
            { kept: commands.length, wanted: menu.commands.length },
            "telegram: the menu was shortened to fit; the other skills still work when typed",
          );
        }
        return;
      } catch (error) {
        if (!(error instanceof GrammyError && error.error_code === 400)) {
          this.logger.error(
            { err: error },
            `telegram: setMyCommands failed; ${this.menu ? "the previous menu stays" : "the menu is unchanged"}`,
          );
          return;
        }
        this.logger.warn(
          { entries: commands.length, description: error.description },
          "telegram refused the command menu; trying a shorter one",
        );
      }
    }
    this.logger.error("telegram: every command menu was refused; the previous menu stays");
  }

  // ── helpers ──────────────────────────────────────────────────────────────────────────────────────

  /**
   * Runs one API call: waits out a 429 `retry_after` and retries network errors with backoff, up to
   * `maxAttempts`. Other errors are thrown at once.
   */
  private async call<T>(method: string, fn: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await fn();
      } catch (error) {
        if (this.abort.signal.aborted || attempt >= this.tuning.maxAttempts) throw error;
        if (error instanceof GrammyError && error.error_code === 429) {
          const seconds = error.parameters.retry_after ?? 1;
          if (seconds > this.tuning.maxRetryAfterSeconds) throw error;
          this.logger.warn(
            { method, retryAfter: seconds },
            "telegram flood control: waiting before retrying",
          );
          await this.sleep(seconds * 1000);
        } else if (error instanceof HttpError && !/timed out/i.test(error.message)) {
          const delay = Math.min(this.tuning.maxBackoffMs, this.tuning.networkBaseMs * 2 ** (attempt - 1));
          this.logger.warn(
            { method, attempt, delayMs: delay, err: error },
            "telegram: network error; retrying",
          );
          await this.sleep(delay);
        } else {
          throw error;
        }
      }
    }
  }

  /** The stop signal, typed as grammy's client expects (its AbortSignal shim; Node's works at run time). */
  private get signal(): GrammySignal {
    return this.abort.signal as unknown as GrammySignal;
  }

  /** Sleeps, cut short by `stop()`. */
  private sleep(ms: number): Promise<void> {
    const signal = this.abort.signal;
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      }
      signal.addEventListener("abort", done, { once: true });
    });
  }

  private async takeLock(): Promise<void> {
    const file = path.join(this.options.home, "gateway", "locks", `telegram-${this.botId}.lock`);
    try {
      this.lock = await acquireLock(file, { waitMs: 0 });
    } catch (error) {
      if (!(error instanceof LockBusyError)) throw error;
      const holder = error.holderPid ? `process ${error.holderPid}` : "another process";
      throw new AdapterError(
        "telegram",
        `Another skillgate gateway (${holder}) is already connected to this Telegram bot from ${this.options.home}. Stop it first, or give this gateway its own bot token.`,
        {
          cause: error,
          code: "adapter.telegram.locked",
        },
      );
    }
  }

  private async releaseLock(): Promise<void> {
    await this.lock?.release();
    this.lock = undefined;
  }
}

type GrammySignal = NonNullable<Parameters<Bot["api"]["getMe"]>[0]>;

/** Numeric chat ids go to the API as numbers; `@channelname` stays a string. */
function chatIdOf(chatId: string): number | string {
  return /^-?\d+$/.test(chatId) ? Number(chatId) : chatId;
}

/** In groups and topics the first chunk quotes the user's message; in a DM that is noise. */
function replyAnchor(message: InboundMessage | undefined): string | undefined {
  if (message === undefined || message.platform !== "telegram" || message.chat.kind === "dm")
    return undefined;
  return message.messageId;
}

/** Escapes text for Telegram's HTML parse mode. */
function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** One URL button per one-time secret form link (at most 10 rows), or undefined when there are none. */
