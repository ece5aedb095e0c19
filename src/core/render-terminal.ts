/**
 * Renders a neutral `Reply` for a terminal (headings, lists, code, tables aligned in display columns;
 * ANSI styling only when writing to a TTY), in the reader's locale, and for `--json` (exactly one JSON
 * document, always in English: scripts and Hermes read it).
 */
import type { Locale } from "./i18n/locale.js";
import { withoutControls } from "./inert-text.js";
import { formatTable, type LocalizedBlock, localizeReply, type Reply, replyToPlainText } from "./reply.js";

/** Options of `renderTerminal`. */
export interface TerminalRenderOptions {
  /** Use ANSI styles (bold headings, cyan inline code, dim code blocks). Pass `stream.isTTY`. */
  color?: boolean;
  /** The reader's locale (the CLI's from `LANG`/`LC_ALL`); default the reply's own, else English. */
  locale?: Locale;
}

const ANSI = {
  bold: (text: string) => `\u001b[1m${text}\u001b[22m`,
  dim: (text: string) => `\u001b[2m${text}\u001b[22m`,
  cyan: (text: string) => `\u001b[36m${text}\u001b[39m`,
  underline: (text: string) => `\u001b[4m${text}\u001b[24m`,
};

/** Styles `inline code` spans (backticks removed) when colour is on; leaves text unchanged otherwise. */
function inline(text: string, color: boolean): string {
  if (!color) return text;
  return text.replace(/`([^`\n]+)`/g, (_match, code: string) => ANSI.cyan(code));
}

function renderBlock(block: LocalizedBlock, color: boolean): string {
  switch (block.kind) {
    case "heading":
      return color ? ANSI.bold(inline(block.text, false)) : block.text;
    case "paragraph":
      return inline(block.text, color);
    case "list":
      return block.items
        .map((item, index) => {
          const marker = block.ordered ? `${index + 1}.` : "-";
          const pad = " ".repeat(marker.length + 1);
          return `${marker} ${inline(item, color).split("\n").join(`\n${pad}`)}`;
        })
        .join("\n");
    case "code": {
      const body = block.text.replace(/\n+$/, "");
      return color ? ANSI.dim(body) : body;
    }
    case "table": {
      const lines = formatTable(block.headers, block.rows).split("\n");
      if (color && lines.length > 0) lines[0] = ANSI.underline(ANSI.bold(lines[0] ?? ""));
      return lines.join("\n");
    }
    case "attachment":
    case "file": {
      // A file's bytes stay as they are where it is sent; printed on a terminal, they must not drive it.
      const title = `[${withoutControls(block.name)}]`;
      return `${color ? ANSI.bold(title) : title}\n${withoutControls(block.text).replace(/\n+$/, "")}`;
    }
  }
}

/** Terminal text of a reply, blocks separated by blank lines, with a trailing newline (empty reply → ""). */
export function renderTerminal(value: Reply, options: TerminalRenderOptions = {}): string {
  const color = options.color ?? false;
  const parts = localizeReply(value, options.locale)
    .blocks.map((block) => renderBlock(block, color))
    .filter((part) => part.length > 0);
  return parts.length === 0 ? "" : `${parts.join("\n\n")}\n`;
}

/** The `--json` document of a reply: its `json`, else `{ok, text}` from the blocks (in English). */
export function replyJsonDocument(value: Reply): unknown {
  if (value.json !== undefined) return value.json;
  return { ok: value.exitCode === 0, text: replyToPlainText(value, "en") };
}

/** The `--json` output: one pretty-printed JSON document and a newline. */
export function renderJson(value: Reply): string {
  return `${JSON.stringify(replyJsonDocument(value), null, 2)}\n`;
}

/** About how many characters `renderJsonChunks` gathers before handing a piece over. */
const JSON_CHUNK_CHARS = 64 * 1024;

/**
 * `renderJson`'s document in pieces of about 64k characters, joined byte for byte the same, so a large
 * document (`skills list --json` of a 10k library: ~3 MB) is never one string and one buffer at once.
 * The document's own fields and each item of an array among them are laid out by `JSON.stringify`
 * itself; a document with a `toJSON` at those levels (never a command's plain data) comes whole.
 */
export function* renderJsonChunks(value: Reply, chunkChars = JSON_CHUNK_CHARS): Generator<string> {
  const document = replyJsonDocument(value);
  if (!isPlainObject(document) || !toJsonFree(document)) {
    yield renderJson(value);
    return;
  }
  let pending = "";
  let fields = 0;
  for (const key of Object.keys(document)) {
    const field = (document as Record<string, unknown>)[key];
    const opening = `${fields === 0 ? "{\n" : ",\n"}  ${JSON.stringify(key)}: `;
    if (Array.isArray(field)) {
      fields += 1;
      if (field.length === 0) {
        pending += `${opening}[]`;
        continue;
      }
      pending += `${opening}[`;
      for (let index = 0; index < field.length; index++) {
        const item = JSON.stringify(field[index], null, 2) ?? "null";
        pending += `${index === 0 ? "\n" : ",\n"}    ${item.replaceAll("\n", "\n    ")}`;
        if (pending.length >= chunkChars) {
          yield pending;
          pending = "";
        }
      }
      pending += "\n  ]";
      continue;
    }
    const text = JSON.stringify(field, null, 2);
    if (text === undefined) continue;
    fields += 1;
    pending += `${opening}${text.replaceAll("\n", "\n  ")}`;
    if (pending.length >= chunkChars) {
      yield pending;
      pending = "";
    }
  }
  yield `${pending}${fields === 0 ? "{}" : "\n}"}\n`;
}

function isPlainObject(value: unknown): value is object {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function hasToJson(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  );
}

/** True when neither the document, its fields nor the items of its array fields have a `toJSON`. */
function toJsonFree(document: object): boolean {
  if (hasToJson(document)) return false;
  for (const field of Object.values(document)) {
    if (hasToJson(field)) return false;
    if (Array.isArray(field) && field.some(hasToJson)) return false;
  }
  return true;
}
