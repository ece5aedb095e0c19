/**
 * Exact or refused: whitespace at either end of a secret (`secrets set`, the chat's private input) or of
 * a `skills config set` value — spaces, tabs, NBSP, U+3000, the byte-order mark — is refused naming the
 * characters, never trimmed without a word; inner whitespace is kept exactly as python-dotenv and PyYAML
 * (Hermes) read it back.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkSecretValue, edgeWhitespace } from "../../src/config/dotenv-write.js";
import { english, resolveText } from "../../src/core/i18n/messages.js";
import { runCli } from "../support/cli-in-process.js";
import { readWithPythonDotenv, readWithPyYAML } from "../support/python-readers.js";

const EDGED: [string, string][] = [
  [" sk-1", "U+0020"],
  ["sk-1 ", "U+0020"],
  ["\tsk-1", "U+0009"],
  ["sk-1\u00a0", "U+00A0"],
  ["\u3000sk-1", "U+3000"],
  ["\ufeffsk-1", "U+FEFF"],
  ["\u00a0sk-1\u3000", "U+00A0, U+3000"],
];

let home: string;
beforeEach(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-whitespace-"));
  const dir = path.join(home, "skills", "acme");
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(
    path.join(dir, "SKILL.md"),
    [
      "---",
      "name: acme",
      "description: Talks to Acme",
      "required_environment_variables:",
      "  - name: ACME_API_KEY",
      "metadata:",
      "  hermes:",
      "    config:",
      "      - {key: acme.label, description: Label}",
      "---",
      "",
      "Body.",
      "",
    ].join("\n"),
  );
});
afterEach(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

describe("whitespace at either end of a value is refused, never trimmed", () => {
  it.each(EDGED)("the checks name it: %j", (value, codes) => {
    const edges = edgeWhitespace(value);
    expect(edges && english(edges)).toBe(codes);
    if (edges && codes.includes(", ")) expect(resolveText(edges, "zh-CN")).toBe(codes.replaceAll(", ", "、"));
    const checked = checkSecretValue(value);
    expect("problem" in checked).toBe(true);
  });

  it("inner whitespace is not at an edge", () => {
    expect(edgeWhitespace("a b\u00a0c")).toBeNull();
    expect(checkSecretValue("a b\u00a0c")).toEqual({ value: "a b\u00a0c" });
  });

  it.each(EDGED)("secrets set refuses %j and writes nothing", async (value, codes) => {
    const result = await runCli(home, ["secrets", "set", "ACME_API_KEY"], {
      stdin: new PassThrough(),
      input: `${value}\n`,
    });
    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toContain(codes);
    await expect(fs.readFile(path.join(home, ".env"), "utf8")).rejects.toThrow();
  });

  it("secrets set keeps inner whitespace exactly as python-dotenv reads it", async () => {
    const value = "sk 1\u00a0\u30002";
    const result = await runCli(home, ["secrets", "set", "ACME_API_KEY"], {
      stdin: new PassThrough(),
      input: `${value}\n`,
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(readWithPythonDotenv(path.join(home, ".env")).ACME_API_KEY).toBe(value);
  });

  it.each(EDGED)("skills config set refuses %j and leaves config.yaml alone", async (value, codes) => {
    const result = await runCli(home, ["skills", "config", "set", "acme.label", value, "-y"]);
    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toContain(codes);
    await expect(fs.readFile(path.join(home, "config.yaml"), "utf8")).rejects.toThrow();
  });

  it("skills config set keeps inner whitespace exactly as PyYAML reads it", async () => {
    const value = "a  b\u00a0c\u3000d";
    const result = await runCli(home, ["skills", "config", "set", "acme.label", value, "-y"]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const read = readWithPyYAML(path.join(home, "config.yaml")) as {
      skills: { config: { acme: { label: unknown } } };
    };
    expect(read.skills.config.acme.label).toBe(value);
  });
});
