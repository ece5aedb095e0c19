/**
 * Messages: a catalog key with named parameters, resolved for a reader's locale only when a renderer
 * shows it. Commands and the core build `Text` — a plain string (data: names, paths, file content) or a
 * `Message` from `t(key, params)` — and never assemble sentences themselves. Parameters are strings,
 * numbers (quantities, formatted with `Intl.NumberFormat`; pass identifiers such as a pid as strings),
 * nested messages, and the formatted values below (relative times, lists, padded columns, fixed
 * decimals, byte sizes), all plain data so a reply can be stored and resolved later.
 */
import { calendarDaysAgo, formatDateTime, formatElapsed, toMillis } from "./dates.js";
import { en } from "./en.js";
import type { CatalogEntry, EntryParams, PluralForms } from "./entries.js";
import { menuTextsZhTW } from "./generated/menu.zh-TW.js";
import { DEFAULT_LOCALE, isTraditional, type Locale } from "./locale.js";
import { deriveTraditional } from "./traditional.js";
import { padEndWidth, padStartWidth } from "./width.js";
import { zhCN } from "./zh-CN.js";

/** Every message key (English is the reference catalog). */
export type MessageKey = keyof typeof en;

/** A value shown through `Intl` or laid out for the reader's locale when resolved. */
export type Formatted =
  /** How long ago, from seconds: `42s ago`, `3天前` (narrow relative time; s, m, h or d). */
  | { readonly fmt: "ago"; readonly seconds: number }
  /** Items joined as a list (`a, b, c`; `a、b、c`). */
  | { readonly fmt: "list"; readonly items: readonly ParamValue[] }
  /** A value padded to a display width (CJK counts two columns), for aligned columns. */
  | {
      readonly fmt: "pad";
      readonly value: ParamValue;
      readonly width: number;
      readonly align: "start" | "end";
    }
  /** A number with a fixed count of decimals (`1.5`), grouped in thousands when `grouped`. */
  | { readonly fmt: "num"; readonly value: number; readonly digits: number; readonly grouped: boolean }
  /** Texts laid out one after another with a separator (lines of a block: `"\n"`), never a sentence. */
  | { readonly fmt: "join"; readonly items: readonly ParamValue[]; readonly separator: string }
  /**
   * A system error's own text (`ENOENT: no such file or directory, open '…'`): shown as it is in
   * English, and in another locale as the catalog's words for its `code` (`os.<code>`) with where it
   * happened (a path, a line), or as it is when the catalog has no words for the code (see `errorCause`
   * in `core/errors.ts`).
   */
  | { readonly fmt: "cause"; readonly message: string; readonly code?: string; readonly where?: string }
  /** A moment in the display zone with the zone named, the year when not this year (`dates.ts`). */
  | { readonly fmt: "when"; readonly at: number; readonly timeZone: string; readonly now: number }
  /** A day relative to today in the display zone: today, yesterday, 3 days ago (`dates.ts`). */
  | { readonly fmt: "day"; readonly at: number; readonly timeZone: string; readonly now: number };

/** What can fill a parameter. */
export type ParamValue = string | number | Message | Formatted;

/** Text as the reply model carries it: a plain string, a message, or a formatted value. */
export type Text = string | Message | Formatted;

/** A message: a key and its parameters. Plain data (it survives JSON). */
export interface Message {
  readonly key: MessageKey;
  readonly params?: Readonly<Record<string, ParamValue>>;
}

/** The parameters a key takes: `count` is a number for plural messages, the rest any `ParamValue`. */
export type MessageParams<K extends MessageKey> = {
  readonly [P in EntryParams<(typeof en)[K]>]: P extends "count" ? number : ParamValue;
};

type ParamArgs<K extends MessageKey> = [EntryParams<(typeof en)[K]>] extends [never]
  ? []
  : [MessageParams<K>];

/** A message for `key` with its parameters (the compiler checks their names against the catalog). */
export function t<K extends MessageKey>(key: K, ...params: ParamArgs<K>): Message {
  const [values] = params;
  return values === undefined ? { key } : { key, params: values as Record<string, ParamValue> };
}

/** How long ago something happened, from elapsed seconds. */
export function ago(seconds: number): Formatted {
  return { fmt: "ago", seconds: Math.max(0, Math.floor(seconds)) };
}

/**
 * A moment (ISO time, Date or ms) as the reader reads it in `timeZone` (see `displayTimeZone`); an
 * unparseable value is shown as it is.
 */
export function when(at: string | number | Date, timeZone: string, now: Date | number = Date.now()): Text {
  const ms = toMillis(at);
  if (ms === undefined) return String(at);
  return { fmt: "when", at: ms, timeZone, now: toMillis(now) ?? Date.now() };
}

/** The day of a moment relative to `now` in `timeZone`: today, yesterday, 3 days ago. */
export function dayOf(at: string | number | Date, timeZone: string, now: Date | number = Date.now()): Text {
  const ms = toMillis(at);
  if (ms === undefined) return String(at);
  return { fmt: "day", at: ms, timeZone, now: toMillis(now) ?? Date.now() };
}

/** A comma list of items in the reader's locale. */
export function list(items: readonly ParamValue[]): Formatted {
  return { fmt: "list", items: [...items] };
}

/** `value` padded on the right (or, with `align: "start"`, on the left) to `width` display columns. */
export function pad(value: ParamValue, width: number, align: "start" | "end" = "end"): Formatted {
  return { fmt: "pad", value, width, align };
}

/** Texts as lines of one block (each item its own line or lines). */
export function lines(items: readonly ParamValue[]): Formatted {
  return { fmt: "join", items: [...items], separator: "\n" };
}

/** Texts laid out with `separator` between them (columns of a line, data items): layout, not prose. */
export function join(items: readonly ParamValue[], separator: string): Formatted {
  return { fmt: "join", items: [...items], separator };
}

/** Warnings kept twice: in English (`--json`, files, logs, the console's data) and as texts for a reader. */
export interface WarningLists {
  readonly warnings: string[];
  readonly warningTexts: Text[];
}

/** Adds `text` to both lists of `target`. */
export function addWarning(target: WarningLists, text: Text): void {
  target.warnings.push(english(text));
  target.warningTexts.push(text);
}

/**
 * An error's own English `message`, shown as it is in English and, in another locale, as the catalog's
 * words for `code` (`os.<code>`) with `where` it happened, when the catalog has them.
 */
export function cause(message: string, code?: string, where?: string): Formatted {
  return {
    fmt: "cause",
    message,
    ...(code === undefined ? {} : { code }),
    ...(where === undefined ? {} : { where }),
  };
}

/** A number with `digits` decimals. */
export function fixed(value: number, digits: number, grouped = false): Formatted {
  return { fmt: "num", value, digits, grouped };
}

/** A whole number grouped in thousands (`12,345`). */
export function grouped(value: number): Formatted {
  return { fmt: "num", value, digits: 0, grouped: true };
}

type Catalog = Readonly<Record<string, CatalogEntry>>;

/** The catalogs by locale; a Traditional one is added when a reader first needs it (`catalogOf`). */
const CATALOGS: Partial<Record<Locale, Catalog>> = { en, "zh-CN": zhCN };

/** The catalog of `locale`, deriving a Traditional Chinese one from Simplified on first use. */
function catalogOf(locale: Locale): Catalog {
  let catalog = CATALOGS[locale];
  if (!catalog) {
    catalog = isTraditional(locale) ? deriveTraditional(zhCN, locale) : en;
    CATALOGS[locale] = catalog;
  }
  return catalog;
}

/**
 * Entries of a Traditional catalog converted ahead of time (`npm run i18n:traditional`): the texts of
 * the native command menus, which are registered at every start and must not start the converter.
 */
const PRECONVERTED: Partial<Record<Locale, Catalog>> = { "zh-TW": menuTextsZhTW };

/**
 * The entry of `key` in `locale`: from its catalog when that is in memory, else from the entries
 * converted ahead of time, else from the catalog (deriving a Traditional one on first use).
 */
function entryOf(key: MessageKey, locale: Locale): CatalogEntry {
  const preconverted = CATALOGS[locale] ? undefined : PRECONVERTED[locale]?.[key];
  return preconverted ?? catalogOf(locale)[key] ?? en[key];
}

/** True when the catalog of `locale` is in memory (a Traditional one is once a reader has needed it). */
export function isCatalogLoaded(locale: Locale): boolean {
  return CATALOGS[locale] !== undefined;
}

/** True when `value` is a message (not a string or a formatted value). */
export function isMessage(value: unknown): value is Message {
  return typeof value === "object" && value !== null && typeof (value as Message).key === "string";
}

/** True when every entry of `key` exists in English (catalog keys may come from stored data). */
export function isMessageKey(key: string): key is MessageKey {
  return Object.hasOwn(en, key);
}

const formatters = new Map<string, Intl.NumberFormat | Intl.ListFormat>();

function cached<F extends Intl.NumberFormat | Intl.ListFormat>(id: string, make: () => F): F {
  let formatter = formatters.get(id) as F | undefined;
  if (!formatter) {
    formatter = make();
    formatters.set(id, formatter);
  }
  return formatter;
}

/*
 * The first `Intl` formatter a process builds maps ICU's locale data: ~6 MB of resident memory, which a
 * one-shot command (`skills view`) otherwise spends on a count or a list of tags. The common cases below
 * give the same strings as `Intl` without it (test/i18n/intl-shortcuts.test.ts compares them); everything
 * else goes through `Intl`.
 */

/** A count in English: CLDR's `one` for ±1 (whole numbers), `other` for every other whole number. */
function englishPluralOfInteger(count: number): "one" | "other" | undefined {
  if (!Number.isInteger(count)) return undefined;
  return count === 1 || count === -1 ? "one" : "other";
}

/** A whole number as the default number format writes it in every catalog's locale (Latin digits). */
function plainInteger(value: number, digits: number | undefined, grouping: boolean): string | undefined {
  if (grouping || digits !== undefined || !Number.isSafeInteger(value) || Object.is(value, -0))
    return undefined;
  return String(value);
}

const pluralRules = new Map<Locale, Intl.PluralRules>();

function pluralForm(forms: PluralForms, count: number, locale: Locale): string {
  const english = locale === "en" ? englishPluralOfInteger(count) : undefined;
  if (english) return forms[english] ?? forms.other;
  let rules = pluralRules.get(locale);
  if (!rules) {
    rules = new Intl.PluralRules(locale);
    pluralRules.set(locale, rules);
  }
  const form = rules.select(count) as keyof PluralForms;
  return forms[form] ?? forms.other;
}

function formatNumber(value: number, locale: Locale, digits?: number, grouping = false): string {
  const plain = plainInteger(value, digits, grouping);
  if (plain !== undefined) return plain;
  const formatter = cached(
    `n:${locale}:${digits ?? "-"}:${grouping}`,
    () =>
      new Intl.NumberFormat(locale, {
        useGrouping: grouping,
        ...(digits === undefined
          ? { maximumFractionDigits: 3 }
          : { minimumFractionDigits: digits, maximumFractionDigits: digits }),
      }),
  );
  return formatter.format(value);
}

function formatList(items: readonly ParamValue[], locale: Locale): string {
  // English's narrow conjunction puts ", " between every two items.
  if (locale === "en") return items.map((item) => resolveParam(item, locale)).join(", ");
  const formatter = cached(
    `l:${locale}`,
    () => new Intl.ListFormat(locale, { type: "conjunction", style: "narrow" }),
  );
  return formatter.format(items.map((item) => resolveParam(item, locale)));
}

function resolveParam(value: ParamValue, locale: Locale): string {
  if (typeof value === "string") return value;
  if (typeof value === "number") return formatNumber(value, locale);
  if (isMessage(value)) return resolveMessage(value, locale);
  switch (value.fmt) {
    case "ago":
      return formatElapsed(value.seconds, locale);
    case "list":
      return formatList(value.items, locale);
    case "pad": {
      const text = resolveParam(value.value, locale);
      return value.align === "start" ? padStartWidth(text, value.width) : padEndWidth(text, value.width);
    }
    case "num":
      return formatNumber(value.value, locale, value.digits, value.grouped);
    case "join":
      return value.items.map((item) => resolveParam(item, locale)).join(value.separator);
    case "cause":
      return formatCause(value, locale);
    case "when":
      return formatDateTime(value.at, locale, value.timeZone, value.now);
    case "day": {
      const days = calendarDaysAgo(value.at, value.timeZone, value.now);
      const key = days === 0 ? "date.today" : days === 1 ? "date.yesterday" : "date.daysAgo";
      return resolveMessage({ key, params: { days } }, locale);
    }
  }
}

/** A system error in `locale`: its own English text, or the catalog's words for its code. */
function formatCause(value: { message: string; code?: string; where?: string }, locale: Locale): string {
  const key = `os.${value.code ?? ""}`;
  if (locale === DEFAULT_LOCALE || value.code === undefined || !isMessageKey(key)) return value.message;
  const what = resolveMessage({ key }, locale);
  return value.where === undefined
    ? resolveMessage({ key: "os.cause", params: { what, code: value.code } }, locale)
    : resolveMessage({ key: "os.causeAt", params: { what, code: value.code, where: value.where } }, locale);
}

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function resolveMessage(message: Message, locale: Locale): string {
  const entry = entryOf(message.key, locale);
  const params = message.params ?? {};
  const template = typeof entry === "string" ? entry : pluralForm(entry, Number(params.count ?? 0), locale);
  return template.replace(PLACEHOLDER, (whole, name: string) => {
    const value = params[name];
    return value === undefined ? whole : resolveParam(value, locale);
  });
}

/** The text in `locale` (English when not given). */
export function resolveText(text: Text, locale: Locale = DEFAULT_LOCALE): string {
  return resolveParam(text, locale);
}

/**
 * A message as HTML: its parameters and template escaped with `escapeText`, except the `markup` ones,
 * which are put in as given (HTML the caller built and escaped itself, such as a link or a `<code>`
 * span), through private-use marks no catalog text contains.
 */
export function resolveHtml(
  message: Message,
  locale: Locale,
  escapeText: (text: string) => string,
  markup: Readonly<Record<string, string>> = {},
): string {
  const marks = Object.keys(markup);
  const params: Record<string, ParamValue> = { ...message.params };
  marks.forEach((name, index) => {
    params[name] = `\uE000${index}\uE001`;
  });
  const text = escapeText(resolveMessage({ key: message.key, params }, locale));
  return text.replace(
    /\uE000(\d+)\uE001/g,
    (_whole, index: string) => markup[marks[Number(index)] ?? ""] ?? "",
  );
}

/** The English text: what logs, `--json` documents and error messages carry. */
export function english(text: Text): string {
  return resolveParam(text, DEFAULT_LOCALE);
}

/**
 * The message among `keys` whose English, with its parameters filled by plain strings, is exactly
 * `text` (a stored English sentence read back into its message); undefined when none is. Parameters
 * match as few characters as they can; one that appears twice must read the same both times.
 */
export function messageFromEnglish(keys: readonly MessageKey[], text: string): Message | undefined {
  for (const key of keys) {
    const template = en[key];
    if (typeof template !== "string") continue;
    const names: string[] = [];
    const source = template
      .split(PLACEHOLDER)
      .map((piece, index) => {
        if (index % 2 === 0) return piece.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        if (names.includes(piece)) return `\\k<${piece}>`;
        names.push(piece);
        return `(?<${piece}>.+?)`;
      })
      .join("");
    const match = new RegExp(`^${source}$`, "s").exec(text);
    if (!match) continue;
    return names.length === 0 ? { key } : { key, params: { ...match.groups } };
  }
  return undefined;
}

/** The template of `key` in `locale`, unresolved (tests and the glossary check read catalogs). */
export function catalogEntry(key: MessageKey, locale: Locale): CatalogEntry {
  return catalogOf(locale)[key] ?? en[key];
}

/** Every key of the reference catalog. */
export function messageKeys(): MessageKey[] {
  return Object.keys(en) as MessageKey[];
}
