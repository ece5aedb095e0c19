/** Runs the real CLI entry point in-process and captures what it prints. */
import { main } from "../../src/cli/main.js";

/** Exit code, stdout and stderr of one `skillgate` invocation. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `skillgate --home <home> ...args` with no TTY and an empty environment. */
export async function runCli(home: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const sink = (write: (chunk: string) => void) =>
    ({
      isTTY: false,
      write: (chunk: string) => {
        write(String(chunk));
        return true;
      },
    }) as unknown as NodeJS.WriteStream;
  const code = await main(["--home", home, ...args], {
    stdin: { isTTY: false } as unknown as NodeJS.ReadStream,
    stdout: sink((chunk) => {
      stdout += chunk;
    }),
    stderr: sink((chunk) => {
      stderr += chunk;
    }),
    env,
  });
  return { code, stdout, stderr };
}
