/**
 * Pure rendering of a neutral `Reply` into Discord markdown, split into messages of at most 2000
 * characters. Plain text is escaped so names like `pdf_tools` never turn into markup; a code fence that
 * crosses a split is closed at the end of one chunk and reopened, with its language, in the next.
 */
import {
  formatTable,
  type LocalizedBlock,
  localizeReply,
  type Reply,
  type ReplyBlock,
} from "../../src/core/reply.js";

/** Discord's message length limit (characters, counted here in UTF-16 units, which is never fewer). */
export const DISCORD_MESSAGE_LIMIT = 2000;

const FENCE = "```";
/** A fence line: three backticks and an optional short language tag. */
const FENCE_LINE = /^```([\w+#.-]{0,20})\s*$/;
/** Units a chunk keeps free to close an open fence (`\n` + three backticks). */
const CLOSE_COST = FENCE.length + 1;
/** The smallest limit that always leaves room for a reopened fence, its closing and some text. */
const MIN_LIMIT = 40;

/** Renders a reply to Discord markdown and splits it into sendable chunks. */
export function renderReply(reply: Reply, limit: number = DISCORD_MESSAGE_LIMIT): string[] {
  return chunkMarkdown(replyToMarkdown(reply), limit);
}

/** A reply's file part as Discord takes it: an attachment (name and bytes) on the message it goes with. */
export interface DiscordAttachment {
  name: string;
  data: Buffer;
}

/**
 * Splits a reply into what is shown as text and its `file` blocks as attachments (UTF-8 bytes under a
 * name Discord shows as written: letters, digits, `.`, `_` and `-`).
 */
export function splitFiles(reply: Reply): { text: Reply; files: DiscordAttachment[] } {
  const files: DiscordAttachment[] = [];
  const blocks: ReplyBlock[] = [];
  for (const block of reply.blocks) {
    if (block.kind === "file")
      files.push({ name: attachmentName(block.name), data: Buffer.from(block.text) });
    else blocks.push(block);
  }
  return { text: { ...reply, blocks }, files };
}

/** A file name safe in an attachment: other characters become `_`, never empty. */
export function attachmentName(name: string): string {
  const safe = name
    .replace(/[^\w.-]+/g, "_")
    .replace(/^[.]+/, "")
    .slice(0, 100);
  return safe.length > 0 ? safe : "reply.txt";
}

/** Renders a reply to one Discord markdown string (not yet split), in the reply's locale. */
export function replyToMarkdown(reply: Reply): string {
  return localizeReply(reply)
    .blocks.map(renderBlock)
    .filter((part) => part.length > 0)
    .join("\n\n");
}

function renderBlock(block: LocalizedBlock): string {
  switch (block.kind) {
    case "heading":
      return `**${escapeInline(block.text)}**`;
    case "paragraph":
      return escapeInline(block.text);
    case "list":
      return block.items
        .map((item, index) => {
          const marker = block.ordered ? `${index + 1}\\.` : "-";
          return `${marker} ${escapeInline(item).replace(/\n/g, "\n  ")}`;
        })
        .join("\n");
    case "code":
      return codeFence(block.text, block.lang);
    case "table":
      return codeFence(formatTable(block.headers, block.rows));
    case "attachment":
    case "file":
      return `**${escapeInline(block.name)}**\n${codeFence(block.text)}`;
  }
}

/** A fenced code block whose content can never close the fence early. */
export function codeFence(text: string, lang = ""): string {
  const safeLang = lang.replace(/[^\w+#.-]/g, "").slice(0, 20);
  const body = text.replace(/```/g, "``\u200b`").replace(/\n+$/, "");
  return `${FENCE}${safeLang}\n${body}\n${FENCE}`;
}

/**
 * Escapes Discord markdown in plain text, leaving `inline code` spans as they are (Discord shows a code
 * span's content literally, links and mentions included). With an odd number of backticks nothing is
 * treated as code and every backtick is escaped.
 */
export function escapeInline(text: string): string {
  const ticks = (text.match(/`/g) ?? []).length;
  if (ticks % 2 === 1) return escapePlain(text);
  return text
    .split(/(`[^`]*`)/)
    .map((part) =>
      part.startsWith("`") && part.endsWith("`") && part.length >= 2 ? part : escapePlain(part),
    )
    .join("");
}

/**
 * A line-start marker Discord's markdown reads as a block: headings `#`, `##`, `###`, subtext `-#`,
 * quotes `>` and `>>>`, bullets `-` and `*`, numbered items `1.` (Discord's "Markdown Text 101" help
 * article; discord.js's `escapeMarkdown` escapes the same forms with its `heading`, `bulletedList` and
 * `numberedList` options). Escaping its first character leaves no marker at the start of the line.
 */
const BLOCK_MARKER = /(^|\n)([ \t]*)(#{1,3}|-#|>{1,3}|[-*]|\d+\.)(?=[ \t])/g;

/**
 * Untrusted text as Discord shows it literally: every character that opens inline markup is escaped
 * with a backslash (`\\`, `*`, `_`, `~`, `|`, backtick, `[`, `]` — a masked link `[text](url)` cannot form
 * without its brackets, and `<`, which opens user, role and channel mentions, slash-command links and
 * timestamps), block markers at a line start are escaped, and `@everyone`/`@here` are broken with a
 * zero-width space. Parentheses and a bare URL stay as written: without `[` and `]` they form no link
 * text a reader could mistake for skillgate's own.
 */
function escapePlain(text: string): string {
  return text
    .replace(/[\\*_~|`[\]<]/g, (char) => `\\${char}`)
    .replace(BLOCK_MARKER, (_match, start: string, indent: string, marker: string) =>
      marker.endsWith(".") ? `${start}${indent}${marker.slice(0, -1)}\\.` : `${start}${indent}\\${marker}`,
    )
    .replace(/@(everyone|here)/g, "@\u200b$1");
}

/**
 * Splits markdown into chunks of at most `limit` UTF-16 units, preferring line boundaries, keeping
 * every chunk's code fences balanced: a fence open at a split is closed there and reopened (same
 * language) at the start of the next chunk. Lines longer than a chunk are cut, at a space when one is
 * near, never inside a surrogate pair. An unterminated fence in the input is closed at the end.
 */
export function chunkMarkdown(text: string, limit: number = DISCORD_MESSAGE_LIMIT): string[] {
  if (limit < MIN_LIMIT) throw new RangeError(`chunk limit must be at least ${MIN_LIMIT}, got ${limit}`);
  if (text.trim().length === 0) return [];
  const chunks: string[] = [];
  let lines: string[] = [];
  let size = 0;
  let header = 0;
  let fence: string | null = null;

  const add = (line: string): void => {
    size += (lines.length > 0 ? 1 : 0) + line.length;
    lines.push(line);
  };
  const flush = (): void => {
    if (lines.length > header) {
      if (fence !== null) lines.push(FENCE);
      chunks.push(lines.join("\n"));
    }
    lines = [];
    size = 0;
    header = 0;
    if (fence !== null) {
      add(`${FENCE}${fence}`);
      header = 1;
    }
  };
  /** Units left for a line in the current chunk, keeping room to close a fence that stays open. */
  const free = (openAfter: boolean): number =>
    limit - size - (lines.length > 0 ? 1 : 0) - (openAfter ? CLOSE_COST : 0);

  for (const line of text.split("\n")) {
    const marker = FENCE_LINE.exec(line);
    const after: string | null = marker ? (fence === null ? (marker[1] ?? "") : null) : fence;
    if (line.length > free(after !== null) && lines.length > header) flush();
    if (line.length <= free(after !== null)) {
      add(line);
      fence = after;
      continue;
    }
    // Only plain lines can be this long (fence lines are short): cut them across chunks.
    let rest = line;
    while (rest.length > free(fence !== null)) {
      const cut = cutPoint(rest, free(fence !== null));
      add(rest.slice(0, cut));
      rest = rest.slice(cut);
      flush();
    }
    add(rest);
  }
  if (fence !== null) lines.push(FENCE);
  if (lines.length > header) chunks.push(lines.join("\n"));
  return chunks;
}

/** Where to cut a line that does not fit: after the last space in the second half, else at `max`, never mid-pair. */
function cutPoint(line: string, max: number): number {
  const space = line.lastIndexOf(" ", max - 1);
  if (space >= max / 2) return space + 1;
  const code = line.charCodeAt(max - 1);
  return code >= 0xd800 && code <= 0xdbff && max > 1 ? max - 1 : max;
}
