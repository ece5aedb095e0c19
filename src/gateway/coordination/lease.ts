/**
 * One leader among the replicas of a home, with a fencing epoch. The lease is a Redis key taken with
 * `SET NX PX` (TTL 7 s) and renewed every second by compare-and-expire; every acquisition increments an
 * epoch, never below what the disk already records (so a Redis restarted from an older AOF cannot hand
 * out an epoch a previous leader used). A leader whose last *successful* renewal is 5 s old fences
 * itself — a timer fires then whatever its Redis calls are doing, so a silent partition that leaves a
 * renewal hanging fences it on time — before anyone else can lead (the TTL is longer), and gives the
 * lease up when it still can. A follower tries again as the lease runs out. Timing uses the monotonic
 * clock of this process (`process.hrtime`), never wall time, so clock skew between hosts and wall-clock
 * jumps do not matter. Given the Redis URL, a leader renews on a thread of its own (`renewal-pump.ts`),
 * so a stall of its event loop does not pass the lease on.
 *
 * A leader that crashed is replaced at once, not when its lease lapses. Its renewal thread's connection
 * is recorded beside the lease (`leader-conn`: the server's run id and the connection's client id). A
 * standby that finds the lease held polls every `ORPHAN_POLL_MS`. When that connection is gone from the
 * very server that recorded it (`CLIENT LIST ID`), it takes the lease over. This holds only if the
 * lease was renewed within `ORPHAN_RENEWED_WITHIN_MS`. The kernel closes a dead process's sockets, so
 * Redis sees a crashed leader's connection go at once. A live leader whose connection closes stops
 * taking events that moment, until it renews on a new connection (`renewal-pump.ts`). A silent partition
 * leaves the connection open on the server, so the lease lapses as before. Redis closes an idle
 * connection itself (its `timeout`, 1 s at least, or TCP keep-alive) only long after the last renewal;
 * the renewal bound rules that case out. An ACL user that may not run `CLIENT ID`/`CLIENT LIST` gets
 * the lapse.
 *
 * The lease also watches the home's generation marker (`generation`, set by the first acquisition on an
 * empty Redis): a renewal that finds it changed or gone means Redis lost its data (`FLUSHALL`, a restart
 * without persistence, a failover to an empty replica), and the leader steps down at once rather than
 * trust anything it believed about the inbox.
 */
import { randomBytes } from "node:crypto";
import type { Logger } from "../../core/logger.js";
import type { RedisClient } from "./redis.js";
import { monotonicMs, RenewalPump, STALL_LIMIT_MS } from "./renewal-pump.js";

/** Lease timings (ms). */
export interface LeaseTimings {
  ttlMs: number;
  renewMs: number;
  /** A leader that has not renewed for this long stops leading (must be below `ttlMs`). */
  fenceAfterMs: number;
  /**
   * With the renewal thread: how long the main thread may go without a heartbeat before the lease is let
   * lapse (default `STALL_LIMIT_MS`).
   */
  stallLimitMs?: number;
}

/** The key (under the home's prefix) holding the current leader's epoch; it expires with the lease. */
export const LEADER_EPOCH_KEY = "leader-epoch";

/** The key (under the home's prefix) naming the generation of the home's Redis data (see the file's comment). */
export const GENERATION_KEY = "generation";

/** The key (under the home's prefix) naming the leader's renewal connection (see the file's comment). */
export const LEADER_CONNECTION_KEY = "leader-conn";

/** How often a standby looks at a held lease whose leader's connection it can watch (ms). */
export const ORPHAN_POLL_MS = 200;

/**
 * A lease is taken over for a closed connection only when it was renewed this recently (ms): below the
 * 1 s least idle timeout Redis closes a connection for (see the file's comment).
 */
export const ORPHAN_RENEWED_WITHIN_MS = 900;

/**
 * The default timings: a dead leader's lease lapses within 3.5 s; a leader cut off fences itself 2.5 s
 * after its last good renewal, 1 s before the lease could pass on. Renewals run on their own thread
 * (see the file's comment): on the main thread, leaders whose event loop stalled for 3 s during a
 * curator pass over a 10k-skill library handed over on a busy 2-core machine.
 */
export const LEASE_TIMINGS: LeaseTimings = { ttlMs: 3_500, renewMs: 500, fenceAfterMs: 2_500 };

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
  /** Monotonic clock (ms); default `monotonicMs`. Only the default goes with `renewalUrl`. */
  now?: () => number;
  /** The Redis URL: a leader renews on a thread of its own with a connection to it (see the file's comment). */
  renewalUrl?: string;
}

// KEYS: leader, epoch, leader-epoch, generation, leader-conn. Takes the lease when free and returns
// {new epoch (at least ARGV[3] + 1), generation}; else {0, generation, the lease's time left (ms), the
// leader's connection or ''}. An empty Redis gets the generation ARGV[4].
const ACQUIRE = `
redis.call('SET', KEYS[4], ARGV[4], 'NX')
local generation = redis.call('GET', KEYS[4])
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local epoch = redis.call('INCR', KEYS[2])
  local floor = tonumber(ARGV[3])
  if epoch <= floor then
    epoch = floor + 1
    redis.call('SET', KEYS[2], epoch)
  end
  redis.call('SET', KEYS[3], epoch, 'PX', ARGV[2])
  redis.call('DEL', KEYS[5])
  return {epoch, generation}
end
return {0, generation, redis.call('PTTL', KEYS[1]), redis.call('GET', KEYS[5]) or ''}`;

// KEYS: leader, leader-epoch, generation, leader-conn. Extends the lease when this token still holds it
// and the generation is still ARGV[3], and records the renewing connection ARGV[4] ('' forgets it): 1;
// 0 when another holds it; -1 when the generation changed (a wipe).
const RENEW = `
if redis.call('GET', KEYS[3]) ~= ARGV[3] then return -1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
  if ARGV[4] == '' then redis.call('DEL', KEYS[4]) else redis.call('SET', KEYS[4], ARGV[4], 'PX', ARGV[2]) end
  return 1
end
return 0`;

// KEYS: leader, leader-epoch, leader-conn. Gives the lease up when this token holds it.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
  return 1
end
return 0`;

// KEYS: leader, leader-epoch, leader-conn. Frees the lease of a leader whose connection ARGV[1] is gone,
// when that is still the connection recorded and the lease was renewed within ARGV[2] ms of its TTL
// ARGV[3] (see the file's comment): 1 freed, else 0.
const FREE_ORPHANED = `
if redis.call('GET', KEYS[3]) ~= ARGV[1] then return 0 end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) - tonumber(ARGV[2]) then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
return 1`;

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
  /** Fires when the lease is no longer surely this replica's (`fenceAfterMs` after the last renewal). */
  private fenceTimer: NodeJS.Timeout | undefined;
  /** The generation of the Redis data this replica leads over (see the file's comment). */
  private leadGeneration: string | undefined;
  /** When a lease call last got an answer (monotonic ms). */
  private answeredAt: number;
  /** What a follower last saw of the lease another replica holds: its time left (ms) and when. */
  private heldSeen: { leftMs: number; at: number } | undefined;
  /** The renewal thread (with `renewalUrl`), started when this replica first leads (`renewalThread`). */
  private pump: RenewalPump | undefined;
  /** False once Redis refused `CLIENT LIST` or `INFO`: a crashed leader's lease then lapses. */
  private canWatchLeader = true;

  constructor(private readonly options: LeaseOptions) {
    this.token = `${options.replicaId}:${randomBytes(6).toString("hex")}`;
    this.timings = options.timings ?? LEASE_TIMINGS;
    this.now = options.now ?? monotonicMs;
    this.answeredAt = this.now();
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
    return this.currentEpoch === undefined ? undefined : Math.round(this.now() - this.lastRenewal());
  }

  /** When the last renewal that succeeded was sent, by this thread or the renewal thread. */
  private lastRenewal(): number {
    return Math.max(this.renewedAt, this.pump?.renewedAt ?? Number.NEGATIVE_INFINITY);
  }

  /** When a lease call last got an answer, on this thread or the renewal thread. */
  private lastAnswer(): number {
    return Math.max(this.answeredAt, this.pump?.answeredAt ?? Number.NEGATIVE_INFINITY);
  }

  /**
   * Whether Redis answers the lease: its last call succeeded, and within the fence interval (a call
   * still waiting on a silent connection does not count as an answer).
   */
  get redisReachable(): boolean {
    return this.redisOk && this.now() - this.lastAnswer() < this.timings.fenceAfterMs;
  }

  /**
   * Whether no replica seems to lead now: this one does not, and at its last look (recent) the lease
   * was free or had gone unrenewed for two renewal periods (its holder died or stalled).
   */
  leaderAway(): boolean {
    const seen = this.heldSeen;
    if (this.currentEpoch !== undefined || !seen || this.now() - seen.at > this.timings.ttlMs) return false;
    return seen.leftMs < this.timings.ttlMs - 2 * this.timings.renewMs;
  }

  /** Milliseconds since a lease call last got an answer from Redis. */
  get silentForMs(): number {
    return this.redisOk ? 0 : Math.round(this.now() - this.lastAnswer());
  }

  /**
   * Steps down at once when leading (the inbox found Redis wiped, say): the lease is given up so the
   * next leader need not wait for it to lapse.
   */
  async lose(reason: string): Promise<void> {
    if (this.currentEpoch === undefined) return;
    await this.stepDown(reason, true);
    this.schedule(this.timings.renewMs);
  }

  /**
   * True while this replica leads and its lease is surely still its own (renewed within
   * `fenceAfterMs`, judged on this process's clock: a process that was paused knows it at once).
   */
  valid(): boolean {
    return (
      this.currentEpoch !== undefined &&
      this.now() - this.lastRenewal() < this.timings.fenceAfterMs &&
      this.pump?.connectionLost !== true
    );
  }

  /** Starts contending (a first attempt at once). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /**
   * The renewal thread (with `renewalUrl`), started the first time this replica leads: a worker costs
   * about 10 MB, which a standby that never leads does not pay. A new worker is up within tens of
   * milliseconds, well before the first renewal is due; the first lead's duties wait for it (`acquire`).
   */
  private renewalThread(): RenewalPump | undefined {
    if (this.options.renewalUrl && !this.pump && !this.stopped)
      this.pump = new RenewalPump(
        this.options.renewalUrl,
        RENEW,
        this.timings.renewMs,
        this.timings.stallLimitMs ?? STALL_LIMIT_MS,
        (verdict) => this.lostOnRenewalThread(verdict),
        this.options.logger,
      );
    return this.pump;
  }

  /** Stops contending; a leader steps down and gives the lease up for the next one. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.busy;
    if (this.currentEpoch !== undefined) {
      await this.stepDown("stopping", false);
      await this.release();
    }
    this.clearFenceTimer();
    await this.pump?.close();
    this.pump = undefined;
  }

  /**
   * The renewal thread found the lease another's (0) or the home's generation changed (-1). After a
   * wipe it contends again only a renewal period later, as after `lose`: the gateway that heard it
   * stopped leading starts afresh meanwhile, and a lead taken by the one it replaces would be handed
   * over again at once.
   */
  private lostOnRenewalThread(verdict: 0 | -1): void {
    if (this.currentEpoch === undefined) return;
    const reason =
      verdict === -1
        ? "Redis lost its data (the home's generation marker changed: FLUSHALL, a restart without persistence or a failover to an empty replica)"
        : "another replica holds the lease";
    this.stepDown(reason, false)
      .catch((error) => this.options.logger.error({ err: error }, "coordination: stepping down failed"))
      .finally(() => this.schedule(verdict === -1 ? this.timings.renewMs : 0));
  }

  /** Gives the lease up when this token still holds it (bounded by the command deadline). */
  private async release(): Promise<void> {
    await this.options.redis
      .eval(RELEASE, {
        keys: [this.key("leader"), this.key(LEADER_EPOCH_KEY), this.key(LEADER_CONNECTION_KEY)],
        arguments: [this.token],
      })
      .catch(() => undefined);
  }

  /** Arms the fence for the renewal that started at `renewedAt`. */
  private armFence(): void {
    this.clearFenceTimer();
    const left = this.timings.fenceAfterMs - (this.now() - this.lastRenewal());
    this.fenceTimer = setTimeout(() => {
      this.fenceTimer = undefined;
      if (this.currentEpoch === undefined) return;
      // A timer may fire a little before the monotonic clock says the interval is over: wait it out.
      if (this.valid()) return this.armFence();
      this.noteRedisDown(new Error(`no answer for ${Math.round(this.now() - this.lastAnswer())} ms`));
      void this.stepDown(
        `the lease could not be renewed for ${(this.timings.fenceAfterMs / 1000).toFixed(1)} s (Redis did not answer)`,
        true,
      ).catch((error) => this.options.logger.error({ err: error }, "coordination: stepping down failed"));
    }, Math.max(0, left) + 1);
    this.fenceTimer.unref();
  }

  private clearFenceTimer(): void {
    if (this.fenceTimer) clearTimeout(this.fenceTimer);
    this.fenceTimer = undefined;
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
    // The renewal thread renews; this one keeps its turn for when it leads no more.
    if (this.currentEpoch !== undefined && this.pump) this.schedule(this.timings.renewMs);
    else if (this.currentEpoch !== undefined) await this.renew();
    else if (this.options.eligible) await this.acquire();
    else this.schedule(this.timings.renewMs);
  }

  private async acquire(): Promise<void> {
    let epoch: number;
    let waitMs = this.timings.renewMs;
    try {
      const floor = await this.options.diskEpoch();
      const started = this.now();
      const [taken, generation, heldFor, connection] = (await this.options.redis.eval(ACQUIRE, {
        keys: [
          this.key("leader"),
          this.key("epoch"),
          this.key(LEADER_EPOCH_KEY),
          this.key(GENERATION_KEY),
          this.key(LEADER_CONNECTION_KEY),
        ],
        arguments: [this.token, String(this.timings.ttlMs), String(floor), randomBytes(8).toString("hex")],
      })) as [number, string, number?, string?];
      epoch = Number(taken);
      this.noteAnswer();
      if (epoch > 0) {
        // The lease runs from before the request was sent: that is all this replica can be sure of.
        this.renewedAt = started;
        this.currentEpoch = epoch;
        this.leadGeneration = String(generation);
        const firstLead = this.options.renewalUrl !== undefined && !this.pump;
        this.renewalThread()?.begin(
          {
            token: this.token,
            generation: this.leadGeneration,
            keys: [
              this.key("leader"),
              this.key(LEADER_EPOCH_KEY),
              this.key(GENERATION_KEY),
              this.key(LEADER_CONNECTION_KEY),
            ],
            ttlMs: this.timings.ttlMs,
          },
          started,
        );
        this.armFence();
        this.options.logger.info(
          { epoch, replica: this.options.replicaId },
          `coordination: leading (epoch ${epoch})`,
        );
        // Renewals run from now, however long the duties take to start.
        this.schedule(this.timings.renewMs);
        // A first lead's duties (adapters, menus) allocate much, and while the new worker's heap is made
        // V8 lets this thread's young generation grow (an idle 10k leader then held 2–3 MB more for
        // seconds): they start once the worker runs, ~50 ms later on a quiet thread.
        if (firstLead) {
          await this.pump?.started;
          // The lead may have ended meanwhile (the renewal thread found it lost, the fence fired): a
          // replica told to follow starts no duties.
          if (this.currentEpoch !== epoch) return;
        }
        await this.options.events.lead(epoch);
        return;
      }
      // Taken: try again as it runs out (a dead leader's lease ends within its TTL), or at once when its
      // holder's connection is gone (see the file's comment).
      const left = Number(heldFor);
      this.heldSeen = { leftMs: left, at: this.now() };
      const watched = connection && this.canWatchLeader ? connection : undefined;
      if (watched && (await this.freeOrphaned(watched))) waitMs = 0;
      else if (left > 0) waitMs = Math.min(watched ? ORPHAN_POLL_MS : this.timings.renewMs, left + 25);
    } catch (error) {
      this.noteRedisDown(error);
    }
    this.schedule(waitMs);
  }

  /**
   * Frees the lease when the leader's recorded `connection` ("<run id>:<client id>") is gone from this
   * very server and the lease was renewed lately (see the file's comment); true when it did. The server
   * is asked after the client list, so a failover in between shows as another run id.
   */
  private async freeOrphaned(connection: string): Promise<boolean> {
    const split = connection.lastIndexOf(":");
    const runId = connection.slice(0, split);
    const clientId = connection.slice(split + 1);
    const { redis } = this.options;
    try {
      const listed = await redis.sendCommand(["CLIENT", "LIST", "ID", clientId]);
      if (String(listed).trim() !== "") return false;
      if (/^run_id:(\S+)/m.exec(await redis.info("server"))?.[1] !== runId) return false;
    } catch (error) {
      if (!/NOPERM|unknown|syntax/i.test((error as Error).message)) throw error;
      this.canWatchLeader = false;
      this.options.logger.info(
        { err: error },
        "coordination: this Redis user may not list clients; a crashed leader's lease passes on when it lapses",
      );
      return false;
    }
    const freed = Number(
      await redis.eval(FREE_ORPHANED, {
        keys: [this.key("leader"), this.key(LEADER_EPOCH_KEY), this.key(LEADER_CONNECTION_KEY)],
        arguments: [connection, String(ORPHAN_RENEWED_WITHIN_MS), String(this.timings.ttlMs)],
      }),
    );
    if (freed === 1)
      this.options.logger.warn(
        { connection },
        "coordination: the leader's Redis connection closed (its process ended): taking over its lease",
      );
    return freed === 1;
  }

  private async renew(): Promise<void> {
    try {
      const started = this.now();
      const held = Number(
        await this.options.redis.eval(RENEW, {
          keys: [
            this.key("leader"),
            this.key(LEADER_EPOCH_KEY),
            this.key(GENERATION_KEY),
            this.key(LEADER_CONNECTION_KEY),
          ],
          arguments: [this.token, String(this.timings.ttlMs), this.leadGeneration ?? "", ""],
        }),
      );
      this.noteAnswer();
      // The fence may have fired while the call was on its way: that step-down stands.
      if (this.currentEpoch === undefined) return this.schedule(this.timings.renewMs);
      if (held === 1 && this.now() - this.renewedAt < this.timings.fenceAfterMs) {
        this.renewedAt = started;
        this.armFence();
        this.schedule(this.timings.renewMs);
        return;
      }
      if (held === -1)
        await this.stepDown(
          "Redis lost its data (the home's generation marker changed: FLUSHALL, a restart without persistence or a failover to an empty replica)",
          false,
        );
      else if (held === 1) await this.stepDown("the lease was renewed too late", true);
      else await this.stepDown("another replica holds the lease", false);
      this.schedule(held === -1 ? this.timings.renewMs : 0);
      return;
    } catch (error) {
      this.noteRedisDown(error);
    }
    if (this.currentEpoch === undefined) return this.schedule(this.timings.renewMs);
    const left = this.timings.fenceAfterMs - (this.now() - this.renewedAt);
    if (left <= 0) {
      await this.stepDown(
        `the lease could not be renewed for ${(this.timings.fenceAfterMs / 1000).toFixed(1)} s (Redis did not answer)`,
        true,
      );
      this.schedule(this.timings.renewMs);
    } else this.schedule(Math.min(this.timings.renewMs, left));
  }

  private noteAnswer(): void {
    if (!this.redisOk) this.options.logger.info("coordination: Redis answers the lease again");
    this.redisOk = true;
    this.answeredAt = this.now();
  }

  private noteRedisDown(error: unknown): void {
    if (this.redisOk)
      this.options.logger.warn(
        { err: error },
        `coordination: Redis did not answer: ${(error as Error).message}`,
      );
    this.redisOk = false;
  }

  /**
   * Stops leading: the duties stop first, then (`release`) the lease is given up so the next leader need
   * not wait for it to lapse — when it is still this token's, which the release script checks.
   */
  private async stepDown(reason: string, release: boolean): Promise<void> {
    const epoch = this.currentEpoch;
    if (epoch === undefined) return;
    this.currentEpoch = undefined;
    this.pump?.end();
    this.clearFenceTimer();
    this.options.logger.warn(
      { epoch, reason },
      `coordination: no longer leading (epoch ${epoch}): ${reason}`,
    );
    // Released beside the duties' stop, not after it: nothing is written under this epoch any more
    // (the fence refuses it now), so the next leader may start at once. A silent Redis bounds the
    // release by the command deadline; the step-down does not wait for it.
    if (release) void this.release();
    await this.options.events.follow(reason);
  }
}
