/**
 * Feishu's bot menu: the entries skillgate answers are named in the deployment's language (Chinese on
 * the `feishu` domain, English on `lark`, or as `gateway.feishu.locale` says), `skillgate doctor` lists
 * them for the developer console, and a click (`application.bot.menu_v6` from the emulator, through the
 * real Lark SDK) runs its command for the clicking user, answered in a direct message in that language.
 */
import { describe, expect, it } from "vitest";
import { menuCheck } from "../../adapters/feishu/doctor.js";
import { feishuMenu, normalizeMenuEvent } from "../../adapters/feishu/menu.js";
import type { SkillgateConfig } from "../../src/config/config.js";
import { FEISHU_IDS } from "../support/harness/feishu.js";
import { usePlatform } from "../support/harness/index.js";
import { writeTestSkill } from "../support/platform-home.js";

const boot = usePlatform("feishu", { prepare: (home) => writeTestSkill(home, "documents", "pdf-tools") });

function configWith(feishu: Record<string, unknown>, locale: "auto" | "en" | "zh-CN" = "auto") {
  return {
    gateway: { locale, platforms: { feishu } },
  } as unknown as SkillgateConfig;
}

describe("feishu: the bot menu per locale", () => {
  it("names the entries in Chinese and in English, with the same event keys", () => {
    const zh = feishuMenu("zh-CN");
    const en = feishuMenu("en");
    expect(zh.map((entry) => entry.name)).toEqual(["帮助", "管理器状态", "技能列表", "我是谁"]);
    expect(en.map((entry) => entry.name)).toEqual(["Help", "Curator status", "Skills", "Who am I"]);
    expect(zh.map((entry) => entry.eventKey)).toEqual(en.map((entry) => entry.eventKey));
    for (const entry of zh) expect(entry.eventKey).toMatch(/^[a-z_]+$/);
  });

  it("lists the menu for the developer console in the deployment's language", () => {
    const feishu = menuCheck({ config: configWith({ domain: "feishu" }) });
    expect(feishu.status).toBe("ok");
    expect(feishu.summary).toContain('"管理器状态" → event key curator_status');
    const lark = menuCheck({ config: configWith({ domain: "lark" }) });
    expect(lark.summary).toContain('"Curator status" → event key curator_status');
    expect(lark.summary).not.toMatch(/[\u4e00-\u9fff]/);
    // The platform's own setting wins over the domain, and gateway.locale over the default.
    expect(menuCheck({ config: configWith({ domain: "feishu", locale: "en" }) }).summary).toContain('"Help"');
    expect(menuCheck({ config: configWith({ domain: "lark" }, "zh-CN") }).summary).toContain('"帮助"');
  });

  it("ignores a click on an entry skillgate does not know, or without a user", () => {
    const base = { event_id: "e1", operator: { operator_id: { open_id: "ou_x" } }, event_key: "help" };
    expect(normalizeMenuEvent(base, "ou_bot")?.text).toBe("/help");
    expect(normalizeMenuEvent({ ...base, event_key: "launch_rockets" }, "ou_bot")).toBeNull();
    expect(normalizeMenuEvent({ ...base, operator: {} }, "ou_bot")).toBeNull();
    expect(
      normalizeMenuEvent({ ...base, operator: { operator_id: { open_id: "ou_bot" } } }, "ou_bot"),
    ).toBeNull();
  });

  it("answers a click in Chinese in the user's direct chat when the deployment is Chinese", async () => {
    const run = await boot({ config: { gateway: { feishu: { locale: "zh-CN" } } } });
    const click = run.emulator.menuEvent({ eventKey: "curator_status", operatorOpenId: FEISHU_IDS.admin });
    expect((await run.deliver(click)).status).toBe(200);
    const reply = await run.emulator.waitForSend((send) => send.chatId === FEISHU_IDS.admin, 8000);
    expect(reply.receiveIdType).toBe("open_id");
    const help = run.emulator.menuEvent({ eventKey: "help", operatorOpenId: FEISHU_IDS.admin });
    await run.deliver(help);
    const helpReply = await run.emulator.waitForSend(
      (send) => send.chatId === FEISHU_IDS.admin && send.messageId !== reply.messageId,
      8000,
    );
    expect(helpReply.text).toContain("命令");
  });

  it("answers in English on the emulator's own host (not the feishu domain), and drops an unknown key", async () => {
    const run = await boot();
    expect(
      (await run.deliver(run.emulator.menuEvent({ eventKey: "nope", operatorOpenId: FEISHU_IDS.admin })))
        .status,
    ).toBe(200);
    await run.deliver(run.emulator.menuEvent({ eventKey: "whoami", operatorOpenId: FEISHU_IDS.admin }));
    const reply = await run.emulator.waitForSend((send) => send.chatId === FEISHU_IDS.admin, 8000);
    expect(reply.text).toMatch(/^You are /);
    await run.gateway.whenIdle();
    expect(run.emulator.sends.filter((send) => send.chatId === FEISHU_IDS.admin)).toHaveLength(1);
  });
});
