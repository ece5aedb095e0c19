/**
 * Reading Hermes' gateway records (core/hermes-gateway.ts): the records are written here in the format
 * Hermes' gateway/status.py writes, naming real processes this test starts, and judged by Hermes'
 * liveness rules (pid alive, start time from /proc/<pid>/stat, zombies dead).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { promises as fs, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acquireLock } from "../../src/core/flock.js";
import {
  hermesHold,
  hermesTokenLockFile,
  homeGateway,
  processRuns,
  processStartTime,
  recordIsLive,
} from "../../src/core/hermes-gateway.js";

const children: ChildProcess[] = [];
const temps: string[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const dir of temps.splice(0)) await fs.rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "sg-hermes-"));
  temps.push(dir);
  return dir;
}

/** A running process that looks like `hermes gateway run` on its command line. */
function fakeGateway(): number {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1e6)", "hermes", "gateway", "run"], {
    stdio: "ignore",
  });
  children.push(child);
  return child.pid as number;
}

/** The record Hermes' gateway writes into gateway.pid / gateway.lock / a token lock. */
function pidRecord(pid: number, startTime: number | undefined = processStartTime(pid)) {
  return {
    pid,
    kind: "hermes-gateway",
    argv: ["/usr/local/bin/hermes", "gateway", "run"],
    start_time: startTime,
    hermes_home: "/home/someone/.hermes",
  };
}

async function writeJson(file: string, value: unknown): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, JSON.stringify(value));
}

describe("Hermes' gateway records", () => {
  it("a gateway.pid naming a running process with its start time is a running gateway", async () => {
    const home = await tempDir();
    const pid = fakeGateway();
    expect(processStartTime(pid)).toBeGreaterThan(0);
    await writeJson(path.join(home, "gateway.pid"), pidRecord(pid));
    expect(homeGateway(home)).toEqual({ pid, platforms: undefined });
    // An older gateway's bare pid counts too.
    await fs.writeFile(path.join(home, "gateway.pid"), `${pid}\n`);
    expect(homeGateway(home)?.pid).toBe(pid);
  });

  it("a record naming this very process counts too (skillgate never writes Hermes' records)", async () => {
    const home = await tempDir();
    await writeJson(path.join(home, "gateway.pid"), pidRecord(process.pid));
    expect(homeGateway(home)?.pid).toBe(process.pid);
  });

  it("a pid reused by another process (another start time) is not the gateway", async () => {
    const home = await tempDir();
    const pid = fakeGateway();
    const start = processStartTime(pid) as number;
    await writeJson(path.join(home, "gateway.pid"), pidRecord(pid, start - 1));
    expect(recordIsLive({ pid, startTime: start - 1 })).toBe(false);
    expect(homeGateway(home)).toBeUndefined();
  });

  it("a dead pid is not a gateway, nor is a stopped gateway_state.json", async () => {
    const home = await tempDir();
    const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    const pid = child.pid as number;
    await new Promise((resolve) => child.once("exit", resolve));
    await writeJson(path.join(home, "gateway.pid"), pidRecord(pid, 12345));
    expect(processRuns(pid)).toBe(false);
    expect(homeGateway(home)).toBeUndefined();
    const live = fakeGateway();
    await writeJson(path.join(home, "gateway_state.json"), { ...pidRecord(live), gateway_state: "stopped" });
    expect(homeGateway(home)).toBeUndefined();
    await writeJson(path.join(home, "gateway_state.json"), { ...pidRecord(live), gateway_state: "running" });
    expect(homeGateway(home)?.pid).toBe(live);
  });

  it("a zombie (exited, not yet reaped) is dead", async () => {
    const home = await tempDir();
    // `sleep 0` exits at once; its parent then becomes `sleep 30`, which never reaps it.
    const parent = spawn("/bin/sh", ["-c", "sleep 0 & echo $!; exec sleep 30"], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    children.push(parent);
    const zombie = Number(
      await new Promise<string>((resolve) => parent.stdout?.once("data", (chunk) => resolve(String(chunk)))),
    );
    const state = () => readFileSync(`/proc/${zombie}/stat`, "utf8").split(") ")[1]?.[0];
    for (let tries = 0; tries < 100 && state() !== "Z"; tries++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(state()).toBe("Z");
    await writeJson(path.join(home, "gateway.pid"), pidRecord(zombie));
    expect(processRuns(zombie)).toBe(false);
    expect(homeGateway(home)).toBeUndefined();
  });

  it("gateway.lock held with flock is a running gateway even without a readable record", async () => {
    const home = await tempDir();
    expect(homeGateway(home)).toBeUndefined();
    const lock = await acquireLock(path.join(home, "gateway.lock"), { recordHolder: false });
    try {
      expect(homeGateway(home)).toEqual({ pid: undefined, platforms: undefined });
    } finally {
      await lock.release();
    }
    expect(homeGateway(home)).toBeUndefined();
  });

  it("names token locks as Hermes does: <scope>-<first 16 hex of sha256(identity)>.lock under the lock dir", async () => {
    const state = await tempDir();
    const expected = execFileSync("python3", [
      "-c",
      "import hashlib,sys; print(hashlib.sha256(sys.argv[1].encode()).hexdigest()[:16])",
      "123:secret-token",
    ])
      .toString()
      .trim();
    expect(hermesTokenLockFile("telegram-bot-token", "123:secret-token", { XDG_STATE_HOME: state })).toBe(
      path.join(state, "hermes", "gateway-locks", `telegram-bot-token-${expected}.lock`),
    );
    expect(hermesTokenLockFile("feishu-app-id", "cli_x", { HERMES_GATEWAY_LOCK_DIR: "/tmp/x" })).toMatch(
      /^\/tmp\/x\/feishu-app-id-[0-9a-f]{16}\.lock$/,
    );
  });

  it("a bot is held by a live token lock from any home, or by the shared home's gateway under Hermes' name", async () => {
    const home = await tempDir();
    const state = await tempDir();
    const env = { XDG_STATE_HOME: state };
    const credential = {
      platform: "telegram",
      scope: "telegram-bot-token",
      identity: "123:tok",
      hermesName: true,
    };
    expect(hermesHold(credential, home, env)).toBeUndefined();
    const pid = fakeGateway();
    // Another home's gateway holds the token: machine-wide, whatever the variable's name.
    await writeJson(hermesTokenLockFile("telegram-bot-token", "123:tok", env), pidRecord(pid));
    expect(hermesHold({ ...credential, hermesName: false }, home, env)).toEqual({ via: "token-lock", pid });
    await fs.rm(path.join(state, "hermes"), { recursive: true });
    // The shared home's gateway: holds the bot read from Hermes' name, not skillgate's own.
    await writeJson(path.join(home, "gateway.pid"), pidRecord(pid));
    expect(hermesHold(credential, home, env)).toEqual({ via: "home-gateway", pid });
    expect(hermesHold({ ...credential, hermesName: false }, home, env)).toBeUndefined();
    // Its runtime status says it runs Feishu only, or that its Telegram gave up: not held.
    const status = (platforms: Record<string, unknown>) =>
      writeJson(path.join(home, "gateway_state.json"), {
        ...pidRecord(pid),
        gateway_state: "running",
        platforms,
      });
    await status({ feishu: { state: "connected" } });
    expect(hermesHold(credential, home, env)).toBeUndefined();
    await status({ telegram: { state: "fatal", error_code: "telegram-bot-token_lock" } });
    expect(hermesHold(credential, home, env)).toBeUndefined();
    await status({ telegram: { state: "connected" } });
    expect(hermesHold(credential, home, env)).toEqual({ via: "home-gateway", pid });
  });
});
