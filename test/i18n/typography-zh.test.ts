/**
 * Chinese typography, held over every zh-CN catalog entry and over assembled output: no ASCII ", "
 * between Chinese words, one dash (——, no spaces around it) and one ellipsis (……), no ">=" in prose,
 * no space after full-width punctuation (column alignment of two or more spaces excepted), no double
 * colon; lists joined with 、 through the locale; `用法：` with no space after it in the CLI's help.
 */
import { describe, expect, it } from "vitest";
import {
  catalogEntry,
  english,
  list,
  messageKeys,
  resolveText,
  type Text,
} from "../../src/core/i18n/messages.js";
import { headline, renameMapText } from "../../src/curator/report.js";
import { storedSummaryLines } from "../../src/curator/summary-text.js";
import { runCliArgs } from "../support/cli-in-process.js";

const CJK = "[\\u4e00-\\u9fff）」”]";

/** What a Chinese text must not hold, by name. */
const RULES: [string, RegExp][] = [
  ["an ASCII comma between Chinese words", new RegExp(`${CJK}\\s*,\\s*[\\u4e00-\\u9fff（「“]`)],
  ["spaces around ——", / ——|—— /],
  ["a single … (write ……)", /(?<![…=_/\w])…(?!…)/],
  ["a comparison sign in prose", />=|<=/],
  ["one space after full-width punctuation", /[：；，。、](?: (?! )|\t)/],
  ["a double colon", /[：:][ ]?[：:]/],
  ["an English dash in Chinese", new RegExp(`${CJK} ?— ?${CJK}`)],
];

/** The first rule `text` breaks (code spans are literal and not judged). */
function broken(text: string): string | undefined {
  const prose = text.replace(/`[^`]*`/g, "``");
  return RULES.find(([, pattern]) => pattern.test(prose))?.[0];
}

describe("Chinese typography", () => {
  it("holds in every zh-CN catalog entry", () => {
    const found: string[] = [];
    for (const key of messageKeys()) {
      const entry = catalogEntry(key, "zh-CN");
      for (const form of typeof entry === "string" ? [entry] : Object.values(entry)) {
        const rule = broken(form);
        if (rule) found.push(`${key}: ${rule}: ${form}`);
      }
    }
    expect(found).toEqual([]);
  });

  it("each rule can fail", () => {
    for (const bad of [
      "技能, 归档",
      "a —— b",
      "正在处理…",
      "闲置 >= 3 天",
      "原因： 手动",
      "摘要：：",
      "技能—归档",
    ])
      expect(broken(bad), bad).toBeDefined();
    expect(broken("值为 `a, b`；用 FEISHU_APP_ID=… 写入")).toBeUndefined();
  });

  it("holds in assembled text: lists, a stored run summary", () => {
    const items: Text = list(["甲", "乙", "丙"]);
    expect(resolveText(items, "zh-CN")).toBe("甲、乙、丙");
    expect(english(list(["a", "b"]))).toBe("a, b");
    const counts = { checked: 5, marked_stale: 2, archived: 1, reactivated: 1, seeded: 0 };
    const stored = [
      headline(false, counts, "proposed: 2 merged into 1 umbrella(s), 1 pruned"),
      renameMapText(
        { entries: [{ kind: "pruned", name: "old" }], pinHint: null },
        (path) => `skillgate ${path.join(" ")}`,
      ),
    ].join("\n");
    const text = storedSummaryLines(stored)
      .map((line) => resolveText(line, "zh-CN"))
      .join("\n");
    expect(text).toContain("2 个标记为过时、已归档 1 个、1 个重新激活");
    expect(broken(text), text).toBeUndefined();
  });

  it("holds in the CLI's help: 用法： with no space, [选项], defaults in Chinese", async () => {
    const env = { NO_COLOR: "1", LANG: "zh_CN.UTF-8", PATH: process.env.PATH };
    for (const args of [["curator", "--help"], ["skills", "usage", "--help"], ["--help"]]) {
      const { stdout } = await runCliArgs(args, { env });
      expect(stdout, args.join(" ")).toMatch(/^用法：skillgate/);
      expect(stdout).not.toMatch(/\[options\]|\[command\]|\(default: |\(choices: |\(env: /);
      expect(broken(stdout), stdout).toBeUndefined();
    }
  });
});
