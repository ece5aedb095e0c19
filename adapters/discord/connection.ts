/**
 * The Discord connection: the Interactions Endpoint when configured (`endpoint.ts`, on every replica),
 * and the login to the gateway session with bounded retries, ready once READY and every guild arrived;
 * a fatal close (bad token, disallowed intents) fails at once, saying what to change. With several
 * replicas (`AdapterHooks.sharedIngress`) only the leading one holds the gateway session (Discord allows
 * one per bot): `start` brings up the endpoint and REST, `lead` logs in. Shard events keep the health
 * state; after `stop()` nothing revives it.
 */
import { once } from "node:events";
import { Events, GatewayIntentBits } from "discord.js";
import { AdapterError } from "../../src/core/errors.js";
import type { AdapterHealth, AdapterHooks, InboundSink } from "../../src/core/message.js";
import { connectWithRetries } from "../../src/core/startup.js";
import { DEFAULT_TUNING, DISCORD_INTENTS, type DiscordContext, describe } from "./context.js";
import type { DiscordEndpoint } from "./endpoint.js";

/** Developer Portal switch of each privileged intent (Bot → Privileged Gateway Intents). */
const PRIVILEGED_SWITCHES: [GatewayIntentBits, string][] = [
  [GatewayIntentBits.MessageContent, "Message Content Intent"],
  [GatewayIntentBits.GuildMembers, "Server Members Intent"],
  [GatewayIntentBits.GuildPresences, "Presence Intent"],
];

/** Gateway close codes after which discord.js gives up, and what each means for the owner. */
const FATAL_CLOSE_CODES = new Set([4004, 4010, 4011, 4012, 4013, 4014]);
/** Attempts of the first login before the adapter reports `failed`. */
const START_ATTEMPTS = 3;

/** Logs in, keeps the health state and disconnects one Discord adapter. */
export class DiscordConnection {
  /** The gateway session is logged in (or logging in). */
  private session: Promise<void> | undefined;

  constructor(
    private readonly ctx: DiscordContext,
    private readonly endpoint: DiscordEndpoint,
  ) {}

  /** Follows the gateway session's shard events into the health state. */
  listen(): void {
    const { client, log } = this.ctx;
    client.on(Events.ShardDisconnect, () => this.ctx.setState("degraded", "gateway connection closed"));
    client.on(Events.ShardReconnecting, () => this.ctx.setState("degraded", "reconnecting to the gateway"));
    client.on(Events.ShardResume, () => this.ctx.setState("connected", this.connectedDetail()));
    client.on(Events.ShardReady, () => this.ctx.setState("connected", this.connectedDetail()));
    client.on(Events.Error, (error) => log.error({ err: error }, "discord client error"));
  }

  /**
   * Starts the Interactions Endpoint (when configured) and, unless several replicas share the ingress,
   * logs in and waits until the gateway is ready (every guild received); then delivers events to `sink`.
   */
  async start(sink: InboundSink, hooks?: AdapterHooks): Promise<void> {
    this.ctx.requireToken();
    this.ctx.sink = sink;
    this.ctx.hooks = hooks;
    this.ctx.stopped = false;
    this.ctx.setState(
      "starting",
      this.endpoint.configured ? "opening the interactions endpoint" : "logging in",
    );
    try {
      await this.endpoint.start();
    } catch (error) {
      this.ctx.setState("failed", describe(error));
      throw error;
    }
    if (hooks?.sharedIngress) {
      this.ctx.setState("connected", this.standbyDetail());
      return;
    }
    await this.lead();
  }

  /**
   * Logs in to the gateway session (DMs, mentions, and the interactions when no endpoint takes them);
   * once per start. With several replicas the leading one calls it.
   */
  lead(): Promise<void> {
    this.session ??= this.login().catch(async (error: unknown) => {
      this.session = undefined;
      // One gateway failed to start: nothing of it stays up. A replica keeps its endpoint (the gateway
      // hands the lead on and stops this adapter).
      if (!this.ctx.hooks?.sharedIngress) await this.endpoint.close();
      throw error;
    });
    return this.session;
  }

  private standbyDetail(): string {
    const where = this.endpoint.address;
    return where
      ? `interactions endpoint on ${where}; the gateway session runs on the leading replica`
      : "the gateway session runs on the leading replica";
  }

  private async login(): Promise<void> {
    const token = this.ctx.requireToken();
    this.ctx.setState("starting", "logging in");
    const readyTimeoutMs = this.ctx.tuning.readyTimeoutMs;
    const failure = (error: unknown) => loginFailure(error, this.ctx.intents, readyTimeoutMs);
    await connectWithRetries({
      platform: "discord",
      attempts: START_ATTEMPTS,
      baseDelayMs: 1_000,
      maxDelayMs: 30_000,
      logger: this.ctx.log,
      onState: (detail) => this.ctx.setState("starting", detail),
      // A fatal close (bad token, disallowed intents) is not worth another attempt.
      fatal: (error) =>
        error instanceof GatewayClosedError ||
        /TokenInvalid|invalid token|Authentication failed|401/i.test(describe(error)),
      attempt: async () => {
        const abort = new AbortController();
        const timer = setTimeout(() => abort.abort(), readyTimeoutMs);
        const ready = once(this.ctx.client, Events.ClientReady, { signal: abort.signal });
        // A fatal close means READY never comes: fail at once, saying why.
        let onClose: ((event: { code: number }) => void) | undefined;
        const closed = new Promise<never>((_resolve, reject) => {
          onClose = (event) => {
            if (FATAL_CLOSE_CODES.has(event.code)) reject(new GatewayClosedError(event.code));
          };
          this.ctx.client.on(Events.ShardDisconnect, onClose);
        });
        try {
          await Promise.race([this.ctx.client.login(token).then(() => ready), closed]);
        } catch (error) {
          ready.catch(() => undefined);
          await this.ctx.client.destroy().catch(() => undefined);
          throw error;
        } finally {
          clearTimeout(timer);
          abort.abort();
          if (onClose) this.ctx.client.off(Events.ShardDisconnect, onClose);
          closed.catch(() => undefined);
        }
      },
      wrap: (error) => {
        this.ctx.setState("failed", failure(error));
        return new AdapterError("discord", failure(error), {
          cause: error,
          code:
            error instanceof GatewayClosedError
              ? `adapter.discord.close_${error.code}`
              : "adapter.discord.login",
          // A wrong token (401, close 4004) or intents the application does not allow (4014).
          refused:
            error instanceof GatewayClosedError
              ? error.code === 4004 || error.code === 4014
              : /TokenInvalid|invalid token|Authentication failed|401/i.test(describe(error)),
        });
      },
    });
    this.ctx.botUserId = this.ctx.client.user?.id ?? this.ctx.botUserId;
    this.ctx.setState("connected", this.connectedDetail());
    this.ctx.log.info({ user: this.ctx.client.user?.tag }, "discord connected");
  }

  /** Disconnects; no event is delivered afterwards. */
  async stop(): Promise<void> {
    this.ctx.stopped = true;
    this.ctx.sink = null;
    this.ctx.pending.clear();
    this.ctx.presses.clear();
    this.ctx.rawInteractions.clear();
    this.session = undefined;
    await this.endpoint.close();
    await this.ctx.client.destroy();
    await this.ctx.inbox.catch(() => undefined);
    this.ctx.state = { state: "stopped", detail: "stopped" };
  }

  /** The health detail of a live session, and where the endpoint listens. */
  private connectedDetail(): string {
    const where = this.endpoint.address;
    return where
      ? `${this.ctx.connectedDetail()}; interactions endpoint on ${where}`
      : this.ctx.connectedDetail();
  }

  /** Current connection state, as `/healthz` shows it. */
  health(): AdapterHealth {
    return this.ctx.intakeFailures.apply({ ...this.ctx.state });
  }
}

/** The gateway closed the connection with a code discord.js does not recover from. */
class GatewayClosedError extends Error {
  constructor(readonly code: number) {
    super(`Discord closed the gateway connection with code ${code}`);
    this.name = "GatewayClosedError";
  }
}

/** Tells the owner what a failed login means and what to change. */
export function loginFailure(
  error: unknown,
  intents: readonly GatewayIntentBits[] = DISCORD_INTENTS,
  readyTimeoutMs: number = DEFAULT_TUNING.readyTimeoutMs,
): string {
  if (error instanceof GatewayClosedError) return closeCodeAdvice(error.code, intents);
  const text = describe(error);
  if (/TokenInvalid|invalid token|Authentication failed|401/i.test(text)) {
    return `Discord rejected DISCORD_BOT_TOKEN (${text}). Copy the bot token again from the Developer Portal into <home>/.env.`;
  }
  if (error instanceof Error && error.name === "AbortError") {
    return `Discord did not become ready within ${readyTimeoutMs / 1000} s. Check gateway.discord.api and the network.`;
  }
  return `Could not connect to Discord: ${text}. Check the network and gateway.discord.api.`;
}

/** What a fatal gateway close code means for the owner (Discord's Gateway Close Event Codes). */
export function closeCodeAdvice(
  code: number,
  intents: readonly GatewayIntentBits[] = DISCORD_INTENTS,
): string {
  if (code === 4004)
    return "Discord closed the connection with 4004 (authentication failed): DISCORD_BOT_TOKEN is wrong or was reset. Copy the bot token again from the Developer Portal (Bot → Reset Token) into <home>/.env.";
  if (code === 4014) {
    const wanted = PRIVILEGED_SWITCHES.filter(([bit]) => intents.includes(bit)).map(([, name]) => name);
    const which = wanted.length > 0 ? wanted.join(", ") : "the privileged intents";
    return `Discord closed the connection with 4014 (disallowed intents): the bot asked for ${which}, which is not switched on for this application. Turn it on in the Developer Portal → your application → Bot → Privileged Gateway Intents, then restart.`;
  }
  if (code === 4011)
    return "Discord closed the connection with 4011 (sharding required): the bot is in more than 2,500 servers, and Discord lets one gateway session hold at most 2,500. skillgate holds one session per bot (on the leading replica with gateway.coordination), so it cannot serve this bot: use a bot of its own (another application and token) for the servers skillgate should serve, or remove the bot from servers until it is in 2,500 or fewer.";
  if (code === 4013)
    return "Discord closed the connection with 4013 (invalid intents): report this as a skillgate bug.";
  return `Discord closed the connection with code ${code} and will not reconnect. Check DISCORD_BOT_TOKEN and gateway.discord.api.`;
}
