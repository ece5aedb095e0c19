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
