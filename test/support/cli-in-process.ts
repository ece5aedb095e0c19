/** Runs the `skillgate` CLI's `main` in this process with its own streams (faster than a child). */
import { PassThrough } from "node:stream";

/** What a run printed and its exit code. */
export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/**
 * `skillgate ...args`, with `stdin` (a terminal when it has `isTTY`) fed `input` once the command started
 * reading.
 */
export async function runCliArgs(
  args: string[],
  options: { stdin?: PassThrough & { isTTY?: boolean }; input?: string } = {},
): Promise<CliRun> {
  const { main } = await import("../../src/cli.js");
  const stdin = options.stdin ?? new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (chunk) => {
    out += chunk;
  });
  stderr.on("data", (chunk) => {
    err += chunk;
  });
  const done = main(args, {
    stdin,
    stdout,
    stderr,
    env: { NO_COLOR: "1", SKILLGATE_LOG_LEVEL: "silent", PATH: process.env.PATH },
  });
  setTimeout(() => stdin.end(options.input ?? ""), 50);
  const code = await done;
  return { code, out, err };
}

/** `skillgate --home <home> ...args` (see `runCliArgs`). */
export function runCli(
  home: string,
  args: string[],
  options: { stdin?: PassThrough & { isTTY?: boolean }; input?: string } = {},
): Promise<CliRun> {
  return runCliArgs(["--home", home, ...args], options);
}
