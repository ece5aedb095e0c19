import fc from "fast-check";
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { parseListField, parseSimpleYaml, parseSkillMd } from "../../src/skills/frontmatter.js";

describe("parseSkillMd (scenario 60)", () => {
  it("parses valid frontmatter and keeps the body", () => {
    const parsed = parseSkillMd("---\nname: pdf-tools\ndescription: Work with PDFs\n---\n# PDF\n\nBody\n");
    expect(parsed.frontmatter).toEqual({ name: "pdf-tools", description: "Work with PDFs" });
    expect(parsed.body).toBe("# PDF\n\nBody\n");
    expect(parsed.error).toBeUndefined();
  });

  it("gives {} and the unchanged text without frontmatter", () => {
    const text = "# Just a heading\n\nname: not frontmatter\n";
    expect(parseSkillMd(text)).toEqual({ frontmatter: {}, body: text });
  });

  it("treats `---\\n---` as empty frontmatter", () => {
    expect(parseSkillMd("---\n---\nbody").frontmatter).toEqual({});
    expect(parseSkillMd("---\n---\nbody").body).toBe("body");
  });

  it("needs a newline after the closing marker", () => {
    const text = "---\nname: x\n---";
    expect(parseSkillMd(text)).toEqual({ frontmatter: {}, body: text });
  });

  it("skips blank lines after the closing marker like Hermes' greedy match", () => {
    expect(parseSkillMd("---\nname: x\n---\n\n\nBody").body).toBe("Body");
  });

  it("parses nested tags", () => {
    const parsed = parseSkillMd("---\nname: x\nmetadata:\n  hermes:\n    tags: [a, b]\n---\nbody");
    expect(parsed.frontmatter).toEqual({ name: "x", metadata: { hermes: { tags: ["a", "b"] } } });
  });

  it("falls back to key: value lines on malformed YAML and still has the name", () => {
    const parsed = parseSkillMd(
      "---\nname: broken-skill\n: invalid\ndescription: Use when: things break\n---\nbody",
    );
    expect(parsed.error).toBeTypeOf("string");
    expect(parsed.frontmatter.name).toBe("broken-skill");
    expect(parsed.frontmatter.description).toBe("Use when: things break");
  });

  it("turns a non-mapping document into {}", () => {
    expect(parseSkillMd("---\n- a\n- b\n---\nbody").frontmatter).toEqual({});
    expect(parseSkillMd("---\njust text\n---\nbody").frontmatter).toEqual({});
  });

  it("never throws on arbitrary text", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (tail) => {
        const parsed = parseSkillMd(`---\n${tail}\n---\nbody`);
        expect(typeof parsed.frontmatter).toBe("object");
      }),
      { numRuns: 300 },
    );
  });
});

describe("parseListField (tags)", () => {
  it("accepts lists, 'a, b' and '[a, b]', strips quotes and drops empties", () => {
    expect(parseListField(["a", " b ", ""])).toEqual(["a", "b"]);
    expect(parseListField("a, b")).toEqual(["a", "b"]);
    expect(parseListField("[a, b]")).toEqual(["a", "b"]);
    expect(parseListField("")).toEqual([]);
    expect(parseListField(`["x", 'y']`)).toEqual(["x", "y"]);
    expect(parseListField("a,, ,b")).toEqual(["a", "b"]);
    expect(parseListField(undefined)).toEqual([]);
    expect(parseListField(42)).toEqual([]);
  });
});

describe("the fast subset parser agrees with the yaml package", () => {
  const keys = fc.constantFrom(
    "name",
    "description",
    "version",
    "tags",
    "a",
    "b-c",
    "x_y",
    "true",
    "null",
    "__proto__",
  );
  const scalars = fc.oneof(
    fc.constantFrom(
      "foo",
      "foo bar",
      "1.0.0",
      "1",
      "-2",
      "0x1F",
      "0o17",
      "1e3",
      ".5",
      "5.",
      "true",
      "False",
      "null",
      "~",
      "yes",
      "on",
      "a: b",
      "a #b",
      "#c",
      "'q'",
      '"d"',
      '"e\\"f"',
      "-x",
      "[a]",
      "{a}",
      "C#",
      "http://x.y",
      "@at",
      "`tick`",
      "x:",
      "3D",
      ".inf",
      "-.Inf",
      ".nan",
      "+5",
      "012",
      "1_000",
      "2024-01-01",
      "a, b",
      "ü",
      "*ref",
      "&anc",
      "!tag",
      "|",
      ">",
      "it's",
      'say "hi"',
      "[a, b]",
      "[]",
      "[a,]",
      "[a,,b]",
      "- x",
      "12345678901234567890",
      "0b101",
      "1:2",
      "a\u00a0b",
      "x\ty",
    ),
    fc.string({ maxLength: 12 }),
  );
  const line = fc.oneof(
    fc
      .tuple(fc.constantFrom(0, 2, 4), keys, scalars)
      .map(([indent, key, value]) => `${" ".repeat(indent)}${key}: ${value}`),
    fc.tuple(fc.constantFrom(0, 2, 4), keys).map(([indent, key]) => `${" ".repeat(indent)}${key}:`),
    fc.tuple(fc.constantFrom(0, 2, 4), scalars).map(([indent, value]) => `${" ".repeat(indent)}- ${value}`),
    fc
      .tuple(fc.constantFrom(2, 4), keys, scalars)
      .map(([indent, key, value]) => `${" ".repeat(indent)}- ${key}: ${value}`),
    fc
      .tuple(fc.constantFrom(0, 2), fc.array(scalars, { maxLength: 3 }))
      .map(([indent, items]) => `${" ".repeat(indent)}tags: [${items.join(", ")}]`),
    fc.constantFrom("", "# comment", "  # indented comment", "---", "..."),
  );

  it("returns either undefined or exactly what YAML.parse gives", () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 8 }), (lines) => {
        const block = lines.join("\n");
        const fast = parseSimpleYaml(block);
        if (fast === undefined) return;
        let expected: unknown;
        try {
          expected = YAML.parse(block, { logLevel: "error" });
        } catch (error) {
          throw new Error(
            `fast parser accepted invalid YAML ${JSON.stringify(block)}: ${(error as Error).message}`,
          );
        }
        expect(fast).toEqual(expected ?? {});
      }),
      { numRuns: 4000 },
    );
  });

  it("handles the common Hermes shapes itself", () => {
    const block = [
      "name: pdf-tools",
      "description: Extract text, tables and images from PDF files.",
      "version: 1.0.0",
      "platforms: [linux, macos]",
      "required_environment_variables:",
      "  - name: PDF_API_KEY",
      "    prompt: PDF service key",
      "metadata:",
      "  hermes:",
      "    tags: [pdf, documents]",
      "    related_skills: [ocr]",
    ].join("\n");
    const fast = parseSimpleYaml(block);
    expect(fast).toBeDefined();
    expect(fast).toEqual(YAML.parse(block));
  });
});
