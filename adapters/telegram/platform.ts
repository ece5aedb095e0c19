/**
 * Telegram as it registers with the core (adapters/index.ts lists it): its name, secrets, config section
 * parser, adapter factory and doctor checks.
 * The adapter module and grammY are imported only when the platform starts (or is checked).
 */
import type { PlatformDefinition } from "../../src/core/platforms.js";
import { parseTelegramConfig, type TelegramConfig } from "./config.js";

/** Telegram as it registers with the core. */
export const telegramPlatform: PlatformDefinition<TelegramConfig> = {
  name: "telegram",
  secrets: ["TELEGRAM_BOT_TOKEN"],
  ownSecrets: { TELEGRAM_BOT_TOKEN: "SKILLGATE_TELEGRAM_BOT_TOKEN" },
  // Hermes' gateway/status.py scoped lock, as its telegram adapter takes it.
  hermesLock: { scope: "telegram-bot-token", identitySecret: "TELEGRAM_BOT_TOKEN" },
  variables: ["TELEGRAM_WEBHOOK_URL", "TELEGRAM_WEBHOOK_SECRET"],
  parseConfig: parseTelegramConfig,
  createAdapter: async (options) => (await import("./index.js")).createTelegramAdapter(options),
  diagnose: async (options) => (await import("./doctor.js")).diagnoseTelegram(options),
  configSecrets: (section) => [{ name: "WEBHOOK_SECRET", value: section.webhook.secret }],
};
