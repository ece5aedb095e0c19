/**
 * Gateway benchmark: `/curator status` from 50 emulated Telegram group chats, 2,000 commands in all,
 * through the real built gateway exactly as a user runs it: `node dist/src/cli/main.js --home H serve` with a
 * config.yaml pointing Telegram, Feishu/Lark and Discord at the loopback emulators in `test/emulators/`
 * and the platform secrets in the environment. This process runs the emulators and drives the load.
 *
 * Prints throughput, p50/p99 latency (from the update being queued at the emulator to the reply's
 * sendMessage arriving there), whether every chat's replies came in the order asked, the gateway's CPU
 * time per command, and the idle RSS (VmRSS from /proc) of the gateway once `/healthz` reports every
 * adapter connected and it has idled a few seconds.
 *
 * Run: `node --import tsx bench/gateway.ts` (builds dist/ first; BENCH_BUILD=0 skips that). Env:
 * BENCH_CHATS, BENCH_COMMANDS, BENCH_WINDOW, BENCH_RATE, BENCH_IDLE_MS, BENCH_PLATFORMS=telegram,feishu,discord,
 * BENCH_HOME (a home to copy the skills/ of, e.g. a make-library 10k home; default 40 small skills),
 * BENCH_JSON=1 (also print the figures as one JSON line), BENCH_CLI (another built cli.js), BENCH_NODE_ARGS (extra node flags for the gateway, e.g. to compare V8 settings), BENCH_PROFILE=<dir>
 * (CPU profile of the gateway), BENCH_GATEWAY_LOG=<file> (everything the gateway prints), BENCH_TRACE=<file> (the paced run's "sent-at-ms latency-ms" pairs),
 * BENCH_REDIS_URL (coordination on that Redis: the measured gateway leads and a second one waits as a
 * standby; Redis commands per answered command and the standby's RSS are printed too — `bench/scale.ts`).
 * Targets on 2 cores: ≥ 300 commands/s, p99 ≤ 100 ms, order kept, idle RSS ≤ 150 MB with the default
 * small library and ≤ 200 MB with a BENCH_HOME library (the 10k figure the ratio bench checks).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { appendFileSync, readFileSync } from "node:fs";
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";

const CHATS = Number(process.env.BENCH_CHATS ?? 50);
const COMMANDS = Number(process.env.BENCH_COMMANDS ?? 2000);
/** Commands each chat keeps outstanding (a new one is sent when a reply arrives). */
const WINDOW = Number(process.env.BENCH_WINDOW ?? 2);
/** Arrival rate of the latency run (commands per second, spread over the chats). */
const RATE = Number(process.env.BENCH_RATE ?? 300);
/** How long the connected gateway idles before its RSS is read. */
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 5000);
const FIRST_USER = 5001;
const ROOT = path.resolve(import.meta.dirname, "..");
/** The built CLI (BENCH_CLI points at another build, e.g. to compare two builds). */
const CLI = process.env.BENCH_CLI ?? path.join(ROOT, "dist", "src", "cli", "main.js");

await runParent();

// ── parent: emulators, the gateway process and load ──────────────────────────────────────────────

interface Emulators {
  telegram: import("../test/emulators/telegram.js").TelegramEmulator;
  /** `gateway:` section of config.yaml for the emulators that run. */
  gatewayConfig: Record<string, unknown>;
  /** Secrets for the gateway's environment. */
  env: Record<string, string>;
  platforms: string[];
  close: () => Promise<void>;
}

async function startEmulators(): Promise<Emulators> {
  const wanted = (process.env.BENCH_PLATFORMS ?? "telegram,feishu,discord").split(",");
  const { TelegramEmulator } = await import("../test/emulators/telegram.js");
  const telegram = new TelegramEmulator();
  await telegram.listen();
  const closers: (() => Promise<void>)[] = [() => telegram.close()];
  const gatewayConfig: Record<string, unknown> = {
    telegram: { enabled: true, api_root: telegram.apiRoot },
    feishu: { enabled: false },
    discord: { enabled: false },
  };
  const env: Record<string, string> = { TELEGRAM_BOT_TOKEN: telegram.token };
  const platforms = ["telegram"];
  if (wanted.includes("feishu")) {
    const { LarkEmulator } = await import("../test/emulators/lark.js");
    const lark = new LarkEmulator();
    const domain = await lark.listen();
    closers.push(() => lark.close());
    gatewayConfig.feishu = { enabled: true, mode: "websocket", domain };
    Object.assign(env, { FEISHU_APP_ID: lark.appId, FEISHU_APP_SECRET: lark.appSecret });
    platforms.push("feishu");
  }
  if (wanted.includes("discord")) {
    const { DiscordEmulator } = await import("../test/emulators/discord.js");
    const discord = new DiscordEmulator();
    const api = await discord.listen();
    closers.push(() => discord.close());
    gatewayConfig.discord = { enabled: true, api, application_id: discord.applicationId };
    env.DISCORD_BOT_TOKEN = discord.token;
    platforms.push("discord");
  }
  return {
    telegram,
    gatewayConfig,
    env,
    platforms,
    close: async () => void (await Promise.allSettled(closers.map((close) => close()))),
  };
}

async function seedHome(gateway: Record<string, unknown>): Promise<string> {
  const home = await mkdtemp(path.join(os.tmpdir(), "skillgate-bench-gw-"));
  if (process.env.BENCH_HOME) {
    await cp(path.join(process.env.BENCH_HOME, "skills"), path.join(home, "skills"), { recursive: true });
    await writeFile(path.join(home, "config.yaml"), `${JSON.stringify({ gateway }, null, 2)}\n`);
    return home;
  }
  for (let index = 0; index < 40; index += 1) {
    const dir = path.join(home, "skills", `category-${index % 5}`, `skill-${index}`);
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, "SKILL.md"),
      `---\nname: skill-${index}\ndescription: Benchmark skill number ${index}\n---\n\nBody ${index}.\n`,
    );
  }
  // JSON is YAML: config.yaml written as a JSON document.
  await writeFile(path.join(home, "config.yaml"), `${JSON.stringify({ gateway }, null, 2)}\n`);
  return home;
}

/** Commands Redis has processed so far (`INFO stats`); every Lua script call counts as one round trip. */
async function redisCommands(url: string): Promise<number> {
  const { createClient } = await import("redis");
  const client = createClient({ url });
  await client.connect();
  try {
    const info = await client.info("stats");
    return Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? Number.NaN);
  } finally {
    client.destroy();
  }
}

/** The leader's own count of Redis round trips made for events (`/healthz` → coordination). */
async function eventRoundTrips(healthPort: number): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${healthPort}/healthz`);
  const report = (await response.json()) as { coordination?: { redis_round_trips?: number } };
  return report.coordination?.redis_round_trips ?? Number.NaN;
}

/** A free 127.0.0.1 port for `/healthz`. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

interface Gateway {
  child: ChildProcess;
  /** The last lines the gateway logged (shown when it fails). */
  output: () => string;
  exited: Promise<number | null>;
}

function spawnGateway(home: string, env: Record<string, string>, serveArgs: string[] = []): Gateway {
  const extra = (process.env.BENCH_NODE_ARGS ?? "").split(/\s+/).filter(Boolean);
  const profile = process.env.BENCH_PROFILE
    ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
    : [];
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete childEnv.NODE_OPTIONS; // the bench's own tsx loader must not leak into the gateway
  const child = spawn(process.execPath, [...extra, ...profile, CLI, "--home", home, "serve", ...serveArgs], {
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let tail = "";
  const log = process.env.BENCH_GATEWAY_LOG;
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4000);
    if (log) appendFileSync(log, chunk);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => tail, exited };
}

/** Polls `/healthz` until it answers 200 with every platform connected. */
async function waitHealthy(port: number, platforms: string[], gateway: Gateway): Promise<void> {
  let exited = false;
  void gateway.exited.then(() => {
    exited = true;
  });
  const deadline = Date.now() + 60_000;
  let last = "";
  while (Date.now() < deadline && !exited) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      last = await response.text();
      const body = JSON.parse(last) as { adapters: Record<string, { state: string }> };
      if (response.status === 200 && platforms.every((p) => body.adapters[p]?.state === "connected")) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `the gateway never reported ${platforms.join(" + ")} connected (last /healthz: ${last.trim() || "none"})\n${gateway.output()}`,
  );
}

/** Memory figures of a process from /proc (bytes). */
function procMemory(pid: number): { rss: number; anon: number; file: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) =>
    Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb("VmRSS"), anon: kb("RssAnon"), file: kb("RssFile"), peak: kb("VmHWM") };
}

/** User + system CPU time of a process, in milliseconds. */
function procCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** Drives `total` commands over `chats` chats, `window` outstanding per chat. */
async function drive(emulator: Emulators["telegram"], chats: number, total: number, window: number) {
  const perChat = Math.ceil(total / chats);
  const askedAt = new Map<number, number>();
  const latencies: number[] = [];
  const order = new Map<string, number[]>();
  const remaining = new Map<string, number>();
  let answered = 0;
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    done = resolve;
  });
  const say = (chat: number) => {
    const chatId = String(-1_000_000_000_000 - chat);
    const left = remaining.get(chatId) ?? 0;
    if (left <= 0) return;
    remaining.set(chatId, left - 1);
    const update = emulator.userSays({
      userId: chat,
      chatId: Number(chatId),
      chatType: "supergroup",
      text: "/curator@SkillgateBot status",
    });
    askedAt.set((update.message as { message_id: number }).message_id, performance.now());
  };
  const onMessage = (message: import("../test/emulators/telegram.js").SentMessage) => {
    const at = performance.now();
    const asked =
      message.reply_to_message_id === undefined ? undefined : askedAt.get(message.reply_to_message_id);
    if (asked === undefined) return;
    latencies.push(at - asked);
    order.set(message.chat_id, [
      ...(order.get(message.chat_id) ?? []),
      message.reply_to_message_id as number,
    ]);
    answered += 1;
    say(Number(message.chat_id) * -1 - 1_000_000_000_000);
    if (answered === perChat * chats) done();
  };
  emulator.on("message", onMessage);
  const started = performance.now();
  for (let chat = FIRST_USER; chat < FIRST_USER + chats; chat += 1)
    remaining.set(String(-1_000_000_000_000 - chat), perChat);
  for (let slot = 0; slot < window; slot += 1)
    for (let chat = FIRST_USER; chat < FIRST_USER + chats; chat += 1) say(chat);
  const timeout = setTimeout(() => done(), 120_000);
  await finished;
  clearTimeout(timeout);
  const seconds = (performance.now() - started) / 1000;
  emulator.off("message", onMessage);
  const inOrder = [...order.values()].every((ids) =>
    ids.every((id, index) => index === 0 || id > (ids[index - 1] ?? 0)),
  );
  return {
    seconds,
    answered,
    expected: perChat * chats,
    latencies: latencies.sort((a, b) => a - b),
    inOrder,
  };
}

/** Sends `total` commands round-robin over `chats` chats at a fixed `rate` per second (open loop). */
async function paced(emulator: Emulators["telegram"], chats: number, total: number, rate: number) {
  const askedAt = new Map<number, number>();
  const latencies: number[] = [];
  const order = new Map<string, number[]>();
  let answered = 0;
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    done = resolve;
  });
  const onMessage = (message: import("../test/emulators/telegram.js").SentMessage) => {
    const asked =
      message.reply_to_message_id === undefined ? undefined : askedAt.get(message.reply_to_message_id);
    if (asked === undefined) return;
    latencies.push(performance.now() - asked);
    trace.push([Math.round(asked - started), Math.round(performance.now() - asked)]);
    order.set(message.chat_id, [
      ...(order.get(message.chat_id) ?? []),
      message.reply_to_message_id as number,
    ]);
    answered += 1;
    if (answered === total) done();
  };
  const trace: [number, number][] = [];
  emulator.on("message", onMessage);
  const started = performance.now();
  for (let index = 0; index < total; index += 1) {
    const due = started + (index * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const chat = FIRST_USER + (index % chats);
    const update = emulator.userSays({
      userId: chat,
      chatId: -1_000_000_000_000 - chat,
      chatType: "supergroup",
      text: "/curator@SkillgateBot status",
    });
    askedAt.set((update.message as { message_id: number }).message_id, performance.now());
  }
  const timeout = setTimeout(() => done(), 60_000);
  await finished;
  clearTimeout(timeout);
  emulator.off("message", onMessage);
  if (process.env.BENCH_TRACE)
    await writeFile(process.env.BENCH_TRACE, trace.map((row) => row.join(" ")).join("\n"));
  const inOrder = [...order.values()].every((ids) =>
    ids.every((id, index) => index === 0 || id > (ids[index - 1] ?? 0)),
  );
  return { answered, latencies: latencies.sort((a, b) => a - b), inOrder };
}

async function runParent(): Promise<void> {
  if (process.env.BENCH_BUILD !== "0" && !process.env.BENCH_CLI) {
    const build = spawnSync("npm", ["run", "--silent", "build"], { cwd: ROOT, stdio: "inherit" });
    if (build.status !== 0) throw new Error("npm run build failed; fix the build or run with BENCH_BUILD=0");
  }
  const emulators = await startEmulators();
  const port = await freePort();
  const redisUrl = process.env.BENCH_REDIS_URL;
  const home = await seedHome({
    allowed_users: Array.from({ length: CHATS }, (_, index) => `telegram:${FIRST_USER + index}`),
    health: { enabled: true, port },
    ...emulators.gatewayConfig,
    ...(redisUrl ? { coordination: { redis_url: redisUrl } } : {}),
  });
  let gateway: Gateway | undefined;
  let standby: Gateway | undefined;
  try {
    gateway = spawnGateway(
      home,
      emulators.env,
      redisUrl ? ["--set", "gateway.coordination.replica_id=bench-a"] : [],
    );
    const pid = gateway.child.pid as number;
    await waitHealthy(port, emulators.platforms, gateway);
    if (redisUrl) {
      // The measured gateway leads (it started first); a standby waits beside it, as in production.
      standby = spawnGateway(home, emulators.env, [
        "--set",
        "gateway.coordination.replica_id=bench-b",
        "--set",
        `gateway.health.port=${await freePort()}`,
      ]);
    }
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idle = procMemory(pid);

    // Warm-up: one command per chat (JIT, caches, keep-alive sockets).
    await drive(emulators.telegram, CHATS, CHATS, 1);
    // Each run starts after a quiet second, so it does not absorb the previous run's background work.
    const settle = () => new Promise((resolve) => setTimeout(resolve, 1000));
    await settle();
    const redisBefore = redisUrl ? await redisCommands(redisUrl) : 0;
    const tripsBefore = redisUrl ? await eventRoundTrips(port) : 0;
    const steady = await paced(emulators.telegram, CHATS, COMMANDS, RATE);
    const redisPerCommand = redisUrl
      ? ((await redisCommands(redisUrl)) - redisBefore) / steady.answered
      : null;
    const tripsPerEvent = redisUrl ? ((await eventRoundTrips(port)) - tripsBefore) / steady.answered : null;
    await settle();
    const cpuBefore = procCpuMs(pid);
    const saturated = await drive(emulators.telegram, CHATS, COMMANDS, WINDOW);
    const cpuPerCommand = (procCpuMs(pid) - cpuBefore) / saturated.answered;
    const after = procMemory(pid);

    const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
    const throughput = saturated.answered / saturated.seconds;
    const p99 = percentile(steady.latencies, 99);
    console.log(
      `gateway bench: /curator status from ${CHATS} Telegram group chats through \`node dist/src/cli/main.js serve\``,
    );
    console.log(
      `  throughput        ${throughput.toFixed(0)} commands/s   (${saturated.answered}/${saturated.expected} answered, ${WINDOW} outstanding per chat; target ≥ 300)  ${throughput >= 300 ? "ok" : "MISSED"}`,
    );
    console.log(
      `  latency at ${RATE}/s  p50 ${percentile(steady.latencies, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${(steady.latencies.at(-1) ?? Number.NaN).toFixed(1)} ms   (${steady.answered}/${COMMANDS} answered; target p99 ≤ 100)  ${p99 <= 100 ? "ok" : "MISSED"}`,
    );
    console.log(
      `  latency saturated p50 ${percentile(saturated.latencies, 50).toFixed(1)} ms, p99 ${percentile(saturated.latencies, 99).toFixed(1)} ms (queueing: ${CHATS * WINDOW} in flight)`,
    );
    console.log(
      `  gateway CPU       ${cpuPerCommand.toFixed(2)} ms per command (user + system, saturated run)`,
    );
    console.log(`  per-chat order    ${saturated.inOrder && steady.inOrder ? "kept" : "BROKEN"}`);
    const idleTargetMb = process.env.BENCH_HOME ? 200 : 150;
    console.log(
      `  idle RSS          ${mb(idle.rss)} (anon ${mb(idle.anon)}, file ${mb(idle.file)}) with ${emulators.platforms.join(" + ")} connected, ${IDLE_MS / 1000} s idle   (target ≤ ${idleTargetMb} MB)  ${idle.rss <= idleTargetMb * 1024 * 1024 ? "ok" : "MISSED"}`,
    );
    console.log(`  RSS after load    ${mb(after.rss)}`);
    const standbyRss = standby?.child.pid ? procMemory(standby.child.pid).rss : null;
    if (redisPerCommand !== null)
      console.log(
        `  Redis             ${redisPerCommand.toFixed(2)} commands per answered command (paced run, both replicas' lease renewals included); standby RSS ${standbyRss === null ? "?" : mb(standbyRss)}`,
      );
    if (tripsPerEvent !== null)
      console.log(
        `  Redis round trips ${tripsPerEvent.toFixed(2)} per event (the leader's count, lease renewals apart; target ≤ 6)  ${tripsPerEvent <= 6 ? "ok" : "MISSED"}`,
      );
    if (process.env.BENCH_JSON === "1") {
      const toMb = (bytes: number) => bytes / 1024 / 1024;
      console.log(
        JSON.stringify({
          rate: RATE,
          throughput,
          p50_ms: percentile(steady.latencies, 50),
          p99_ms: p99,
          max_ms: steady.latencies.at(-1) ?? null,
          idle_rss_mb: toMb(idle.rss),
          load_rss_mb: toMb(after.peak),
          after_rss_mb: toMb(after.rss),
          load_average: os.loadavg(),
          answered: steady.answered,
          commands: COMMANDS,
          saturated_answered: saturated.answered,
          saturated_expected: saturated.expected,
          in_order: saturated.inOrder && steady.inOrder,
          redis_per_command: redisPerCommand,
          redis_round_trips_per_event: tripsPerEvent,
          standby_rss_mb: standbyRss === null ? null : toMb(standbyRss),
        }),
      );
    }
    if (
      saturated.answered !== saturated.expected ||
      steady.answered !== COMMANDS ||
      !saturated.inOrder ||
      !steady.inOrder
    )
      process.exitCode = 1;
  } finally {
    if (standby && standby.child.exitCode === null) standby.child.kill("SIGKILL");
    if (gateway && gateway.child.exitCode === null) {
      gateway.child.kill("SIGTERM");
      const stopped = await Promise.race([
        gateway.exited.then(() => true),
        new Promise((resolve) => setTimeout(() => resolve(false), 10_000)),
      ]);
      if (!stopped) gateway.child.kill("SIGKILL");
    }
    await emulators.close();
    await rm(home, { recursive: true, force: true });
  }
}
