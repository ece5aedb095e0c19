/**
 * The Traditional Chinese texts of Discord's slash commands, converted ahead of time
 * (`src/core/i18n/generated/menu.zh-TW.ts`, written by `npm run i18n:traditional`): the committed file
 * holds exactly what the converter makes of today's zh-CN catalog for the keys registration shows, and a
 * process that registers Discord's commands with their `zh-TW` localizations never derives a
 * Traditional catalog.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { convertMenuTexts, MENU_TEXTS_FILE, menuKeys } from "../../scripts/i18n-traditional.js";
import { menuTextsZhTW } from "../../src/core/i18n/generated/menu.zh-TW.js";

describe("Discord's zh-TW command texts, converted ahead of time", () => {
  it("are what the converter makes of the zh-CN catalog today (else: run `npm run i18n:traditional`)", () => {
    const fresh = convertMenuTexts();
    const keys = [...new Set([...Object.keys(fresh), ...Object.keys(menuTextsZhTW)])].sort();
    const stale = keys.filter((key) => JSON.stringify(fresh[key]) !== JSON.stringify(menuTextsZhTW[key]));
    expect(
      stale,
      `${MENU_TEXTS_FILE} is stale for these keys: run \`npm run i18n:traditional\` and commit the file`,
    ).toEqual([]);
  });

  it("cover the registry's command texts and /skill's own", () => {
    const keys = menuKeys();
    expect(keys).toContain("help.summary");
    expect(keys).toContain("catalog.group.curator");
    expect(keys).toContain("discord.skillCommand.name");
    expect(keys.some((key) => key.startsWith("cmd.option."))).toBe(true);
    expect(menuTextsZhTW["help.summary"]).toBe("列出這裡可用的命令和可以載入的技能");
  });

  it("let a fresh process register every zh-TW localization without deriving a Traditional catalog", async () => {
    // A fresh process: this test file has converted already.
    const script = `
      const { buildApplicationCommands } = await import("./adapters/discord/commands.ts");
      const { registry } = await import("./commands/index.ts");
      const { buildCommandCatalog } = await import("./src/gateway/catalog.ts");
      const { isCatalogLoaded } = await import("./src/core/i18n/messages.ts");
      const commands = buildApplicationCommands(buildCommandCatalog(registry, []));
      const texts = [];
      const walk = (item) => {
        if (item.description_localizations) texts.push(item.description_localizations);
        for (const choice of item.choices ?? []) if (choice.name_localizations) texts.push(choice.name_localizations);
        for (const option of item.options ?? []) walk(option);
      };
      commands.forEach(walk);
      const help = commands.find((command) => command.name === "help");
      console.log(JSON.stringify({
        help: help.description_localizations["zh-TW"],
        withoutTraditional: texts.filter((map) => map["zh-CN"] !== undefined && map["zh-TW"] === undefined).length,
        traditional: texts.filter((map) => map["zh-TW"] !== undefined).length,
        derived: isCatalogLoaded("zh-TW"),
      }));`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      { cwd: process.cwd(), timeout: 60_000 },
    );
    const seen = JSON.parse(stdout) as {
      help: string;
      withoutTraditional: number;
      traditional: number;
      derived: boolean;
    };
    expect(seen.help).toBe("列出這裡可用的命令和可以載入的技能");
    expect(seen.withoutTraditional).toBe(0);
    expect(seen.traditional).toBeGreaterThan(50);
    expect(seen.derived).toBe(false);
  });
});
