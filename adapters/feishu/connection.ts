/**
 * The Feishu/Lark connection: reads the bot's open_id (`bot/v3/info`, bounded retries), then receives
 * events over the long connection (`WSClient`, the default) or the webhook listener (`webhook.ts`), both
 * through the SDK's `EventDispatcher` into `interactions.ts`. Health consults the long connection's own
 * state; after `stop()` no message is delivered.
 */
import type * as Lark from "@larksuiteoapi/node-sdk";
import { AdapterError } from "../../src/core/errors.js";
import type { AdapterHealth, AdapterHooks, InboundSink } from "../../src/core/message.js";
import { connectWithRetries } from "../../src/core/startup.js";
import { CARD_ACTION_EVENT_TYPE } from "./actions.js";
import { describeError } from "./api-errors.js";
import type { FeishuContext } from "./context.js";
import type { FeishuInteractions } from "./interactions.js";
import { lark } from "./lark-sdk.js";
import { MENU_EVENT_TYPE } from "./menu.js";
import { MESSAGE_EVENT_TYPE } from "./normalize.js";
import { sdkLoggerFor } from "./sdk-logger.js";
import { FeishuWebhook } from "./webhook.js";

/** Feishu's answers to a wrong app id or secret (`app secret invalid`, code 10014; `app_id` unknown, 10003). */
const REFUSED_CREDENTIALS = /app secret invalid|invalid app_?id|\b1001[34]\b|\b10003\b/i;

/** Attempts of the first connection (bot/v3/info) before the adapter reports `failed`. */
const START_ATTEMPTS = 3;

/** The SDK's domain for `gateway.feishu.domain`: `feishu`, `lark`, or a full URL used verbatim. */
export function resolveDomain(domain: string | undefined): Lark.Domain | string {
  if (domain === undefined || domain === "feishu") return lark.Domain.Feishu;
  if (domain === "lark") return lark.Domain.Lark;
  return domain.replace(/\/+$/, "");
}

/** Connects, receives and stops one Feishu adapter. */
export class FeishuConnection {
  private wsClient: Lark.WSClient | undefined;
  private readonly webhook: FeishuWebhook;

  constructor(
    private readonly ctx: FeishuContext,
    private readonly events: FeishuInteractions,
  ) {
    this.webhook = new FeishuWebhook(ctx);
  }

  /** Connects: reads the bot's open_id, then opens the long connection or the webhook listener. */
  async start(sink: InboundSink, hooks?: AdapterHooks): Promise<void> {
    this.ctx.hooks = hooks;
    const appId = this.ctx.opts.secret("FEISHU_APP_ID");
    const appSecret = this.ctx.opts.secret("FEISHU_APP_SECRET");
    if (!appId || !appSecret) {
      throw new AdapterError(
        "feishu",
        "Feishu needs FEISHU_APP_ID and FEISHU_APP_SECRET: put them in <home>/.env or the environment.",
      );
    }
    this.ctx.stopped = false;
    this.ctx.sink = sink;
    this.ctx.state = { state: "starting" };
    const domain = resolveDomain(this.ctx.settings.domain);
    const sdkLogger = sdkLoggerFor(this.ctx.log, [
      appSecret,
      this.ctx.settings.encryptKey,
      this.ctx.settings.verificationToken,
    ]);
    this.ctx.client = new lark.Client({
      appId,
      appSecret,
      domain,
      cache: new lark.DefaultCache(),
      logger: sdkLogger,
      loggerLevel: lark.LoggerLevel.warn,
    });
    this.ctx.botOpenId = await connectWithRetries({
      platform: "feishu",
      attempts: START_ATTEMPTS,
      baseDelayMs: 1_000,
      maxDelayMs: 30_000,
      logger: this.ctx.log,
      onState: (detail) => {
        this.ctx.state = { state: "starting", detail };
      },
      // An answer with an error code is the app's configuration, not the network: no retry helps.
      fatal: (error) => error instanceof AdapterError && error.cause === undefined,
      attempt: () => this.fetchBotOpenId(),
    }).catch((error: unknown) => {
      this.ctx.state = { state: "failed", detail: (error as Error).message };
      throw error;
    });
    const dispatcher = new lark.EventDispatcher({
      encryptKey: this.ctx.settings.encryptKey,
      verificationToken: this.ctx.settings.verificationToken,
      logger: sdkLogger,
      loggerLevel: lark.LoggerLevel.warn,
    }).register({
      // A refused event throws here: the long connection then acks 500 and the webhook answers 503.
      [MESSAGE_EVENT_TYPE]: (data: Record<string, unknown>) => this.events.onEvent(data),
      [CARD_ACTION_EVENT_TYPE]: (data: Record<string, unknown>) => this.events.onCardAction(data),
      [MENU_EVENT_TYPE]: (data: Record<string, unknown>) => this.events.onMenuClick(data),
    });
    if (this.ctx.settings.mode === "webhook") await this.webhook.start(dispatcher);
    else await this.startLongConnection({ appId, appSecret, domain, logger: sdkLogger }, dispatcher);
    this.ctx.state = {
      state: "connected",
      detail: this.ctx.settings.mode === "webhook" ? `webhook ${this.ctx.webhookUrl}` : "long connection",
    };
    this.ctx.log.info(
      { mode: this.ctx.settings.mode ?? "websocket", botOpenId: this.ctx.botOpenId },
      "feishu adapter connected",
    );
  }

  /** Closes the long connection or the webhook listener; no message is delivered afterwards. */
  async stop(): Promise<void> {
    this.ctx.stopped = true;
    this.wsClient?.close({ force: true });
    this.wsClient = undefined;
    await this.webhook.close();
    this.ctx.state = { state: "stopped" };
  }

  /** Current health; the long connection's own state is consulted when in use. */
  health(): AdapterHealth {
    if (this.ctx.state.state !== "connected" || !this.wsClient)
      return this.ctx.intakeFailures.apply(this.ctx.state);
    const status = this.wsClient.getConnectionStatus();
    if (status.state === "connected") return this.ctx.state;
    return {
      state: "degraded",
      detail: `long connection ${status.state} (${status.reconnectAttempts} reconnect attempts)`,
    };
  }

  /** Reads the bot's own open_id, needed to tell whether a group message mentions the bot. */
  private async fetchBotOpenId(): Promise<string> {
    let response: unknown;
    try {
      response = await this.ctx.requireClient().request({ method: "GET", url: "/open-apis/bot/v3/info" });
    } catch (error) {
      throw new AdapterError(
        "feishu",
        `Could not read the Feishu bot's identity (bot/v3/info): ${describeError(error)}. Check FEISHU_APP_ID, FEISHU_APP_SECRET and gateway.feishu.domain, and that the app has the bot capability enabled.`,
        { cause: error, refused: REFUSED_CREDENTIALS.test(describeError(error)) },
      );
    }
    const body = response as { code?: number; msg?: string; bot?: { open_id?: string } };
    if (body.code !== 0 || !body.bot?.open_id) {
      throw new AdapterError(
        "feishu",
        `Feishu bot/v3/info answered code ${body.code ?? "?"} (${body.msg ?? "no message"}): enable the bot capability of the app and check its credentials.`,
        { refused: REFUSED_CREDENTIALS.test(`${body.code} ${body.msg ?? ""}`) },
      );
    }
    return body.bot.open_id;
  }

  private async startLongConnection(
    params: { appId: string; appSecret: string; domain: Lark.Domain | string; logger: Lark.Logger },
    dispatcher: Lark.EventDispatcher,
  ): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const waitMs = this.ctx.tuning.connectTimeoutMs;
      const timer = setTimeout(() => {
        reject(
          new AdapterError(
            "feishu",
            `The Feishu long connection did not open within ${waitMs / 1000} s. Check gateway.feishu.domain and that the app uses "receive events through persistent connection"; Feishu also refuses more than 50 long connections per app, so stop other clients of this app (old replicas, test runs) or use the webhook instead (gateway.feishu.mode: webhook).`,
          ),
        );
      }, waitMs);
      const fail = (error: Error) => {
        clearTimeout(timer);
        reject(
          new AdapterError("feishu", `The Feishu long connection failed: ${error.message}`, { cause: error }),
        );
      };
      // The SDK's long-connection client refuses app ids it does not recognise by logging
      // "invalid appId" and returning; turn that into a prompt failure that names the way out.
      const logger: Lark.Logger = {
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
        onReconnecting: () => this.ctx.log.warn("feishu long connection lost; reconnecting"),
        onReconnected: () => this.ctx.log.info("feishu long connection restored"),
      });
      this.wsClient.start({ eventDispatcher: dispatcher }).catch(fail);
    }).catch((error: unknown) => {
      this.wsClient?.close({ force: true });
      this.wsClient = undefined;
      throw error;
    });
  }
}
