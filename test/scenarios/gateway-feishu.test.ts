/**
 * Reference gateway scenarios for Feishu/Lark that the existing Feishu tests leave open: the real
 * gateway with the real Feishu adapter (official Lark SDK) against the loopback Lark emulator.
 */
import { describe, expect, it, vi } from "vitest";
import type { InboundMessage } from "../../src/core/message.js";
import { textReply } from "../../src/core/reply.js";
import type { ChatAgent } from "../../src/gateway/gateway.js";
import type { LarkSend } from "../emulators/lark.js";
import { writeSkill } from "../gateway/helpers.js";
import { FEISHU_IDS, messageIdOf } from "../support/harness/feishu.js";
import { type PlatformRun, usePlatform } from "../support/harness/index.js";

const ADMIN = FEISHU_IDS.admin;
const USER = FEISHU_IDS.member;
const STRANGER = FEISHU_IDS.stranger;
const ALICE = "ou_alice_0004";
const TOKEN = "vtoken-scenarios";

type Running = PlatformRun<"feishu"> & { agentSaw: InboundMessage[] };

const start = usePlatform("feishu", { prepare: (home) => writeSkill(home, { name: "pdf-tools" }) });

/** A gateway over the Feishu adapter; the agent records what it is asked and echoes it (or `answer`). */
async function boot(options: { feishu?: Record<string, unknown>; answer?: string } = {}): Promise<Running> {
  const agentSaw: InboundMessage[] = [];
  const agent: ChatAgent = {
    respond: async (message) => {
      agentSaw.push(message);
      return textReply(options.answer ?? `agent heard: ${message.text}`);
    },
  };
  const run = await start({ config: { gateway: { feishu: options.feishu ?? {} } }, gateway: { agent } });
  return Object.assign(run, { agentSaw });
}

/** Pushes an event over the long connection and waits for the first reply to it. */
function ask(run: Running, event: Record<string, unknown>): Promise<LarkSend> {
  return run.ask(event);
}

/** The admin's group message in oc_ops mentioning the bot and, as `@_user_2`, Alice (known by `ids`). */
function mentioningAlice(run: PlatformRun<"feishu">, text: string, ids: Record<string, string>) {
  const event = run.emulator.messageEvent({
    chatType: "group",
    chatId: "oc_ops",
    senderOpenId: ADMIN,
    text,
    mentionBot: true,
  });
  const message = (event.event as { message: { mentions: unknown[] } }).message;
  message.mentions.push({ key: "@_user_2", id: ids, name: "Alice", tenant_key: "tk" });
  return event;
}

describe("feishu scenarios", () => {
  it("scenario 40: p2p /help is answered with the command help by the gateway, not the agent", async () => {
    const run = await boot();
    const sent = await ask(run, run.emulator.messageEvent({ senderOpenId: USER, text: "/help" }));
    expect(sent.text).toContain("/curator status");
    expect(sent.text).toContain("/pdf-tools");
    expect(run.agentSaw).toEqual([]);
  });

  it("scenario 42: a mentioned group message from a stranger is ignored; the same from an admin is answered", async () => {
    const run = await boot();
    const group = { chatType: "group" as const, chatId: "oc_ops", mentionBot: true };
    const unmentioned = run.emulator.messageEvent({ chatType: "group", chatId: "oc_ops", text: "hello" });
    expect(await run.emulator.pushWsEvent(unmentioned)).toEqual({ code: 200 });
    const stranger = run.emulator.messageEvent({ ...group, senderOpenId: STRANGER, text: "hello" });
    expect(await run.emulator.pushWsEvent(stranger)).toEqual({ code: 200 });
    const answered = await ask(
      run,
      run.emulator.messageEvent({ ...group, senderOpenId: ADMIN, text: "hello" }),
    );
    expect(answered.text).toBe("agent heard: hello");
    await run.gateway.whenIdle();
    const strangerIds = new Set([messageIdOf(unmentioned), messageIdOf(stranger)]);
    expect(run.emulator.sends.filter((send) => strangerIds.has(send.target ?? ""))).toEqual([]);
    expect(run.emulator.sends.filter((send) => send.chatId === "oc_ops")).toHaveLength(1);
    expect(run.agentSaw.map((message) => message.sender.id)).toEqual([ADMIN]);
  });

  it("scenario 43: '@Bot ask @Alice to review' keeps @Alice and tells the agent who Alice is", async () => {
    const run = await boot();
    const event = mentioningAlice(run, "{bot} ask @_user_2 to review", {
      open_id: ALICE,
      union_id: "on_alice",
      user_id: "alice",
    });
    await ask(run, event);
    const seen = run.agentSaw[0]?.text ?? "";
    expect(seen).toContain("ask @Alice to review");
    expect(seen).toContain(`[Mentioned: Alice (open_id=${ALICE})]`);
    expect(seen).not.toContain("@_user_");
    expect(seen).not.toContain(run.emulator.botName);
  });

  it("scenario 43: a command that mentions someone gets no [Mentioned] line in its arguments", async () => {
    const run = await boot();
    const event = mentioningAlice(run, "{bot} /skills view pdf-tools @_user_2", { open_id: ALICE });
    const sent = await ask(run, event);
    expect(sent.text).not.toContain("Mentioned");
    expect(run.agentSaw).toEqual([]);
  });

  it("scenario 45: a withdrawn reply target in a normal chat falls back to a new chat message", async () => {
    const run = await boot();
    const event = run.emulator.messageEvent({ senderOpenId: ADMIN, text: "are you there?" });
    run.emulator.withdraw(messageIdOf(event));
    expect(await run.emulator.pushWsEvent(event)).toEqual({ code: 200 });
    const sent = await run.emulator.waitForSend((send) => send.chatId === "oc_p2p_alice");
    expect(sent).toMatchObject({ kind: "create", text: "agent heard: are you there?" });
  });

  it("scenario 45: a withdrawn reply target inside a topic never opens a top-level post, even for a long answer", async () => {
    const long = Array.from({ length: 2000 }, (_, index) => `w${index}`).join(" ");
    const run = await boot({ answer: long });
    const inTopic = run.emulator.messageEvent({
      chatType: "group",
      chatId: "oc_topics",
      senderOpenId: ADMIN,
      text: "summarize the thread",
      mentionBot: true,
      threadId: "omt_topic_1",
    });
    run.emulator.withdraw(messageIdOf(inTopic));
    expect(await run.emulator.pushWsEvent(inTopic)).toEqual({ code: 200 });
    await vi.waitFor(() => expect(run.agentSaw).toHaveLength(1));
    // A later answer in another chat proves the topic's reply was fully handled first.
    await ask(run, run.emulator.messageEvent({ senderOpenId: ADMIN, text: "ping" }));
    await run.gateway.whenIdle();
    const refused = run.emulator.calls.filter((call) => call.path.includes(messageIdOf(inTopic)));
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(run.emulator.sends.filter((send) => send.chatId === "oc_topics")).toEqual([]);
  });

  it("scenario 47: the webhook answers 429 to the 121st failed request in a minute from one address; a valid one still passes (issue 12)", async () => {
    const run = await boot({
      feishu: { mode: "webhook", verification_token: TOKEN, webhook: { port: 0, path: "/feishu/hook" } },
    });
    const url = run.adapter.webhookUrl ?? "";
    const statuses: number[] = [];
    for (let index = 0; index < 120; index += 1) {
      statuses.push((await run.emulator.urlVerification(url, { token: "WRONG" })).status);
    }
    expect(new Set(statuses)).toEqual(new Set([401]));
    const limited = await run.emulator.urlVerification(url, { token: "WRONG", challenge: "c-121" });
    expect(limited.status).toBe(429);
    expect(limited.body).not.toContain("c-121");
    // Only failures are limited: a correctly verified request from the same address is answered.
    const valid = await run.emulator.urlVerification(url, { token: TOKEN, challenge: "c-122" });
    expect(valid).toEqual({ status: 200, body: JSON.stringify({ challenge: "c-122" }) });
  });

  it("scenario 47: url_verification with the right token echoes the challenge; a wrong one gets 401", async () => {
    const run = await boot({
      feishu: { mode: "webhook", verification_token: TOKEN, webhook: { port: 0, path: "/feishu/hook" } },
    });
    const url = run.adapter.webhookUrl ?? "";
    const wrong = await run.emulator.urlVerification(url, { token: "WRONG", challenge: "c-1" });
    expect(wrong.status).toBe(401);
    expect(wrong.body).not.toContain("c-1");
    const right = await run.emulator.urlVerification(url, { token: TOKEN, challenge: "c-2" });
    expect(right).toEqual({ status: 200, body: JSON.stringify({ challenge: "c-2" }) });
  });
});
