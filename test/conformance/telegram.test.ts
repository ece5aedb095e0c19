/**
 * Telegram conformance: the adapter against the emulator's model of privacy mode and concurrent webhook
 * delivery, and the webhook path setting.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Adapter, InboundMessage } from "../../src/core/message.js";
import { textReply } from "../../src/core/reply.js";
import { TelegramEmulator } from "../emulators/telegram.js";
import { adapterFor, emulatorConfig, freePort, tempHome, waitUntil } from "../telegram/helpers.js";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function setup(options: { privacyMode?: boolean } = {}) {
  const emulator = new TelegramEmulator(options);
  await emulator.listen();
  cleanups.push(() => emulator.close());
  const { home, cleanup } = await tempHome();
  cleanups.push(cleanup);
  return { emulator, home };
}

function track(adapter: Adapter): Adapter {
  cleanups.push(() => adapter.stop());
  return adapter;
}

const GROUP = -1001234;

describe("telegram emulator: privacy mode", () => {
  it("withholds unaddressed group chatter while privacy mode is on, and delivers commands, mentions and replies", async () => {
    const { emulator, home } = await setup();
    const { adapter, sink } = adapterFor(emulator, home);
    await track(adapter).start(sink);
    emulator.userSays({ chatId: GROUP, chatType: "supergroup", text: "lunch anyone?" });
    emulator.userSays({ chatId: GROUP, chatType: "supergroup", text: "/curator status" });
    emulator.userSays({ chatId: GROUP, chatType: "supergroup", text: "hey @SkillgateBot are you there" });
    emulator.userSays({ chatId: GROUP, chatType: "supergroup", text: "/start@OtherBot" });
    expect(emulator.withheld.map((message) => message.text)).toEqual(["lunch anyone?", "/start@OtherBot"]);
  });
});

describe("telegram adapter in groups that see everything (finding 2)", () => {
  for (const how of ["privacy mode off", "bot is a group admin"] as const) {
    it(`ignores group text not addressed to the bot when ${how}, and still takes addressed text`, async () => {
      const { emulator, home } = await setup({ privacyMode: how !== "privacy mode off" });
      if (how === "bot is a group admin") emulator.adminIn.add(GROUP);
      const { adapter, sink, inbox, waitInbox } = adapterFor(emulator, home);
      await track(adapter).start(sink);
      emulator.userSays({ chatId: GROUP, chatType: "supergroup", text: "lunch anyone?" });
      emulator.userSays({ chatId: GROUP, chatType: "supergroup", text: "@SkillgateBot what can you do" });
      emulator.userSays({ chatId: GROUP, chatType: "supergroup", text: "/curator status" });
      await waitInbox(2);
      await waitUntil(() => emulator.pendingUpdates === 0);
      expect(emulator.withheld).toEqual([]);
      expect(inbox.map((message) => message.text)).toEqual(["what can you do", "/curator status"]);
    });
  }

  it("takes a reply to one of the bot's own messages as addressed", async () => {
    const { emulator, home } = await setup({ privacyMode: false });
    const { adapter, sink, inbox, waitInbox } = adapterFor(emulator, home);
    await track(adapter).start(sink);
    await adapter.send({ chatId: String(GROUP) }, textReply("pick one"));
    const botMessage = emulator.sent.at(-1)?.message_id;
    emulator.userSays({ chatId: GROUP, chatType: "supergroup", text: "the second", replyTo: botMessage });
    emulator.userSays({ chatId: GROUP, chatType: "supergroup", text: "unrelated", replyTo: 999 });
    await waitInbox(1);
    await waitUntil(() => emulator.pendingUpdates === 0);
    expect(inbox.map((message) => message.text)).toEqual(["the second"]);
  });
});

describe("telegram webhook", () => {
  async function webhookAdapter(
    webhook: Record<string, unknown>,
    sink?: (message: InboundMessage) => Promise<void>,
  ) {
    const { emulator, home } = await setup();
    const port = await freePort();
    const config = emulatorConfig(emulator, {
      telegram: {
        mode: "webhook",
        webhook: { url: `http://127.0.0.1:${port}/tg`, port, secret: "s3cret", ...webhook },
      },
    });
    const made = adapterFor(emulator, home, { config });
    await track(made.adapter).start(sink ?? made.sink);
    return { emulator, port, ...made };
  }

  it("handles one update at a time: Telegram is asked for one connection (finding 6)", async () => {
    let running = 0;
    let overlapped = false;
    const seen: string[] = [];
    const slowSink = async (message: InboundMessage) => {
      running += 1;
      if (running > 1) overlapped = true;
      await new Promise((resolve) => setTimeout(resolve, 60));
      seen.push(message.text);
      running -= 1;
    };
    const { emulator: tg } = await webhookAdapter({}, slowSink);
    expect(tg.webhook?.maxConnections).toBe(1);
    for (const text of ["/curator one", "/curator two", "/curator three"]) tg.userSays({ userId: 7, text });
    await waitUntil(() => seen.length === 3, 5000);
    expect(overlapped).toBe(false);
    expect(tg.peakWebhookConnections).toBe(1);
    expect(seen).toEqual(["/curator one", "/curator two", "/curator three"]);
  });

  it("listens on gateway.telegram.webhook.path when the public URL's path differs (finding 8)", async () => {
    const { emulator, port, inbox } = await webhookAdapter({
      url: "https://bot.example.com/public/telegram",
      path: "/local-hook",
    });
    expect(emulator.webhook?.url).toBe("https://bot.example.com/public/telegram");
    const update = {
      update_id: 77,
      message: {
        message_id: 1,
        date: Math.floor(Date.now() / 1000),
        chat: { id: 5, type: "private" },
        from: { id: 5, is_bot: false, first_name: "A" },
        text: "/curator status",
        entities: [{ type: "bot_command", offset: 0, length: 8 }],
      },
    };
    const post = (path: string) =>
      fetch(`http://127.0.0.1:${port}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": "s3cret" },
        body: JSON.stringify(update),
      });
    expect((await post("/public/telegram")).status).toBe(404);
    expect((await post("/local-hook")).status).toBe(200);
    await waitUntil(() => inbox.length === 1);
    expect(inbox[0]?.command?.name).toBe("curator");
  });
});
