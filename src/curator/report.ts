/**
 * Run reports and the run summary. Each run writes `<home>/logs/curator/<YYYYMMDD-HHMMSS>[-N]/run.json`
 * (machine-readable, Hermes' keys) and `REPORT.md` (human-readable), plus `cron_rewrites.json` when cron
 * jobs changed. The summary line and the rename map are built here once and rendered both for the
 * stored `last_run_summary` (terminal spelling) and for chat (`summaryReply`).
 */

import { promises as fs } from "node:fs";
import path from "node:path";
import { homePaths } from "../config/home.js";
import { invocation, type ReplyAction, runAction } from "../core/actions.js";
import { atomicWriteFile, stableJson } from "../core/fsutil.js";
import { list, type Message, type Text, t } from "../core/i18n/messages.js";
import { type Reply, type ReplyBlock, reply } from "../core/reply.js";
import type { ConsolidatedEntry, PrunedEntry } from "../llm/classify.js";
import { modelReasonText } from "../llm/config.js";
import type { OverlapPair } from "../skills/search-overlaps.js";
import type { AutoTransitionCounts, CuratorRunResult, RenameEntry, RenameMap } from "./types.js";

/** The rename map shows at most this many lines. */
export const RENAME_MAP_CAP = 10;

/** Builds the rename map: umbrella moves first, then skills archived for staleness (LLM or automatic). */
export function buildRenameMap(
  consolidated: ConsolidatedEntry[],
  pruned: PrunedEntry[],
  autoArchived: string[],
): RenameMap {
  const entries: RenameEntry[] = consolidated.map((item) => ({
    kind: "consolidated",
    name: item.name,
    into: item.into,
  }));
  const seen = new Set(entries.map((entry) => entry.name));
  for (const name of [...pruned.map((item) => item.name), ...autoArchived]) {
    if (seen.has(name)) continue;
    seen.add(name);
    entries.push({ kind: "pruned", name });
  }
  const umbrellas = [...new Set(consolidated.map((item) => item.into))].sort();
  return { entries, pinHint: umbrellas[0] ?? null };
}

/**
 * The summary of the automatic pass: `2 marked stale, 1 archived`, or `no changes`; for a dry run what a
 * real run would do (`would mark 2 stale, archive 1`, or `nothing to change`), never "archived".
 */
export function autoSummary(counts: AutoTransitionCounts, dryRun = false): string {
  if (dryRun) {
    const parts = [
      counts.marked_stale > 0 ? `mark ${counts.marked_stale} stale` : "",
      counts.archived > 0 ? `archive ${counts.archived}` : "",
      counts.reactivated > 0 ? `reactivate ${counts.reactivated}` : "",
    ].filter(Boolean);
    return parts.length > 0 ? `would ${parts.join(", ")}` : "nothing to change";
  }
  const parts = [
    counts.marked_stale > 0 ? `${counts.marked_stale} marked stale` : "",
    counts.archived > 0 ? `${counts.archived} archived` : "",
    counts.reactivated > 0 ? `${counts.reactivated} reactivated` : "",
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(", ") : "no changes";
}

/** The one-line head of a run summary: `[dry-run ]auto: …[; llm: …]` (the llm part once it is known). */
export function headline(dryRun: boolean, counts: AutoTransitionCounts, llmStatus?: string): string {
  const auto = `${dryRun ? "dry-run auto: " : "auto: "}${autoSummary(counts, dryRun)}`;
  return llmStatus === undefined ? auto : `${auto}; llm: ${llmStatus}`;
}

/** The rename-map items as text (`old → umbrella`, `x — pruned (stale)`, `… and K more`). */
export function renameMapItems(map: RenameMap): string[] {
  const items = map.entries
    .slice(0, RENAME_MAP_CAP)
    .map((entry) =>
      entry.kind === "consolidated" ? `${entry.name} → ${entry.into}` : `${entry.name} — pruned (stale)`,
    );
  const more = map.entries.length - RENAME_MAP_CAP;
  if (more > 0) items.push(`… and ${more} more`);
  return items;
}

/**
 * The automatic pass and the run as catalog messages, for the chat and the terminal in the reader's
 * language (the stored summary and the files keep `headline`'s English). The parts are a list in the
 * reader's locale (`1 marked stale, 2 archived`; `1 个标记为过时、已归档 2 个`).
 */
export function autoSummaryText(counts: AutoTransitionCounts, dryRun: boolean): Text {
  const parts: Message[] = dryRun
    ? [
        ...(counts.marked_stale > 0 ? [t("summary.wouldMarkStale", { count: counts.marked_stale })] : []),
        ...(counts.archived > 0 ? [t("summary.wouldArchive", { count: counts.archived })] : []),
        ...(counts.reactivated > 0 ? [t("summary.wouldReactivate", { count: counts.reactivated })] : []),
      ]
    : [
        ...(counts.marked_stale > 0 ? [t("summary.markedStale", { count: counts.marked_stale })] : []),
        ...(counts.archived > 0 ? [t("summary.archived", { count: counts.archived })] : []),
        ...(counts.reactivated > 0 ? [t("summary.reactivated", { count: counts.reactivated })] : []),
      ];
  const changes =
    parts.length > 0 ? list(parts) : t(dryRun ? "summary.nothingToChange" : "summary.noChanges");
  return t(dryRun ? "summary.autoDry" : "summary.auto", { changes });
}

/** `curator: auto: …; llm: …`, the first line of a run's message. */
function summaryLine(result: CuratorRunResult): Text {
  const auto = autoSummaryText(result.autoTransitions, result.dryRun);
  const llm = result.llm.status;
  return llm === undefined || llm === ""
    ? t("summary.line", { auto })
    : t("summary.lineWithLlm", { auto, llm: llmStatusText(llm) });
}

/** Why the model pass was skipped, by the English the run records. */
const SKIP_REASONS: Readonly<Record<string, Message>> = {
  "consolidation off": t("summary.llm.why.off"),
  "no model configured": t("summary.llm.why.noModel"),
  "no candidates": t("summary.llm.why.noCandidates"),
  "the process is shutting down": t("summary.llm.why.stopping"),
};

/** One part of the model pass's own summary (`2 merged into 1 umbrella(s)`, `1 pruned`, `3 new skill(s)`). */
function llmPartText(part: string): Message | undefined {
  const merged = /^(\d+) merged into (\d+) umbrella\(s\)$/.exec(part);
  if (merged) return t("summary.llm.merged", { count: Number(merged[1]), umbrellas: Number(merged[2]) });
  const pruned = /^(\d+) pruned$/.exec(part);
  if (pruned) return t("summary.llm.pruned", { count: Number(pruned[1]) });
  const added = /^(\d+) new skill\(s\)$/.exec(part);
  if (added) return t("summary.llm.added", { count: Number(added[1]) });
  return undefined;
}

/**
 * The model pass's status (the English the run records: `skipped (…)` or a bare `skipped`, `error (…)`, `no change`, the
 * pass's own summary) as the reader's text. A status in no known form, such as a model's error, is shown
 * as it is.
 */
export function llmStatusText(status: string): Text {
  if (status === "skipped") return t("summary.llm.skippedPlain");
  const skipped = /^skipped \((.*)\)$/s.exec(status);
  if (skipped) return t("summary.llm.skipped", { why: SKIP_REASONS[skipped[1] ?? ""] ?? skipped[1] ?? "" });
  const failed = /^error \((.*)\)$/s.exec(status);
  if (failed) {
    const error = failed[1] ?? "";
    return t("summary.llm.error", { error: modelReasonText(error) ?? error });
  }
  if (status === "no change") return t("summary.llm.noChange");
  if (status === "proposed no changes") return t("summary.llm.proposedNone");
  const proposed = status.startsWith("proposed: ");
  const parts = (proposed ? status.slice("proposed: ".length) : status).split(", ").map(llmPartText);
  if (parts.length === 0 || parts.some((part) => part === undefined)) return status;
  const changes = list(parts as Message[]);
  return proposed ? t("summary.llm.proposed", { changes }) : changes;
}

/** The rename-map items as messages, for replies. */
function renameMapTexts(map: RenameMap): Text[] {
  const items: Text[] = map.entries
    .slice(0, RENAME_MAP_CAP)
    .map((entry) =>
      entry.kind === "consolidated"
        ? t("summary.renameInto", { name: entry.name, into: entry.into })
        : t("summary.renamePruned", { name: entry.name }),
    );
  const more = map.entries.length - RENAME_MAP_CAP;
  if (more > 0) items.push(t("summary.renameMore", { count: more }));
  return items;
}

/** The rename map's first line: what was archived, or for a dry run what would be. */
function renameMapHead(map: RenameMap, dryRun: boolean): string {
  return `${dryRun ? "would archive" : "archived"} ${map.entries.length} skill(s):`;
}

/**
 * The rename map as reply blocks; empty when nothing was archived. A run's message points at
 * `curator status` for the report; the status itself shows the report's path instead.
 */
function renameMapBlocks(map: RenameMap, prefix: (path: string[]) => string, dryRun: boolean): ReplyBlock[] {
  if (map.entries.length === 0) return [];
  const count = map.entries.length;
  const blocks: ReplyBlock[] = [
    { kind: "paragraph", text: t(dryRun ? "summary.renameHeadDry" : "summary.renameHead", { count }) },
    { kind: "list", items: renameMapTexts(map) },
    { kind: "paragraph", text: t("summary.fullReport", { command: prefix(["curator", "status"]) }) },
  ];
  if (map.pinHint) {
    blocks.push({
      kind: "paragraph",
      text: t("summary.pinHint", { command: prefix(["curator", "pin", map.pinHint]) }),
    });
  }
  return blocks;
}

/**
 * The rename map as the text lines appended to the stored summary (terminal spelling), which
 * `curator status` shows under "last summary" beside the report's path (so no pointer to itself).
 */
export function renameMapText(map: RenameMap, prefix: (path: string[]) => string, dryRun = false): string {
  if (map.entries.length === 0) return "";
  const items = renameMapItems(map).map((item) => (item.startsWith("… and ") ? `  ${item}` : `  • ${item}`));
  const lines = [renameMapHead(map, dryRun), ...items];
  if (map.pinHint) lines.push(`keep an umbrella stable: ${prefix(["curator", "pin", map.pinHint])}`);
  return lines.join("\n");
}

/**
 * The message a run produces — for the terminal and for the home chat alike: the summary line, then the
 * rename map with the report pointer and (after a consolidation) the pin hint.
 */
export function summaryReply(result: CuratorRunResult, prefix: (path: string[]) => string): Reply {
  const blocks: ReplyBlock[] = [
    { kind: "paragraph", text: summaryLine(result) },
    ...renameMapBlocks(result.renameMap, prefix, result.dryRun),
  ];
  return { ...reply(blocks, { json: runJsonSummary(result) }), actions: summaryButtons(result) };
}

/** Restore buttons shown at most on a summary. */
const SUMMARY_RESTORE_BUTTONS = 8;

/**
 * Buttons of a run summary where chats show them: Restore for each skill the run archived (the rename
 * map's old names included; at most eight) and "Roll back this run" to the snapshot taken before it,
 * which asks Confirm / Cancel first. None for a dry run or a run that archived nothing.
 */
export function summaryButtons(result: CuratorRunResult): Reply["actions"] {
  if (result.dryRun) return undefined;
  const names = [...new Set([...result.renameMap.entries.map((entry) => entry.name), ...result.archived])];
  const restore = names.slice(0, SUMMARY_RESTORE_BUTTONS).map((name) =>
    runAction(t("button.restore", { name }), invocation(["curator", "restore"], [name]), {
      confirmed: true,
      style: "primary",
      placement: "reply",
    }),
  );
  const rows: ReplyAction[][] = [];
  for (let start = 0; start < restore.length; start += 4) rows.push(restore.slice(start, start + 4));
  if (result.snapshotId && result.changed) {
    rows.push([
      runAction(t("button.rollbackRun"), invocation(["curator", "rollback"], [], { id: result.snapshotId }), {
        style: "danger",
        placement: "reply",
      }),
    ]);
  }
  return rows.length > 0 ? { rows } : undefined;
}

/** The `curator run --json` document. */
export function runJsonSummary(result: CuratorRunResult): Record<string, unknown> {
  return {
    started_at: result.startedAt,
    dry_run: result.dryRun,
    trigger: result.trigger,
    changed: result.changed,
    auto_transitions: result.autoTransitions,
    summary: result.summary,
    report_path: result.reportPath,
    snapshot_id: result.snapshotId,
    archived: result.archived,
    consolidated: result.consolidated,
    pruned: result.pruned,
    rename_map: result.renameMap.entries,
    state_transitions: result.stateTransitions,
    llm: result.llm.status,
    warnings: result.warnings,
  };
}

function capArgument(text: string): string {
  return text.length > 400 ? `${text.slice(0, 400)}…` : text;
}

/** The `run.json` document (Hermes' keys, plus `dry_run`, `trigger`, `snapshot_id`, `summary`, `warnings`). */
export function runJson(result: CuratorRunResult): Record<string, unknown> {
  const toolCallCounts: Record<string, number> = {};
  for (const call of result.llm.toolCalls) toolCallCounts[call.name] = (toolCallCounts[call.name] ?? 0) + 1;
  const after = new Set(result.after);
  const removed = result.before.filter((name) => !after.has(name));
  const archived = [...new Set([...result.archived, ...removed])];
  return {
    started_at: result.startedAt,
    duration_seconds: Math.round(result.durationSeconds * 100) / 100,
    dry_run: result.dryRun,
    trigger: result.trigger,
    model: result.llm.model,
    provider: result.llm.provider,
    snapshot_id: result.snapshotId,
    summary: result.summary,
    auto_transitions: result.autoTransitions,
    counts: {
      before: result.before.length,
      after: result.after.length,
      delta: result.after.length - result.before.length,
      archived_this_run: archived.length,
      added_this_run: result.added.length,
      consolidated_this_run: result.consolidated.length,
      pruned_this_run: result.pruned.length,
      state_transitions: result.stateTransitions.length,
      cron_jobs_rewritten: result.cronRewrites?.jobs_updated ?? 0,
      tool_calls_total: result.llm.toolCalls.length,
    },
    tool_call_counts: toolCallCounts,
    archived,
    consolidated: result.consolidated,
    pruned: result.pruned,
    pruned_names: result.pruned.map((item) => item.name),
    added: result.added,
    state_transitions: result.stateTransitions,
    cron_rewrites: result.cronRewrites ?? { rewrites: [], jobs_updated: 0, jobs_scanned: 0 },
    llm_final: result.llm.final,
    llm_summary: result.llm.summary,
    llm_error: result.llm.error,
    tool_calls: result.llm.toolCalls.map((call) => ({
      name: call.name,
      arguments: capArgument(call.arguments),
    })),
    warnings: result.warnings,
  };
}

/** `1m 5s` or `5s`. */
export function formatDuration(seconds: number): string {
  const whole = Math.round(seconds);
  return whole >= 60 ? `${Math.floor(whole / 60)}m ${whole % 60}s` : `${whole}s`;
}

function section<T>(title: string, items: T[], cap: number, line: (item: T) => string[]): string[] {
  if (items.length === 0) return [];
  const lines = [`### ${title} (${items.length})`, ""];
  for (const item of items.slice(0, cap)) lines.push(...line(item));
  if (items.length > cap) lines.push(`- … and ${items.length - cap} more`);
  lines.push("");
  return lines;
}

function consolidatedLines(item: ConsolidatedEntry, after: string[]): string[] {
  const lines = [`- \`${item.name}\` → merged into \`${item.into}\` — ${item.reason}`];
  if (item.source.startsWith("tool-call audit")) lines.push(`  _(detected via ${item.source})_`);
  if (item.model_claimed_into)
    lines.push(
      `  ⚠ the model named \`${item.model_claimed_into}\`, which does not exist; the tool calls point at \`${item.into}\``,
    );
  else if (!after.includes(item.into))
    lines.push(`  ⚠ umbrella \`${item.into}\` is not in the library after the run`);
  return lines;
}

/** Overlapping pairs listed in a run's `REPORT.md` at most. */
export const REPORT_OVERLAPS = 20;

/** One `REPORT.md` line of an overlapping pair: both names, the score and the reason. */
function overlapLine(pair: OverlapPair): string[] {
  const reasons: string[] = [];
  if (pair.related) reasons.push("named in related_skills");
  if (pair.shared.length > 0) reasons.push(`shared words: ${pair.shared.join(", ")}`);
  return [`- \`${pair.a}\` ↔ \`${pair.b}\` — score ${pair.score.toFixed(2)}; ${reasons.join("; ")}`];
}

/**
 * The `REPORT.md` text of a run. `overlaps` (from `findOverlaps`) are listed as candidates for the next
 * consolidation pass.
 */
export function reportMarkdown(
  result: CuratorRunResult,
  prefix: (path: string[]) => string,
  overlaps: OverlapPair[] = [],
): string {
  const llm = result.llm;
  const delta = result.after.length - result.before.length;
  const lines = [
    `# Curator run — ${result.startedAt}`,
    "",
    `Model: \`${llm.model ?? "(not resolved)"}\` via \`${llm.provider ?? "(not resolved)"}\`  ·  Duration: ${formatDuration(result.durationSeconds)}  ·  Agent-created skills: ${result.before.length} → ${result.after.length} (${delta >= 0 ? "+" : ""}${delta})`,
    "",
  ];
  if (result.dryRun)
    lines.push(
      "> DRY-RUN — report only; nothing was changed. The counts below are what a real run would do.",
      "",
    );
  if (llm.error) lines.push(`> ⚠ LLM pass error: ${llm.error}`, "");
  const auto = result.autoTransitions;
  lines.push(
    "## Auto-transitions (pure, no LLM)",
    "",
    `- checked: ${auto.checked}`,
    `- marked stale: ${auto.marked_stale}`,
    `- archived (no LLM, pure time-based staleness): ${auto.archived}`,
    `- reactivated: ${auto.reactivated}`,
    `- seeded: ${auto.seeded}`,
    "",
  );
  const byName = new Map<string, number>();
  for (const call of llm.toolCalls) byName.set(call.name, (byName.get(call.name) ?? 0) + 1);
  const byNameText = byName.size > 0 ? [...byName].map(([name, n]) => `${name}=${n}`).join(" | ") : "none";
  lines.push(
    "## LLM consolidation pass",
    "",
    `- status: ${llm.status}`,
    `- tool calls: **${llm.toolCalls.length}** (by name: ${byNameText})`,
    `- consolidated: ${result.consolidated.length}`,
    `- pruned: ${result.pruned.length}`,
    `- new skills: ${result.added.length}`,
    `- state transitions: ${result.stateTransitions.length}`,
    "",
  );
  lines.push(
    ...section("Consolidated into umbrella skills", result.consolidated, 50, (item) =>
      consolidatedLines(item, result.after),
    ),
  );
  lines.push(
    ...section("Pruned — archived for staleness", result.pruned, 50, (item) => [
      `- \`${item.name}\` — ${item.reason}`,
    ]),
  );
  lines.push(...section("Archived by the automatic pass", result.archived, 50, (name) => [`- \`${name}\``]));
  lines.push(...section("New skills this run", result.added, 50, (name) => [`- \`${name}\``]));
  lines.push(
    ...section("State transitions", result.stateTransitions, 200, (t) => [
      `- \`${t.name}\`: ${t.from} → ${t.to}`,
    ]),
  );
  const rewrites = result.cronRewrites?.rewrites ?? [];
  lines.push(
    ...section("Cron job skill references rewritten", rewrites, 25, (r) => [
      `- job \`${r.job_name || r.job_id}\`: [${r.before.join(", ")}] → [${r.after.join(", ")}]`,
    ]),
  );
  if (llm.final.trim() !== "") lines.push("## LLM final summary", "", llm.final, "");
  else if (!llm.error && llm.summary.trim() !== "") lines.push("## LLM summary", "", llm.summary, "");
  lines.push(
    ...section("Overlapping skills — candidates for consolidation", overlaps, REPORT_OVERLAPS, overlapLine),
  );
  lines.push(...recoveryLines(result, prefix));
  return `${lines.join("\n").trimEnd()}\n`;
}

function recoveryLines(result: CuratorRunResult, prefix: (path: string[]) => string): string[] {
  const lines = ["## Recovery", ""];
  if (result.dryRun) return [...lines, "Nothing to recover: this was a dry run.", ""];
  lines.push(
    `- restore one archived skill: \`${prefix(["curator", "restore", "<name>"])}\` (names: \`${prefix(["curator", "list-archived"])}\`)`,
  );
  lines.push(
    `- undo one change: \`${prefix(["curator", "ledger"])}\`, then \`${prefix(["curator", "rollback", "<entry-id>"])}\``,
  );
  if (result.snapshotId) {
    lines.push(
      `- undo the whole run: \`${prefix(["curator", "rollback", "--id", result.snapshotId])}\` (snapshot taken before it)`,
    );
  }
  lines.push(`- keep a skill out of the curator's hands: \`${prefix(["curator", "pin", "<name>"])}\``, "");
  return lines;
}

function reportDirName(startedAt: Date): string {
  return startedAt.toISOString().replace(/[-:]/g, "").replace("T", "-").replace(/\..*$/, "");
}

/**
 * Writes the run's report folder and returns the path of its `REPORT.md`. A second report in the same
 * second gets `-2`, then `-3`, … `overlaps` go to `REPORT.md` only (run.json keeps Hermes' keys).
 */
export async function writeRunReport(
  home: string,
  result: CuratorRunResult,
  prefix: (path: string[]) => string,
  overlaps: OverlapPair[] = [],
): Promise<string> {
  const root = homePaths(home).curatorLogs;
  await fs.mkdir(root, { recursive: true });
  const base = reportDirName(new Date(result.startedAt));
  let dir = path.join(root, base);
  for (let n = 2; ; n += 1) {
    try {
      await fs.mkdir(dir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      dir = path.join(root, `${base}-${n}`);
    }
  }
  const reportPath = path.join(dir, "REPORT.md");
  const withPath = { ...result, reportPath };
  await atomicWriteFile(path.join(dir, "run.json"), `${stableJson(runJson(withPath))}\n`);
  await atomicWriteFile(reportPath, reportMarkdown(withPath, prefix, overlaps));
  if ((result.cronRewrites?.jobs_updated ?? 0) > 0) {
    await atomicWriteFile(path.join(dir, "cron_rewrites.json"), `${stableJson(result.cronRewrites)}\n`);
  }
  return reportPath;
}
