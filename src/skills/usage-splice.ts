/**
 * One record of a `.usage.json` in whatever layout it has (hand-edited, minified, floats such as `1.0` or
 * `1e+20`, legacy records missing keys): its bytes are found by scanning the top-level object, only that
 * record is parsed, changed and written back in the file's own indentation, and every other byte stays as
 * it was. A bump then changes only the bumped record, as Hermes' own readers expect of a shared file.
 */

/** Where one top-level entry of a JSON object sits in the text. */
interface EntrySpan {
  key: string;
  keyStart: number;
  valueStart: number;
  valueEnd: number;
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);

function skipSpace(text: string, at: number): number {
  let pos = at;
  while (pos < text.length && WHITESPACE.has(text[pos] as string)) pos++;
  return pos;
}

/** End of the JSON string starting at `at` (a quote), just after its closing quote. */
function stringEnd(text: string, at: number): number {
  for (let pos = at + 1; pos < text.length; pos++) {
    const char = text[pos];
    if (char === "\\") pos++;
    else if (char === '"') return pos + 1;
  }
  return -1;
}

/** End of the JSON value starting at `at` (the text is known to be valid JSON). */
function valueEnd(text: string, at: number): number {
  const first = text[at];
  if (first === '"') return stringEnd(text, at);
  if (first !== "{" && first !== "[") {
    let pos = at;
    while (pos < text.length && !/[,\]}\s]/.test(text[pos] as string)) pos++;
    return pos;
  }
  let depth = 0;
  for (let pos = at; pos < text.length; pos++) {
    const char = text[pos];
    if (char === '"') {
      pos = stringEnd(text, pos) - 1;
      if (pos < 0) return -1;
    } else if (char === "{" || char === "[") depth++;
    else if (char === "}" || char === "]") {
      depth--;
      if (depth === 0) return pos + 1;
    }
  }
  return -1;
}

/** The entries of the top-level object of valid JSON `text` (starting at `open`, its `{`), or undefined. */
function topLevelEntries(text: string, open: number): { entries: EntrySpan[]; close: number } | undefined {
  const entries: EntrySpan[] = [];
  let pos = skipSpace(text, open + 1);
  if (text[pos] === "}") return { entries, close: pos };
  for (;;) {
    if (text[pos] !== '"') return undefined;
    const keyEnd = stringEnd(text, pos);
    if (keyEnd < 0) return undefined;
    const key = JSON.parse(text.slice(pos, keyEnd)) as string;
    const colon = skipSpace(text, keyEnd);
    if (text[colon] !== ":") return undefined;
    const valueStart = skipSpace(text, colon + 1);
    const end = valueEnd(text, valueStart);
    if (end < 0) return undefined;
    entries.push({ key, keyStart: pos, valueStart, valueEnd: end });
    pos = skipSpace(text, end);
    if (text[pos] === "}") return { entries, close: pos };
    if (text[pos] !== ",") return undefined;
    pos = skipSpace(text, pos + 1);
  }
}

/** JSON with keys sorted at every level, indented like the file (`indent` per level after `lead`). */
function serialize(value: unknown, indent: string, lead: string): string {
  const sorted = sortKeys(value);
  if (indent === "") return JSON.stringify(sorted);
  return JSON.stringify(sorted, null, indent).replaceAll("\n", `\n${lead}`);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    Object.defineProperty(out, key, {
      value: sortKeys((value as Record<string, unknown>)[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** The indentation of the line `at` is on (the spaces or tabs before it), and the line's start. */
function lineIndent(text: string, at: number): string {
  const start = text.lastIndexOf("\n", at - 1) + 1;
  const lead = text.slice(start, at);
  return /^[ \t]*$/.test(lead) ? lead : "";
}

/**
 * `text` (a `.usage.json` in any valid layout) with the record `name` replaced by `change(old)`, where
 * `old` is the record as stored (undefined when there is none: it is then inserted, in sorted place when
 * the names are sorted). Only that record's bytes change. Undefined when the text is not a JSON object.
 */
export function spliceUsageText(
  text: string,
  name: string,
  change: (record: Record<string, unknown> | undefined) => Record<string, unknown>,
): string | undefined {
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  try {
    const parsed: unknown = JSON.parse(text.slice(bom));
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return undefined;
  } catch {
    return undefined;
  }
  const open = skipSpace(text, bom);
  const found = topLevelEntries(text, open);
  if (!found) return undefined;
  const { entries, close } = found;
  // The last duplicate is the one JSON readers keep.
  const entry = entries.filter((item) => item.key === name).at(-1);
  if (entry) {
    const old = JSON.parse(text.slice(entry.valueStart, entry.valueEnd)) as unknown;
    const record = old !== null && typeof old === "object" && !Array.isArray(old) ? old : undefined;
    const lead = lineIndent(text, entry.keyStart);
    const unit = entries.length > 0 && text.slice(open, entry.keyStart).includes("\n") ? lead || "  " : "";
    const replacement = serialize(change(record as Record<string, unknown> | undefined), unit, lead);
    return text.slice(0, entry.valueStart) + replacement + text.slice(entry.valueEnd);
  }
  const first = entries[0];
  const multiline = first ? text.slice(open, first.keyStart).includes("\n") : true;
  const lead = first ? lineIndent(text, first.keyStart) : "  ";
  const unit = multiline ? lead || "  " : "";
  const item = `${JSON.stringify(name)}: ${serialize(change(undefined), unit, lead)}`;
  if (!first) return `${text.slice(0, open)}{\n  ${item}\n}${text.slice(close + 1)}`;
  const separator = multiline ? `,\n${lead}` : ", ";
  const sorted = entries.every(
    (one, index) => index === 0 || (entries[index - 1] as EntrySpan).key < one.key,
  );
  const after = sorted ? entries.find((one) => one.key > name) : undefined;
  if (after) return text.slice(0, after.keyStart) + item + separator + text.slice(after.keyStart);
  const last = entries[entries.length - 1] as EntrySpan;
  return text.slice(0, last.valueEnd) + separator + item + text.slice(last.valueEnd);
}
