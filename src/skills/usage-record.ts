/**
 * One skill's usage record of `.usage.json` as Hermes defines it: its keys and lifecycle state, the
 * backfill of keys a stored record lacks, and what the curator reads of it (managed or not, last activity,
 * activity count, timestamps). The file itself is read and written by `UsageStore` (`usage.ts`).
 */

/** Lifecycle state of a skill. */
export type SkillState = "active" | "stale" | "archived";

/** One skill's record. Unknown keys found on disk are preserved. */
export interface UsageRecord {
  /** Absent on records that pre-date the provenance marker; kept absent so the two unmanaged reasons stay apart. */
  created_by?: string | null;
  use_count: number;
  view_count: number;
  patch_count: number;
  last_used_at: string | null;
  last_viewed_at: string | null;
  last_patched_at: string | null;
  created_at: string | null;
  state: SkillState;
  pinned: boolean;
  archived_at: string | null;
  patch_generation?: number;
  last_reused_patch_generation?: number;
  agent_created?: boolean;
  first_seen_at?: string | null;
  [key: string]: unknown;
}

/** All records, keyed by skill name. */
export type UsageMap = Record<string, UsageRecord>;

/** A fresh record with every key Hermes backfills. */
export function emptyRecord(createdAt: string | null = null): UsageRecord {
  return {
    created_by: null,
    use_count: 0,
    view_count: 0,
    patch_count: 0,
    last_used_at: null,
    last_viewed_at: null,
    last_patched_at: null,
    created_at: createdAt,
    state: "active",
    pinned: false,
    archived_at: null,
  };
}

/**
 * Fills missing keys of a stored record (non-objects are dropped by the caller). `created_by` is not
 * invented: whether a record carries it at all tells "pre-dates the marker" from "created by hand".
 */
export function backfill(raw: Record<string, unknown>): UsageRecord {
  if (isComplete(raw)) return raw;
  const record = { ...emptyRecord(), ...raw } as UsageRecord;
  if (!Object.hasOwn(raw, "created_by")) delete record.created_by;
  for (const key of ["use_count", "view_count", "patch_count"] as const) {
    if (typeof record[key] !== "number" || !Number.isFinite(record[key])) record[key] = 0;
  }
  if (!["active", "stale", "archived"].includes(record.state)) record.state = "active";
  if (typeof record.pinned !== "boolean") record.pinned = Boolean(record.pinned);
  return record;
}

/**
 * True when `raw` already is what `backfill` would make of it (every key present and well-typed, as
 * skillgate and Hermes write records), so it can be used as it is instead of copied: a 10k library's
 * file holds 10k records.
 */
function isComplete(raw: Record<string, unknown>): raw is Record<string, unknown> & UsageRecord {
  const { use_count, view_count, patch_count, state } = raw;
  return (
    typeof use_count === "number" &&
    Number.isFinite(use_count) &&
    typeof view_count === "number" &&
    Number.isFinite(view_count) &&
    typeof patch_count === "number" &&
    Number.isFinite(patch_count) &&
    (state === "active" || state === "stale" || state === "archived") &&
    typeof raw.pinned === "boolean" &&
    raw.last_used_at !== undefined &&
    raw.last_viewed_at !== undefined &&
    raw.last_patched_at !== undefined &&
    raw.created_at !== undefined &&
    raw.archived_at !== undefined
  );
}

/** True when the record marks a curator-managed skill (`created_by: agent` or legacy `agent_created`). */
export function isManagedRecord(record: Partial<UsageRecord> | undefined): boolean {
  return record?.created_by === "agent" || record?.agent_created === true;
}

/** Latest of last_used/last_viewed/last_patched (created_at excluded), as its raw string, or null. */
export function lastActivityAt(record: UsageRecord): string | null {
  return lastActivity(record)?.iso ?? null;
}

/** The fields whose latest value is a record's last activity. */
const ACTIVITY_FIELDS = ["last_used_at", "last_viewed_at", "last_patched_at"] as const;

/** `lastActivityAt` with its time in ms (parsed once), or null when there was no activity. */
export function lastActivity(record: UsageRecord): { iso: string; ms: number } | null {
  // Called for every record of a curator pass: no array or object per field, one result object.
  let iso: string | undefined;
  let ms = Number.NEGATIVE_INFINITY;
  for (const field of ACTIVITY_FIELDS) {
    const value = record[field];
    if (typeof value !== "string") continue;
    const parsed = parseTimestamp(value);
    if (parsed !== undefined && (iso === undefined || parsed > ms)) {
      iso = value;
      ms = parsed;
    }
  }
  return iso === undefined ? null : { iso, ms };
}

/** use + view + patch counts. */
export function activityCount(record: UsageRecord): number {
  return record.use_count + record.view_count + record.patch_count;
}

/** Parses an ISO timestamp; a naive one (no zone) counts as UTC. Python's microseconds are accepted. */
export function parseTimestamp(value: string): number | undefined {
  // The common case, as Hermes and skillgate write them: `YYYY-MM-DDTHH:MM:SS.ffffff+00:00`.
  if (
    value.length === 32 &&
    value.charCodeAt(4) === 0x2d &&
    value.charCodeAt(10) === 0x54 &&
    value.charCodeAt(19) === 0x2e &&
    value.endsWith("+00:00")
  ) {
    const ms = Date.parse(`${value.slice(0, 23)}Z`);
    if (!Number.isNaN(ms)) return ms;
  }
  let text = value.trim();
  if (text === "") return undefined;
  if (!/[zZ]$|[+-]\d{2}:?\d{2}$/.test(text)) text += "Z";
  text = text.replace(/(\.\d{3})\d+/, "$1");
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}
