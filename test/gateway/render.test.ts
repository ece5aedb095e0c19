import { describe, expect, it } from "vitest";
import { renderJson, renderTerminal } from "../../src/core/render-terminal.js";
import { reply, textReply } from "../../src/core/reply.js";

const sample = reply([
  { kind: "heading", text: "Status" },
  { kind: "paragraph", text: "Use `skillgate curator pin x`." },
  { kind: "list", items: ["one", "two\nlines"] },
  { kind: "list", items: ["a", "b"], ordered: true },
  { kind: "code", text: "x = 1\n" },
  {
    kind: "table",
    headers: ["name", "uses"],
    rows: [
      ["pdf-tools", "12"],
      ["x", "3"],
    ],
  },
]);

describe("renderTerminal", () => {
  it("renders every block kind as plain text without a TTY", () => {
    const text = renderTerminal(sample);
    expect(text).toBe(
      `${[
        "Status",
        "Use `skillgate curator pin x`.",
        "- one\n- two\n  lines",
        "1. a\n2. b",
        "x = 1",
        "name       uses\npdf-tools  12\nx          3",
      ].join("\n\n")}\n`,
    );
    expect(text).not.toContain("\u001b[");
  });
  it("styles headings and inline code with colour on", () => {
    const text = renderTerminal(sample, { color: true });
    expect(text).toContain("\u001b[1mStatus");
    expect(text).toContain("\u001b[36mskillgate curator pin x\u001b[39m");
    expect(text).not.toContain("`skillgate");
  });
  it("renders an empty reply as nothing", () => {
    expect(renderTerminal(reply([]))).toBe("");
  });
});

describe("renderJson", () => {
  it("prints the reply's json document", () => {
    expect(JSON.parse(renderJson(reply([{ kind: "paragraph", text: "x" }], { json: { a: 1 } })))).toEqual({
      a: 1,
    });
  });
  it("falls back to {ok, text}", () => {
    expect(JSON.parse(renderJson(textReply("done")))).toEqual({ ok: true, text: "done" });
    expect(JSON.parse(renderJson(textReply("no", { exitCode: 1 })))).toEqual({ ok: false, text: "no" });
  });
  it("is exactly one document followed by a newline", () => {
    const out = renderJson(textReply("a\n\nb"));
    expect(out.endsWith("}\n")).toBe(true);
    expect(() => JSON.parse(out)).not.toThrow();
  });
});
