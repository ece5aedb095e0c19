/**
 * Starting the web console from the gateway or from `skillgate console`: opens the server, announces
 * the URL and a one-time login link on the terminal (the log gets the URL only: a log is read by more
 * people, for longer, than the link's 15 minutes), and warns loudly when it listens beyond this machine. `consoleLoginLink` mints another link for a console that is already running (it shares the
 * home's secret).
 */
import { registry as defaultRegistry } from "../../../commands/index.js";
import type { CommandSpec } from "../../../commands/types.js";
import type { SkillgateConfig } from "../../config/config.js";
import { DEFAULT_LOCALE, type Locale } from "../../core/i18n/locale.js";
import { resolveText, t } from "../../core/i18n/messages.js";
import { type Logger, silentLogger } from "../../core/logger.js";
import { openLibrary } from "../../skills/library.js";
import type { SkillLibrary } from "../../skills/types.js";
import { ConsoleAuth, type ConsoleRole, loadConsoleSecret, type SharedRedemption } from "./auth.js";
import { type ConsoleServer, isLoopback, startConsoleServer } from "./server.js";

/** Options of `launchConsole`. */
export interface LaunchOptions {
  home: string;
  config: SkillgateConfig;
  logger?: Logger;
  /** The gateway's library (its watcher feeds the live updates); a new one when absent. */
  library?: SkillLibrary;
  registry?: readonly CommandSpec[];
  port?: number;
  bind?: string;
  /** The role of the printed login link (default admin). */
  role?: ConsoleRole;
  /** Where the URL and login link are printed (the terminal); only the URL is logged. */
  announce?: (line: string) => void;
  /** The language of the announced lines (the terminal's `LANG`; default English). */
  locale?: Locale;
  /**
   * Print the login link with the URL (default true). Off when what is announced ends up in a log
   * anyway (a service's stdout); the lines then say how to get a link.
   */
  printLink?: boolean;
  idleSeconds?: () => number | Promise<number>;
  onMutated?: () => void | Promise<void>;
  /** Where login redemptions are shared with the other replicas (the coordination store), if any. */
  sharedRedemption?: SharedRedemption;
}

/** Starts the console and announces how to log in. */
export async function launchConsole(options: LaunchOptions): Promise<ConsoleServer> {
  const logger = options.logger ?? silentLogger();
  const library = options.library ?? openLibrary(options.home, options.config);
  const server = await startConsoleServer({
    home: options.home,
    config: options.config,
    library,
    registry: options.registry ?? defaultRegistry,
    logger,
    port: options.port,
    bind: options.bind,
    idleSeconds: options.idleSeconds,
    onMutated: options.onMutated,
    sharedRedemption: options.sharedRedemption,
  });
  const lines = [
    t("launch.console", { url: server.url }),
    options.printLink === false
      ? t("launch.logInCommand")
      : t("launch.logInLink", { url: server.loginUrl(options.role ?? "admin") }),
  ];
  if (!server.loopback) lines.unshift(t("launch.notLoopback"));
  for (const line of lines) options.announce?.(resolveText(line, options.locale ?? DEFAULT_LOCALE));
  logger.info({ url: server.url }, "console: listening (the login link is on the terminal)");
  return server;
}

/** A fresh login link for the console of `home` (running or about to run), from the home's secret. */
export function consoleLoginLink(
  home: string,
  config: SkillgateConfig,
  role: ConsoleRole,
  where: { port?: number; bind?: string } = {},
): string {
  const bind = where.bind ?? config.gateway.console.bind;
  const port = where.port ?? config.gateway.console.port;
  const host = isLoopback(bind) || bind === "0.0.0.0" || bind === "::" ? "127.0.0.1" : bind;
  const token = new ConsoleAuth(loadConsoleSecret(home)).mintLoginToken(role);
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}/login?token=${token}`;
}
