/**
 * Languages end to end on Discord: the real gateway and adapter (discord.js) against the emulator.
 * Registration carries `zh-CN` localizations that the emulator checks by Discord's rules (command names
 * stay ASCII), and an interaction is answered in its `locale`.
 */
import { describe, expect, it } from "vitest";
import { type EmulatorUser, visibleText } from "../emulators/discord.js";
import { DISCORD_GUILD, DISCORD_USERS, shown } from "../support/harness/discord.js";
import { usePlatform } from "../support/harness/index.js";
import { writeTestSkill } from "../support/platform-home.js";

const boot = usePlatform("discord", {
  prepare: (home) => writeTestSkill(home, "documents", "pdf-tools"),
});

const chineseAdmin: EmulatorUser = { ...DISCORD_USERS.admin, locale: "zh-CN" };
const englishMember: EmulatorUser = { ...DISCORD_USERS.member, locale: "en-US" };

interface Registered {
  name: string;
  description: string;
  description_localizations?: Record<string, string>;
  name_localizations?: Record<string, string>;
  options?: Registered[];
}

describe("discord: localized registration and replies", () => {
  it("registers ASCII command names with zh-CN description localizations", async () => {
    const run = await boot();
    await run.gateway.syncCommandCatalogs();
    const commands = [
      ...run.emulator.guildCommands(DISCORD_GUILD),
      ...run.emulator.globalCommands(),
    ] as unknown as Registered[];
    const help = commands.find((command) => command.name === "help");
    expect(help?.description).toBe("list the commands and the skills you can load here");
    expect(help?.description_localizations?.["zh-CN"]).toBe("列出这里可用的命令和可以加载的技能");
    for (const command of commands) {
      expect(command.name).toMatch(/^[a-z0-9_-]+$/);
      expect(command.name_localizations?.["zh-CN"] ?? command.name).toBe(command.name);
    }
    const skill = commands.find((command) => command.name === "skill");
    const nameOption = skill?.options?.find((option) => option.name === "name");
    expect(nameOption?.description_localizations?.["zh-CN"]).toBe("技能名称");
  });

  it("answers an interaction with locale zh-CN in Chinese and an en-US one in English", async () => {
    const run = await boot();
    const chinese = await run.slash(chineseAdmin, "whoami");
    expect(shown(visibleText(chinese.original))).toMatch(/^你是 /);
    const english = await run.slash(englishMember, "whoami");
    expect(shown(visibleText(english.original))).toMatch(/^You are /);
    const help = await run.slash(chineseAdmin, "help");
    expect(shown(visibleText(help.original))).toContain("命令");
  });
});
