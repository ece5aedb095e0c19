/**
 * Adapter state on Redis (`AdapterState`): the values a platform's next leader needs — the Telegram
 * update offset, the Discord command fingerprint — under the home's prefix. A write is one script that
 * first checks the lease's epoch key, so only the replica leading under the current epoch writes (a
 * paused old leader that wakes up is refused), and a forward-only value (the offset) never goes back.
 */
import type { AdapterState } from "../../core/message.js";
import type { RedisClient } from "./redis.js";

// KEYS[1] the value, KEYS[2] the lease's epoch; ARGV: value, writer's epoch, ttl ms, forward-only flag.
// Returns 1 when stored (or already beyond, forward only), 0 when the epoch is not the writer's.
const SET_UNDER_EPOCH = `
if redis.call('GET', KEYS[2]) ~= ARGV[2] then return 0 end
if ARGV[4] == '1' then
  local current = tonumber(redis.call('GET', KEYS[1]) or '')
  local next = tonumber(ARGV[1])
  if current and next and current > next then
    redis.call('PEXPIRE', KEYS[1], ARGV[3])
    return 1
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return 1`;

/** Options of `RedisAdapterState`. */
export interface RedisAdapterStateOptions {
  redis: RedisClient;
  /** Key prefix of this home. */
  prefix: string;
  /** The key the lease keeps its current epoch in (expires with the lease). */
  epochKey: string;
  /** The epoch this replica leads under, or undefined while it does not lead. */
  epoch: () => number | undefined;
}

/** Adapter state shared by the replicas of one home (see the file's comment). */
export class RedisAdapterState implements AdapterState {
  constructor(private readonly options: RedisAdapterStateOptions) {}

  private key(name: string): string {
    return `${this.options.prefix}adapter:${name}`;
  }

  async get(name: string): Promise<string | undefined> {
    return (await this.options.redis.get(this.key(name))) ?? undefined;
  }

  async set(
    name: string,
    value: string,
    options: { ttlMs: number; forwardOnly?: boolean },
  ): Promise<boolean> {
    const epoch = this.options.epoch();
    if (epoch === undefined) return false;
    const stored = await this.options.redis.eval(SET_UNDER_EPOCH, {
      keys: [this.key(name), this.options.epochKey],
      arguments: [
        value,
        String(epoch),
        String(Math.max(1, Math.floor(options.ttlMs))),
        options.forwardOnly ? "1" : "0",
      ],
    });
    return Number(stored) === 1;
  }
}
