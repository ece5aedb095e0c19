/**
 * The neutral reply model. Commands return a `Reply`; renderers (terminal text, JSON, Telegram HTML,
 * Discord markdown, Feishu post) turn it into what each surface shows. Text inside blocks is `Text`:
 * plain strings (data) or catalog messages, resolved for the reader's locale when the reply is shown
 * (`localizeReply`); a span between backticks (`like this`) is inline code, which renderers may style.
 */

import type { ReplyAction, ReplyActions, ReplyLayout, ReplyPaging } from "./actions.js";
import { DEFAULT_LOCALE, type Locale } from "./i18n/locale.js";
import { english, resolveText, type Text } from "./i18n/messages.js";
import { displayWidth, padEndWidth } from "./i18n/width.js";
import { withoutControls } from "./inert-text.js";

/** One block of a reply, its texts of type `T` (`Text` as commands build it, `string` once localized). */
export type ReplyBlockOf<T> =
  | { kind: "heading"; text: T }
  | { kind: "paragraph"; text: T }
  | { kind: "list"; items: T[]; ordered?: boolean }
  | { kind: "code"; text: T; lang?: string }
  | { kind: "table"; headers: T[]; rows: T[][] }
  | { kind: "attachment"; name: string; text: string }
  /**
   * Content to deliver as a file where the platform can (Telegram document, Discord attachment, Feishu
   * file message); renderers without files show `text` inline. The reply budget produces these.
   */
  | { kind: "file"; name: string; text: string };

/** One block of a reply as commands build it. */
export type ReplyBlock = ReplyBlockOf<Text>;

/** One block with every text resolved for a locale. */
export type LocalizedBlock = ReplyBlockOf<string>;

/** What a command answers (`ReplyOf<Text>`); `json` is the machine document printed by `--json`. */
export interface ReplyOf<T> {
  blocks: ReplyBlockOf<T>[];
  /** The document `--json` prints; when absent, `--json` prints `{ok, text}` derived from the blocks. */
  json?: unknown;
  /** CLI exit code: 0 done, 1 refused or failed, 2 bad usage, 78 bad config. */
  exitCode: number;
  /** Buttons (see `core/actions.ts`); surfaces without buttons ignore them and show `blocks`. */
  actions?: ReplyActions<ReplyBlockOf<T>, T>;
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
  warnings?: T[];
  /**
   * The reader's locale, set by whoever knows the reader (the gateway per message, the CLI from the
   * environment, the console per browser); renderers resolve any message left in it (English when unset).
   */
  locale?: Locale;
}

/** A reply as commands build it. */
export type Reply = ReplyOf<Text>;

/** A reply with every text resolved for its `locale`: what renderers lay out. */
export type LocalizedReply = ReplyOf<string> & { locale: Locale };

function localizeBlock(block: ReplyBlock, locale: Locale): LocalizedBlock {
  // Every text a reply shows is inert on every surface: no escape sequences, controls or bidi overrides.
  const text = (value: Text) => withoutControls(resolveText(value, locale));
  switch (block.kind) {
    case "heading":
    case "paragraph":
    case "code":
      return { ...block, text: text(block.text) };
    case "list":
      return { ...block, items: block.items.map(text) };
    case "table":
      return { ...block, headers: block.headers.map(text), rows: block.rows.map((row) => row.map(text)) };
    case "attachment":
    case "file":
      return block;
  }
}

/**
 * The reply with every text resolved in `locale` (default: the reply's own, else English): blocks,
 * button labels, the blocks shown beside buttons and the warnings. Resolving twice changes nothing.
 */
export function localizeReply(value: Reply, locale: Locale = value.locale ?? DEFAULT_LOCALE): LocalizedReply {
  const blocks = (list: ReplyBlock[]) => list.map((block) => localizeBlock(block, locale));
  const label = (action: ReplyAction): ReplyAction<string> => ({
    ...action,
    label: withoutControls(resolveText(action.label, locale)),
  });
  const { actions, warnings, ...rest } = value;
  const shown: LocalizedReply = { ...rest, blocks: blocks(value.blocks), locale };
  if (actions) {
    shown.actions = { rows: actions.rows.map((row) => row.map(label)) };
    if (actions.blocksWithButtons) shown.actions.blocksWithButtons = blocks(actions.blocksWithButtons);
  }
  if (warnings) shown.warnings = warnings.map((warning) => withoutControls(resolveText(warning, locale)));
  return shown;
}

/**
 * Adds warnings to a reply: as `⚠` paragraphs at the end of its blocks (every surface shows them) and in
 * `warnings` (the CLI prints them on stderr when `--json` hides the blocks).
 */
export function withWarnings(value: Reply, warnings: readonly Text[]): Reply {
  if (warnings.length === 0) return value;
  return {
    ...value,
    blocks: [
      ...value.blocks,
      ...warnings.map((text) => ({ kind: "paragraph" as const, text: warningLine(text) })),
    ],
    warnings: [...(value.warnings ?? []), ...warnings],
  };
}

/** `⚠ text`: a warning as a paragraph shows it. */
function warningLine(text: Text): Text {
  return typeof text === "string" ? `⚠ ${text}` : { key: "reply.warning", params: { text } };
}

/** Builds a reply from blocks; exit code 0 unless given. */
export function reply(blocks: ReplyBlock[], options: { json?: unknown; exitCode?: number } = {}): Reply {
  return { blocks, json: options.json, exitCode: options.exitCode ?? 0 };
}

/**
 * A reply of plain paragraphs: a string becomes one per blank-line-separated part, a message one
 * paragraph (its own blank lines show the same on every renderer).
 */
export function textReply(text: Text, options: { json?: unknown; exitCode?: number } = {}): Reply {
  if (typeof text !== "string") return reply([{ kind: "paragraph", text }], options);
  const blocks: ReplyBlock[] = text
    .split(/\n{2,}/)
    .filter((part) => part.length > 0)
    .map((part) => ({ kind: "paragraph", text: part }));
  return reply(blocks, options);
}

/**
 * A failure reply (exit 1 unless given) whose text says what went wrong and what to do. Its default
 * `--json` document carries the English text.
 */
export function errorReply(text: Text, exitCode = 1, json?: unknown): Reply {
  return textReply(text, { exitCode, json: json ?? { ok: false, error: english(text) } });
}

/** Plain text of a reply in `locale` (default: its own, else English): the terminal output without colours. */
export function replyToPlainText(value: Reply, locale?: Locale): string {
  const parts: string[] = [];
  for (const block of localizeReply(value, locale).blocks) {
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

/**
 * Lays a table out in fixed-width columns (terminal and code-block renderers), measured in display
 * columns: a CJK character takes two, so Chinese headers and cells line up.
 */
export function formatTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) =>
    Math.max(displayWidth(header), ...rows.map((row) => displayWidth(row[column] ?? ""))),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => padEndWidth(cell, widths[column] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(headers), ...rows.map(line)].join("\n");
}
