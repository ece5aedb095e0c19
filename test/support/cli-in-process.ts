/** Runs the `skillgate` CLI's `main` in this process with its own streams (faster than a child). */
import { PassThrough } from "node:stream";

/** What a run printed and its exit code. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of `runCliArgs`. */
export interface CliRunOptions {
  /** The run's stdin (a terminal when it has `isTTY`); a fresh stream by default. */
  stdin?: PassThrough & { isTTY?: boolean };
  /** Fed to stdin once the command started reading. */
  input?: string;
  /** The run's environment; default no color, no logs, this PATH. */
  env?: NodeJS.ProcessEnv;
}

/** `skillgate ...args` in this process. */
export async function runCliArgs(args: string[], options: CliRunOptions = {}): Promise<CliRun> {
  const { main } = await import("../../src/cli/main.js");
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
    env: options.env ?? { NO_COLOR: "1", SKILLGATE_LOG_LEVEL: "silent", PATH: process.env.PATH },
  });
  setTimeout(() => stdin.end(options.input ?? ""), 50);
  const code = await done;
  return { code, stdout: out, stderr: err };
}

/** `skillgate --home <home> ...args` (see `runCliArgs`). */
export function runCli(home: string, args: string[], options: CliRunOptions = {}): Promise<CliRun> {
  return runCliArgs(["--home", home, ...args], options);
}
