/**
 * The Telegram connection: the first `getMe` with bounded retries (each failure logged and shown on
 * /healthz), then long polling (default) or the webhook listener (`webhook.ts`), one lock per bot token
 * and home, and the stop that confirms the last handled update.
 *
 * Several replicas (`hooks.sharedIngress`): every replica connects and listens for the webhook, and
 * `lead()` does what one replica alone may — `setWebhook`, or the long polling.
 *
 * Long polling is our own `getUpdates` loop over grammy's API client, so the offset is ours
 * (`offset.ts`). A 409 conflict (another program polls this token, Hermes' gateway for one) puts health
 * in `degraded` saying another program uses this bot, and polling backs off exponentially up to
 * `maxBackoffMs` instead of fighting it for the updates. Updates from either way run through
 * `bot.handleUpdate`, one at a time in order, into the gateway's sink (`interactions.ts`).
 */
import path from "node:path";
import type { Update } from "grammy/types";
import { AdapterError } from "../../src/core/errors.js";
import { acquireLock, type HeldLock, LockBusyError } from "../../src/core/fsutil.js";
import type { AdapterHooks, InboundSink } from "../../src/core/message.js";
import { connectWithRetries } from "../../src/core/startup.js";
import { telegramConfig } from "./config.js";
import { ALLOWED_UPDATES, type GrammySignal, type TelegramContext } from "./context.js";
import { GrammyError } from "./grammy.js";
import { UpdateOffset } from "./offset.js";
import { callWithRetries } from "./outbound.js";
import { TelegramWebhook } from "./webhook.js";

/** Connects, polls or listens, and stops one Telegram adapter. */
export class TelegramConnection {
  private readonly offset: UpdateOffset;
  private readonly webhook: TelegramWebhook;
  private pollLoop: Promise<void> | undefined;
  private lock: HeldLock | undefined;

  constructor(private readonly ctx: TelegramContext) {
    this.offset = new UpdateOffset(ctx);
    this.webhook = new TelegramWebhook(ctx);
  }

  /** Takes the bot's lock and connects; the gateway's `sink` gets every update from then on. */
  async start(sink: InboundSink, hooks?: AdapterHooks): Promise<void> {
    if (this.ctx.running) return;
    this.ctx.sink = sink;
    this.ctx.hooks = hooks;
    this.ctx.state = { state: "starting" };
    this.ctx.abort = new AbortController();
    // Replicas of one home (the gateway says who may take events) share it by their leader lease: a
    // paused old leader may still hold this file lock, and is already fenced. Alone, the lock keeps a
    // second gateway on this home off the bot.
    if (!hooks?.mayTakeEvents) await this.takeLock();
    try {
      await this.connect();
    } catch (error) {
      this.ctx.running = false;
      this.ctx.abort.abort();
      await this.webhook.close();
      await this.releaseLock();
      this.ctx.state = { state: "failed", detail: (error as Error).message };
      throw error;
    }
  }

  private async connect(): Promise<void> {
    // Not `bot.init()`: it retries network errors forever on its own, silently. The first connection
    // gets bounded attempts here, each failure logged with its cause and shown on /healthz.
    this.ctx.bot.botInfo = await connectWithRetries({
      platform: "telegram",
      attempts: this.ctx.tuning.startAttempts,
      baseDelayMs: this.ctx.tuning.networkBaseMs,
      maxDelayMs: this.ctx.tuning.maxBackoffMs,
      logger: this.ctx.logger,
      signal: this.ctx.abort.signal,
      onState: (detail) => {
        this.ctx.state = { state: "starting", detail };
      },
      attempt: () =>
        this.ctx.bot.api.getMe(
          AbortSignal.any([
            this.ctx.abort.signal,
            AbortSignal.timeout(this.ctx.tuning.connectTimeoutMs),
          ]) as unknown as GrammySignal,
        ),
      fatal: (error) => error instanceof GrammyError && error.error_code === 401,
      wrap: (error) => this.connectError(error),
    });
    this.ctx.running = true;
    const webhook = telegramConfig(this.ctx.options.config).mode === "webhook";
    if (webhook) await this.webhook.listen();
    if (this.ctx.hooks?.sharedIngress) {
      this.ctx.state = webhook
        ? { state: "connected", detail: "webhook listener (the leader registers it)" }
        : { state: "connected", detail: "standby (the leader polls)" };
    } else await this.takeUpdates();
    // A standby replica neither polls nor registers the webhook: its log says so, not `mode=polling`.
    const standby = this.ctx.hooks?.sharedIngress && !webhook;
    this.ctx.logger.info(
      {
        bot: this.ctx.bot.botInfo.username,
        mode: standby ? "standby" : telegramConfig(this.ctx.options.config).mode,
      },
      standby ? "telegram connected as a standby (the leader polls)" : "telegram connected",
    );
  }

  /** Registers the webhook, or starts long polling from the saved offset. */
  private async takeUpdates(): Promise<void> {
    if (telegramConfig(this.ctx.options.config).mode === "webhook") {
      await this.webhook.register();
      return;
    }
    // A webhook someone else set (another program takes this bot's updates) is never removed: polling
    // would need it gone. Only the one skillgate's own config names (an earlier webhook-mode run) is.
    const current = await callWithRetries(this.ctx, "getWebhookInfo", () =>
      this.ctx.bot.api.getWebhookInfo(this.ctx.signal),
    );
    if (current.url) {
      if (current.url !== telegramConfig(this.ctx.options.config).webhook.url)
        throw new AdapterError(
          "telegram",
          `another program uses this bot: a webhook is set (${current.url}), so Telegram delivers its updates there, and skillgate does not remove a webhook it did not set. Give skillgate a bot of its own (SKILLGATE_TELEGRAM_BOT_TOKEN), or, if that webhook is no longer used, remove it (Bot API deleteWebhook) and start again.`,
          { code: "adapter.telegram.foreign_webhook", refused: true },
        );
      await callWithRetries(this.ctx, "deleteWebhook", () =>
        this.ctx.bot.api.deleteWebhook({}, this.ctx.signal),
      );
    }
    // Loaded now, not at start: under replicas the previous leader moved it since.
    await this.offset.load();
    this.ctx.state = { state: "connected", detail: "long polling" };
    this.pollLoop = this.poll();
  }

  /** This replica leads (several replicas): it registers the webhook or starts polling. */
  async lead(): Promise<void> {
    if (!this.ctx.running || this.pollLoop) return;
    await this.takeUpdates();
  }

  private connectError(error: unknown): AdapterError {
    if (error instanceof GrammyError && error.error_code === 401) {
      return new AdapterError(
        "telegram",
        "Telegram refused TELEGRAM_BOT_TOKEN (401 Unauthorized). Copy the token again from @BotFather into .env.",
        {
          cause: error,
          code: "adapter.telegram.unauthorized",
          refused: true,
        },
      );
    }
    const root = telegramConfig(this.ctx.options.config).apiRoot ?? "https://api.telegram.org";
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
    const wasRunning = this.ctx.running;
    this.ctx.running = false;
    this.ctx.abort.abort();
    await this.pollLoop;
    this.pollLoop = undefined;
    await this.offset.flush();
    // Confirm what was handled so the server forgets it (a getUpdates with a later offset) — unless this
    // replica no longer leads: its getUpdates would end the new leader's poll (Telegram's 409).
    const mayPoll = this.ctx.hooks?.mayTakeEvents?.() !== false;
    if (wasRunning && mayPoll && this.offset.value !== undefined && !this.webhook.listening) {
      await this.ctx.bot.api
        .getUpdates({ offset: this.offset.value, limit: 1, timeout: 0 })
        .catch((error: unknown) => {
          this.ctx.logger.warn(
            { err: error },
            "telegram: could not confirm the last update offset; the gateway's dedupe covers a replay",
          );
        });
    }
    await this.webhook.close();
    await this.releaseLock();
    this.ctx.state = { state: "stopped" };
  }

  private async poll(): Promise<void> {
    let conflicts = 0;
    let failures = 0;
    while (this.ctx.running) {
      // A replica that may not take events now leaves them on Telegram's queue for the one that leads.
      if (this.ctx.hooks?.mayTakeEvents?.() === false) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      let updates: Update[];
      try {
        updates = await this.ctx.bot.api.getUpdates(
          {
            offset: this.offset.value,
            limit: 100,
            timeout: this.ctx.tuning.pollTimeoutSeconds,
            allowed_updates: [...ALLOWED_UPDATES],
          },
          this.ctx.signal,
        );
      } catch (error) {
        if (!this.ctx.running) break;
        if (error instanceof GrammyError && error.error_code === 409) {
          conflicts += 1;
          await this.backoffConflict(error, conflicts);
        } else {
          failures += 1;
          await this.backoffPollError(error, failures);
        }
        continue;
      }
      if (conflicts > 0 || failures > 0) this.ctx.logger.info("telegram polling recovered");
      conflicts = 0;
      failures = 0;
      if (this.ctx.state.state !== "connected")
        this.ctx.state = { state: "connected", detail: "long polling" };
      await this.handleBatch(updates);
    }
  }

  private async handleBatch(updates: Update[]): Promise<void> {
    if (updates.length === 0) return;
    for (const update of updates) {
      if (!this.ctx.running || this.ctx.hooks?.mayTakeEvents?.() === false) break;
      if (!(await this.dispatch(update))) {
        // The shared inbox could not take it: the offset stays, so the next poll asks for it again.
        await this.ctx.sleep(500);
        break;
      }
      this.offset.value = update.update_id + 1;
    }
    this.offset.scheduleSave();
  }

  /**
   * Hands one update over; false when it must be asked for again (several replicas: the shared inbox
   * could not take it). One gateway skips an update its handler failed on.
   */
  private async dispatch(update: Update): Promise<boolean> {
    try {
      await this.ctx.bot.handleUpdate(update);
      return true;
    } catch (error) {
      if (this.ctx.hooks?.sharedIngress) {
        this.ctx.logger.warn(
          { err: error, update_id: update.update_id },
          "telegram: the shared inbox did not take an update; it is asked for again",
        );
        return false;
      }
      this.ctx.logger.error(
        { err: error, update_id: update.update_id },
        "telegram: handling an update failed; it is skipped",
      );
      return true;
    }
  }

  private async backoffConflict(error: GrammyError, attempt: number): Promise<void> {
    const delay = Math.min(this.ctx.tuning.maxBackoffMs, this.ctx.tuning.conflictBaseMs * 2 ** (attempt - 1));
    const detail = `another program uses this bot (409 Conflict: another process is polling this bot token with getUpdates: ${error.description}); skillgate backs off and polls again in ${Math.round(delay / 1000)} s (attempt ${attempt}). Give skillgate a bot of its own (SKILLGATE_TELEGRAM_BOT_TOKEN) or stop the other program.`;
    this.ctx.state = { state: "degraded", detail };
    this.ctx.logger.error({ attempt, delayMs: delay }, `telegram ${detail}`);
    await this.ctx.sleep(delay);
  }

  private async backoffPollError(error: unknown, attempt: number): Promise<void> {
    let delay = Math.min(this.ctx.tuning.maxBackoffMs, this.ctx.tuning.networkBaseMs * 2 ** (attempt - 1));
    let detail = `getUpdates failed: ${(error as Error).message}; retry ${attempt} in ${Math.round(delay / 1000)} s`;
    if (error instanceof GrammyError && error.error_code === 429) {
      delay = (error.parameters.retry_after ?? 1) * 1000;
      detail = `flood control on getUpdates; waiting ${error.parameters.retry_after ?? 1} s`;
    } else if (error instanceof GrammyError && error.error_code === 401) {
      detail =
        "Telegram refused TELEGRAM_BOT_TOKEN (401 Unauthorized); was the token revoked? Update .env and restart.";
      delay = this.ctx.tuning.maxBackoffMs;
    }
    this.ctx.state = { state: "degraded", detail };
    this.ctx.logger.warn({ attempt, delayMs: delay }, `telegram ${detail}`);
    await this.ctx.sleep(delay);
  }

  private async takeLock(): Promise<void> {
    const file = path.join(this.ctx.options.home, "gateway", "locks", `telegram-${this.ctx.botId}.lock`);
    try {
      this.lock = await acquireLock(file, { waitMs: 0 });
    } catch (error) {
      if (!(error instanceof LockBusyError)) throw error;
      const holder = error.holderPid ? `process ${error.holderPid}` : "another process";
      throw new AdapterError(
        "telegram",
        `Another skillgate gateway (${holder}) is already connected to this Telegram bot from ${this.ctx.options.home}. Stop it first, or give this gateway its own bot token.`,
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
