/**
 * The terminal side of every CLI command: the streams it uses, its exit codes, a prompt, and how a
 * reply or a refusal is printed (text in the reader's language, or one JSON document with `--json`).
 */
import readline from "node:readline";
import { localeFromEnv } from "../core/i18n/locale.js";
import { english, resolveText, type Text, t } from "../core/i18n/messages.js";
import { renderJsonChunks, renderTerminal } from "../core/render-terminal.js";
import type { Reply } from "../core/reply.js";

/** The streams and environment the CLI uses (tests pass their own). */
export interface CliIo {
  stdin: NodeJS.ReadStream | (NodeJS.ReadableStream & { isTTY?: boolean });
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

/** Exit code for bad usage. */
export const EXIT_USAGE = 2;
/** Exit code for bad configuration (sysexits EX_CONFIG). */
export const EXIT_CONFIG = 78;

/** Asks a question on the terminal (hidden typing for `hidden`) and resolves with the answer. */
export function makePrompt(io: CliIo) {
  return (asked: Text, options: { hidden?: boolean } = {}) =>
    new Promise<string>((resolve) => {
      const question = resolveText(asked, localeFromEnv(io.env));
      const rl = readline.createInterface({ input: io.stdin, output: io.stdout, terminal: true });
      if (options.hidden) {
        const internals = rl as unknown as { _writeToOutput: (text: string) => void };
        internals._writeToOutput = (text: string) => {
          if (text.startsWith(question)) io.stdout.write(question);
        };
      }
      rl.question(question, (answer) => {
        if (options.hidden) io.stdout.write("\n");
        rl.close();
        resolve(answer);
      });
    });
}

/**
 * Prints a reply: the JSON document on stdout with `--json`, else the text on stdout, or on stderr when
 * the command failed (`report`: a report such as doctor's, always on stdout, whatever it found).
 */
export function printReply(reply: Reply, json: boolean, io: CliIo, report = false): void {
  if (json) {
    // In pieces: a large document never sits in memory whole, as one string and its encoded copy.
    for (const chunk of renderJsonChunks(reply)) io.stdout.write(chunk);
    const locale = localeFromEnv(io.env);
    for (const warning of reply.warnings ?? [])
      io.stderr.write(`${resolveText(t("cli.warning", { warning }), locale)}\n`);
    return;
  }
  const color = Boolean(io.stdout.isTTY) && !io.env.NO_COLOR;
  const text = renderTerminal(reply, { color, locale: localeFromEnv(io.env) });
  (reply.exitCode === 0 || report ? io.stdout : io.stderr).write(text);
}

/**
 * Prints why the command line stops: `text` on stderr in the reader's language and, with `--json`, a
 * `{ ok: false, error, exit_code }` document with its English on stdout. Returns `exitCode`.
 */
export function fail(io: CliIo, json: boolean, text: Text, exitCode: number): number {
  io.stderr.write(`${resolveText(text, localeFromEnv(io.env)).replace(/\n*$/, "")}\n`);
  if (json)
    io.stdout.write(
      `${JSON.stringify({ ok: false, error: english(text).trim(), exit_code: exitCode }, null, 2)}\n`,
    );
  return exitCode;
}
