/** The CLI run in this process, as the tests of several commands use it. */
import { PassThrough } from "node:stream";
import { main } from "../../src/cli.js";

/** Runs `skillgate args…` in-process with `input` on stdin; resolves with the exit code and both outputs. */
export async function runCliInProcess(
  args: string[],
  input = "",
  env: NodeJS.ProcessEnv = { NO_COLOR: "1", SKILLGATE_LOG_LEVEL: "silent" },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdin = new PassThrough();
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
  const running = main(args, { stdin, stdout, stderr, env });
  setTimeout(() => stdin.end(input), 50);
  const code = await running;
  return { code, stdout: out, stderr: err };
}
