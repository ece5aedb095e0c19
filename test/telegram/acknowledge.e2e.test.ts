/**
 * Slow work in chat, end to end on Telegram: the real gateway and the real Telegram adapter (grammy)
 * against the Bot API emulator. Work still running after the threshold gets a "running…" reply at once,
 * and that same message is edited into the result (`editMessageText`); quick work gets only its result.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createTelegramAdapter } from "../../adapters/telegram/index.js";
import { registry } from "../../commands/index.js";
import { defineCommand } from "../../commands/types.js";
import { textReply } from "../../src/core/reply.js";
import { createGateway } from "../../src/gateway/gateway.js";
import { TelegramEmulator } from "../emulators/telegram.js";
import { writeTestSkill } from "../support/platform-home.js";
import { capturingLogger, emulatorConfig, FAST, tempHome, waitUntil } from "./helpers.js";

const ADMIN = 1001;
const GROUP = -100600;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A command that finishes only when the test lets it. */
function gatedCommand() {
  let release: (text: string) => void = () => undefined;
  const gate = new Promise<string>((resolve) => {
    release = resolve;
  });
  const spec = defineCommand({
    path: ["crunch"],
    summary: "long work (test)",
    mutating: false,
    run: async () => textReply(await gate),
  });
  return { spec, release: (text: string) => release(text) };
}

async function boot() {
  const emulator = new TelegramEmulator();
  await emulator.listen();
  const { home, cleanup } = await tempHome();
  cleanups.push(cleanup, () => emulator.close());
  await writeTestSkill(home, "documents", "pdf-tools");
  const config = emulatorConfig(emulator, { admins: [`telegram:${ADMIN}`] });
  const { logger } = capturingLogger();
  const adapter = createTelegramAdapter({
    config,
    home,
    secret: (name) => (name === "TELEGRAM_BOT_TOKEN" ? emulator.token : undefined),
    logger,
    tuning: FAST,
  });
  const crunch = gatedCommand();
  const gateway = createGateway({
    home,
    config,
    adapters: [adapter],
    logger,
    registry: [...registry, crunch.spec],
    acknowledgeAfterMs: 150,
  });
  cleanups.push(() => gateway.stop());
  await gateway.start();
  return { emulator, gateway, crunch };
}

describe("Telegram: slow work is acknowledged and the notice becomes the result", () => {
  it("replies 'running…' to the command at once, then edits that message into the result", async () => {
    const { emulator, gateway, crunch } = await boot();
    const since = emulator.sent.length;
    const command = emulator.userSays({
      text: "/crunch",
      userId: ADMIN,
      chatId: GROUP,
      chatType: "supergroup",
    });
    const notice = await emulator.waitForMessage(
      (message) => message.chat_id === String(GROUP) && !message.edited,
      8000,
      since,
    );
    expect(notice.plain).toMatch(/Running.*\/crunch.*result/);
    // In a group, a reply to the person's command, so it is clear what is running.
    expect(notice.reply_to_message_id).toBe(
      (command.message as { message_id: number } | undefined)?.message_id,
    );
    crunch.release("crunched 10,000 skills");
    const edited = await emulator.waitForMessage(
      (message) => message.message_id === notice.message_id && message.edited === true,
      8000,
      since,
    );
    expect(edited.plain).toContain("crunched 10,000 skills");
    await gateway.whenIdle();
    // One message in the chat: the notice, edited; nothing else was sent.
    const fresh = emulator.sent.slice(since).filter((message) => !message.edited);
    expect(fresh.map((message) => message.message_id)).toEqual([notice.message_id]);
  });

  it("sends quick work's result alone, with no notice", async () => {
    const { emulator, gateway } = await boot();
    const since = emulator.sent.length;
    emulator.userSays({ text: "/skills", userId: ADMIN, chatId: ADMIN, chatType: "private" });
    await waitUntil(
      () => emulator.sent.length > since,
      8000,
      () => "a reply to /skills",
    );
    await gateway.whenIdle();
    const sent = emulator.sent.slice(since);
    expect(sent.some((message) => /Running/.test(message.plain))).toBe(false);
    expect(sent.some((message) => message.edited)).toBe(false);
    expect(sent[0]?.plain).toContain("pdf-tools");
  });
});
