/**
 * The automatic, time-based pass as a pure function: given the skills, their usage records, the cron
 * references, provenance, the clock and the config, decide which curated skills are seeded, marked
 * stale, archived or reactivated. Nothing is read or written here; `applyPlan` performs the result.
 */
import path from "node:path";
import type { SkillgateConfig } from "../config/config.js";
import { isoTimestamp } from "../core/fsutil.js";
import type { SkillEntry } from "../skills/types.js";
import {
  lastActivity,
  parseTimestamp,
  type SkillState,
  type UsageMap,
  type UsageRecord,
} from "../skills/usage-record.js";
import { classify, type Provenance } from "./provenance.js";
import type { CuratorPlan, PlanAction } from "./types.js";

const DAY_MS = 86_400_000;

/** Everything `plan` decides from. */
export interface PlanInput {
  skills: readonly SkillEntry[];
  usage: UsageMap;
  cronRefs: ReadonlySet<string>;
  provenance: Provenance;
  now: Date;
  config: SkillgateConfig;
}

/** A live skill the curator manages, with its stored record (undefined when none was ever written). */
export interface CuratedRow {
  name: string;
  entry: SkillEntry;
  record: UsageRecord | undefined;
  kind: "agent" | "bundled";
}

/** The live, local skills in the curated set: managed ones, plus bundled ones while prune_builtins is on. */
export function curatedRows(
  input: Pick<PlanInput, "skills" | "usage" | "provenance" | "config">,
): CuratedRow[] {
  const rows: CuratedRow[] = [];
  for (const entry of input.skills) {
    if (entry.rootKind !== "local") continue;
    const record = input.usage[entry.name];
    const verdict = classify(entry.name, entry, record, true, input.provenance, input.config);
    if (!verdict.curated) continue;
    rows.push({ name: entry.name, entry, record, kind: verdict.kind === "bundled" ? "bundled" : "agent" });
  }
  return rows;
}

/** True when a cron job names this skill (by name or by its folder name). */
export function isCronReferenced(entry: SkillEntry, cronRefs: ReadonlySet<string>): boolean {
  return cronRefs.has(entry.name) || cronRefs.has(path.basename(entry.dir));
}

/** The activity anchor of a record in ms: last activity, else created_at, else `now`. */
export function activityAnchor(record: UsageRecord, now: Date): { ms: number; iso: string | null } {
  const last = lastActivity(record);
  if (last) return last;
  const createdAt = record.created_at;
  if (typeof createdAt === "string") {
    const ms = parseTimestamp(createdAt);
    if (ms !== undefined) return { ms, iso: createdAt };
  }
  return { ms: now.getTime(), iso: null };
}

/** Whole days from `anchorMs` to `now`, never negative. */
export function idleDays(anchorMs: number, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - anchorMs) / DAY_MS));
}

function hasNoActivity(record: UsageRecord): boolean {
  return record.use_count === 0 && lastActivity(record) === null;
}

/** Decides the transition of one curated skill that is neither pinned nor cron-referenced. */
function decide(
  row: CuratedRow,
  record: UsageRecord,
  now: Date,
  config: SkillgateConfig,
): PlanAction | "grace" | null {
  const anchor = activityAnchor(record, now);
  const staleCutoff = now.getTime() - config.curator.staleAfterDays * DAY_MS;
  const archiveCutoff = now.getTime() - config.curator.archiveAfterDays * DAY_MS;
  // Most skills need no action: the action object is built only for those that do.
  const action = (
    kind: "archive" | "stale" | "reactivate",
    from: SkillState,
    to: SkillState,
  ): PlanAction => ({
    name: row.name,
    relPath: row.entry.relPath,
    anchor: anchor.iso,
    idleDays: idleDays(anchor.ms, now),
    kind,
    from,
    to,
  });
  if (record.use_count === 0 && anchor.ms > staleCutoff) {
    // Never used and still young: not evidence that it can go. A stale one comes back to active.
    if (record.state === "stale") return action("reactivate", "stale", "active");
    return "grace";
  }
  if (anchor.ms <= archiveCutoff && record.state !== "archived")
    return action("archive", record.state, "archived");
  if (anchor.ms <= staleCutoff && record.state === "active") return action("stale", "active", "stale");
  if (anchor.ms > staleCutoff && record.state === "stale") return action("reactivate", "stale", "active");
  return null;
}

/** The action that gives a curated skill without activity its first record. */
function seedAction(row: CuratedRow): PlanAction {
  return { kind: "seed", name: row.name, relPath: row.entry.relPath, anchor: null, idleDays: 0 };
}

/** Plans the automatic transitions for `now`. Pure: the same input always gives the same plan. */
export function plan(input: PlanInput): CuratorPlan {
  const result: CuratorPlan = {
    now: isoTimestamp(input.now),
    counts: { checked: 0, marked_stale: 0, archived: 0, reactivated: 0, seeded: 0 },
    actions: [],
    skipped: [],
    candidates: [],
    changes: false,
  };
  for (const row of curatedRows(input)) {
    result.counts.checked += 1;
    result.candidates.push(row.name);
    if (row.record?.pinned) {
      result.skipped.push({ name: row.name, reason: "pinned" });
      continue;
    }
    if (isCronReferenced(row.entry, input.cronRefs)) {
      result.skipped.push({ name: row.name, reason: "cron" });
      continue;
    }
    if (!row.record) {
      result.actions.push(seedAction(row));
      result.counts.seeded += 1;
      continue;
    }
    if (row.kind === "bundled" && hasNoActivity(row.record) && !row.record.first_seen_at) {
      // A built-in nobody touched yet starts its clock now, not at some old install date.
      result.actions.push({ ...seedAction(row), reanchor: true });
      result.counts.seeded += 1;
      continue;
    }
    const action = decide(row, row.record, input.now, input.config);
    if (action === "grace") {
      result.skipped.push({ name: row.name, reason: "grace" });
      continue;
    }
    if (!action) continue;
    result.actions.push(action);
    if (action.kind === "archive") result.counts.archived += 1;
    else if (action.kind === "stale") result.counts.marked_stale += 1;
    else if (action.kind === "reactivate") result.counts.reactivated += 1;
  }
  result.changes = result.actions.some((action) => action.kind !== "seed");
  return result;
}
