/**
 * The one list of chat platforms, and the adapters `skillgate serve` runs: every listed platform whose
 * `gateway.<platform>.enabled` is true and whose secrets exist. Importing this module registers the
 * listed platforms with the core, so config.yaml's `gateway.<platform>` sections are validated by their
 * own adapters. Adapter modules (and their SDKs) are imported only when used. With none configured, or
 * with `--console`, the local terminal chat runs.
 */
import type { Adapter } from "../src/core/message.js";
import {
  type AdapterOptions,
  type PlatformDefinition,
  type PlatformsConfig,
  registerPlatform,
} from "../src/core/platforms.js";
import { type ConsoleAdapterOptions, createConsoleAdapter } from "./console/index.js";
import { discordPlatform } from "./discord/platform.js";
import { feishuPlatform } from "./feishu/platform.js";
import { telegramPlatform } from "./telegram/platform.js";

/** Every chat platform skillgate can connect to (adding one is one line here plus its own folder). */
export const PLATFORMS: readonly PlatformDefinition[] = [telegramPlatform, feishuPlatform, discordPlatform];

for (const platform of PLATFORMS) registerPlatform(platform);

/** The platforms to start: enabled in config and with every secret present. */
export function configuredPlatforms(options: {
  config: PlatformsConfig;
  secret: AdapterOptions["secret"];
}): string[] {
  return PLATFORMS.filter(
    (platform) =>
      options.config.gateway.platforms[platform.name]?.enabled === true &&
      platform.secrets.every((name) => options.secret(name) !== undefined),
  ).map((platform) => platform.name);
}

/** Options of `createAdapters`. */
export interface CreateAdaptersOptions extends AdapterOptions {
  /** `serve --terminal` (older name `--console`): only the terminal chat, whatever is configured. */
  console?: boolean;
  /** Streams and end-of-input callback for the terminal chat. */
  consoleOptions?: Omit<ConsoleAdapterOptions, "logger">;
}

/** Builds the adapters to run (never empty: the terminal chat when nothing else is configured). */
export async function createAdapters(options: CreateAdaptersOptions): Promise<Adapter[]> {
  const base: AdapterOptions = {
    config: options.config,
    home: options.home,
    secret: options.secret,
    logger: options.logger,
  };
  const names = options.console ? [] : configuredPlatforms(base);
  if (names.length === 0)
    return [createConsoleAdapter({ ...options.consoleOptions, logger: options.logger })];
  const adapters: Adapter[] = [];
  for (const platform of PLATFORMS) {
    if (names.includes(platform.name)) adapters.push(await platform.createAdapter(base));
  }
  return adapters;
}
