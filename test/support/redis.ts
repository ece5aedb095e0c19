/**
 * A real Redis for the coordination tests: Debian's `redis-server` (installed by `.ci/run` when missing)
 * started on a free loopback port with no snapshots and an append-only file in a temporary folder, so a
 * test can stop it and start it again from its AOF.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/** A running test server. */
export interface TestRedis {
  url: string;
  port: number;
  /** Stops it (SIGTERM: the AOF is flushed). */
  stop(): Promise<void>;
  /** Starts it again on the same port from its AOF. */
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  dispose(): Promise<void>;
}

/** A free port on 127.0.0.1 (for a test server). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts a Redis on 127.0.0.1 (see the file's comment). */
export async function startRedis(): Promise<TestRedis> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-redis-"));
  const port = await freePort();
  let proc: ChildProcess | undefined;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(
        "redis-server",
        ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes", "--dir", dir],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      proc = child;
      let output = "";
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${output}`)), 10_000);
      child.stdout?.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("Ready to accept connections")) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        if (!output.includes("Ready to accept connections"))
          reject(new Error(`redis-server exited (${code}): ${output}`));
      });
    });
  const stop = async () => {
    const child = proc;
    proc = undefined;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    dispose: async () => {
      await stop();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
