/**
 * Traditional Chinese catalogs, derived from the Simplified Chinese one by OpenCC (`opencc-js`), never
 * kept by hand: `zh-TW` with OpenCC's Taiwan standard and its phrases (`cn` → `twp`: 设置 → 設定,
 * 文件 → 檔案), `zh-HK` with Hong Kong's standard characters (`cn` → `hk`). A catalog is derived on the
 * first message a Traditional reader gets, then kept; the converter (its dictionaries take tens of
 * megabytes) is loaded for that and dropped, so a process without Traditional readers never loads it.
 * Placeholders (`{name}`) and code spans (`` `/skill 周报` ``: commands, names, paths) pass unchanged;
 * only the text around them is converted.
 */
import { createRequire } from "node:module";
import type { CatalogEntry } from "./entries.js";
import type { TraditionalLocale } from "./locale.js";

/** A text converter. */
type ConverterFunction = (text: string) => string;

/** Which of OpenCC's conversions: the text's variant (`cn`) and the reader's (`twp`, `hk`). */
interface ConverterOptions {
  readonly from: string;
  readonly to: string;
}

/**
 * What skillgate uses of `opencc-js/cn2t` (declared here: the package's own declarations import
 * `./core` without an extension, which NodeNext resolution does not follow, so they read as `any`).
 */
interface OpenCC {
  Converter(options: ConverterOptions): ConverterFunction;
  CustomConverter(dict: readonly (readonly [string, string])[]): ConverterFunction;
}

/** OpenCC's conversion for each Traditional locale, from Simplified Chinese (`cn`). */
const CONVERSIONS: Readonly<Record<TraditionalLocale, ConverterOptions>> = {
  "zh-TW": { from: "cn", to: "twp" },
  "zh-HK": { from: "cn", to: "hk" },
};

/**
 * Phrases OpenCC's dictionaries read otherwise than the catalogs mean them, applied after its
 * conversion: "30 天后" is "30 days later" (天後), not the sea goddess 天后 its phrase table keeps; the
 * catalogs' 发布 is to post or publish (a summary, an app), which Taiwan writes 發布, not a software
 * release (釋出, Taiwan's phrase for 发布).
 */
const CORRECTIONS: readonly (readonly [string, string])[] = [
  ["天后", "天後"],
  ["釋出", "發布"],
];

/** A placeholder or a code span: the pieces of a template that are never converted. */
const LITERAL = /(\{[A-Za-z_][A-Za-z0-9_]*\}|`[^`\n]*`)/;

/** `template` converted by `convert`, its placeholders and code spans left as they are. */
function convertTemplate(template: string, convert: ConverterFunction): string {
  return template
    .split(LITERAL)
    .map((piece, index) => (index % 2 === 1 ? piece : convert(piece)))
    .join("");
}

/** `entry` (a template or plural forms) converted by `convert`. */
function convertEntry(entry: CatalogEntry, convert: ConverterFunction): CatalogEntry {
  if (typeof entry === "string") return convertTemplate(entry, convert);
  const forms: Record<string, string> = {};
  for (const [form, template] of Object.entries(entry)) forms[form] = convertTemplate(template, convert);
  return { ...forms, other: convertTemplate(entry.other, convert) };
}

/** OpenCC's converter for `locale`, loaded on the first call (the dictionaries are large). */
function converterFor(locale: TraditionalLocale): ConverterFunction {
  const opencc = createRequire(import.meta.url)("opencc-js/cn2t") as OpenCC;
  const convert = opencc.Converter(CONVERSIONS[locale]);
  const correct = opencc.CustomConverter(CORRECTIONS);
  return (text) => correct(convert(text));
}

/** The catalog of `locale`: every entry of the Simplified Chinese `source` converted to Traditional. */
export function deriveTraditional(
  source: Readonly<Record<string, CatalogEntry>>,
  locale: TraditionalLocale,
): Record<string, CatalogEntry> {
  const convert = converterFor(locale);
  return Object.fromEntries(
    Object.entries(source).map(([key, entry]) => [key, convertEntry(entry, convert)]),
  );
}
