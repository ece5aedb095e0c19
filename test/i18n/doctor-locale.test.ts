/**
 * `skillgate doctor` follows `LANG` for its human output like the rest of the CLI: on homes that are
 * missing, broken or badly configured, the zh-CN report has no English sentence left (the allow-list of
 * `complete-support.ts`) and the English one no raw key, while `doctor --json` is byte-identical under
 * both languages (the checks carry their English, as they always did).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliArgs } from "../support/cli-in-process.js";
import { writeTestSkill } from "../support/platform-home.js";
import { englishLeft, KEY_PATTERN } from "./complete-support.js";

const base = { NO_COLOR: "1", SKILLGATE_LOG_LEVEL: "silent", PATH: process.env.PATH };
const ENGLISH = { ...base, LANG: "en_US.UTF-8" };
const CHINESE = { ...base, LANG: "zh_CN.UTF-8" };

let root = "";
const homes: Record<string, string> = {};

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "skillgate-doctor-locale-"));
  // Settings misspelled (one with a suggestion), nobody admin, no platform token, no skills.
  homes.misconfigured = path.join(root, "misconfigured");
  await writeTestSkill(homes.misconfigured, "tools", "placeholder");
  await rm(path.join(homes.misconfigured, "skills", "tools"), { recursive: true });
  await writeFile(
    path.join(homes.misconfigured, "config.yaml"),
    "gateway:\n  admins: []\n  telegram:\n    enabled: true\ncurator:\n  stale_after_dayz: 3\n  zzzz_qqqq: 1\n",
  );
  // config.yaml that is not YAML.
  homes.broken = path.join(root, "broken");
  await writeTestSkill(homes.broken, "tools", "pdf-tools");
  await writeFile(path.join(homes.broken, "config.yaml"), "gateway: [unclosed\n  : :\n");
  // A value of the wrong kind, and a healthy library.
  homes.badValue = path.join(root, "bad-value");
  await writeTestSkill(homes.badValue, "tools", "pdf-tools");
  await writeFile(
    path.join(homes.badValue, "config.yaml"),
    "gateway:\n  admins: ['telegram:1']\n  locale: klingon\n",
  );
  // No home at all.
  homes.missing = path.join(root, "no-such-home");
}, 60_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("skillgate doctor in both languages", () => {
  it("zh-CN: the report is Chinese; en: no raw key; --json the same bytes", async () => {
    for (const [label, home] of Object.entries(homes)) {
      const zh = await runCliArgs(["--home", home, "doctor"], { env: CHINESE });
      const en = await runCliArgs(["--home", home, "doctor"], { env: ENGLISH });
      // Names, keys and a setting's allowed values stay as they are.
      const data = [
        home,
        path.join(home, "config.yaml"),
        "stale_after_dayz",
        "zzzz_qqqq",
        "auto、en、zh-CN、zh-TW、zh-HK",
      ];
      const found = englishLeft(zh.stdout, data);
      expect(found, `${label}: «${found}» in ${zh.stdout}`).toBeNull();
      expect(zh.stdout, label).toMatch(/[\u4e00-\u9fff]/);
      expect(zh.code, label).toBe(en.code);
      expect(en.stdout, label).not.toMatch(KEY_PATTERN);
      expect(en.stdout, label).not.toMatch(/\{[A-Za-z_]+\}|[\u4e00-\u9fff]/);
      expect(en.stdout, label).toMatch(/skillgate doctor/);
      const zhJson = await runCliArgs(["--home", home, "doctor", "--json"], { env: CHINESE });
      const enJson = await runCliArgs(["--home", home, "doctor", "--json"], { env: ENGLISH });
      expect(zhJson.stdout, label).toBe(enJson.stdout);
      expect(enJson.stdout, label).not.toMatch(/[\u4e00-\u9fff]/);
    }
  });

  it("each damaged home is reported as such, in the reader's words", async () => {
    const zh = async (home: string) =>
      (await runCliArgs(["--home", home, "doctor"], { env: CHINESE })).stdout;
    expect(await zh(homes.missing as string)).toMatch(/主目录 .* 不存在/);
    expect(await zh(homes.broken as string)).toMatch(/不是有效的 YAML/);
    const misconfigured = await zh(homes.misconfigured as string);
    expect(misconfigured).toMatch(/你是想写 `curator\.stale_after_days` 吗/);
    expect(misconfigured).toMatch(/gateway\.admins 为空/);
    expect(misconfigured).toMatch(/技能库中没有技能/);
    expect(misconfigured).toMatch(/修复方法/);
  });
});
