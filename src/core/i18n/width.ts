/**
 * Display width for fixed-width layout (terminal tables, aligned code blocks): East Asian wide and
 * full-width characters (CJK ideographs, kana, Hangul, full-width forms, most emoji) take two columns,
 * combining marks and zero-width characters none, everything else one (Unicode UAX #11).
 */

const ZERO_WIDTH = /\p{Mn}|\p{Me}|[\u200B-\u200F]|\u2060|[\uFE00-\uFE0F]/u;
const EMOJI = /\p{Extended_Pictographic}/u;

/** Columns one code point takes: 0, 1 or 2. */
export function codePointWidth(codePoint: number): number {
  if (codePoint === 0 || codePoint < 32 || (codePoint >= 0x7f && codePoint < 0xa0)) return 0;
  const char = String.fromCodePoint(codePoint);
  if (ZERO_WIDTH.test(char)) return 0;
  if (isWide(codePoint)) return 2;
  if (codePoint >= 0x1f000 && EMOJI.test(char)) return 2;
  return 1;
}

/** The wide (W) and full-width (F) ranges of East Asian Width that matter for text. */
function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) || // Hangul Jamo initials
    (cp >= 0x2e80 && cp <= 0x303e) || // CJK radicals, Kangxi, CJK symbols and punctuation
    (cp >= 0x3041 && cp <= 0x33ff) || // Hiragana, Katakana, Bopomofo, CJK compatibility
    (cp >= 0x3400 && cp <= 0x4dbf) || // CJK Extension A
    (cp >= 0x4e00 && cp <= 0x9fff) || // CJK Unified Ideographs
    (cp >= 0xa000 && cp <= 0xa4cf) || // Yi
    (cp >= 0xac00 && cp <= 0xd7a3) || // Hangul syllables
    (cp >= 0xf900 && cp <= 0xfaff) || // CJK compatibility ideographs
    (cp >= 0xfe10 && cp <= 0xfe19) || // vertical forms
    (cp >= 0xfe30 && cp <= 0xfe6f) || // CJK compatibility forms, small forms
    (cp >= 0xff00 && cp <= 0xff60) || // full-width forms
    (cp >= 0xffe0 && cp <= 0xffe6) || // full-width signs
    (cp >= 0x20000 && cp <= 0x3fffd) // CJK Extensions B and beyond
  );
}

/** Columns `text` takes on a terminal (the widest line when it has several). */
export function displayWidth(text: string): number {
  let widest = 0;
  let width = 0;
  for (const char of text) {
    if (char === "\n") {
      widest = Math.max(widest, width);
      width = 0;
      continue;
    }
    width += codePointWidth(char.codePointAt(0) ?? 0);
  }
  return Math.max(widest, width);
}

/** `text` padded with spaces on the right to `width` columns (unchanged when already as wide). */
export function padEndWidth(text: string, width: number): string {
  const missing = width - displayWidth(text);
  return missing > 0 ? text + " ".repeat(missing) : text;
}

/** `text` padded with spaces on the left to `width` columns. */
export function padStartWidth(text: string, width: number): string {
  const missing = width - displayWidth(text);
  return missing > 0 ? " ".repeat(missing) + text : text;
}
