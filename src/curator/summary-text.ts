/**
 * A stored run summary (`last_run_summary`, a run's `summary` in `run.json`) read back into its parts and
 * shown in the reader's language. The summary is English written by `headline`, `renameMapText` and
 * `deferredFirstRunSummary` in one known grammar; `storedSummaryRecord` reads that grammar back into a
 * record (counts, the model pass's status, the rename map), and `storedSummaryLines` renders the record
 * through the catalogs. The stored English stays as it is in files and `--json`; a line in no known form
 * (a summary written by another tool) is shown as it is.
 */

import { join, type Text, t } from "../core/i18n/messages.js";
import { autoSummaryText, llmStatusText } from "./report.js";
import type { AutoTransitionCounts } from "./types.js";

/** One line of a stored summary, as a record. */
export type SummaryLine =
  | {
      readonly kind: "headline";
      readonly dryRun: boolean;
      readonly counts: AutoTransitionCounts;
      readonly llm?: string;
    }
  | { readonly kind: "deferred"; readonly command: string }
  | { readonly kind: "renameHead"; readonly dryRun: boolean; readonly count: number }
  | { readonly kind: "renameInto"; readonly name: string; readonly into: string }
  | { readonly kind: "renamePruned"; readonly name: string }
  | { readonly kind: "renameMore"; readonly count: number }
  | { readonly kind: "pinHint"; readonly command: string }
  | { readonly kind: "other"; readonly text: string };

const NO_COUNTS: AutoTransitionCounts = {
  checked: 0,
  marked_stale: 0,
  archived: 0,
  reactivated: 0,
  seeded: 0,
};

/** The counts of an automatic pass's English (`2 marked stale, 1 archived`, `would mark 2 stale, archive 1`). */
function parseAuto(text: string, dryRun: boolean): AutoTransitionCounts | undefined {
  const counts = { ...NO_COUNTS };
  if (text === (dryRun ? "nothing to change" : "no changes")) return counts;
  if (dryRun && !text.startsWith("would ")) return undefined;
  const forms: [RegExp, keyof AutoTransitionCounts][] = dryRun
    ? [
        [/^mark (\d+) stale$/, "marked_stale"],
        [/^archive (\d+)$/, "archived"],
        [/^reactivate (\d+)$/, "reactivated"],
      ]
    : [
        [/^(\d+) marked stale$/, "marked_stale"],
        [/^(\d+) archived$/, "archived"],
        [/^(\d+) reactivated$/, "reactivated"],
      ];
  for (const part of (dryRun ? text.slice("would ".length) : text).split(", ")) {
    const known = forms.find(([form]) => form.test(part));
    if (!known) return undefined;
    counts[known[1]] = Number(known[0].exec(part)?.[1]);
  }
  return counts;
}

/** One line of a stored summary as a record (`other` when it is in no known form). */
export function parseSummaryLine(line: string): SummaryLine {
  const deferred =
    /^deferred first run — curator seeded, will run after one interval; use `(.+)` to preview now$/.exec(
      line,
    );
  if (deferred) return { kind: "deferred", command: deferred[1] ?? "" };
  const head = /^(dry-run )?auto: (.*?)(?:; llm: (.*))?$/s.exec(line);
  if (head) {
    const dryRun = head[1] !== undefined;
    const counts = parseAuto(head[2] ?? "", dryRun);
    if (counts)
      return { kind: "headline", dryRun, counts, ...(head[3] === undefined ? {} : { llm: head[3] }) };
  }
  const renameHead = /^(would archive|archived) (\d+) skill\(s\):$/.exec(line);
  if (renameHead)
    return { kind: "renameHead", dryRun: renameHead[1] === "would archive", count: Number(renameHead[2]) };
  const more = /^\s*… and (\d+) more$/.exec(line);
  if (more) return { kind: "renameMore", count: Number(more[1]) };
  const pruned = /^\s*• (.+) — pruned \(stale\)$/.exec(line);
  if (pruned) return { kind: "renamePruned", name: pruned[1] ?? "" };
  const into = /^\s*• (.+?) → (.+)$/.exec(line);
  if (into) return { kind: "renameInto", name: into[1] ?? "", into: into[2] ?? "" };
  const pin = /^keep an umbrella stable: (.+)$/.exec(line);
  if (pin) return { kind: "pinHint", command: pin[1] ?? "" };
  return { kind: "other", text: line };
}

/** A stored summary as records, one per line. */
export function storedSummaryRecord(summary: string): SummaryLine[] {
  return summary.split("\n").map(parseSummaryLine);
}

/** One record line in the reader's language (rename-map items keep their bullet and indent). */
export function summaryLineText(line: SummaryLine): Text {
  switch (line.kind) {
    case "headline": {
      const auto = autoSummaryText(line.counts, line.dryRun);
      return line.llm === undefined ? auto : t("summary.stored", { auto, llm: llmStatusText(line.llm) });
    }
    case "deferred":
      return t("summary.deferred", { command: line.command });
    case "renameHead":
      return t(line.dryRun ? "summary.renameHeadDry" : "summary.renameHead", { count: line.count });
    case "renameInto":
      return join(["  • ", t("summary.renameInto", { name: line.name, into: line.into })], "");
    case "renamePruned":
      return join(["  • ", t("summary.renamePruned", { name: line.name })], "");
    case "renameMore":
      return join(["  ", t("summary.renameMore", { count: line.count })], "");
    case "pinHint":
      return t("summary.pinHintStored", { command: line.command });
    case "other":
      return line.text;
  }
}

/** A stored summary's lines in the reader's language. */
export function storedSummaryLines(summary: string): Text[] {
  return storedSummaryRecord(summary).map(summaryLineText);
}
