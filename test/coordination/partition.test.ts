/**
 * A silent partition on a real redis-server: two gateways in this process on one home, the leader
 * reaching Redis through a TCP proxy the test silences (no socket is closed, nothing comes back). Within
 * its fence interval the cut-off leader stops taking events, says `redis: unavailable` and not leader on
 * `/healthz`, logs why, and its intake refuses at once; the other replica takes over and answers; the
 * cut-off one answers nothing meanwhile. Healed, it rejoins as a standby. Then a wipe with connections
 * kept (`FLUSHALL`): the leader finds the generation marker gone and steps down at once, a leader
 * rebuilds the consumer group, and what arrives next is answered once.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createMockAdapter, type MockAdapter } from "../../adapters/mock/index.js";
import { createLogger, type Logger } from "../../src/core/logger.js";
import { homeCoordinationId } from "../../src/gateway/coordination/coordinator.js";
import { connectRedis } from "../../src/gateway/coordination/redis.js";
import { createGateway, type Gateway } from "../../src/gateway/gateway.js";
import { gatewayDoc, makeHome, removeHome, writeConfig, writeSkill } from "../gateway/helpers.js";
import type { TestRedis } from "../support/redis.js";
import { redisForFile } from "../support/redis-for-file.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.js";

const timings = { ttlMs: 2_400, renewMs: 400, fenceAfterMs: 1_600 };

let redis: TestRedis;
redisForFile(0, (server) => {
  redis = server;
});

const cleanups: (() => Promise<unknown> | unknown)[] = [];
let home = "";
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
  if (home) await removeHome(home);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A logger whose lines the test reads. */
function recordingLogger(lines: string[]): Logger {
  return createLogger({ level: "info", format: "json", destination: { write: (line) => lines.push(line) } });
}

interface Replica {
  /** The gateway serving now (a fresh one after a lost lead, as `skillgate serve` does). */
  current: Gateway;
  mock: MockAdapter;
  log: string[];
}

async function replica(id: string, redisUrl: string): Promise<Replica> {
  const config = await writeConfig(home, {
    gateway: gatewayDoc({
      coordination: { redis_url: redisUrl, replica_id: id },
      health: { enabled: true, port: 0 },
    }),
  });
  const log: string[] = [];
  const logger = recordingLogger(log);
  const mock = createMockAdapter();
  const made = {} as Replica;
  const launch = (rejoining: boolean): Gateway => {
    const gateway = createGateway({
      home,
      config,
      adapters: [mock],
      logger,
      leaseTimings: timings,
      waitForRedis: rejoining,
      onLeadershipLost: () => {
        const next = launch(true);
        made.current = next;
        void next.start();
      },
    });
    cleanups.push(() => gateway.stop());
    return gateway;
  };
  made.current = launch(false);
  made.mock = mock;
  made.log = log;
  await made.current.start();
  return made;
}

interface Health {
  status: string;
  coordination?: { role: string; redis: string; epoch: number | null };
}

async function health(replica: Replica): Promise<Health | undefined> {
  const url = replica.current.healthUrl;
  if (!url) return undefined;
  try {
    return (await (await fetch(url, { signal: AbortSignal.timeout(1_000) })).json()) as Health;
  } catch {
    return undefined;
  }
}

async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, ms = 10_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

const repliesTo = (mock: MockAdapter, eventId: string) =>
  mock.sent.filter((reply) => reply.inReplyTo?.eventId === eventId);

describe("a replica cut off from Redis without its sockets closing", () => {
  let proxy: TcpProxy;
  afterEach(async () => {
    await proxy?.close();
  });

  it("steps back within its fence interval, says so on /healthz and refuses intake; the other leads", async () => {
    home = await makeHome();
    await writeSkill(home, { name: "arxiv", description: "search papers" });
    proxy = await startTcpProxy(redis.port);
    const cut = await replica("cut", `redis://127.0.0.1:${proxy.port}`);
    await until("the first replica leading", async () =>
      (await health(cut))?.coordination?.role === "leader" ? true : undefined,
    );
    const other = await replica("other", redis.url);
    await other.mock.inject("/skills", { user: "reader", eventId: "before" });
    await until("the answer before the cut", () => (repliesTo(cut.mock, "before").length ? true : undefined));

    proxy.silence();
    const cutAt = performance.now();
    // Within the fence interval (plus the poll's own step): not leader, Redis unavailable, 503.
    const seen = await until(
      "the cut-off replica saying it does not lead",
      async () => {
        const report = await health(cut);
        return report?.coordination?.role === "follower" && report.coordination.redis === "unavailable"
          ? report
          : undefined;
      },
      timings.ttlMs,
    ).catch(async (error) => {
      console.log(JSON.stringify(await health(cut)), cut.log.join(""));
      throw error;
    });
    const detectedMs = performance.now() - cutAt;
    expect(detectedMs).toBeLessThan(timings.fenceAfterMs + 500);
    expect(seen.status).toBe("unavailable");
    await until("the cut-off replica logging why", () =>
      /no longer leading .*could not be renewed/.test(cut.log.join("")) ? true : undefined,
    );

    // Its intake refuses (the platform delivers again elsewhere) instead of hanging.
    await until(
      "the cut-off replica's intake refusing",
      () =>
        cut.mock
          .inject("/skills", { user: "reader", eventId: "during-cut" })
          .then(() => undefined)
          .catch(() => true),
      5_000,
    );
    // The other replica leads and answers what it receives; the cut-off one answers nothing.
    await until("the other replica leading", async () =>
      (await health(other))?.coordination?.role === "leader" ? true : undefined,
    );
    await other.mock.inject("/skills", { user: "reader", eventId: "after-cut" });
    await until("the answer from the new leader", () =>
      repliesTo(other.mock, "after-cut").length ? true : undefined,
    );
    await sleep(500);
    expect(repliesTo(cut.mock, "after-cut")).toHaveLength(0);
    expect(repliesTo(cut.mock, "during-cut")).toHaveLength(0);
    // Between its old gateway's stop and the standby's start /healthz is briefly closed; then it says so.
    const standby = await until("the cut-off replica's standby serving /healthz", () => health(cut));
    expect(standby.coordination).toMatchObject({ role: "follower", redis: "unavailable" });

    // Healed: it rejoins as a standby and Redis answers it again.
    proxy.heal();
    await until(
      "the healed replica back as a standby",
      async () => ((await health(cut))?.coordination?.redis === "ok" ? true : undefined),
      15_000,
    );
    expect((await health(cut))?.coordination?.role).toBe("follower");
    expect(repliesTo(other.mock, "after-cut")).toHaveLength(1);
    console.log(JSON.stringify({ partition_detected_ms: Math.round(detectedMs) }));
  }, 60_000);
});

describe("a Redis wiped under running replicas", () => {
  it("the leader steps down on the changed generation, the group is rebuilt, nothing is answered twice", async () => {
    home = await makeHome();
    await writeSkill(home, { name: "arxiv", description: "search papers" });
    const first = await replica("w1", redis.url);
    await until("a leader", async () =>
      (await health(first))?.coordination?.role === "leader" ? true : undefined,
    );
    const second = await replica("w2", redis.url);
    await second.mock.inject("/skills", { user: "reader", eventId: "pre-wipe" });
    await until("the answer before the wipe", () =>
      repliesTo(first.mock, "pre-wipe").length ? true : undefined,
    );
    const admin = await connectRedis(redis.url);
    cleanups.push(() => admin.destroy());
    await admin.flushAll();
    await until("the leader stepping down on the wipe", () =>
      /no longer leading .*Redis lost its data/.test(first.log.join("")) ? true : undefined,
    );
    // A leader again (either replica), over a rebuilt group; a message after the wipe answered once.
    const leaderNow = await until("a leader after the wipe", async () => {
      for (const candidate of [first, second])
        if ((await health(candidate))?.coordination?.role === "leader") return candidate;
      return undefined;
    });
    await second.mock.inject("/skills", { user: "reader", eventId: "post-wipe" });
    await until("the answer after the wipe", () =>
      repliesTo(leaderNow.mock, "post-wipe").length ? true : undefined,
    );
    await sleep(1_000);
    expect([...repliesTo(first.mock, "post-wipe"), ...repliesTo(second.mock, "post-wipe")]).toHaveLength(1);
    // The first leader after the wipe wrote a new generation marker.
    expect(await admin.get(`skillgate:${await homeCoordinationId(home)}:generation`)).not.toBeNull();
  }, 60_000);
});
