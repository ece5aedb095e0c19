/**
 * A reader's language changes what a person reads, never what a program reads: the same operations run
 * by the CLI under `LANG=en_US.UTF-8`, under `LANG=zh_CN.UTF-8` and under `LANG=zh_TW.UTF-8` (Traditional
 * Chinese), on three copies of one home at the same clock, print byte-identical `--json` for every command of the registry (success and refusal alike)
 * and leave byte-identical files (config.yaml, .env, the ledger, usage, curator state, snapshots and
 * their manifests, reports). Ledger entry ids are random per run, so they are numbered in order of
 * appearance before comparing; the home's path is the only other difference.
 */
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { registry } from "../../commands/index.js";
import { runCli } from "../support/cli-in-process.js";
import { makeCuratorDue, writeTestSkill } from "../support/platform-home.js";

const base = { NO_COLOR: "1", SKILLGATE_LOG_LEVEL: "silent", PATH: process.env.PATH };
const ENGLISH = { ...base, LANG: "en_US.UTF-8" };
const CHINESE = { ...base, LANG: "zh_CN.UTF-8" };
const TRADITIONAL = { ...base, LANG: "zh_TW.UTF-8" };

/** The operations, in order: every registry command at least once, mutations confirmed with `-y`. */
const OPERATIONS: Record<string, string[][]> = {
  "skills list": [[], ["--category", "tools"]],
  "skills view": [["weather"], ["no-such-skill"]],
  "skills usage": [[]],
  "skills disable": [["pdf-tools", "-y"]],
  "skills enable": [["pdf-tools", "-y"]],
  "skills config": [[], ["set", "units", "imperial", "-y"]],
  "curator status": [[]],
  "curator run": [["--dry-run"], []],
  "curator pause": [[]],
  "curator resume": [[]],
  "curator pin": [["pinned-one"], ["no-such-skill"]],
  "curator unpin": [["pinned-one"]],
  "curator adopt": [["pdf-tools"]],
  "curator list-pinned": [[]],
  "curator list-unmanaged": [[]],
  "curator archive": [
    ["weather", "-y"],
    ["no-such-skill", "-y"],
  ],
  "curator restore": [["weather", "-y"]],
  "curator list-archived": [[]],
  "curator prune": [["--dry-run"], ["--days", "1", "-y"]],
  "curator backup": [["--reason", "bytes"]],
  "curator rollback": [["--list"]],
  "curator ledger": [[]],
  "curator purge": [["--days", "1", "-y"]],
  help: [[], ["nonsense"]],
  whoami: [[]],
  skill: [["configured"]],
};

const CLOCK = new Date("2026-06-01T10:00:00.000Z");

/**
 * Random ledger ids numbered by first appearance, the home's path, and what the wall clock measures
 * (a run's duration; a snapshot's compressed size, which follows the files' modification times) made
 * comparable. The snapshot archives themselves are compared member by member (`tarMembers`).
 */
function normalize(text: string, home: string, ids: Map<string, string>): string {
  return (
    text
      .split(home)
      .join("<home>")
      .replace(/\b[0-9a-f]{12}\b/g, (id) => {
        if (!ids.has(id)) ids.set(id, `<id${ids.size}>`);
        return ids.get(id) ?? id;
      })
      .replace(/("(?:last_run_)?duration_seconds": )[0-9.]+/g, '$1"<seconds>"')
      .replace(/("archive_bytes": )\d+/g, '$1"<bytes>"')
      // An archived folder's inode and change time: facts of each home's file system, not of a language.
      .replace(/("folder_identity": )"\d+:\d+"/g, '$1"<inode:ctime>"')
  );
}

/** The members of a .tar.gz (type, name and content; their times are the files' own), in order. */
function tarMembers(archive: Buffer, shown: (text: string) => string): string[] {
  const tar = gunzipSync(archive);
  const members: string[] = [];
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512);
    if (header.every((byte) => byte === 0)) break;
    const field = (from: number, to: number) =>
      header
        .subarray(from, to)
        .toString("utf8")
        .replace(/\0[\s\S]*$/, "");
    const size = Number.parseInt(field(124, 136).trim() || "0", 8);
    const body = tar.subarray(at + 512, at + 512 + size);
    members.push(`${field(156, 157)} ${field(345, 500)}${field(0, 100)} ${shown(body.toString("utf8"))}`);
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return members;
}

async function filesOf(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const rel = path.join(prefix, entry.name);
    if (entry.isDirectory()) out.push(...(await filesOf(path.join(dir, entry.name), rel)));
    else out.push(rel);
  }
  return out.sort();
}

let root = "";
let english = "";
let chinese = "";
let traditional = "";
const printed: {
  label: string;
  en: string;
  zh: string;
  tw: string;
  enCode: number;
  zhCode: number;
  twCode: number;
}[] = [];
const ids = { en: new Map<string, string>(), zh: new Map<string, string>(), tw: new Map<string, string>() };

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "skillgate-bytes-"));
  const template = path.join(root, "template");
  await makeCuratorDue(template);
  await writeTestSkill(template, "tools", "pdf-tools");
  await writeTestSkill(
    template,
    "tools",
    "weather",
    "required_environment_variables:\n  - name: WEATHER_API_KEY\n    prompt: Weather API key\n",
  );
  await writeTestSkill(template, "notes", "pinned-one");
  await writeTestSkill(
    template,
    "notes",
    "configured",
    "metadata:\n  hermes:\n    config:\n      - key: units\n        description: Units\n        default: metric\n",
  );
  await writeFile(path.join(template, "config.yaml"), "curator:\n  archive_ttl_days: 1\n");
  await writeFile(path.join(template, ".env"), "OTHER_KEY=1\n");
  // Three copies of one home, same bytes and times; paths of one length.
  english = path.join(root, "home-en");
  chinese = path.join(root, "home-zh");
  traditional = path.join(root, "home-tw");
  for (const home of [english, chinese, traditional])
    await cp(template, home, { recursive: true, preserveTimestamps: true });
  vi.useFakeTimers({ toFake: ["Date"] });
  let step = 0;
  for (const spec of registry) {
    const name = spec.path.join(" ");
    for (const words of OPERATIONS[name] ?? [[]]) {
      const args = [...spec.path, ...words, "--json"];
      const at = new Date(CLOCK.getTime() + step * 60_000);
      step += 1;
      vi.setSystemTime(at);
      const en = await runCli(english, args, { env: ENGLISH });
      vi.setSystemTime(at);
      const zh = await runCli(chinese, args, { env: CHINESE });
      vi.setSystemTime(at);
      const tw = await runCli(traditional, args, { env: TRADITIONAL });
      printed.push({
        label: args.join(" "),
        en: normalize(en.stdout, english, ids.en),
        zh: normalize(zh.stdout, chinese, ids.zh),
        tw: normalize(tw.stdout, traditional, ids.tw),
        enCode: en.code,
        zhCode: zh.code,
        twCode: tw.code,
      });
    }
  }
  vi.useRealTimers();
}, 240_000);

afterAll(async () => {
  vi.useRealTimers();
  await rm(root, { recursive: true, force: true });
});

describe("--json and files are the same bytes under a Chinese reader, Simplified or Traditional", () => {
  it("covers every registry command, with successes and refusals", () => {
    for (const spec of registry) {
      const name = spec.path.join(" ");
      expect(
        printed.some((item) => item.label.startsWith(`${name} `)),
        name,
      ).toBe(true);
    }
    expect(printed.some((item) => item.enCode === 0)).toBe(true);
    expect(printed.some((item) => item.enCode !== 0)).toBe(true);
  });

  it("prints byte-identical --json for every command, in English data", () => {
    for (const item of printed) {
      expect(item.zh, item.label).toBe(item.en);
      expect(item.zhCode, item.label).toBe(item.enCode);
      expect(item.tw, item.label).toBe(item.en);
      expect(item.twCode, item.label).toBe(item.enCode);
      expect(item.zh, item.label).not.toMatch(/[\u4e00-\u9fff]/);
      expect(() => JSON.parse(item.zh), item.label).not.toThrow();
    }
  });

  it("writes byte-identical files: config.yaml, .env, ledger, usage, state, snapshots, reports", async () => {
    const enFiles = await filesOf(english);
    // The operations did write what a program reads.
    for (const wanted of ["config.yaml", ".env", "skills/.usage.json", "skills/.curator_ledger.jsonl"]) {
      expect(enFiles, wanted).toContain(wanted);
    }
    expect(enFiles.some((file) => file.endsWith("manifest.json"))).toBe(true);
    expect(enFiles.some((file) => file.endsWith("REPORT.md"))).toBe(true);
    for (const [reader, home, readerIds] of [
      ["zh-CN", chinese, ids.zh],
      ["zh-TW", traditional, ids.tw],
    ] as const) {
      expect(await filesOf(home), reader).toEqual(enFiles);
      const differing: string[] = [];
      for (const file of enFiles) {
        // Derived caches (stat stamps of this home's files, rebuilt at will, read by no other program).
        if (file.startsWith(".cache/")) continue;
        const en = await readFile(path.join(english, file));
        const zh = await readFile(path.join(home, file));
        if (en.equals(zh)) continue;
        if (file.endsWith(".tar.gz")) {
          const enMembers = tarMembers(en, (text) => normalize(text, english, ids.en));
          const zhMembers = tarMembers(zh, (text) => normalize(text, home, readerIds));
          if (JSON.stringify(enMembers) !== JSON.stringify(zhMembers)) differing.push(file);
          continue;
        }
        // Text files may differ only by the home's path and the random ledger ids.
        const enText = normalize(en.toString("utf8"), english, ids.en);
        const zhText = normalize(zh.toString("utf8"), home, readerIds);
        if (enText !== zhText || /[\u4e00-\u9fff]/.test(zhText)) differing.push(file);
      }
      expect(differing, reader).toEqual([]);
    }
    const config = await readFile(path.join(chinese, "config.yaml"), "utf8");
    expect(config).toContain("imperial");
  });
});
