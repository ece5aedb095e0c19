/**
 * The one list of chat platforms, and the adapters `skillgate serve` runs: every listed platform whose
 * `gateway.<platform>.enabled` is true and whose secrets exist. Importing this module registers the
 * listed platforms with the core, so config.yaml's `gateway.<platform>` sections are validated by their
 * own adapters. Adapter modules (and their SDKs) are imported only when used. With none configured, or
 * with `--console`, the local terminal chat runs.
 */
import { type HermesHold, hermesHold, homeGateway } from "../src/core/hermes-gateway.js";
import { type Text, t } from "../src/core/i18n/messages.js";
import type { Adapter } from "../src/core/message.js";
import {
  type AdapterOptions,
  type PlatformDefinition,
  type PlatformsConfig,
  preferOwnSecrets,
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

/** A configured platform whose bot a running Hermes gateway holds, with skillgate's own names for its secrets. */
export interface HeldBot {
  platform: string;
  hold: HermesHold;
  ownSecrets: string[];
}

/**
 * The configured platforms whose bot a running Hermes gateway holds (see `core/hermes-gateway.ts`).
 * `secret` is the plain lookup (Hermes' names and skillgate's own alike); only files are read.
 */
export function botsHeldByHermes(options: {
  config: PlatformsConfig;
  home: string;
  secret: AdapterOptions["secret"];
  env?: NodeJS.ProcessEnv;
}): HeldBot[] {
  const secret = preferOwnSecrets(options.secret);
  const names = configuredPlatforms({ config: options.config, secret });
  const held: HeldBot[] = [];
  let gateway: ReturnType<typeof homeGateway> | null = null;
  for (const platform of PLATFORMS) {
    const lock = platform.hermesLock;
    const identity = lock ? secret(lock.identitySecret) : undefined;
    if (!lock || identity === undefined || !names.includes(platform.name)) continue;
    const ownName = platform.ownSecrets?.[lock.identitySecret];
    const hermesName = ownName === undefined || options.secret(ownName) === undefined;
    gateway ??= homeGateway(options.home);
    const hold = hermesHold(
      { platform: platform.name, scope: lock.scope, identity, hermesName },
      options.home,
      options.env,
      gateway,
    );
    if (hold)
      held.push({ platform: platform.name, hold, ownSecrets: Object.values(platform.ownSecrets ?? {}) });
  }
  return held;
}

/** The one line saying a bot is left to Hermes' running gateway, with the two ways out. */
export function hermesHoldText(bot: HeldBot): Text {
  return t("cli.hermes.holds", { summary: hermesHoldSummary(bot), fix: hermesHoldFix(bot) });
}

/** What `skillgate doctor` says of a bot Hermes' gateway holds. */
export function hermesHoldSummary(bot: HeldBot): Text {
  return t("hermes.holds", { platform: bot.platform, pid: bot.hold.pid ?? "?" });
}

/** The two ways out of a bot Hermes' gateway holds. */
export function hermesHoldFix(bot: HeldBot): Text {
  return t("hermes.holds.fix", { platform: bot.platform, names: bot.ownSecrets.join(", ") });
}

/** Options of `createAdapters`. */
export interface CreateAdaptersOptions extends AdapterOptions {
  /** `serve --terminal` (older name `--console`): only the terminal chat, whatever is configured. */
  console?: boolean;
  /** Streams and end-of-input callback for the terminal chat. */
  consoleOptions?: Omit<ConsoleAdapterOptions, "logger">;
  /** Configured platforms not to start (their bot is held by Hermes' gateway). */
  skip?: readonly string[];
  /** Start the terminal chat when no platform starts (only when stdin is a terminal). Default true. */
  terminalWhenIdle?: boolean;
}

/**
 * Builds the adapters to run: the configured platforms (secrets read under skillgate's own names
 * first), or the terminal chat when none starts and `terminalWhenIdle` allows it; else none.
 */
export async function createAdapters(options: CreateAdaptersOptions): Promise<Adapter[]> {
  const base: AdapterOptions = {
    config: options.config,
    home: options.home,
    secret: preferOwnSecrets(options.secret),
    logger: options.logger,
  };
  const skip = options.skip ?? [];
  const names = options.console ? [] : configuredPlatforms(base).filter((name) => !skip.includes(name));
  if (names.length === 0)
    return options.console || options.terminalWhenIdle !== false
      ? [createConsoleAdapter({ ...options.consoleOptions, logger: options.logger })]
      : [];
  const adapters: Adapter[] = [];
  for (const platform of PLATFORMS) {
    if (names.includes(platform.name)) adapters.push(await platform.createAdapter(base));
  }
  return adapters;
}
