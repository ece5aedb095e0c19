/**
 * The neutral reply model. Commands return a `Reply`; renderers (terminal text, JSON, Telegram HTML,
 * Discord markdown, Feishu post) turn it into what each surface shows. Text inside blocks is plain text;
 * a span between backticks (`like this`) is inline code, which renderers may style.
 */

import type { ReplyActions, ReplyLayout, ReplyPaging } from "./actions.js";

/** One block of a reply. */
export type ReplyBlock =
  | { kind: "heading"; text: string }
  | { kind: "paragraph"; text: string }
  | { kind: "list"; items: string[]; ordered?: boolean }
  | { kind: "code"; text: string; lang?: string }
  | { kind: "table"; headers: string[]; rows: string[][] }
  | { kind: "attachment"; name: string; text: string }
  /**
   * Content to deliver as a file where the platform can (Telegram document, Discord attachment, Feishu
   * file message); renderers without files show `text` inline. The reply budget produces these.
   */
  | { kind: "file"; name: string; text: string };

/** What a command answers. `json` is the machine document printed by `--json`. */
export interface Reply {
  blocks: ReplyBlock[];
  /** The document `--json` prints; when absent, `--json` prints `{ok, text}` derived from the blocks. */
  json?: unknown;
  /** CLI exit code: 0 done, 1 refused or failed, 2 bad usage, 78 bad config. */
  exitCode: number;
  /** Buttons (see `core/actions.ts`); surfaces without buttons ignore them and show `blocks`. */
  actions?: ReplyActions<ReplyBlock>;
  /** One block that chats able to edit in place show page by page with ‹ › buttons. */
  paging?: ReplyPaging;
  /** A richer presentation where the platform has one (Feishu card, Discord embed). */
  layout?: ReplyLayout;
  /** Meant only for the person who asked (a refused button press): shown privately where possible. */
  private?: boolean;
  /**
   * Things the person should know that are not the answer (a corrupt file moved aside, skills skipped).
   * `withWarnings` also puts them in the blocks; with `--json` the CLI prints them on stderr.
   */
  warnings?: string[];
}

/**
 * Adds warnings to a reply: as `⚠` paragraphs at the end of its blocks (every surface shows them) and in
 * `warnings` (the CLI prints them on stderr when `--json` hides the blocks).
 */
export function withWarnings(value: Reply, warnings: readonly string[]): Reply {
  if (warnings.length === 0) return value;
  return {
    ...value,
    blocks: [...value.blocks, ...warnings.map((text) => ({ kind: "paragraph" as const, text: `⚠ ${text}` }))],
    warnings: [...(value.warnings ?? []), ...warnings],
  };
}

/** Builds a reply from blocks; exit code 0 unless given. */
export function reply(blocks: ReplyBlock[], options: { json?: unknown; exitCode?: number } = {}): Reply {
  return { blocks, json: options.json, exitCode: options.exitCode ?? 0 };
}

/** A reply of plain paragraphs, one per line given. */
export function textReply(text: string, options: { json?: unknown; exitCode?: number } = {}): Reply {
  const blocks: ReplyBlock[] = text
    .split(/\n{2,}/)
    .filter((part) => part.length > 0)
    .map((part) => ({ kind: "paragraph", text: part }));
  return reply(blocks, options);
}

/** A failure reply (exit 1 unless given) whose text says what went wrong and what to do. */
export function errorReply(text: string, exitCode = 1, json?: unknown): Reply {
  return textReply(text, { exitCode, json: json ?? { ok: false, error: text } });
}

/** Plain text of a reply: the terminal renderer's output without colours. */
export function replyToPlainText(value: Reply): string {
  const parts: string[] = [];
  for (const block of value.blocks) {
    switch (block.kind) {
      case "heading":
      case "paragraph":
        parts.push(block.text);
        break;
      case "list":
        parts.push(
          block.items.map((item, index) => `${block.ordered ? `${index + 1}.` : "-"} ${item}`).join("\n"),
        );
        break;
      case "code":
        parts.push(block.text);
        break;
      case "table":
        parts.push(formatTable(block.headers, block.rows));
        break;
      case "attachment":
      case "file":
        parts.push(`[${block.name}]\n${block.text}`);
        break;
    }
  }
  return parts.join("\n\n");
}

/** Lays a table out in fixed-width columns (terminal and code-block renderers). */
export function formatTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(headers), ...rows.map(line)].join("\n");
}
