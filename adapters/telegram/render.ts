/**
 * `Reply` → Telegram messages. Pure. Telegram HTML is used because it needs only `& < >` escaped
 * (MarkdownV2's reserved set is a classic source of "can't parse entities"). Long replies are cut into
 * chunks of at most 4096 UTF-16 units: a cut never falls inside an escape like `&amp;`, a tag or a
 * surrogate pair, and tags open at a cut (a `<pre>` code block) are closed at the end of one chunk and
 * reopened at the start of the next, so every chunk parses on its own.
 */
import {
  formatTable,
  type LocalizedBlock,
  localizeReply,
  type Reply,
  replyToPlainText,
} from "../../src/core/reply.js";

/** Telegram's limit for one message, in UTF-16 code units. */
export const TELEGRAM_MAX_LENGTH = 4096;

/** One `sendMessage` payload. */
export interface TelegramChunk {
  text: string;
  parse_mode: "HTML";
}

/** Renders a reply as HTML chunks, each at most `limit` UTF-16 units including the `(i/N)` marker. */
export function renderReply(reply: Reply, limit = TELEGRAM_MAX_LENGTH): TelegramChunk[] {
  const html = renderHtml(reply);
  if (html.length <= limit) return [{ text: html, parse_mode: "HTML" }];
  const parts = chunkHtml(html, limit - MARKER_RESERVE);
  return parts.map((text, index) => ({
    text: `${text}\n${marker(index, parts.length)}`,
    parse_mode: "HTML",
  }));
}

/** Renders a reply as plain-text chunks (the fallback when HTML is refused). */
export function renderPlain(reply: Reply, limit = TELEGRAM_MAX_LENGTH): string[] {
  const text = replyToPlainText(reply).trim() || "(empty reply)";
  if (text.length <= limit) return [text];
  const atoms = Array.from(text, (char) => ({ kind: "text" as const, html: char }));
  const parts = cutAtoms(atoms, limit - MARKER_RESERVE).map((range) =>
    range.atoms.map((atom) => atom.html).join(""),
  );
  return parts.map((part, index) => `${part}\n${marker(index, parts.length)}`);
}

/** The plain text of one HTML chunk: tags dropped, escapes undone. Never longer than the chunk. */
export function htmlToPlain(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");
}

/** Escapes text for Telegram HTML. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Room kept for "\n(12/12)". */
const MARKER_RESERVE = 10;

function marker(index: number, total: number): string {
  return `(${index + 1}/${total})`;
}

/** The whole reply as one Telegram HTML string, in the reply's locale. */
export function renderHtml(reply: Reply): string {
  const html = localizeReply(reply)
    .blocks.map(renderBlock)
    .filter((part) => part !== "")
    .join("\n\n");
  // Telegram refuses a message with no visible text.
  return hasVisibleText(html) ? html : "(empty reply)";
}

/**
 * Some text between tags that is not whitespace (an entity counts: it shows a character). A scan, not
 * `htmlToPlain(html).trim()`: every reply is checked, and five passes of string copies showed up in the
 * gateway's allocation profile.
 */
const VISIBLE_TEXT = /(?:^|>)[^<]*[^\s<]/;

/** True when `html` (our own Telegram HTML) shows any character. */
export function hasVisibleText(html: string): boolean {
  return VISIBLE_TEXT.test(html);
}

function renderBlock(block: LocalizedBlock): string {
  switch (block.kind) {
    case "heading":
      return `<b>${inline(block.text)}</b>`;
    case "paragraph":
      return inline(block.text);
    case "list":
      return block.items
        .map((item, index) => `${block.ordered ? `${index + 1}.` : "•"} ${inline(item)}`)
        .join("\n");
    case "code":
      return preBlock(block.text, block.lang);
    case "table":
      return preBlock(formatTable(block.headers, block.rows));
    case "attachment":
    case "file":
      return `<b>${escapeHtml(block.name)}</b>\n${preBlock(block.text)}`;
  }
}

function preBlock(text: string, lang?: string): string {
  const body = escapeHtml(text.replace(/\n+$/, ""));
  if (lang && /^[\w+#.-]+$/.test(lang)) return `<pre><code class="language-${lang}">${body}</code></pre>`;
  return `<pre>${body}</pre>`;
}

/** Plain text with `code` spans: the spans become `<code>`, everything is escaped. */
function inline(text: string): string {
  const pieces = text.split("`");
  // An odd number of backticks leaves the last one unmatched: keep it as a literal backtick.
  const closed =
    pieces.length % 2 === 1 ? pieces : [...pieces.slice(0, -2), `${pieces.at(-2)}\`${pieces.at(-1)}`];
  return closed
    .map((piece, index) =>
      index % 2 === 1 && piece !== "" ? `<code>${escapeHtml(piece)}</code>` : escapeHtml(piece),
    )
    .join("");
}

/** An indivisible piece of HTML: a tag, an entity, one whitespace character or a short run of text. */
type Atom = OpenAtom | { kind: "close"; html: string; name: string } | { kind: "text"; html: string };

/** An opening tag; the stack of these says what is open at a cut. */
type OpenAtom = { kind: "open"; html: string; name: string };

/**
 * Splits our own HTML (well-formed by construction) into atoms. Text comes in runs of up to
 * 32 code points between whitespace, so a long reply costs a few atoms per word rather than
 * one per character; a hard cut (no newline or space to break at) lands at most one run early.
 */
function atomize(html: string): Atom[] {
  const atoms: Atom[] = [];
  const pattern = /<(\/?)([a-z-]+)[^>]*>|&[a-z]+;|&#\d+;|[^<&\s]{1,32}|[\s\S]/gu;
  for (const match of html.matchAll(pattern)) {
    const [whole, slash, name] = match;
    if (name !== undefined) atoms.push({ kind: slash ? "close" : "open", html: whole, name });
    else atoms.push({ kind: "text", html: whole });
  }
  return atoms;
}

/** A cut: the atoms of one chunk plus the tags open where it starts and where it ends. */
interface Range {
  atoms: Atom[];
  openAtStart: OpenAtom[];
  openAtEnd: OpenAtom[];
}

/** Cuts well-formed HTML into chunks of at most `limit` units, balancing tags across cuts. */
export function chunkHtml(html: string, limit: number): string[] {
  return cutAtoms(atomize(html), limit).map((range) => {
    const opening = range.openAtStart.map((atom) => atom.html).join("");
    const body = range.atoms.map((atom) => atom.html).join("");
    const closing = closingTags(range.openAtEnd);
    return `${opening}${body}${closing}`;
  });
}

function closingTags(stack: OpenAtom[]): string {
  return stack
    .map((atom) => `</${atom.name}>`)
    .reverse()
    .join("");
}

function applyAtom(stack: OpenAtom[], atom: Atom): OpenAtom[] {
  if (atom.kind === "open") return [...stack, atom];
  if (atom.kind === "close") return stack.slice(0, -1);
  return stack;
}

function stackLength(stack: OpenAtom[]): { open: number; close: number } {
  let open = 0;
  let close = 0;
  for (const atom of stack) {
    open += atom.html.length;
    close += atom.name.length + 3;
  }
  return { open, close };
}

interface Break {
  index: number;
  stack: OpenAtom[];
  used: number;
}

/**
 * Greedy cut: fills each chunk, then steps back to the last newline (or else space) in the chunk's
 * second half so lines stay whole; a hard cut between atoms is the last resort.
 */
function cutAtoms(atoms: Atom[], limit: number): Range[] {
  const ranges: Range[] = [];
  let start = 0;
  let openAtStart: OpenAtom[] = [];
  while (start < atoms.length) {
    let stack = openAtStart;
    let used = stackLength(stack).open;
    let index = start;
    let newline: Break | undefined;
    let space: Break | undefined;
    while (index < atoms.length) {
      const atom = atoms[index] as Atom;
      const next = applyAtom(stack, atom);
      if (used + atom.html.length + stackLength(next).close > limit) break;
      used += atom.html.length;
      stack = next;
      index += 1;
      if (atom.html === "\n") newline = { index, stack, used };
      else if (atom.html === " ") space = { index, stack, used };
    }
    let cut: Break = { index, stack, used };
    if (index < atoms.length) {
      if (newline && newline.used >= limit / 2) cut = newline;
      else if (space && space.used >= limit / 2) cut = space;
    }
    if (cut.index === start) {
      // A single atom that does not fit even alone cannot happen with our tags; take it anyway.
      cut = { index: start + 1, stack: applyAtom(stack, atoms[start] as Atom), used };
    }
    cut = dropTrailingOpens(atoms, start, cut);
    ranges.push({ atoms: atoms.slice(start, cut.index), openAtStart, openAtEnd: cut.stack });
    start = cut.index;
    openAtStart = cut.stack;
  }
  return ranges;
}

/** Never end a chunk on a freshly opened tag: it would be an empty element there and open again next. */
function dropTrailingOpens(atoms: Atom[], start: number, cut: Break): Break {
  let { index, stack } = cut;
  while (index > start + 1 && atoms[index - 1]?.kind === "open") {
    index -= 1;
    stack = stack.slice(0, -1);
  }
  return { index, stack, used: cut.used };
}
