/**
 * The scan index's descriptions line decoded item by item (`stringArrayOf`): the same strings as
 * `JSON.parse` of the whole line for anything `JSON.stringify` writes, and no answer (so `JSON.parse`
 * decides, as before) for anything else.
 */
import { describe, expect, it } from "vitest";
import { stringArrayOf } from "../../src/skills/index-cache.js";

const AWKWARD = [
  "",
  "plain description",
  "说明：中文描述",
  "emoji 🚀 and ZWJ 👩‍💻",
  'a "quoted" word',
  "ends with a backslash \\",
  'backslash then quote \\"',
  "\\\\\\",
  '","',
  "[not, an, array]",
  "line\nbreak\ttab\r\u0000\u001f\u007f",
  "lone \ud800 surrogate and \udfff",
  "\u2028\u2029",
  "x".repeat(5000),
];

describe("stringArrayOf", () => {
  it("decodes what JSON.stringify writes exactly as JSON.parse does", () => {
    const cases = [
      [],
      [""],
      AWKWARD,
      [...AWKWARD].reverse(),
      Array.from({ length: 300 }, (_, i) => `${AWKWARD[i % AWKWARD.length]}${i}`),
    ];
    for (const items of cases) {
      const bytes = Buffer.from(JSON.stringify(items));
      expect(stringArrayOf(bytes)).toEqual(JSON.parse(bytes.toString("utf8")));
    }
  });

  it("gives no answer for a line JSON.stringify of strings would not write", () => {
    const others = [
      "",
      "[",
      "]",
      "{}",
      '["a" ,"b"]',
      '[ "a"]',
      '["a",]',
      '["a"',
      '["a", "b"]',
      '["a",1]',
      "[null]",
      '["raw\ncontrol"]',
      '["bad \\x escape"]',
      '["unterminated]',
      '["a""b"]',
      '"a"',
    ];
    for (const text of others) expect(stringArrayOf(Buffer.from(text)), text).toBeUndefined();
  });

  it("decodes bytes that are not UTF-8 as JSON.parse of the decoded line does", () => {
    const bytes = Buffer.concat([
      Buffer.from('["a'),
      Buffer.from([0xe4, 0xb8]),
      Buffer.from('","b\xff"]', "latin1"),
    ]);
    expect(stringArrayOf(bytes)).toEqual(JSON.parse(bytes.toString("utf8")));
  });
});
