/**
 * The one reading of command text, shared by the CLI, the gateway and every adapter: telling a chat
 * command (`/curator status`) from text that merely starts with a slash (`/etc/hosts is broken`), and
 * splitting its argument text into words. Adapters find the command name their platform's way and hand
 * the raw argument text to `parsedCommand`, so the same text gives the same arguments everywhere.
 */
import { UsageError } from "./errors.js";
import type { ParsedCommand } from "./message.js";

/** Opening quote → closing quote. Curly and low-9 quotes count, as phone keyboards type them. */
const QUOTE_PAIRS: Readonly<Record<string, string>> = {
  '"': '"',
  "'": "'",
  "\u201c": "\u201d",
  "\u2018": "\u2019",
  "\u201e": "\u201c",
};

/** Quotes whose content is literal (no backslash escapes inside). */
const LITERAL_QUOTES = new Set(["'", "\u2018"]);

/** Characters that are an apostrophe between two letters (`don't`, `don’t`), never a quote there. */
const APOSTROPHES = new Set(["'", "\u2019"]);

/** Options of `splitArgs`. */
export interface SplitOptions {
  /** Close an unterminated quote at the end instead of throwing (chat text is never rejected for it). */
  lenient?: boolean;
  /** Turn a leading em dash into `--` and a leading en dash into `-` (phone keyboards' smart dashes). */
  smartDashes?: boolean;
}

function isWordChar(char: string | undefined): boolean {
  return char !== undefined && /[\p{L}\p{N}]/u.test(char);
}

/**
 * Splits a command line into words: whitespace separates, `'…'` is literal, `"…"` allows `\"` and `\\`,
 * a backslash outside quotes escapes the next character; curly quotes count as quotes, and an
 * apostrophe between two letters (`don't`) is part of the word.
 */
export function splitArgs(text: string, options: SplitOptions = {}): string[] {
  const words: string[] = [];
  let current = "";
  let inWord = false;
  let quote: { close: string; literal: boolean } | undefined;
  for (let index = 0; index < text.length; index++) {
    const char = text[index] ?? "";
    if (quote) {
      if (char === quote.close) quote = undefined;
      else if (char === "\\" && !quote.literal && (text[index + 1] === '"' || text[index + 1] === "\\"))
        current += text[++index];
      else current += char;
      continue;
    }
    if (/\s/.test(char)) {
      if (inWord) words.push(current);
      current = "";
      inWord = false;
      continue;
    }
    const apostrophe = APOSTROPHES.has(char) && isWordChar(text[index - 1]) && isWordChar(text[index + 1]);
    inWord = true;
    const close = apostrophe ? undefined : QUOTE_PAIRS[char];
    if (close !== undefined) quote = { close, literal: LITERAL_QUOTES.has(char) };
    else if (char === "\\" && index + 1 < text.length) current += text[++index];
    else current += char;
  }
  if (quote && !options.lenient)
    throw new UsageError(`Unterminated quote in: ${text.trim()}. Close the quote and try again.`);
  if (inWord) words.push(current);
  return options.smartDashes ? words.map(normalizeDashes) : words;
}

function normalizeDashes(word: string): string {
  if (word.startsWith("\u2014")) return `--${word.slice(1)}`;
  if (word.startsWith("\u2013")) return `-${word.slice(1)}`;
  return word;
}

/** Quotes a word so `splitArgs` gives it back unchanged. */
export function quoteArg(word: string): string {
  if (word !== "" && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'"'"'`)}'`;
}

/**
 * The command an adapter found: its name (lower-cased) and the raw argument text, split by the one
 * chat splitter (lenient about an unterminated quote, smart dashes restored).
 */
export function parsedCommand(name: string, rawArgs: string): ParsedCommand {
  const trimmed = rawArgs.trim();
  return {
    name: name.toLowerCase(),
    args: splitArgs(trimmed, { lenient: true, smartDashes: true }),
    rawArgs: trimmed,
  };
}

/** Options of `matchChatCommand`. */
export interface ChatMatchOptions {
  /** The bot's own username: `/cmd@thisbot` is ours (suffix stripped), `/cmd@otherbot` is not a command for us. */
  botUsername?: string;
}

/**
 * Reads a chat text as a command when it is one: `/name args…` where `name` is `[a-z0-9_-]+` (upper case
 * is folded), optionally followed by `@botname`. Text whose first word is a path (`/etc/hosts is broken`)
 * or has no name is not a command and gives null. Whether the name is known is the router's question.
 */
export function matchChatCommand(text: string, options: ChatMatchOptions = {}): ParsedCommand | null {
  const trimmed = text.replace(/^\s+/, "");
  if (!trimmed.startsWith("/")) return null;
  const match = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(trimmed);
  if (!match) return null;
  const token = match[1] ?? "";
  const at = token.indexOf("@");
  const name = (at === -1 ? token : token.slice(0, at)).toLowerCase();
  if (at !== -1) {
    const bot = token.slice(at + 1);
    if (!/^[A-Za-z0-9_]+$/.test(bot)) return null;
    if (options.botUsername && bot.toLowerCase() !== options.botUsername.replace(/^@/, "").toLowerCase())
      return null;
  }
  if (!/^[a-z0-9_-]+$/.test(name)) return null;
  return parsedCommand(name, match[2] ?? "");
}
