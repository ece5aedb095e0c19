/**
 * `skillgate console`: the web console alone, or with `--link` one more login link for it.
 */
import type { SkillgateConfig } from "../config/config.js";
import { errorCause } from "../core/errors.js";
import { localeFromEnv } from "../core/i18n/locale.js";
import { t } from "../core/i18n/messages.js";
import { type CliIo, fail } from "./terminal-io.js";

/** What `skillgate console` was asked: a port and address, a login link only, a read-only role. */
export interface WebConsoleOptions {
  port?: number;
  bind?: string;
  link: boolean;
  readOnly: boolean;
}

/** `skillgate console`: the web console alone until SIGTERM/SIGINT, or `--link`: one more login link. */
export async function webConsole(
  home: string,
  config: SkillgateConfig,
  options: WebConsoleOptions,
  io: CliIo,
): Promise<number> {
  const role = options.readOnly ? "read-only" : "admin";
  if (options.link) {
    const { consoleLoginLink } = await import("../gateway/console/launch.js");
    io.stdout.write(`${consoleLoginLink(home, config, role, options)}\n`);
    return 0;
  }
  const { launchConsole } = await import("../gateway/console/launch.js");
  const { createLogger, logFormatFor } = await import("../core/logger.js");
  const logger = createLogger({
    level: io.env.SKILLGATE_LOG_LEVEL ?? "warn",
    format: logFormatFor(io.stderr, io.env),
    color: Boolean(io.stderr.isTTY) && !io.env.NO_COLOR,
  });
  let running: Awaited<ReturnType<typeof launchConsole>>;
  try {
    running = await launchConsole({
      home,
      config,
      logger,
      port: options.port,
      bind: options.bind,
      role,
      announce: (line) => io.stdout.write(`${line}\n`),
      locale: localeFromEnv(io.env),
    });
  } catch (error) {
    return fail(io, false, t("cli.console.failed", { cause: errorCause(error) }), 1);
  }
  return new Promise<number>((resolve) => {
    const stop = () =>
      void running.close().then(
        () => resolve(0),
        () => resolve(1),
      );
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
  });
}
