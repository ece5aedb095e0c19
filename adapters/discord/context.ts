/**
 * What the parts of the Discord adapter share: the options and timings, the discord.js client (its REST
 * base pointed at `gateway.discord.api`), the logger, the gateway's sink and hooks once started, the
 * health state, the interactions waiting for their answers and the layout that maps slash commands back
 * to command lines.
 */
import { Client, GatewayIntentBits, Options, Partials } from "discord.js";
import { AdapterError } from "../../src/core/errors.js";
import { IntakeFailures } from "../../src/core/intake-failures.js";
import type { Logger } from "../../src/core/logger.js";
import type { AdapterHealth, AdapterHooks, InboundSink } from "../../src/core/message.js";
import type { AdapterOptions } from "../../src/core/platforms.js";
import type { AnswerableInteraction } from "./answer.js";
import { buildInteractionLayout } from "./commands.js";
import { discordConfig } from "./config.js";
import type { DiscordInteractionJson, InteractionLayout } from "./normalize.js";

/** What the factory takes: the options every adapter receives, plus timings tests shorten. */
export interface DiscordAdapterOptions extends AdapterOptions {
  tuning?: Partial<DiscordTuning>;
}

/** Timings of the Discord adapter. */
export interface DiscordTuning {
  /** How long `start()` waits for READY and every guild (ms). */
  readyTimeoutMs: number;
  /**
   * Time given to the gateway's skill lookup for one autocomplete request (ms). Discord drops an
   * answer that comes more than 3 s after the request (error 10062), so whatever is known by then is
   * sent.
   */
  autocompleteBudgetMs: number;
}

export const DEFAULT_TUNING: DiscordTuning = { readyTimeoutMs: 30_000, autocompleteBudgetMs: 2_000 };

/**
 * The gateway intents skillgate asks for. None is privileged: DMs and messages that mention the bot
 * carry their content without the Message Content intent, and those are the only messages read.
 */
export const DISCORD_INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.DirectMessages,
] as const;

/**
 * What discord.js caches. The adapter reads only the guilds, their channels and roles (a channel's guild
 * locale, the bot's managed role); messages, members, users and the other per-guild collections are kept
 * by default (200 messages per channel, every member and author seen) and would only grow with the servers
 * the bot is in. Each message and interaction carries what the adapter needs, and replies go through REST,
 * so none of those caches is ever read. The bot's own user and member stay (discord.js consults them).
 */
export function discordCacheFactory(): ReturnType<typeof Options.cacheWithLimits> {
  const isBot = (entry: { id: string; client: Client }) => entry.id === entry.client.user?.id;
  return Options.cacheWithLimits({
    MessageManager: 0,
    DMMessageManager: 0,
    GuildMessageManager: 0,
    ReactionManager: 0,
    ReactionUserManager: 0,
    PresenceManager: 0,
    VoiceStateManager: 0,
    GuildEmojiManager: 0,
    BaseGuildEmojiManager: 0,
    ApplicationEmojiManager: 0,
    GuildStickerManager: 0,
    GuildScheduledEventManager: 0,
    GuildInviteManager: 0,
    GuildBanManager: 0,
    StageInstanceManager: 0,
    AutoModerationRuleManager: 0,
    ApplicationCommandManager: 0,
    EntitlementManager: 0,
    ThreadMemberManager: 0,
    GuildMemberManager: { maxSize: 0, keepOverLimit: isBot },
    UserManager: { maxSize: 0, keepOverLimit: isBot },
  });
}

/** The secret holding the bot token. */
export const DISCORD_TOKEN_SECRET = "DISCORD_BOT_TOKEN";

/** Interaction tokens stay valid for 15 minutes; after that a reply must go to the channel. */
export const INTERACTION_TTL_MS = 15 * 60 * 1000;
/** Sent instead of an empty reply so a deferred “thinking…” never stays forever. */
export const EMPTY_REPLY = "Done.";

/** A button press waiting for (or receiving) its answer. */
export interface PendingPress {
  interaction: AnswerableInteraction;
  /** Set once acknowledged: resolves true when Discord accepted the acknowledgement. */
  acknowledged: Promise<boolean> | undefined;
  /** The message carrying the button was replaced with the first chunk. */
  edited: boolean;
  createdAt: number;
}

/** A slash command waiting for (or receiving) its reply. */
export interface PendingInteraction {
  interaction: AnswerableInteraction;
  /** Set once deferred: resolves true when Discord accepted the deferral. */
  deferred: Promise<boolean> | undefined;
  /** The deferred reply has been replaced with the first chunk. */
  edited: boolean;
  createdAt: number;
}

/** One Discord adapter's shared state. */
export class DiscordContext {
  readonly tuning: DiscordTuning;
  readonly intents: readonly GatewayIntentBits[];
  readonly log: Logger;
  readonly token: string | undefined;
  readonly client: Client;
  /** Slash commands waiting for (or receiving) their replies, by interaction id. */
  readonly pending = new Map<string, PendingInteraction>();
  /** Button presses waiting for (or receiving) their answers, by interaction id. */
  readonly presses = new Map<string, PendingPress>();
  /** Raw interaction payloads waiting for discord.js to hand the interactions over. */
  readonly rawInteractions = new Map<string, DiscordInteractionJson>();
  /** Maps slash commands back to command lines (set by each command registration). */
  layout: InteractionLayout = buildInteractionLayout([]);
  /** `layout` came from a registration in this process (else a replica reads the leader's). */
  layoutRegistered = false;
  state: AdapterHealth = { state: "stopped", detail: "not started" };
  /** Endpoint interactions whose handling failed lately (`/healthz` says `degraded` while they repeat). */
  readonly intakeFailures = new IntakeFailures();
  sink: InboundSink | null = null;
  hooks: AdapterHooks | undefined;
  /** Deliveries to the gateway, one after another in arrival order. */
  inbox: Promise<void> = Promise.resolve();
  botUserId: string | null = null;
  stopped = false;

  constructor(readonly opts: DiscordAdapterOptions) {
    this.tuning = { ...DEFAULT_TUNING, ...opts.tuning };
    this.intents = DISCORD_INTENTS;
    this.log = opts.logger.child({ adapter: "discord" });
    this.token = opts.secret(DISCORD_TOKEN_SECRET);
    const api = discordConfig(opts.config).api;
    this.client = new Client({
      intents: [...this.intents],
      partials: [Partials.Channel],
      makeCache: discordCacheFactory(),
      rest: api ? { api } : {},
    });
    if (this.token) this.client.rest.setToken(this.token);
  }

  /** The bot token; throws a clear `AdapterError` when it is not set. */
  requireToken(): string {
    if (!this.token) {
      throw new AdapterError(
        "discord",
        `Discord is enabled but ${DISCORD_TOKEN_SECRET} is not set. Put it in <home>/.env or the environment, or set gateway.discord.enabled: false.`,
        { code: "adapter.discord.token" },
      );
    }
    return this.token;
  }

  /** Records the connection state; shard events arriving after `stop()` do not revive it. */
  setState(state: AdapterHealth["state"], detail: string): void {
    if (this.stopped && state !== "stopped") return;
    this.state = { state, detail };
  }

  /** The health detail of a live connection: who the bot is and in how many guilds. */
  connectedDetail(): string {
    const user = this.client.user;
    return user ? `logged in as ${user.tag}, ${this.client.guilds.cache.size} guild(s)` : "connected";
  }
}

/** An error's message (or the thrown value as text). */
export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
