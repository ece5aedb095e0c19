/**
 * The one date and time policy of every surface (CLI, chat, console): a moment is shown as local time in
 * the configured zone (`gateway.timezone`, else the `TZ` environment variable, else UTC) with the zone
 * named, the year only when it is not this year; a day as "today", "yesterday" or "3 days ago" counted in
 * calendar days of that zone; an elapsed time as `42s ago` / `42 秒前`. Pure `Intl`; the words of
 * relative days come from the catalogs (`messages.ts` resolves `when`, `day` and `ago` values through here).
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

const elapsedFormats = new Map<Locale, Intl.RelativeTimeFormat>();

/**
 * Elapsed `seconds` as the narrow relative time of `locale`: `42s ago`, `5m ago`, `3h ago`, `12d ago`
 * (the English the curator's status and listings print), `42 秒前`, `3 小时前`, `12 天前`; the number is
 * written without grouping.
 */
export function formatElapsed(seconds: number, locale: Locale): string {
  const [value, unit]: [number, Intl.RelativeTimeFormatUnit] =
    seconds < 60
      ? [seconds, "second"]
      : seconds < 3600
        ? [Math.floor(seconds / 60), "minute"]
        : seconds < 86_400
          ? [Math.floor(seconds / 3600), "hour"]
          : [Math.floor(seconds / 86_400), "day"];
  let formatter = elapsedFormats.get(locale);
  if (!formatter) {
    formatter = new Intl.RelativeTimeFormat(locale, { style: "narrow", numeric: "always" });
    elapsedFormats.set(locale, formatter);
  }
  let placed = false;
  const text = formatter
    .formatToParts(-value, unit)
    .map((part) => {
      if (part.type === "literal") return part.value;
      if (placed) return "";
      placed = true;
      return String(value);
    })
    .join("");
  // A number and a Chinese word are spaced as everywhere else in the catalogs (`3 天前`, like `{days} 天前`).
  return text.replace(/(\d)(?=[\u4e00-\u9fff])/g, "$1 ");
}
