/**
 * `skillgate serve` at a real terminal (a pseudo-terminal from util-linux's `script`): the web console's
 * link is printed above the chat prompt, not after it, and a log line is a short readable line with its
 * fix instead of pino JSON.
 */
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import { createServer, type Server } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const cli = path.join(root, "dist", "src", "cli", "main.js");
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve(typeof address === "object" && address ? address.port : 0);
    });
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs `skillgate serve` in a pseudo-terminal until `done(output)` holds, then ends its input. */
async function serveAtTerminal(home: string, done: (output: string) => boolean): Promise<string> {
  const command = [process.execPath, cli, "--home", home, "serve"].map((word) => `'${word}'`).join(" ");
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    env: { ...process.env, NO_COLOR: "1", SKILLGATE_LOG_FORMAT: "", TERM: "dumb" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise((resolve) => child.once("close", resolve));
  cleanups.push(async () => {
    child.kill("SIGKILL");
  });
  for (let waited = 0; waited < 20_000 && !done(output); waited += 50)
    await new Promise((resolve) => setTimeout(resolve, 50));
  child.stdin.write("\u0004");
  child.stdin.end();
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  return output;
}

async function home(config: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "sg-tty-"));
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
  await fs.writeFile(path.join(dir, "config.yaml"), config);
  return dir;
}

describe("skillgate serve at a terminal", () => {
  it("prints the web console's link above the chat prompt", async () => {
    const port = await freePort();
    const dir = await home(`gateway:\n  health: { enabled: false }\n  console: { port: ${port} }\n`);
    const output = (await serveAtTerminal(dir, (text) => /login\?token=\S+[\s\S]*> /.test(text))).replace(
      /\r/g,
      "",
    );
    const link = output.lastIndexOf("login?token=");
    expect(output).toContain(`skillgate console: http://127.0.0.1:${port}`);
    expect(link).toBeGreaterThan(0);
    // The prompt comes back after the link: what the person types starts below it.
    expect(output.slice(link)).toMatch(/\n> /);
  });

  it("logs a port clash as one readable line with its fix, not JSON", async () => {
    const busy = createServer();
    const port = await listen(busy);
    cleanups.push(() => new Promise((resolve) => busy.close(resolve)));
    const dir = await home(`gateway:\n  health: { enabled: false }\n  console: { port: ${port} }\n`);
    const output = await serveAtTerminal(dir, (text) => text.includes("EADDRINUSE"));
    const line = output.split(/\r?\n/).find((text) => text.includes("EADDRINUSE")) ?? "";
    expect(line).toMatch(
      /\d\d:\d\d:\d\d ERROR gateway: the web console could not start \(set gateway\.console\.port to a free port, or gateway\.console\.enabled: false\) — listen EADDRINUSE/,
    );
    expect(output).not.toContain('"level"');
    expect(output).not.toContain("    at ");
  });
});
