/**
 * Child of `lease.test.ts`, run by plain node on the built `dist/` as the gateway runs (a loader such as
 * tsx starts a thread of its own, whose heap lets the young generation grow before the test begins):
 * tunes the heap as `serve` does, takes the lease with its renewal thread (args: the Redis URL and the
 * key prefix), and lets its lead duties allocate as a gateway's do (objects that survive, over several
 * turns of the event loop). Prints `young <before> <after> <kept>`: the young generation's size when
 * the lead began and after the duties, then exits.
 */
import v8 from "node:v8";
import { tuneHeapForCommand } from "../../dist/src/core/heap-tuning.js";
import { silentLogger } from "../../dist/src/core/logger.js";
import { LeaderLease } from "../../dist/src/gateway/coordination/lease.js";
import { connectRedis } from "../../dist/src/gateway/coordination/redis.js";

tuneHeapForCommand("serve");
const youngGeneration = () =>
  v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0;
const [url = "", prefix = ""] = process.argv.slice(2);
const redis = await connectRedis(url);
const lease = new LeaderLease({
  redis,
  prefix,
  replicaId: "first-lead",
  eligible: true,
  timings: { ttlMs: 6_000, renewMs: 300, fenceAfterMs: 4_000 },
  renewalUrl: url,
  logger: silentLogger(),
  diskEpoch: async () => 0,
  events: {
    lead: async () => {
      const before = youngGeneration();
      const kept = [];
      for (let step = 0; step < 40; step++) {
        for (let index = 0; index < 5_000; index++) kept.push({ step, name: `skill-${step}-${index}` });
        await new Promise((resolve) => setImmediate(resolve));
      }
      process.stdout.write(`young ${before} ${youngGeneration()} ${kept.length}\n`);
      process.exit(0);
    },
    follow: async () => undefined,
  },
});
lease.start();
