/**
 * The damaged home of `damaged-complete.test.ts`, driven by the CLI under `LANG=en_US.UTF-8` and under
 * `LANG=zh_CN.UTF-8` on two copies at the same clock: the warnings, refusals and failures a person now
 * reads in Chinese leave `--json` (its `warnings`, `failures` and `error` fields) and every file written
 * (run reports with their warnings, the ledger, usage, state) byte-identical and in English, while the
 * human output of the same commands is Chinese.
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runCli } from "../support/cli-in-process.js";
import { writeDamagedHome } from "./damaged-home.js";

const base = { NO_COLOR: "1", SKILLGATE_LOG_LEVEL: "silent", PATH: process.env.PATH };
const ENGLISH = { ...base, LANG: "en_US.UTF-8" };
const CHINESE = { ...base, LANG: "zh_CN.UTF-8" };
const CLOCK = new Date("2026-06-01T10:00:00.000Z");

/** The operations, in order: each meets a damage (a skipped folder, a bad file, a refused move …). */
const OPERATIONS: string[][] = [
  ["skills", "list"],
  ["skills", "usage"],
  ["curator", "status"],
  ["curator", "archive", "pinned-one", "-y"],
  ["curator", "archive", "ext-one", "-y"],
  ["curator", "archive", "outsider", "-y"],
  ["curator", "prune", "--dry-run"],
  ["curator", "run", "--dry-run"],
  ["curator", "run"],
  ["curator", "prune", "--days", "1", "-y"],
  ["curator", "rollback", "--id", "no-such-snapshot", "-y"],
  ["curator", "rollback", "0badc0ffee99", "-y"],
];

let root = "";
let english = "";
let chinese = "";
const printed: { label: string; en: string; zh: string; enHuman: string; zhHuman: string }[] = [];

/** The home's path and the wall clock's measures (durations, compressed sizes) made comparable. */
function normalize(text: string, home: string): string {
  return (
    text
      .split(home)
      .join("<home>")
      .replace(/\b[0-9a-f]{12}\b/g, "<id>")
      .replace(/("(?:last_run_)?duration_seconds": )[0-9.]+/g, '$1"<seconds>"')
      .replace(/("archive_bytes": )\d+/g, '$1"<bytes>"')
      // An archived folder's inode and change time: facts of each home's file system, not of a language.
      .replace(/("folder_identity": )"\d+:\d+"/g, '$1"<inode:ctime>"')
  );
}

async function filesOf(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const rel = path.join(prefix, entry.name);
    if (entry.isDirectory()) out.push(...(await filesOf(path.join(dir, entry.name), rel)));
    else if (entry.isFile()) out.push(rel);
  }
  return out.sort();
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "skillgate-bytes-damaged-"));
  const template = path.join(root, "template");
  const outside = path.join(root, "outside");
  await mkdir(outside, { recursive: true });
  await writeDamagedHome(template, outside, CLOCK);
  english = path.join(root, "home-en");
  chinese = path.join(root, "home-zh");
  await cp(template, english, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
  await cp(template, chinese, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
  vi.useFakeTimers({ toFake: ["Date"] });
  let step = 0;
  for (const words of OPERATIONS) {
    const at = new Date(CLOCK.getTime() + step * 60_000);
    step += 1;
    vi.setSystemTime(at);
    const en = await runCli(english, [...words, "--json"], { env: ENGLISH });
    vi.setSystemTime(at);
    const zh = await runCli(chinese, [...words, "--json"], { env: CHINESE });
    // The human output of a read-only command, for the check that Chinese is what a person reads.
    const readOnly = words[0] === "skills" || words[1] === "status" || words.includes("--dry-run");
    const enHuman = readOnly ? await runCli(english, words, { env: ENGLISH }) : undefined;
    const zhHuman = readOnly ? await runCli(chinese, words, { env: CHINESE }) : undefined;
    printed.push({
      label: words.join(" "),
      en: `${normalize(en.stdout, english)}\nexit ${en.code}`,
      zh: `${normalize(zh.stdout, chinese)}\nexit ${zh.code}`,
      enHuman: enHuman ? enHuman.stdout + enHuman.stderr : "",
      zhHuman: zhHuman ? zhHuman.stdout + zhHuman.stderr : "",
    });
  }
  vi.useRealTimers();
}, 240_000);

afterAll(async () => {
  vi.useRealTimers();
  await rm(root, { recursive: true, force: true });
});

describe("a damaged home: --json and files are the same bytes under a Chinese reader", () => {
  it("prints byte-identical --json, its warnings and failures in English", () => {
    for (const item of printed) {
      expect(item.zh, item.label).toBe(item.en);
      expect(item.zh, item.label).not.toMatch(/[\u4e00-\u9fff]/);
    }
    const all = printed.map((item) => item.en).join("\n");
    // The damage reached the documents, in English.
    expect(all).toContain("is not valid JSON; hub-installed skills cannot be recognised until it is fixed.");
    expect(all).toContain("cron-referenced skills are not protected this run.");
    expect(all).toMatch(
      /could not archive 'outsider': skill 'outsider' sits in a folder reached through a symlink/,
    );
    expect(all).toMatch(/"error": "skill 'outsider' sits in a folder/);
    expect(all).toContain("cannot read .bundled_manifest: EISDIR");
  });

  it("shows the same warnings in Chinese to a person", () => {
    const human = printed.map((item) => item.zhHuman).join("\n");
    expect(human).toContain("修复之前无法识别 Hub 技能");
    expect(human).toContain("本次运行不保护定时任务引用的技能");
    expect(human).toMatch(/已跳过 tools\/binary：技能 'binary' 的 SKILL\.md 不是有效的 UTF-8 文本/);
    const englishHuman = printed.map((item) => item.enHuman).join("\n");
    expect(englishHuman).toContain(
      "skipped tools/binary: SKILL.md of skill 'binary' is not valid UTF-8 text",
    );
  });

  it("writes byte-identical files: run reports with their warnings, ledger, usage, state", async () => {
    const enFiles = await filesOf(english);
    const zhFiles = await filesOf(chinese);
    expect(zhFiles).toEqual(enFiles);
    expect(enFiles.some((file) => file.endsWith("run.json"))).toBe(true);
    const differing: string[] = [];
    let runJson = "";
    for (const file of enFiles) {
      // Derived caches (stat stamps of this home's files, rebuilt at will, read by no other program).
      if (file.startsWith(".cache/")) continue;
      if (file.endsWith(".tar.gz") || file.includes("SKILL.md")) continue;
      const en = normalize(await readFile(path.join(english, file), "utf8"), english);
      const zh = normalize(await readFile(path.join(chinese, file), "utf8"), chinese);
      if (en !== zh || /[\u4e00-\u9fff]/.test(zh)) differing.push(file);
      if (file.endsWith("run.json")) runJson += en;
    }
    expect(differing).toEqual([]);
    expect(runJson).toContain("cron-referenced skills are not protected this run.");
  });
});
