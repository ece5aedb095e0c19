/**
 * A replica's lease in a process of its own, for tests that end that process the way a crash does
 * (`kill -9`). Args: the Redis URL, the key prefix, the replica id and the timings as JSON. Prints
 * `lead <epoch>` once it leads, then holds the lease with its renewal thread until killed.
 */
import { silentLogger } from "../../src/core/logger.js";
import { LeaderLease } from "../../src/gateway/coordination/lease.js";
import { connectRedis } from "../../src/gateway/coordination/redis.js";

const [url = "", prefix = "", replicaId = "", timings = "{}"] = process.argv.slice(2);
const redis = await connectRedis(url);
const lease = new LeaderLease({
  redis,
  prefix,
  replicaId,
  eligible: true,
  timings: JSON.parse(timings),
  renewalUrl: url,
  logger: silentLogger(),
  diskEpoch: async () => 0,
  events: {
    lead: async (epoch) => {
      process.stdout.write(`lead ${epoch}\n`);
    },
    follow: async (reason) => {
      process.stdout.write(`follow ${reason}\n`);
    },
  },
});
lease.start();
setInterval(() => undefined, 1_000);
