/**
 * Feishu/Lark as it registers with the core (adapters/index.ts lists it): its name, secrets, config section
 * parser, adapter factory and doctor checks. The adapter module and the SDK are imported only when the platform starts (or is checked).
 */
import type { PlatformDefinition } from "../../src/core/platforms.js";
import { type FeishuConfig, parseFeishuConfig } from "./config.js";

/** Feishu/Lark as it registers with the core. */
export const feishuPlatform: PlatformDefinition<FeishuConfig> = {
  name: "feishu",
  secrets: ["FEISHU_APP_ID", "FEISHU_APP_SECRET"],
  ownSecrets: { FEISHU_APP_ID: "SKILLGATE_FEISHU_APP_ID", FEISHU_APP_SECRET: "SKILLGATE_FEISHU_APP_SECRET" },
  // Hermes' gateway/status.py scoped lock, as its feishu adapter takes it.
  hermesLock: { scope: "feishu-app-id", identitySecret: "FEISHU_APP_ID" },
  // Not read from .env today, but the names Feishu's console gives them: never a skill's to set.
  variables: ["FEISHU_VERIFICATION_TOKEN", "FEISHU_ENCRYPT_KEY"],
  parseConfig: parseFeishuConfig,
  createAdapter: async (options) => (await import("./index.js")).createFeishuAdapter(options),
  diagnose: async (options) => (await import("./doctor.js")).diagnoseFeishu(options),
  configSecrets: (section) => [
    { name: "VERIFICATION_TOKEN", value: section.verificationToken },
    { name: "ENCRYPT_KEY", value: section.encryptKey },
  ],
};
