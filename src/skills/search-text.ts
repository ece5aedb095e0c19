/**
 * The text side of skill search: cutting text into index words (`Intl.Segmenter` with Chinese
 * two-character pieces, English stop words out and a light stemmer), the edit distance and trigrams that
 * match names with typos, a SKILL.md's headings, and the list fields Hermes keeps under
 * `metadata.hermes`.
 */
import { readFileSync } from "node:fs";
import { parseListField } from "./frontmatter.js";

/** Bytes of SKILL.md read for its headings. */
const HEADING_BYTES = 16_384;

const ENGLISH_STOPWORDS = new Set(
  (
    "a an and are as at be but by for from how i in into is it its of on or so that the their then " +
    "these this to use used using when with without you your we our can do does what which who"
  ).split(" "),
);
const CHINESE_STOPWORDS = new Set(
  "的 了 和 与 及 在 将 到 把 并 或 是 用 对 为 从 给 让 被 就 也 都 而 等 个 一 这 那 我 你 他 吗 呢 啊 如何 怎么 怎样 什么 一下 帮 帮我 请".split(
    " ",
  ),
);

/**
 * The word segmenter, made on first use: ICU's word-break data is mapped from the node binary as it is
 * touched (~1 MB of resident memory), which a process that never searches does not pay.
 */
let segmenter: Intl.Segmenter | undefined;
/** A Han (Chinese) character. */
export const HAN = /\p{Script=Han}/u;
const LATIN_WORD = /^[a-z0-9]+$/;

/** A light English stemmer: enough that "deploys", "deploying" and "deployed" meet "deploy". */
function stem(word: string): string {
  if (!LATIN_WORD.test(word) || word.length < 4) return word;
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith("ing") && word.length > 5) return word.slice(0, -3);
  if (word.endsWith("ed") && word.length > 4) return word.slice(0, -2);
  if (word.endsWith("es") && /(?:ss|x|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("s") && !word.endsWith("ss") && !word.endsWith("us")) return word.slice(0, -1);
  return word;
}

/** Word-break classes of ASCII characters (Unicode's UAX #29, as ICU's word segmenter applies them). */
const OTHER = 0;
const LETTER = 1;
const DIGIT = 2;
/** `_`, which joins whatever letters and digits are beside it. */
const CONNECTOR = 3;
/** `:`, between two letters. */
const MID_LETTER = 4;
/** `.` and `'`, between two letters or two digits. */
const MID_EITHER = 5;
/** `,` and `;`, between two digits. */
const MID_DIGIT = 6;

const ASCII_CLASS = new Uint8Array(128).fill(OTHER);
for (let code = 0; code < 128; code++) {
  const char = String.fromCharCode(code);
  if (/[a-z]/i.test(char)) ASCII_CLASS[code] = LETTER;
  else if (/[0-9]/.test(char)) ASCII_CLASS[code] = DIGIT;
}
ASCII_CLASS["_".charCodeAt(0)] = CONNECTOR;
ASCII_CLASS[":".charCodeAt(0)] = MID_LETTER;
for (const char of ".'") ASCII_CLASS[char.charCodeAt(0)] = MID_EITHER;
for (const char of ",;") ASCII_CLASS[char.charCodeAt(0)] = MID_DIGIT;

function isAscii(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 127) return false;
  return true;
}

const isWordChar = (kind: number | undefined) => kind === LETTER || kind === DIGIT || kind === CONNECTOR;

/**
 * The word-like segments of an ASCII `text` that hold a letter or digit, as `Intl.Segmenter`'s word
 * granularity gives them (letters, digits and `_` run together; `:` joins two letters, `.` and `'` two
 * letters or two digits, `,` and `;` two digits), about a hundred times faster than the segmenter: a
 * 10k library's first search index took ~1 s of segmenting. `test/skills/search-text.test.ts` holds it
 * to the segmenter.
 */
export function asciiWordSegments(text: string): string[] {
  const segments: string[] = [];
  let index = 0;
  while (index < text.length) {
    if (!isWordChar(ASCII_CLASS[text.charCodeAt(index)])) {
      index += 1;
      continue;
    }
    const start = index;
    index += 1;
    while (index < text.length) {
      const here = ASCII_CLASS[text.charCodeAt(index)];
      if (isWordChar(here)) {
        index += 1;
        continue;
      }
      const before = ASCII_CLASS[text.charCodeAt(index - 1)];
      const after = index + 1 < text.length ? ASCII_CLASS[text.charCodeAt(index + 1)] : OTHER;
      const joinsLetters =
        before === LETTER && after === LETTER && (here === MID_LETTER || here === MID_EITHER);
      const joinsDigits = before === DIGIT && after === DIGIT && (here === MID_DIGIT || here === MID_EITHER);
      if (!joinsLetters && !joinsDigits) break;
      index += 2;
    }
    const segment = text.slice(start, index);
    // Underscores alone hold no word (the segmenter calls `__` one, `_` none).
    if (!/^_+$/.test(segment)) segments.push(segment);
  }
  return segments;
}

/** The word-like segments of `text`, lowercased (and NFKC-normalized). */
function wordSegments(text: string): string[] {
  // NFKC leaves ASCII as it is.
  if (isAscii(text)) return asciiWordSegments(text.toLowerCase());
  segmenter ??= new Intl.Segmenter("zh", { granularity: "word" });
  const segments: string[] = [];
  for (const piece of segmenter.segment(text.normalize("NFKC").toLowerCase()))
    if (piece.isWordLike) segments.push(piece.segment);
  return segments;
}

/** The index words of `text` (lowercased, segmented, stop words out, stemmed; Chinese bigrams added). */
export function tokenize(text: string): string[] {
  const words: string[] = [];
  for (const segment of wordSegments(text)) {
    // The segmenter keeps `a_b` and `v1.2` together: split them like hyphens.
    for (const part of segment.split(/[_.]+/)) {
      if (part === "") continue;
      if (HAN.test(part)) {
        if (CHINESE_STOPWORDS.has(part)) continue;
        words.push(part);
        if (part.length >= 3)
          for (let at = 0; at + 2 <= part.length; at++) words.push(part.slice(at, at + 2));
      } else if (!ENGLISH_STOPWORDS.has(part)) {
        words.push(stem(part));
      }
    }
  }
  return words;
}

/** Damerau–Levenshtein distance (adjacent swaps count one), stopping early above `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prevPrev: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(
        (prev[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (prev[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, (prevPrev[j - 2] as number) + 1);
      row.push(value);
      if (value < best) best = value;
    }
    if (best > max) return max + 1;
    prevPrev = prev;
    prev = row;
  }
  return prev[b.length] as number;
}

/** The trigrams of a word padded with `^` and `$`, for matching names with typos. */
export function trigrams(word: string): string[] {
  const padded = `^${word}$`;
  const grams: string[] = [];
  for (let at = 0; at + 3 <= padded.length; at++) grams.push(padded.slice(at, at + 3));
  return grams;
}

/** `tags` or `related_skills` of a frontmatter (top level or under `metadata.hermes`). */
export function hermesList(frontmatter: Record<string, unknown>, key: string): string[] {
  const metadata = frontmatter.metadata as { hermes?: Record<string, unknown> } | undefined;
  const hermes = metadata && typeof metadata === "object" ? metadata.hermes : undefined;
  const value =
    hermes && typeof hermes === "object" && hermes[key] !== undefined ? hermes[key] : frontmatter[key];
  return parseListField(value);
}

/** The Markdown headings of a SKILL.md's first bytes (outside fenced code), without their `#`s. */
export function headingsOf(file: string): string {
  let text: string;
  try {
    const buffer = readFileSync(file);
    text = buffer.subarray(0, HEADING_BYTES).toString("utf8");
  } catch {
    return "";
  }
  const found: string[] = [];
  let fenced = false;
  for (const line of text.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced && /^#{1,6}\s/.test(line)) found.push(line.replace(/^#+\s*/, ""));
  }
  return found.join("\n");
}

/** `text` folded for exact-name matching: NFKC, lowercase, separators as single spaces. */
export function plain(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\s_\-./]+/g, " ")
    .trim();
}
