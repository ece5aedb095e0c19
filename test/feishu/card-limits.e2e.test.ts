/**
 * Feishu card limits end to end (real adapter, official Lark SDK, loopback emulator): a card's size is
 * judged on the request body; a result too big for a card still updates the "⏳ Running" notice; card
 * updates keep to 5 a second per message instead of posting a second card; a card callback is answered
 * within 3 s even when judging the press takes longer; the secret form is a valid JSON 2.0 form.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { renderCard, replyCard } from "../../adapters/feishu/actions.js";
import { createFeishuAdapter, type FeishuAdapter, type FeishuTuning } from "../../adapters/feishu/index.js";
import { requestBytes } from "../../adapters/feishu/render.js";
import { secretCard } from "../../adapters/feishu/secret-input.js";
import { parseConfig } from "../../src/config/config.js";
import { createLogger } from "../../src/core/logger.js";
import type { InboundMessage } from "../../src/core/message.js";
import type { Reply } from "../../src/core/reply.js";
import { cardProblem, LarkEmulator } from "../emulators/lark.js";

const CHAT = "oc_limits";
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function boot(
  sink: (message: InboundMessage) => Promise<void> = async () => undefined,
  tuning: Partial<FeishuTuning> = {},
): Promise<{ emulator: LarkEmulator; adapter: FeishuAdapter }> {
  const home = await mkdtemp(path.join(os.tmpdir(), "skillgate-feishu-limits-"));
  cleanups.push(() => rm(home, { recursive: true, force: true }));
  const emulator = new LarkEmulator();
  await emulator.listen();
  cleanups.push(() => emulator.close());
  const config = parseConfig({
    gateway: {
      health: { enabled: false },
      feishu: { enabled: true, domain: emulator.url, mode: "websocket" },
    },
  });
  const secrets: Record<string, string> = {
    FEISHU_APP_ID: emulator.appId,
    FEISHU_APP_SECRET: emulator.appSecret,
  };
  const adapter = createFeishuAdapter({
    config,
    home,
    secret: (name) => secrets[name],
    logger: createLogger({ level: "silent" }),
    tuning,
  });
  await adapter.start(sink);
  cleanups.push(() => adapter.stop());
  await emulator.waitForWsClient();
  return { emulator, adapter };
}

/** A reply with a button whose text escapes heavily (quotes and newlines double in the request body). */
function quotedReply(lines: number): Reply {
  const text = Array.from(
    { length: lines },
    (_, index) => `"line ${index}" \\ "quoted" "text" \\ ${'"'.repeat(20)}`,
  ).join("\n");
  return {
    blocks: [{ kind: "paragraph", text }],
    exitCode: 0,
    actions: { rows: [[{ id: "act1", label: "Again", intent: { kind: "command", text: "/x" } }]] },
  } as unknown as Reply;
}

describe("Feishu card size is measured on the request body", () => {
  it("a card small as content but over the limit as a request body goes as posts, nothing lost", async () => {
    // Pick a reply whose bare card content fits 28,000 bytes while its escaped body does not.
    let lines = 10;
    while (Buffer.byteLength(JSON.stringify(replyCard(quotedReply(lines + 10)))) < 26_000) lines += 10;
    const reply = quotedReply(lines);
    const bare = Buffer.byteLength(JSON.stringify(replyCard(reply)));
    expect(bare).toBeLessThan(28_000);
    expect(bare).toBeGreaterThan(20_000);
    expect(renderCard(reply)).toBeUndefined();
    const { emulator, adapter } = await boot();
    await adapter.send({ chatId: CHAT }, reply);
    const posts = await emulator.waitForSends(1, (send) => send.msgType === "post");
    expect(posts.length).toBeGreaterThan(0);
    const buttons = await emulator.waitForSend((send) => send.msgType === "interactive");
    expect(buttons.buttons.map((button) => button.label)).toEqual(["Again"]);
  });

  it("a card whose body fits is sent as one card", () => {
    const card = renderCard(quotedReply(10));
    expect(card).toBeDefined();
    expect(requestBytes(card as NonNullable<typeof card>)).toBeLessThanOrEqual(28_000);
  });
});

describe("Feishu slow results and card updates", () => {
  it("a slow result too big for a card updates the ⏳ Running notice to point at the posts", async () => {
    const { emulator, adapter } = await boot();
    const noticeId = await adapter.acknowledge(
      { chatId: CHAT },
      {
        blocks: [{ kind: "paragraph", text: "⏳ Running … this message will show the result" }],
        exitCode: 0,
      },
    );
    expect(noticeId).toBeDefined();
    const lines = Array.from({ length: 380 }, (_, index) => `result line ${index} ${"x".repeat(80)}`).join(
      "\n",
    );
    await adapter.send(
      { chatId: CHAT, editMessageId: noticeId },
      {
        blocks: [{ kind: "paragraph", text: lines }],
        exitCode: 0,
      },
    );
    const patch = await emulator.waitForSend((send) => send.kind === "patch" && send.target === noticeId);
    expect(patch.text).toContain("the result is below");
    expect(patch.text).not.toContain("Running");
    expect((await emulator.waitForSends(1, (send) => send.msgType === "post")).length).toBeGreaterThan(0);
  });

  it("the pointer and a buttons-only card are in the reply's language", async () => {
    const { emulator, adapter } = await boot();
    const noticeId = await adapter.acknowledge(
      { chatId: CHAT },
      { blocks: [{ kind: "paragraph", text: "⏳ 正在运行…" }], exitCode: 0, locale: "zh-CN" },
    );
    const lines = Array.from({ length: 380 }, (_, index) => `结果 ${index} ${"字".repeat(60)}`).join("\n");
    await adapter.send(
      { chatId: CHAT, editMessageId: noticeId },
      {
        blocks: [{ kind: "paragraph", text: lines }],
        exitCode: 0,
        locale: "zh-CN",
        actions: { rows: [[{ label: "再来一次", intent: { kind: "cancel" }, id: "act-again" }]] },
      },
    );
    const patch = await emulator.waitForSend((send) => send.kind === "patch" && send.target === noticeId);
    expect(patch.text).toContain("见下方消息");
    expect(patch.text).not.toMatch(/[A-Za-z]{2,} [A-Za-z]{2,}/);
    const buttons = await emulator.waitForSend(
      (send) => send.msgType === "interactive" && send.buttons.some((button) => button.label === "再来一次"),
    );
    expect(buttons.text).toContain("请选择");
  });

  it("fast paging of one card waits out 5 updates a second instead of posting a second card", async () => {
    const { emulator, adapter } = await boot(undefined, { cardUpdateGapMs: 200 });
    const cardId = await adapter.acknowledge(
      { chatId: CHAT },
      { blocks: [{ kind: "paragraph", text: "page 0" }], exitCode: 0 },
    );
    const pages = Array.from({ length: 8 }, (_, index) =>
      adapter.send(
        { chatId: CHAT, editMessageId: cardId },
        {
          blocks: [{ kind: "paragraph", text: `page ${index + 1}` }],
          exitCode: 0,
          layout: "card",
        },
      ),
    );
    await Promise.all(pages);
    const patches = emulator.sends.filter((send) => send.kind === "patch" && send.target === cardId);
    expect(patches.map((send) => send.text.trim())).toEqual(
      Array.from({ length: 8 }, (_, index) => `page ${index + 1}`),
    );
    // The card was updated in place every time: no second card appeared.
    expect(
      emulator.sends.filter((send) => send.msgType === "interactive" && send.kind !== "patch"),
    ).toHaveLength(1);
  }, 20_000);
});

describe("Feishu card callbacks", () => {
  it("are answered within the deadline although judging takes longer; the refusal is posted after", async () => {
    let adapterRef: FeishuAdapter | undefined;
    const sink = async (message: InboundMessage) => {
      await new Promise((resolve) => setTimeout(resolve, 600));
      await adapterRef?.send(
        { chatId: message.chat.id },
        {
          blocks: [{ kind: "paragraph", text: "⛔ Only admins can press this." }],
          exitCode: 1,
          private: true,
        },
        message,
      );
    };
    const { emulator, adapter } = await boot(sink, { callbackDeadlineMs: 100 });
    adapterRef = adapter;
    const cardId = await adapter.acknowledge({ chatId: CHAT }, {
      blocks: [{ kind: "paragraph", text: "choose" }],
      exitCode: 0,
      actions: { rows: [[{ id: "press1", label: "Go", intent: { kind: "command", text: "/go" } }]] },
    } as unknown as Reply);
    const ack = await emulator.pushWsEvent(
      emulator.cardActionEvent({ messageId: cardId as string, label: "Go" }),
    );
    expect(ack.code).toBe(200);
    expect(JSON.stringify(ack.data ?? {})).not.toContain("Only admins");
    const posted = await emulator.waitForSend((send) => send.text.includes("Only admins can press this"));
    expect(posted.chatId).toBe(CHAT);
  });

  it("the emulator fails a card callback answered after 3 s", async () => {
    const { emulator, adapter } = await boot(() => new Promise((resolve) => setTimeout(resolve, 3_400)), {
      callbackDeadlineMs: 60_000,
    });
    const cardId = await adapter.acknowledge({ chatId: CHAT }, {
      blocks: [{ kind: "paragraph", text: "choose" }],
      exitCode: 0,
      actions: { rows: [[{ id: "press2", label: "Go", intent: { kind: "command", text: "/go" } }]] },
    } as unknown as Reply);
    await expect(
      emulator.pushWsEvent(emulator.cardActionEvent({ messageId: cardId as string, label: "Go" }), 8_000),
    ).rejects.toThrow(/after \d+ ms/);
  }, 15_000);
});

describe("Feishu JSON 2.0 secret form", () => {
  const offer = { token: "tok", key: "ACME_API_KEY", skill: "acme", prompt: "Your key" };

  it("uses the 2.0 form container's fields, which the emulator takes", () => {
    const { content } = secretCard(offer);
    expect(cardProblem(content)).toBeNull();
    const form = (
      JSON.parse(content) as { body: { elements: Record<string, unknown>[] } }
    ).body.elements.find((element) => element.tag === "form") as { elements: Record<string, unknown>[] };
    const submit = form.elements.find((element) => element.tag === "button");
    expect(submit).toMatchObject({ form_action_type: "submit", name: expect.any(String) });
    expect(submit).not.toHaveProperty("action_type");
  });

  it("the emulator refuses the 1.0 spelling in a 2.0 card", () => {
    const card = JSON.parse(secretCard(offer).content) as { body: { elements: Record<string, unknown>[] } };
    const form = card.body.elements.find((element) => element.tag === "form") as {
      elements: Record<string, unknown>[];
    };
    const submit = form.elements.find((element) => element.tag === "button") as Record<string, unknown>;
    delete submit.form_action_type;
    submit.action_type = "form_submit";
    expect(cardProblem(JSON.stringify(card))).toMatch(/unknown attribute action_type/);
  });
});
