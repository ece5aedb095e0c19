import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  hasVisibleText,
  htmlToPlain,
  renderHtml,
  renderPlain,
  renderReply,
} from "../../adapters/telegram/render.js";
import { type Reply, type ReplyBlock, reply, textReply } from "../../src/core/reply.js";
import { parseTelegramHtml } from "../emulators/telegram.js";

const MARKER = /\n\(\d+\/\d+\)$/;

/** The visible text of a chunk without its `(i/N)` marker. */
function body(chunk: string): string {
  return htmlToPlain(chunk).replace(MARKER, "");
}

function expectValidChunks(value: Reply, limit = 4096): string[] {
  const chunks = renderReply(value, limit);
  for (const chunk of chunks) {
    expect(chunk.parse_mode).toBe("HTML");
    expect(chunk.text.length).toBeLessThanOrEqual(limit);
    expect(parseTelegramHtml(chunk.text).ok).toBe(true);
    // No chunk starts or ends in the middle of a surrogate pair.
    expect(/^[\uDC00-\uDFFF]/.test(chunk.text)).toBe(false);
    expect(/[\uD800-\uDBFF]$/.test(chunk.text)).toBe(false);
  }
  const whole = parseTelegramHtml(renderHtml(value));
  if (!whole.ok) throw new Error(whole.error);
  expect(chunks.map((chunk) => body(chunk.text)).join("")).toBe(
    chunks.length === 1 ? htmlToPlain(chunks[0]?.text ?? "") : whole.plain,
  );
  return chunks.map((chunk) => chunk.text);
}

describe("renderReply", () => {
  it("escapes & < > and styles headings, inline code, lists and tables", () => {
    const value = reply([
      { kind: "heading", text: "Curator <status>" },
      { kind: "paragraph", text: "state: enabled & running; run `curator pin <skill>` to keep one" },
      { kind: "list", items: ["a < b", "`x&y`"] },
      { kind: "list", items: ["first", "second"], ordered: true },
      {
        kind: "table",
        headers: ["name", "state"],
        rows: [
          ["pdf-tools", "active"],
          ["<old>", "stale"],
        ],
      },
    ]);
    const [chunk, ...rest] = renderReply(value);
    expect(rest).toEqual([]);
    expect(chunk?.text).toBe(
      [
        "<b>Curator &lt;status&gt;</b>",
        "state: enabled &amp; running; run <code>curator pin &lt;skill&gt;</code> to keep one",
        "• a &lt; b\n• <code>x&amp;y</code>",
        "1. first\n2. second",
        "<pre>name       state\npdf-tools  active\n&lt;old&gt;      stale</pre>",
      ].join("\n\n"),
    );
    expect(parseTelegramHtml(chunk?.text ?? "").ok).toBe(true);
  });

  it("renders code blocks with a language class and keeps an unmatched backtick literal", () => {
    const value = reply([
      { kind: "code", text: "if (a < b) {}\n", lang: "ts" },
      { kind: "paragraph", text: "a ` alone" },
      { kind: "attachment", name: "report.md", text: "# Report" },
    ]);
    expect(renderReply(value)[0]?.text).toBe(
      '<pre><code class="language-ts">if (a &lt; b) {}</code></pre>\n\na ` alone\n\n<b>report.md</b>\n<pre># Report</pre>',
    );
  });

  it("cuts a 10,000-character reply into complete chunks of at most 4096 units, lines kept whole", () => {
    const lines = Array.from(
      { length: 200 },
      (_, index) => `skill-${String(index).padStart(3, "0")}: ${"x".repeat(40)}`,
    );
    const value = textReply(lines.join("\n"));
    const chunks = expectValidChunks(value);
    expect(chunks.length).toBe(3);
    expect(chunks.map((chunk) => chunk.match(MARKER)?.[0])).toEqual(["\n(1/3)", "\n(2/3)", "\n(3/3)"]);
    for (const chunk of chunks) {
      for (const line of body(chunk).split("\n").filter(Boolean))
        expect(line).toMatch(/^skill-\d{3}: x{40}$/);
    }
  });

  it("closes a code block at a cut and reopens it with its language in the next chunk", () => {
    const code = Array.from(
      { length: 300 },
      (_, index) => `const value${index} = ${index} < limit && ready;`,
    ).join("\n");
    const value = reply([
      { kind: "paragraph", text: "Here is the file:" },
      { kind: "code", text: code, lang: "ts" },
    ]);
    const chunks = expectValidChunks(value);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks.slice(0, -1))
      expect(chunk.replace(MARKER, "").endsWith("</code></pre>")).toBe(true);
    for (const chunk of chunks.slice(1))
      expect(chunk.startsWith('<pre><code class="language-ts">')).toBe(true);
  });

  it("never splits an escape or a surrogate pair, even with no line breaks", () => {
    const value = textReply("&<>😀".repeat(3000));
    const chunks = expectValidChunks(value);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(/&(?!amp;|lt;|gt;)/.test(chunk)).toBe(false);
  });

  it("keeps every chunk valid and the content complete for arbitrary replies", () => {
    const text = fc.string({
      unit: fc.constantFrom("a", "b", " ", "\n", "&", "<", ">", "`", "é", "😀", "\u{1F468}\u200D\u{1F469}"),
      maxLength: 3000,
    });
    const block: fc.Arbitrary<ReplyBlock> = fc.oneof(
      text.map((value) => ({ kind: "paragraph" as const, text: value })),
      text.map((value) => ({ kind: "heading" as const, text: value })),
      fc
        .tuple(text, fc.constantFrom(undefined, "py"))
        .map(([value, lang]) => ({ kind: "code" as const, text: value, lang })),
      fc.array(text, { maxLength: 5 }).map((items) => ({ kind: "list" as const, items })),
    );
    fc.assert(
      fc.property(fc.array(block, { maxLength: 8 }), fc.integer({ min: 200, max: 4096 }), (blocks, limit) => {
        expectValidChunks(reply(blocks), limit);
      }),
      { numRuns: 150 },
    );
  });
});

describe("renderPlain and htmlToPlain", () => {
  it("gives the same content as plain text chunks", () => {
    const value = textReply(`${"word ".repeat(2000)}\n\ntail & <end>`);
    const chunks = renderPlain(value);
    expect(chunks.length).toBe(3);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(4096);
    expect(chunks.map((chunk) => chunk.replace(MARKER, "")).join("")).toBe(
      `${"word ".repeat(2000)}\n\ntail & <end>`,
    );
  });

  it("undoes escapes and drops tags", () => {
    expect(htmlToPlain("<b>a &amp;lt; b</b> &lt;x&gt;")).toBe("a &lt; b <x>");
  });

  it("sends (empty reply) exactly when nothing visible is left, agreeing with htmlToPlain", () => {
    const blank: ReplyBlock[] = [
      { kind: "paragraph", text: "" },
      { kind: "code", text: " \n\t " },
      { kind: "heading", text: "  " },
      { kind: "list", items: ["", " "] },
    ];
    // A list item's bullet is visible, so only the first three are blank on their own.
    for (const block of blank.slice(0, 3)) expect(renderHtml(reply([block]))).toBe("(empty reply)");
    expect(renderHtml(reply(blank.slice(0, 3)))).toBe("(empty reply)");
    for (const text of ["&", "<", "`x`", " a ", "\n\n."]) {
      const html = renderHtml(
        reply([
          { kind: "code", text: "  " },
          { kind: "paragraph", text },
        ]),
      );
      expect(html, text).not.toBe("(empty reply)");
      expect(htmlToPlain(html).trim(), text).not.toBe("");
    }
    // The scan agrees with stripping tags and escapes, on any mix of our tags, entities and text.
    const units = ["<b>", "</b>", "<pre>", "</pre>", '<code class="language-ts">', "</code>", " ", "\n"];
    const piece = fc.constantFrom(...units, "&amp;", "&lt;", "&gt;", "a", ".");
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const html = pieces.join("");
        expect(hasVisibleText(html)).toBe(htmlToPlain(html).trim() !== "");
      }),
    );
  });
});
