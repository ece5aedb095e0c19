/**
 * Languages end to end on Telegram: the real gateway and adapter (grammy) against the Bot API emulator.
 * Each reader is answered in the language their client reports (`from.language_code`), in the same
 * group at the same time: replies, buttons, refusals and the maintenance summary. Traditional Chinese
 * readers (`zh-hant`, `zh-TW`, `zh-HK`) read the Traditional catalogs derived from the Simplified one.
 */
import { describe, expect, it } from "vitest";
import type { SentMessage } from "../emulators/telegram.js";
import { type PlatformRun, settle, usePlatform } from "../support/harness/index.js";
import { TELEGRAM_IDS } from "../support/harness/telegram.js";
import { makeCuratorDue, writeTestSkill } from "../support/platform-home.js";

const ADMIN = TELEGRAM_IDS.admin;
const MEMBER = TELEGRAM_IDS.member;
const STRANGER = TELEGRAM_IDS.stranger;
const GROUP = -100500;
const HOME_CHAT = -100701;
/** Characters only Simplified Chinese writes; Traditional text has none. */
const SIMPLIFIED_ONLY = /[们这为发档设项务时个来对说会与过还没现从动开关进实无问题让请读显库录态]/;

const boot = usePlatform("telegram", {
  prepare: (home) => writeTestSkill(home, "documents", "pdf-tools"),
  config: { gateway: { home_channel: `telegram:${HOME_CHAT}` }, curator: { min_idle_hours: 0 } },
});

async function ask(
  run: PlatformRun<"telegram">,
  text: string,
  userId: number,
  languageCode: string | undefined,
  chatId = userId,
): Promise<SentMessage> {
  const [reply] = await run.ask({
    text,
    userId,
    chatId,
    chatType: chatId < 0 ? "supergroup" : "private",
    ...(languageCode ? { languageCode } : {}),
  });
  return reply as SentMessage;
}

/** Runs one maintenance tick, which must post, and returns the summary it posted to the home chat. */
async function homeSummary(run: PlatformRun<"telegram">): Promise<SentMessage> {
  const since = run.emulator.sent.length;
  expect((await run.gateway.runMaintenanceTick()).posted).toBe(true);
  return run.emulator.waitForMessage((message) => message.chat_id === String(HOME_CHAT), 8000, since);
}

function labels(message: SentMessage | undefined): string[] {
  return (message?.reply_markup?.inline_keyboard ?? []).flat().map((button) => button.text);
}

describe("telegram: each reader in their language", () => {
  it("a zh-hans member gets Chinese /help while an en admin in the same group gets English", async () => {
    const run = await boot();
    const chinese = await ask(run, "/help@SkillgateBot", MEMBER, "zh-hans", GROUP);
    const english = await ask(run, "/help@SkillgateBot", ADMIN, "en", GROUP);
    expect(chinese.plain).toContain("命令");
    expect(chinese.plain).toContain("列出这里可用的命令和可以加载的技能");
    expect(chinese.plain).not.toContain("Commands");
    expect(english.plain).toContain("Commands");
    expect(english.plain).toContain("list the commands and the skills you can load here");
    expect(english.plain).not.toContain("命令");
  });

  it("zh-hant and zh-TW readers get /curator status in Taiwan's Traditional Chinese, zh-HK in Hong Kong's", async () => {
    const run = await boot({ prepare: makeCuratorDue });
    const simplified = await ask(run, "/curator status", ADMIN, "zh-hans");
    const hant = await ask(run, "/curator status", ADMIN, "zh-hant");
    const taiwan = await ask(run, "/curator status", ADMIN, "zh-TW");
    const hongKong = await ask(run, "/curator status", ADMIN, "zh-HK");
    expect(simplified.plain).toContain("管理器");
    expect(simplified.plain).toMatch(/[们这为发档设项务时个态]/);
    expect(hant.plain).toBe(taiwan.plain);
    for (const traditional of [taiwan, hongKong]) {
      expect(traditional.plain).toContain("管理器");
      expect(traditional.plain).not.toMatch(SIMPLIFIED_ONLY);
      expect(traditional.plain).not.toBe(simplified.plain);
    }
    expect(hongKong.plain).not.toBe(taiwan.plain);
    const skills = await ask(run, "/skills", MEMBER, "zh-hant", GROUP);
    expect(skills.plain).toContain("pdf-tools");
    expect(skills.plain).not.toMatch(SIMPLIFIED_ONLY);
    expect(skills.plain).toMatch(/[\u4e00-\u9fff]/);
  });

  it("/language zh-TW makes a group Traditional; the maintenance summary posted there reads Traditional", async () => {
    const run = await boot({ prepare: makeCuratorDue });
    expect((await ask(run, "/language zh_tw", ADMIN, "en", HOME_CHAT)).plain).toBe(
      "本聊天現在使用繁體中文（台灣）。",
    );
    expect((await ask(run, "/language", MEMBER, "en", HOME_CHAT)).plain).toBe(
      "本聊天的語言：繁體中文（台灣）。",
    );
    await settle(run.gateway);
    const since = run.emulator.sent.length;
    expect((await run.gateway.runMaintenanceTick()).posted).toBe(true);
    const summary = await run.emulator.waitForMessage(
      (message) => message.chat_id === String(HOME_CHAT),
      8000,
      since,
    );
    expect(summary.plain).toContain("管理器（Curator）：自動：");
    expect(summary.plain).toContain("已歸檔 1 個技能：");
    expect(summary.plain).not.toMatch(SIMPLIFIED_ONLY);
    expect(labels(summary)).toEqual(expect.arrayContaining(["恢復 old-stale"]));
    expect((await ask(run, "/language zh-HK", ADMIN, "en", GROUP)).plain).toBe(
      "本聊天現在使用繁體中文（香港）。",
    );
  });

  it("buttons and what they answer follow the presser's language", async () => {
    const run = await boot();
    const zh = await ask(run, "/curator archive pdf-tools", ADMIN, "zh-hans");
    expect(labels(zh)).toEqual(["确认", "取消"]);
    await run.press({ messageId: zh.message_id, label: "取消", userId: ADMIN });
    expect(run.emulator.latest(zh.message_id)?.plain).toBe("已取消；未做任何更改。");
    const en = await ask(run, "/curator archive pdf-tools", ADMIN, "en");
    expect(labels(en)).toEqual(["Confirm", "Cancel"]);
  });

  it("a refusal and the stranger notice are in the reader's language", async () => {
    const run = await boot();
    const refused = await ask(run, "/curator pause", MEMBER, "zh-hans");
    expect(refused.plain).toContain("仅限管理员使用");
    expect(refused.plain).toContain(`telegram:${MEMBER}`);
    const stranger = await ask(run, "/help", STRANGER, "zh-hans");
    expect(stranger.plain).toContain("我还不认识你");
    expect(stranger.plain).toContain(`telegram:${STRANGER}`);
    const english = await ask(run, "/curator pause", MEMBER, "en");
    expect(english.plain).toContain("for admins only");
  });

  it("gateway.locale: zh-CN answers every reader in Chinese, an unknown language falls back to English", async () => {
    const fixed = await boot({ config: { gateway: { locale: "zh-CN" } } });
    const en = await ask(fixed, "/whoami", ADMIN, "en");
    expect(en.plain).toMatch(/^你是 /);
    const auto = await boot();
    const german = await ask(auto, "/whoami", ADMIN, "de");
    expect(german.plain).toMatch(/^You are /);
  });

  it("the home channel's maintenance summary, rename map and buttons follow gateway.telegram.locale", async () => {
    const run = await boot({
      prepare: makeCuratorDue,
      config: { gateway: { telegram: { locale: "zh-CN" } } },
    });
    const summary = await homeSummary(run);
    expect(summary.plain).toContain("管理器（Curator）：自动：");
    expect(summary.plain).toContain("已归档 1 个技能：");
    expect(summary.plain).toContain("old-stale——因过时而清理");
    expect(summary.plain).toContain("完整报告：");
    expect(labels(summary)).toEqual(expect.arrayContaining(["恢复 old-stale", "回滚这次运行"]));
  });

  it("/language zh-CN by a group admin makes every reply in that group Chinese; a member may not change it", async () => {
    const run = await boot();
    const refused = await ask(run, "/language zh-CN", MEMBER, "en", GROUP);
    expect(refused.plain).toContain("only admins may change its language");
    expect(refused.plain).toContain(`telegram:${MEMBER}`);
    expect((await ask(run, "/whoami", MEMBER, "en", GROUP)).plain).toMatch(/^You are /);
    const set = await ask(run, "/language zh-CN", ADMIN, "en", GROUP);
    expect(set.plain).toBe("本聊天现在使用简体中文。");
    expect((await ask(run, "/whoami", MEMBER, "en", GROUP)).plain).toMatch(/^你是 /);
    expect((await ask(run, "/language", MEMBER, "en", GROUP)).plain).toBe("本聊天的语言：简体中文。");
    // Another chat keeps following its reader.
    expect((await ask(run, "/whoami", MEMBER, "en")).plain).toMatch(/^You are /);
    const cleared = await ask(run, "/language auto", ADMIN, "en", GROUP);
    expect(cleared.plain).toContain("follows each reader's own language again");
    expect((await ask(run, "/whoami", MEMBER, "en", GROUP)).plain).toMatch(/^You are /);
  });

  it("in a direct chat anyone may set its language; an unknown one is refused", async () => {
    const run = await boot();
    expect((await ask(run, "/language fr", MEMBER, "en")).plain).toContain(
      "Unknown language fr: use zh-CN, zh-TW, zh-HK, en or auto.",
    );
    expect((await ask(run, "/language en", MEMBER, "zh-hans")).plain).toBe("This chat now reads in English.");
    expect((await ask(run, "/whoami", MEMBER, "zh-hans")).plain).toMatch(/^You are /);
  });

  it("the maintenance summary posted to a home group that chose /language zh-CN is in Chinese", async () => {
    const run = await boot({ prepare: makeCuratorDue });
    await ask(run, "/language zh-CN", ADMIN, "en", HOME_CHAT);
    await settle(run.gateway);
    const summary = await homeSummary(run);
    expect(summary.plain).toContain("管理器（Curator）：自动：");
    expect(summary.plain).toContain("已归档 1 个技能：");
    expect(labels(summary)).toEqual(expect.arrayContaining(["恢复 old-stale", "回滚这次运行"]));
  });

  it("gateway.home_locale: zh-CN writes the home summary in Chinese; the chat's own /language en wins", async () => {
    const run = await boot({ prepare: makeCuratorDue, config: { gateway: { home_locale: "zh-CN" } } });
    const chinese = await homeSummary(run);
    expect(chinese.plain).toContain("已归档 1 个技能：");
    // Readers are still answered in their own language elsewhere.
    expect((await ask(run, "/whoami", MEMBER, "en")).plain).toMatch(/^You are /);
    const chosen = await boot({ prepare: makeCuratorDue, config: { gateway: { home_locale: "zh-CN" } } });
    await ask(chosen, "/language en", ADMIN, "zh-hans", HOME_CHAT);
    await settle(chosen.gateway);
    const english = await homeSummary(chosen);
    expect(english.plain).toContain("archived 1 skill");
  });
});
