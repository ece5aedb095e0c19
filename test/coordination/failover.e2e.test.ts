/**
 * Three real gateway processes (`dist/src/cli/main.js serve`) on one generated 10k-skill home, a real
 * Redis, and the Telegram emulator, under the faults a team running replicas meets:
 *
 * 1. the leader is SIGSTOPped for 20 s during a curator run, then SIGCONTed;
 * 2. the leader is killed with SIGKILL five times (a supervisor starts each one again);
 * 3. Redis is stopped for 15 s and started again from its append-only file.
 *
 * Throughout, a probe command goes out every 150 ms (`/probe<N>`; the reply to an unknown command names
 * it), so the harness reads loss and duplicates off the emulator. What may be lost or answered twice is
 * only what was in flight at a fault: sent before it took effect and not yet marked handled in the shared inbox.
 * Each replica polls Telegram through its own api_root (`…/c/<replica>`), so the emulator can say
 * who polled; a held poll that a newer one ended (Telegram's 409) is two pollers at once, allowed only when the ended one was frozen.
 * Failover times (kill to the next answer) are printed for the closing note, not asserted on.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { connectRedis, type RedisClient } from "../../src/gateway/coordination/redis.js";
import { TelegramEmulator } from "../emulators/telegram.js";
import { CLI } from "../safety/trials.js";
import { writeCuratorLastRun } from "../support/platform-home.js";
import { freePort, startRedis, type TestRedis } from "../support/redis.js";
import { sleep, until } from "../support/until.js";

const root = path.resolve(import.meta.dirname, "../..");
const USER = 1001;
const REPLICAS = ["r1", "r2", "r3"];

interface Replica {
  name: string;
  proc: ChildProcess;
  healthPort: number;
  log: string[];
}

let redis: TestRedis;
/** The harness's own connection, to read which events the replicas marked handled. */
let redisClient: RedisClient;
let emulator: TelegramEmulator;
let home: string;
const replicas = new Map<string, Replica>();
const healthPorts = new Map<string, number>();

const allReplicas: Replica[] = [];

function spawnReplica(name: string): Replica {
  const healthPort = healthPorts.get(name) as number;
  const proc = spawn(
    process.execPath,
    [
      CLI,
      "--home",
      home,
      "serve",
      "--set",
      `gateway.coordination.replica_id=${name}`,
      "--set",
      `gateway.health.port=${healthPort}`,
      "--set",
      `gateway.telegram.api_root=${emulator.apiRoot}/c/${name}`,
    ],
    {
      cwd: root,
      env: { ...process.env, TELEGRAM_BOT_TOKEN: emulator.token, SKILLGATE_LOG_LEVEL: "info", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const log: string[] = [];
  proc.stdout?.on("data", (chunk: Buffer) => log.push(chunk.toString()));
  proc.stderr?.on("data", (chunk: Buffer) => log.push(chunk.toString()));
  const replica = { name, proc, healthPort, log };
  replicas.set(name, replica);
  allReplicas.push(replica);
  return replica;
}

interface Health {
  status: string;
  coordination?: { role: string; epoch: number | null; redis: string; lease_age_ms: number | null };
}

async function health(replica: Replica): Promise<Health | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${replica.healthPort}/healthz`, {
      signal: AbortSignal.timeout(1000),
    });
    return (await response.json()) as Health;
  } catch {
    return undefined;
  }
}

/** The one replica that says it leads, once exactly one does. */
async function leader(ms = 30_000): Promise<Replica> {
  return until(
    "one leader",
    async () => {
      const leaders: Replica[] = [];
      for (const replica of replicas.values()) {
        if (replica.proc.exitCode !== null || replica.proc.signalCode !== null) continue;
        if ((await health(replica))?.coordination?.role === "leader") leaders.push(replica);
      }
      return leaders.length === 1 ? leaders[0] : undefined;
    },
    ms,
  );
}

/** The probes: sent times, answers, and the faults they met. */
const sentAt = new Map<number, number>();
/** Each probe's Telegram update id (its event id in the shared inbox). */
const updateOf = new Map<number, number>();
const inFlightAtFault = new Set<number>();
let probing = true;
let nextProbe = 1;
/** When the test began (the traces' time origin). */
const started = Date.now();

function answers(): Map<number, number[]> {
  const seen = new Map<number, number[]>();
  for (const message of emulator.sent) {
    const match = /\/probe(\d+)\b/.exec(message.plain);
    if (!match || message.edited) continue;
    const seq = Number(match[1]);
    seen.set(seq, [...(seen.get(seq) ?? []), message.at]);
  }
  return seen;
}

/** Waits until every probe sent over a second ago is answered and every replica serves /healthz. */
async function settled(): Promise<void> {
  await until(
    "the probes answered and every replica up",
    async () => {
      const answered = answers();
      const cutoff = Date.now() - 1_000;
      for (const [seq, at] of sentAt)
        if (at < cutoff && !answered.has(seq) && !inFlightAtFault.has(seq)) return undefined;
      for (const replica of replicas.values()) if (!(await health(replica))) return undefined;
      return true;
    },
    60_000,
  );
}

/** Each fault's time and the last probe sent before it, for the failure message. */
const faults: { at: number; seq: number }[] = [];

/**
 * Marks what is in flight now as allowed to be lost or doubled: sent and not yet handled to the end,
 * read off the shared inbox's own record (an event is marked `done` in Redis once its reply was sent;
 * one answered and not yet marked is answered again by the next leader).
 */
async function fault(): Promise<number> {
  const at = Date.now();
  const prefix = `skillgate:${(await fs.readFile(path.join(home, "gateway", "coordination-id"), "utf8")).trim()}:`;
  const sent = [...updateOf.entries()];
  const states = await redisClient.mGet(sent.map(([, updateId]) => `${prefix}seen:telegram:${updateId}`));
  for (const [index, [seq]] of sent.entries()) if (states[index] !== "done") inFlightAtFault.add(seq);
  faults.push({ at, seq: nextProbe - 1 });
  return at;
}

/**
 * Called once a fault is in effect (the process gone, Redis down): a probe sent since `fault()` read the
 * inbox may have been taken and answered by then without being marked handled (Redis takes commands
 * for a moment after SIGTERM), so it counts as in flight too.
 */
function faultInEffect(at: number): void {
  for (const [seq, sent] of sentAt) if (sent >= at) inFlightAtFault.add(seq);
}

/** What the emulator saw of a probe: when it was sent and every reply call with the replica that made it. */
function probeTrace(seq: number): Record<string, unknown> {
  const sent = sentAt.get(seq) ?? 0;
  const pattern = new RegExp(`/probe${seq}\\b`);
  return {
    seq,
    update_id: updateOf.get(seq),
    sent_ms: sent - started,
    calls: emulator.calls
      .filter((call) => pattern.test(String(call.params.text ?? "")))
      .map((call) => ({
        method: call.method,
        client: call.client,
        at_ms: call.at - started,
        error: call.error,
      })),
  };
}

/** Time from `at` to the first answer after it. */
async function firstAnswerAfter(at: number, ms = 60_000): Promise<number> {
  return until(
    "an answer after the fault",
    () => {
      const times = [...answers().values()].flat().filter((time) => time > at);
      return times.length > 0 ? Math.min(...times) - at : undefined;
    },
    ms,
  );
}

async function probeLoop(): Promise<void> {
  while (probing) {
    const seq = nextProbe++;
    sentAt.set(seq, Date.now());
    updateOf.set(seq, emulator.userSays({ text: `/probe${seq}`, userId: USER, chatId: USER }).update_id);
    await sleep(150);
  }
}

async function curatorState(): Promise<{ run_count: number; last_run_at: string | null }> {
  return JSON.parse(await fs.readFile(path.join(home, "skills", ".curator_state"), "utf8"));
}

beforeAll(async () => {
  redis = await startRedis();
  redisClient = await connectRedis(redis.url);
  emulator = new TelegramEmulator();
  await emulator.listen();
  home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-failover-"));
  const made = spawnSync(
    process.execPath,
    [path.join(root, "bench", "make-library.mjs"), home, "10000", "--seed", "42"],
    { encoding: "utf8" },
  );
  if (made.status !== 0) throw new Error(`make-library failed: ${made.stderr}`);
  const file = path.join(home, "config.yaml");
  const doc = (YAML.parse(await fs.readFile(file, "utf8")) ?? {}) as Record<string, Record<string, unknown>>;
  doc.curator = { ...doc.curator, min_idle_hours: 0 };
  doc.gateway = {
    admins: [`telegram:${USER}`],
    console: { enabled: false },
    health: { enabled: true, port: 0 },
    maintenance: { check_minutes: 0.05, first_check_seconds: 1 },
    telegram: { enabled: true },
    coordination: { redis_url: redis.url },
  };
  await fs.writeFile(file, YAML.stringify(doc));
  // The curator is due: its last run a month ago.
  await writeCuratorLastRun(home, 30);
  for (const name of REPLICAS) healthPorts.set(name, await freePort());
}, 120_000);

afterAll(async () => {
  probing = false;
  // The replicas' logs stay behind for a failed run to be read.
  const logs = path.join(os.tmpdir(), "skillgate-failover-logs");
  await fs.mkdir(logs, { recursive: true });
  for (const replica of allReplicas)
    await fs.writeFile(path.join(logs, `${replica.name}-${replica.proc.pid}.log`), replica.log.join(""));
  for (const replica of replicas.values()) {
    if (replica.proc.signalCode === "SIGSTOP") replica.proc.kill("SIGCONT");
    replica.proc.kill("SIGKILL");
  }
  await emulator?.close();
  redisClient?.destroy();
  await redis?.dispose();
  if (home) await fs.rm(home, { recursive: true, force: true });
});

describe("three gateways on one home under faults", () => {
  it("loses and doubles nothing outside what a fault had in flight, with one poller and one curator run", async () => {
    for (const name of REPLICAS) spawnReplica(name);
    await leader(60_000);
    const failovers: { fault: string; ms: number }[] = [];

    // 1. SIGSTOP during the curator run (the leader's first maintenance tick starts it, the chat quiet).
    // Whichever replica leads runs it: a leader whose event loop stalled past the fence interval while
    // it loaded the library hands over, and the next one runs it.
    const runLock = path.join(home, "skills", ".locks", "curator-run");
    const first = await until(
      "the leader's curator run",
      async () => {
        const text = await fs.readFile(runLock, "utf8").catch(() => "");
        return [...replicas.values()].find((replica) => text.startsWith(`${replica.proc.pid} `));
      },
      60_000,
    );
    // Probes start with the run: a command in flight defers the maintenance tick's curator check.
    const probes = probeLoop();
    await sleep(500);
    const stoppedAt = await fault();
    first.proc.kill("SIGSTOP");
    faultInEffect(stoppedAt);
    failovers.push({ fault: "SIGSTOP", ms: await firstAnswerAfter(stoppedAt) });
    const stopEnds = stoppedAt + 20_000;
    await sleep(Math.max(0, stopEnds - Date.now()));
    first.proc.kill("SIGCONT");
    const resumedAt = Date.now();
    // The resumed old leader knows at once that its lease is gone: it stops its run before another
    // write (a refused write batch, or the run aborted at its next safe point) and rejoins as a standby.
    await until(
      "the resumed leader stepping down",
      () => (first.log.join("").includes("coordination: no longer leading") ? true : undefined),
      30_000,
    );
    await until(
      "the curator run of the period, by the new leader",
      async () => ((await curatorState()).run_count === 2 ? true : undefined),
      120_000,
    );

    // 2. Five kills of the leader, each replaced by a fresh process under the same replica id.
    for (let kill = 0; kill < 5; kill++) {
      const current = await leader(60_000);
      await settled();
      const killedAt = await fault();
      current.proc.kill("SIGKILL");
      if (current.proc.exitCode === null && current.proc.signalCode === null)
        await new Promise((resolve) => current.proc.once("exit", resolve));
      faultInEffect(killedAt);
      failovers.push({ fault: `SIGKILL ${kill + 1}`, ms: await firstAnswerAfter(killedAt) });
      spawnReplica(current.name);
    }

    // 3. Redis away for 15 s, back from its AOF.
    await leader(60_000);
    await settled();
    const outageAt = await fault();
    await redis.stop();
    faultInEffect(outageAt);
    await sleep(15_000);
    await redis.start();
    failovers.push({ fault: "Redis 15 s", ms: await firstAnswerAfter(outageAt + 15_000) });

    // Everything not in flight at a fault is answered within 30 s of the last heal.
    probing = false;
    await probes;
    const lastSent = nextProbe - 1;
    await until(
      "every probe answered",
      () => {
        const answered = answers();
        for (let seq = 1; seq <= lastSent; seq++)
          if (!answered.has(seq) && !inFlightAtFault.has(seq)) return undefined;
        return true;
      },
      30_000,
    ).catch(() => undefined);

    const answered = answers();
    const lost: number[] = [];
    const doubled: number[] = [];
    for (let seq = 1; seq <= lastSent; seq++) {
      const count = answered.get(seq)?.length ?? 0;
      if (count === 0 && !inFlightAtFault.has(seq)) lost.push(seq);
      if (count > 1 && !inFlightAtFault.has(seq)) doubled.push(seq);
    }
    // Two pollers at once shows as a held poll ended by another replica's; only a frozen one may be.
    const overlaps = emulator.terminations.filter(
      (ended) =>
        ended.ended !== ended.by &&
        !(ended.ended === first.name && ended.at >= stoppedAt && ended.at <= resumedAt + 1_000),
    );
    const state = await curatorState();
    const sorted = failovers.map((item) => item.ms).sort((a, b) => a - b);
    console.log(
      JSON.stringify({
        probes: lastSent,
        in_flight_at_faults: inFlightAtFault.size,
        lost: lost.length,
        doubled: doubled.length,
        failovers,
        failover_p50_ms: sorted[Math.floor(sorted.length / 2)],
        failover_max_ms: sorted.at(-1),
        run_count: state.run_count,
      }),
    );

    const trace = (seqs: number[]) =>
      JSON.stringify({
        faults: faults.map((item) => ({ ...item, at_ms: item.at - started })),
        probes: seqs.map(probeTrace),
      });
    expect(lost, trace(lost)).toEqual([]);
    expect(doubled, trace(doubled)).toEqual([]);
    expect(overlaps).toEqual([]);
    // Exactly one completed curator run for the period: the new leader's, none after it (not due).
    expect(state.run_count).toBe(2);
    const frozenLog = first.log.join("");
    expect(frozenLog.slice(frozenLog.indexOf("no longer leading"))).not.toMatch(/"ran":true/);
    expect(frozenLog).toMatch(/refused a write|stopped before it changed anything|interrupted/);
    const reports = await fs.readdir(path.join(home, "logs", "curator")).catch(() => [] as string[]);
    expect(reports.length).toBe(1);
  }, 600_000);
});
