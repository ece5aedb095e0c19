/**
 * A console login link is redeemable once across every replica: the link's nonce is marked in the
 * coordination store (Redis, a real redis-server here) shared by the replicas, so a link used on one
 * replica is refused by the next — and a store that cannot be reached refuses rather than risk a reuse.
 */
import { describe, expect, it } from "vitest";
import { ConsoleAuth } from "../../src/gateway/console/auth.js";
import type { RedisClient } from "../../src/gateway/coordination/redis.js";
import { RedisDedupe } from "../../src/gateway/coordination/redis-stores.js";
import type { TestRedis } from "../support/redis.js";
import { redisForFile } from "../support/redis-for-file.js";

let _redis: TestRedis;
let one: RedisClient;
let two: RedisClient;
redisForFile(2, (server, [first, second]) => {
  _redis = server;
  one = first as RedisClient;
  two = second as RedisClient;
});

describe("console login links across replicas", () => {
  it("a link redeemed on one replica is refused on another", async () => {
    const secret = Buffer.alloc(32, 9);
    const shared = (client: RedisClient) => {
      const dedupe = new RedisDedupe(client, "sg-login-test:");
      return (nonce: string) => dedupe.checkAndMark("console-login", nonce);
    };
    const replicaA = new ConsoleAuth(secret, Date.now, shared(one));
    const replicaB = new ConsoleAuth(secret, Date.now, shared(two));
    const link = replicaA.mintLoginToken("admin");
    expect(await replicaA.redeemLoginToken(link)).toBe("admin");
    expect(await replicaB.redeemLoginToken(link)).toBeNull();
    expect(await replicaA.redeemLoginToken(link)).toBeNull();
    const other = replicaB.mintLoginToken("read-only");
    expect(await replicaB.redeemLoginToken(other)).toBe("read-only");
  });

  it("a shared store that fails refuses the link", async () => {
    const auth = new ConsoleAuth(Buffer.alloc(32, 3), Date.now, async () => {
      throw new Error("redis unreachable");
    });
    expect(await auth.redeemLoginToken(auth.mintLoginToken("admin"))).toBeNull();
  });
});
