/**
 * Performs a `CuratorPlan`. When the plan changes anything, a `pre-curator-run` snapshot is taken first
 * (if backups are enabled) and a failed snapshot aborts with nothing changed. Archives are ledgered moves,
 * group-committed (see `archiveMany`); state changes (seed, stale, reactivate), re-checked against the
 * current records, land in the same single locked `.usage.json` write as the archive marks. A plan that
 * changes nothing takes no snapshot (one the caller began while planning is discarded).
 */
import type { SkillgateConfig } from "../config/config.js";
import { homePaths } from "../config/home.js";
import { CuratorError, interruptedError } from "../core/errors.js";
import { relaxYoungGenerationForLargeHeap } from "../core/heap-tuning.js";
import { english, type Text, t } from "../core/i18n/messages.js";
import type { ProgressSink } from "../core/progress.js";
import { everySkillOnDisk } from "../skills/library.js";
import type { SkillEntry, SkillLibrary } from "../skills/types.js";
import { UsageStore } from "../skills/usage.js";
import { emptyRecord, lastActivity, type SkillState, type UsageMap } from "../skills/usage-record.js";
import { archiveMany, type MoveFailure } from "./archive-batch.js";
import type { ArchiveResult } from "./archive-move.js";
import type { LedgerActor } from "./ledger.js";
import { loadProvenance, type Provenance } from "./provenance.js";
import { createSnapshot, type PendingSnapshot } from "./snapshot.js";
import type { AutoTransitionCounts, CuratorPlan, PlanAction } from "./types.js";

/** What `applyPlan` needs. */
export interface ApplyOptions {
  home: string;
  config: SkillgateConfig;
  library: SkillLibrary;
  actor: LedgerActor;
  dryRun: boolean;
  /** Provenance already read by the caller (read again when absent). */
  provenance?: Provenance;
  /**
   * The entries the plan was made from (the library is read again when absent). A package that moved
   * since is not found where the plan saw it and is kept, reported as a failure.
   */
  skills?: readonly SkillEntry[];
  /** Counted progress of the archives. */
  meter?: ProgressSink;
  /**
   * The pre-run snapshot, begun by the caller while it planned: kept when the plan changes anything,
   * discarded otherwise (taken here when absent).
   */
  snapshot?: PendingSnapshot;
  /**
   * The process is stopping: before the snapshot is kept nothing changes (`curator.interrupted` is
   * thrown); during the archives the batch stops at its next safe point and `interrupted` is set.
   */
  signal?: AbortSignal;
}

/** What was done (or, for a dry run, what would be done). */
export interface ApplyOutcome {
  /** False for a dry run: nothing was touched. */
  applied: boolean;
  snapshotId: string | null;
  counts: AutoTransitionCounts;
  archived: ArchiveResult[];
  transitions: { name: string; from: SkillState; to: SkillState }[];
  failures: MoveFailure[];
  /** A stop was asked for mid-way: some planned archives were not done (the next run does them). */
  interrupted: boolean;
}

function preview(plan: CuratorPlan): ApplyOutcome {
  return {
    applied: false,
    snapshotId: null,
    counts: { ...plan.counts },
    archived: plan.actions
      .filter((action) => action.kind === "archive")
      .map((action) => ({
        name: action.name,
        from: action.relPath ?? action.name,
        archivedAs: action.relPath ?? action.name,
        dest: "",
      })),
    transitions: plan.actions.flatMap((action) =>
      action.from && action.to ? [{ name: action.name, from: action.from, to: action.to }] : [],
    ),
    failures: [],
    interrupted: false,
  };
}

async function takeSnapshot(opts: ApplyOptions, now: Date): Promise<string | null> {
  if (!opts.config.curator.backup.enabled) return null;
  try {
    const snapshot = opts.snapshot
      ? await opts.snapshot.keep()
      : await createSnapshot({
          home: opts.home,
          config: opts.config,
          reason: "pre-curator-run",
          now,
          meter: opts.meter,
          signal: opts.signal,
        });
    return snapshot.id;
  } catch (error) {
    if (error instanceof CuratorError && error.code === "curator.interrupted") throw error;
    throw new CuratorError(
      "snapshot",
      `the pre-run snapshot failed (${(error as Error).message}); nothing was changed. Fix the cause, or set curator.backup.enabled: false to run without a snapshot.`,
      { cause: error },
    );
  }
}

/** Applies one non-archive action to the current records; returns the transition made, if any. */
function applyStateAction(
  records: UsageMap,
  action: PlanAction,
  nowIso: string,
): { from: SkillState; to: SkillState } | "seeded" | null {
  const record = records[action.name];
  if (action.kind === "seed") {
    if (!record) {
      records[action.name] = emptyRecord(nowIso);
      return "seeded";
    }
    if (action.reanchor && !record.first_seen_at) {
      record.first_seen_at = nowIso;
      record.created_at = nowIso;
      return "seeded";
    }
    return null;
  }
  // Re-check against what is on disk now: a pin or a use since planning wins.
  if (!record || record.pinned || record.state !== action.from || !action.to) return null;
  record.state = action.to;
  if (action.to === "active") record.archived_at = null;
  return { from: action.from, to: action.to };
}

const DAY_MS = 86_400_000;

/** Performs `plan`. Throws `CuratorError` (phase `snapshot`) when the pre-run snapshot fails. */
export async function applyPlan(plan: CuratorPlan, opts: ApplyOptions): Promise<ApplyOutcome> {
  if (opts.dryRun || !plan.changes) await opts.snapshot?.discard();
  if (opts.dryRun) return preview(plan);
  // The writes ahead allocate in bulk; over a very large library that is cheaper with a growing young generation.
  relaxYoungGenerationForLargeHeap();
  const now = new Date(plan.now);
  const outcome: ApplyOutcome = {
    applied: true,
    snapshotId: null,
    counts: { checked: plan.counts.checked, marked_stale: 0, archived: 0, reactivated: 0, seeded: 0 },
    archived: [],
    transitions: [],
    failures: [],
    interrupted: false,
  };
  if (opts.signal?.aborted) {
    await opts.snapshot?.discard();
    throw interruptedError("run", t("error.what.curatorRun"));
  }
  if (plan.changes) outcome.snapshotId = await takeSnapshot(opts, now);
  const stateActions = plan.actions.filter((action) => action.kind !== "archive");
  const applyStates = (records: UsageMap) => {
    for (const action of stateActions) {
      const done = applyStateAction(records, action, plan.now);
      if (done === "seeded") outcome.counts.seeded += 1;
      else if (done) {
        outcome.transitions.push({ name: action.name, ...done });
        if (done.to === "stale") outcome.counts.marked_stale += 1;
        else outcome.counts.reactivated += 1;
      }
    }
  };
  const { archives, usage } = await stillIdle(
    plan.actions.filter((action) => action.kind === "archive"),
    opts,
    now,
    outcome,
  );
  // One `.usage.json` write per run: the state changes ride along with the archives' record update.
  if (archives.length > 0)
    await applyArchives(
      archives,
      { ...opts, usage },
      now,
      outcome,
      stateActions.length > 0 ? applyStates : undefined,
    );
  else if (stateActions.length > 0)
    await new UsageStore(homePaths(opts.home).skills).update(applyStates, { reuseShared: true });
  return outcome;
}

/**
 * The archive actions whose skill is still idle: a use, view or patch since planning (the snapshot can
 * take a while on a large library) moves its anchor past the archive cutoff, and the skill stays.
 */
async function stillIdle(
  archives: PlanAction[],
  opts: ApplyOptions,
  now: Date,
  outcome: ApplyOutcome,
): Promise<{ archives: PlanAction[]; usage: Readonly<UsageMap> }> {
  if (archives.length === 0) return { archives, usage: {} };
  // Shared with the plan's read while the file is unchanged (no second parse); re-read when it changed.
  const records = await new UsageStore(homePaths(opts.home).skills).readShared();
  const cutoff = now.getTime() - opts.config.curator.archiveAfterDays * DAY_MS;
  const idle = archives.filter((action) => {
    const record = records[action.name];
    const lastMs = record ? lastActivity(record)?.ms : undefined;
    if (lastMs === undefined || lastMs <= cutoff) return true;
    outcome.failures.push(failure(action.name, t("run.usedSincePlan")));
    return false;
  });
  return { archives: idle, usage: records };
}

/** A planned archive that did not happen, and why. */
function failure(name: string, text: Text): MoveFailure {
  return { name, error: english(text), text };
}

async function applyArchives(
  archives: PlanAction[],
  opts: ApplyOptions & { usage: Readonly<UsageMap> },
  now: Date,
  outcome: ApplyOutcome,
  alsoUpdateUsage: ((records: UsageMap) => void) | undefined,
): Promise<void> {
  const skills = opts.skills ?? (await everySkillOnDisk(opts.library));
  const entries = new Map<string, SkillEntry>(skills.map((entry) => [entry.name, entry]));
  const provenance = opts.provenance ?? (await loadProvenance(opts.home, [...entries.values()]));
  const found: { entry: SkillEntry; evidence: Record<string, unknown> }[] = [];
  const actionOf = new Map(archives.map((action) => [action.name, action]));
  for (const action of archives) {
    const entry = entries.get(action.name);
    if (entry) found.push({ entry, evidence: { reason: "unused", idle_days: action.idleDays } });
    else outcome.failures.push(failure(action.name, t("run.goneFromDisk")));
  }
  const done = await archiveMany(found, {
    home: opts.home,
    config: opts.config,
    library: opts.library,
    actor: opts.actor,
    now,
    provenance,
    usage: opts.usage,
    alsoUpdateUsage,
    meter: opts.meter,
    signal: opts.signal,
  });
  outcome.failures.push(...done.failures);
  outcome.interrupted =
    opts.signal?.aborted === true && done.archived.length + done.failures.length < found.length;
  for (const result of done.archived) {
    outcome.archived.push(result);
    outcome.transitions.push({
      name: result.name,
      from: actionOf.get(result.name)?.from ?? "active",
      to: "archived",
    });
    outcome.counts.archived += 1;
  }
}
