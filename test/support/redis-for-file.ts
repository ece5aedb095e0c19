/** A test file's Redis: one server and its connections, started before the first test, closed after the last. */
import { afterAll, beforeAll } from "vitest";
import { connectRedis, type RedisClient } from "../../src/gateway/coordination/redis.js";
import { startRedis, type TestRedis } from "./redis.js";

/**
 * One Redis server for the whole test file (or `describe`), started before its first test with
 * `clients` connections to it, and closed and removed after its last; `use` receives both.
 */
export function redisForFile(
  clients: number,
  use: (redis: TestRedis, connected: RedisClient[]) => void,
): void {
  let redis: TestRedis | undefined;
  const connected: RedisClient[] = [];
  beforeAll(async () => {
    redis = await startRedis();
    for (let index = 0; index < clients; index++) connected.push(await connectRedis(redis.url));
    use(redis, connected);
  });
  afterAll(async () => {
    for (const client of connected.splice(0)) client.destroy();
    await redis?.dispose();
  });
}
