/**
 * A replica's id is its own among live replicas (`gateway.coordination.replica_id`), on a real
 * redis-server: a second live gateway under the same id is refused with what to do; the id is free again
 * the moment its holder closes; a claim left by a process of this host that is gone (a supervisor
 * restarting a killed replica) is taken at once, while another host's claim waits for its TTL.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CoordinationError } from "../../src/core/errors.js";
import { silentLogger } from "../../src/core/logger.js";
import { Coordinator, homeCoordinationId } from "../../src/gateway/coordination/coordinator.js";
import { connectRedis, type RedisClient } from "../../src/gateway/coordination/redis.js";
import { startRedis, type TestRedis } from "../support/redis.js";

let redis: TestRedis;
let client: RedisClient;
let home: string;
const timings = { ttlMs: 1_200, renewMs: 300, fenceAfterMs: 900 };

beforeAll(async () => {
  redis = await startRedis();
  client = await connectRedis(redis.url);
  home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-replica-id-"));
});
afterAll(async () => {
  client.destroy();
  await redis.dispose();
  await fs.rm(home, { recursive: true, force: true });
});

function open(replicaId: string): Promise<Coordinator> {
  return Coordinator.open({
    home,
    config: { redisUrl: redis.url, replicaId, writerEligible: true, retentionHours: 48 },
    logger: silentLogger(),
    buttonTtlMs: 60_000,
    timings,
  });
}

/** A pid no process of this host has now. */
function deadPid(): number {
  for (let pid = 4_000_000; ; pid++) {
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ESRCH") return pid;
    }
  }
}
const DEAD_PID = deadPid();

describe("replica ids", () => {
  it("refuses a second live replica under the same id, and names the fix", async () => {
    const first = await open("a");
    try {
      const second = open("a");
      await expect(second).rejects.toBeInstanceOf(CoordinationError);
      await expect(second).rejects.toThrow(
        /already uses replica_id 'a'.*--set gateway\.coordination\.replica_id/,
      );
      // The first still holds it: its keep-alive renewed the claim while the second waited past the TTL.
      const key = `skillgate:${await homeCoordinationId(home)}:replica:a`;
      expect(await client.get(key)).toMatch(new RegExp(`^${os.hostname()} ${process.pid} [0-9a-f]{16}$`));
      // Another id is fine beside it.
      const other = await open("b");
      await other.close();
    } finally {
      await first.close();
    }
  }, 20_000);

  it("frees the id when its holder closes: the next replica under it claims it", async () => {
    const key = `skillgate:${await homeCoordinationId(home)}:replica:c`;
    const first = await open("c");
    expect(await client.get(key)).not.toBeNull();
    await first.close();
    // Deleted on close, not left to lapse: nothing stands between the next replica and the id.
    expect(await client.get(key)).toBeNull();
    const next = await open("c");
    expect(await client.get(key)).toMatch(new RegExp(`^${os.hostname()} ${process.pid} `));
    await next.close();
  });

  it("takes over a dead process's claim from this host at once, and waits out another host's", async () => {
    const key = `skillgate:${await homeCoordinationId(home)}:replica:d`;
    await client.set(key, `${os.hostname()} ${DEAD_PID} 00000000deadbeef`, { PX: 60_000 });
    const restarted = await open("d");
    expect(await client.get(key)).toMatch(new RegExp(`^${os.hostname()} ${process.pid} `));
    await restarted.close();

    // Another host's claim cannot be judged by a pid: it is a live replica until the claim lapses.
    await client.set(key, `elsewhere.example ${DEAD_PID} 00000000cafebabe`, { PX: 60_000 });
    await expect(open("d")).rejects.toThrow(/already uses replica_id 'd'/);
    expect(await client.get(key)).toBe(`elsewhere.example ${DEAD_PID} 00000000cafebabe`);
    // Once it lapses (the host stopped renewing), the id is free.
    await client.pExpire(key, 50);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const after = await open("d");
    await after.close();
  }, 20_000);
});
