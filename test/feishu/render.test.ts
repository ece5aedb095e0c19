import { describe, expect, it } from "vitest";
import {
  chunkFencedText,
  FEISHU_MAX_CHARS,
  FEISHU_MAX_CONTENT_BYTES,
  type FeishuPayload,
  fileMessage,
  postToTextPayloads,
  renderReply,
  renderText,
  splitText,
  splitUploads,
} from "../../adapters/feishu/render.js";
import { reply, textReply } from "../../src/core/reply.js";

type PostBody = {
  title: string;
  content: { tag: string; text: string; language?: string; style?: string[] }[][];
};

function postBody(payload: FeishuPayload, locale = "zh_cn"): PostBody {
  expect(payload.msg_type).toBe("post");
  const parsed = JSON.parse(payload.content) as Record<string, PostBody>;
  expect(Object.keys(parsed)).toEqual([locale]);
  return parsed[locale]!;
}

function postVisibleText(payload: FeishuPayload): string {
  return postBody(payload)
    .content.map((p) => p.map((e) => e.text).join(""))
    .join("\n");
}

describe("feishu renderReply (post)", () => {
  it("renders headings bold, lists as lines, code and tables as code blocks", () => {
    const payloads = renderReply(
      reply([
        { kind: "heading", text: "Curator" },
        { kind: "paragraph", text: "state: enabled" },
        { kind: "list", items: ["a", "b"], ordered: true },
        { kind: "code", text: "echo hi", lang: "bash" },
        { kind: "table", headers: ["name", "state"], rows: [["pdf", "active"]] },
      ]),
    );
    expect(payloads).toHaveLength(1);
    const body = postBody(payloads[0]!);
    expect(body.content[0]).toEqual([{ tag: "text", text: "Curator", style: ["bold"] }]);
    const flat = body.content.flat();
    expect(flat).toContainEqual({ tag: "text", text: "1. a" });
    expect(flat).toContainEqual({ tag: "code_block", language: "BASH", text: "echo hi" });
    const table = flat.find((e) => e.tag === "code_block" && e.text.includes("pdf"));
    expect(table?.text).toBe("name  state\npdf   active");
    expect(table?.language).toBe("PLAIN_TEXT");
  });

  it("renders **bold** spans as bold text elements and back to plain text for the fallback", () => {
    const [payload] = renderReply(textReply("The **arxiv** skill is off; use `x`"));
    expect(postBody(payload!).content[0]).toEqual([
      { tag: "text", text: "The " },
      { tag: "text", text: "arxiv", style: ["bold"] },
      { tag: "text", text: " skill is off; use `x`" },
    ]);
    const [text] = postToTextPayloads(payload!);
    expect(JSON.parse(text!.content)).toEqual({ text: "The arxiv skill is off; use `x`" });
  });

  it("uses the en_us locale when asked", () => {
    const [payload] = renderReply(textReply("hello"), { locale: "en_us" });
    expect(postBody(payload!, "en_us").content).toEqual([[{ tag: "text", text: "hello" }]]);
  });

  it("splits a 10,000-character reply into parts within the cap that together keep every word", () => {
    const words = Array.from({ length: 1300 }, (_, i) => `w${String(i).padStart(6, "0")}`);
    const text = words.join(" ");
    expect(text.length).toBeGreaterThanOrEqual(10_000);
    const payloads = renderReply(textReply(text));
    expect(payloads.length).toBeGreaterThanOrEqual(2);
    for (const payload of payloads) {
      expect(postVisibleText(payload).length).toBeLessThanOrEqual(FEISHU_MAX_CHARS);
      expect(Buffer.byteLength(payload.content)).toBeLessThanOrEqual(FEISHU_MAX_CONTENT_BYTES);
    }
    expect(payloads.map(postVisibleText).join("")).toBe(text);
  });

  it("splits a long code block into several balanced code blocks with every line kept", () => {
    const lines = Array.from({ length: 400 }, (_, i) => `line ${i} ${"x".repeat(40)}`);
    const payloads = renderReply(
      reply([
        { kind: "paragraph", text: "intro" },
        { kind: "code", text: lines.join("\n"), lang: "ts" },
      ]),
      { maxChars: 4000 },
    );
    expect(payloads.length).toBeGreaterThanOrEqual(5);
    const codeLines = payloads
      .flatMap((p) =>
        postBody(p)
          .content.flat()
          .filter((e) => e.tag === "code_block"),
      )
      .flatMap((e) => {
        expect(e.language).toBe("TS");
        return e.text.split("\n");
      });
    expect(codeLines).toEqual(lines);
  });

  it("keeps each message under the byte cap even when escaping inflates it", () => {
    const text = '"\\'.repeat(3000); // each character doubles when JSON-escaped
    const payloads = renderReply(textReply(text), { maxContentBytes: 4000 });
    expect(payloads.length).toBeGreaterThan(1);
    for (const payload of payloads) expect(Buffer.byteLength(payload.content)).toBeLessThanOrEqual(4000);
    expect(payloads.map(postVisibleText).join("")).toBe(text);
  });

  it("never splits a surrogate pair", () => {
    const text = "😀".repeat(3000);
    const payloads = renderReply(textReply(text), { maxChars: 1001 });
    for (const payload of payloads)
      expect(postVisibleText(payload)).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(payloads.map(postVisibleText).join("")).toBe(text);
  });

  it("renders an empty reply as one empty message rather than none", () => {
    expect(renderReply(reply([]))).toHaveLength(1);
  });
});

describe("feishu renderText (plain fallback)", () => {
  it("fences code and closes/reopens the fence across parts", () => {
    const code = Array.from({ length: 300 }, (_, i) => `print(${i})`).join("\n");
    const payloads = renderText(
      reply([
        { kind: "paragraph", text: "run this:" },
        { kind: "code", text: code, lang: "python" },
      ]),
      { maxChars: 1000 },
    );
    expect(payloads.length).toBeGreaterThan(2);
    const texts = payloads.map((p) => {
      expect(p.msg_type).toBe("text");
      return (JSON.parse(p.content) as { text: string }).text;
    });
    for (const text of texts) {
      expect(text.length).toBeLessThanOrEqual(1000);
      expect((text.match(/```/g) ?? []).length % 2).toBe(0);
    }
    expect(texts[1]!.startsWith("```python\n")).toBe(true);
    const rebuilt = texts.join("\n").replace(/\n```\n```python/g, "");
    expect(rebuilt).toBe(`run this:\n\n\`\`\`python\n${code}\n\`\`\``);
  });

  it("turns a rendered post back into text messages with the same content", () => {
    const original = reply([
      { kind: "heading", text: "Report" },
      { kind: "code", text: "a\nb", lang: "sh" },
    ]);
    const [post] = renderReply(original);
    const texts = postToTextPayloads(post!).map((p) => (JSON.parse(p.content) as { text: string }).text);
    expect(texts).toEqual(["Report\n\n```sh\na\nb\n```"]);
  });

  it("splitText prefers spaces and chunkFencedText never exceeds the cap", () => {
    expect(splitText("aaaa bbbb cccc", 10, " ")).toEqual(["aaaa bbbb ", "cccc"]);
    const chunks = chunkFencedText(`${"word ".repeat(500)}\n\`\`\`\n${"z".repeat(900)}\n\`\`\``, 300);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(300);
  });
});

describe("file parts", () => {
  it("splits file blocks off as stream uploads (UTF-8 bytes) and leaves the rest to render", () => {
    const text = "ünïcode\n```\nline 2";
    const { text: rest, uploads } = splitUploads(
      reply([
        { kind: "paragraph", text: "The full answer is in the attached file skills.txt." },
        { kind: "file", name: "skills.txt", text },
      ]),
    );
    expect(uploads).toEqual([
      { file_type: "stream", file_name: "skills.txt", data: Buffer.from(text, "utf8") },
    ]);
    expect(rest.blocks).toEqual([
      { kind: "paragraph", text: "The full answer is in the attached file skills.txt." },
    ]);
    expect(JSON.stringify(renderReply(rest))).not.toContain("line 2");
  });

  it("names a nameless file and leaves a reply without files as it is", () => {
    expect(splitUploads(reply([{ kind: "file", name: "  ", text: "x" }])).uploads[0]?.file_name).toBe(
      "reply.txt",
    );
    const plain = reply([{ kind: "paragraph", text: "hi" }]);
    expect(splitUploads(plain)).toEqual({ text: plain, uploads: [] });
  });

  it("a file message names the uploaded file's key", () => {
    expect(fileMessage("file_v3_abc")).toEqual({
      msg_type: "file",
      content: JSON.stringify({ file_key: "file_v3_abc" }),
    });
  });
});
