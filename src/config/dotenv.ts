/**
 * Reading `<home>/.env` exactly as python-dotenv 1.x (the parser Hermes uses) reads it: the same
 * statement grammar (optional `export `, bare or single-quoted keys, single- or double-quoted values with
 * their escapes, quoted values that span lines, ` #` comments after bare values, unparsable statements
 * skipped to the end of their line), Python's notion of whitespace, universal newlines, the last
 * duplicate winning, and `${VAR}` / `${VAR:-default}` interpolation in every value.
 */
import { readFileSync } from "node:fs";

/** Python's `\s` (str.isspace) — wider than JavaScript's in places and without U+FEFF. */
const PY_SPACE =
  "\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
/** Python's `[^\S\r\n]`: whitespace that does not end a line. */
const PY_INLINE_SPACE =
  "\\t\\v\\f\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";

const sticky = (source: string) => new RegExp(source, "y");
const MULTILINE_WHITESPACE = sticky(`[${PY_SPACE}]*`);
const EXPORT = sticky(`(?:export[${PY_INLINE_SPACE}]+)?`);
const SINGLE_QUOTED_KEY = sticky("'([^']+)'");
const UNQUOTED_KEY = sticky(`([^=#${PY_SPACE}]+)`);
const WHITESPACE = sticky(`[${PY_INLINE_SPACE}]*`);
const EQUAL_SIGN = sticky(`(=[${PY_INLINE_SPACE}]*)`);
const SINGLE_QUOTED_VALUE = sticky("'((?:\\\\'|[^'])*)'");
const DOUBLE_QUOTED_VALUE = sticky('"((?:\\\\"|[^"])*)"');
const UNQUOTED_VALUE = sticky("([^\\r\\n]*)");
const COMMENT = sticky(`(?:[${PY_INLINE_SPACE}]*#[^\\r\\n]*)?`);
const END_OF_LINE = sticky(`[${PY_INLINE_SPACE}]*(?:\\r\\n|\\n|\\r|$)`);
const REST_OF_LINE = sticky("[^\\r\\n]*(?:\\r|\\n|\\r\\n)?");
const LEADING_INLINE_SPACE = new RegExp(`^[${PY_INLINE_SPACE}]`);
const INLINE_COMMENT = new RegExp(`[${PY_SPACE}]+#`);
const TRAILING_SPACE = new RegExp(`[${PY_SPACE}]+$`);
const DOUBLE_QUOTE_ESCAPES = /\\[\\'"abfnrtv]/g;
const SINGLE_QUOTE_ESCAPES = /\\[\\']/g;
const ESCAPED: Record<string, string> = {
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};
/** python-dotenv's `${name}` / `${name:-default}`. */
const VARIABLE = /\$\{([^}:]*)(?::-([^}]*))?\}/g;

/** One statement of a `.env` text, as python-dotenv splits it. Offsets index the text parsed. */
export interface DotenvStatement {
  /** The key, or null for blank lines, comments and statements python-dotenv could not parse. */
  key: string | null;
  /** The value before interpolation (quotes and escapes decoded); null for a key without `=`. */
  value: string | null;
  /** Where the statement starts (blank lines before it included), where its own text starts, and its end. */
  start: number;
  bodyStart: number;
  end: number;
  /** The statement began with `export `. */
  exported: boolean;
  /** python-dotenv could not parse it (it warns and skips to the end of the line). */
  error: boolean;
}

class Unparsable extends Error {}

class Cursor {
  at = 0;
  constructor(readonly text: string) {}

  peek(): string {
    return this.text.slice(this.at, this.at + 1);
  }

  read(pattern: RegExp): string[] {
    pattern.lastIndex = this.at;
    const match = pattern.exec(this.text);
    if (!match) throw new Unparsable();
    this.at += match[0].length;
    return match.slice(1);
  }
}

function decode(raw: string, escapes: RegExp): string {
  return raw.replace(escapes, (pair) => ESCAPED[pair[1] as string] as string);
}

function readValue(cursor: Cursor): string {
  const first = cursor.peek();
  if (first === "'") return decode(cursor.read(SINGLE_QUOTED_VALUE)[0] as string, SINGLE_QUOTE_ESCAPES);
  if (first === '"') return decode(cursor.read(DOUBLE_QUOTED_VALUE)[0] as string, DOUBLE_QUOTE_ESCAPES);
  if (first === "" || first === "\n" || first === "\r") return "";
  return unquotedValue(cursor.read(UNQUOTED_VALUE)[0] as string);
}

/** What python-dotenv keeps of a bare value: up to a whitespace-led `#`, trailing whitespace dropped. */
export function unquotedValue(part: string): string {
  const comment = INLINE_COMMENT.exec(part);
  return (comment ? part.slice(0, comment.index) : part).replace(TRAILING_SPACE, "");
}

/** True when `text` starts with whitespace python-dotenv drops after `=`. */
export function startsWithInlineSpace(text: string): boolean {
  return LEADING_INLINE_SPACE.test(text);
}

function readStatement(cursor: Cursor): DotenvStatement {
  const start = cursor.at;
  let bodyStart = start;
  let exported = false;
  try {
    cursor.read(MULTILINE_WHITESPACE);
    bodyStart = cursor.at;
    if (cursor.at >= cursor.text.length) {
      return { key: null, value: null, start, bodyStart, end: cursor.at, exported, error: false };
    }
    cursor.read(EXPORT);
    exported = cursor.at > bodyStart;
    let key: string | null = null;
    const first = cursor.peek();
    if (first === "'") key = cursor.read(SINGLE_QUOTED_KEY)[0] as string;
    else if (first !== "#") key = cursor.read(UNQUOTED_KEY)[0] as string;
    cursor.read(WHITESPACE);
    let value: string | null = null;
    if (cursor.peek() === "=") {
      cursor.read(EQUAL_SIGN);
      value = readValue(cursor);
    }
    cursor.read(COMMENT);
    cursor.read(END_OF_LINE);
    return { key, value, start, bodyStart, end: cursor.at, exported, error: false };
  } catch (error) {
    if (!(error instanceof Unparsable)) throw error;
    cursor.read(REST_OF_LINE);
    return { key: null, value: null, start, bodyStart, end: cursor.at, exported, error: true };
  }
}

/** Splits `.env` text into python-dotenv's statements (offsets into `text` as given). */
export function parseDotenvStatements(text: string): DotenvStatement[] {
  const cursor = new Cursor(text);
  const statements: DotenvStatement[] = [];
  while (cursor.at < text.length) statements.push(readStatement(cursor));
  return statements;
}

/** Expands `${VAR}` and `${VAR:-default}` in `value` as python-dotenv does, from `env`. */
export function interpolate(value: string, env: ReadonlyMap<string, string | null>): string {
  return value.replace(VARIABLE, (_whole, name: string, fallback: string | undefined) => {
    if (!env.has(name)) return fallback ?? "";
    return env.get(name) ?? "";
  });
}

/**
 * The keys and raw values of `.env` text without interpolation (the last duplicate wins, a key without
 * `=` maps to null), as a file is read with universal newlines.
 */
export function rawDotenvValues(text: string): Map<string, string | null> {
  const values = new Map<string, string | null>();
  for (const statement of parseDotenvStatements(text.replace(/\r\n?/g, "\n"))) {
    if (statement.key !== null) values.set(statement.key, statement.value);
  }
  return values;
}

/**
 * Parses .env text into a map the way python-dotenv's `dotenv_values` does: each value interpolated from
 * the process environment and the file's earlier values (the file's win). Keys without `=` are left out.
 */
export function parseDotenv(text: string, env: NodeJS.ProcessEnv = process.env): Map<string, string> {
  const known = new Map<string, string | null>();
  for (const [name, value] of Object.entries(env)) if (value !== undefined) known.set(name, value);
  const resolved = new Map<string, string | null>();
  for (const statement of parseDotenvStatements(text.replace(/\r\n?/g, "\n"))) {
    if (statement.key === null) continue;
    const value = statement.value === null ? null : interpolate(statement.value, known);
    known.set(statement.key, value);
    resolved.set(statement.key, value);
  }
  const values = new Map<string, string>();
  for (const [key, value] of resolved) if (value !== null) values.set(key, value);
  return values;
}

/** Reads a .env file; a missing file is an empty map. */
export function readDotenv(file: string, env: NodeJS.ProcessEnv = process.env): Map<string, string> {
  try {
    return parseDotenv(readFileSync(file, "utf8"), env);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return new Map();
    throw error;
  }
}

/**
 * Looks a secret up: a non-empty value in `<home>/.env` or the process environment (the environment wins
 * when both are set and non-empty, as a service manager's values should).
 */
export function lookupSecret(
  name: string,
  dotenv: Map<string, string>,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const fromEnv = env[name];
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
  const fromFile = dotenv.get(name);
  return fromFile !== undefined && fromFile !== "" ? fromFile : undefined;
}
