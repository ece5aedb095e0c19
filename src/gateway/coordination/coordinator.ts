/**
 * The coordination of one replica of a home (`gateway.coordination`): the Redis connection, the key
 * prefix every replica of the home shares, this replica's claim on its `replica_id`, the Redis stores and
 * button store, the leader lease, and the write fence of the leadership. The gateway asks `open` at start
 * (an unreachable Redis, an old one or a live replica under the same id is a clear error — there is no
 * fall-back to files) and hands the lease its duties: `lead` starts what only the leader does, `follow`
 * stops it.
 *
 * The home's coordination id lives in `gateway/coordination-id` (created once, by whichever replica is
 * first): replicas that mount the home at different paths still share one key space, and two homes on
 * one Redis never meet.
 */
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { CoordinationConfig } from "../../config/config.js";
import { CoordinationError } from "../../core/errors.js";
import { setWriteFence } from "../../core/fence.js";
import { t } from "../../core/i18n/messages.js";
import type { Logger } from "../../core/logger.js";
import type { AdapterState } from "../../core/message.js";
import type { CoordinationStores } from "../../core/stores.js";
import { fileRunLock } from "../../curator/lock.js";
import type { ButtonStore } from "../action-store.js";
import {
  CONSUMER_IDLE_MS,
  type InboxEntry,
  RECLAIM_EVERY_MS,
  RECLAIM_IDLE_MS,
  SharedInbox,
} from "./inbox.js";
import { leadershipFence, readLeaderRecord, recordLeadership } from "./leadership.js";
import {
  LEADER_EPOCH_KEY,
  LEASE_TIMINGS,
  LeaderLease,
  type LeaseEvents,
  type LeaseTimings,
} from "./lease.js";
import {
  checkServer,
  connectRedis,
  countRoundTrips,
  type RedisClient,
  type RoundTrips,
  redactUrl,
} from "./redis.js";
import { RedisButtonStore } from "./redis-buttons.js";
import { RedisAdapterState } from "./redis-state.js";
import { redisStores } from "./redis-stores.js";

/** What `/healthz` says of coordination. */
export interface CoordinationHealth {
  role: "leader" | "follower";
  epoch: number | null;
  redis: "ok" | "unavailable";
  lease_age_ms: number | null;
  /** Round trips to Redis made for events since start (stores and buttons; lease renewals not counted). */
  redis_round_trips: number;
}

/**
 * Claims of coordinators of this process that were closed: a replica that rejoins as a standby takes
 * its own earlier claim back at once, even when Redis did not answer the release.
 */
const closedClaims = new Set<string>();

/** Options of `Coordinator.open`. */
export interface CoordinatorOptions {
  home: string;
  config: CoordinationConfig;
  logger: Logger;
  /** How long a shown button works (ms). */
  buttonTtlMs: number;
  /** Lease timings (tests shorten them); default `LEASE_TIMINGS`. */
  timings?: LeaseTimings;
  now?: () => number;
  /**
   * Rejoining after a lost lead: an unreachable Redis is no error; the replica serves `/healthz` and
   * answers 503 to intake until Redis answers, then claims its id and contends.
   */
  waitForRedis?: boolean;
}

// Claims (or keeps) a replica id: 1 when the key is free, already this process's, or still the dead
// holder's record ARGV[3] that this process found, else 0.
const CLAIM = `
local holder = redis.call('GET', KEYS[1])
if holder == false or holder == ARGV[1] or holder == ARGV[3] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0`;

/** The coordination of one replica (see the file's comment). */
export class Coordinator {
  /** Shared sessions, dedupe, activity, stranger notices; the run lock stays the home's file lock. */
  readonly stores: CoordinationStores;
  /** Shown buttons, single-use across replicas. */
  readonly buttons: ButtonStore;
  /** What a platform's next leader needs (the Telegram offset, the Discord fingerprint). */
  readonly adapterState: AdapterState;
  /** The events every replica received, consumed by the leader. */
  readonly inbox: SharedInbox;
  readonly replicaId: string;
  private lease: LeaderLease | undefined;
  private claimTimer: NodeJS.Timeout | undefined;
  private joinTimer: NodeJS.Timeout | undefined;
  /** When the leader next reclaims idle inbox entries (monotonic ms). */
  private nextReclaim = performance.now() + RECLAIM_EVERY_MS;
  private closed = false;
  /** `<host> <pid> <random>`: a restart on the same host can tell that the previous holder is dead. */
  private readonly claimToken = `${os.hostname()} ${process.pid} ${randomBytes(8).toString("hex")}`;
  private readonly timings: LeaseTimings;
  /** Round trips of the event path (the stores' and buttons' client counts them). */
  private readonly eventTrips: RoundTrips = { count: 0 };

  private constructor(
    private readonly options: CoordinatorOptions,
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {
    this.replicaId = options.config.replicaId;
    this.timings = options.timings ?? LEASE_TIMINGS;
    const onError = (error: unknown) =>
      options.logger.warn({ err: error }, `coordination: a Redis write failed: ${(error as Error).message}`);
    const counted = countRoundTrips(redis, this.eventTrips);
    this.stores = redisStores({
      redis: counted,
      prefix,
      runLock: fileRunLock(options.home),
      now: options.now,
      onError,
      retentionMs: options.config.retentionHours * 3_600_000,
    });
    this.adapterState = new RedisAdapterState({
      redis: counted,
      prefix,
      epochKey: `${prefix}${LEADER_EPOCH_KEY}`,
      // Only a lease that is surely this replica's writes: a paused leader's timer may fire late.
      epoch: () => (this.lease?.valid() ? this.lease.epoch : undefined),
    });
    this.inbox = new SharedInbox({
      redis: counted,
      prefix,
      // Each process is a consumer of its own: a restarted replica claims what its dead self left.
      consumer: `${this.replicaId}:${this.claimToken.split(" ").slice(1).join(":")}`,
      trips: this.eventTrips,
      retentionMs: options.config.retentionHours * 3_600_000,
    });
    this.buttons = new RedisButtonStore({
      redis: counted,
      prefix,
      ttlMs: options.buttonTtlMs,
      now: options.now,
    });
  }

  /**
   * Connects to Redis and claims this replica's id. Throws `CoordinationError` naming the URL and the
   * fix when Redis cannot be reached or is older than 7, and when a live replica holds the same id
   * (a dead one's claim lapses within the lease TTL, so a restart under the same id waits that long).
   */
  static async open(options: CoordinatorOptions): Promise<Coordinator> {
    const prefix = `skillgate:${await homeCoordinationId(options.home)}:`;
    const redis = await connectRedis(options.config.redisUrl, {
      logger: options.logger,
      background: options.waitForRedis === true,
      keyPrefix: prefix,
    });
    try {
      const coordinator = new Coordinator(options, redis, prefix);
      if (!options.waitForRedis) await coordinator.claimReplicaId();
      return coordinator;
    } catch (error) {
      redis.destroy();
      throw error;
    }
  }

  private replicaKey(): string {
    return `${this.prefix}replica:${this.replicaId}`;
  }

  private async claimOnce(deadHolder = ""): Promise<boolean> {
    const claimed = await this.redis.eval(CLAIM, {
      keys: [this.replicaKey()],
      arguments: [this.claimToken, String(this.timings.ttlMs), deadHolder],
    });
    return Number(claimed) === 1;
  }

  private async claimReplicaId(): Promise<void> {
    const deadline = Date.now() + this.timings.ttlMs + this.timings.renewMs;
    let warned = false;
    // A claim of a process on this host that is gone (a supervisor restarting a killed replica) is taken
    // at once; any other waits for its TTL to lapse.
    const deadHolder = async () => {
      const holder = (await this.redis.get(this.replicaKey())) ?? "";
      const [host, pid] = holder.split(" ");
      if (closedClaims.has(holder)) return holder;
      return host === os.hostname() && !processAlive(Number(pid)) ? holder : "";
    };
    while (!(await this.claimOnce(await deadHolder()))) {
      if (Date.now() > deadline)
        throw new CoordinationError(
          "replica-id",
          t("coordination.replicaId", {
            id: this.replicaId,
            url: redactUrl(this.options.config.redisUrl),
          }),
        );
      if (!warned)
        this.options.logger.warn(
          { replica: this.replicaId },
          `coordination: replica_id '${this.replicaId}' is claimed; waiting for a dead replica's claim to lapse`,
        );
      warned = true;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const keep = () => {
      this.claimTimer = setTimeout(() => {
        this.claimOnce()
          .then((held) => {
            if (!held)
              this.options.logger.error(
                { replica: this.replicaId },
                `coordination: replica_id '${this.replicaId}' was claimed by another process`,
              );
          })
          .catch(() => undefined)
          .finally(() => {
            if (this.claimTimer) keep();
          });
      }, this.timings.renewMs);
      this.claimTimer.unref();
    };
    keep();
  }

  /**
   * Starts contending for the lead with these duties. The write fence of the leadership is registered
   * for the home at once: until this replica leads, every library write from this process is refused.
   */
  start(duties: LeaseEvents): void {
    const { home, logger } = this.options;
    setWriteFence(home, leadershipFence(home, { epoch: undefined, valid: () => false }, logger));
    if (this.options.waitForRedis && !this.claimTimer) {
      // Rejoining: contend once Redis answers and the replica id is this process's again.
      const join = () => {
        this.joinTimer = undefined;
        checkServer(this.redis, this.options.config.redisUrl, this.prefix)
          .then(() => this.claimReplicaId())
          .then(
            () => {
              if (!this.closed) this.startLease(duties);
            },
            (error: Error) => {
              logger.debug({ err: error }, "coordination: not rejoined yet");
              if (!this.closed) this.joinTimer = setTimeout(join, this.timings.renewMs).unref();
            },
          );
      };
      join();
      return;
    }
    this.startLease(duties);
  }

  private startLease(duties: LeaseEvents): void {
    const { home, logger } = this.options;
    const lease = new LeaderLease({
      redis: this.redis,
      prefix: this.prefix,
      replicaId: this.replicaId,
      eligible: this.options.config.writerEligible,
      timings: this.timings,
      renewalUrl: this.options.config.redisUrl,
      logger,
      diskEpoch: async () => (await readLeaderRecord(home)).epoch,
      events: {
        lead: async (epoch) => {
          // The disk names the new epoch before anything is written under it: a stale leader's next
          // write batch finds it there and is refused.
          await recordLeadership(home, epoch, this.replicaId);
          await duties.lead(epoch);
        },
        follow: (reason) => duties.follow(reason),
      },
    });
    this.lease = lease;
    setWriteFence(home, leadershipFence(home, lease, logger));
    lease.start();
  }

  /** True while this replica leads and its lease is surely its own: only then does it take events. */
  leading(): boolean {
    return this.lease?.valid() === true && this.redis.isReady;
  }

  /**
   * True while Redis answers this replica: connected, and the lease's last call got an answer. What
   * `/healthz` reports; intake refuses at once only without a connection (`connected`).
   */
  reachable(): boolean {
    return this.redis.isReady && this.lease?.redisReachable === true;
  }

  /** True while this replica's Redis connection is up (whatever the lease's last call got). */
  connected(): boolean {
    return this.redis.isReady;
  }

  /** True while no replica seems to lead (see `LeaderLease.leaderAway`): a failover is under way. */
  leaderAway(): boolean {
    return this.reachable() && this.lease?.leaderAway() === true;
  }

  /**
   * Every `RECLAIM_EVERY_MS` while leading: the entries other consumers left idle for
   * `RECLAIM_IDLE_MS`, claimed for this one, after the consumers that hold nothing and are long idle
   * were removed. Undefined when not due yet.
   */
  async reclaimIdle(): Promise<InboxEntry[] | undefined> {
    const now = performance.now();
    if (now < this.nextReclaim) return undefined;
    this.nextReclaim = now + RECLAIM_EVERY_MS;
    await this.inbox
      .removeIdleConsumers(CONSUMER_IDLE_MS)
      .catch((error) =>
        this.options.logger.warn({ err: error }, "coordination: removing idle inbox consumers failed"),
      );
    return this.inbox.claimAbandoned(RECLAIM_IDLE_MS);
  }

  /** Steps down at once when leading (see `LeaderLease.lose`). */
  async loseLead(reason: string): Promise<void> {
    await this.lease?.lose(reason);
  }

  /** The state `/healthz` reports. */
  health(): CoordinationHealth {
    const lease = this.lease;
    return {
      role: lease?.valid() ? "leader" : "follower",
      epoch: lease?.valid() ? (lease.epoch ?? null) : null,
      redis: this.reachable() ? "ok" : "unavailable",
      lease_age_ms: lease?.leaseAgeMs ?? null,
      redis_round_trips: this.eventTrips.count,
    };
  }

  /** Gives the lead up (the next replica takes it at once), releases the replica id and disconnects. */
  async close(): Promise<void> {
    this.closed = true;
    closedClaims.add(this.claimToken);
    if (this.joinTimer) clearTimeout(this.joinTimer);
    this.inbox.close();
    await this.lease?.stop();
    if (this.claimTimer) clearTimeout(this.claimTimer);
    this.claimTimer = undefined;
    setWriteFence(this.options.home, undefined);
    await this.redis
      .eval("if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0", {
        keys: [this.replicaKey()],
        arguments: [this.claimToken],
      })
      .catch(() => undefined);
    this.redis.destroy();
  }
}

/** True when a process with this pid exists on this host (a zombie or another user's counts as alive). */
function processAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The home's coordination id (`gateway/coordination-id`), created by the first replica to ask. */
export async function homeCoordinationId(home: string): Promise<string> {
  const file = path.join(home, "gateway", "coordination-id");
  const read = async () => (await fs.readFile(file, "utf8").catch(() => "")).trim();
  const existing = await read();
  if (/^[a-f0-9]{16}$/.test(existing)) return existing;
  await fs.mkdir(path.dirname(file), { recursive: true });
  try {
    // Exclusive create: of two replicas starting at once, one writes it and both read the same id.
    await fs.writeFile(file, `${randomBytes(8).toString("hex")}\n`, { flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  // A concurrent writer may have created it and not yet written it: wait for its content.
  for (let attempt = 0; attempt < 40; attempt++) {
    const id = await read();
    if (/^[a-f0-9]{16}$/.test(id)) return id;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new CoordinationError("home-id", t("coordination.homeId", { file }));
}
