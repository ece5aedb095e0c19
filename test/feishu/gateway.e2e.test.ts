/**
 * End to end: the real gateway with the real Feishu adapter (official Lark SDK) against the loopback
 * Lark emulator, over the long connection and in webhook mode.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createMockAdapter } from "../../adapters/mock/index.js";
import { textReply } from "../../src/core/reply.js";
import type { ChatAgent } from "../../src/gateway/gateway.js";
import type { LarkEmulator as Emulator, LarkSend } from "../emulators/lark.js";
import { FEISHU_IDS, messageIdOf } from "../support/harness/feishu.js";
import { type PlatformRun, usePlatform } from "../support/harness/index.js";
import { makeCuratorDue, writeArxivAndWeather } from "../support/platform-home.js";

const ADMIN = FEISHU_IDS.admin;
const USER = FEISHU_IDS.member;
const TOKEN = "vtoken-e2e";
const ENCRYPT_KEY = "encrypt-key-e2e";
const MISSING_SECRET = "SKILLGATE_FEISHU_E2E_WEATHER_KEY";

type Running = PlatformRun<"feishu">;

/** A home with an `arxiv` skill (disabled for feishu) and a `weather` skill needing a missing secret. */
const bootGateway = usePlatform("feishu", {
  prepare: (home) => writeArxivAndWeather(home, MISSING_SECRET),
  config: {
    // These tests tick right after boot, and idle time counts from the gateway's start.
    curator: { min_idle_hours: 0 },
    skills: { platform_disabled: { feishu: ["arxiv"] } },
    gateway: {
      admins: [`feishu:${ADMIN}`, "mock:u1"],
      home_channel: "feishu:oc_home",
    },
  },
});

/** Pushes an event over the long connection and waits for the reply to it. */
function ask(run: Running, event: Record<string, unknown>): Promise<LarkSend> {
  return run.ask(event);
}

function repliesTo(emulator: Emulator, event: Record<string, unknown>): LarkSend[] {
  const id = messageIdOf(event);
  return emulator.sends.filter((send) => send.target === id);
}

describe("feishu e2e over the long connection", () => {
  it("answers /curator status in a p2p chat with a card reply to the message (status is a card)", async () => {
    const run = await bootGateway();
    const event = run.emulator.messageEvent({ senderOpenId: ADMIN, text: "/curator status" });
    const sent = await ask(run, event);
    expect(sent.msgType).toBe("interactive");
    expect(sent.chatId).toBe("oc_p2p_alice");
    expect(sent.text).toMatch(/curator: (ENABLED|PAUSED|DISABLED)/);
  });

  it("answers in a group when mentioned (with a space and as @Bot/cmd), and ignores it otherwise", async () => {
    const run = await bootGateway();
    const group = { chatType: "group" as const, chatId: "oc_ops", senderOpenId: USER };
    const spaced = await ask(
      run,
      run.emulator.messageEvent({ ...group, text: "/curator status", mentionBot: true }),
    );
    expect(spaced.text).toMatch(/curator: ENABLED/);
    const glued = await ask(
      run,
      run.emulator.messageEvent({ ...group, text: "{bot}/curator status", mentionBot: true }),
    );
    expect(glued.text).toMatch(/curator: ENABLED/);
    expect(glued.chatId).toBe("oc_ops");

    const ignored = run.emulator.messageEvent({ ...group, text: "/curator status" });
    expect(await run.emulator.pushWsEvent(ignored)).toEqual({ code: 200 });
    // The adapter drops unmentioned group messages before the ack; a later message proves nothing is pending.
    await ask(run, run.emulator.messageEvent({ senderOpenId: ADMIN, text: "/curator status" }));
    await run.gateway.whenIdle();
    expect(repliesTo(run.emulator, ignored)).toEqual([]);
  });

  it("refuses a mutating command from a non-admin and leaves the library alone", async () => {
    const run = await bootGateway();
    const sent = await ask(run, run.emulator.messageEvent({ senderOpenId: USER, text: "/curator pause" }));
    expect(sent.text).toContain("admins only");
    expect(sent.text).toContain(`feishu:${USER}`);
    const state = await readFile(path.join(run.home, "skills", ".curator_state"), "utf8").catch(() => "{}");
    expect(JSON.parse(state).paused ?? false).toBe(false);
  });

  it("delivers a 10,000-character answer in several messages, complete and in order", async () => {
    const words = Array.from({ length: 1500 }, (_, i) => `w${String(i).padStart(5, "0")}`);
    const long = words.join(" ");
    expect(long.length).toBeGreaterThanOrEqual(10_000);
    const agent: ChatAgent = { respond: async () => textReply(long) };
    const run = await bootGateway({ gateway: { agent } });
    const event = run.emulator.messageEvent({ senderOpenId: ADMIN, text: "tell me everything" });
    await ask(run, event);
    await run.gateway.whenIdle();
    const parts = run.emulator.sends.filter((send) => send.chatId === "oc_p2p_alice");
    expect(parts.length).toBeGreaterThanOrEqual(2);
    expect(parts[0]?.target).toBe(messageIdOf(event));
    for (const part of parts)
      expect(part.text.length).toBeLessThanOrEqual(run.adapter.capabilities.maxMessageLength);
    expect(parts.map((part) => part.text).join("")).toBe(long);
  });

  it("refuses a skill disabled for feishu (it loads on another platform) and shows the missing-secret hint", async () => {
    delete process.env[MISSING_SECRET];
    const other = createMockAdapter();
    const run = await bootGateway({ others: [other] });
    const disabled = await ask(
      run,
      run.emulator.messageEvent({ senderOpenId: ADMIN, text: "/arxiv find papers" }),
    );
    expect(disabled.text).toMatch(/arxiv.*disabled for feishu/);
    const elsewhere = await other.request("/arxiv find papers", { user: "u1" });
    expect(elsewhere?.text).toContain("arxiv");
    expect(elsewhere?.text).not.toMatch(/disabled/);
    expect(elsewhere?.reply.exitCode).toBe(0);
    const weather = await ask(run, run.emulator.messageEvent({ senderOpenId: USER, text: "/weather today" }));
    expect(weather.text).toContain(MISSING_SECRET);
    expect(weather.text).toMatch(/not supported over messaging/);
    expect(weather.text).not.toMatch(/disabled/);
  });

  it("posts the maintenance summary with the rename map to the home chat", async () => {
    const run = await bootGateway({ prepare: makeCuratorDue });
    const outcome = await run.gateway.runMaintenanceTick();
    expect(outcome).toMatchObject({ ran: true, posted: true });
    const summary = await run.emulator.waitForSend((send) => send.chatId === "oc_home");
    expect(summary.kind).toBe("create");
    expect(summary.receiveIdType).toBe("chat_id");
    expect(summary.text).toContain("archived 1 skill(s):");
    expect(summary.text).toContain("old-stale");
    expect(summary.text).toContain("/curator status");
  });

  it("processes an event redelivered after a gateway restart only once", async () => {
    const first = await bootGateway();
    const event = first.emulator.messageEvent({
      senderOpenId: ADMIN,
      text: "/curator status",
      eventId: "ev-redelivered",
    });
    await ask(first, event);
    await first.stopGateway();

    const second = await bootGateway({ home: first.home, emulator: first.emulator });
    expect(await second.emulator.pushWsEvent(event)).toEqual({ code: 200 });
    await ask(second, second.emulator.messageEvent({ senderOpenId: ADMIN, text: "/curator status" }));
    await second.gateway.whenIdle();
    expect(repliesTo(second.emulator, event)).toHaveLength(1);
  });
});

describe("feishu e2e in webhook mode", () => {
  const webhook = {
    mode: "webhook",
    verification_token: TOKEN,
    webhook: { port: 0, path: "/feishu/webhook" },
  };

  it("rejects an event with a wrong verification token and answers one with the right token", async () => {
    const run = await bootGateway({ config: { gateway: { feishu: webhook } } });
    const url = run.adapter.webhookUrl!;
    const forged = run.emulator.messageEvent({ senderOpenId: ADMIN, text: "/curator pause", token: "WRONG" });
    expect((await run.emulator.deliverWebhook(url, forged)).status).toBe(401);
    const genuine = run.emulator.messageEvent({ senderOpenId: ADMIN, text: "/curator status", token: TOKEN });
    expect((await run.emulator.deliverWebhook(url, genuine)).status).toBe(200);
    const sent = await run.emulator.waitForSend((send) => send.target === messageIdOf(genuine));
    expect(sent.text).toMatch(/curator: ENABLED/);
    await run.gateway.whenIdle();
    expect(repliesTo(run.emulator, forged)).toEqual([]);
  });

  it("handles an encrypted, signed event and the url_verification challenge", async () => {
    const run = await bootGateway({
      config: { gateway: { feishu: { ...webhook, encrypt_key: ENCRYPT_KEY } } },
    });
    const url = run.adapter.webhookUrl!;
    const challenge = await run.emulator.urlVerification(url, {
      token: TOKEN,
      challenge: "c-42",
      encryptKey: ENCRYPT_KEY,
    });
    expect(challenge).toEqual({ status: 200, body: JSON.stringify({ challenge: "c-42" }) });
    const event = run.emulator.messageEvent({
      chatType: "group",
      chatId: "oc_ops",
      senderOpenId: ADMIN,
      text: "{bot}/curator status",
      mentionBot: true,
      token: TOKEN,
    });
    expect((await run.emulator.deliverWebhook(url, event, { encryptKey: ENCRYPT_KEY })).status).toBe(200);
    const sent = await run.emulator.waitForSend((send) => send.target === messageIdOf(event));
    expect(sent.chatId).toBe("oc_ops");
    expect(sent.text).toMatch(/curator: ENABLED/);
  });
});
