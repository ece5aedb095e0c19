/**
 * One leader among the replicas of a home, with a fencing epoch. The lease is a Redis key taken with
 * `SET NX PX` (TTL 10 s) and renewed every 3 s by compare-and-expire; every acquisition increments an
 * epoch, never below what the disk already records (so a Redis restarted from an older AOF cannot hand
 * out an epoch a previous leader used). A leader that could not renew for 7 s fences itself — it stops
 * before anyone else can lead (the TTL is longer) — and a follower tries again as the lease runs out.
 * Timing uses the monotonic clock of this process, never wall time, so clock skew between hosts does not
 * matter.
 */
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import type { Logger } from "../../core/logger.js";
import type { RedisClient } from "./redis.js";

/** Lease timings (ms). */
export interface LeaseTimings {
  ttlMs: number;
  renewMs: number;
  /** A leader that has not renewed for this long stops leading (must be below `ttlMs`). */
  fenceAfterMs: number;
}

/** The timings the issue of several gateways on one home settled on (n8n's multi-main model). */
/** The key (under the home's prefix) holding the current leader's epoch; it expires with the lease. */
export const LEADER_EPOCH_KEY = "leader-epoch";

export const LEASE_TIMINGS: LeaseTimings = { ttlMs: 10_000, renewMs: 3_000, fenceAfterMs: 7_000 };

/** What the lease tells the gateway. */
export interface LeaseEvents {
  /** This replica leads from now, under `epoch` (resolve once the leader's duties are started). */
  lead(epoch: number): Promise<void>;
  /** This replica stopped leading (fenced itself, or lost the lease): stop every leader duty now. */
  follow(reason: string): Promise<void>;
}

/** Options of `LeaderLease`. */
export interface LeaseOptions {
  redis: RedisClient;
  /** Key prefix of this home, e.g. `skillgate:<home id>:`. */
  prefix: string;
  replicaId: string;
  /** False: this replica never leads (a standby that only serves, see `writer_eligible`). */
  eligible: boolean;
  events: LeaseEvents;
  /** The highest epoch recorded on disk (the floor of the next one). */
  diskEpoch: () => Promise<number>;
  logger: Logger;
  timings?: LeaseTimings;
  /** Monotonic clock (ms). */
  now?: () => number;
}

// Takes the lease when free and returns the new epoch (at least ARGV[3] + 1), else 0.
const ACQUIRE = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local epoch = redis.call('INCR', KEYS[2])
  local floor = tonumber(ARGV[3])
  if epoch <= floor then
    epoch = floor + 1
    redis.call('SET', KEYS[2], epoch)
  end
  redis.call('SET', KEYS[3], epoch, 'PX', ARGV[2])
  return epoch
end
return 0`;

// Extends the lease when this token still holds it: 1, else 0.
const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
  return 1
end
return 0`;

// Gives the lease up when this token holds it.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1], KEYS[2])
  return 1
end
return 0`;

/** The lease of one replica; `start` begins contending, `stop` gives the lease up. */
export class LeaderLease {
  private readonly token: string;
  private readonly timings: LeaseTimings;
  private readonly now: () => number;
  private currentEpoch: number | undefined;
  private renewedAt = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private busy: Promise<void> = Promise.resolve();
  private redisOk = true;

  constructor(private readonly options: LeaseOptions) {
    this.token = `${options.replicaId}:${randomBytes(6).toString("hex")}`;
    this.timings = options.timings ?? LEASE_TIMINGS;
    this.now = options.now ?? (() => performance.now());
  }

  private key(name: string): string {
    return `${this.options.prefix}${name}`;
  }

  /** "leader" or "follower". */
  get role(): "leader" | "follower" {
    return this.currentEpoch !== undefined ? "leader" : "follower";
  }

  /** The epoch this replica leads under, or undefined. */
  get epoch(): number | undefined {
    return this.currentEpoch;
  }

  /** Milliseconds since the lease was last taken or renewed (undefined when not leading). */
  get leaseAgeMs(): number | undefined {
    return this.currentEpoch === undefined ? undefined : Math.round(this.now() - this.renewedAt);
  }

  /** Whether the last Redis call of the lease succeeded. */
  get redisReachable(): boolean {
    return this.redisOk;
  }

  /**
   * True while this replica leads and its lease is surely still its own (renewed within
   * `fenceAfterMs`, judged on this process's clock: a process that was paused knows it at once).
   */
  valid(): boolean {
    return this.currentEpoch !== undefined && this.now() - this.renewedAt < this.timings.fenceAfterMs;
  }

  /** Starts contending (a first attempt at once). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops contending; a leader steps down and gives the lease up for the next one. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.busy;
    if (this.currentEpoch !== undefined) {
      await this.stepDown("stopping");
      await this.options.redis
        .eval(RELEASE, { keys: [this.key("leader"), this.key(LEADER_EPOCH_KEY)], arguments: [this.token] })
        .catch(() => undefined);
    }
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.busy = this.tick().catch((error) =>
        this.options.logger.error({ err: error }, "coordination: lease tick failed"),
      );
    }, ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    if (this.currentEpoch !== undefined) await this.renew();
    else if (this.options.eligible) await this.acquire();
    else this.schedule(this.timings.renewMs);
  }

  private async acquire(): Promise<void> {
    let epoch: number;
    let waitMs = this.timings.renewMs;
    try {
      const floor = await this.options.diskEpoch();
      const started = this.now();
      epoch = Number(
        await this.options.redis.eval(ACQUIRE, {
          keys: [this.key("leader"), this.key("epoch"), this.key(LEADER_EPOCH_KEY)],
          arguments: [this.token, String(this.timings.ttlMs), String(floor)],
        }),
      );
      this.redisOk = true;
      if (epoch > 0) {
        // The lease runs from before the request was sent: that is all this replica can be sure of.
        this.renewedAt = started;
        this.currentEpoch = epoch;
        this.options.logger.info(
          { epoch, replica: this.options.replicaId },
          `coordination: leading (epoch ${epoch})`,
        );
        await this.options.events.lead(epoch);
        this.schedule(this.timings.renewMs);
        return;
      }
      // Taken: try again as it runs out (a dead leader's lease ends within its TTL).
      const left = Number(await this.options.redis.pTTL(this.key("leader")));
      if (left > 0) waitMs = Math.min(this.timings.renewMs, left + 25);
    } catch (error) {
      this.noteRedisDown(error);
    }
    this.schedule(waitMs);
  }

  private async renew(): Promise<void> {
    try {
      const started = this.now();
      const held = Number(
        await this.options.redis.eval(RENEW, {
          keys: [this.key("leader"), this.key(LEADER_EPOCH_KEY)],
          arguments: [this.token, String(this.timings.ttlMs)],
        }),
      );
      this.redisOk = true;
      if (held === 1 && this.now() - this.renewedAt < this.timings.fenceAfterMs) {
        this.renewedAt = started;
        this.schedule(this.timings.renewMs);
        return;
      }
      await this.stepDown(held === 1 ? "the lease was renewed too late" : "another replica holds the lease");
      this.schedule(0);
      return;
    } catch (error) {
      this.noteRedisDown(error);
    }
    const left = this.timings.fenceAfterMs - (this.now() - this.renewedAt);
    if (left <= 0) {
      await this.stepDown(
        `the lease could not be renewed for ${Math.round(this.timings.fenceAfterMs / 1000)} s`,
      );
      this.schedule(this.timings.renewMs);
    } else this.schedule(Math.min(500, left));
  }

  private noteRedisDown(error: unknown): void {
    if (this.redisOk)
      this.options.logger.warn(
        { err: error },
        `coordination: Redis did not answer: ${(error as Error).message}`,
      );
    this.redisOk = false;
  }

  private async stepDown(reason: string): Promise<void> {
    const epoch = this.currentEpoch;
    if (epoch === undefined) return;
    this.currentEpoch = undefined;
    this.options.logger.warn(
      { epoch, reason },
      `coordination: no longer leading (epoch ${epoch}): ${reason}`,
    );
    await this.options.events.follow(reason);
  }
}
