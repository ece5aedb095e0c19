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
}

/** Parses `gateway.discord`. */
export function parseDiscordConfig(reader: ConfigReader): DiscordConfig {
  return {
    enabled: reader.bool("enabled", true),
    applicationId: reader.str("application_id"),
    guildId: reader.str("guild_id"),
    api: reader.str("api")?.replace(/\/+$/, ""),
  };
}

/** The Discord section of a parsed config. */
export function discordConfig(config: PlatformsConfig): DiscordConfig {
  return platformSection<DiscordConfig>(config, "discord");
}
