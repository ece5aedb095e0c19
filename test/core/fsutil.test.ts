import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  atomicWriteFile,
  isoTimestamp,
  namesUpTo,
  stableJson,
  stableJsonPieces,
  withLock,
} from "../../src/core/fsutil.js";
import { freshDirEachTest } from "../support/fresh-dir.js";
import { mostInsideAtOnce } from "../support/until.js";

describe("file helpers", () => {
  let dir: string;
  freshDirEachTest("sg-fs-", (made) => {
    dir = made;
  });

  it("writes atomically and leaves no temp files behind", async () => {
    const file = path.join(dir, "a", "b.json");
    await atomicWriteFile(file, "one");
    await atomicWriteFile(file, "two");
    expect(await readFile(file, "utf8")).toBe("two");
    expect(await readdir(path.dirname(file))).toEqual(["b.json"]);
  });

  it("lists a folder's names up to a cap: none for a missing folder, nothing past the cap", async () => {
    expect(namesUpTo(path.join(dir, "missing"), 10)).toEqual(new Set());
    for (const name of ["a", "b", ".c"]) await writeFile(path.join(dir, name), "");
    await mkdir(path.join(dir, "d"));
    expect(namesUpTo(dir, 4)).toEqual(new Set(["a", "b", ".c", "d"]));
    expect(namesUpTo(dir, 3)).toBeUndefined();
    // A file where a folder is expected cannot be listed: the caller looks names up one by one.
    expect(namesUpTo(path.join(dir, "a"), 10)).toBeUndefined();
  });

  it("writes a long text in chunks byte for byte, never between the halves of a surrogate pair", async () => {
    const file = path.join(dir, "long.json");
    // Chunks hold 87,381 UTF-16 units: the emoji's halves straddle the first boundary for one of these.
    for (const pad of [87_379, 87_380, 87_381]) {
      const text = `${"a".repeat(pad)}😀${"é✓".repeat(60_000)}${"😀".repeat(70_000)}`;
      await atomicWriteFile(file, text);
      expect(await readFile(file, "utf8")).toBe(text);
    }
    expect(await readdir(dir)).toEqual(["long.json"]);
  });

  it("writes text given in pieces as their concatenation, whatever the pieces' sizes", async () => {
    const file = path.join(dir, "pieces.json");
    // Chunks hold 256 KB: a few 180 KB pieces of emoji put chunk ends at every offset of a pair.
    const big = fc.nat({ max: 3 }).map((shift) => `${"a".repeat(shift)}${"😀".repeat(45_000)}`);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.string({ unit: "binary", maxLength: 40 }), big), { maxLength: 8 }),
        async (pieces) => {
          await atomicWriteFile(file, pieces);
          // Each piece is UTF-8 on its own (a lone surrogate becomes U+FFFD), the big ones across chunks.
          const expected = Buffer.concat(pieces.map((piece) => Buffer.from(piece, "utf8")));
          // Compared as bytes: a deep equality over a megabyte would dominate the test.
          expect((await readFile(file)).equals(expected)).toBe(true);
        },
      ),
      { numRuns: 30 },
    );
  });

  it("sorts keys at every level like Hermes' json.dump(sort_keys=True, indent=2)", () => {
    expect(stableJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } })).toBe(
      '{\n  "a": {\n    "c": null,\n    "d": [\n      {\n        "y": 2,\n        "z": 1\n      }\n    ]\n  },\n  "b": 1\n}',
    );
  });

  it("formats timestamps with microseconds and +00:00", () => {
    expect(isoTimestamp(new Date("2026-05-01T13:05:42.123Z"))).toBe("2026-05-01T13:05:42.123000+00:00");
  });

  it("serialises concurrent critical sections", async () => {
    const file = path.join(dir, "lock");
    expect(await mostInsideAtOnce(20, (section) => withLock(file, section))).toBe(1);
  });
});

describe("stableJson", () => {
  /** Sorting by copying every object, as Hermes' `sort_keys` output is defined. */
  function copySorted(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(copySorted);
    if (value !== null && typeof value === "object") {
      // No prototype, so a `__proto__` key is copied as a key.
      const out: Record<string, unknown> = Object.create(null);
      for (const key of Object.keys(value).sort())
        out[key] = copySorted((value as Record<string, unknown>)[key]);
      return out;
    }
    return value;
  }

  it("writes the same text as sorting a full copy, for any JSON value, and never changes its input", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const before = JSON.stringify(value);
        expect(stableJson(value)).toBe(JSON.stringify(copySorted(value), null, 2));
        expect(JSON.stringify(value)).toBe(before);
      }),
      { numRuns: 500 },
    );
  });

  it("gives the same text in pieces, one per entry of a top-level object", () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.dictionary(fc.string(), fc.jsonValue())), (value) => {
        expect([...stableJsonPieces(value)].join("")).toBe(stableJson(value));
      }),
      { numRuns: 500 },
    );
    const usage = { b: { z: 1, a: [1, { y: 2, x: null }] }, a: {}, "": "e", __proto__: null };
    expect([...stableJsonPieces(usage)].join("")).toBe(stableJson(usage));
    expect([...stableJsonPieces({})]).toEqual(["{}"]);
  });

  it("gives the same text in pieces for objects of many entries: integer-like, __proto__ and undefined ones", () => {
    const entries = fc.array(
      fc.tuple(
        fc.oneof(
          fc.string(),
          fc.nat({ max: 300 }).map(String),
          fc.constant("__proto__"),
          fc.constant("toString"),
        ),
        fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
      ),
      { maxLength: 300 },
    );
    fc.assert(
      fc.property(entries, (pairs) => {
        // Own properties even for `__proto__` (an assignment would set the prototype instead).
        const value: Record<string, unknown> = {};
        for (const [key, item] of pairs)
          Object.defineProperty(value, key, {
            value: item,
            enumerable: true,
            configurable: true,
            writable: true,
          });
        const pieces = [...stableJsonPieces(value)];
        expect(pieces.join("")).toBe(stableJson(value));
        if (pairs.length > 130) expect(pieces.length).toBeGreaterThan(4);
      }),
      { numRuns: 200 },
    );
    const hostile = JSON.parse('{"__proto__": {"b": 1, "a": 2}, "200": 1, "3": 2, "z": 3}') as object;
    expect([...stableJsonPieces(hostile)].join("")).toBe(stableJson(hostile));
    expect(stableJson(hostile)).toContain('"__proto__": {\n    "a": 2,');
  });

  it("sorts nested objects inside sorted ones, and integer-like keys as JavaScript orders them", () => {
    const value = { a: { z: 1, b: [{ y: 2, x: 1 }] }, b: 2 };
    expect(stableJson(value)).toBe(JSON.stringify({ a: { b: [{ x: 1, y: 2 }], z: 1 }, b: 2 }, null, 2));
    expect(value.a).toEqual({ z: 1, b: [{ y: 2, x: 1 }] });
    expect(Object.keys(value.a)).toEqual(["z", "b"]);
    expect(stableJson({ b: 1, 10: 2, 9: 3, a: 4 })).toBe(copySortedText({ b: 1, 10: 2, 9: 3, a: 4 }));
  });

  function copySortedText(value: unknown): string {
    return JSON.stringify(copySorted(value), null, 2);
  }
});
