import { describe, expect, it } from "vitest";
import { english, resolveText } from "../../src/core/i18n/messages.js";
import { headline, renameMapText } from "../../src/curator/report.js";
import { deferredFirstRunSummary } from "../../src/curator/schedule.js";
import { storedSummaryLines, storedSummaryRecord } from "../../src/curator/summary-text.js";
import { englishLeft } from "../support/english-left.js";

const prefix = (path: string[]) => `skillgate ${path.join(" ")}`;
const counts = { checked: 9, marked_stale: 1, archived: 2, reactivated: 0, seeded: 0 };

/** A stored summary as `finishRun` writes it: the headline, then the rename map. */
const stored = [
  headline(false, counts, "skipped (consolidation off)"),
  renameMapText(
    {
      entries: [
        { kind: "consolidated", name: "pdf-split", into: "pdf-tools" },
        { kind: "pruned", name: "old-stale" },
      ],
      pinHint: "pdf-tools",
    },
    prefix,
  ),
].join("\n");

function zh(summary: string): string {
  return storedSummaryLines(summary)
    .map((line) => resolveText(line, "zh-CN"))
    .join("\n");
}

describe("a stored run summary in the reader's language", () => {
  it("reads the stored English back into its record", () => {
    const record = storedSummaryRecord(stored);
    expect(record[0]).toEqual({
      kind: "headline",
      dryRun: false,
      counts: { ...counts, checked: 0 },
      llm: "skipped (consolidation off)",
    });
    expect(record.map((line) => line.kind)).toEqual([
      "headline",
      "renameHead",
      "renameInto",
      "renamePruned",
      "pinHint",
    ]);
  });

  it("renders English exactly as it was stored", () => {
    expect(storedSummaryLines(stored).map(english).join("\n")).toBe(stored);
    const deferred = deferredFirstRunSummary(prefix);
    expect(storedSummaryLines(deferred).map(english).join("\n")).toBe(deferred);
  });

  it("renders Chinese with no English left but names and commands", () => {
    const text = zh(stored);
    expect(text).toContain("1 个标记为过时、已归档 2 个");
    expect(text).toContain("整合已关闭");
    expect(text).toContain("已归档 2 个技能：");
    expect(text).toContain("  • pdf-split → pdf-tools");
    expect(text).toContain("old-stale");
    expect(text).not.toContain(", ");
    expect(englishLeft(text, [/pdf-split|pdf-tools|old-stale/g])).toBeNull();
    expect(englishLeft(zh(deferredFirstRunSummary(prefix)), [/`[^`]*`/g])).toBeNull();
  });

  it("shows a line in no known form as it is", () => {
    expect(zh("auto: 3 frobnicated")).toBe("auto: 3 frobnicated");
    expect(zh("auto: no changes; llm: error (rate limited)")).toContain("出错（rate limited）");
  });
});
