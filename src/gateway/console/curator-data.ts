/**
 * What the console's curator pages show, read straight from the home: the schedule's facts, past runs and
 * their reports, the ledger, snapshots, and the live preview of what a curator run would do now (the same
 * pure plan a dry run uses), and the charts' series.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { homePaths } from "../../config/home.js";
import type { Locale } from "../../core/i18n/locale.js";
import { resolveText, t } from "../../core/i18n/messages.js";
import { readCronRefs } from "../../curator/cron.js";
import { type LedgerEntry, listEntries } from "../../curator/ledger.js";
import { plan } from "../../curator/plan.js";
import { loadProvenance } from "../../curator/provenance.js";
import { scheduleVerdict } from "../../curator/schedule.js";
import { listSnapshots } from "../../curator/snapshot.js";
import { readState } from "../../curator/state.js";
import { UsageStore } from "../../skills/usage.js";
import { parseTimestamp } from "../../skills/usage-record.js";
import type { ConsoleData, LibraryRow } from "./data.js";

/** One planned transition of the live preview. */
export interface PreviewRow {
  name: string;
  from: string;
  to: string;
  idleDays: number;
  anchor: string | null;
}

/**
 * What a curator run would do now, from the same pure plan a dry run applies (so the table equals
 * `curator run --dry-run --json`'s `state_transitions`), without writing its report.
 */
export async function curatorPreview(
  data: ConsoleData,
): Promise<{ rows: PreviewRow[]; counts: Record<string, number>; skipped: number; warnings: string[] }> {
  const config = data.config();
  data.library.invalidate();
  const skills = await data.library.all();
  const store = new UsageStore(homePaths(data.home).skills);
  const usage = await store.read();
  const provenance = await loadProvenance(data.home, skills);
  const cron = await readCronRefs(data.home);
  const result = plan({ skills, usage, cronRefs: cron.names, provenance, now: data.now(), config });
  const rows = result.actions.flatMap((action) =>
    action.from && action.to
      ? [
          {
            name: action.name,
            from: action.from,
            to: action.to,
            idleDays: action.idleDays,
            anchor: action.anchor,
          },
        ]
      : [],
  );
  return {
    rows,
    counts: { ...result.counts },
    skipped: result.skipped.length,
    warnings: [...store.warnings, ...provenance.warnings, ...cron.warnings],
  };
}

/** One past curator run, from its report folder. */
export interface RunSummary {
  /** The report folder's name under `logs/curator`. */
  id: string;
  startedAt: string | null;
  dryRun: boolean;
  trigger: string;
  summary: string;
  counts: Record<string, number>;
  autoTransitions: Record<string, number>;
}

const REPORT_ID = /^[0-9]{8}-[0-9]{6}(-[0-9]+)?$/;

/** True for a report folder name (the only values `reportText` accepts). */
export function isReportId(id: string): boolean {
  return REPORT_ID.test(id);
}

function numbers(value: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) if (typeof item === "number") out[key] = item;
  }
  return out;
}

/** Past runs, newest first (at most `limit`); unreadable reports are skipped. */
export async function pastRuns(home: string, limit = 200): Promise<RunSummary[]> {
  const root = homePaths(home).curatorLogs;
  const names = (await fs.readdir(root).catch(() => [] as string[])).filter(isReportId).sort().reverse();
  const out: RunSummary[] = [];
  for (const id of names.slice(0, limit)) {
    try {
      const raw = JSON.parse(await fs.readFile(path.join(root, id, "run.json"), "utf8")) as Record<
        string,
        unknown
      >;
      out.push({
        id,
        startedAt: typeof raw.started_at === "string" ? raw.started_at : null,
        dryRun: raw.dry_run === true,
        trigger: typeof raw.trigger === "string" ? raw.trigger : "?",
        summary: typeof raw.summary === "string" ? raw.summary : "",
        counts: numbers(raw.counts),
        autoTransitions: numbers(raw.auto_transitions),
      });
    } catch {
      // A half-written or foreign folder: not a run to show.
    }
  }
  return out;
}

/** A run's REPORT.md, or undefined. */
export async function reportText(home: string, id: string): Promise<string | undefined> {
  if (!isReportId(id)) return undefined;
  return fs.readFile(path.join(homePaths(home).curatorLogs, id, "REPORT.md"), "utf8").catch(() => undefined);
}

/** The curator page's header facts. */
export async function curatorFacts(data: ConsoleData, idleSeconds: number) {
  const config = data.config();
  const { state } = await readState(data.home);
  const verdict = scheduleVerdict(state, config.curator, data.now(), idleSeconds);
  const last = state.last_run_at ? parseTimestamp(state.last_run_at) : undefined;
  const nextDue =
    last === undefined ? null : new Date(last + config.curator.intervalHours * 3_600_000).toISOString();
  return {
    enabled: config.curator.enabled,
    paused: state.paused,
    runCount: state.run_count,
    lastRunAt: state.last_run_at,
    lastSummary: state.last_run_summary,
    intervalHours: config.curator.intervalHours,
    staleAfterDays: config.curator.staleAfterDays,
    archiveAfterDays: config.curator.archiveAfterDays,
    nextDue,
    verdict: verdict.reason,
  };
}

/** Ledger query of the ledger page. */
export interface LedgerQuery {
  skill: string;
  actor: string;
  action: string;
}

/** Ledger entries newest first, filtered, at most `limit`. */
export async function ledgerEntries(home: string, query: LedgerQuery, limit = 500): Promise<LedgerEntry[]> {
  const all = await listEntries(home, query.skill ? { skill: query.skill } : {});
  return all
    .filter(
      (entry) =>
        (!query.actor || entry.actor === query.actor) && (!query.action || entry.action === query.action),
    )
    .slice(0, limit);
}

/** What rolling back one ledger entry changes: files put back, files removed. */
export function rollbackChanges(entry: LedgerEntry): { restored: string[]; removed: string[] } {
  const before = new Set(entry.before.map((file) => file.path));
  return {
    restored: [...before].sort(),
    removed: [...new Set(entry.after.map((file) => file.path))].filter((file) => !before.has(file)).sort(),
  };
}

/** Snapshots newest first, with sizes and reasons. */
export async function snapshots(home: string) {
  return (await listSnapshots(home)).map((item) => ({
    id: item.id,
    reason: item.manifest?.reason ?? "?",
    createdAt: item.manifest?.created_at ?? null,
    skillFiles: item.manifest?.skill_files ?? null,
    bytes: item.manifest?.archive_bytes ?? null,
  }));
}

/** The chart page's series, its labels in `locale`. */
export async function chartData(data: ConsoleData, rows: LibraryRow[], locale: Locale = "en") {
  const runs = (await pastRuns(data.home, 100)).filter((run) => !run.dryRun).reverse();
  const buckets = [0, 7, 14, 30, 60, 90, 180, 365];
  const histogram = buckets.map((start, index) => {
    const end = buckets[index + 1];
    return {
      label: resolveText(
        end === undefined
          ? t("console.charts.bucketOpen", { start: String(start) })
          : t("console.charts.bucket", { start: String(start), end: String(end - 1) }),
        locale,
      ),
      count: rows.filter(
        (row) => row.idleDays !== null && row.idleDays >= start && (end === undefined || row.idleDays < end),
      ).length,
    };
  });
  histogram.push({
    label: resolveText(t("console.never"), locale),
    count: rows.filter((row) => row.idleDays === null).length,
  });
  const live = rows.filter((row) => row.onDisk);
  const byActivity = [...live].sort((a, b) => b.activity - a.activity || (a.name < b.name ? -1 : 1));
  const states = { active: 0, stale: 0, archived: 0 };
  for (const row of rows) if (row.state in states) states[row.state as keyof typeof states] += 1;
  return {
    runs: runs.map((run) => ({
      at: run.startedAt ?? run.id,
      curated: run.counts.after ?? 0,
      stale: run.autoTransitions.marked_stale ?? 0,
      archived: run.autoTransitions.archived ?? 0,
      reactivated: run.autoTransitions.reactivated ?? 0,
    })),
    states,
    histogram,
    mostUsed: byActivity.slice(0, 10).map((row) => ({ name: row.name, activity: row.activity })),
    leastUsed: byActivity
      .slice(-10)
      .reverse()
      .map((row) => ({ name: row.name, activity: row.activity })),
  };
}
