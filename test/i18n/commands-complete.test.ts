/**
 * Every command of the registry, in success, confirmation, refusal and usage error, through the real
 * command runner on a generated home: resolved in zh-CN no English sentence is left outside an allow-list
 * of names (skills, commands, config keys, paths, ids), and resolved in English no catalog key or
 * `{placeholder}` is left. The commands are enumerated from the registry, so a new command is covered
 * without touching this file (it runs with its required arguments filled by a skill name).
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registry } from "../../commands/index.js";
import { parseAndRun } from "../../commands/runner.js";
import type { CommandSpec } from "../../commands/types.js";
import type { Reply } from "../../src/core/reply.js";
import { makeCuratorDue, writeTestSkill } from "../support/platform-home.js";
import { tempHome } from "../telegram/helpers.js";
import { chatOn, itIsCompleteInBothLocales } from "./complete-support.js";

const NOW = new Date();

/** Skills of the generated home; their names, categories and descriptions are data, not sentences. */
const SKILLS = ["pdf-tools", "weather", "old-stale", "pinned-one", "configured"];

/** Arguments that make each command succeed on the generated home (others: required args = a skill). */
const SUCCESS_ARGS: Record<string, string[][]> = {
  "curator pin": [["pinned-one"]],
  "curator unpin": [["pinned-one"]],
  "curator adopt": [["pdf-tools"], ["--all-unmanaged", "--dry-run"]],
  "curator archive": [["weather"]],
  "curator restore": [["weather"]],
  "curator run": [["--dry-run"], []],
  "curator prune": [["--dry-run"], ["--days", "1"]],
  "curator rollback": [["--list"], []],
  "curator purge": [["--dry-run"], ["--days", "1"]],
  "curator backup": [["--reason", "test"]],
  "curator ledger": [[], ["--skill", "weather"]],
  "skills view": [["weather"], ["configured"], ["no-such-skill"], ["weathr"]],
  "skills usage": [[], ["--sort", "recent"]],
  "skills disable": [["pdf-tools"], ["pdf-tools", "--platform", "telegram"]],
  "skills enable": [["pdf-tools"], ["pdf-tools"]],
  "skills config": [[], ["configured"], ["set", "units", "metric"], ["set", "api_token", "x"], ["set"]],
  "skills list": [[], ["--category", "tools"], ["--category", "nothing"]],
  help: [[], ["curator"], ["nonsense"]],
  skill: [["weather"], ["no-such-skill"]],
};

/** What the home holds as data (names, descriptions, bodies, the home's path), shown as it is written. */
function dataStrings(): string[] {
  return [
    ...skillFiles,
    // The last run's summary, a snapshot's reason and its cron note are stored in English but shown
    // in the reader's words, so they are not allowed here.
    // Command names (`/curator list-pinned` in a usage line) stay ASCII in every language.
    ...registry.flatMap((spec) => spec.path).filter((word) => word.includes("-")),
    ...SKILLS.map((name) => `${name} skill for tests`),
    "Do the thing.",
    "把 PDF 转成文本。",
    "天气服务的密钥",
    "用哪种单位",
    "哪个地区",
    "单位",
    "地区",
    ...SKILLS,
    "tools",
    "notes",
    "weathr",
    "no-such-skill",
    "nonsense",
    home,
  ].sort((a, b) => b.length - a.length);
}

/** The SKILL.md files of the generated home, as a view shows them. */
const skillFiles: string[] = [];

let home = "";
let cleanup: () => Promise<void> = async () => {};

async function writeHome(target: string): Promise<void> {
  await makeCuratorDue(target);
  await writeTestSkill(target, "tools", "pdf-tools", "", "把 PDF 转成文本。");
  await writeTestSkill(
    target,
    "tools",
    "weather",
    "required_environment_variables:\n  - name: WEATHER_API_KEY\n    prompt: 天气服务的密钥\n",
  );
  await writeTestSkill(target, "notes", "pinned-one");
  await writeTestSkill(
    target,
    "notes",
    "configured",
    "metadata:\n  hermes:\n    config:\n      - key: units\n        description: 单位\n        default: metric\n        prompt: 用哪种单位\n      - key: region\n        description: 地区\n        prompt: 哪个地区\n",
  );
  const usage = JSON.parse(await readFile(path.join(target, "skills", ".usage.json"), "utf8")) as Record<
    string,
    Record<string, unknown>
  >;
  const old = new Date(NOW.getTime() - 400 * 86_400_000).toISOString();
  for (const name of ["pinned-one", "weather", "configured"]) {
    usage[name] = {
      created_by: "agent",
      use_count: 2,
      view_count: 1,
      patch_count: 0,
      last_used_at: old,
      last_viewed_at: null,
      last_patched_at: null,
      created_at: old,
      state: name === "weather" ? "stale" : "active",
      pinned: false,
      archived_at: null,
    };
  }
  await writeFile(path.join(target, "skills", ".usage.json"), `${JSON.stringify(usage, null, 2)}\n`);
  await mkdir(path.join(target, "skills", ".archive"), { recursive: true });
}

interface Case {
  label: string;
  reply: Reply;
}

const cases: Case[] = [];

function key(spec: CommandSpec): string {
  return spec.path.join(" ");
}

/** Required arguments filled with a skill name, for a command this file does not know. */
function defaultArgs(spec: CommandSpec): string[][] {
  return [(spec.args ?? []).filter((arg) => arg.required).map(() => "pdf-tools")];
}

beforeAll(async () => {
  ({ home, cleanup } = await tempHome());
  await writeHome(home);
  for (const [category, name] of [
    ["tools", "pdf-tools"],
    ["tools", "weather"],
    ["notes", "pinned-one"],
    ["notes", "configured"],
    ["notes", "old-stale"],
  ] as const) {
    skillFiles.push((await readFile(path.join(home, "skills", category, name, "SKILL.md"), "utf8")).trim());
  }
  await writeFile(
    path.join(home, "config.yaml"),
    "gateway:\n  admins: ['telegram:1']\n  allowed_users: ['telegram:2']\ncurator:\n  archive_ttl_days: 1\n",
  );
  for (const spec of registry) {
    const runs = SUCCESS_ARGS[key(spec)] ?? defaultArgs(spec);
    for (const words of runs) {
      // As asked (a confirmation question where the command has one), then confirmed with -y.
      const asked = await parseAndRun(spec, chatOn(home, true, NOW), words);
      cases.push({ label: `${key(spec)} ${words.join(" ")}`, reply: asked });
      if (spec.confirm) {
        const confirmed = await parseAndRun(spec, chatOn(home, true, NOW), [...words, "-y"]);
        cases.push({ label: `${key(spec)} ${words.join(" ")} -y`, reply: confirmed });
      }
    }
    // Refusal: a mutating command from an allowed non-admin, a read-only one from a stranger.
    const refusal = spec.mutating
      ? await parseAndRun(spec, chatOn(home, false, NOW), defaultArgs(spec)[0] ?? [])
      : await parseAndRun(spec, chatOn(home, false, NOW, true), defaultArgs(spec)[0] ?? []);
    cases.push({ label: `${key(spec)} (refused)`, reply: refusal });
    // Usage error: an option no command has, and a missing required argument.
    cases.push({
      label: `${key(spec)} --no-such-option`,
      reply: await parseAndRun(spec, chatOn(home, true, NOW), ["--no-such-option"]),
    });
    if ((spec.args ?? []).some((arg) => arg.required)) {
      cases.push({
        label: `${key(spec)} (missing argument)`,
        reply: await parseAndRun(spec, chatOn(home, true, NOW), []),
      });
    }
  }
}, 120_000);

afterAll(async () => {
  await cleanup();
});

describe("every command's reply is complete in both locales", () => {
  it("drives every registry command in success, refusal and usage error", () => {
    for (const spec of registry) {
      const labels = cases.filter((item) => item.label.startsWith(`${key(spec)} `)).map((item) => item.label);
      expect(
        labels.some((label) => label.endsWith("(refused)")),
        key(spec),
      ).toBe(true);
      expect(
        labels.some((label) => label.endsWith("--no-such-option")),
        key(spec),
      ).toBe(true);
      expect(labels.length, key(spec)).toBeGreaterThanOrEqual(3);
    }
    // The generated home makes real work happen: something was refused, something succeeded.
    expect(cases.some((item) => (item.reply.exitCode ?? 0) === 0)).toBe(true);
    expect(cases.some((item) => item.reply.exitCode === 2)).toBe(true);
    expect(cases.some((item) => item.reply.exitCode === 1)).toBe(true);
  });

  itIsCompleteInBothLocales(cases, dataStrings, 600);
});
