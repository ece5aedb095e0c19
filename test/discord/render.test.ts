import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  chunkMarkdown,
  codeFence,
  escapeInline,
  renderReply,
  replyToMarkdown,
  splitFiles,
} from "../../adapters/discord/render.js";
import { reply } from "../../src/core/reply.js";

/** Every line of `chunk` that opens or closes a fence. */
function fenceLines(chunk: string): string[] {
  return chunk.split("\n").filter((line) => /^```[\w+#.-]{0,20}\s*$/.test(line));
}

/** The text with fence lines and all whitespace removed: what must survive chunking unchanged. */
function substance(text: string): string {
  return text
    .split("\n")
    .filter((line) => !/^```[\w+#.-]{0,20}\s*$/.test(line))
    .join("")
    .replace(/\s+/g, "");
}

describe("replyToMarkdown", () => {
  it("renders headings bold, lists, code and tables", () => {
    const markdown = replyToMarkdown(
      reply([
        { kind: "heading", text: "Curator" },
        { kind: "paragraph", text: "state: `enabled`" },
        { kind: "list", items: ["one", "two"] },
        { kind: "list", items: ["first"], ordered: true },
        { kind: "code", text: "x = 1", lang: "py" },
        { kind: "table", headers: ["name", "state"], rows: [["pdf-tools", "active"]] },
        { kind: "attachment", name: "report.md", text: "# report" },
      ]),
    );
    expect(markdown).toBe(
      [
        "**Curator**",
        "state: `enabled`",
        "- one\n- two",
        "1\\. first",
        "```py\nx = 1\n```",
        "```\nname       state\npdf-tools  active\n```",
        "**report.md**\n```\n# report\n```",
      ].join("\n\n"),
    );
  });

  it("escapes markdown in plain text but not inside inline code", () => {
    expect(escapeInline("pdf_tools *bold* ~x~ a|b")).toBe("pdf\\_tools \\*bold\\* \\~x\\~ a\\|b");
    expect(escapeInline("run `curator_run --dry-run` now_")).toBe("run `curator_run --dry-run` now\\_");
    expect(escapeInline("odd ` tick_")).toBe("odd \\` tick\\_");
    expect(escapeInline("> quote\n# title\n- item")).toBe("\\> quote\n\\# title\n\\- item");
  });

  it("defuses @everyone and @here", () => {
    expect(escapeInline("ping @everyone and @here")).not.toMatch(/@everyone|@here/);
  });

  it("keeps a code block's content from closing its fence early", () => {
    const fenced = codeFence("before\n```\nafter", "md");
    expect(fenceLines(fenced)).toEqual(["```md", "```"]);
  });
});

describe("chunkMarkdown", () => {
  it("returns one chunk when the text fits and none for empty text", () => {
    expect(chunkMarkdown("hello")).toEqual(["hello"]);
    expect(chunkMarkdown("")).toEqual([]);
  });

  it("splits a 10,000-character reply into chunks of at most 2000 with nothing lost", () => {
    const lines = Array.from({ length: 200 }, (_unused, index) => `line ${index} ${"x".repeat(40)}`);
    const text = lines.join("\n");
    const chunks = chunkMarkdown(text);
    expect(chunks.length).toBeGreaterThanOrEqual(Math.ceil(text.length / 2000));
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(2000);
    expect(chunks.join("\n")).toBe(text);
  });

  it("closes a code fence at a split and reopens it with its language", () => {
    const code = Array.from({ length: 120 }, (_unused, index) => `print(${index}) # ${"y".repeat(20)}`).join(
      "\n",
    );
    const chunks = renderReply(
      reply([
        { kind: "paragraph", text: "intro" },
        { kind: "code", text: code, lang: "python" },
      ]),
    );
    expect(chunks.length).toBeGreaterThan(1);
    for (const [index, chunk] of chunks.entries()) {
      expect(chunk.length).toBeLessThanOrEqual(2000);
      expect(fenceLines(chunk).length % 2).toBe(0);
      if (index > 0) expect(chunk.startsWith("```python\n")).toBe(true);
      expect(chunk.endsWith("```")).toBe(true);
    }
  });

  it("cuts a single over-long line and never splits a surrogate pair", () => {
    const text = "😀".repeat(3000);
    const chunks = chunkMarkdown(text);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(2000);
      expect(/^[\uDC00-\uDFFF]/.test(chunk)).toBe(false);
      expect(/[\uD800-\uDBFF]$/.test(chunk)).toBe(false);
    }
    expect(chunks.join("")).toBe(text);
  });

  it("closes an unterminated fence at the end", () => {
    const chunks = chunkMarkdown(`\`\`\`js\n${"a();\n".repeat(600)}`, 500);
    expect(fenceLines(chunks.at(-1) ?? "").length % 2).toBe(0);
  });

  it("rejects a limit too small to hold a reopened fence", () => {
    expect(() => chunkMarkdown("x".repeat(100), 10)).toThrow(RangeError);
  });

  it("property: chunks fit, fences balance, and the content survives", () => {
    const line = fc.oneof(
      fc.string({ maxLength: 120 }).map((text) => text.replace(/\n/g, " ")),
      fc.constantFrom("```", "```ts", "```python", ""),
      fc.string({ minLength: 200, maxLength: 900 }).map((text) => text.replace(/\n/g, " ")),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 60 }), fc.integer({ min: 40, max: 600 }), (lines, limit) => {
        const text = lines.join("\n");
        const chunks = chunkMarkdown(text, limit);
        for (const chunk of chunks) {
          expect(chunk.length).toBeLessThanOrEqual(limit);
          expect(fenceLines(chunk).length % 2).toBe(0);
        }
        expect(substance(chunks.join("\n"))).toBe(substance(text));
      }),
      { numRuns: 300 },
    );
  });
});

describe("splitFiles", () => {
  it("takes file blocks out as attachments (UTF-8 bytes, safe name) and leaves the rest to render", () => {
    const text = "héllo ```\nworld";
    const { text: rest, files } = splitFiles(
      reply([
        { kind: "paragraph", text: "The full answer is in the attached file." },
        { kind: "file", name: "skills view/a b.txt", text },
      ]),
    );
    expect(files).toHaveLength(1);
    expect(files[0]?.name).toBe("skills_view_a_b.txt");
    expect(files[0]?.data.equals(Buffer.from(text, "utf8"))).toBe(true);
    expect(rest.blocks).toEqual([{ kind: "paragraph", text: "The full answer is in the attached file." }]);
    // The file's text is not rendered into the message.
    expect(renderReply(rest).join("")).not.toContain("world");
  });

  it("keeps a reply without files as it is and never yields an empty or hidden name", () => {
    const plain = reply([{ kind: "paragraph", text: "hi" }]);
    expect(splitFiles(plain)).toEqual({ text: plain, files: [] });
    const odd = splitFiles(reply([{ kind: "file", name: "../..", text: "x" }]));
    expect(odd.files[0]?.name).toBe("_..");
    expect(splitFiles(reply([{ kind: "file", name: "", text: "x" }])).files[0]?.name).toBe("reply.txt");
  });
});
