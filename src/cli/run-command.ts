/**
 * A registry command run from the terminal: its context (prompt, progress bar, the reader's locale),
 * SIGTERM/SIGINT asking a changing command to stop at a safe point, then its reply printed.
 */
import { terminalContext } from "../../commands/context.js";
import { runCommand } from "../../commands/runner.js";
import type { CommandInput, CommandSpec } from "../../commands/types.js";
import type { SkillgateConfig } from "../config/config.js";
import { localeFromEnv } from "../core/i18n/locale.js";
import { resolveText, t } from "../core/i18n/messages.js";
import { type CliIo, makePrompt, printReply } from "./terminal-io.js";
import { terminalProgress } from "./terminal-progress.js";

/** Runs one registry command for the terminal and resolves with its exit code. */
export async function runInTerminal(
  home: string,
  config: SkillgateConfig,
  { spec, input }: { spec: CommandSpec; input: CommandInput },
  io: CliIo,
): Promise<number> {
  const locale = localeFromEnv(io.env);
  const json = input.options.json === true;
  const platformOption = input.options.platform;
  const platform = typeof platformOption === "string" ? platformOption : io.env.HERMES_PLATFORM || null;
  const interactive = Boolean((io.stdin as { isTTY?: boolean }).isTTY);
  const bar = await terminalProgress(io.stderr, json);
  const stop = spec.mutating ? stopOnSignals(io) : undefined;
  const ctx = terminalContext({
    home,
    config,
    platform,
    json,
    interactive,
    prompt: interactive ? makePrompt(io) : undefined,
    progress: (line) => io.stderr.write(`${resolveText(line, locale)}\n`),
    meter: bar?.sink,
    signal: stop?.signal,
  });
  const reply = await runCommand(spec, ctx, input, {
    onUnexpected: (error) =>
      io.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`),
  }).finally(() => {
    bar?.stop();
    stop?.release();
  });
  printReply(reply, json, io);
  return reply.exitCode;
}

/**
 * While a command that changes the library runs, the first SIGTERM or SIGINT asks it to stop at its next
 * safe point (a curator run records what it did and ends); a second one ends the process at once.
 */
function stopOnSignals(io: CliIo): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(signal === "SIGINT" ? 130 : 143);
    io.stderr.write(`${resolveText(t("cli.signal.stopping", { signal }), localeFromEnv(io.env))}\n`);
    controller.abort();
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  return {
    signal: controller.signal,
    release: () => {
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
    },
  };
}
