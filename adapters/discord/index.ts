/**
 * The Discord adapter: a thin discord.js shell around the pure `normalize`, `commands` and `render`
 * modules, assembled here from one part per concern:
 *
 * - `connection.ts`: login to the gateway session, health from its shard events, stop;
 * - `outbound.ts`: replies as embeds or markdown chunks, the deferred reply edited and followed up,
 *   pressed messages edited in place, files, ephemeral answers;
 * - `interactions.ts`: messages, slash commands (deferred), button presses and autocomplete into the
 *   gateway's sink;
 * - `endpoint.ts`: the Interactions Endpoint, Discord's signed HTTP interactions (every replica);
 * - `answer.ts`: answering an interaction from its discord.js object or from its JSON alone;
 * - `secret-flow.ts`: a "Set KEY" press answered with a modal, its submission handed to the gateway;
 * - `registration.ts`: the slash commands, registered globally or for the configured guild.
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
import { DiscordConnection } from "./connection.js";
import { type DiscordAdapterOptions, DiscordContext } from "./context.js";
import { DiscordEndpoint } from "./endpoint.js";
import { DiscordInteractions } from "./interactions.js";
import { DiscordOutbound } from "./outbound.js";
import { DiscordRegistration } from "./registration.js";
import { DISCORD_MESSAGE_LIMIT } from "./render.js";
import { DiscordSecretFlow } from "./secret-flow.js";

export { DISCORD_TOKEN_SECRET, type DiscordAdapterOptions, type DiscordTuning } from "./context.js";

/** Builds the Discord adapter from the gateway config and the bot token secret. */
export function createDiscordAdapter(opts: DiscordAdapterOptions): DiscordAdapter {
  return new DiscordAdapter(opts);
}

/** The Discord adapter (see the module comment). */
export class DiscordAdapter implements Adapter {
  readonly platform = "discord" as const;
  readonly capabilities: AdapterCapabilities = {
    maxMessageLength: DISCORD_MESSAGE_LIMIT,
    nativeCommands: true,
    edit: true,
    threads: true,
    buttons: true,
    files: true,
    privateInput: "modal",
    // An interaction carries `locale`, "the selected language of the invoking user" (Discord's
    // interaction object, receiving-and-responding#interaction-object); a typed message carries none.
    remembersReaderLanguage: true,
  };

  private readonly ctx: DiscordContext;
  private readonly endpoint: DiscordEndpoint;
  private readonly connection: DiscordConnection;
  private readonly outbound: DiscordOutbound;
  private readonly registration: DiscordRegistration;

  constructor(opts: DiscordAdapterOptions) {
    this.ctx = new DiscordContext(opts);
    const interactions = new DiscordInteractions(this.ctx, new DiscordSecretFlow(this.ctx));
    this.endpoint = new DiscordEndpoint(this.ctx, interactions);
    this.connection = new DiscordConnection(this.ctx, this.endpoint);
    this.outbound = new DiscordOutbound(this.ctx);
    this.registration = new DiscordRegistration(this.ctx);
    interactions.listen();
    this.connection.listen();
  }

  /**
   * Starts the Interactions Endpoint when configured, then (one gateway) logs in and waits until the
   * gateway is ready (every guild received); delivers events to `sink`.
   */
  start(sink: InboundSink, hooks?: AdapterHooks): Promise<void> {
    return this.connection.start(sink, hooks);
  }

  /** This replica leads (several replicas): logs in to the gateway session. */
  lead(): Promise<void> {
    return this.connection.lead();
  }

  /** The Interactions Endpoint's local port, once listening (tests configure port 0). */
  get interactionsPort(): number | undefined {
    return this.endpoint.port;
  }

  /** Disconnects; no event is delivered afterwards. */
  stop(): Promise<void> {
    return this.connection.stop();
  }

  /** Current connection state, as `/healthz` shows it. */
  health(): AdapterHealth {
    return this.connection.health();
  }

  /** Messages a reply becomes here: its markdown chunks (or embed); files ride on the last one. */
  measure(reply: Reply): number {
    return this.outbound.measure(reply);
  }

  /** Sends a reply (see `DiscordOutbound.send`). */
  send(target: OutboundTarget, reply: Reply, inReplyTo?: InboundMessage): Promise<void> {
    return this.outbound.send(target, reply, inReplyTo);
  }

  /** The "running…" notice of slow work (see `DiscordOutbound.acknowledge`). */
  acknowledge(
    target: OutboundTarget,
    notice: Reply,
    inReplyTo?: InboundMessage,
  ): Promise<string | undefined> {
    return this.outbound.acknowledge(target, notice, inReplyTo);
  }

  /**
   * The language of a channel for posts without a reader (the home channel's maintenance summary): its
   * guild's preferred locale (Discord's `preferred_locale`, "en-US" unless a Community server chose
   * another), kept current by discord.js from GUILD_CREATE and GUILD_UPDATE. Undefined for a DM or a
   * channel this bot cannot see.
   */
  chatLanguage(chatId: string): string | undefined {
    const channel = this.ctx.client.channels.cache.get(chatId);
    return channel && "guild" in channel ? channel.guild?.preferredLocale : undefined;
  }

  /** Registers skillgate's slash commands (see `DiscordRegistration.syncCommands`). */
  syncCommands(catalog: CommandCatalogEntry[]): Promise<void> {
    return this.registration.syncCommands(catalog);
  }
}
