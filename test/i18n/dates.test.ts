import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/config.js";
import {
  calendarDaysAgo,
  displayTimeZone,
  formatDateTime,
  formatElapsed,
} from "../../src/core/i18n/dates.js";
import { LOCALES } from "../../src/core/i18n/locale.js";
import { dayOf, resolveText, when } from "../../src/core/i18n/messages.js";

const NOW = Date.parse("2026-12-04T20:35:00Z");

describe("one date and time policy", () => {
  // Chinese names the zone before the time, as CLDR writes it (12月4日 UTC 12:05).
  it("shows local time in the zone with the zone named, without the year when it is this year", () => {
    const at = "2026-12-04T12:05:00Z";
    expect(resolveText(when(at, "UTC", NOW), "en")).toBe("Dec 4, 12:05 UTC");
    expect(resolveText(when(at, "UTC", NOW), "zh-CN")).toBe("12月4日 UTC 12:05");
    expect(resolveText(when(at, "Asia/Shanghai", NOW), "en")).toBe("Dec 4, 20:05 GMT+8");
    expect(resolveText(when(at, "Asia/Shanghai", NOW), "zh-CN")).toBe("12月4日 GMT+8 20:05");
  });

  it("adds the year when the moment is not in this year of the zone", () => {
    expect(formatDateTime(Date.parse("2025-03-01T08:00:00Z"), "en", "UTC", NOW)).toBe(
      "Mar 1, 2025, 08:00 UTC",
    );
    expect(formatDateTime(Date.parse("2025-03-01T08:00:00Z"), "zh-CN", "UTC", NOW)).toBe(
      "2025年3月1日 UTC 08:00",
    );
    // 2026-12-31 20:00 UTC is already 2027 in Shanghai: a year away from "now" there.
    expect(formatDateTime(Date.parse("2026-12-31T20:00:00Z"), "en", "Asia/Shanghai", NOW)).toContain("2027");
  });

  // Formatters are made once per locale, zone and shape: interleaved calls must each get their own.
  it("keeps each locale, zone and year shape apart when formatting many moments in turn", () => {
    const thisYear = Date.parse("2026-06-01T23:30:00Z");
    const lastYear = Date.parse("2025-06-01T23:30:00Z");
    for (let round = 0; round < 3; round++) {
      expect(formatDateTime(thisYear, "en", "UTC", NOW)).toBe("Jun 1, 23:30 UTC");
      expect(formatDateTime(thisYear, "en", "Asia/Shanghai", NOW)).toBe("Jun 2, 07:30 GMT+8");
      expect(formatDateTime(lastYear, "en", "UTC", NOW)).toBe("Jun 1, 2025, 23:30 UTC");
      expect(formatDateTime(thisYear, "zh-CN", "UTC", NOW)).toBe("6月1日 UTC 23:30");
      expect(calendarDaysAgo(thisYear, "UTC", NOW)).toBe(186);
      expect(calendarDaysAgo(thisYear, "Asia/Shanghai", NOW)).toBe(186);
    }
  });

  it("counts relative days in the zone's calendar: today, yesterday, N days ago", () => {
    const day = (at: string, zone: string, locale: "en" | "zh-CN") =>
      resolveText(dayOf(at, zone, NOW), locale);
    expect(day("2026-12-04T00:10:00Z", "UTC", "en")).toBe("today");
    expect(day("2026-12-04T00:10:00Z", "UTC", "zh-CN")).toBe("今天");
    expect(day("2026-12-03T23:50:00Z", "UTC", "en")).toBe("yesterday");
    expect(day("2026-12-03T23:50:00Z", "UTC", "zh-CN")).toBe("昨天");
    expect(day("2026-12-01T10:00:00Z", "UTC", "en")).toBe("3 days ago");
    expect(day("2026-12-01T10:00:00Z", "UTC", "zh-CN")).toBe("3 天前");
    // 20:35 UTC is already the 5th in Shanghai, so the 4th's evening there is yesterday.
    expect(calendarDaysAgo(Date.parse("2026-12-04T10:00:00Z"), "Asia/Shanghai", NOW)).toBe(1);
    expect(resolveText(dayOf("not a time", "UTC", NOW), "en")).toBe("not a time");
  });

  it("writes elapsed time as the curator's listings print it in English and as Chinese reads it", () => {
    expect(formatElapsed(42, "en")).toBe("42s ago");
    expect(formatElapsed(3 * 3600 + 5, "en")).toBe("3h ago");
    expect(formatElapsed(12 * 86_400, "en")).toBe("12d ago");
    expect(formatElapsed(42, "zh-CN")).toBe("42 秒前");
    expect(formatElapsed(5 * 60, "zh-CN")).toBe("5 分钟前");
    expect(formatElapsed(1234 * 86_400, "zh-CN")).toBe("1234 天前");
  });

  it("writes elapsed time in every locale as ICU's narrow relative time does, less the grouping", () => {
    const amounts = [0, 1, 2, 7, 42, 59, 1234, 98_765];
    const units = [
      ["second", 1],
      ["minute", 60],
      ["hour", 3600],
      ["day", 86_400],
    ] as const;
    for (const locale of LOCALES) {
      const icu = new Intl.RelativeTimeFormat(locale, { style: "narrow", numeric: "always" });
      for (const [unit, size] of units) {
        for (const amount of amounts) {
          // The seconds that fall in this unit: a minute's worth of seconds is written in minutes.
          if ((unit === "second" && amount >= 60) || (unit !== "second" && amount === 0)) continue;
          if ((unit === "minute" && amount >= 60) || (unit === "hour" && amount >= 24)) continue;
          // ICU's words around the number, the number itself written once and ungrouped.
          const parts = icu.formatToParts(-amount, unit);
          const number = parts.findIndex((part) => part.type !== "literal");
          const spelled = parts
            .map((part, index) =>
              part.type === "literal" ? part.value : index === number ? `${amount}` : "",
            )
            .join("")
            .replace(/(\d)(?=[\u4e00-\u9fff])/g, "$1 ");
          expect(
            formatElapsed(amount * size + (size > 1 ? size - 1 : 0), locale),
            `${locale} ${amount} ${unit}`,
          ).toBe(spelled);
        }
      }
    }
  });

  it("the zone is gateway.timezone, else TZ, else UTC; an unknown one is skipped or refused in config", () => {
    expect(displayTimeZone("Asia/Shanghai", { TZ: "Europe/Berlin" })).toBe("Asia/Shanghai");
    expect(displayTimeZone(undefined, { TZ: "Europe/Berlin" })).toBe("Europe/Berlin");
    expect(displayTimeZone(undefined, { TZ: "Nowhere/Else" })).toBe("UTC");
    expect(displayTimeZone(undefined, {})).toBe("UTC");
    expect(parseConfig({ gateway: { timezone: "Asia/Shanghai" } }, 0, []).gateway.timezone).toBe(
      "Asia/Shanghai",
    );
    expect(parseConfig({}, 0, []).gateway.timezone).toBeUndefined();
    expect(() => parseConfig({ gateway: { timezone: "Mars/Base" } }, 0, [])).toThrow(/gateway\.timezone/);
  });
});
