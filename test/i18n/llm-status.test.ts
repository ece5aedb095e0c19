/**
 * The model pass's status in a run summary (`curator: auto: …; llm: …`) in the reader's language: every
 * form the run records (skipped and why, an error, no change, the pass's own summary, a dry run's
 * proposal) reads in Chinese, and its English is the very status the run stored. A status in no known
 * form is shown as it is.
 */
import { describe, expect, it } from "vitest";
import { english, resolveText } from "../../src/core/i18n/messages.js";
import { llmStatusText } from "../../src/curator/report.js";
import { englishLeft } from "./complete-support.js";

const STATUSES = [
  "skipped (consolidation off)",
  "skipped (no model configured)",
  "skipped (no candidates)",
  "skipped (the process is shutting down)",
  "no change",
  "proposed no changes",
  "2 merged into 1 umbrella(s)",
  "2 merged into 1 umbrella(s), 1 pruned, 3 new skill(s)",
  "proposed: 1 pruned",
];

describe("the model pass's status in a run summary", () => {
  it.each(STATUSES)("%s: the same English, and Chinese with no English left", (status) => {
    const text = llmStatusText(status);
    expect(english(text)).toBe(status);
    const zh = resolveText(text, "zh-CN");
    expect(zh).toMatch(/[\u4e00-\u9fff]/);
    expect(englishLeft(zh, [])).toBeNull();
  });

  it("an error keeps the model's own words inside the reader's frame", () => {
    const text = llmStatusText("error (HTTP 401: invalid api key)");
    expect(english(text)).toBe("error (HTTP 401: invalid api key)");
    expect(resolveText(text, "zh-CN")).toBe("出错（HTTP 401: invalid api key）");
  });

  it("a status in no known form is shown as it is", () => {
    expect(llmStatusText("merged everything into one")).toBe("merged everything into one");
    expect(llmStatusText("2 merged into 1 umbrella(s), something else")).toBe(
      "2 merged into 1 umbrella(s), something else",
    );
  });
});
