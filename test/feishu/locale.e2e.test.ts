/**
 * Languages on Feishu: the default follows the deployment (Chinese on the `feishu` domain, English on
 * `lark`), and the maintenance summary with its rename map reaches the home chat in Chinese through the
 * real adapter (Lark SDK) and the emulator. Feishu's events name no reader language, so a chat that
 * reads Traditional Chinese says so with `/language zh-TW`.
 */
import { describe, expect, it } from "vitest";
import { feishuConfig } from "../../adapters/feishu/config.js";
import { feishuLocaleDefault } from "../../adapters/feishu/index.js";
import { FEISHU_IDS } from "../support/harness/feishu.js";
import { settle, usePlatform } from "../support/harness/index.js";
import { makeCuratorDue } from "../support/platform-home.js";

const boot = usePlatform("feishu", {
  prepare: makeCuratorDue,
  config: { curator: { min_idle_hours: 0 }, gateway: { home_channel: "feishu:oc_home" } },
});

describe("feishu: the deployment's language", () => {
  it("defaults to Chinese on the feishu domain and to English on lark or another host", () => {
    expect(feishuLocaleDefault(undefined)).toEqual({ defaultLocale: "zh-CN" });
    expect(feishuLocaleDefault("feishu")).toEqual({ defaultLocale: "zh-CN" });
    expect(feishuLocaleDefault("https://open.feishu.cn")).toEqual({ defaultLocale: "zh-CN" });
    expect(feishuLocaleDefault("lark")).toEqual({});
    expect(feishuLocaleDefault("https://open.larksuite.com")).toEqual({});
    expect(feishuLocaleDefault("http://127.0.0.1:9")).toEqual({});
  });

  it("posts the Chinese maintenance summary with the rename map to a Chinese home chat", async () => {
    const run = await boot({ config: { gateway: { feishu: { locale: "zh-CN" } } } });
    const outcome = await run.gateway.runMaintenanceTick();
    expect(outcome).toMatchObject({ ran: true, posted: true });
    const summary = await run.emulator.waitForSend((send) => send.chatId === "oc_home");
    expect(summary.text).toContain("管理器（Curator）：自动：");
    expect(summary.text).toContain("已归档 1 个技能：");
    expect(summary.text).toContain("old-stale——因过时而清理");
    expect(summary.text).not.toContain("archived 1 skill");
  });

  it("/language zh-TW in the home chat makes its replies and the maintenance summary Traditional", async () => {
    const run = await boot();
    const inHome = (text: string) =>
      run.emulator.messageEvent({
        chatType: "group",
        chatId: "oc_home",
        senderOpenId: FEISHU_IDS.admin,
        mentionBot: true,
        token: feishuConfig(run.config).verificationToken,
        text,
      });
    expect((await run.ask(inHome("/language zh-TW"))).text).toBe("本聊天現在使用繁體中文（台灣）。");
    expect((await run.ask(inHome("/language"))).text).toBe("本聊天的語言：繁體中文（台灣）。");
    await settle(run.gateway);
    const since = run.emulator.sends.length;
    expect((await run.gateway.runMaintenanceTick()).posted).toBe(true);
    const summary = await run.emulator.waitForSend(
      (send) => send.chatId === "oc_home" && run.emulator.sends.indexOf(send) >= since,
    );
    expect(summary.text).toContain("管理器（Curator）：自動：");
    expect(summary.text).toContain("已歸檔 1 個技能：");
    expect(summary.text).not.toMatch(
      /[们这为发档设项务时个来对说会与过还没现从动开关进实无问题让请读显库录态]/,
    );
  });

  it("an English deployment (the emulator's own host) keeps the English summary", async () => {
    const run = await boot();
    await run.gateway.runMaintenanceTick();
    const summary = await run.emulator.waitForSend((send) => send.chatId === "oc_home");
    expect(summary.text).toContain("archived 1 skill(s):");
  });
});
