/** What a test's child process prints, collected until it ends. */
import type { ChildProcess } from "node:child_process";

/** A child's exit code (null when a signal ended it) and everything it printed. */
export interface ChildOutput {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Options of `outputOf`. */
export interface OutputOptions {
  /** Written to the child's stdin, which is then closed; without it stdin is left alone. */
  input?: string;
  /** The child is killed (SIGKILL) when it has not ended after this long. */
  timeoutMs?: number;
}

/** Collects `child`'s stdout and stderr until it closes; rejects when it could not be started. */
export function outputOf(child: ChildProcess, options: OutputOptions = {}): Promise<ChildOutput> {
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}
