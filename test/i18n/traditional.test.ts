/**
 * Traditional Chinese: zh-TW and zh-HK read catalogs derived from the zh-CN one by OpenCC. Every key
 * has a Traditional entry with the same placeholders and code spans, converted wherever the Simplified
 * text has a character with a Traditional form (no Simplified-only character is left); well-known
 * words convert as a Taiwanese or Hong Kong reader writes them; every spelling of a Traditional
 * language tag (Telegram, Discord, Feishu, POSIX) picks the right locale. A process whose readers are
 * all English or Simplified never loads the converter.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import type { CatalogEntry } from "../../src/core/i18n/entries.js";
import {
  isTraditional,
  LOCALES,
  localeFromEnv,
  matchLocale,
  type TraditionalLocale,
} from "../../src/core/i18n/locale.js";
import { catalogEntry, messageKeys, resolveText, t } from "../../src/core/i18n/messages.js";
import { deriveTraditional } from "../../src/core/i18n/traditional.js";

const TRADITIONAL = LOCALES.filter(isTraditional);

/**
 * Characters only Simplified Chinese writes (each has one Traditional form): a Traditional text has
 * none of them outside code spans.
 */
const SIMPLIFIED_ONLY = [
  ..."们这为发档设项务时个来对说会与过还没现从动开关进实无问题让请读显库录态运输网页键称钮选单条块状",
];

/** The templates of an entry (one, or each plural form). */
function templates(entry: CatalogEntry): string[] {
  return typeof entry === "string" ? [entry] : Object.values(entry).filter((value) => value !== undefined);
}

/** The placeholders and code spans of a template, in order: what conversion must not touch. */
function literals(template: string): string[] {
  return template.match(/\{[A-Za-z_][A-Za-z0-9_]*\}|`[^`\n]*`/g) ?? [];
}

/** A template without its code spans: the text a reader reads as prose. */
function prose(template: string): string {
  return template.replace(/`[^`\n]*`/g, "");
}

describe("Traditional Chinese catalogs derived from zh-CN", () => {
  it("has both Traditional locales, and only them, marked as derived", () => {
    expect(TRADITIONAL).toEqual(["zh-TW", "zh-HK"]);
  });

  for (const locale of TRADITIONAL) {
    it(`${locale}: every key has an entry with zh-CN's placeholders and code spans, converted where Simplified`, () => {
      const unconverted: string[] = [];
      const leftovers: string[] = [];
      const changedLiterals: string[] = [];
      for (const key of messageKeys()) {
        const simplified = templates(catalogEntry(key, "zh-CN"));
        const traditional = templates(catalogEntry(key, locale));
        expect(traditional.length, key).toBe(simplified.length);
        simplified.forEach((source, index) => {
          const target = traditional[index] ?? "";
          if (JSON.stringify(literals(target)) !== JSON.stringify(literals(source)))
            changedLiterals.push(key);
          const hasSimplified = [...prose(source)].some((char) => SIMPLIFIED_ONLY.includes(char));
          if (hasSimplified && target === source) unconverted.push(key);
          const left = [...prose(target)].filter((char) => SIMPLIFIED_ONLY.includes(char));
          if (left.length > 0) leftovers.push(`${key}: ${left.join("")}`);
        });
      }
      expect(changedLiterals).toEqual([]);
      expect(unconverted).toEqual([]);
      expect(leftovers).toEqual([]);
      // The sweep did meet Simplified text: most of the catalog differs from zh-CN.
      const differing = messageKeys().filter(
        (key) => JSON.stringify(catalogEntry(key, locale)) !== JSON.stringify(catalogEntry(key, "zh-CN")),
      );
      expect(differing.length).toBeGreaterThan(messageKeys().length / 2);
    });
  }

  it("converts well-known words as Taiwan (with its phrases) and Hong Kong write them", () => {
    const source = {
      curator: "技能管理器",
      archived: "已归档",
      settings: "设置",
      file: "文件",
      audit: "审计日志",
      later: "未使用 {days} 天后",
      post: "在这里发布维护摘要",
      plural: { one: "{count} 个技能", other: "{count} 个技能已归档" },
    };
    const tw = deriveTraditional(source, "zh-TW");
    const hk = deriveTraditional(source, "zh-HK");
    expect(tw.curator).toBe("技能管理器");
    expect(hk.curator).toBe("技能管理器");
    expect(tw.archived).toBe("已歸檔");
    expect(hk.archived).toBe("已歸檔");
    expect(tw.settings).toBe("設定");
    expect(hk.settings).toBe("設置");
    expect(tw.file).toBe("檔案");
    expect(hk.file).toBe("文件");
    expect(tw.audit).toBe("審計日誌");
    expect(tw.later).toBe("未使用 {days} 天後");
    expect(hk.later).toBe("未使用 {days} 天後");
    expect(tw.post).toBe("在這裡發布維護摘要");
    expect(hk.post).toBe("在這裏發佈維護摘要");
    expect(tw.plural).toEqual({ one: "{count} 個技能", other: "{count} 個技能已歸檔" });
  });

  it("leaves placeholders and code spans as they are, converting only the text around them", () => {
    const source = { hint: "用 `/skill 周报` 查看{name}的设置，或发送 `skills list`。" };
    expect(deriveTraditional(source, "zh-TW").hint).toBe(
      "用 `/skill 周报` 檢視{name}的設定，或傳送 `skills list`。",
    );
    expect(deriveTraditional(source, "zh-HK").hint).toBe(
      "用 `/skill 周报` 查看{name}的設置，或發送 `skills list`。",
    );
  });

  it("resolves messages in Traditional, parameters (data) untouched and nested messages converted", () => {
    const state = t("cmd.state.archived");
    expect(resolveText(state, "zh-CN")).toBe("已归档");
    expect(resolveText(state, "zh-TW")).toBe("已歸檔");
    expect(resolveText(state, "zh-HK")).toBe("已歸檔");
    const language = t("cmd.language.invalid", { value: "简体" });
    expect(resolveText(language, "zh-TW")).toBe(
      "未知的語言 `简体`：請使用 `zh-CN`、`zh-TW`、`zh-HK`、`en` 或 `auto`。",
    );
  });
});

describe("Traditional Chinese language tags", () => {
  const cases: Record<string, TraditionalLocale | "zh-CN"> = {
    "zh-TW": "zh-TW",
    "zh-tw": "zh-TW",
    zh_TW: "zh-TW",
    "zh_TW.UTF-8": "zh-TW",
    "zh_TW.Big5": "zh-TW",
    "zh-hant": "zh-TW",
    "zh-Hant": "zh-TW",
    "zh-hant-tw": "zh-TW",
    "zh-Hant-US": "zh-TW",
    "zh-HK": "zh-HK",
    zh_hk: "zh-HK",
    "zh_HK.UTF-8": "zh-HK",
    "zh-Hant-HK": "zh-HK",
    "zh-MO": "zh-HK",
    "zh-hans": "zh-CN",
    "zh-Hans-HK": "zh-CN",
    zh_cn: "zh-CN",
    "zh_CN.UTF-8": "zh-CN",
    "zh-SG": "zh-CN",
    zh: "zh-CN",
  };
  it("maps Telegram, Discord, Feishu and POSIX spellings to zh-TW, zh-HK or zh-CN", () => {
    for (const [tag, locale] of Object.entries(cases)) expect(matchLocale(tag), tag).toBe(locale);
  });

  it("reads the CLI's language from LC_ALL, LC_MESSAGES or LANG", () => {
    expect(localeFromEnv({ LANG: "zh_TW.UTF-8" })).toBe("zh-TW");
    expect(localeFromEnv({ LC_ALL: "zh_HK.UTF-8", LANG: "zh_CN.UTF-8" })).toBe("zh-HK");
    expect(localeFromEnv({ LANG: "zh_TW.UTF-8", LC_ALL: "C" })).toBe("en");
  });
});

describe("the converter runs only for a Traditional reader, and never in the process itself", () => {
  it("stays out of a process that answers English and Simplified Chinese; zh-TW brings its catalog alone", async () => {
    // A fresh process: this test file has loaded the converter already.
    const script = `
      import { createRequire } from "node:module";
      const { resolveText, t, isCatalogLoaded } = await import("./src/core/i18n/messages.ts");
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes("opencc-js"));
      const state = t("cmd.state.archived");
      const seen = [resolveText(state, "en"), resolveText(state, "zh-CN")];
      const before = { converter: loaded(), tw: isCatalogLoaded("zh-TW"), hk: isCatalogLoaded("zh-HK") };
      seen.push(resolveText(state, "zh-TW"));
      const after = { converter: loaded(), tw: isCatalogLoaded("zh-TW"), hk: isCatalogLoaded("zh-HK") };
      console.log(JSON.stringify({ seen, before, after }));`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      { cwd: process.cwd(), timeout: 60_000 },
    );
    expect(JSON.parse(stdout)).toEqual({
      seen: ["archived", "已归档", "已歸檔"],
      before: { converter: false, tw: false, hk: false },
      // Converted on a worker thread: the process holds the catalog, never the converter's dictionaries.
      after: { converter: false, tw: true, hk: false },
    });
  });
});
