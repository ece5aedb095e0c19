/**
 * The Feishu/Lark adapter: a thin network shell (official `@larksuiteoapi/node-sdk`) around the pure
 * `normalizeEvent` and `renderReply`, assembled here from one part per concern:
 *
 * - `connection.ts`: the bot's identity, the long connection (default) or the webhook listener
 *   (`webhook.ts`), health and stop;
 * - `outbound.ts`: posts, cards and their updates in place, uploads, throttling under frequency control;
 * - `interactions.ts`: events acknowledged at once into the gateway's queue (several replicas: once the
 *   shared inbox took them, refused otherwise so Feishu pushes them again), card presses answered
 *   within 3 s;
 * - `secret-flow.ts`: a "Set KEY" press answered with a card form, its submission handed to the gateway.
 */
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
import { FeishuConnection } from "./connection.js";
import { type FeishuAdapterOptions, FeishuContext } from "./context.js";
import { FeishuInteractions } from "./interactions.js";
import { FeishuOutbound } from "./outbound.js";
import { FEISHU_MAX_CHARS } from "./render.js";
import { FeishuSecretFlow } from "./secret-flow.js";

export { resolveDomain } from "./connection.js";
export type { FeishuAdapterOptions, FeishuTuning } from "./context.js";

/**
 * The reply language of a Feishu deployment when the reader's is unknown: Chinese on Feishu (the
 * `feishu` domain, the default, or a URL on feishu.cn), English on Lark (`lark`, or any other URL).
 */
export function feishuLocaleDefault(domain: string | undefined): Pick<AdapterCapabilities, "defaultLocale"> {
  if (domain === undefined || domain === "feishu") return { defaultLocale: "zh-CN" };
  if (domain === "lark") return {};
  try {
    const host = new URL(domain).hostname;
    return host === "feishu.cn" || host.endsWith(".feishu.cn") ? { defaultLocale: "zh-CN" } : {};
  } catch {
    return {};
  }
}

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

/** Builds the Feishu/Lark adapter from config and secrets (`FEISHU_APP_ID`, `FEISHU_APP_SECRET`). */
export function createFeishuAdapter(opts: FeishuAdapterOptions): FeishuAdapter {
  return new FeishuAdapter(opts);
}

/** The Feishu/Lark adapter. `webhookUrl` is set after `start()` in webhook mode. */
export class FeishuAdapter implements Adapter {
  readonly platform = "feishu" as const;
  readonly capabilities: AdapterCapabilities;

  private readonly ctx: FeishuContext;
  private readonly connection: FeishuConnection;
  private readonly outbound: FeishuOutbound;

  constructor(opts: FeishuAdapterOptions) {
    this.ctx = new FeishuContext(opts);
    this.capabilities = { ...FEISHU_CAPABILITIES, ...feishuLocaleDefault(this.ctx.settings.domain) };
    this.outbound = new FeishuOutbound(this.ctx);
    const secrets = new FeishuSecretFlow(this.ctx, this.outbound);
    this.connection = new FeishuConnection(
      this.ctx,
      new FeishuInteractions(this.ctx, this.outbound, secrets),
    );
  }

  /** The bot's own open_id (from `bot/v3/info`), known after `start()`. */
  get botOpenId(): string {
    return this.ctx.botOpenId;
  }

  /** `http://127.0.0.1:PORT/path` of the webhook listener, in webhook mode after `start()`. */
  get webhookUrl(): string | undefined {
    return this.ctx.webhookUrl;
  }

  /**
   * Connects: reads the bot's open_id, then opens the long connection or the webhook listener. With
   * several replicas (`hooks.sharedIngress`) every replica does this — Feishu gives each event to one
   * of the app's long connections (at most 50) or whichever replica the balancer picks — so nothing
   * waits for `lead` and the adapter has none.
   */
  start(sink: InboundSink, hooks?: AdapterHooks): Promise<void> {
    return this.connection.start(sink, hooks);
  }

  /** Closes the long connection or the webhook listener; no message is delivered afterwards. */
  stop(): Promise<void> {
    return this.connection.stop();
  }

  /** Current health; the long connection's own state is consulted when in use. */
  health(): AdapterHealth {
    return this.connection.health();
  }

  /** Sends a reply (see `FeishuOutbound.send`). */
  send(target: OutboundTarget, reply: Reply, inReplyTo?: InboundMessage): Promise<void> {
    return this.outbound.send(target, reply, inReplyTo);
  }

  /** Measures a reply as it goes out: its text messages, plus one message per file. */
  measure(reply: Reply): number {
    return this.outbound.measure(reply);
  }

  /** The "running…" notice of slow work, as a card the result replaces. */
  acknowledge(
    target: OutboundTarget,
    notice: Reply,
    inReplyTo?: InboundMessage,
  ): Promise<string | undefined> {
    return this.outbound.acknowledge(target, notice, inReplyTo);
  }
}
