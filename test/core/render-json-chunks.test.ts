/**
 * `--json` written in pieces (`renderJsonChunks`): joined, the pieces are byte for byte the document
 * `renderJson` gives, whatever the data (non-ASCII names, escapes, empty and missing fields, holes), and
 * a large listing really comes in pieces.
 */
import { describe, expect, it } from "vitest";
import { renderJson, renderJsonChunks } from "../../src/core/render-terminal.js";
import { type Reply, reply, textReply } from "../../src/core/reply.js";

function joined(value: Reply, chunkChars?: number): string {
  return [...renderJsonChunks(value, chunkChars)].join("");
}

const awkwardNames = [
  "技能-列表",
  "繁體技能",
  "emoji-🚀-skill",
  'quote"and\\backslash',
  'comma","inside',
  "line\nbreak\ttab\u0000nul\u001f",
  "lone-surrogate-\ud800",
  "\u2028separators\u2029",
  "",
];

function listing(count: number): Record<string, unknown> {
  const skills = Array.from({ length: count }, (_, index) => ({
    name: `${awkwardNames[index % awkwardNames.length]}${index}`,
    description: `说明 ${index}: ${"x".repeat(index % 300)}`,
    category: index % 3 === 0 ? null : `类别-${index % 7}`,
  }));
  return {
    success: true,
    skills,
    categories: ["类别-1", "automation"],
    count,
    hint: "Use skill_view(name) to see full content, tags, and linked files",
  };
}

describe("renderJsonChunks", () => {
  it("joins to exactly renderJson's document for a listing with non-ASCII and escaped names", () => {
    for (const count of [0, 1, 2, 9, 500]) {
      const value = reply([], { json: listing(count) });
      const expected = renderJson(value);
      expect(joined(value)).toBe(expected);
      expect(joined(value, 1)).toBe(expected);
      expect(joined(value, 100)).toBe(expected);
    }
  });

  it("joins to renderJson's document for every shape a field can take", () => {
    const holes = [1, 2, 3];
    delete holes[1];
    const documents: Record<string, unknown>[] = [
      {},
      { gone: undefined },
      { only: undefined, fn: () => 1 },
      { empty: [], obj: {}, nested: { a: [1, { b: "c" }], d: {} }, n: -0, big: 1e21, f: 1.5 },
      { holes, odd: [undefined, () => 2, Symbol("s"), null, Number.NaN, Infinity] },
      { date: new Date(0), inner: [{ at: new Date(1) }] },
      { "1": "numeric keys first", b: 2, "0": "zero", "": "empty key", 键: "值" },
      { deep: { a: { b: { c: [[[]], [{}]] } } }, text: "a\nb" },
    ];
    for (const document of documents) {
      const value = reply([], { json: document });
      expect(joined(value)).toBe(renderJson(value));
      expect(joined(value, 1)).toBe(renderJson(value));
    }
  });

  it("gives the whole document for a reply without JSON and for data with toJSON at the top levels", () => {
    const plain = textReply("done\n\nsecond");
    expect(joined(plain)).toBe(renderJson(plain));
    const dated = reply([], { json: { when: [new Date(0)], at: { toJSON: (key: string) => `k=${key}` } } });
    expect([...renderJsonChunks(dated)]).toEqual([renderJson(dated)]);
  });

  it("hands a large listing over in pieces of about the chunk size", () => {
    const value = reply([], { json: listing(5000) });
    const chunks = [...renderJsonChunks(value, 16 * 1024)];
    expect(chunks.length).toBeGreaterThan(20);
    for (const chunk of chunks) expect(chunk.length).toBeLessThan(16 * 1024 + 1024);
    expect(chunks.join("")).toBe(renderJson(value));
  });
});
