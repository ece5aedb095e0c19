/**
 * Writing secrets into `<home>/.env` so that python-dotenv (Hermes) and skillgate's own reader both read
 * back exactly the value entered, and every other key reads as before. A value is written bare when
 * python-dotenv keeps it as is, else double-quoted with `\` and `"` escaped; `${` is written as `$${}{`
 * (an empty variable between `$` and `{`) so interpolation gives the characters back instead of
 * expanding them. Every statement of the key is replaced (a duplicate further down would otherwise win),
 * a missing key is appended, and the planned text is parsed again before anything is written. The file
 * is replaced atomically with mode 0600, under its lock; a symlinked `.env` is refused, naming its target.
 */
import { chmod, lstat, readlink } from "node:fs/promises";
import path from "node:path";
import { SkillgateError } from "../core/errors.js";
import { checkWriteFence } from "../core/fence.js";
import { atomicWriteFile, readTextIfExists, withLock } from "../core/fsutil.js";
import { type Formatted, list, type Text, t } from "../core/i18n/messages.js";
import {
  interpolate,
  parseDotenvStatements,
  rawDotenvValues,
  startsWithInlineSpace,
  unquotedValue,
} from "./dotenv.js";
import { homePaths } from "./home.js";

/** Variable names skillgate writes into `.env`. */
export const DOTENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

function refuse(message: Text): never {
  throw new SkillgateError("secrets.refused", message);
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A value cannot go into `.env`: it spans lines, holds a NUL, or is not valid Unicode text. */
function checkWritable(value: string): void {
  if (/[\r\n\0]/.test(value)) refuse(t("secretValue.multiline"));
  if (LONE_SURROGATE.test(value)) refuse(t("secretValue.notUnicode"));
}

/** `${}`: a variable with no name, which python-dotenv's interpolation turns into nothing. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: python-dotenv's empty variable, written literally
const EMPTY_VARIABLE = "${}";

/** The text after `KEY=` that python-dotenv reads back as `value` (which must be one line). */
export function dotenvValueText(value: string): string {
  checkWritable(value);
  // Interpolation would expand `${…}`; `$${}{` expands the empty variable and gives `${` back.
  const literal = value.replaceAll("${", () => "$${}{");
  const first = literal[0];
  const bare =
    first !== "'" && first !== '"' && unquotedValue(literal) === literal && !startsWithInlineSpace(literal);
  if (bare) return literal;
  const escaped = literal.replace(/[\\"]/g, (char) => `\\${char}`);
  // A final `\\` before the closing quote would read as an escaped quote; an empty variable ends it.
  return `"${escaped}${escaped.endsWith("\\") ? EMPTY_VARIABLE : ""}"`;
}

/** Longest secret accepted (characters). */
export const MAX_SECRET_LENGTH = 4096;

/**
 * The whitespace at either end of `value` as a list of code points (`U+00A0, U+3000`), or null when there is
 * none: spaces, tabs, no-break spaces, ideographic spaces, the byte-order mark and every other character
 * Unicode calls white space. A value is taken exactly or refused, never trimmed without a word.
 */
export function edgeWhitespace(value: string): Formatted | null {
  const edges = [...(value.match(/^\s+/)?.[0] ?? ""), ...(value.match(/(?<=\S)\s+$|^\s+$/)?.[0] ?? "")];
  if (edges.length === 0) return null;
  const codes = edges.map(
    (char) => `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`,
  );
  return list([...new Set(codes)]);
}

/**
 * Checks a secret as typed into a private input or `skillgate secrets set`: not empty, one line,
 * bounded, and without whitespace at either end (refused with the characters named, since whatever the
 * person meant, a pasted space or byte-order mark silently kept or silently dropped would be wrong).
 * Returns the value or the problem.
 */
export function checkSecretValue(raw: string): { value: string } | { problem: Text } {
  const value = raw;
  if (value.trim() === "") return { problem: t("secretValue.empty") };
  if (/[\r\n\0]/.test(value)) return { problem: t("secretValue.oneLine") };
  const edges = edgeWhitespace(value);
  if (edges) return { problem: t("value.edgeWhitespace", { chars: edges }) };
  if (value.length > MAX_SECRET_LENGTH)
    return { problem: t("secretValue.tooLong", { limit: String(MAX_SECRET_LENGTH) }) };
  return { value };
}

/** Options of `planDotenvEdit` and `writeDotenv`. */
export interface DotenvEditOptions {
  /** Only set keys whose value in the file is missing or empty (the terminal's "fill in what's missing"). */
  onlyWhenEmpty?: boolean;
}

/** The planned `.env` text and the keys it sets. */
export interface DotenvEdit {
  text: string;
  stored: string[];
}

/**
 * Plans setting `values` in `.env` text (pure): each statement of a key is replaced in place (keeping
 * an `export ` prefix and the line ending), missing keys are appended. Throws when the result would not
 * read back as intended (an unterminated quote earlier in the file can swallow what follows it).
 */
export function planDotenvEdit(
  text: string,
  values: ReadonlyMap<string, string>,
  options: DotenvEditOptions = {},
): DotenvEdit {
  const before = rawDotenvValues(text);
  const pending = new Map<string, string>();
  for (const [key, value] of values) {
    if (!DOTENV_KEY.test(key))
      refuse(`\`${key}\` is not a variable name (letters, digits and _); nothing was stored.`);
    const current = before.get(key);
    if (options.onlyWhenEmpty && current !== undefined && current !== null) {
      if (interpolate(current, new Map()) !== "") continue;
    }
    pending.set(key, dotenvValueText(value));
  }
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  let next = "";
  let copied = 0;
  const placed = new Set<string>();
  for (const statement of parseDotenvStatements(text)) {
    const valueText = statement.key === null ? undefined : pending.get(statement.key);
    if (valueText === undefined || statement.key === null) continue;
    const original = text.slice(statement.bodyStart, statement.end);
    const ending = /\r\n$|\n$|\r$/.exec(original)?.[0] ?? "";
    next += text.slice(copied, statement.bodyStart);
    next += `${statement.exported ? "export " : ""}${statement.key}=${valueText}${ending}`;
    copied = statement.end;
    placed.add(statement.key);
  }
  next += text.slice(copied);
  for (const [key, valueText] of pending) {
    if (placed.has(key)) continue;
    if (next !== "" && !/[\r\n]$/.test(next)) next += eol;
    next += `${key}=${valueText}${eol}`;
  }
  const after = rawDotenvValues(next);
  for (const [key] of pending) {
    const read = after.get(key);
    if (read === undefined || read === null || interpolate(read, new Map()) !== values.get(key)) {
      refuse(t("secretValue.unparsable", { key }));
    }
  }
  for (const [key, value] of before) {
    if (!pending.has(key) && after.get(key) !== value) {
      refuse(t("secretValue.layout", { key }));
    }
  }
  return { text: next, stored: [...pending.keys()] };
}

async function refuseSymlink(file: string): Promise<void> {
  const stat = await lstat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  if (stat?.isSymbolicLink()) {
    const target = path.resolve(path.dirname(file), await readlink(file));
    refuse(
      `${file} is a symbolic link to ${target}; skillgate does not write secrets through a link (it would replace the link with a plain file, or write outside the home). Nothing was changed. Set the value in ${target} yourself, or replace the link with a regular file.`,
    );
  }
  if (stat && !stat.isFile()) refuse(`${file} is not a regular file; nothing was changed.`);
}

/**
 * Sets `values` in `<home>/.env` (created when missing) under its lock: planned by `planDotenvEdit`,
 * written atomically with mode 0600 (the temp file too). Returns the keys stored. Values are never
 * logged or returned.
 */
export async function writeDotenv(
  home: string,
  values: ReadonlyMap<string, string>,
  options: DotenvEditOptions = {},
): Promise<string[]> {
  const file = homePaths(home).env;
  await checkWriteFence(home, t("fence.what.dotenvWrite"));
  await refuseSymlink(file);
  return withLock(`${file}.lock`, async () => {
    await refuseSymlink(file);
    const existing = (await readTextIfExists(file)) ?? "";
    const planned = planDotenvEdit(existing, values, options);
    if (planned.stored.length === 0) return [];
    // Asked again at the commit: the wait for the lock may have outlived the lead.
    await checkWriteFence(home, t("fence.what.dotenvWrite"));
    await atomicWriteFile(file, planned.text, { mode: 0o600 });
    await chmod(file, 0o600);
    return planned.stored;
  });
}
