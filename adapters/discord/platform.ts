/**
 * Discord as it registers with the core (adapters/index.ts lists it): its name, secrets, config section
 * parser, adapter factory and doctor checks.
 * The adapter module and discord.js are imported only when the platform starts (or is checked).
 */
import type { PlatformDefinition } from "../../src/core/platforms.js";
import { type DiscordConfig, parseDiscordConfig } from "./config.js";

/** Discord as it registers with the core. */
export const discordPlatform: PlatformDefinition<DiscordConfig> = {
  name: "discord",
  secrets: ["DISCORD_BOT_TOKEN"],
  ownSecrets: { DISCORD_BOT_TOKEN: "SKILLGATE_DISCORD_BOT_TOKEN" },
  // Hermes' gateway/status.py scoped lock, as its discord adapter takes it.
  hermesLock: { scope: "discord-bot-token", identitySecret: "DISCORD_BOT_TOKEN" },
  variables: ["DISCORD_PUBLIC_KEY"],
  parseConfig: parseDiscordConfig,
  createAdapter: async (options) => (await import("./index.js")).createDiscordAdapter(options),
  diagnose: async (options) => (await import("./doctor.js")).diagnoseDiscord(options),
};
