/**
 * The notice a person gets when their event could not be taken (several replicas, the shared inbox
 * unreachable) comes from the gateway's `notTakenNotice` hook in the reader's language: the sender's own
 * (a Discord `locale`, a Telegram `language_code`), overridden by `gateway.locale`, with the platform's
 * default otherwise. Adapters fall back to the English text when no gateway gave the hook.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type InboundMessage, notTakenNotice } from "../../src/core/message.js";
import { gatewayDoc, makeHome, removeHome, startGateway, writeConfig } from "../gateway/helpers.js";

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

function from(language?: string): InboundMessage {
  return {
    eventId: "e1",
    platform: "mock",
    chat: { kind: "dm", id: "c1" },
    sender: { id: "reader", isBot: false },
    text: "/skills",
    receivedAt: 0,
    ...(language ? { language } : {}),
  };
}

async function hooksWith(extra: Record<string, unknown> = {}) {
  const home = await makeHome();
  const config = await writeConfig(home, { gateway: gatewayDoc(extra) });
  const { gateway, mock } = await startGateway({ home, config });
  stops.push(async () => {
    await gateway.stop();
    await removeHome(home);
  });
  return mock.hooks;
}

const ENGLISH = {
  interaction: "skillgate is briefly unavailable and did not take this. Please try again in a moment.",
  press: "This press could not be taken just now; press the button again in a moment.",
};

describe("the notice for an event that was not taken", () => {
  it("is in the sender's language, and English for an English reader", async () => {
    const hooks = await hooksWith();
    const zh = notTakenNotice(hooks, from("zh-hans"), "interaction");
    expect(zh).toMatch(/暂时不可用/);
    expect(zh).not.toMatch(/[A-Za-z]{2,}\s+[A-Za-z]{2,}/);
    expect(notTakenNotice(hooks, from("zh-CN"), "press")).toMatch(/点击/);
    expect(notTakenNotice(hooks, from("en"), "interaction")).toBe(ENGLISH.interaction);
    expect(notTakenNotice(hooks, from("en-US"), "press")).toBe(ENGLISH.press);
  });

  it("follows gateway.locale over the sender's language", async () => {
    const hooks = await hooksWith({ locale: "zh-CN" });
    expect(notTakenNotice(hooks, from("en"), "interaction")).toMatch(/暂时不可用/);
  });

  it("is the English text when no gateway gave the hook", () => {
    expect(notTakenNotice(undefined, from("zh-CN"), "interaction")).toBe(ENGLISH.interaction);
    expect(notTakenNotice({}, from("zh-CN"), "press")).toBe(ENGLISH.press);
  });
});
