/**
 * The Discord Interactions Endpoint: with `gateway.discord.interactions.port` set, every replica listens
 * on 127.0.0.1 (put a TLS reverse proxy in front) for the signed HTTP interactions Discord sends to the
 * application's Interactions Endpoint URL — slash commands, button presses, modal submissions and
 * autocomplete — instead of sending them over the gateway session ("These two methods are mutually
 * exclusive", Discord docs, Receiving and Responding → Receiving an Interaction). The listener caps
 * connections and request times (`createGuardedServer`); each request is checked before its body is
 * read — both signature headers present and well-formed, `X-Signature-Timestamp` digits within five
 * minutes of now either way (a captured interaction cannot be replayed later), the declared size — then
 * the body is read with a deadline and its Ed25519 signature checked (401, failures rate limited per
 * client, then 429; Discord also sends bad signatures on purpose and removes an endpoint that takes
 * them, Interactions → Overview → Setting Up an Endpoint). A PING is answered with a PONG; everything
 * else is taken by `DiscordInteractions` exactly as over the gateway, its initial response written as
 * this request's response body (Receiving and Responding → "Inline HTTP Response Behavior").
 */

import type { KeyObject } from "node:crypto";
import type http from "node:http";
import { AdapterError, ConfigError } from "../../src/core/errors.js";
import {
  clientAddress,
  createGuardedServer,
  FailureRateLimiter,
  headerOf,
  readBodyLimited,
  refuseAndClose,
  refuseBody,
  timestampFresh,
} from "../../src/core/http-guard.js";
import type { DiscordComponentJson } from "./actions.js";
import { interactionAddress, WebhookInteraction } from "./answer.js";
import { discordConfig } from "./config.js";
import { type DiscordContext, describe } from "./context.js";
import type { DiscordInteractions } from "./interactions.js";
import type { DiscordInteractionJson } from "./normalize.js";
import { publicKeyFromHex, verifyInteraction } from "./signature.js";

/** The secret (in `.env`) holding the application's public key when the config does not. */
export const DISCORD_PUBLIC_KEY_SECRET = "DISCORD_PUBLIC_KEY";

/** Largest interaction body read (bytes): an interaction is a few KB (a resolved message at most). */
const MAX_INTERACTION_BODY = 1024 * 1024;
/** Requests with a bad signature answered 401 per client per minute; more get 429. */
const SIGNATURE_FAILURES_PER_MINUTE = 120;
/**
 * How far `X-Signature-Timestamp` (Unix seconds, the time Discord signed the request) may be from our
 * clock either way. Discord answers an interaction within 3 seconds, so a fresh one is never near it;
 * Discord's own libraries check signatures over timestamp + body, and a window is what makes a captured
 * request useless later (Discord docs, Interactions → Overview → "Validating Security Request Headers").
 */
const MAX_TIMESTAMP_SKEW_MS = 5 * 60_000;

/** Interaction types (Discord docs, Interaction Object → Interaction Type). */
const PING = 1;
const APPLICATION_COMMAND = 2;
const MESSAGE_COMPONENT = 3;
const AUTOCOMPLETE = 4;
const MODAL_SUBMIT = 5;

/** Said when an interaction is one skillgate does not handle (a context-menu command, a select menu). */
const NOT_HANDLED = "skillgate does not handle this here.";

/** The Interactions Endpoint of one Discord adapter. */
export class DiscordEndpoint {
  private server: http.Server | undefined;

  constructor(
    private readonly ctx: DiscordContext,
    private readonly interactions: DiscordInteractions,
  ) {}

  /** The endpoint is configured (`gateway.discord.interactions.port`). */
  get configured(): boolean {
    return discordConfig(this.ctx.opts.config).interactions.port !== undefined;
  }

  /** Where it listens, once listening: `127.0.0.1:port/path`. */
  get address(): string | undefined {
    const address = this.server?.address();
    if (!address || typeof address === "string") return undefined;
    return `127.0.0.1:${address.port}${discordConfig(this.ctx.opts.config).interactions.path}`;
  }

  /** The local port, once listening (the configured one, or the one picked for port 0). */
  get port(): number | undefined {
    const address = this.server?.address();
    return address && typeof address !== "string" ? address.port : undefined;
  }

  /** Listens on 127.0.0.1; throws a `ConfigError` without a valid public key. */
  async start(): Promise<void> {
    if (this.server || !this.configured) return;
    const { port, path, bind } = discordConfig(this.ctx.opts.config).interactions;
    const key = this.publicKey();
    const failures = new FailureRateLimiter(SIGNATURE_FAILURES_PER_MINUTE);
    const server = createGuardedServer((req, res) => {
      const requestPath = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
      if (req.method !== "POST" || requestPath !== path) {
        res.writeHead(404).end();
        return;
      }
      this.handle(req, res, key, failures).catch((error: unknown) => {
        this.ctx.intakeFailures.record();
        this.ctx.log.error({ err: error }, "discord endpoint: handling an interaction failed");
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    }, this.ctx.opts.config.gateway.trustedProxies);
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, bind, () => resolve());
      });
    } catch (error) {
      throw new AdapterError(
        "discord",
        `Could not listen for Discord interactions on 127.0.0.1:${port} (${describe(error)}). Choose a free gateway.discord.interactions.port.`,
        { cause: error, code: "adapter.discord.endpoint" },
      );
    }
    this.server = server;
    this.ctx.log.info({ address: this.address }, "discord interactions endpoint listening");
  }

  /** Stops listening; requests in flight are cut off. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private publicKey(): KeyObject {
    const configured = discordConfig(this.ctx.opts.config).interactions.publicKey;
    const hex = configured ?? this.ctx.opts.secret(DISCORD_PUBLIC_KEY_SECRET);
    const key = hex ? publicKeyFromHex(hex) : undefined;
    if (!key) {
      throw new ConfigError(
        "gateway.discord.interactions.public_key",
        hex
          ? "gateway.discord.interactions.public_key (or DISCORD_PUBLIC_KEY) is not a public key: copy the 64 hex digits of PUBLIC KEY from the Developer Portal → your application → General Information."
          : "gateway.discord.interactions.port is set but the application's public key is not: put DISCORD_PUBLIC_KEY=<the 64 hex digits of PUBLIC KEY from the Developer Portal → General Information> in <home>/.env, or set gateway.discord.interactions.public_key.",
      );
    }
    return key;
  }

  /**
   * Checks one request — its headers (signature and timestamp well-formed, the timestamp fresh), then
   * its body (size, deadline, signature) — and answers it.
   */
  private async handle(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    key: KeyObject,
    failures: FailureRateLimiter,
  ): Promise<void> {
    const signature = headerOf(req, "x-signature-ed25519");
    const timestamp = headerOf(req, "x-signature-timestamp");
    const refuse = (reason: string, beforeBody: boolean) => {
      const client = clientAddress(req, this.ctx.opts.config.gateway.trustedProxies);
      const limited = failures.failed(client);
      this.ctx.log.warn({ client, status: limited ? 429 : 401, reason }, "discord endpoint: request refused");
      if (beforeBody) {
        refuseAndClose(req, res, limited ? 429 : 401, "invalid request signature");
        return;
      }
      res.writeHead(limited ? 429 : 401, { "content-type": "text/plain", connection: "close" });
      res.end("invalid request signature");
    };
    if (!signature || !/^[0-9a-fA-F]{128}$/.test(signature))
      return refuse("signature header malformed", true);
    if (!timestampFresh(timestamp, Date.now(), MAX_TIMESTAMP_SKEW_MS))
      return refuse("timestamp missing, malformed or not within five minutes", true);
    const body = await readBodyLimited(req, MAX_INTERACTION_BODY);
    if (typeof body === "string") {
      if (body === "too-large")
        this.ctx.log.warn({ limit: MAX_INTERACTION_BODY }, "discord endpoint: request body over the limit");
      refuseBody(req, res, body, MAX_INTERACTION_BODY);
      return;
    }
    if (!verifyInteraction(key, signature, timestamp, body)) return refuse("bad signature", false);
    let raw: DiscordInteractionJson;
    try {
      raw = JSON.parse(body.toString("utf8")) as DiscordInteractionJson;
    } catch {
      res.writeHead(400).end();
      return;
    }
    // Signed but not an interaction object (`null`, a number, an array): nothing to take.
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      res.writeHead(400).end();
      return;
    }
    if (raw.type === PING) {
      // "Your app is expected to acknowledge the request by returning a 200 response with a PONG
      // payload (which has the same type: 1)", with a valid Content-Type (Interactions → Overview).
      writeJson(res, { type: PING });
      return;
    }
    await this.take(raw, res);
  }

  /** Takes a signed interaction; its initial response becomes this request's response. */
  private async take(raw: DiscordInteractionJson, res: http.ServerResponse): Promise<void> {
    const address = interactionAddress(raw);
    if (!address || !this.ctx.sink) {
      // Not started (or stopping): nothing can take it; Discord shows that the interaction failed.
      res.writeHead(address ? 503 : 400).end();
      return;
    }
    const interaction = new WebhookInteraction(this.ctx.client.rest, address, async (response) => {
      if (res.headersSent || res.destroyed) throw new Error("the interaction's HTTP request is gone");
      writeJson(res, response);
    });
    let taken = true;
    if (raw.type === APPLICATION_COMMAND) {
      taken = await this.interactions.takeCommand(interaction, raw, "endpoint");
    } else if (raw.type === MESSAGE_COMPONENT) {
      taken = await this.interactions.takePress(
        interaction,
        raw as DiscordComponentJson,
        "endpoint",
        (modal) => interaction.showModal(modal),
      );
    } else if (raw.type === AUTOCOMPLETE) {
      await interaction.autocomplete(await this.interactions.suggest(raw));
    } else if (raw.type === MODAL_SUBMIT) {
      taken = await this.interactions.takeModalSubmit(interaction, raw);
    } else {
      taken = false;
    }
    if (!taken && !interaction.hasAnswered) {
      // A replay of an interaction already taken, or a kind skillgate does not handle: said privately.
      await interaction.reply({ content: NOT_HANDLED, flags: 64, allowedMentions: { parse: [] } });
    }
    if (!res.headersSent) res.writeHead(500).end();
  }
}

function writeJson(res: http.ServerResponse, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
