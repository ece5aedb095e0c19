/**
 * The leader lease on a real Redis: one leader at a time with rising epochs, hand-over when it stops or
 * dies, self-fencing before the lease can pass to anyone else, an epoch never below the disk's; the disk
 * leader record and the write fence that refuses a stale leader; the run lock held on another host; and
 * a clear error for an unreachable Redis; renewals on a thread of their own through a stalled event loop;
 * a crashed leader replaced at once, but not a partitioned one. Timings are shortened (TTL 1.2 s) so
 * hand-overs take moments, except where a lapse must be told apart from a takeover.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { CoordinationError } from "../../src/core/errors.js";
import { checkWriteFence, FencedError, setWriteFence } from "../../src/core/fence.js";
import { silentLogger } from "../../src/core/logger.js";
import { acquireRunLock, runLockFile } from "../../src/curator/lock.js";
import {
  leadershipFence,
  readLeaderRecord,
  recordLeadership,
} from "../../src/gateway/coordination/leadership.js";
import { LeaderLease, type LeaseTimings } from "../../src/gateway/coordination/lease.js";
import { connectRedis, type RedisClient } from "../../src/gateway/coordination/redis.js";
import type { TestRedis } from "../support/redis.js";
import { redisForFile } from "../support/redis-for-file.js";
import { startTcpProxy } from "../support/tcp-proxy.js";

const FAST: LeaseTimings = { ttlMs: 1_200, renewMs: 300, fenceAfterMs: 800 };
let redis: TestRedis;
const clients: RedisClient[] = [];
const leases: LeaderLease[] = [];
let prefix = 0;

redisForFile(0, (server) => {
  redis = server;
});
afterEach(async () => {
  await Promise.all(leases.splice(0).map((lease) => lease.stop().catch(() => undefined)));
  for (const client of clients.splice(0)) client.destroy();
});

async function client(url = redis.url): Promise<RedisClient> {
  const made = await connectRedis(url);
  clients.push(made);
  return made;
}

/** A replica's lease with a log of what it was told. */
async function replica(
  name: string,
  keyPrefix: string,
  options: {
    floor?: () => Promise<number>;
    renewalThread?: boolean;
    timings?: LeaseTimings;
    /** Another way to the same Redis (a proxy), for both connections. */
    url?: string;
  } = {},
) {
  const events: string[] = [];
  const connection = await client(options.url);
  const lease = new LeaderLease({
    redis: connection,
    prefix: keyPrefix,
    replicaId: name,
    eligible: true,
    timings: options.timings ?? FAST,
    ...(options.renewalThread ? { renewalUrl: options.url ?? redis.url } : {}),
    logger: silentLogger(),
    diskEpoch: options.floor ?? (async () => 0),
    events: {
      lead: async (epoch) => {
        events.push(`lead ${epoch}`);
      },
      follow: async (reason) => {
        events.push(`follow ${reason}`);
      },
    },
  });
  leases.push(lease);
  return { lease, events, connection };
}

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("the leader lease", () => {
  it("one of three replicas leads; when it stops, another takes over with a higher epoch", async () => {
    const keys = `test:${prefix++}:`;
    const all = await Promise.all(["a", "b", "c"].map((name) => replica(name, keys)));
    for (const { lease } of all) lease.start();
    await until(() => all.some(({ lease }) => lease.role === "leader"));
    // Several renew periods: still exactly one.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const leaders = all.filter(({ lease }) => lease.role === "leader");
    expect(leaders).toHaveLength(1);
    const first = leaders[0] as (typeof all)[number];
    const firstEpoch = first.lease.epoch as number;
    await first.lease.stop();
    await until(() => all.some(({ lease }) => lease !== first.lease && lease.role === "leader"));
    const next = all.find(({ lease }) => lease.role === "leader");
    expect(next?.lease.epoch).toBeGreaterThan(firstEpoch);
  });

  it("a dead leader's lease passes on within its TTL", async () => {
    const keys = `test:${prefix++}:`;
    const a = await replica("a", keys);
    a.lease.start();
    await until(() => a.lease.role === "leader");
    // Gone as far as Redis can tell: its connection drops, no renewal and no release reach Redis.
    a.connection.destroy();
    const b = await replica("b", keys);
    const started = Date.now();
    b.lease.start();
    await until(() => b.lease.role === "leader", 5_000);
    expect(Date.now() - started).toBeLessThan(FAST.ttlMs + FAST.renewMs + 500);
  });

  it.each([
    ["on its main thread", false],
    ["on its renewal thread", true],
  ])(
    "a leader renewing %s, cut off from Redis, stops leading before its lease could pass to another, and leads again once Redis is back",
    async (_where, renewalThread) => {
      const keys = `test:${prefix++}:`;
      const a = await replica("a", keys, { renewalThread });
      a.lease.start();
      await until(() => a.lease.role === "leader");
      const leadAt = Date.now();
      await redis.stop();
      try {
        await until(() => a.lease.role === "follower", 5_000);
        const fencedAfter = Date.now() - leadAt;
        expect(fencedAfter).toBeLessThan(FAST.ttlMs);
        expect(a.events.at(-1)).toMatch(/could not be renewed/);
        expect(a.lease.valid()).toBe(false);
      } finally {
        await redis.start();
      }
      // Redis back: it leads again (a new epoch).
      await until(() => a.lease.role === "leader", 8_000);
    },
  );

  /** Keeps this thread busy for `ms`, as a long synchronous step of a leader would. */
  function blockEventLoop(ms: number): void {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      // busy
    }
  }

  it("a leader whose event loop stalls past its lease keeps it when it renews on its own thread, and loses it when not", async () => {
    for (const renewalThread of [true, false]) {
      const keys = `test:${prefix++}:`;
      const a = await replica("a", keys, { renewalThread });
      a.lease.start();
      // Leading, with its duties begun (a first lead's wait for its renewal thread to run).
      await until(() => a.lease.role === "leader" && a.events.length > 0);
      const held = await a.connection.get(`${keys}leader`);
      blockEventLoop(FAST.ttlMs * 2);
      // Judged before this thread's timers run: the renewal thread kept renewing through the stall.
      expect(a.lease.valid()).toBe(renewalThread);
      const now = await a.connection.get(`${keys}leader`);
      if (renewalThread) {
        expect(now).toBe(held);
        expect(a.events).toEqual([`lead ${a.lease.epoch}`]);
      } else expect(now).not.toBe(held);
      await a.lease.stop();
    }
  });

  it("with the renewal thread, a main thread stuck past its stall limit lets the lease lapse", async () => {
    const keys = `test:${prefix++}:`;
    const a = await replica("a", keys, { renewalThread: true, timings: { ...FAST, stallLimitMs: 600 } });
    a.lease.start();
    await until(() => a.lease.role === "leader");
    blockEventLoop(600 + FAST.ttlMs + 600);
    expect(a.lease.valid()).toBe(false);
    expect(await a.connection.get(`${keys}leader`)).toBeNull();
  });

  it("a first lead's duties start once the renewal thread runs, so its new heap cannot grow the leader's young generation", () => {
    // While a worker's heap is made, V8 lets every heap of the process grow its young generation again
    // (see `reapplyYoungGrowth`); duties that allocated in that window left an idle leader 2–3 MB larger.
    const child = path.join(path.dirname(fileURLToPath(import.meta.url)), "first-lead-child.mjs");
    const run = spawnSync(process.execPath, [child, redis.url, `test:${prefix++}:`], {
      encoding: "utf8",
      timeout: 30_000,
    });
    const [, before, after, kept] = /young (\d+) (\d+) (\d+)/.exec(run.stdout) ?? [];
    expect(Number(kept), run.stderr).toBe(200_000);
    expect(Number(before)).toBeGreaterThan(0);
    expect(Number(after)).toBeLessThanOrEqual(Number(before));
  });

  it("a first lead that ends while its renewal thread boots starts no duties", async () => {
    const keys = `test:${prefix++}:`;
    // A fence of 5 ms fires long before a new worker runs (tens of milliseconds): the lead of epoch 1
    // ends during the first lead's wait for its renewal thread.
    const a = await replica("a", keys, { renewalThread: true, timings: { ...FAST, fenceAfterMs: 5 } });
    a.lease.start();
    await until(() => a.events.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await a.lease.stop();
    expect(a.events[0]).toMatch(/^follow /);
    expect(a.events).not.toContain("lead 1");
  });

  it("a renewal thread that finds the lease another's steps the leader down at once", async () => {
    const keys = `test:${prefix++}:`;
    const a = await replica("a", keys, { renewalThread: true });
    a.lease.start();
    await until(() => a.lease.role === "leader");
    await a.connection.set(`${keys}leader`, "another:0", { expiration: { type: "PX", value: 5_000 } });
    const taken = Date.now();
    await until(() => a.lease.role === "follower", 3_000);
    expect(Date.now() - taken).toBeLessThan(FAST.fenceAfterMs);
    expect(a.events.at(-1)).toBe("follow another replica holds the lease");
  });

  it("a new epoch is never below what the disk records", async () => {
    const keys = `test:${prefix++}:`;
    const a = await replica("a", keys, { floor: async () => 41 });
    a.lease.start();
    await until(() => a.lease.role === "leader");
    expect(a.lease.epoch).toBe(42);
  });
});

describe("the disk leader record and the write fence", () => {
  let home: string;
  afterEach(async () => {
    setWriteFence(home, undefined);
    await fs.rm(home, { recursive: true, force: true });
  });

  it("lets the current leader write and refuses a stale one, whatever its lease says", async () => {
    home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-fence-"));
    await fs.mkdir(path.join(home, "skills"));
    let valid = true;
    const old = { epoch: 5, valid: () => valid };
    await recordLeadership(home, 5, "a");
    setWriteFence(home, leadershipFence(home, old, silentLogger()));
    await expect(checkWriteFence(home, "a usage flush")).resolves.toBeUndefined();
    // A newer leader took over while this one was paused: the disk says so.
    await recordLeadership(home, 6, "b");
    await expect(checkWriteFence(home, "a usage flush")).rejects.toBeInstanceOf(FencedError);
    await expect(checkWriteFence(home, "a usage flush")).rejects.toThrow(/epoch 6 .*not this replica's 5/);
    // The stale leader cannot record itself again.
    await expect(recordLeadership(home, 5, "a")).rejects.toBeInstanceOf(FencedError);
    expect((await readLeaderRecord(home)).epoch).toBe(6);
    // A lease that lapsed on this replica's clock refuses at once, before any disk check.
    setWriteFence(home, leadershipFence(home, { epoch: 6, valid: () => valid }, silentLogger()));
    await expect(checkWriteFence(home, "a config edit")).resolves.toBeUndefined();
    valid = false;
    await expect(checkWriteFence(home, "a config edit")).rejects.toThrow(/does not lead/);
  });

  it("a run lock recorded on another host is not taken on this host's kernel lock; a higher epoch takes it", async () => {
    home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-fence-"));
    const file = runLockFile(home);
    await fs.mkdir(path.dirname(file), { recursive: true });
    // Its holder on the other host flocked on its own kernel (a mount whose locks do not cross hosts).
    await fs.writeFile(file, "4242 other-host.example 0a1b2c3d4e5f 3\n");
    await expect(acquireRunLock(home)).rejects.toThrow(/4242/);
    expect(await fs.readFile(file, "utf8")).toContain("other-host.example");
    setWriteFence(home, { epoch: () => 4, check: async () => undefined });
    const held = await acquireRunLock(home);
    expect(await fs.readFile(file, "utf8")).toMatch(
      new RegExp(`^${process.pid} ${os.hostname()} [0-9a-f]+ 4\\n$`),
    );
    await held.release();
  });
});

describe("connecting", () => {
  it("an unreachable Redis is a clear error naming the URL and the fix", async () => {
    const error = await connectRedis("redis://:hunter2@127.0.0.1:1", { connectTimeoutMs: 500 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CoordinationError);
    const message = (error as Error).message;
    expect(message).toMatch(/127\.0\.0\.1:1/);
    expect(message).not.toContain("hunter2");
    expect(message).toMatch(/gateway\.coordination/);
  });

  it("never shows a password with an unescaped / (the URL does not parse)", async () => {
    const error = await connectRedis("redis://:hun/ter2@127.0.0.1:1", { connectTimeoutMs: 500 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CoordinationError);
    expect((error as Error).message).toContain("redis://***@127.0.0.1:1");
    expect((error as Error).message).not.toMatch(/hun|ter2/);
    expect(JSON.stringify(error)).not.toMatch(/hun|ter2/);
  });
});

describe("a leader that crashed, beside one that is only cut off", () => {
  /** Timings whose lapse (6 s) is far from an at-once takeover. */
  const SLOW: LeaseTimings = { ttlMs: 6_000, renewMs: 300, fenceAfterMs: 4_000 };
  const childFile = path.join(path.dirname(fileURLToPath(import.meta.url)), "lease-child.ts");
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
  });

  /** A leader in a process of its own (`lease-child.ts`), resolved once it leads and shows its connection. */
  async function leaderProcess(keys: string, timings: LeaseTimings, url = redis.url): Promise<ChildProcess> {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", childFile, url, keys, "crashing", JSON.stringify(timings)],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    children.push(child);
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    await until(() => out.includes("lead "), 20_000);
    const watcher = await client();
    let connection: string | null = null;
    const watch = async () => {
      connection = await watcher.get(`${keys}leader-conn`);
    };
    for (let tries = 0; tries < 100 && !connection; tries++) {
      await watch();
      if (!connection) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(connection).toMatch(/^[0-9a-f]{40}:\d+$/);
    return child;
  }

  it("a leader killed with kill -9 is replaced at once, not when its lease lapses", async () => {
    const keys = `test:${prefix++}:`;
    const crashing = await leaderProcess(keys, SLOW);
    const b = await replica("b", keys, { timings: SLOW });
    b.lease.start();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(b.lease.role).toBe("follower");
    const killedAt = Date.now();
    crashing.kill("SIGKILL");
    await until(() => b.lease.role === "leader", SLOW.ttlMs + 2_000);
    // A lapse would take up to the 6 s TTL; the closed connection hands over within a few polls.
    expect(Date.now() - killedAt).toBeLessThan(2_000);
    expect(b.lease.epoch).toBe(2);
  });

  it("a live leader whose connection Redis closes renews on a new one; no standby leads beside it", async () => {
    const keys = `test:${prefix++}:`;
    const a = await replica("a", keys, { renewalThread: true, timings: SLOW });
    a.lease.start();
    await until(() => a.lease.role === "leader");
    const admin = await client();
    let before: string | null = null;
    for (let tries = 0; tries < 100 && !before; tries++) {
      before = await admin.get(`${keys}leader-conn`);
      if (!before) await new Promise((resolve) => setTimeout(resolve, 30));
    }
    expect(before).toMatch(/:\d+$/);
    const b = await replica("b", keys, { timings: SLOW });
    b.lease.start();
    await new Promise((resolve) => setTimeout(resolve, 400));
    await admin.sendCommand(["CLIENT", "KILL", "ID", String(before).split(":")[1] as string]);
    let both = 0;
    const end = Date.now() + 2_500;
    while (Date.now() < end) {
      if (a.lease.valid() && b.lease.valid()) both += 1;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(both).toBe(0);
    // One of them leads; when it is still `a`, it renews from its new connection.
    expect([a.lease.valid(), b.lease.valid()].filter(Boolean)).toHaveLength(1);
    const after = await admin.get(`${keys}leader-conn`);
    expect(after).not.toBe(before);
    if (a.lease.valid()) expect(a.events).toEqual([`lead ${a.lease.epoch}`]);
  });

  it("a silent partition is not a crash, even when Redis closes the idle connection: the lease lapses", async () => {
    const keys = `test:${prefix++}:`;
    const proxy = await startTcpProxy(Number(new URL(redis.url).port));
    const admin = await client();
    // Redis closes a connection idle for over 1 s (its least `timeout`): during the partition, the
    // leader's, which the leader never hears of.
    await admin.configSet("timeout", "1");
    try {
      const a = await replica("a", keys, {
        renewalThread: true,
        timings: SLOW,
        url: `redis://127.0.0.1:${proxy.port}`,
      });
      a.lease.start();
      await until(() => a.lease.role === "leader");
      await new Promise((resolve) => setTimeout(resolve, 600));
      const watched = await admin.get(`${keys}leader-conn`);
      expect(watched).toMatch(/:\d+$/);
      const b = await replica("b", keys, { timings: SLOW });
      b.lease.start();
      proxy.silence();
      const silencedAt = Date.now();
      let fencedAt: number | undefined;
      let bothValid = false;
      while (b.lease.role !== "leader") {
        if (Date.now() - silencedAt > SLOW.ttlMs + 3_000) throw new Error("b never led");
        if (fencedAt === undefined && !a.lease.valid()) fencedAt = Date.now();
        if (a.lease.valid() && b.lease.valid()) bothValid = true;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const ledAfter = Date.now() - silencedAt;
      expect(bothValid).toBe(false);
      expect(fencedAt).toBeDefined();
      // Redis dropped the leader's connections after about a second, but b waited for the lapse.
      const watchedId = String(watched).split(":")[1] as string;
      expect(String(await admin.sendCommand(["CLIENT", "LIST", "ID", watchedId])).trim()).toBe("");
      expect(ledAfter).toBeGreaterThan(SLOW.fenceAfterMs);
    } finally {
      await admin.configSet("timeout", "0");
      await proxy.close();
    }
  });

  it("with a Redis user that may not list clients, a crashed leader's lease passes on when it lapses", async () => {
    const keys = `test:${prefix++}:`;
    const timings: LeaseTimings = { ttlMs: 3_000, renewMs: 300, fenceAfterMs: 2_000 };
    const admin = await client();
    await admin.sendCommand([
      "ACL",
      "SETUSER",
      "noclients",
      "on",
      ">pw-nc",
      "~*",
      "&*",
      "+@all",
      "-client|list",
    ]);
    const crashing = await leaderProcess(keys, timings);
    const limited = new URL(redis.url);
    limited.username = "noclients";
    limited.password = "pw-nc";
    const b = await replica("b", keys, { timings, url: limited.toString() });
    b.lease.start();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const killedAt = Date.now();
    crashing.kill("SIGKILL");
    await until(() => b.lease.role === "leader", timings.ttlMs + 3_000);
    expect(Date.now() - killedAt).toBeGreaterThan(timings.ttlMs - timings.renewMs - 200);
  });
});
