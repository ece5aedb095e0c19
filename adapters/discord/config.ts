/**
 * The Discord platform's registration: its `gateway.discord` config section (schema, defaults,
 * validation), the secret it needs and its adapter factory (discord.js is imported only when it starts).
 */
import type { ConfigReader, PlatformsConfig } from "../../src/core/platforms.js";
import { platformSection } from "../../src/core/platforms.js";

/** `gateway.discord`, with defaults applied. */
export interface DiscordConfig {
  enabled: boolean;
  /** Set when Discord does not say it (`/applications/@me`). */
  applicationId?: string;
  /** Registers the slash commands in this guild only (instant) instead of globally. */
  guildId?: string;
  /** REST/gateway API root without a trailing slash (tests point it at the emulator). */
  api?: string;
  /**
   * The Interactions Endpoint (`gateway.discord.interactions`): when `port` is set, every replica
   * listens on 127.0.0.1:`port` at `path` for Discord's signed HTTP interactions (put a TLS reverse
   * proxy in front and enter its public URL as the application's Interactions Endpoint URL).
   */
  interactions: DiscordInteractionsConfig;
}

/** `gateway.discord.interactions`. */
export interface DiscordInteractionsConfig {
  /** Local port of the endpoint; unset: interactions come over the gateway session. */
  port?: number;
  /** Local path the endpoint answers (default `/discord/interactions`). */
  path: string;
  /** The application's public key (64 hex digits); else `DISCORD_PUBLIC_KEY` from `.env`. */
  publicKey?: string;
  /** The address it listens on (default 127.0.0.1; a load balancer in another container: `0.0.0.0`). */
  bind: string;
}

/** Where the endpoint answers unless `gateway.discord.interactions.path` says otherwise. */
export const DEFAULT_INTERACTIONS_PATH = "/discord/interactions";

/** Parses `gateway.discord`. */
export function parseDiscordConfig(reader: ConfigReader): DiscordConfig {
  return {
    enabled: reader.bool("enabled", true),
    applicationId: reader.str("application_id"),
    guildId: reader.str("guild_id"),
    api: reader.str("api")?.replace(/\/+$/, ""),
    interactions: parseInteractions(reader.section("interactions")),
  };
}

function parseInteractions(reader: ConfigReader): DiscordInteractionsConfig {
  const path = reader.str("path")?.trim();
  return {
    port: reader.num("port", { integer: true, min: 0, max: 65535 }),
    path: !path ? DEFAULT_INTERACTIONS_PATH : path.startsWith("/") ? path : `/${path}`,
    publicKey: reader.str("public_key")?.trim(),
    bind: reader.str("bind")?.trim() || "127.0.0.1",
  };
}

/** The Discord section of a parsed config. */
export function discordConfig(config: PlatformsConfig): DiscordConfig {
  return platformSection<DiscordConfig>(config, "discord");
}
