/**
 * Builds the adapters `skillgate serve` runs: every platform whose `gateway.<platform>.enabled` is true
 * and whose token secrets exist (Telegram `TELEGRAM_BOT_TOKEN`; Feishu `FEISHU_APP_ID` +
 * `FEISHU_APP_SECRET`; Discord `DISCORD_BOT_TOKEN`). Platform modules (and their SDKs) are imported only
 * when used. With none configured, or with `--console`, the local terminal chat.
 */
import type { Adapter } from "../src/core/message.js";
import { type ConsoleAdapterOptions, createConsoleAdapter } from "./console/index.js";
import type { AdapterOptions } from "./types.js";

/** A chat platform skillgate can connect to, and the secrets it needs. */
export const PLATFORM_SECRETS = {
  telegram: ["TELEGRAM_BOT_TOKEN"],
  feishu: ["FEISHU_APP_ID", "FEISHU_APP_SECRET"],
  discord: ["DISCORD_BOT_TOKEN"],
} as const;

/** A platform name with secrets. */
export type RemotePlatform = keyof typeof PLATFORM_SECRETS;

/** The platforms to start: enabled in config and with every secret present. */
export function configuredPlatforms(options: Pick<AdapterOptions, "config" | "secret">): RemotePlatform[] {
  return (Object.keys(PLATFORM_SECRETS) as RemotePlatform[]).filter(
    (platform) =>
      options.config.gateway[platform].enabled &&
      PLATFORM_SECRETS[platform].every((name) => options.secret(name) !== undefined),
  );
}

/** Options of `createAdapters`. */
export interface CreateAdaptersOptions extends AdapterOptions {
  /** `serve --console`: only the terminal chat, whatever is configured. */
  console?: boolean;
  /** Streams and end-of-input callback for the terminal chat. */
  consoleOptions?: Omit<ConsoleAdapterOptions, "logger">;
}

async function createPlatformAdapter(platform: RemotePlatform, options: AdapterOptions): Promise<Adapter> {
  switch (platform) {
    case "telegram":
      return (await import("./telegram/index.js")).createTelegramAdapter(options);
    case "feishu":
      return (await import("./feishu/index.js")).createFeishuAdapter(options);
    case "discord":
      return (await import("./discord/index.js")).createDiscordAdapter(options);
  }
}

/** Builds the adapters to run (never empty: the terminal chat when nothing else is configured). */
export async function createAdapters(options: CreateAdaptersOptions): Promise<Adapter[]> {
  const base: AdapterOptions = {
    config: options.config,
    home: options.home,
    secret: options.secret,
    logger: options.logger,
  };
  const platforms = options.console ? [] : configuredPlatforms(base);
  if (platforms.length === 0)
    return [createConsoleAdapter({ ...options.consoleOptions, logger: options.logger })];
  const adapters: Adapter[] = [];
  for (const platform of platforms) adapters.push(await createPlatformAdapter(platform, base));
  return adapters;
}
