/** A `skillgate serve` child process as one replica of a shared home, for the multi-replica tests. */
import { type ChildProcess, spawn } from "node:child_process";

/** Options of `spawnServe`. */
export interface ServeOptions {
  /** The built CLI entry point. */
  cli: string;
  /** The working directory of the child. */
  cwd: string;
  home: string;
  /** `gateway.coordination.replica_id`. */
  replicaId: string;
  /** More `--set path=value` settings, in order. */
  settings: Record<string, string | number>;
  /** Added to this process's environment. */
  env: NodeJS.ProcessEnv;
}

/** Starts `skillgate --home <home> serve` as replica `replicaId`; what it prints is collected in `log`. */
export function spawnServe(options: ServeOptions): { proc: ChildProcess; log: string[] } {
  const settings = { "gateway.coordination.replica_id": options.replicaId, ...options.settings };
  const proc = spawn(
    process.execPath,
    [
      options.cli,
      "--home",
      options.home,
      "serve",
      ...Object.entries(settings).flatMap(([path, value]) => ["--set", `${path}=${value}`]),
    ],
    { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  const log: string[] = [];
  proc.stdout?.on("data", (chunk: Buffer) => log.push(chunk.toString()));
  proc.stderr?.on("data", (chunk: Buffer) => log.push(chunk.toString()));
  return { proc, log };
}
