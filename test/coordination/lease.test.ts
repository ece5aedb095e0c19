/**
 * The leader lease on a real Redis: one leader at a time with rising epochs, hand-over when it stops or
 * dies, self-fencing before the lease can pass to anyone else, an epoch never below the disk's; the disk
 * leader record and the write fence that refuses a stale leader; the run lock held on another host; and
 * a clear error for an unreachable Redis; renewals on a thread of their own through a stalled event loop.
 * Timings are shortened (TTL 1.2 s) so hand-overs take moments.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
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

async function client(): Promise<RedisClient> {
  const made = await connectRedis(redis.url);
  clients.push(made);
  return made;
}

/** A replica's lease with a log of what it was told. */
async function replica(
  name: string,
  keyPrefix: string,
  options: { floor?: () => Promise<number>; renewalThread?: boolean; timings?: LeaseTimings } = {},
) {
  const events: string[] = [];
  const connection = await client();
  const lease = new LeaderLease({
    redis: connection,
    prefix: keyPrefix,
    replicaId: name,
    eligible: true,
    timings: options.timings ?? FAST,
    ...(options.renewalThread ? { renewalUrl: redis.url } : {}),
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
      await until(() => a.lease.role === "leader");
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
