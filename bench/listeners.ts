/**
 * `npm run bench -- listeners`: what strangers cost each webhook listener. For the Discord Interactions
 * Endpoint, the Feishu webhook (verification token only, so no header can be checked before the body:
 * the worst case) and the Telegram webhook in turn, a separate attacker process opens 1,500 connections
 * at once and trickles a body up to 1 MiB down each, as slowly as a slow-loris does; the headers are the
 * best a stranger can forge (a well-formed signature and a fresh timestamp for Discord, a wrong secret
 * for Telegram). Reported per listener: the listener process's RSS before (after a GC), at its peak
 * while the connections are held, and after they are gone (after a GC), and how the attacker's
 * connections ended. The target is at most 50 MB growth, back near the baseline afterwards.
 *
 * `--connections N` and `--hold S` (seconds the attack lasts) change the load.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import "../adapters/index.js";
import { createDiscordAdapter, type DiscordAdapter } from "../adapters/discord/index.js";
import { createTelegramAdapter } from "../adapters/telegram/index.js";
import { parseConfig } from "../src/config/config.js";
import { silentLogger } from "../src/core/logger.js";
import { DiscordEmulator } from "../test/emulators/discord.js";
import { TelegramEmulator } from "../test/emulators/telegram.js";
import { bareFeishuWebhook } from "../test/support/harness/feishu.js";

const MB = 1024 * 1024;
const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const CONNECTIONS = flag("--connections", 1500);
const HOLD_SECONDS = flag("--hold", 20);

/** The attacker, run in its own process so its sockets do not count in the listener's RSS. */
const ATTACKER = `
const net = require("node:net");
const [port, path, count, holdMs, headerJson] = process.argv.slice(1);
const headers = JSON.parse(headerJson);
const total = 1024 * 1024;
const chunk = Buffer.alloc(16 * 1024, 0x61);
const ended = { refused: 0, answered: 0, closedByServer: 0, open: 0 };
const sockets = [];
for (let i = 0; i < Number(count); i += 1) {
  const socket = net.connect(Number(port), "127.0.0.1");
  const state = { sent: 0, answered: false, done: false };
  socket.on("connect", () => {
    let head = "POST " + path + " HTTP/1.1\\r\\nhost: 127.0.0.1\\r\\ncontent-type: application/json\\r\\ncontent-length: " + total + "\\r\\n";
    for (const [name, value] of Object.entries(headers)) head += name + ": " + value + "\\r\\n";
    socket.write(head + "\\r\\n{");
  });
  socket.on("data", () => { if (!state.answered) { state.answered = true; ended.answered += 1; } });
  socket.on("error", () => {});
  socket.on("close", () => { state.done = true; if (!state.answered) ended.closedByServer += 1; });
  sockets.push({ socket, state });
}
const timer = setInterval(() => {
  for (const { socket, state } of sockets) {
    if (state.done || state.sent + chunk.length >= total) continue;
    state.sent += chunk.length;
    socket.write(chunk);
  }
}, 250);
setTimeout(() => {
  clearInterval(timer);
  for (const { socket, state } of sockets) { if (!state.done) ended.open += 1; socket.destroy(); }
  process.stdout.write(JSON.stringify(ended));
  process.exit(0);
}, Number(holdMs));
`;

interface Figures {
  listener: string;
  baselineMb: number;
  peakMb: number;
  afterMb: number;
  attacker: Record<string, number>;
}

function rssMb(): number {
  return Math.round((process.memoryUsage().rss / MB) * 10) / 10;
}

async function settle(): Promise<number> {
  for (let index = 0; index < 3; index += 1) {
    (globalThis as { gc?: () => void }).gc?.();
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return rssMb();
}

async function attack(listener: string, url: string, headers: Record<string, string>): Promise<Figures> {
  const target = new URL(url);
  const baselineMb = await settle();
  let peakMb = baselineMb;
  const sampler = setInterval(() => {
    peakMb = Math.max(peakMb, rssMb());
  }, 100);
  const child = spawn(
    process.execPath,
    [
      "-e",
      ATTACKER,
      target.port,
      target.pathname,
      String(CONNECTIONS),
      String(HOLD_SECONDS * 1000),
      JSON.stringify(headers),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  await new Promise((resolve) => child.on("exit", resolve));
  clearInterval(sampler);
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const afterMb = await settle();
  return { listener, baselineMb, peakMb, afterMb, attacker: JSON.parse(output || "{}") };
}

async function discord(): Promise<Figures> {
  const emulator = new DiscordEmulator();
  await emulator.listen();
  const home = await mkdtemp(path.join(os.tmpdir(), "skillgate-bench-listeners-"));
  const config = parseConfig({
    gateway: { discord: { enabled: true, api: emulator.apiBaseFor("bench"), interactions: { port: 0 } } },
  });
  const adapter = createDiscordAdapter({
    config,
    home,
    secret: (name) =>
      name === "DISCORD_BOT_TOKEN"
        ? emulator.token
        : name === "DISCORD_PUBLIC_KEY"
          ? emulator.publicKeyHex
          : undefined,
    logger: silentLogger(),
  });
  await adapter.start(async () => {});
  const port = (adapter as DiscordAdapter).interactionsPort;
  try {
    return await attack("discord endpoint", `http://127.0.0.1:${port}/discord/interactions`, {
      "x-signature-ed25519": "ab".repeat(64),
      "x-signature-timestamp": String(Math.floor(Date.now() / 1000)),
    });
  } finally {
    await adapter.stop();
    await emulator.close();
    await rm(home, { recursive: true, force: true });
  }
}

async function feishu(): Promise<Figures> {
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const { url } = await bareFeishuWebhook(cleanups, { feishu: { verification_token: "bench" } });
    return await attack("feishu webhook", url, {});
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

async function telegram(): Promise<Figures> {
  const emulator = new TelegramEmulator();
  await emulator.listen();
  const home = await mkdtemp(path.join(os.tmpdir(), "skillgate-bench-listeners-"));
  const probe = (await import("node:net")).createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const url = `http://127.0.0.1:${port}/tg`;
  const config = parseConfig({
    gateway: {
      health: { enabled: false },
      telegram: {
        enabled: true,
        api_root: emulator.apiRoot,
        mode: "webhook",
        webhook: { url, port, secret: "bench_secret" },
      },
    },
  });
  const adapter = createTelegramAdapter({
    config,
    home,
    secret: (name) => (name === "TELEGRAM_BOT_TOKEN" ? emulator.token : undefined),
    logger: silentLogger(),
  });
  await adapter.start(async () => {});
  try {
    return await attack("telegram webhook", url, { "x-telegram-bot-api-secret-token": "wrong" });
  } finally {
    await adapter.stop();
    await emulator.close();
    await rm(home, { recursive: true, force: true });
  }
}

const results: Figures[] = [];
for (const run of [discord, feishu, telegram]) results.push(await run());
console.log(
  `${CONNECTIONS} slow connections for ${HOLD_SECONDS} s to each listener (RSS of the listener's process, MB)`,
);
console.log("listener           baseline   peak  growth  after  attacker's connections");
for (const figures of results) {
  const growth = Math.round((figures.peakMb - figures.baselineMb) * 10) / 10;
  console.log(
    `${figures.listener.padEnd(18)} ${String(figures.baselineMb).padStart(8)} ${String(figures.peakMb).padStart(6)} ${String(growth).padStart(7)} ${String(figures.afterMb).padStart(6)}  ${JSON.stringify(figures.attacker)}`,
  );
}
const worst = Math.max(...results.map((figures) => figures.peakMb - figures.baselineMb));
console.log(worst <= 50 ? "within the 50 MB target" : `OVER the 50 MB target (${worst.toFixed(1)} MB)`);
process.exit(0);
