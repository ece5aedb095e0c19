/**
 * The Telegram adapter: a thin network shell (grammy) around the pure `normalizeUpdate`, `renderReply`
 * and `buildCommandMenu`, assembled here from one part per concern:
 *
 * - `connection.ts`: the first connection, long polling (`offset.ts`) or the webhook (`webhook.ts`),
 *   the lock that refuses a second gateway on the same bot and home, health and stop;
 * - `outbound.ts`: replies as HTML chunks, edits in place, documents, 429 waits and network retries;
 * - `interactions.ts`: updates into the gateway's sink, button presses answered once;
 * - `secret-flow.ts`: a "Set KEY" press answered with a one-time link in the presser's private chat;
 * - `registration.ts`: the command menu (`setMyCommands`).
 */
import type {
  Adapter,
  AdapterCapabilities,
  AdapterHealth,
  AdapterHooks,
  CommandCatalogEntry,
  InboundMessage,
  InboundSink,
  OutboundTarget,
} from "../../src/core/message.js";
import type { Reply } from "../../src/core/reply.js";
import { TelegramConnection } from "./connection.js";
import { type TelegramAdapterOptions, TelegramContext } from "./context.js";
import { TelegramInteractions } from "./interactions.js";
import { TelegramOutbound } from "./outbound.js";
import { TelegramMenuSync } from "./registration.js";
import { TELEGRAM_MAX_LENGTH } from "./render.js";
import { TelegramSecretFlow } from "./secret-flow.js";

export type { TelegramAdapterOptions, TelegramTuning } from "./context.js";

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

/** Builds the Telegram adapter; throws `AdapterError` when `TELEGRAM_BOT_TOKEN` is missing. */
export function createTelegramAdapter(options: TelegramAdapterOptions): Adapter {
  return new TelegramAdapter(options);
}

class TelegramAdapter implements Adapter {
  readonly platform = "telegram" as const;
  readonly capabilities = TELEGRAM_CAPABILITIES;

  private readonly ctx: TelegramContext;
  private readonly connection: TelegramConnection;
  private readonly outbound: TelegramOutbound;
  private readonly menu: TelegramMenuSync;

  constructor(options: TelegramAdapterOptions) {
    this.ctx = new TelegramContext(options);
    this.outbound = new TelegramOutbound(this.ctx);
    this.connection = new TelegramConnection(this.ctx);
    this.menu = new TelegramMenuSync(this.ctx);
    const interactions = new TelegramInteractions(this.ctx, new TelegramSecretFlow(this.ctx, this.outbound));
    this.ctx.bot.use((incoming) => interactions.onUpdate(incoming));
  }

  health(): AdapterHealth {
    return this.ctx.intakeFailures.apply({ ...this.ctx.state });
  }

  start(sink: InboundSink, hooks?: AdapterHooks): Promise<void> {
    return this.connection.start(sink, hooks);
  }

  /** Several replicas: this one leads, so it registers the webhook or starts polling. */
  lead(): Promise<void> {
    return this.connection.lead();
  }

  stop(): Promise<void> {
    return this.connection.stop();
  }

  send(target: OutboundTarget, reply: Reply, inReplyTo?: InboundMessage): Promise<void> {
    return this.outbound.send(target, reply, inReplyTo);
  }

  acknowledge(
    target: OutboundTarget,
    notice: Reply,
    inReplyTo?: InboundMessage,
  ): Promise<string | undefined> {
    return this.outbound.acknowledge(target, notice, inReplyTo);
  }

  measure(reply: Reply): number {
    return this.outbound.measure(reply);
  }

  syncCommands(catalog: CommandCatalogEntry[]): Promise<void> {
    return this.menu.syncCommands(catalog);
  }
}
