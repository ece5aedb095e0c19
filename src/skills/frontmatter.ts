/**
 * SKILL.md frontmatter, as Hermes reads it: the file must start with `---`; the block closes at the first
 * `\n---<whitespace>\n`; the block is YAML (a non-mapping counts as empty), and when the YAML does not
 * parse, every `key: value` line becomes a string pair instead.
 *
 * Listing reads thousands of files, and a full YAML parse costs ~80 µs each, so the common subset
 * (plain `key: value` lines, nested mappings, block and flow lists of simple scalars) is parsed by a
 * small exact parser; anything it is not sure about goes to the `yaml` package.
 */
import { YAML } from "../core/yaml.js";

/** The result of `parseSkillMd`. */
export interface ParsedSkillMd {
  /** The frontmatter mapping (empty when absent, not a mapping, or blank). */
  frontmatter: Record<string, unknown>;
  /** Everything after the closing `---` line (the whole text when there is no frontmatter). */
  body: string;
  /** Set when the YAML did not parse and the line fallback was used. */
  error?: string;
}

const CLOSING = /\n---\s*\n/;

/** Splits and parses a SKILL.md text. Never throws. */
export function parseSkillMd(text: string): ParsedSkillMd {
  if (!text.startsWith("---")) return { frontmatter: {}, body: text };
  const rest = text.slice(3);
  const match = CLOSING.exec(rest);
  if (!match) return { frontmatter: {}, body: text };
  const block = rest.slice(0, match.index);
  const body = rest.slice(match.index + match[0].length);
  const { frontmatter, error } = parseFrontmatterBlock(block);
  return error === undefined ? { frontmatter, body } : { frontmatter, body, error };
}

/** Parses the YAML between the `---` lines, with the per-line fallback on a YAML error. */
export function parseFrontmatterBlock(block: string): {
  frontmatter: Record<string, unknown>;
  error?: string;
} {
  const fast = parseSimpleYaml(block);
  if (fast !== undefined) return { frontmatter: fast };
  let document: unknown;
  try {
    document = YAML.parse(block, { logLevel: "error" });
  } catch (error) {
    return { frontmatter: lineFallback(block), error: firstLine(error) };
  }
  return { frontmatter: isMapping(document) ? document : {} };
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n")[0] ?? message;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Hermes' fallback: each line with a `:` becomes `key → value`, both trimmed, split on the first `:`. */
function lineFallback(block: string): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const line of block.split("\n")) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    result[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return result;
}

// ---------------------------------------------------------------------------------------------------
// The exact subset parser. It returns undefined whenever the input leaves the subset, so its answers are
// always the ones the `yaml` package (YAML 1.2 core schema) would give.

/** Thrown inside the subset parser to give up and defer to the full YAML parser. */
class Unsupported extends Error {}

const UNSUPPORTED = new Unsupported();
const RESERVED_KEYS = /^(?:true|false|null|yes|no|on|off|y|n)$/i;
const INT = /^[-+]?[0-9]+$/;
const OCTAL = /^0o[0-7]+$/;
const HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const INF = /^[-+]?\.(?:inf|Inf|INF)$/;
const NAN = /^\.(?:nan|NaN|NAN)$/;
const NULLS = new Set(["~", "null", "Null", "NULL"]);
const TRUE = new Set(["true", "True", "TRUE"]);
const FALSE = new Set(["false", "False", "FALSE"]);
// Characters a plain scalar may not start with (YAML indicators), plus a few we simply do not handle.
const BAD_START = new Set([..."-?:,[]{}#&*!|>'\"%@`"]);

// Whitespace other than plain spaces and newlines (tabs, CR, Unicode spaces) is left to the full parser,
// so trimming here and YAML's own whitespace rules never disagree.
const UNUSUAL_SPACE = /[\t\r\f\v\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;

/** The significant lines of a block: text without indentation, and the indentation. */
interface Lines {
  texts: string[];
  indents: number[];
}

function isKeyStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

function isKeyChar(code: number): boolean {
  return isKeyStart(code) || (code >= 48 && code <= 57) || code === 45;
}

/**
 * Splits `key: value` / `key:`; returns the key and the trimmed value ("" when none), or undefined when
 * the line is not a simple key line.
 */
function keyLine(text: string): [string, string] | undefined {
  if (!isKeyStart(text.charCodeAt(0))) return undefined;
  let index = 1;
  while (index < text.length && isKeyChar(text.charCodeAt(index))) index += 1;
  if (text.charCodeAt(index) !== 58 /* : */) return undefined;
  const key = text.slice(0, index);
  if (index + 1 === text.length) return [key, ""];
  if (text.charCodeAt(index + 1) !== 32) return undefined;
  return [key, text.slice(index + 2).trim()];
}

/** Parses `block` if it is in the supported subset; undefined otherwise. Exposed for tests. */
export function parseSimpleYaml(block: string): Record<string, unknown> | undefined {
  if (UNUSUAL_SPACE.test(block)) return undefined;
  const lines: Lines = { texts: [], indents: [] };
  let start = 0;
  while (start <= block.length) {
    let end = block.indexOf("\n", start);
    if (end < 0) end = block.length;
    let first = start;
    while (first < end && block.charCodeAt(first) === 32) first += 1;
    let last = end;
    while (last > first && block.charCodeAt(last - 1) === 32) last -= 1;
    if (last > first && block.charCodeAt(first) !== 35 /* # */) {
      lines.texts.push(block.slice(first, last));
      lines.indents.push(first - start);
    }
    start = end + 1;
  }
  if (lines.texts.length === 0) return {};
  if (lines.indents[0] !== 0) return undefined;
  try {
    const cursor = { index: 0 };
    const result = parseMapping(lines, cursor, 0);
    return cursor.index === lines.texts.length ? result : undefined;
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}

function parseMapping(lines: Lines, cursor: { index: number }, indent: number): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  const { texts, indents } = lines;
  while (cursor.index < texts.length) {
    const lineIndent = indents[cursor.index] as number;
    if (lineIndent < indent) break;
    if (lineIndent > indent) throw UNSUPPORTED;
    const parsed = keyLine(texts[cursor.index] as string);
    if (!parsed) throw UNSUPPORTED;
    const [key, inline] = parsed;
    if (Object.hasOwn(result, key) || key === "__proto__" || RESERVED_KEYS.test(key)) throw UNSUPPORTED;
    cursor.index += 1;
    const nextIndent = indents[cursor.index];
    if (inline !== "") {
      result[key] =
        inline.charCodeAt(0) === 91 /* [ */ ? parseFlowSequence(inline) : parseScalar(inline, false);
      if (nextIndent !== undefined && nextIndent > indent) throw UNSUPPORTED;
    } else if (nextIndent !== undefined && nextIndent > indent) {
      result[key] = isSequenceLine(texts[cursor.index] as string)
        ? parseSequence(lines, cursor, nextIndent)
        : parseMapping(lines, cursor, nextIndent);
    } else if (nextIndent === indent && isSequenceLine(texts[cursor.index] as string)) {
      result[key] = parseSequence(lines, cursor, indent);
    } else {
      result[key] = null;
    }
  }
  return result;
}

function isSequenceLine(text: string): boolean {
  return text.charCodeAt(0) === 45 /* - */ && (text.length === 1 || text.charCodeAt(1) === 32);
}

function parseSequence(lines: Lines, cursor: { index: number }, indent: number): unknown[] {
  const items: unknown[] = [];
  const { texts, indents } = lines;
  while (cursor.index < texts.length) {
    const lineIndent = indents[cursor.index] as number;
    const text = texts[cursor.index] as string;
    if (lineIndent < indent || (lineIndent === indent && !isSequenceLine(text))) break;
    if (lineIndent > indent) throw UNSUPPORTED;
    const rest = text.slice(1).trimStart();
    if (rest === "") throw UNSUPPORTED;
    if (keyLine(rest)) {
      // `- key: value` starts a mapping whose keys line up with `key`.
      const offset = text.length - rest.length;
      texts[cursor.index] = rest;
      indents[cursor.index] = indent + offset;
      items.push(parseMapping(lines, cursor, indent + offset));
      continue;
    }
    cursor.index += 1;
    items.push(rest.charCodeAt(0) === 91 ? parseFlowSequence(rest) : parseScalar(rest, false));
    const nextIndent = indents[cursor.index];
    if (nextIndent !== undefined && nextIndent > indent) throw UNSUPPORTED;
  }
  return items;
}

function parseFlowSequence(value: string): unknown[] {
  if (value.charCodeAt(value.length - 1) !== 93 /* ] */) throw UNSUPPORTED;
  const inner = value.slice(1, -1).trim();
  if (inner === "") return [];
  const parts = inner.split(",");
  if (parts.length > 1 && parts[parts.length - 1]?.trim() === "") parts.pop();
  const items: unknown[] = [];
  for (const part of parts) {
    const item = part.trim();
    if (item === "") throw UNSUPPORTED;
    items.push(parseScalar(item, true));
  }
  return items;
}

function parseScalar(value: string, inFlow: boolean): unknown {
  const first = value.charCodeAt(0);
  if (first === 34 /* " */) {
    const inner = value.slice(1, -1);
    if (
      value.length < 2 ||
      value.charCodeAt(value.length - 1) !== 34 ||
      inner.includes('"') ||
      inner.includes("\\")
    )
      throw UNSUPPORTED;
    return inner;
  }
  if (first === 39 /* ' */) {
    const inner = value.slice(1, -1);
    if (value.length < 2 || value.charCodeAt(value.length - 1) !== 39 || inner.includes("'"))
      throw UNSUPPORTED;
    return inner;
  }
  if (value.includes(" #") || value.includes(": ") || value.charCodeAt(value.length - 1) === 58)
    throw UNSUPPORTED;
  if (inFlow && (value.includes("[") || value.includes("]") || value.includes("{") || value.includes("}")))
    throw UNSUPPORTED;
  if (NULLS.has(value)) return null;
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  // Only scalars starting with a digit, sign or dot can be numbers in the core schema.
  if ((first >= 48 && first <= 57) || first === 43 || first === 45 || first === 46) {
    if (INT.test(value)) {
      if (value.replace(/^[-+]/, "").length > 15) throw UNSUPPORTED;
      return Number(value);
    }
    if (OCTAL.test(value)) return value.length > 17 ? unsupported() : Number.parseInt(value.slice(2), 8);
    if (HEX.test(value)) return value.length > 15 ? unsupported() : Number.parseInt(value.slice(2), 16);
    if (FLOAT.test(value)) return Number.parseFloat(value);
    if (INF.test(value)) return first === 45 ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
    if (NAN.test(value)) return Number.NaN;
  }
  if (BAD_START.has(value[0] as string)) throw UNSUPPORTED;
  return value;
}

function unsupported(): never {
  throw UNSUPPORTED;
}

/**
 * Reads a list-valued field the way Hermes accepts tags: a YAML list, or a string `a, b` / `[a, b]`.
 * Items are trimmed, surrounding quotes removed, empties dropped.
 */
export function parseListField(value: unknown): string[] {
  let items: unknown[];
  if (Array.isArray(value)) items = value;
  else if (typeof value === "string") {
    let text = value.trim();
    if (text.startsWith("[") && text.endsWith("]")) text = text.slice(1, -1);
    items = text.split(",");
  } else return [];
  const result: string[] = [];
  for (const item of items) {
    if (item === null || item === undefined) continue;
    const text = String(item)
      .trim()
      .replace(/^["']+|["']+$/g, "")
      .trim();
    if (text !== "") result.push(text);
  }
  return result;
}
