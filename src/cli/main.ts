#!/usr/bin/env node
// First: refuses a Node.js older than 20.19 before anything else is evaluated.
import "./node-check.js";
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isShortRead, tuneHeapForCommand } from "../core/heap-tuning.js";
import { commandWords } from "./command-words.js";
import type { CliIo } from "./terminal-io.js";

/**
 * The `skillgate` entry. It imports nothing of the program up front: a process started for one command
 * gets its V8 settings first (`tuneHeapForCommand`, short reads included), and only then is the program
 * (`program.ts`: commander, the config, the commands it needs) loaded under them. `main` called in a
 * running process (tests) leaves the short reads' settings alone: they would stay for all it runs next.
 */

/** Runs the CLI with `argv` (without node and the script) and resolves with the exit code. */
export async function main(
  argv: string[] = process.argv.slice(2),
  io: CliIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env },
): Promise<number> {
  tuneHeapForCommand(commandWords(argv)[0]);
  const { runProgram } = await import("./program.js");
  return runProgram(argv, io);
}

/** Exits once stdout and stderr have drained: a pipe reader must get the whole JSON document. */
function exitAfterFlush(code: number): void {
  process.exitCode = code;
  process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
}

function isMainModule(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMainModule()) {
  const words = commandWords(process.argv.slice(2));
  tuneHeapForCommand(words[0], isShortRead(words, process.argv.includes("--json")));
  main().then(exitAfterFlush, (error) => {
    process.stderr.write(
      `skillgate: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    exitAfterFlush(1);
  });
}
