/**
 * The locales skillgate speaks and how one is chosen. A reader's language comes as the platform spells
 * it (Telegram `zh-hans`, Discord `zh-CN`, a browser's `Accept-Language`, a shell's `zh_CN.UTF-8`);
 * `matchLocale` maps it to `en`, `zh-CN`, `zh-TW` or `zh-HK`, and `chooseLocale` applies the configured
 * override and the chat's and platform's defaults. Simplified Chinese (`zh-CN`) has its own catalog; the
 * Traditional locales (`zh-TW` for Taiwan and any other `zh-Hant`, `zh-HK` for Hong Kong and Macau) read
 * catalogs derived from it (see `traditional.ts`).
 */

/**
 * The locales a reader can read: `en` (the default and the language of every file and `--json`),
 * `zh-CN` (Simplified Chinese), and the Traditional Chinese `zh-TW` and `zh-HK`.
 */
export const LOCALES = ["en", "zh-CN", "zh-TW", "zh-HK"] as const;

/** One supported locale. */
export type Locale = (typeof LOCALES)[number];

/** The Traditional Chinese locales, whose catalogs are derived from the Simplified one. */
export type TraditionalLocale = "zh-TW" | "zh-HK";

/** True for `zh-TW` and `zh-HK`. */
export function isTraditional(locale: Locale): locale is TraditionalLocale {
  return locale === "zh-TW" || locale === "zh-HK";
}

/** True for every Chinese locale, Simplified or Traditional (for Chinese punctuation in assembled text). */
export function isChinese(locale: Locale): boolean {
  return locale !== "en";
}

/** The default locale: English. */
export const DEFAULT_LOCALE: Locale = "en";

/** What `gateway.locale` and `gateway.<platform>.locale` accept: a locale, or `auto` (the reader's own). */
export type LocaleSetting = "auto" | Locale;

/** Every value a locale setting accepts, for the config validator. */
export const LOCALE_SETTINGS: readonly LocaleSetting[] = ["auto", ...LOCALES];

/** The subtags of a tag, lower-cased: `zh_TW.UTF-8` → `zh`, `tw`; `zh-Hant-HK` → `zh`, `hant`, `hk`. */
function subtagsOf(tag: string): string[] {
  return (tag.trim().split(/[.@]/)[0] ?? "").toLowerCase().split(/[-_]/);
}

/**
 * The Chinese locale of a Chinese tag's subtags after `zh`: a script subtag (`hans`, `hant`) decides
 * Simplified or Traditional, else the region does (`tw`, `hk`, `mo` write Traditional); Traditional
 * reads `zh-HK` in Hong Kong and Macau and `zh-TW` elsewhere (Taiwan, `zh-Hant` alone). Everything else
 * reads Simplified Chinese (`zh`, `zh-CN`, `zh-SG`, `zh-Hans-HK`).
 */
function chineseLocale(rest: readonly string[]): Locale {
  const script = rest.find((subtag) => subtag === "hans" || subtag === "hant");
  const hongKong = rest.includes("hk") || rest.includes("mo");
  const traditional = script === "hant" || (script === undefined && (hongKong || rest.includes("tw")));
  if (!traditional) return "zh-CN";
  return hongKong ? "zh-HK" : "zh-TW";
}

/**
 * The supported locale a language tag asks for, or undefined when none matches. Accepts BCP 47 tags in
 * any case (`zh-Hans-CN`, `zh-hant`, `zh-TW`, `en-GB`) and POSIX locale names (`zh_CN.UTF-8`,
 * `zh_TW.UTF-8`, `en_US@euro`). Traditional Chinese tags read `zh-TW` or `zh-HK` (see `chineseLocale`).
 */
export function matchLocale(tag: string | null | undefined): Locale | undefined {
  if (!tag) return undefined;
  const [language, ...rest] = subtagsOf(tag);
  if (language === "zh") return chineseLocale(rest);
  if (language === "en") return "en";
  return undefined;
}

/** True for a language tag as a platform reports it (`zh-CN`, `en-US`, `zh_TW`): letters, digits, `-`, `_`. */
export function isLanguageTag(value: unknown): value is string {
  return typeof value === "string" && /^[A-Za-z]{2,8}(?:[-_][A-Za-z0-9]{1,8}){0,4}$/.test(value);
}

/** True for a value that names a supported locale exactly (`en`, `zh-CN`). */
export function isLocale(value: unknown): value is Locale {
  return typeof value === "string" && (LOCALES as readonly string[]).includes(value);
}

/**
 * The locale of the CLI's human output: POSIX precedence `LC_ALL`, then `LC_MESSAGES`, then `LANG`
 * (the first one set wins, even when it names a language without a catalog); English otherwise.
 */
export function localeFromEnv(env: NodeJS.ProcessEnv = process.env): Locale {
  for (const name of ["LC_ALL", "LC_MESSAGES", "LANG"]) {
    const value = env[name];
    if (value) return matchLocale(value) ?? DEFAULT_LOCALE;
  }
  return DEFAULT_LOCALE;
}

/**
 * The locale a browser's language range asks for: English for `en-*`; for Chinese, Simplified (`zh`,
 * `zh-CN`, `zh-SG`, `zh-Hans-*`) or Traditional (`zh-TW`, `zh-Hant` → `zh-TW`; `zh-HK`, `zh-MO`,
 * `zh-Hant-HK` → `zh-HK`); undefined for any other range (`fr`), so negotiation moves on to the next one.
 */
export function matchBrowserLocale(range: string): Locale | undefined {
  const [language, ...rest] = range.trim().toLowerCase().split("-");
  if (language === "en") return "en";
  return language === "zh" ? chineseLocale(rest) : undefined;
}

/**
 * The best supported locale of an `Accept-Language` header (RFC 9110 §12.5.4: comma-separated ranges
 * with optional `;q=` weights, `*` for any, `q=0` for "not this"; the first of equal weights wins);
 * undefined when it names none. Ranges map by `matchBrowserLocale`.
 */
export function negotiateLocale(header: string | null | undefined): Locale | undefined {
  if (!header) return undefined;
  const ranges = header
    .split(",")
    .map((part, index) => {
      const [range = "", ...params] = part.trim().split(";");
      const q = params.map((param) => /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(param)?.[1]).find(Boolean);
      return { range: range.trim(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((item) => item.range !== "" && Number.isFinite(item.q) && item.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const item of ranges) {
    if (item.range === "*") return DEFAULT_LOCALE;
    const locale = matchBrowserLocale(item.range);
    if (locale) return locale;
  }
  return undefined;
}

/** Each locale's name in its own language, for a language switch. */
export const LANGUAGE_NAMES: Readonly<Record<Locale, string>> = {
  en: "English",
  "zh-CN": "简体中文",
  "zh-TW": "繁體中文（台灣）",
  "zh-HK": "繁體中文（香港）",
};

/** The cookie that remembers the console's language switch. */
export const LANGUAGE_COOKIE = "skillgate_lang";

/**
 * The locale of a browser page: the language the reader chose with the switch (its cookie's value,
 * when it names a locale), else the best of `Accept-Language`, else English.
 */
export function browserLocale(cookie: string | undefined, acceptLanguage: string | undefined): Locale {
  if (isLocale(cookie)) return cookie;
  return negotiateLocale(acceptLanguage) ?? DEFAULT_LOCALE;
}

/** What `chooseLocale` weighs, most specific first. */
export interface LocaleChoice {
  /** `gateway.<platform>.locale`, when set; it wins over `gateway.locale`. */
  platformSetting?: LocaleSetting;
  /** `gateway.locale` (default `auto`). */
  setting?: LocaleSetting;
  /** The reader's language as the platform tells it (Telegram `language_code`, Discord `locale`). */
  reader?: string;
  /** The chat's language (a Discord guild's preferred locale), for posts without a reader. */
  chat?: string;
  /** The platform's default (Feishu: `zh-CN` on the `feishu` domain). */
  platformDefault?: Locale;
}

/**
 * The locale a reply is written in: a configured locale when one is set (the platform's own first);
 * with `auto`, the reader's language, else the chat's, else the platform's default, else English. A
 * language without a catalog falls through to the next.
 */
export function chooseLocale(choice: LocaleChoice): Locale {
  const setting = choice.platformSetting ?? choice.setting ?? "auto";
  if (setting !== "auto") return setting;
  return matchLocale(choice.reader) ?? matchLocale(choice.chat) ?? choice.platformDefault ?? DEFAULT_LOCALE;
}

/**
 * The locales a native command menu is registered in: `fallback` for every reader without a menu of
 * their own, `chinese` for Chinese readers (Telegram `language_code: "zh"`, Discord `zh-CN`) and
 * `traditional` for Traditional Chinese readers where the platform keys menus by region (Discord
 * `zh-TW`). With a configured locale all are that locale (so a Chinese menu registered earlier follows
 * the setting); with `auto`, the platform's default, Simplified and Traditional Chinese (Telegram keys a
 * menu by a two-letter language only, so its one Chinese menu serves Simplified and Traditional readers
 * alike).
 */
export function menuLocales(choice: Pick<LocaleChoice, "platformSetting" | "setting" | "platformDefault">): {
  fallback: Locale;
  chinese: Locale;
  traditional: Locale;
} {
  const setting = choice.platformSetting ?? choice.setting ?? "auto";
  if (setting !== "auto") return { fallback: setting, chinese: setting, traditional: setting };
  return { fallback: choice.platformDefault ?? DEFAULT_LOCALE, chinese: "zh-CN", traditional: "zh-TW" };
}
