/**
 * Gateway benchmark: `/curator status` from 50 emulated Telegram group chats, 2,000 commands in all,
 * through the real gateway and the real grammy adapter. The gateway runs in a child process (its own
 * core and its own memory figures); this process runs the emulators and drives the load.
 *
 * Prints throughput, p50/p99 latency (from the update being queued at the emulator to the reply's
 * sendMessage arriving there), whether every chat's replies came in the order asked, and the idle RSS
 * of a gateway with Telegram, Feishu and Discord connected (Telegram only when the other adapters or
 * emulators are missing; the output says which).
 *
 * Run: `node --import tsx bench/gateway.ts` (env BENCH_CHATS, BENCH_COMMANDS, BENCH_WINDOW, BENCH_RATE,
 * BENCH_PLATFORMS=telegram,feishu,discord to change; BENCH_PROFILE=<dir> writes a CPU profile of the gateway,
 * BENCH_TRACE=<file> the paced run's "sent-at-ms latency-ms" pairs).
 * Targets on 2 cores: ≥ 300 commands/s, p99 ≤ 100 ms, order kept, idle RSS ≤ 150 MB.
 */
import { type ChildProcess, fork, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";

const CHATS = Number(process.env.BENCH_CHATS ?? 50);
const COMMANDS = Number(process.env.BENCH_COMMANDS ?? 2000);
/** Commands each chat keeps outstanding (a new one is sent when a reply arrives). */
const WINDOW = Number(process.env.BENCH_WINDOW ?? 2);
/** Arrival rate of the latency run (commands per second, spread over the chats). */
const RATE = Number(process.env.BENCH_RATE ?? 300);
const FIRST_USER = 5001;

/** What the parent tells the child gateway. */
interface ChildSetup {
  home: string;
  telegram: { apiRoot: string; token: string };
  feishu?: { domain: string; appId: string; appSecret: string };
  discord?: { api: string; token: string };
  allowedUsers: string[];
}

type ChildMessage =
  | { type: "ready"; platforms: string[] }
  | { type: "rss"; rss: number; heapUsed: number; stallMs: number }
  | { type: "error"; message: string };

if (process.argv.includes("--child")) {
  await runChild();
} else {
  await runParent();
}

// ── child: the gateway under test ─────────────────────────────────────────────────────────────────

async function runChild(): Promise<void> {
  const setup = await new Promise<ChildSetup>((resolve) =>
    process.once("message", (message) => resolve(message as ChildSetup)),
  );
  const send = (message: ChildMessage) => process.send?.(message);
  try {
    const { parseConfig } = await import("../src/config/config.js");
    const { createLogger } = await import("../src/core/logger.js");
    const { createGateway } = await import("../src/gateway/gateway.js");
    const { createTelegramAdapter } = await import("../adapters/telegram/index.js");
    const config = parseConfig({
      gateway: {
        allowed_users: setup.allowedUsers,
        health: { enabled: false },
        concurrency: 16,
        telegram: { api_root: setup.telegram.apiRoot },
        feishu: { enabled: setup.feishu !== undefined, domain: setup.feishu?.domain, mode: "websocket" },
        discord: { enabled: setup.discord !== undefined, api: setup.discord?.api },
      },
    });
    const secrets: Record<string, string | undefined> = {
      TELEGRAM_BOT_TOKEN: setup.telegram.token,
      FEISHU_APP_ID: setup.feishu?.appId,
      FEISHU_APP_SECRET: setup.feishu?.appSecret,
      DISCORD_BOT_TOKEN: setup.discord?.token,
    };
    const options = {
      config,
      home: setup.home,
      secret: (name: string) => secrets[name],
      logger: createLogger({ level: "silent" }),
    };
    const adapters = [createTelegramAdapter(options)];
    if (setup.feishu)
      adapters.push((await import("../adapters/feishu/index.js")).createFeishuAdapter(options));
    if (setup.discord)
      adapters.push((await import("../adapters/discord/index.js")).createDiscordAdapter(options));
    const gateway = createGateway({ home: setup.home, config, adapters, logger: options.logger });
    const loopDelay = monitorEventLoopDelay({ resolution: 5 });
    loopDelay.enable();
    await gateway.start();
    const connected = adapters
      .filter((adapter) => adapter.health().state === "connected")
      .map((adapter) => adapter.platform);
    process.on("message", async (message) => {
      if (message === "rss") {
        (globalThis as { gc?: () => void }).gc?.();
        const usage = process.memoryUsage();
        send({ type: "rss", rss: usage.rss, heapUsed: usage.heapUsed, stallMs: loopDelay.max / 1e6 });
        loopDelay.reset();
      } else if (message === "stop") {
        await gateway.stop();
        process.exit(0);
      }
    });
    send({ type: "ready", platforms: connected });
  } catch (error) {
    send({ type: "error", message: (error as Error).stack ?? String(error) });
    process.exit(1);
  }
}

// ── parent: emulators and load ────────────────────────────────────────────────────────────────────

interface Emulators {
  telegram: import("../test/emulators/telegram.js").TelegramEmulator;
  close: () => Promise<void>;
  setup: Omit<ChildSetup, "home" | "allowedUsers">;
  notes: string[];
}

async function startEmulators(): Promise<Emulators> {
  const { TelegramEmulator } = await import("../test/emulators/telegram.js");
  const telegram = new TelegramEmulator();
  await telegram.listen();
  const closers: (() => Promise<void>)[] = [() => telegram.close()];
  const setup: Emulators["setup"] = { telegram: { apiRoot: telegram.apiRoot, token: telegram.token } };
  const notes: string[] = [];
  const wanted = (process.env.BENCH_PLATFORMS ?? "telegram,feishu,discord").split(",");
  if (!wanted.includes("feishu")) notes.push("feishu left out (BENCH_PLATFORMS)");
  if (!wanted.includes("discord")) notes.push("discord left out (BENCH_PLATFORMS)");
  try {
    if (!wanted.includes("feishu")) throw new Error("skipped");
    await import("../adapters/feishu/index.js");
    const { LarkEmulator } = await import("../test/emulators/lark.js");
    const lark = new LarkEmulator();
    const domain = await lark.listen();
    closers.push(() => lark.close());
    setup.feishu = { domain, appId: lark.appId, appSecret: lark.appSecret };
  } catch (error) {
    if (wanted.includes("feishu"))
      notes.push(`feishu not measured: ${(error as Error).message.split("\n")[0]}`);
  }
  try {
    if (!wanted.includes("discord")) throw new Error("skipped");
    await import("../adapters/discord/index.js");
    const { DiscordEmulator } = await import("../test/emulators/discord.js");
    const discord = new DiscordEmulator();
    const api = await discord.listen();
    closers.push(() => discord.close());
    setup.discord = { api, token: discord.token };
  } catch (error) {
    if (wanted.includes("discord"))
      notes.push(`discord not measured: ${(error as Error).message.split("\n")[0]}`);
  }
  return {
    telegram,
    setup,
    notes,
    close: async () => void (await Promise.allSettled(closers.map((close) => close()))),
  };
}

async function seedHome(): Promise<string> {
  const home = await mkdtemp(path.join(os.tmpdir(), "skillgate-bench-gw-"));
  for (let index = 0; index < 40; index += 1) {
    const dir = path.join(home, "skills", `category-${index % 5}`, `skill-${index}`);
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, "SKILL.md"),
      `---\nname: skill-${index}\ndescription: Benchmark skill number ${index}\n---\n\nBody ${index}.\n`,
    );
  }
  return home;
}

function startChild(setup: ChildSetup): Promise<{ child: ChildProcess; platforms: string[] }> {
  const profile = process.env.BENCH_PROFILE
    ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
    : [];
  const child = fork(import.meta.filename, ["--child"], {
    execArgv: ["--import", "tsx", "--expose-gc", ...profile],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  child.send(setup);
  return new Promise((resolve, reject) => {
    child.once("message", (message: ChildMessage) => {
      if (message.type === "ready") resolve({ child, platforms: message.platforms });
      else reject(new Error(message.type === "error" ? message.message : "unexpected message"));
    });
    child.once("exit", (code) => reject(new Error(`gateway child exited with ${code}`)));
  });
}

/** RSS of an empty node process, with or without the tsx loader. */
function emptyRss(withTsx: boolean): Promise<number> {
  const code =
    "gc(); setTimeout(() => { gc(); process.send(process.memoryUsage().rss, () => process.exit(0)); }, 500);";
  const args = [...(withTsx ? ["--import", "tsx"] : []), "--expose-gc", "-e", code];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  return new Promise((resolve) => child.once("message", (rss) => resolve(Number(rss))));
}

function askRss(child: ChildProcess): Promise<{ rss: number; heapUsed: number; stallMs: number }> {
  return new Promise((resolve) => {
    child.once("message", (message: ChildMessage) => {
      if (message.type === "rss") resolve(message);
    });
    child.send("rss");
  });
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
  const emulators = await startEmulators();
  const home = await seedHome();
  const allowedUsers = Array.from({ length: CHATS }, (_, index) => `telegram:${FIRST_USER + index}`);
  let child: ChildProcess | undefined;
  try {
    const started = await startChild({ home, allowedUsers, ...emulators.setup });
    child = started.child;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const idle = await askRss(child);

    // Warm-up: one command per chat (JIT, caches, keep-alive sockets).
    await drive(emulators.telegram, CHATS, CHATS, 1);
    // Each run starts after a quiet second, so it does not absorb the previous run's background work.
    const settle = () => new Promise((resolve) => setTimeout(resolve, 1000));
    await settle();
    await askRss(child);
    const steady = await paced(emulators.telegram, CHATS, COMMANDS, RATE);
    const stall = (await askRss(child)).stallMs;
    await settle();
    const saturated = await drive(emulators.telegram, CHATS, COMMANDS, WINDOW);
    const after = await askRss(child);
    const loader = (await emptyRss(true)) - (await emptyRss(false));

    const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
    const throughput = saturated.answered / saturated.seconds;
    const p99 = percentile(steady.latencies, 99);
    const net = idle.rss - loader;
    console.log(
      `gateway bench: /curator status from ${CHATS} Telegram group chats through the real gateway + grammy`,
    );
    console.log(
      `  throughput        ${throughput.toFixed(0)} commands/s   (${saturated.answered}/${saturated.expected} answered, ${WINDOW} outstanding per chat; target ≥ 300)  ${throughput >= 300 ? "ok" : "MISSED"}`,
    );
    console.log(
      `  latency at ${RATE}/s  p50 ${percentile(steady.latencies, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${(steady.latencies.at(-1) ?? Number.NaN).toFixed(1)} ms   (${steady.answered}/${COMMANDS} answered; target p99 ≤ 100)  ${p99 <= 100 ? "ok" : "MISSED"}`,
    );
    console.log(
      `  gateway stall     longest event-loop delay in the gateway during the paced run: ${stall.toFixed(0)} ms`,
    );
    console.log(
      `  latency saturated p50 ${percentile(saturated.latencies, 50).toFixed(1)} ms, p99 ${percentile(saturated.latencies, 99).toFixed(1)} ms (queueing: ${CHATS * WINDOW} in flight)`,
    );
    console.log(`  per-chat order    ${saturated.inOrder && steady.inOrder ? "kept" : "BROKEN"}`);
    console.log(
      `  idle RSS          ${mb(idle.rss)} with ${started.platforms.join(" + ")} connected; ${mb(net)} without the tsx loader's ${mb(loader)}   (target ≤ 150 MB)  ${net <= 150 * 1024 * 1024 ? "ok" : "MISSED"}`,
    );
    console.log(`  RSS after load    ${mb(after.rss)}`);
    for (const note of emulators.notes) console.log(`  note: ${note}`);
    if (
      saturated.answered !== saturated.expected ||
      steady.answered !== COMMANDS ||
      !saturated.inOrder ||
      !steady.inOrder
    )
      process.exitCode = 1;
  } finally {
    if (child?.connected) {
      const exited = new Promise((resolve) => child?.once("exit", resolve));
      child.send("stop");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    }
    child?.kill();
    await emulators.close();
    await rm(home, { recursive: true, force: true });
  }
}
