/**
 * The one date and time policy of every surface (CLI, chat, console): a moment is shown as local time in
 * the configured zone (`gateway.timezone`, else the `TZ` environment variable, else UTC) with the zone
 * named, the year only when it is not this year; a day as "today", "yesterday" or "3 days ago" counted in
 * calendar days of that zone; an elapsed time as `42s ago` / `42 秒前`. Moments go through `Intl`,
 * elapsed times through a table of ICU's words; the words of relative days come from the catalogs
 * (`messages.ts` resolves `when`, `day` and `ago` values through here).
 */
import type { Locale } from "./locale.js";

/** The zone used when neither `gateway.timezone` nor `TZ` names a valid one. */
export const DEFAULT_TIME_ZONE = "UTC";

/** True when `zone` is an IANA zone (or `UTC`) this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The zone dates are shown in: `setting` (`gateway.timezone`), else `TZ`, else UTC; invalid ones skipped. */
export function displayTimeZone(setting?: string, env: NodeJS.ProcessEnv = process.env): string {
  for (const zone of [setting, env.TZ?.replace(/^:/, "")]) if (zone && isTimeZone(zone)) return zone;
  return DEFAULT_TIME_ZONE;
}

/**
 * Formatters by locale, zone and shape, made once: building an `Intl.DateTimeFormat` costs ICU a few
 * hundred microseconds and tens of kilobytes, and a 10k-row `skills usage` asks for three per row.
 */
const dateFormats = new Map<string, Intl.DateTimeFormat>();

function dateFormat(
  locale: string,
  options: Intl.DateTimeFormatOptions & { timeZone: string },
): Intl.DateTimeFormat {
  const key = `${locale}\u0000${JSON.stringify(options)}`;
  let format = dateFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, options);
    // Zones come from config.yaml and TZ, so a handful of keys; a bound all the same.
    if (dateFormats.size >= 64) dateFormats.clear();
    dateFormats.set(key, format);
  }
  return format;
}

function parts(ms: number, timeZone: string): { year: number; month: number; day: number } {
  const fields = dateFormat("en-US", {
    timeZone,
    year: "numeric",
    month: "numeric",
    day: "numeric",
  }).formatToParts(new Date(ms));
  const field = (type: string) => Number(fields.find((part) => part.type === type)?.value);
  return { year: field("year"), month: field("month"), day: field("day") };
}

/**
 * `ms` as the reader reads it: `Dec 4, 20:35 UTC` / `12月4日 UTC 20:35` (CLDR's order), with the year
 * when it differs from the year of `now` in that zone (`Dec 4, 2025, 20:35 GMT+8`, `2025年12月4日 GMT+8 20:35`).
 */
export function formatDateTime(ms: number, locale: Locale, timeZone: string, now: number): string {
  const thisYear = parts(ms, timeZone).year === parts(now, timeZone).year;
  return dateFormat(locale, {
    timeZone,
    ...(thisYear ? {} : { year: "numeric" }),
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZoneName: "short",
  }).format(new Date(ms));
}

/** Calendar days from the day of `ms` to the day of `now` in `timeZone` (0 today, 1 yesterday). */
export function calendarDaysAgo(ms: number, timeZone: string, now: number): number {
  const day = (at: number) => {
    const { year, month, day } = parts(at, timeZone);
    return Date.UTC(year, month - 1, day) / 86_400_000;
  };
  return Math.max(0, Math.round(day(now) - day(ms)));
}

/** Milliseconds since the epoch of an ISO time, a Date or a number; undefined when unparseable. */
export function toMillis(at: string | number | Date): number | undefined {
  const ms = at instanceof Date ? at.getTime() : typeof at === "number" ? at : Date.parse(at);
  return Number.isFinite(ms) ? ms : undefined;
}

/** The units an elapsed time is written in. */
type ElapsedUnit = "second" | "minute" | "hour" | "day";

/**
 * What each locale writes after a past amount of each unit: what ICU's `Intl.RelativeTimeFormat(locale,
 * { style: "narrow", numeric: "always" })` puts after the number, the same for every amount in these
 * locales. Written out rather than asked of ICU at run time, since asking maps ~6 MB of its locale and
 * number data into the process for these sixteen words; `test/i18n/dates.test.ts` holds the table to
 * ICU's output.
 */
const ELAPSED_WORDS: Record<Locale, Record<ElapsedUnit, string>> = {
  en: { second: "s ago", minute: "m ago", hour: "h ago", day: "d ago" },
  "zh-CN": { second: "秒前", minute: "分钟前", hour: "小时前", day: "天前" },
  "zh-TW": { second: " 秒前", minute: " 分鐘前", hour: " 小時前", day: " 天前" },
  "zh-HK": { second: "秒前", minute: "分前", hour: "小時前", day: "日前" },
};

/**
 * Elapsed `seconds` as the narrow relative time of `locale`: `42s ago`, `5m ago`, `3h ago`, `12d ago`
 * (the English the curator's status and listings print), `42 秒前`, `3 小时前`, `12 天前`; the number is
 * written without grouping.
 */
export function formatElapsed(seconds: number, locale: Locale): string {
  const [value, unit]: [number, ElapsedUnit] =
    seconds < 60
      ? [seconds, "second"]
      : seconds < 3600
        ? [Math.floor(seconds / 60), "minute"]
        : seconds < 86_400
          ? [Math.floor(seconds / 3600), "hour"]
          : [Math.floor(seconds / 86_400), "day"];
  // A number and a Chinese word are spaced as everywhere else in the catalogs (`3 天前`, like `{days} 天前`).
  return `${value}${ELAPSED_WORDS[locale][unit]}`.replace(/(\d)(?=[\u4e00-\u9fff])/g, "$1 ");
}
