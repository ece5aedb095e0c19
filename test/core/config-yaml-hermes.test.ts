/**
 * config.yaml edits as Hermes reads them (PyYAML 6, YAML 1.1, run by the machine's python3): strings
 * stay strings (`on`, `no`, `Yes`, `1:20`, `0b101`, `1_000`, dates), a skill named `on` disabled on a
 * platform is hidden by Hermes, hostile values read back exactly with every other key unchanged. And
 * the edit is safe: `__proto__`/`constructor` paths are refused with no side effect, inherited names are
 * never values, shared sections (anchors, aliases, merge keys) are refused, CRLF is kept, `{}` is
 * edited.
 */
import { execFileSync } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { editConfigFile, planConfigEdit } from "../../src/config/edit.js";
import { ConfigError } from "../../src/core/errors.js";
import { resolveSettings } from "../../src/skills/settings.js";
import { runCli } from "../support/cli-in-process.js";
import { readWithPyYAML } from "../support/python-readers.js";

let home: string;
let configFile: string;

beforeEach(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-yaml-"));
  configFile = path.join(home, "config.yaml");
});

afterEach(async () => {
  await fs.rm(home, { recursive: true, force: true });
  delete (Object.prototype as Record<string, unknown>).isAdmin;
});

async function writeSkill(name: string, frontmatter = ""): Promise<void> {
  const dir = path.join(home, "skills", name);
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(
    path.join(dir, "SKILL.md"),
    `---\nname: ${JSON.stringify(name)}\ndescription: ${name} helps\n${frontmatter}---\n\nBody.\n`,
  );
}

function pyyaml(): Record<string, unknown> {
  return readWithPyYAML(configFile) as Record<string, unknown>;
}

function skillsSection(): Record<string, unknown> {
  return pyyaml().skills as Record<string, unknown>;
}

describe("values written by the CLI stay strings for PyYAML", () => {
  const KEYWORDS = [
    "on",
    "no",
    "Yes",
    "OFF",
    "1:20",
    "12:30",
    "0b101",
    "0x1f",
    "017",
    "1_000",
    "2024-01-01",
    "~",
    "null",
    ".inf",
    "1e3",
    "y",
  ];

  it.each(KEYWORDS)("skills config set plain %s", async (value) => {
    await writeSkill(
      "tuner",
      "metadata:\n  hermes:\n    config:\n      - {key: plain, description: A plain setting}\n",
    );
    const result = await runCli(home, ["skills", "config", "set", "plain", value, "-y"]);
    expect(result.code).toBe(0);
    expect((skillsSection().config as Record<string, unknown>).plain).toBe(value);
  });

  it.each(["on", "yes", "12:30", "No", "2024-01-01"])(
    "a skill named %s disabled on telegram is hidden by Hermes there, and enabled again",
    async (name) => {
      await writeSkill(name);
      await fs.writeFile(configFile, "skills:\n  platform_disabled:\n    telegram: [other]\n");
      expect((await runCli(home, ["skills", "disable", name, "--platform", "telegram", "-y"])).code).toBe(0);
      const telegram = (skillsSection().platform_disabled as Record<string, unknown[]>).telegram;
      // Hermes hides a skill when its name is in the list (a string equal to the name).
      expect(telegram).toEqual(["other", name]);
      expect(loadConfig(configFile).skills.platformDisabled.telegram).toEqual(["other", name]);
      expect((await runCli(home, ["skills", "enable", name, "--platform", "telegram", "-y"])).code).toBe(0);
      expect((skillsSection().platform_disabled as Record<string, unknown[]>).telegram).toEqual(["other"]);
    },
  );

  it("a bare keyword in a disabled list hides nothing for skillgate either, with a warning to quote it", async () => {
    await fs.writeFile(configFile, "skills:\n  disabled: [on, real-name, 12:30]\n");
    const config = loadConfig(configFile);
    expect(config.skills.disabled).toEqual(["real-name"]);
    expect(config.warnings.join("\n")).toMatch(/`skills.disabled` has true.*quote the name/);
    expect(pyyaml()).toEqual({ skills: { disabled: [true, "real-name", 750] } });
  });

  it("a bare key PyYAML reads as a boolean is refused rather than duplicated", () => {
    expect(() =>
      planConfigEdit("skills:\n  config:\n    on: 1\n", {
        kind: "set",
        path: ["skills", "config", "on"],
        value: 2,
      }),
    ).toThrow(/written bare, and PyYAML \(Hermes\) reads it as true/);
  });
});

const HOSTILE = fc.constantFrom(
  "on",
  "no",
  "Yes",
  "~",
  "null",
  "1:20",
  "12:30:15",
  "0b101",
  "0x1F",
  "1_000",
  "2024-01-01",
  "2024-01-01 10:00:00",
  ".5",
  "1e3",
  "-",
  "? ",
  ": ",
  " #",
  "#",
  "&a",
  "*a",
  "!tag",
  "<<",
  "=",
  "'",
  '"',
  "\\",
  "[",
  "]",
  "{",
  "}",
  ",",
  "|",
  ">",
  "%",
  "@",
  "`",
  " ",
  "\t",
  "\u2028",
  "\u2029",
  "\u0085",
  "\ufeff",
  "\u007f",
  "\u0007",
  "é",
  "😀",
);
const hostileText = fc
  .oneof(
    fc
      .array(fc.oneof(HOSTILE, fc.string({ maxLength: 3 })), { minLength: 1, maxLength: 6 })
      .map((parts) => parts.join("")),
    HOSTILE,
    fc.string({ unit: "binary", maxLength: 16 }),
  )
  .filter((value) => value.trim() !== "");

describe("property: hostile values through skillgate, read back with PyYAML", () => {
  const PRESENT = [
    "# shared with Hermes",
    "model: {provider: openai, default: gpt-4o}",
    "skills:",
    "  disabled: [old-skill]",
    "  platform_disabled:",
    "    telegram:",
    "    - noisy",
    "  config:",
    "    kept: on",
    "    when: 2024-01-01",
    "curator: {stale_after_days: 30}",
    "",
  ].join("\n");

  it("set and add-to-list: the value read equals the value entered, every other key unchanged", async () => {
    await fs.writeFile(configFile, PRESENT);
    const before = pyyaml();
    await fc.assert(
      fc.asyncProperty(hostileText, fc.boolean(), async (value, asList) => {
        await fs.writeFile(configFile, PRESENT);
        if (asList) {
          await editConfigFile(home, {
            kind: "add-to-list",
            path: ["skills", "platform_disabled", "discord"],
            value,
          });
        } else {
          await editConfigFile(home, { kind: "set", path: ["skills", "config", "hostile"], value });
        }
        const after = pyyaml();
        const skills = after.skills as Record<string, Record<string, unknown>>;
        if (asList) expect((skills.platform_disabled as Record<string, unknown>).discord).toEqual([value]);
        else expect((skills.config as Record<string, unknown>).hostile).toBe(value);
        const expected = structuredClone(before) as { skills: Record<string, Record<string, unknown>> };
        const section = expected.skills[asList ? "platform_disabled" : "config"] as Record<string, unknown>;
        section[asList ? "discord" : "hostile"] = asList ? [value] : value;
        expect(after).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});

describe("prototype-safe edits", () => {
  it.each([
    ["skills", "config", "__proto__", "isAdmin"],
    ["__proto__", "isAdmin"],
    ["skills", "config", "constructor", "prototype", "isAdmin"],
    ["skills", "constructor"],
  ])("%j is refused with no side effect", (...keyPath) => {
    const text = "skills:\n  config: {}\n";
    expect(() => planConfigEdit(text, { kind: "set", path: keyPath, value: true })).toThrow(ConfigError);
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(Object.hasOwn(Object.prototype, "isAdmin")).toBe(false);
  });

  it("inherited names are never setting values", () => {
    const declarations = ["constructor", "toString", "hasOwnProperty", "__proto__"].map((key) => ({
      key,
      description: key,
      prompt: key,
    }));
    const resolved = resolveSettings(declarations, {});
    expect(resolved.map((setting) => setting.source)).toEqual(["unset", "unset", "unset", "unset"]);
  });

  it("a list key named like an inherited member is a plain new key", () => {
    const text = "skills:\n  platform_disabled:\n    telegram: [a]\n";
    const edit = planConfigEdit(text, {
      kind: "add-to-list",
      path: ["skills", "platform_disabled", "toString"],
      value: "x",
    });
    expect(edit.text).toBe("skills:\n  platform_disabled:\n    telegram: [a]\n    toString: [x]\n");
  });
});

describe("shared sections, line endings and flow mappings", () => {
  it("an alias on the path is refused, naming it", () => {
    const text = "defaults: &d\n  telegram: [a]\nskills:\n  platform_disabled: *d\n";
    expect(() =>
      planConfigEdit(text, {
        kind: "add-to-list",
        path: ["skills", "platform_disabled", "telegram"],
        value: "x",
      }),
    ).toThrow(/`skills.platform_disabled` is an alias \(`\*d`\)/);
  });

  it("an anchored target is refused: its aliases would change too", () => {
    const text = "skills:\n  disabled: &list [a]\nother: *list\n";
    expect(() =>
      planConfigEdit(text, { kind: "add-to-list", path: ["skills", "disabled"], value: "x" }),
    ).toThrow(/anchor `&list`/);
  });

  it("a merge key in the section is refused", () => {
    const text = "base: &b {x: 1}\nskills:\n  config:\n    <<: *b\n    y: 2\n";
    expect(() => planConfigEdit(text, { kind: "set", path: ["skills", "config", "x"], value: 3 })).toThrow(
      /merge key/,
    );
  });

  it("sections that share nothing are edited beside anchors elsewhere", () => {
    const text = "base: &b {x: 1}\nuse: *b\nskills:\n  disabled: [a]\n";
    expect(planConfigEdit(text, { kind: "add-to-list", path: ["skills", "disabled"], value: "x" }).text).toBe(
      "base: &b {x: 1}\nuse: *b\nskills:\n  disabled: [a, x]\n",
    );
  });

  it("a CRLF file keeps CRLF for every line it gains or loses", async () => {
    const text = "skills:\r\n  disabled:\r\n  - a\r\n  - b\r\ncurator:\r\n  enabled: true\r\n";
    const added =
      planConfigEdit(text, { kind: "add-to-list", path: ["skills", "disabled"], value: "c" }).text ?? "";
    const nested =
      planConfigEdit(added, {
        kind: "add-to-list",
        path: ["skills", "platform_disabled", "telegram"],
        value: "on",
      }).text ?? "";
    const removed =
      planConfigEdit(nested, { kind: "remove-from-list", path: ["skills", "disabled"], value: "a" }).text ??
      "";
    expect(removed).toBe(
      'skills:\r\n  disabled:\r\n  - b\r\n  - c\r\n  platform_disabled:\r\n    telegram: ["on"]\r\ncurator:\r\n  enabled: true\r\n',
    );
    expect(removed.replaceAll("\r\n", "")).not.toContain("\n");
  });

  it("`platform_disabled: {}` as PyYAML dumps it is edited", async () => {
    const dumped = execFileSync("python3", [
      "-c",
      "import yaml,sys; sys.stdout.write(yaml.dump({'skills': {'disabled': [], 'platform_disabled': {}}, 'x': 1}))",
    ]).toString();
    await fs.writeFile(configFile, dumped);
    await writeSkill("noisy");
    expect((await runCli(home, ["skills", "disable", "noisy", "--platform", "telegram", "-y"])).code).toBe(0);
    expect((await runCli(home, ["skills", "disable", "noisy", "--platform", "discord", "-y"])).code).toBe(0);
    expect(await fs.readFile(configFile, "utf8")).toBe(
      dumped.replace("platform_disabled: {}", "platform_disabled: {telegram: [noisy], discord: [noisy]}"),
    );
    expect(pyyaml()).toEqual({
      skills: { disabled: [], platform_disabled: { telegram: ["noisy"], discord: ["noisy"] } },
      x: 1,
    });
  });
});
