/**
 * Telegram as it registers with the core (adapters/index.ts lists it): its name, secrets, config section
 * parser and adapter factory. The adapter module and grammY are imported only when the platform starts.
 */
import type { PlatformDefinition } from "../../src/core/platforms.js";
import { parseTelegramConfig, type TelegramConfig } from "./config.js";

/** Telegram as it registers with the core. */
export const telegramPlatform: PlatformDefinition<TelegramConfig> = {
  name: "telegram",
  secrets: ["TELEGRAM_BOT_TOKEN"],
  parseConfig: parseTelegramConfig,
  createAdapter: async (options) => (await import("./index.js")).createTelegramAdapter(options),
};
