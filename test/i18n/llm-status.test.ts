/**
 * The model pass's status in a run summary (`curator: auto: …; llm: …`) in the reader's language: every
 * form the run records (skipped and why, an error, no change, the pass's own summary, a dry run's
 * proposal) reads in Chinese, and its English is the very status the run stored. A status in no known
 * form is shown as it is.
 */
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/config.js";
import { english, resolveText } from "../../src/core/i18n/messages.js";
import { llmStatusText } from "../../src/curator/report.js";
import { resolveCuratorModel } from "../../src/llm/config.js";
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

  it.each([
    "no model configured: set `auxiliary.curator.provider` and `auxiliary.curator.model` (or `model.default` with `model.base_url`) in config.yaml",
    "`model.provider` is auto but no provider key was found: set `model.base_url` (any OpenAI-compatible server) or `model.provider` with its API key (e.g. OPENROUTER_API_KEY in <home>/.env)",
    '`auxiliary.curator.provider` is "acme", which has no known address: set `auxiliary.curator.base_url` to its OpenAI-compatible endpoint (e.g. http://127.0.0.1:8000/v1)',
    "`model.api_key` names MY_KEY, which is not set: add MY_KEY=… to <home>/.env or the environment",
    "no API key for `model`: set OPENROUTER_API_KEY in <home>/.env or the environment, or `model.api_key`",
  ])("why no model resolved reads in Chinese, its English unchanged: %s", (reason) => {
    const text = llmStatusText(`error (${reason})`);
    expect(english(text)).toBe(`error (${reason})`);
    const zh = resolveText(text, "zh-CN");
    expect(zh.startsWith("出错（")).toBe(true);
    expect(englishLeft(zh, ["OpenAI", "auto"])).toBeNull();
  });

  it("the reasons a resolution gives are the English the runs have always stored", () => {
    const none = resolveCuratorModel(parseConfig({}), "/nonexistent-home", {});
    expect(none.ok ? "" : none.reason).toBe(
      "no model configured: set `auxiliary.curator.provider` and `auxiliary.curator.model` (or `model.default` with `model.base_url`) in config.yaml",
    );
    const unset = resolveCuratorModel(
      parseConfig({ model: { default: "m", base_url: "http://127.0.0.1:1/v1", api_key: "$MY_KEY" } }),
      "/nonexistent-home",
      {},
    );
    expect(unset.ok ? "" : unset.reason).toBe(
      "`model.api_key` names MY_KEY, which is not set: add MY_KEY=… to <home>/.env or the environment",
    );
  });

  it("a status in no known form is shown as it is", () => {
    expect(llmStatusText("merged everything into one")).toBe("merged everything into one");
    expect(llmStatusText("2 merged into 1 umbrella(s), something else")).toBe(
      "2 merged into 1 umbrella(s), something else",
    );
  });
});
