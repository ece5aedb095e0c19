/**
 * The CLI's language: human output follows LC_ALL / LC_MESSAGES / LANG (English by default), while
 * `--json` documents stay byte-identical whatever the locale. Tables are laid out in display columns
 * (a CJK character is two).
 */
import type { Command } from "commander";
import { describe, expect, it, onTestFinished } from "vitest";
import { registry } from "../../commands/index.js";
import { buildProgram } from "../../src/cli/program.js";
import { localeFromEnv } from "../../src/core/i18n/locale.js";
import { displayWidth } from "../../src/core/i18n/width.js";
import { formatTable } from "../../src/core/reply.js";
import { runCli, runCliArgs } from "../support/cli-in-process.js";
import { englishLeft } from "../support/english-left.js";
import { makeCuratorDue } from "../support/platform-home.js";
import { tempHome } from "../telegram/helpers.js";

const base = { NO_COLOR: "1", SKILLGATE_LOG_LEVEL: "silent", PATH: process.env.PATH };
const chinese = { ...base, LANG: "zh_CN.UTF-8" };
const taiwan = { ...base, LANG: "zh_TW.UTF-8" };
const hongKong = { ...base, LC_ALL: "zh_HK.UTF-8" };
/** Characters only Simplified Chinese writes; Traditional output has none. */
const SIMPLIFIED_ONLY = /[们这为发档设项务时个来对说会与过还没现从动开关进实无问题让请读显库录态]/;

describe("CLI locale", () => {
  it("reads LC_ALL, then LC_MESSAGES, then LANG; English otherwise", () => {
    expect(localeFromEnv({})).toBe("en");
    expect(localeFromEnv({ LANG: "zh_CN.UTF-8" })).toBe("zh-CN");
    expect(localeFromEnv({ LANG: "zh_CN.UTF-8", LC_ALL: "C" })).toBe("en");
    expect(localeFromEnv({ LANG: "en_US.UTF-8", LC_MESSAGES: "zh_CN" })).toBe("zh-CN");
    expect(localeFromEnv({ LANG: "de_DE.UTF-8" })).toBe("en");
  });

  it("prints human output in Chinese under a Chinese LANG and English without one", async () => {
    const { home, cleanup } = await tempHome();
    onTestFinished(cleanup);
    await makeCuratorDue(home);
    const zh = await runCli(home, ["help"], { env: chinese });
    const en = await runCli(home, ["help"], { env: base });
    expect(zh.stdout).toContain("命令");
    expect(zh.stdout).toContain("列出这里可用的命令和可以加载的技能");
    expect(en.stdout).toContain("Commands");
    expect(en.stdout).not.toContain("命令");
    const refused = await runCli(home, ["help", "nonsense"], { env: chinese });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("没有命令");
  });

  it("prints human output in Traditional Chinese under zh_TW (Taiwan's words) and zh_HK", async () => {
    const { home, cleanup } = await tempHome();
    onTestFinished(cleanup);
    await makeCuratorDue(home);
    for (const args of [["help"], ["curator", "status"], ["skills", "list"]]) {
      const tw = await runCli(home, args, { env: taiwan });
      const hk = await runCli(home, args, { env: hongKong });
      const zh = await runCli(home, args, { env: chinese });
      for (const out of [tw, hk]) {
        expect(out.code, args.join(" ")).toBe(zh.code);
        expect(out.stdout, args.join(" ")).toMatch(/[\u4e00-\u9fff]/);
        expect(out.stdout, args.join(" ")).not.toMatch(SIMPLIFIED_ONLY);
        expect(out.stdout, args.join(" ")).not.toBe(zh.stdout);
      }
    }
    const help = await runCli(home, ["help"], { env: taiwan });
    expect(help.stdout).toContain("列出這裡可用的命令和可以載入的技能");
    expect((await runCli(home, ["help"], { env: hongKong })).stdout).toContain(
      "列出這裏可用的命令和可以加載的技能",
    );
    const refused = await runCli(home, ["help", "nonsense"], { env: taiwan });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("沒有命令");
  });

  it("prints every command's --help in Chinese under a Chinese LANG, and the English help as it was", async () => {
    // Every command path the command line has, from the program itself (a new command is covered).
    const paths: string[][] = [];
    const walk = (command: Command, path: string[]) => {
      paths.push(path);
      for (const sub of command.commands) walk(sub, [...path, sub.name()]);
    };
    const silent = { write: () => true } as unknown as NodeJS.WritableStream;
    walk(
      buildProgram(registry, () => undefined, { stdout: silent, stderr: silent }),
      [],
    );
    expect(paths.length).toBeGreaterThan(20);
    // Commander's usage syntax ([options], [command], <name>), default values and the names in the
    // item column (commands, arguments) stay as written.
    const syntax = [
      /^ {2}[\w-]+/gm,
      /^用法：.*$/m,
      /\[[\w. -]+\]|<[\w.=-]+>/g,
      /\(default: [^)]*\)/g,
      /--?[\w-]+/g,
    ];
    for (const path of paths) {
      const zh = await runCliArgs([...path, "--help"], { env: chinese });
      expect(zh.stdout, path.join(" ")).toContain("用法：");
      expect(englishLeft(zh.stdout, syntax), `${path.join(" ")} --help`).toBeNull();
    }
    const en = await runCliArgs(["serve", "--help"], { env: base });
    expect(en.stdout).toContain("Usage: skillgate serve [options]");
    expect(en.stdout).toContain("only the terminal chat in this terminal: no platforms");
    expect(en.stdout).toMatch(/-h, --help\s+display help for command/);
    expect(englishLeft(en.stdout, syntax)).not.toBeNull();
  });

  it("keeps --json byte-identical under a Chinese LANG (Simplified or Traditional), for answers and refusals alike", async () => {
    const { home, cleanup } = await tempHome();
    onTestFinished(cleanup);
    await makeCuratorDue(home);
    for (const args of [
      ["help", "--json"],
      ["whoami", "--json"],
      ["skills", "list", "--json"],
      ["curator", "status", "--json"],
      ["help", "nonsense", "--json"],
      ["skill", "no-such-skill", "--json"],
    ]) {
      const en = await runCli(home, args, { env: base });
      for (const env of [chinese, taiwan, hongKong]) {
        const zh = await runCli(home, args, { env });
        expect(zh.stdout, args.join(" ")).toBe(en.stdout);
        expect(zh.code, args.join(" ")).toBe(en.code);
        expect(zh.stdout).not.toMatch(/[\u4e00-\u9fff]/);
      }
    }
  });

  it("aligns table columns by display width, CJK characters counting two", () => {
    const table = formatTable(
      ["名称", "状态"],
      [
        ["技能-pdf", "已归档"],
        ["arxiv", "active"],
      ],
    );
    const rows = table.split("\n");
    const secondColumn = rows.map((row) => {
      const cell = row.includes("已归档") ? "已归档" : row.includes("active") ? "active" : "状态";
      return displayWidth(row.slice(0, row.indexOf(cell)));
    });
    expect(new Set(secondColumn).size).toBe(1);
    expect(secondColumn[0]).toBe(displayWidth("技能-pdf") + 2);
  });
});
