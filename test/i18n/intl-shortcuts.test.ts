/**
 * Counts, numbers and lists laid out without `Intl` where that gives the same string (so a one-shot
 * command need not load ICU's data): each case is compared with what `Intl` itself writes.
 */
import { describe, expect, it } from "vitest";
import { LOCALES } from "../../src/core/i18n/locale.js";
import { fixed, grouped, list, resolveText, t } from "../../src/core/i18n/messages.js";

const NUMBERS = [
  0,
  -0,
  1,
  -1,
  2,
  7,
  42,
  999,
  1000,
  12345678,
  -12345,
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
  2 ** 53,
  1e21,
  1.5,
  0.1234,
  -2.0005,
  Number.NaN,
  Number.POSITIVE_INFINITY,
];

/** A number as a message parameter resolves it (inside a join, so no catalog entry is needed). */
function asParameter(value: number, locale: (typeof LOCALES)[number]): string {
  return resolveText({ fmt: "join", items: [value], separator: "" }, locale);
}

describe("Intl shortcuts", () => {
  it("writes a number parameter as Intl.NumberFormat does, in every locale", () => {
    for (const locale of LOCALES) {
      const intl = new Intl.NumberFormat(locale, { useGrouping: false, maximumFractionDigits: 3 });
      for (const value of NUMBERS)
        expect(asParameter(value, locale), `${locale} ${value}`).toBe(intl.format(value));
    }
  });

  it("leaves fixed decimals and grouped numbers to Intl", () => {
    expect(resolveText(grouped(1234567), "en")).toBe("1,234,567");
    expect(resolveText(fixed(3, 1), "en")).toBe("3.0");
    expect(resolveText(fixed(3, 0), "zh-CN")).toBe("3");
  });

  it("joins an English list as Intl.ListFormat's narrow conjunction does", () => {
    const intl = new Intl.ListFormat("en", { type: "conjunction", style: "narrow" });
    const lists = [
      [],
      ["a"],
      ["a", "b"],
      ["a", "b", "c"],
      ["x, y", "技能", "🚀", ""],
      ["1", "2", "3", "4", "5", "6"],
    ];
    for (const items of lists) expect(resolveText(list(items), "en")).toBe(intl.format(items));
    expect(resolveText(list([1000, 2]), "en")).toBe(intl.format(["1000", "2"]));
  });

  it("picks the English plural form Intl.PluralRules picks", () => {
    const rules = new Intl.PluralRules("en");
    const forms = { one: "missing file {names}", other: "missing files {names}" };
    for (const count of [-2, -1, -0, 0, 1, 1.5, 2, 11, 21, 101, Number.NaN]) {
      const expected = forms[rules.select(count) as "one" | "other"].replace("{names}", "x");
      expect(resolveText(t("skill.missingFile", { count, names: "x" }), "en"), String(count)).toBe(expected);
    }
  });
});
