/**
 * The built CLI beside a running Hermes gateway on a shared home, and under a supervisor: a bot Hermes'
 * gateway holds is never called (the Telegram emulator records every call), `serve` says so in one line
 * with the two ways out and `doctor` reports it; skillgate's own token (`SKILLGATE_TELEGRAM_BOT_TOKEN`)
 * starts; with no platform and stdin not a terminal `serve` keeps serving /healthz until SIGTERM (exit
 * 0), with nothing at all to serve it exits 78, and a refused token exits 78.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { hermesTokenLockFile, processStartTime } from "../../src/core/hermes-gateway.js";
import { DiscordEmulator } from "../emulators/discord.js";
import { LarkEmulator } from "../emulators/lark.js";
import { TelegramEmulator } from "../emulators/telegram.js";
import { freePort } from "../support/redis.js";

const root = path.resolve(import.meta.dirname, "../..");
const cli = path.join(root, "dist", "src", "cli", "main.js");

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function tempDir(prefix: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

async function emulator(): Promise<TelegramEmulator> {
  const telegram = new TelegramEmulator();
  await telegram.listen();
  cleanups.push(() => telegram.close());
  return telegram;
}

/** A process standing in for `hermes gateway run`, with its records written as Hermes writes them. */
async function fakeHermesGateway(home: string, stateHome: string, token: string): Promise<number> {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1e6)", "hermes", "gateway", "run"], {
    stdio: "ignore",
  });
  cleanups.push(() => {
    child.kill("SIGKILL");
  });
  const pid = child.pid as number;
  const record = {
    pid,
    kind: "hermes-gateway",
    argv: ["/usr/local/bin/hermes", "gateway", "run"],
    start_time: processStartTime(pid),
    hermes_home: home,
  };
  await fs.writeFile(path.join(home, "gateway.pid"), JSON.stringify(record));
  await fs.writeFile(
    path.join(home, "gateway_state.json"),
    JSON.stringify({ ...record, gateway_state: "running", platforms: { telegram: { state: "connected" } } }),
  );
  const lock = hermesTokenLockFile("telegram-bot-token", token, { XDG_STATE_HOME: stateHome });
  await fs.mkdir(path.dirname(lock), { recursive: true });
  await fs.writeFile(lock, JSON.stringify({ ...record, scope: "telegram-bot-token", metadata: {} }));
  return pid;
}

interface Serving {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
}

function start(home: string, args: string[], env: NodeJS.ProcessEnv): Serving {
  const child = spawn(process.execPath, [cli, "--home", home, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env.PATH, HOME: home, NO_COLOR: "1", ...env },
  });
  let text = "";
  child.stdout?.on("data", (chunk) => {
    text += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    text += chunk;
  });
  const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  cleanups.push(() => {
    child.kill("SIGKILL");
  });
  return { child, output: () => text, exit };
}

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function healthAnswers(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/healthz`)).status > 0;
  } catch {
    return false;
  }
}

async function homeWith(telegram: TelegramEmulator, env: string, healthPort: number): Promise<string> {
  const home = await tempDir("sg-beside-");
  await fs.mkdir(path.join(home, "skills"));
  await fs.writeFile(path.join(home, ".env"), env);
  await fs.writeFile(
    path.join(home, "config.yaml"),
    `gateway:\n  health:\n    port: ${healthPort}\n  console:\n    enabled: false\n  telegram:\n    api_root: ${telegram.apiRoot}\n`,
  );
  return home;
}

describe("serve beside Hermes' gateway", () => {
  it("leaves a bot Hermes' running gateway holds alone: no call to Telegram, one line, doctor says so", async () => {
    const telegram = await emulator();
    const port = await freePort();
    const home = await homeWith(telegram, `TELEGRAM_BOT_TOKEN=${telegram.token}\n`, port);
    const stateHome = await tempDir("sg-state-");
    const pid = await fakeHermesGateway(home, stateHome, telegram.token);
    const serving = start(home, ["serve"], { XDG_STATE_HOME: stateHome });
    await until(() => healthAnswers(port), "/healthz");
    await until(() => serving.output().includes("Hermes' gateway"), "the line about Hermes");
    const lines = serving.output().split("\n");
    const line = lines.find((text) => text.includes("Hermes' gateway")) ?? "";
    expect(line).toContain(`Hermes' gateway (pid ${pid}) is running with this bot`);
    expect(line).toContain("SKILLGATE_TELEGRAM_BOT_TOKEN");
    expect(line).toContain("gateway.telegram.enabled: true");
    expect(lines.filter((text) => text.includes("Hermes' gateway"))).toHaveLength(1);
    expect(serving.output()).toContain("no chat platform to start");
    serving.child.kill("SIGTERM");
    expect(await serving.exit).toBe(0);
    expect(telegram.calls).toEqual([]);

    const doctor = start(home, ["doctor", "--json"], { XDG_STATE_HOME: stateHome });
    await doctor.exit;
    const report = JSON.parse(doctor.output().slice(doctor.output().indexOf("{"))) as {
      checks: Array<{ area: string; status: string; summary: string; fix?: string }>;
    };
    const row = report.checks.find((check) => check.area === "telegram");
    expect(row?.status).toBe("warn");
    expect(row?.summary).toContain(`Hermes' gateway (pid ${pid})`);
    expect(row?.fix).toContain("SKILLGATE_TELEGRAM_BOT_TOKEN");
    expect(telegram.calls).toEqual([]);
  });

  it("starts with a bot of skillgate's own (SKILLGATE_TELEGRAM_BOT_TOKEN), read before Hermes' name", async () => {
    const telegram = await emulator();
    const port = await freePort();
    const hermesToken = "7000000009:AAHermesOwnBotTokenNotTheEmulators_01234";
    const home = await homeWith(
      telegram,
      `TELEGRAM_BOT_TOKEN=${hermesToken}\nSKILLGATE_TELEGRAM_BOT_TOKEN=${telegram.token}\n`,
      port,
    );
    const stateHome = await tempDir("sg-state-");
    await fakeHermesGateway(home, stateHome, hermesToken);
    const serving = start(home, ["serve"], { XDG_STATE_HOME: stateHome });
    await until(() => telegram.callsOf("getUpdates").length > 0, "polling with skillgate's own token");
    expect(serving.output()).not.toContain("Hermes' gateway");
    expect(telegram.calls.every((call) => call.error === undefined)).toBe(true);
    serving.child.kill("SIGTERM");
    expect(await serving.exit).toBe(0);
  });
});

describe("serve under a supervisor", () => {
  it("with no platform and stdin not a terminal keeps serving /healthz until SIGTERM", async () => {
    const port = await freePort();
    const home = await tempDir("sg-idle-");
    await fs.writeFile(path.join(home, "config.yaml"), `gateway:\n  health:\n    port: ${port}\n`);
    const serving = start(home, ["serve"], {});
    await until(() => healthAnswers(port), "/healthz");
    // Still there a moment later: no terminal chat ended by the empty stdin.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(serving.child.exitCode).toBeNull();
    expect(await healthAnswers(port)).toBe(true);
    expect(serving.output()).toContain("no chat platform to start");
    serving.child.kill("SIGTERM");
    expect(await serving.exit).toBe(0);
  });

  it("with nothing at all to serve exits 78 and says why", async () => {
    const home = await tempDir("sg-nothing-");
    await fs.writeFile(
      path.join(home, "config.yaml"),
      "gateway:\n  health:\n    enabled: false\n  console:\n    enabled: false\n",
    );
    const serving = start(home, ["serve"], {});
    expect(await serving.exit).toBe(78);
    expect(serving.output()).toContain("Nothing to serve");
  });

  it("a token Telegram refuses (401) exits 78", async () => {
    const telegram = await emulator();
    const port = await freePort();
    const home = await homeWith(
      telegram,
      "TELEGRAM_BOT_TOKEN=7000000002:AAWrongTokenForTheEmulator_0123456789ab\n",
      port,
    );
    const serving = start(home, ["serve"], {});
    expect(await serving.exit).toBe(78);
    expect(serving.output()).toContain("401");
    expect(telegram.callsOf("getMe").length).toBeGreaterThan(0);
  });

  it("a Discord token refused, or a Feishu app secret refused, exits 78", async () => {
    const discord = new DiscordEmulator();
    await discord.listen();
    cleanups.push(() => discord.close());
    const lark = new LarkEmulator();
    await lark.listen();
    cleanups.push(() => lark.close());
    for (const [name, env, section] of [
      ["discord", "DISCORD_BOT_TOKEN=not-the-bot-token\n", `  discord:\n    api: ${discord.apiBase}\n`],
      [
        "feishu",
        `FEISHU_APP_ID=${lark.appId}\nFEISHU_APP_SECRET=not-the-app-secret\n`,
        `  feishu:\n    domain: ${lark.url}\n`,
      ],
    ] as const) {
      const home = await tempDir(`sg-refused-${name}-`);
      await fs.writeFile(path.join(home, ".env"), env);
      await fs.writeFile(
        path.join(home, "config.yaml"),
        `gateway:\n  health:\n    enabled: false\n  console:\n    enabled: false\n${section}`,
      );
      const serving = start(home, ["serve"], {});
      expect(await serving.exit, `${name}: ${serving.output()}`).toBe(78);
      expect(serving.output(), name).toMatch(
        name === "discord" ? /rejected DISCORD_BOT_TOKEN|4004/ : /app secret invalid|10014/,
      );
    }
  });
});
