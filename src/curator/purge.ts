/**
 * Purge: permanently deletes archived packages older than a TTL (`--days`, else
 * `curator.archive_ttl_days`; 0 = disabled). Each package's files are stored as blobs first, then it is
 * moved into a trash dir with one rename (the trash notes where it came from, `PURGE_ORIGIN`), then the
 * ledger line (action `purge`, so it can be rolled back) is written, then the trash is deleted. A crash
 * before the ledger line leaves no `purge` entry for a package still there: the next start puts a trashed
 * package without its ledger line back (`recoverPurgeTrash`) and deletes one whose line was written.
 */

import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import type { SkillgateConfig } from "../config/config.js";
import { homePaths } from "../config/home.js";
import { CuratorError, UsageError } from "../core/errors.js";
import { t } from "../core/i18n/messages.js";
import { meterFor, type ProgressSink } from "../core/progress.js";
import { UsageStore } from "../skills/usage.js";
import { parseTimestamp } from "../skills/usage-record.js";
import { type ArchivedItem, listArchived } from "./archived-packages.js";
import { crashPoint } from "./journal.js";
import { appendEntry, captureState, type LedgerActor } from "./ledger.js";

const DAY_MS = 86_400_000;

/** Options of `purgeArchived`. */
export interface PurgeOptions {
  home: string;
  config: SkillgateConfig;
  /** Overrides `curator.archive_ttl_days`; must be ≥ 1. */
  days?: number;
  dryRun: boolean;
  actor?: LedgerActor;
  now?: Date;
  /** Counted progress of the deletions. */
  meter?: ProgressSink;
}

/** One archived package old enough to purge. */
export interface PurgeCandidate {
  archivedAs: string;
  skill: string;
  dir: string;
  ageDays: number;
  /** Where the age comes from. */
  agedBy: "archived_at" | "archive_stamp" | "mtime";
}

/** Outcome of a purge. */
export interface PurgeResult {
  ttlDays: number;
  /** False when there is no `.archive/` at all. */
  archiveExists: boolean;
  candidates: PurgeCandidate[];
  purged: Array<PurgeCandidate & { ledgerEntry: string | null }>;
  failures: Array<{ archivedAs: string; error: string }>;
  dryRun: boolean;
}

/** The TTL in force, or a clear error when purge is disabled or `--days` is invalid. */
export function purgeTtl(config: SkillgateConfig, days?: number): number {
  if (days !== undefined) {
    if (!Number.isInteger(days) || days < 1)
      throw new UsageError(t("cmd.purge.badDays", { days: String(days) }));
    return days;
  }
  const ttl = config.curator.archiveTtlDays;
  if (!(ttl > 0)) {
    throw new CuratorError("purge", t("cmd.purge.disabledError"), { code: "curator.purge_disabled" });
  }
  return ttl;
}

/** Archived packages older than `ttlDays`, by their usage `archived_at`, else the folder's mtime. */
export async function purgeCandidates(home: string, ttlDays: number, now: Date): Promise<PurgeCandidate[]> {
  const usage = await new UsageStore(homePaths(home).skills).read();
  const out: PurgeCandidate[] = [];
  for (const item of await listArchived(home)) {
    const { ms, agedBy } = archivedMoment(item, usage[item.skillName]?.archived_at);
    const ageDays = (now.getTime() - ms) / DAY_MS;
    if (ageDays >= ttlDays)
      out.push({ archivedAs: item.archivedAs, skill: item.skillName, dir: item.dir, ageDays, agedBy });
  }
  return out.sort((a, b) => b.ageDays - a.ageDays);
}

function archivedMoment(
  item: ArchivedItem,
  archivedAt: unknown,
): { ms: number; agedBy: PurgeCandidate["agedBy"] } {
  // A timestamped duplicate is a different (older or newer) copy than the one the record describes;
  // its suffix is the moment it was archived (UTC). A rename keeps a folder's mtime, so the folder time
  // is only the last resort.
  const stamped = item.stamp === null ? undefined : stampTime(item.stamp);
  if (stamped !== undefined) return { ms: stamped, agedBy: "archive_stamp" };
  const ms = typeof archivedAt === "string" ? parseTimestamp(archivedAt) : undefined;
  if (ms !== undefined && item.stamp === null) return { ms, agedBy: "archived_at" };
  return { ms: item.mtimeMs, agedBy: "mtime" };
}

/** The UTC moment of an archive suffix `YYYYMMDDHHMMSS`, or undefined when it is not one. */
function stampTime(stamp: string): number | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(stamp);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  const ms = Date.UTC(y ?? 0, (mo ?? 1) - 1, d ?? 1, h ?? 0, mi ?? 0, s ?? 0);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * Purges archived packages older than the TTL. With `dryRun` it only lists them. Each purge is ledgered
 * before anything is deleted; a package whose ledger entry cannot be written is left alone.
 */
export async function purgeArchived(opts: PurgeOptions): Promise<PurgeResult> {
  const ttlDays = purgeTtl(opts.config, opts.days);
  const paths = homePaths(opts.home);
  const result: PurgeResult = {
    ttlDays,
    archiveExists: true,
    candidates: [],
    purged: [],
    failures: [],
    dryRun: opts.dryRun,
  };
  const archiveStat = await fs.stat(paths.archive).catch(() => undefined);
  if (!archiveStat?.isDirectory()) return { ...result, archiveExists: false };
  result.candidates = await purgeCandidates(opts.home, ttlDays, opts.now ?? new Date());
  if (opts.dryRun) return result;
  const tick = meterFor(opts.meter, "purging", result.candidates.length, "skills");
  for (const [index, candidate] of result.candidates.entries()) {
    tick(index);
    try {
      const ledgerEntry = await purgeOne(opts, candidate, ttlDays);
      result.purged.push({ ...candidate, ledgerEntry });
    } catch (error) {
      result.failures.push({ archivedAs: candidate.archivedAs, error: (error as Error).message });
    }
  }
  tick(result.candidates.length);
  return result;
}

/** The file in a purge trash naming where its package came from (JSON `{dir, archived_as}`). */
export const PURGE_ORIGIN = "origin.json";

/**
 * Removes one package: its files stored as blobs, moved into a trash, ledgered, then deleted. Returns
 * the entry id. A ledger line that cannot be written puts the package back.
 */
async function purgeOne(
  opts: PurgeOptions,
  candidate: PurgeCandidate,
  ttlDays: number,
): Promise<string | null> {
  const skills = homePaths(opts.home).skills;
  const ledgered = opts.config.skills.ledger;
  const before = ledgered ? await captureState(opts.home, [candidate.dir]) : undefined;
  const usage = ledgered ? ((await new UsageStore(skills).read())[candidate.skill] ?? null) : null;
  const trash = path.join(skills, `.purge-trash-${randomBytes(4).toString("hex")}`);
  await fs.mkdir(trash);
  // Written aside and renamed into place: a kill mid-write never leaves a partial origin behind.
  const origin = path.join(trash, PURGE_ORIGIN);
  await fs.writeFile(
    `${origin}.tmp`,
    JSON.stringify({ dir: path.relative(skills, candidate.dir), archived_as: candidate.archivedAs }),
  );
  await fs.rename(`${origin}.tmp`, origin);
  await fs.rename(candidate.dir, path.join(trash, "package"));
  await crashPoint("purge:moved");
  let entryId: string | null = null;
  if (before) {
    const entry = await appendEntry(opts.home, opts.config, {
      actor: opts.actor ?? "user",
      action: "purge",
      skill: candidate.skill,
      evidence: { ttl_days: ttlDays, archived_as: candidate.archivedAs },
      before: before.files,
      after: [],
      roots: [candidate.dir],
      usage_before: usage,
      usage_after: usage,
    }).catch(() => null);
    if (!entry) {
      await fs.rename(path.join(trash, "package"), candidate.dir);
      await fs.rm(trash, { recursive: true, force: true });
      throw new CuratorError("purge", `could not ledger ${candidate.archivedAs}; it was kept.`);
    }
    entryId = entry.id;
  }
  await crashPoint("purge:ledgered");
  await fs.rm(trash, { recursive: true, force: true });
  await crashPoint("purge:deleted");
  return entryId;
}
