/**
 * Numbers both ways between skillgate and PyYAML (Hermes' parser): config.yaml's integers of any size are
 * read exactly, and `skills config set` stores what PyYAML reads back as the value typed — or refuses and
 * says why. Over 2,000 fuzzed values go through the function the command uses and the same edit planner
 * (in batches), and a sample goes through the built CLI; PyYAML reads every one back.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { promises as fs, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settingValue } from "../../commands/skills-config.js";
import { loadConfig } from "../../src/config/config.js";
import { planConfigEdit } from "../../src/config/edit.js";
import { yamlScalarText } from "../../src/config/yaml11.js";

const root = path.resolve(import.meta.dirname, "../..");
const cli = path.join(root, "dist", "src", "cli", "main.js");
let home: string;

/**
 * PyYAML's verdict on each `[file, key, typed, outcome]`: the value it reads under `skills.config.<key>`
 * must be what the typed text means (a JSON string in double quotes: its text; `true`/`false`: the
 * boolean; a plain whole number: that exact int; a plain decimal: a float of exactly that decimal value;
 * anything else: the text). A refused value must be a decimal no float holds exactly. Prints the misses.
 */
const VERDICT = `
import json, re, sys, yaml
from decimal import Decimal
cases = json.load(open(sys.argv[1]))
loaded = {}
misses = []
for file, key, typed, outcome in cases:
    if file not in loaded:
        with open(file, "rb") as stream:
            loaded[file] = yaml.safe_load(stream)["skills"]["config"]
    decimal = re.fullmatch(r"-?(0|[1-9][0-9]*)\\.[0-9]*[1-9]", typed)
    if outcome == "refused":
        if not (decimal and Decimal(repr(float(typed))) != Decimal(typed)):
            misses.append([key, typed, "refused a value that could be stored"])
        continue
    value = loaded[file].get(key, "<missing>")
    quoted = None
    if len(typed) >= 2 and typed.startswith('"') and typed.endswith('"'):
        try:
            quoted = json.loads(typed)
        except ValueError:
            pass
    if isinstance(quoted, str):
        ok = value == quoted and isinstance(value, str)
    elif typed in ("true", "false"):
        ok = value is (typed == "true")
    elif re.fullmatch(r"-?(0|[1-9][0-9]*)", typed) and typed != "-0":
        ok = type(value) is int and str(value) == typed
    elif decimal:
        ok = type(value) is float and Decimal(repr(value)) == Decimal(typed)
    else:
        ok = value == typed and isinstance(value, str)
    if not ok:
        misses.append([key, typed, repr(value)])
print(json.dumps(misses))
`;

type Case = [file: string, key: string, typed: string, outcome: "stored" | "refused"];

function pyyamlMisses(cases: Case[]): unknown[] {
  const manifest = path.join(home, "cases.json");
  writeFileSync(manifest, JSON.stringify(cases));
  const result = spawnSync("python3", ["-c", VERDICT, manifest], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`python3 failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** A deterministic generator of typed values: numbers of every size and spelling, and YAML 1.1 traps. */
function fuzzValues(count: number): string[] {
  let seed = 47;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const digits = (n: number) =>
    Array.from({ length: n }, (_v, i) => String(Math.floor(random() * 10) || (i === 0 ? 1 : 0))).join("");
  const fixed = [
    "1234567890123456789",
    "222333444555666777",
    "9007199254740991",
    "9007199254740992",
    "9007199254740993",
    "-9007199254740993",
    "18446744073709551616",
    "0",
    "-0",
    "00",
    "017",
    "+5",
    "0x1f",
    "0b101",
    "0o17",
    "1_000",
    "1:20",
    "190:20:30",
    ".inf",
    "-.inf",
    ".nan",
    ".Inf",
    "yes",
    "no",
    "on",
    "off",
    "Yes",
    "OFF",
    "y",
    "n",
    "true",
    "false",
    "True",
    "null",
    "~",
    "1e5",
    "1.5e+3",
    "1.0",
    "1.50",
    "0.1",
    "0.30000000000000004",
    "0.1000000000000000055511151231257827",
    "123456789.123456789",
    "2024-01-01",
    "2024-01-01 10:00:00",
    "12:30",
    "hello world",
    "a: b",
    "- item",
    "#hash",
    "'single'",
    '"quoted text"',
    '"0017"',
    "100%",
    "ünïcode",
    "tab\there",
    "@alice",
    "telegram:@alice",
  ];
  const values = [...fixed];
  while (values.length < count) {
    const pick = Math.floor(random() * 12);
    const sign = random() < 0.3 ? "-" : "";
    const length = 1 + Math.floor(random() * 30);
    switch (pick) {
      case 0:
      case 1:
      case 2:
        values.push(`${sign}${digits(length)}`);
        break;
      case 3:
        values.push(
          `${sign}${digits(1 + Math.floor(random() * 8))}.${digits(1 + Math.floor(random() * 20))}`,
        );
        break;
      case 4:
        values.push(
          `${sign}0.${"0".repeat(Math.floor(random() * 6))}${digits(1 + Math.floor(random() * 18))}`,
        );
        break;
      case 5:
        values.push(`${sign}0${digits(length).replace(/[89]/g, "7")}`);
        break;
      case 6:
        values.push(`0x${Math.floor(random() * 1e12).toString(16)}`);
        break;
      case 7:
        values.push(`${sign}${digits(1 + Math.floor(random() * 3))}_${digits(3)}`);
        break;
      case 8:
        values.push(
          `${sign}${digits(1 + Math.floor(random() * 3))}:${String(Math.floor(random() * 60)).padStart(2, "0")}`,
        );
        break;
      case 9:
        values.push(`${digits(1 + Math.floor(random() * 3))}e${sign || "+"}${digits(1)}`);
        break;
      case 10:
        values.push(`id-${digits(length)}`);
        break;
      default:
        values.push(`${digits(length)} ${["apples", "yes", "#x", ": y"][Math.floor(random() * 4)]}`);
    }
  }
  return values;
}

function numbered(values: string[]): string {
  return values
    .map((_value, index) => `      - key: k${index}\n        description: value ${index}\n`)
    .join("");
}

beforeAll(async () => {
  execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: root, stdio: "ignore" });
  home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-exact-"));
}, 120_000);

afterAll(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

describe("config.yaml's integers are read exactly", () => {
  it("keeps an unquoted id beyond 2^53 as its exact digits", async () => {
    const file = path.join(home, "read.yaml");
    await fs.writeFile(
      file,
      "skills:\n  config:\n    chan: 1234567890123456789\n    small: 42\n    neg: -0x7fffffffffffffffff\ngateway:\n  discord:\n    application_id: 222333444555666777\n    guild_id: 0o1\n",
    );
    const config = loadConfig(file);
    const discord = config.gateway.platforms.discord as { applicationId?: string };
    expect(discord.applicationId).toBe("222333444555666777");
    expect(config.skills.settings.chan).toBe("1234567890123456789");
    expect(config.skills.settings.small).toBe(42);
    expect(config.skills.settings.neg).toBe(String(-0x7fffffffffffffffffn));
  });
});

describe("skills config set stores what PyYAML reads back as typed", () => {
  it("fuzzes over 2,000 values through the setting parser and the edit planner: 0 silent changes", async () => {
    const values = fuzzValues(2_100);
    const cases: Case[] = [];
    const batch = 150;
    for (let start = 0; start < values.length; start += batch) {
      const file = path.join(home, `batch-${start}.yaml`);
      let text = "skills:\n  config:\n    first: 1\n";
      values.slice(start, start + batch).forEach((typed, offset) => {
        const key = `k${start + offset}`;
        const parsed = settingValue(typed);
        if (!parsed.ok) {
          cases.push([file, key, typed, "refused"]);
          return;
        }
        const planned = planConfigEdit(text, {
          kind: "set",
          path: ["skills", "config", key],
          value: parsed.value,
        });
        text = planned.text ?? text;
        // What the reply shows is what the file holds.
        expect(text).toContain(`    ${key}: ${yamlScalarText(parsed.value)}\n`);
        cases.push([file, key, typed, "stored"]);
      });
      await fs.writeFile(file, text);
    }
    expect(cases.length).toBeGreaterThanOrEqual(2_000);
    expect(cases.filter((item) => item[3] === "refused").length).toBeGreaterThan(0);
    expect(pyyamlMisses(cases)).toEqual([]);
  }, 120_000);

  it("a sample through the built CLI: the reply shows what PyYAML reads; an inexact decimal is refused", async () => {
    const sample = [
      "1234567890123456789",
      "-98765432109876543210",
      "9007199254740993",
      "42",
      "-0.5",
      "yes",
      "0x1f",
      "1_000",
      ".inf",
      "017",
      "1:20",
      "2024-01-01",
      "1e5",
      '"0017"',
      "hello world",
      "123456789.123456789",
    ];
    await fs.mkdir(path.join(home, "cli", "skills", "numbers"), { recursive: true });
    await fs.writeFile(
      path.join(home, "cli", "skills", "numbers", "SKILL.md"),
      `---\nname: numbers\ndescription: numbers helps\nmetadata:\n  hermes:\n    config:\n${numbered(sample)}---\n\nBody.\n`,
    );
    const file = path.join(home, "cli", "config.yaml");
    await fs.writeFile(file, "gateway:\n  health: { enabled: false }\n");
    const cases: Case[] = [];
    for (const [index, typed] of sample.entries()) {
      const before = await fs.readFile(file, "utf8");
      const run = spawnSync(
        process.execPath,
        [
          cli,
          "--home",
          path.join(home, "cli"),
          "skills",
          "config",
          "set",
          `k${index}`,
          typed,
          "-y",
          "--json",
        ],
        { encoding: "utf8", env: { ...process.env, NO_COLOR: "1", SKILLGATE_LOG_LEVEL: "silent" } },
      );
      if (typed === "123456789.123456789") {
        expect(run.status).toBe(2);
        expect(run.stdout + run.stderr).toContain("123456789.12345679");
        expect(await fs.readFile(file, "utf8")).toBe(before);
        cases.push([file, `k${index}`, typed, "refused"]);
        continue;
      }
      expect(run.status, run.stderr).toBe(0);
      const reply = JSON.parse(run.stdout) as { stored: string; value: unknown };
      expect(await fs.readFile(file, "utf8")).toContain(`k${index}: ${reply.stored}\n`);
      cases.push([file, `k${index}`, typed, "stored"]);
    }
    expect(pyyamlMisses(cases)).toEqual([]);
    const human = spawnSync(
      process.execPath,
      [cli, "--home", path.join(home, "cli"), "skills", "config", "set", "k0", "1234567890123456788", "-y"],
      { encoding: "utf8", env: { ...process.env, NO_COLOR: "1", SKILLGATE_LOG_LEVEL: "silent" } },
    );
    expect(human.stdout).toContain("`k0` = `1234567890123456788`");
  }, 120_000);
});
