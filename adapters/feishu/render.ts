/**
 * Feishu/Lark outbound rendering: a neutral `Reply` becomes message payloads for `im.message.create`
 * and `im.message.reply`. Pure: no network.
 *
 * `renderReply` builds rich-text `post` messages (one locale, `zh_cn` by default): headings and
 * `**bold**` spans as bold text, paragraphs and list items as text lines, code, tables and attachments as `code_block`
 * elements (a Markdown table inside an `md` element renders blank, so tables are laid out as
 * monospaced text). `renderText` builds plain `text` messages with fenced code, the fallback when the
 * API rejects a post. Long replies are split into several messages:
 * - at most `FEISHU_MAX_CHARS` (8,000) characters of visible text per message, split at a line, then a
 *   space, then anywhere (never inside a surrogate pair);
 * - a code block cut in two stays balanced: each post part is its own `code_block`, each text part
 *   closes the fence and the next one reopens it with the same language;
 * - the serialized `content` of a message, as it travels inside the request body (escaped a second
 *   time as a JSON string), is kept under `FEISHU_MAX_CONTENT_BYTES` (28,000 UTF-8 bytes; Feishu rejects
 *   post request bodies over 30 KB), splitting further when escaping makes it larger;
 * - a text message never carries a live `<at …>` tag: Feishu turns `<at user_id="all">` in a text
 *   message into @everyone, so skill text that contains one is defused (a zero-width space after `<`).
 */
import {
  formatTable,
  type LocalizedBlock,
  localizeReply,
  type Reply,
  type ReplyBlock,
} from "../../src/core/reply.js";

/** Most visible characters skillgate puts in one Feishu message. */
export const FEISHU_MAX_CHARS = 8000;

/** Most UTF-8 bytes of one message's serialized `content` (the API caps a post at 30 KB). */
export const FEISHU_MAX_CONTENT_BYTES = 28_000;

/** One message as the IM API takes it: `content` is the JSON string the API expects. */
export interface FeishuPayload {
  msg_type: "post" | "text" | "interactive" | "file";
  content: string;
}

/**
 * A reply's file part as Feishu takes it: uploaded through `im/v1/files` (type `stream`, any file), then
 * sent as a `file` message naming the `file_key` the upload answered.
 */
export interface FeishuUpload {
  file_type: "stream";
  file_name: string;
  data: Buffer;
}

/** Splits a reply into what is shown as messages and its `file` blocks as uploads (UTF-8 bytes). */
export function splitUploads(reply: Reply): { text: Reply; uploads: FeishuUpload[] } {
  const uploads: FeishuUpload[] = [];
  const blocks: ReplyBlock[] = [];
  for (const block of reply.blocks) {
    if (block.kind === "file")
      uploads.push({
        file_type: "stream",
        file_name: block.name.trim() || "reply.txt",
        data: Buffer.from(block.text),
      });
    else blocks.push(block);
  }
  return { text: { ...reply, blocks }, uploads };
}

/** The `file` message for an uploaded file (IM message content: `{"file_key": …}`). */
export function fileMessage(fileKey: string): FeishuPayload {
  return { msg_type: "file", content: JSON.stringify({ file_key: fileKey }) };
}

/** Rendering options (tests shrink the limits). */
export interface RenderOptions {
  /** Post locale key. */
  locale?: "zh_cn" | "en_us";
  maxChars?: number;
  maxContentBytes?: number;
}

/** A post element skillgate emits. */
type PostElement =
  | { tag: "text"; text: string; style?: string[] }
  | { tag: "code_block"; language: string; text: string };

/** A unit of layout: one text line or one code block. */
type Unit = { kind: "line"; text: string; bold?: boolean } | { kind: "code"; text: string; lang?: string };

/** Renders a reply as one or more `post` messages. */
export function renderReply(reply: Reply, options: RenderOptions = {}): FeishuPayload[] {
  const limits = resolveLimits(options);
  const units = splitOversizedUnits(replyUnits(reply), limits.maxChars);
  const chunks = packUnits(units, limits.maxChars);
  const locale = options.locale ?? "zh_cn";
  return chunks.flatMap((chunk) =>
    fitBytes(chunk, (part) => postPayload(part, locale), limits.maxContentBytes),
  );
}

/** Renders a reply as one or more plain `text` messages (code fenced with ```). */
export function renderText(reply: Reply, options: RenderOptions = {}): FeishuPayload[] {
  const limits = resolveLimits(options);
  return textPayloads(replyUnits(reply), limits);
}

/** The plain-text equivalent of one rendered post message, for resending when the API rejects it. */
export function postToTextPayloads(payload: FeishuPayload, options: RenderOptions = {}): FeishuPayload[] {
  if (payload.msg_type === "text") return [payload];
  const units: Unit[] = [];
  const parsed = JSON.parse(payload.content) as Record<string, { content?: PostElement[][] }>;
  for (const body of Object.values(parsed)) {
    for (const paragraph of body.content ?? []) {
      const [first] = paragraph;
      if (first?.tag === "code_block") {
        const lang = first.language === "PLAIN_TEXT" ? undefined : first.language.toLowerCase();
        units.push({ kind: "code", text: first.text, lang });
      } else units.push({ kind: "line", text: paragraph.map((element) => element.text).join("") });
    }
    break;
  }
  return textPayloads(units, resolveLimits(options));
}

function resolveLimits(options: RenderOptions): { maxChars: number; maxContentBytes: number } {
  return {
    maxChars: Math.max(16, options.maxChars ?? FEISHU_MAX_CHARS),
    maxContentBytes: Math.max(256, options.maxContentBytes ?? FEISHU_MAX_CONTENT_BYTES),
  };
}

/** Lays the blocks out (in the reply's locale) as lines and code blocks, an empty line between blocks. */
function replyUnits(reply: Reply): Unit[] {
  const units: Unit[] = [];
  for (const block of localizeReply(reply).blocks) {
    const blockUnits = blockToUnits(block);
    if (blockUnits.length === 0) continue;
    if (units.length > 0) units.push({ kind: "line", text: "" });
    units.push(...blockUnits);
  }
  return units;
}

function blockToUnits(block: LocalizedBlock): Unit[] {
  const lines = (text: string, bold?: boolean): Unit[] =>
    text
      .split("\n")
      .map((line) => (bold ? { kind: "line", text: line, bold } : { kind: "line", text: line }));
  switch (block.kind) {
    case "heading":
      return lines(block.text, true);
    case "paragraph":
      return lines(block.text);
    case "list":
      return block.items.flatMap((item, index) => lines(`${block.ordered ? `${index + 1}.` : "-"} ${item}`));
    case "code":
      return [{ kind: "code", text: block.text, lang: block.lang }];
    case "table":
      return [{ kind: "code", text: formatTable(block.headers, block.rows) }];
    case "attachment":
    case "file":
      return [
        { kind: "line", text: block.name, bold: true },
        { kind: "code", text: block.text },
      ];
  }
}

/** Breaks every unit longer than `max` characters into several (lines at spaces, code at newlines). */
function splitOversizedUnits(units: Unit[], max: number): Unit[] {
  return units.flatMap((unit): Unit[] => {
    if (unit.text.length <= max) return [unit];
    if (unit.kind === "line") return splitText(unit.text, max, " ").map((text) => ({ ...unit, text }));
    return splitText(unit.text, max, "\n").map((text) => ({ ...unit, text }));
  });
}

/**
 * Splits `text` into pieces of at most `max` UTF-16 units, preferring to cut after the last `separator`
 * in the second half of the window; never splits a surrogate pair. A cut at a newline drops it.
 */
export function splitText(text: string, max: number, separator: string): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > max) {
    let cut = rest.lastIndexOf(separator, max - 1);
    let skip = separator.length;
    if (cut < max / 2) {
      cut = max;
      skip = 0;
      if (isHighSurrogate(rest.charCodeAt(cut - 1))) cut -= 1;
    } else if (separator === " ") {
      cut += 1; // keep the space on the first piece so rejoining restores the text
      skip = 0;
    }
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut + skip);
  }
  pieces.push(rest);
  return pieces;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Packs units greedily into chunks of at most `max` characters (each line costs its length + 1). */
function packUnits(units: Unit[], max: number): Unit[][] {
  const chunks: Unit[][] = [];
  let current: Unit[] = [];
  let size = 0;
  for (const unit of units) {
    const cost = unit.text.length + 1;
    if (current.length > 0 && size + cost > max) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    if (current.length === 0 && unit.kind === "line" && unit.text === "") continue;
    current.push(unit);
    size += cost;
  }
  if (current.length > 0) chunks.push(current);
  return chunks.length > 0 ? chunks : [[{ kind: "line", text: "" }]];
}

/** Serializes a chunk; when its content is over `maxBytes`, halves it and tries again. */
function fitBytes(
  units: Unit[],
  toPayload: (units: Unit[]) => FeishuPayload,
  maxBytes: number,
): FeishuPayload[] {
  const payload = toPayload(units);
  if (requestBytes(payload) <= maxBytes) return [payload];
  if (units.length > 1) {
    const half = Math.ceil(units.length / 2);
    return [
      ...fitBytes(units.slice(0, half), toPayload, maxBytes),
      ...fitBytes(units.slice(half), toPayload, maxBytes),
    ];
  }
  const only = units[0];
  if (!only || only.text.length < 2) return [payload];
  const pieces = splitText(only.text, Math.ceil(only.text.length / 2), only.kind === "code" ? "\n" : " ");
  return pieces.flatMap((text) => fitBytes([{ ...only, text }], toPayload, maxBytes));
}

/**
 * Bytes the payload's `content` takes inside the request body: the API receives it as a JSON string
 * value, so every quote, backslash and newline of the serialized content is escaped once more.
 */
export function requestBytes(payload: FeishuPayload): number {
  return Buffer.byteLength(JSON.stringify(payload.content), "utf8");
}

function postPayload(units: Unit[], locale: string): FeishuPayload {
  const content = units.map((unit): PostElement[] => {
    if (unit.kind === "code")
      return [{ tag: "code_block", language: codeLanguage(unit.lang), text: unit.text }];
    return unit.bold ? [{ tag: "text", text: unit.text, style: ["bold"] }] : inlineElements(unit.text);
  });
  return { msg_type: "post", content: JSON.stringify({ [locale]: { title: "", content } }) };
}

/** A text line as post elements: `**bold**` spans become bold text, the rest plain text. */
function inlineElements(text: string): PostElement[] {
  const elements: PostElement[] = [];
  let last = 0;
  for (const match of text.matchAll(/\*\*([^*\n]+?)\*\*/g)) {
    const start = match.index ?? 0;
    if (start > last) elements.push({ tag: "text", text: text.slice(last, start) });
    elements.push({ tag: "text", text: match[1] ?? "", style: ["bold"] });
    last = start + match[0].length;
  }
  if (last < text.length || elements.length === 0) elements.push({ tag: "text", text: text.slice(last) });
  return elements;
}

function codeLanguage(lang: string | undefined): string {
  const cleaned = (lang ?? "")
    .trim()
    .toUpperCase()
    .replace(/[^A-Z0-9_+#]/g, "_");
  return cleaned.length > 0 ? cleaned : "PLAIN_TEXT";
}

/** Plain-text messages from units: code fenced, fences closed and reopened across message breaks. */
function textPayloads(units: Unit[], limits: { maxChars: number; maxContentBytes: number }): FeishuPayload[] {
  const text = unitsToMarkdown(units);
  return chunkFencedText(text, limits.maxChars).map((chunk) => ({
    msg_type: "text",
    content: JSON.stringify({ text: defuseAt(chunk) }),
  }));
}

/**
 * Breaks every `<at` (and `</at`) so a text message shows it literally instead of mentioning someone:
 * Feishu parses `<at user_id="…">` in text messages, and `user_id="all"` pings the whole chat.
 */
export function defuseAt(text: string): string {
  return text.replace(/<(\/?)(at)(?=[\s>/])/gi, "<\u200b$1$2");
}

function unitsToMarkdown(units: Unit[]): string {
  return units
    .map((unit) => (unit.kind === "code" ? `\`\`\`${unit.lang ?? ""}\n${unit.text}\n\`\`\`` : unit.text))
    .join("\n");
}

/**
 * Splits text into chunks of at most `max` characters at line boundaries. When a chunk ends inside a
 * ``` fence, it is closed there and reopened (with its language) at the start of the next chunk.
 */
export function chunkFencedText(text: string, max: number): string[] {
  const closing = "\n```";
  const chunks: string[] = [];
  let current = "";
  let openFence: string | null = null; // the opening line of the fence we are inside, e.g. "```ts"
  const flush = () => {
    if (current.trim().length === 0) {
      current = "";
      return;
    }
    chunks.push(openFence ? `${current}${closing}` : current);
    current = openFence ? openFence : "";
  };
  for (const rawLine of text.split("\n")) {
    const reserve = closing.length + 32; // room to close a fence and reopen one
    const pieces = rawLine.length > max - reserve ? splitText(rawLine, max - reserve, " ") : [rawLine];
    for (const [index, line] of pieces.entries()) {
      // Pieces of one long line rejoin without a newline (each keeps its trailing space).
      const separator = () => (current.length === 0 ? "" : index > 0 && current !== openFence ? "" : "\n");
      const fenceAfter = fenceState(line, openFence);
      const needsClose = fenceAfter !== null ? closing.length : 0;
      if (current.length > 0 && current.length + separator().length + line.length + needsClose > max) flush();
      current += separator() + line;
      openFence = fenceAfter;
    }
  }
  if (current.trim().length > 0 && current !== openFence) chunks.push(current);
  return chunks.length > 0 ? chunks : [""];
}

/** The fence state after `line`: the opening line while inside a fence, null outside. */
function fenceState(line: string, open: string | null): string | null {
  if (!line.trimStart().startsWith("```")) return open;
  return open === null ? line.trim() : null;
}
