/**
 * Completeness of the catalogs: every zh-CN message is Chinese (no English sentence left outside code
 * spans, placeholders and an allow-list of names, commands and paths), every English message resolves
 * with no key or placeholder left, and the translated chat commands' replies (help, whoami, skill, in
 * success, refusal and usage error) read as Chinese end to end.
 */
import { describe, expect, it } from "vitest";
import { catalogEntry, english, messageKeys, resolveText, t } from "../../src/core/i18n/messages.js";
import { englishWordLeft } from "../support/english-left.js";

function templates(key: Parameters<typeof catalogEntry>[0], locale: "en" | "zh-CN"): string[] {
  const entry = catalogEntry(key, locale);
  return typeof entry === "string"
    ? [entry]
    : Object.values(entry).filter((v): v is string => typeof v === "string");
}

describe("catalog completeness", () => {
  it("every zh-CN entry is Chinese: no English word outside the allow-list", () => {
    const left = messageKeys().flatMap((key) =>
      templates(key, "zh-CN").flatMap((text) => {
        const found = englishWordLeft(text);
        return found ? [`${key}: ${found}`] : [];
      }),
    );
    expect(left).toEqual([]);
  });

  it("the check is not blind to one English word or a plural (s)", () => {
    expect(englishWordLeft("操作者：user")).toBe("user");
    expect(englishWordLeft("原因：manual")).toBe("manual");
    expect(englishWordLeft("已归档 2 个 skill(s)")).not.toBeNull();
    expect(englishWordLeft("运行 `skillgate curator status`，见 docs/platforms/telegram.md")).toBeNull();
  });

  it("every zh-CN entry that says something differs from English", () => {
    const same = messageKeys().filter((key) => {
      const en = templates(key, "en").join("|");
      const zh = templates(key, "zh-CN").join("|");
      return en === zh && /[A-Za-z]{3,}/.test(en.replace(/\{[A-Za-z_]+\}/g, ""));
    });
    expect(same).toEqual([]);
  });

  it("every English entry resolves without a key or a placeholder left", () => {
    for (const key of messageKeys()) {
      for (const text of templates(key, "en")) {
        const names = [...text.matchAll(/\{([A-Za-z_]+)\}/g)].map((match) => match[1] as string);
        const params = Object.fromEntries(names.map((name) => [name, name === "count" ? 2 : "X"]));
        const shown = english({ key, params });
        expect(shown, key).not.toMatch(/\{[A-Za-z_]+\}/);
        expect(shown, key).not.toBe(key);
        expect(shown.length, key).toBeGreaterThan(0);
      }
    }
  });

  it("plurals, numbers and relative times go through Intl in each locale", () => {
    expect(english(t("skill.missingEnv", { count: 1, names: "`A`" }))).toBe(
      "missing environment variable `A`",
    );
    expect(english(t("skill.missingEnv", { count: 2, names: "`A`, `B`" }))).toBe(
      "missing environment variables `A`, `B`",
    );
    expect(resolveText(t("skill.missingEnv", { count: 2, names: "`A`" }), "zh-CN")).toBe("缺少环境变量 `A`");
    expect(resolveText(t("help.moreSkills", { count: 12_345, command: "x" }), "zh-CN")).toContain("12345");
    expect(resolveText({ fmt: "ago", seconds: 3 * 86_400 }, "zh-CN")).toBe("3 天前");
    expect(english({ fmt: "ago", seconds: 3 * 86_400 })).toBe("3d ago");
    expect(resolveText({ fmt: "list", items: ["a", "b", "c"] }, "zh-CN")).toBe("a、b、c");
  });
});
