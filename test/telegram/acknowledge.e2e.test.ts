/**
 * Slow work in chat, end to end on Telegram: the real gateway and the real Telegram adapter (grammy)
 * against the Bot API emulator. Work still running after the threshold gets a "running…" reply at once,
 * and that same message is edited into the result (`editMessageText`); quick work gets only its result.
 */
import { describe, expect, it } from "vitest";
import { registry } from "../../commands/index.js";
import { gatedCommand } from "../support/gated-command.js";
import { usePlatform } from "../support/harness/index.js";
import { TELEGRAM_IDS } from "../support/harness/telegram.js";
import { writeTestSkill } from "../support/platform-home.js";
import { waitUntil } from "./helpers.js";

const ADMIN = TELEGRAM_IDS.admin;
const GROUP = -100600;

const start = usePlatform("telegram", { prepare: (home) => writeTestSkill(home, "documents", "pdf-tools") });

async function boot() {
  const crunch = gatedCommand();
  const run = await start({ gateway: { registry: [...registry, crunch.spec], acknowledgeAfterMs: 150 } });
  return { emulator: run.emulator, gateway: run.gateway, crunch };
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
    await crunch.release("crunched 10,000 skills");
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
