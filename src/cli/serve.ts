/**
 * `skillgate serve` and `serve --demo`: the gateway with its adapters, the agent and the web console,
 * run until SIGTERM/SIGINT or, for the terminal chat, the end of stdin. The gateway, pino and the platform
 * SDKs are loaded only here, when the command runs.
 */
// Registers the chat platforms with the core before config.yaml is read (their sections are theirs).
import {
  botsHeldByHermes,
  configuredPlatforms,
  createAdapters,
  hermesHoldText,
  PLATFORMS,
} from "../../adapters/index.js";
import { loadConfig, type SkillgateConfig } from "../config/config.js";
import { lookupSecret, readDotenv } from "../config/dotenv.js";
import { homePaths } from "../config/home.js";
import { limitCHeapArenas } from "../core/c-heap.js";
import { ConfigError, CoordinationError, errorCause } from "../core/errors.js";
import { GATEWAY_YOUNG_GENERATION_BYTES, regulateYoungGeneration } from "../core/heap-tuning.js";
import { localeFromEnv } from "../core/i18n/locale.js";
import { english, resolveText, t } from "../core/i18n/messages.js";
import type { Logger } from "../core/logger.js";
import { preferOwnSecrets } from "../core/platforms.js";
import { type CliIo, EXIT_CONFIG, fail } from "./terminal-io.js";

/** The C heap arenas a coordinated replica's threads share (see `limitCHeapArenas`). */
const REPLICA_C_HEAP_ARENAS = 2;

/** `skillgate serve --demo`: the terminal chat over the example skills in a temporary home. */
export async function demo(io: CliIo): Promise<number> {
  const { makeDemoHome, removeDemoHome } = await import("./examples.js");
  const home = await makeDemoHome();
  io.stderr.write(`${resolveText(t("cli.demo.intro", { home }), localeFromEnv(io.env))}\n`);
  try {
    return await serve(home, loadConfig(homePaths(home).config), true, io);
  } finally {
    await removeDemoHome(home);
  }
}

/** The LLM agent for chat text when `gateway.agent.enabled` is set and a model resolves; else undefined. */
async function loadAgent(home: string, config: SkillgateConfig, env: NodeJS.ProcessEnv, logger: Logger) {
  if (!config.gateway.agent.enabled) return undefined;
  const { createChatAgent } = await import("../gateway/agent.js");
  return createChatAgent({ home, config, env, logger }) ?? undefined;
}

/** `skillgate serve`: runs the gateway until SIGTERM/SIGINT or, for the terminal chat, the end of stdin. */
export async function serve(
  home: string,
  config: SkillgateConfig,
  consoleOnly: boolean,
  io: CliIo,
): Promise<number> {
  const [{ createGateway }, { createLogger, logFormatFor }] = await Promise.all([
    import("../gateway/gateway.js"),
    import("../core/logger.js"),
  ]);
  const logStyle = (streams: CliIo) => ({
    format: logFormatFor(streams.stderr, streams.env),
    color: Boolean(streams.stderr.isTTY) && !streams.env.NO_COLOR,
  });
  const dotenv = readDotenv(homePaths(home).env);
  const secret = (name: string) => lookupSecret(name, dotenv, io.env);
  // Every .env value, and the platform tokens wherever they come from (a service's environment wins).
  const platformTokens = PLATFORMS.flatMap((platform) => [
    ...platform.secrets,
    ...Object.values(platform.ownSecrets ?? {}),
  ])
    .map((name) => secret(name))
    .filter((value): value is string => value !== undefined);
  const secretValues = [...dotenv.values(), ...platformTokens].filter((value) => value.length >= 6);
  // A bot Hermes' running gateway holds is left to it (read from Hermes' own records, files only).
  const held = consoleOnly ? [] : botsHeldByHermes({ config, home, secret, env: io.env });
  const platforms = consoleOnly
    ? []
    : configuredPlatforms({ config, secret: preferOwnSecrets(secret) }).filter(
        (name) => !held.some((bot) => bot.platform === name),
      );
  // Without a platform the terminal chat runs only on a terminal; a service keeps serving /healthz and the console.
  const terminalChat = consoleOnly || (platforms.length === 0 && Boolean(io.stdin.isTTY));
  const idle = !terminalChat && platforms.length === 0;
  if (idle && !config.gateway.health.enabled && !config.gateway.console.enabled) {
    for (const bot of held) io.stderr.write(`${resolveText(hermesHoldText(bot), localeFromEnv(io.env))}\n`);
    return fail(io, false, t("cli.serve.nothing"), EXIT_CONFIG);
  }
  const quiet = consoleOnly || platforms.length === 0;
  const logger = createLogger({
    level: io.env.SKILLGATE_LOG_LEVEL ?? (quiet ? "warn" : "info"),
    secrets: secretValues,
    ...logStyle(io),
  });
  for (const bot of held)
    logger.warn({ platform: bot.platform, pid: bot.hold.pid }, english(hermesHoldText(bot)));
  // A coordinated replica's threads (the lease worker, the Redis connections) share two C heap arenas,
  // set before they start; a single gateway keeps glibc's arena per thread (see `limitCHeapArenas`).
  if (config.gateway.coordination?.redisUrl) limitCHeapArenas(REPLICA_C_HEAP_ARENAS);
  if (idle)
    logger.warn(
      `gateway: no chat platform to start; serving${config.gateway.health.enabled ? ` /healthz on port ${config.gateway.health.port}` : ""}${config.gateway.health.enabled && config.gateway.console.enabled ? " and" : ""}${config.gateway.console.enabled ? " the web console" : ""} until stopped (SIGTERM). Set a platform's token in .env, or run \`skillgate serve --terminal\` for the terminal chat.`,
    );
  let finish: (code: number) => void = () => undefined;
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });
  let stopping = false;
  let gateway: ReturnType<typeof createGateway> | undefined;
  const shutdown = (reason: string, finishWork = false) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, "gateway: shutting down");
    // The gateway waits `gateway.stop_timeout_seconds` for running work to reach a safe point (at the end
    // of the terminal chat's input, for the commands the person gave to finish).
    if (!finishWork) {
      const limitMs = config.gateway.stopTimeoutSeconds * 1000 + 10_000;
      const forced = setTimeout(() => {
        logger.error(`gateway: shutdown took longer than ${Math.round(limitMs / 1000)} s; exiting anyway`);
        finish(1);
      }, limitMs);
      forced.unref();
    }
    void (gateway?.stop({ finishWork }) ?? Promise.resolve()).then(
      () => finish(0),
      (error) => {
        logger.error({ err: error }, "gateway: shutdown failed");
        finish(1);
      },
    );
  };
  /** Builds the adapters and the gateway and starts it; a replica that lost the lead comes back as a standby. */
  const launch = async (rejoining = false) => {
    const adapters = await createAdapters({
      config,
      home,
      secret,
      logger,
      console: consoleOnly,
      skip: held.map((bot) => bot.platform),
      terminalWhenIdle: terminalChat,
      consoleOptions: {
        input: io.stdin,
        output: io.stdout,
        onEnd: () => shutdown("end of input", true),
        locale: localeFromEnv(io.env),
      },
    });
    const agent = await loadAgent(home, config, io.env, logger);
    // The terminal chat prints notices (the web console's link) above its prompt, not after it.
    const terminal = adapters.find(
      (adapter): adapter is typeof adapter & { announce(text: string): void } => "announce" in adapter,
    );
    gateway = createGateway({
      home,
      config,
      adapters,
      logger,
      agent,
      // `serve --terminal` (or --console) is the terminal chat alone; otherwise the web console comes along (if enabled).
      // The login link only on a terminal: a service's stdout is a log.
      console: consoleOnly
        ? undefined
        : {
            announce: (line) => (terminal ? terminal.announce(line) : io.stdout.write(`${line}\n`)),
            printLink: Boolean(io.stdout.isTTY),
            locale: localeFromEnv(io.env),
          },
      waitForRedis: rejoining,
      onLeadershipLost: (reason, options) => {
        logger.info({ reason }, "gateway: rejoining as a standby");
        void rejoin(options.retryAfterMs);
      },
    });
    await gateway.start();
  };
  /** Starts a fresh gateway after a lost lead; while Redis is unreachable it tries again every 2 s. */
  const rejoin = async (delayMs: number) => {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    while (!stopping) {
      try {
        await launch(true);
        return;
      } catch (error) {
        if (!(error instanceof CoordinationError)) {
          logger.error({ err: error }, "gateway: could not rejoin as a standby");
          finish(1);
          return;
        }
        logger.warn(`gateway: cannot rejoin yet (${error.message}); trying again in 2 s`);
        await new Promise((resolve) => setTimeout(resolve, 2_000));
      }
    }
  };
  try {
    process.once("SIGTERM", () => shutdown("SIGTERM"));
    process.once("SIGINT", () => shutdown("SIGINT"));
    await launch();
    regulateYoungGeneration(GATEWAY_YOUNG_GENERATION_BYTES);
  } catch (error) {
    if (error instanceof ConfigError) return fail(io, false, error.text, EXIT_CONFIG);
    logger.error({ err: error }, "gateway: failed to start");
    return fail(io, false, t("cli.serve.failed", { cause: errorCause(error) }), 1);
  }
  return finished;
}
