/**
 * The curator's operations behind `skillgate curator …` and `/curator …`: status, pause/resume,
 * pin/unpin, adopt, list-unmanaged and prune. They return data; `commands/curator.ts` words the replies.
 */
import { promises as fs } from "node:fs";
import type { SkillgateConfig } from "../config/config.js";
import { homePaths } from "../config/home.js";
import { CuratorError } from "../core/errors.js";
import { isoTimestamp } from "../core/fsutil.js";
import { english, type Text, t } from "../core/i18n/messages.js";
import { compareNames } from "../core/name-order.js";
import type { ProgressSink } from "../core/progress.js";
import { contentKey } from "../core/read-cache.js";
import type { SkillEntry, SkillLibrary } from "../skills/types.js";
import { UsageStore } from "../skills/usage.js";
import {
  activityCount,
  emptyRecord,
  isManagedRecord,
  lastActivityAt,
  parseTimestamp,
  type UsageMap,
  type UsageRecord,
} from "../skills/usage-record.js";
import { archiveMany, type MoveFailure } from "./archive-batch.js";
import { type ArchiveResult, assertSafeName, type CommandPrefix, terminalPrefix } from "./archive-move.js";
import { readCronRefs } from "./cron.js";
import { activityAnchor, type CuratedRow, curatedRows, idleDays, isCronReferenced } from "./plan.js";
import { classify, loadProvenance, type Provenance, readCreatedByKeys } from "./provenance.js";
import { type CuratorState, readState, updateState } from "./state.js";
import type { UnmanagedReason } from "./types.js";

/** What every operation needs. */
export interface OpsContext {
  home: string;
  config: SkillgateConfig;
  library: SkillLibrary;
  now: Date;
  commandPrefix?: CommandPrefix;
  meter?: ProgressSink;
}

/** A snapshot of the library as the curator sees it, read once per operation. */
interface LibraryView {
  skills: SkillEntry[];
  usage: UsageMap;
  provenance: Provenance;
  createdByKeys: ReadonlyMap<string, boolean>;
}

/** The usage records, parsed once per change of `.usage.json` (the view only reads them). */
function readUsage(home: string): Promise<UsageMap> {
  const paths = homePaths(home);
  return new UsageStore(paths.skills).readShared();
}

async function readView(ctx: OpsContext): Promise<LibraryView> {
  const skills = await ctx.library.all();
  const usage = await readUsage(ctx.home);
  const provenance = await loadProvenance(ctx.home, skills);
  return { skills, usage, provenance, createdByKeys: await readCreatedByKeys(ctx.home) };
}

/** One row of the status rankings. */
export interface ActivityRow {
  name: string;
  activity: number;
  use: number;
  view: number;
  patches: number;
  last_activity_at: string | null;
}

/** Everything `curator status` shows (and `--json` prints). */
export interface CuratorStatus {
  state: "enabled" | "paused" | "disabled";
  run_count: number;
  last_run_at: string | null;
  last_run_summary: string | null;
  last_report_path: string | null;
  last_report_missing: boolean;
  interval_hours: number;
  stale_after_days: number;
  archive_after_days: number;
  consolidate: boolean;
  managed: {
    total: number;
    agent_created: number;
    bundled: number;
    active: number;
    stale: number;
    archived: number;
  };
  pinned: string[];
  unmanaged: { total: number; pre_dates_marker: number; foreground_created: number };
  least_recently_active: string[];
  rankings: { least_recently_active: ActivityRow[]; most_active: ActivityRow[]; least_active: ActivityRow[] };
  /** Problems met reading the home, as texts for the reader (`statusJson` writes them in English). */
  warnings: Text[];
}

function activityRow(name: string, record: UsageRecord | undefined): ActivityRow {
  const r = record ?? emptyRecord();
  return {
    name,
    activity: activityCount(r),
    use: r.use_count,
    view: r.view_count,
    patches: r.patch_count,
    last_activity_at: lastActivityAt(r),
  };
}

function recencyMs(record: UsageRecord | undefined): number {
  if (!record) return Number.NEGATIVE_INFINITY;
  for (const value of [lastActivityAt(record), record.created_at]) {
    const ms = typeof value === "string" ? parseTimestamp(value) : undefined;
    if (ms !== undefined) return ms;
  }
  return Number.NEGATIVE_INFINITY;
}

/**
 * The five least recently active, most active and least active skills. Each row's recency and activity
 * are computed once (a status runs on every chat `/curator`; parsing timestamps inside a comparator
 * cost O(N log N) parses and stalled the event loop on large libraries).
 */
function rankings(rows: CuratedRow[]): CuratorStatus["rankings"] {
  const active = rows
    .filter((row) => (row.record?.state ?? "active") === "active")
    .map((row) => ({
      row,
      recency: recencyMs(row.record),
      n: row.record ? activityCount(row.record) : 0,
    }));
  type Ranked = (typeof active)[number];
  const byName = (a: Ranked, b: Ranked) => compareNames(a.row.name, b.row.name);
  const lra = [...active].sort((a, b) => a.recency - b.recency || byName(a, b)).slice(0, 5);
  const most = [...active].sort((a, b) => b.n - a.n || byName(a, b)).slice(0, 5);
  const least = [...active].sort((a, b) => a.n - b.n || byName(a, b)).slice(0, 5);
  const toRow = (item: Ranked) => activityRow(item.row.name, item.row.record);
  return {
    least_recently_active: lra.map(toRow),
    most_active: (most[0]?.n ?? 0) > 0 ? most.map(toRow) : [],
    least_active: least.map(toRow),
  };
}

/** The unmanaged skills: eligible, not bundled, not managed, with the reason. */
function unmanagedRows(view: LibraryView, config: SkillgateConfig) {
  const rows: { entry: SkillEntry; record: UsageRecord | undefined; reason: UnmanagedReason }[] = [];
  for (const entry of view.skills) {
    if (entry.rootKind !== "local") continue;
    const record = view.usage[entry.name];
    const verdict = classify(
      entry.name,
      entry,
      record,
      view.createdByKeys.get(entry.name) ?? false,
      view.provenance,
      config,
    );
    if (verdict.kind === "unmanaged" && verdict.unmanagedReason)
      rows.push({ entry, record, reason: verdict.unmanagedReason });
  }
  return rows.sort((a, b) => compareNames(a.entry.name, b.entry.name));
}

/** Archived skills the curator manages (their records say archived and they are no longer live). */
function archivedManaged(view: LibraryView, config: SkillgateConfig): { agent: number; bundled: number } {
  const live = new Set(view.skills.map((entry) => entry.name));
  let agent = 0;
  let bundled = 0;
  for (const [name, record] of Object.entries(view.usage)) {
    if (record.state !== "archived" || live.has(name)) continue;
    if (view.provenance.hub.has(name) || view.provenance.protected.has(name)) continue;
    if (view.provenance.bundled.has(name)) bundled += config.curator.pruneBuiltins ? 1 : 0;
    else if (isManagedRecord(record)) agent += 1;
  }
  return { agent, bundled };
}

function stateLabel(config: SkillgateConfig, state: CuratorState): CuratorStatus["state"] {
  if (state.paused) return "paused";
  return config.curator.enabled ? "enabled" : "disabled";
}

async function fileExists(file: string): Promise<boolean> {
  return fs.stat(file).then(
    () => true,
    () => false,
  );
}

/** The part of the status derived from the library, its usage records and provenance (not the clock). */
type LibraryFigures = Pick<
  CuratorStatus,
  "managed" | "pinned" | "unmanaged" | "least_recently_active" | "rankings"
> & { provenanceWarnings: Text[] };

async function libraryFigures(ctx: OpsContext): Promise<LibraryFigures> {
  const view = await readView(ctx);
  const rows = curatedRows({ ...view, config: ctx.config });
  const countState = (wanted: string) =>
    rows.filter((row) => (row.record?.state ?? "active") === wanted).length;
  const archived = archivedManaged(view, ctx.config);
  const agentLive = rows.filter((row) => row.kind === "agent").length;
  const bundledLive = rows.length - agentLive;
  const unmanaged = unmanagedRows(view, ctx.config);
  const ranked = rankings(rows);
  const pinned = view.skills
    .filter(
      (entry) =>
        view.usage[entry.name]?.pinned &&
        classify(entry.name, entry, undefined, true, view.provenance, ctx.config).eligible,
    )
    .map((entry) => entry.name)
    .sort();
  return {
    managed: {
      total: rows.length + archived.agent + archived.bundled,
      agent_created: agentLive + archived.agent,
      bundled: bundledLive + archived.bundled,
      active: countState("active"),
      stale: countState("stale"),
      archived: archived.agent + archived.bundled + countState("archived"),
    },
    pinned,
    unmanaged: {
      total: unmanaged.length,
      pre_dates_marker: unmanaged.filter((row) => row.reason === "pre-dates marker").length,
      foreground_created: unmanaged.filter((row) => row.reason === "foreground-created").length,
    },
    least_recently_active: ranked.least_recently_active.map((row) => row.name),
    rankings: ranked,
    provenanceWarnings: view.provenance.warningTexts,
  };
}

/** The last figures computed (or being computed) for a library, with what they were computed from. */
interface CachedFigures {
  config: SkillgateConfig;
  stamp: string;
  figures: Promise<LibraryFigures>;
}

const figuresCache = new WeakMap<SkillLibrary, CachedFigures>();

/**
 * What the library figures are computed from, as one cheap stamp: the library's scan generation and the
 * identity (inode, size, mtime, ctime) of `.usage.json`, `.bundled_manifest` and the hub lock. Every
 * writer — this process, a CLI in another one, Hermes — replaces these files atomically or edits them in
 * place, and either changes the stamp. Undefined when it cannot be taken (no generation, a stat failed).
 */
function figuresStamp(ctx: OpsContext): string | undefined {
  const generation = ctx.library.generation?.();
  if (generation === undefined) return undefined;
  const paths = homePaths(ctx.home);
  const keys = [paths.usage, paths.bundledManifest, paths.hubLock].map(contentKey);
  if (keys.includes(null)) return undefined;
  return `${generation}|${keys.join("|")}`;
}

/**
 * The library figures, reused while nothing they depend on changed. `/curator status` runs on every chat
 * request and costs ~100 ms of CPU at 10k skills; an unchanged library answers from here in microseconds.
 * Requests that arrive while the figures are being computed wait for that one computation: a burst of
 * fifty chats after a change used to compute them fifty times over, all at once. The stamp is taken
 * before computing, so a change racing with the computation is seen next time; a computation that fails
 * is forgotten. The figures are shared between callers: read them, do not change them.
 */
function cachedLibraryFigures(ctx: OpsContext): Promise<LibraryFigures> {
  const stamp = figuresStamp(ctx);
  const hit = figuresCache.get(ctx.library);
  if (stamp !== undefined && hit && hit.stamp === stamp && hit.config === ctx.config) return hit.figures;
  const figures = libraryFigures(ctx);
  if (stamp === undefined) return figures;
  const entry: CachedFigures = { config: ctx.config, stamp, figures };
  figuresCache.set(ctx.library, entry);
  figures.catch(() => {
    if (figuresCache.get(ctx.library) === entry) figuresCache.delete(ctx.library);
  });
  return figures;
}

/**
 * Gathers the status of the curator and the library. The library figures are cached (see
 * `cachedLibraryFigures`); the run state and the report's presence are read on every call. The arrays
 * and objects of the result may be shared with other callers: read them, do not change them.
 */
export async function curatorStatus(ctx: OpsContext): Promise<CuratorStatus> {
  const { state, warning } = await readState(ctx.home);
  const { provenanceWarnings, ...figures } = await cachedLibraryFigures(ctx);
  const curator = ctx.config.curator;
  return {
    state: stateLabel(ctx.config, state),
    run_count: state.run_count,
    last_run_at: state.last_run_at,
    last_run_summary: state.last_run_summary,
    last_report_path: state.last_report_path,
    last_report_missing: state.last_report_path !== null && !(await fileExists(state.last_report_path)),
    interval_hours: curator.intervalHours,
    stale_after_days: curator.staleAfterDays,
    archive_after_days: curator.archiveAfterDays,
    consolidate: curator.consolidate,
    managed: figures.managed,
    pinned: figures.pinned,
    unmanaged: figures.unmanaged,
    least_recently_active: figures.least_recently_active,
    rankings: figures.rankings,
    warnings: warning === undefined ? [...provenanceWarnings] : [warning, ...provenanceWarnings],
  };
}

/** The `curator status --json` document: the status, its warnings in English. */
export function statusJson(status: CuratorStatus): Record<string, unknown> {
  return { ...status, warnings: status.warnings.map(english) };
}

/** Pauses or resumes automatic runs (persisted in `.curator_state`). */
export async function setPaused(home: string, paused: boolean): Promise<void> {
  await updateState(home, (state) => {
    state.paused = paused;
  });
}

/** The outcome of pin/unpin and adopt: what to tell the person, and whether it succeeded. */
export interface OpResult {
  ok: boolean;
  /** The English text (`--json`). */
  message: string;
  /** The same sentence as a catalog text, resolved in the reader's locale. */
  text: Text;
}

function outcome(ok: boolean, text: Text): OpResult {
  return { ok, message: english(text), text };
}

/** Pins (`value` true) or unpins a skill. Only eligible, non-bundled, non-hub skills take a pin. */
export async function setPinned(ctx: OpsContext, name: string, value: boolean): Promise<OpResult> {
  assertSafeName(name);
  const prefix = ctx.commandPrefix ?? terminalPrefix;
  const entry = await ctx.library.find(name);
  if (!entry) return outcome(false, t("cmd.op.notFound", { name }));
  const provenance = await loadProvenance(ctx.home, [entry]);
  const store = new UsageStore(homePaths(ctx.home).skills);
  const record = (await store.read())[name];
  const verdict = classify(name, entry, record, true, provenance, ctx.config);
  if (verdict.kind === "bundled" || verdict.kind === "hub") {
    return outcome(false, t(value ? "cmd.op.pinBundled" : "cmd.op.unpinBundled", { name }));
  }
  if (!verdict.eligible) {
    const command = prefix(["curator", "list-unmanaged"]);
    return outcome(false, t(value ? "cmd.op.pinIneligible" : "cmd.op.unpinIneligible", { name, command }));
  }
  await store.update((records) => {
    const current = records[name] ?? emptyRecord();
    current.pinned = value;
    records[name] = current;
  });
  if (verdict.kind === "unmanaged") {
    const command = prefix(["curator", "adopt", name]);
    return outcome(true, t(value ? "cmd.op.pinnedUnmanaged" : "cmd.op.unpinnedUnmanaged", { name, command }));
  }
  return outcome(true, t(value ? "cmd.op.pinned" : "cmd.op.unpinned", { name }));
}

/** Why `name` cannot be adopted, or null. Checked in the reference's order. */
function adoptRefusal(name: string, entry: SkillEntry | undefined, provenance: Provenance): Text | null {
  if (name.trim() === "") return t("cmd.op.noName");
  if (provenance.protected.has(name)) return t("cmd.op.protected", { name });
  if (provenance.hub.has(name)) return t("cmd.op.hub", { name });
  if (provenance.bundled.has(name)) return t("cmd.op.bundled", { name });
  if (entry?.rootKind === "external") return t("cmd.op.external", { name });
  if (!entry) return t("cmd.op.notFound", { name });
  return null;
}

/**
 * Hands a skill over to the curator (`created_by: agent`). Its inactivity clock is not reset: activity
 * timestamps are kept, and a skill without any record gets `created_at` from its SKILL.md's mtime.
 */
export async function adoptSkill(ctx: OpsContext, name: string): Promise<OpResult> {
  if (name.trim() !== "") assertSafeName(name);
  const entry = name.trim() === "" ? undefined : await ctx.library.find(name);
  const provenance = await loadProvenance(ctx.home, entry ? [entry] : []);
  const refusal = adoptRefusal(name, entry, provenance);
  if (refusal || !entry) return outcome(false, refusal ?? t("cmd.op.notFound", { name }));
  const store = new UsageStore(homePaths(ctx.home).skills);
  if (isManagedRecord((await store.read())[name])) return outcome(true, t("cmd.op.alreadyManaged", { name }));
  const mtime = await fs.stat(entry.skillFile).then(
    (stat) => stat.mtime,
    () => ctx.now,
  );
  const createdAt = isoTimestamp(mtime.getTime() < ctx.now.getTime() ? mtime : ctx.now);
  await store.update((records) => {
    const record = records[name] ?? emptyRecord(createdAt);
    record.created_by = "agent";
    if (!record.created_at) record.created_at = createdAt;
    records[name] = record;
  });
  const check = (await store.read())[name];
  if (!isManagedRecord(check)) return outcome(false, t("cmd.op.notMarked", { name }));
  return outcome(true, t("cmd.op.adopted", { name }));
}

/** One unmanaged skill, for `list-unmanaged`. */
export interface UnmanagedItem {
  name: string;
  activity: number;
  last_activity_at: string | null;
  /** The stored `created_by` value when the record has the key, else undefined ("no marker"). */
  created_by: string | null | undefined;
  reason: UnmanagedReason;
}

/** The unmanaged skills, sorted by name. */
export async function listUnmanaged(ctx: OpsContext): Promise<UnmanagedItem[]> {
  const view = await readView(ctx);
  return unmanagedRows(view, ctx.config).map(({ entry, record, reason }) => ({
    name: entry.name,
    activity: record ? activityCount(record) : 0,
    last_activity_at: record ? lastActivityAt(record) : null,
    created_by: view.createdByKeys.get(entry.name) ? (record?.created_by ?? null) : undefined,
    reason,
  }));
}

/** One prune candidate. */
export interface PruneCandidate {
  name: string;
  idleDays: number;
  entry: SkillEntry;
}

/**
 * Curated, live skills idle for at least `days` days, most idle first. Pinned and cron-referenced skills
 * are left out, and a never-used skill needs at least `stale_after_days` of idleness (the same grace as
 * the automatic pass).
 */
export async function pruneCandidates(
  ctx: OpsContext,
  days: number,
): Promise<{ candidates: PruneCandidate[]; warnings: Text[] }> {
  if (!Number.isInteger(days) || days < 1) {
    throw new CuratorError("prune", t("cmd.prune.badDaysError", { days: String(days) }), {
      code: "curator.bad_days",
    });
  }
  const view = await readView(ctx);
  const cron = await readCronRefs(ctx.home);
  const candidates: PruneCandidate[] = [];
  for (const row of curatedRows({ ...view, config: ctx.config })) {
    const record = row.record;
    if (!record || record.pinned || record.state === "archived" || isCronReferenced(row.entry, cron.names))
      continue;
    const idle = idleDays(activityAnchor(record, ctx.now).ms, ctx.now);
    if (idle < days) continue;
    if (record.use_count === 0 && idle < ctx.config.curator.staleAfterDays) continue;
    candidates.push({ name: row.name, idleDays: idle, entry: row.entry });
  }
  candidates.sort((a, b) => b.idleDays - a.idleDays || compareNames(a.name, b.name));
  return { candidates, warnings: [...cron.warningTexts, ...view.provenance.warningTexts] };
}

/** Archives prune candidates (ledger actor `user`); failures are collected, not thrown. */
export async function archiveCandidates(
  ctx: OpsContext,
  candidates: PruneCandidate[],
): Promise<{ archived: ArchiveResult[]; failures: MoveFailure[] }> {
  const provenance = await loadProvenance(
    ctx.home,
    candidates.map((candidate) => candidate.entry),
  );
  return archiveMany(
    candidates.map((candidate) => ({
      entry: candidate.entry,
      evidence: { reason: "prune", idle_days: candidate.idleDays },
    })),
    {
      home: ctx.home,
      config: ctx.config,
      library: ctx.library,
      actor: "user",
      now: ctx.now,
      provenance,
      commandPrefix: ctx.commandPrefix,
      meter: ctx.meter,
    },
  );
}
