/**
 * Leadership as the library on disk sees it: `skills/.locks/leader` records the epoch of the latest
 * leader (`<epoch> <host> <pid> <replica>`), written by each new leader as it starts, only ever upward.
 * The write fence of a replica (`leadershipFence`) lets a write batch through only while its lease is
 * valid on its own clock and the disk still names its epoch: a leader that was paused past its lease, or
 * cut off from Redis, finds a newer epoch there (or its lease expired) and is refused — the correctness
 * comes from what storage says, not from the lease alone.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { homePaths } from "../../config/home.js";
import { FencedError, type WriteFence } from "../../core/fence.js";
import { atomicWriteFile, withLock } from "../../core/fsutil.js";
import { english, type Text, t } from "../../core/i18n/messages.js";
import type { Logger } from "../../core/logger.js";

/** The file recording the latest leader's epoch. */
export function leaderFile(home: string): string {
  return path.join(homePaths(home).locks, "leader");
}

/** What `skills/.locks/leader` says. */
export interface LeaderRecord {
  epoch: number;
  host: string;
  pid: number;
  replica: string;
}

/** The record on disk (epoch 0 when there is none or it cannot be read). */
export async function readLeaderRecord(home: string): Promise<LeaderRecord> {
  const text = await fs.readFile(leaderFile(home), "utf8").catch(() => "");
  const [epoch, host, pid, replica] = text.trim().split(/\s+/);
  const value = Number(epoch);
  return {
    epoch: Number.isSafeInteger(value) && value > 0 ? value : 0,
    host: host ?? "",
    pid: Number(pid) || 0,
    replica: replica ?? "",
  };
}

/**
 * Records `epoch` as the latest leader's, unless the disk already holds a newer one (then this replica
 * is stale: `FencedError`). The read and the write happen under the file's lock.
 */
export async function recordLeadership(home: string, epoch: number, replica: string): Promise<void> {
  await withLock(
    `${leaderFile(home)}.lock`,
    async () => {
      const current = await readLeaderRecord(home);
      if (current.epoch > epoch)
        throw new FencedError(
          t("fence.what.takeLead"),
          t("fence.reason.newerEpoch", {
            disk: String(current.epoch),
            replica: current.replica,
            host: current.host,
            mine: String(epoch),
          }),
        );
      await atomicWriteFile(leaderFile(home), `${epoch} ${os.hostname()} ${process.pid} ${replica}\n`);
    },
    { waitMs: 10_000, recordHolder: false },
  );
}

/** What the fence needs to know about the replica's lease. */
export interface LeaseView {
  /** The epoch it leads under, or undefined. */
  readonly epoch: number | undefined;
  /** True while the lease is surely its own (see `LeaderLease.valid`). */
  valid(): boolean;
}

/** The write fence of a coordinated replica (see the file's comment); each refusal is logged. */
export function leadershipFence(home: string, lease: LeaseView, logger: Logger): WriteFence {
  const refuse = (what: string, reason: Text) => {
    const error = new FencedError(what, reason);
    const because = english(reason);
    logger.warn({ what, reason: because }, `coordination: refused a write (${what}): ${because}`);
    return error;
  };
  return {
    epoch: () => (lease.valid() ? lease.epoch : undefined),
    async check(what) {
      const mine = lease.epoch;
      if (mine === undefined || !lease.valid()) throw refuse(what, t("fence.reason.notLeading"));
      const disk = await readLeaderRecord(home);
      if (disk.epoch !== mine)
        throw refuse(
          what,
          t("fence.reason.staleRecord", {
            disk: String(disk.epoch),
            replica: disk.replica || "unknown",
            host: disk.host || "?",
            mine: String(mine),
          }),
        );
    },
  };
}
