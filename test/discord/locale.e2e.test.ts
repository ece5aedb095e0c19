/**
 * Languages end to end on Discord: the real gateway and adapter (discord.js) against the emulator.
 * Registration carries `zh-CN` and `zh-TW` localizations that the emulator checks by Discord's rules
 * (command names stay ASCII; the `zh-TW` texts come converted ahead of time, so registering does not
 * start the converter), and an interaction is answered in its `locale` (`zh-TW` in Traditional Chinese). A post without a reader (the maintenance
 * summary in the home channel) follows the guild's `preferred_locale`, also when it changes while the
 * gateway runs (GUILD_UPDATE), unless `gateway.discord.locale` names a locale.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isCatalogLoaded } from "../../src/core/i18n/messages.js";
import { type EmulatorUser, visibleText } from "../emulators/discord.js";
import {
  DISCORD_DMS,
  DISCORD_GUILD,
  DISCORD_HOME_CHANNEL,
  DISCORD_USERS,
  shown,
} from "../support/harness/discord.js";
import { usePlatform } from "../support/harness/index.js";
import { makeCuratorDue, writeCuratorLastRun, writeTestSkill } from "../support/platform-home.js";

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
  choices?: { name: string; name_localizations?: Record<string, string> }[];
}

/** Characters only Simplified Chinese writes: a Traditional text has none of them. */
const SIMPLIFIED_ONLY =
  /[们这为发档设项务时个来对说会与过还没现从动开关进实无问题让请读显库录态运输网页键称钮选单条块状]/;

/** Every command, option and choice of a registered set, with the texts it localizes. */
function localizedTexts(
  commands: readonly Registered[],
): { where: string; base: string; zhCN?: string; zhTW?: string }[] {
  return commands.flatMap((command) => [
    {
      where: command.name,
      base: command.description,
      zhCN: command.description_localizations?.["zh-CN"],
      zhTW: command.description_localizations?.["zh-TW"],
    },
    ...(command.choices ?? []).map((choice) => ({
      where: `${command.name} choice ${choice.name}`,
      base: choice.name,
      zhCN: choice.name_localizations?.["zh-CN"],
      zhTW: choice.name_localizations?.["zh-TW"],
    })),
    ...localizedTexts(command.options ?? []).map((text) => ({
      ...text,
      where: `${command.name} ${text.where}`,
    })),
  ]);
}

/** Every command the gateway registers (guild and global), as the emulator received them. */
async function registeredCommands(): Promise<Registered[]> {
  const run = await boot();
  await run.gateway.syncCommandCatalogs();
  return [
    ...run.emulator.guildCommands(DISCORD_GUILD),
    ...run.emulator.globalCommands(),
  ] as unknown as Registered[];
}

describe("discord: localized registration and replies", () => {
  it("registers ASCII command names with zh-CN description localizations", async () => {
    const commands = await registeredCommands();
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

  it("registers zh-TW localizations in Traditional Chinese, without backticks, and without the converter", async () => {
    const commands = await registeredCommands();
    const help = commands.find((command) => command.name === "help");
    expect(help?.description_localizations?.["zh-TW"]).toBe("列出這裡可用的命令和可以載入的技能");
    const texts = localizedTexts(commands);
    // Every text a zh-CN client reads in Chinese, a zh-TW client reads in Traditional Chinese.
    const missing = texts.filter((text) => text.zhCN !== undefined && text.zhTW === undefined);
    expect(missing.map((text) => text.where)).toEqual([]);
    const traditional = texts.flatMap((text) => (text.zhTW === undefined ? [] : [text]));
    expect(traditional.length).toBeGreaterThan(50);
    for (const text of traditional) {
      expect(text.zhTW, text.where).not.toContain("`");
      expect(text.zhTW, text.where).not.toMatch(SIMPLIFIED_ONLY);
    }
    // Some texts have no character to convert; most differ from their Simplified form.
    expect(traditional.filter((text) => text.zhTW !== text.zhCN).length).toBeGreaterThan(
      traditional.length / 2,
    );
    // Registering read the texts converted ahead of time: no Traditional catalog was derived.
    expect(isCatalogLoaded("zh-TW")).toBe(false);
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

  it("answers an interaction with locale zh-TW in Traditional Chinese", async () => {
    const run = await boot();
    const taiwan: EmulatorUser = { ...DISCORD_USERS.admin, locale: "zh-TW" };
    const help = shown(visibleText((await run.slash(taiwan, "help")).original));
    expect(help).toContain("列出這裡可用的命令和可以載入的技能");
    expect(help).not.toMatch(/[这为发档设项务时个来对说会]/);
    const simplified = shown(visibleText((await run.slash(chineseAdmin, "help")).original));
    expect(simplified).toContain("列出这里可用的命令和可以加载的技能");
  });

  it("answers a typed message in its author's last interaction locale, remembered across a restart", async () => {
    const run = await boot();
    const typed = async (): Promise<string> => {
      const before = run.emulator.messages.length;
      run.emulator.userMessage({ user: chineseAdmin, channelId: DISCORD_DMS.admin, content: "/whoami" });
      const answer = await run.emulator.waitForMessage(
        (item) => item.channelId === DISCORD_DMS.admin && run.emulator.messages.indexOf(item) >= before,
      );
      return shown(visibleText(answer));
    };
    // A typed message carries no locale: before any interaction, the platform's default (English).
    expect(await typed()).toMatch(/^You are /);
    const slash = await run.slash(chineseAdmin, "whoami", undefined, undefined, {
      channelId: DISCORD_DMS.admin,
    });
    expect(shown(visibleText(slash.original))).toMatch(/^你是 /);
    expect(await typed()).toMatch(/^你是 /);
    // Kept in the sessions store, so another process (or replica) answers alike.
    await run.stopGateway();
    await run.restart();
    expect(await typed()).toMatch(/^你是 /);
    const sessions = JSON.parse(await readFile(path.join(run.home, "gateway", "sessions.json"), "utf8")) as {
      sessions: Record<string, { reader_language?: string }>;
    };
    expect(sessions.sessions[`reader:discord:${chineseAdmin.id}`]?.reader_language).toBe("zh-CN");
  });
});

const bootWithHome = usePlatform("discord", {
  prepare: makeCuratorDue,
  config: {
    curator: { min_idle_hours: 0 },
    gateway: { home_channel: `discord:${DISCORD_HOME_CHANNEL}` },
  },
});

/** The maintenance summary the gateway posts to the home channel on its next tick. */
async function homeSummary(run: Awaited<ReturnType<typeof bootWithHome>>): Promise<string> {
  const before = run.emulator.messages.length;
  const outcome = await run.gateway.runMaintenanceTick();
  expect(outcome).toMatchObject({ ran: true, posted: true });
  const message = await run.emulator.waitForMessage(
    (item) => item.channelId === DISCORD_HOME_CHANNEL && run.emulator.messages.indexOf(item) >= before,
  );
  return shown(visibleText(message));
}

describe("discord: home-channel posts in the guild's language", () => {
  it("writes the maintenance summary in Chinese for a guild whose preferred locale is zh-CN", async () => {
    const run = await bootWithHome({
      prepare: async (home, emulator) => {
        emulator.setGuildLocale(DISCORD_GUILD, "zh-CN");
        await makeCuratorDue(home);
      },
    });
    const text = await homeSummary(run);
    expect(text).toContain("管理器（Curator）：自动：");
    expect(text).toContain("已归档 1 个技能：");
    expect(text).toContain("old-stale——因过时而清理");
    expect(text).not.toContain("archived 1 skill");
  });

  it("keeps English for an en-US guild, and follows the guild when its locale changes", async () => {
    const run = await bootWithHome();
    expect(await homeSummary(run)).toContain("archived 1 skill(s):");
    // The server's admin switches the community's language; discord.js learns it from GUILD_UPDATE.
    expect(run.adapter.chatLanguage(DISCORD_HOME_CHANNEL)).toBe("en-US");
    run.emulator.setGuildLocale(DISCORD_GUILD, "zh-CN");
    await expect.poll(() => run.adapter.chatLanguage(DISCORD_HOME_CHANNEL), { timeout: 5_000 }).toBe("zh-CN");
    await makeCuratorDue(run.home);
    await writeCuratorLastRun(run.home, 30);
    const text = await homeSummary(run);
    expect(text).toContain("已归档 1 个技能：");
  });

  it("lets gateway.discord.locale override the guild's language", async () => {
    const run = await bootWithHome({
      prepare: async (home, emulator) => {
        emulator.setGuildLocale(DISCORD_GUILD, "zh-CN");
        await makeCuratorDue(home);
      },
      config: { gateway: { discord: { locale: "en" } } },
    });
    expect(await homeSummary(run)).toContain("archived 1 skill(s):");
  });
});
