/**
 * Buttons end to end on Telegram: the real gateway and the real Telegram adapter (grammy) against the
 * Bot API emulator. Presses arrive as `callback_query` updates; every one must be answered, refusals
 * privately (an alert to the presser), results by editing the message that carried the button.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { SentMessage } from "../emulators/telegram.js";
import { type PlatformRun, usePlatform } from "../support/harness/index.js";
import { TELEGRAM_IDS } from "../support/harness/telegram.js";
import { makeCuratorDue, writeTestSkill } from "../support/platform-home.js";

const ADMIN = TELEGRAM_IDS.admin;
const USER = TELEGRAM_IDS.member;
const GROUP = -100600;
const HOME_CHAT = -100700;

const boot = usePlatform("telegram", {
  prepare: (home) => writeTestSkill(home, "documents", "pdf-tools"),
  config: {
    gateway: { home_channel: `telegram:${HOME_CHAT}` },
    // The summary test ticks right after boot: idle time counts from the gateway's start.
    curator: { min_idle_hours: 0 },
  },
});

/** A user says `text`; resolves with the first bot message sent in that chat afterwards. */
async function ask(run: PlatformRun<"telegram">, text: string, userId = ADMIN, chatId?: number) {
  const chat = chatId ?? userId;
  const [reply] = await run.ask({
    text,
    userId,
    chatId: chat,
    chatType: chat < 0 ? "supergroup" : "private",
  });
  return reply as SentMessage;
}

function labels(message: SentMessage | undefined): string[] {
  return (message?.reply_markup?.inline_keyboard ?? []).flat().map((button) => button.text);
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

async function archivedEntries(home: string): Promise<string[]> {
  return fs.readdir(path.join(home, "skills", ".archive")).catch(() => []);
}

describe("telegram buttons", () => {
  it("an admin confirms an archive with the button; a second press does nothing more", async () => {
    const run = await boot();
    const question = await ask(run, "/curator archive pdf-tools");
    expect(question.plain).toContain("Archive 'pdf-tools'?");
    expect(question.plain).not.toContain("-y");
    expect(labels(question)).toEqual(["Confirm", "Cancel"]);

    // A double tap: both presses carry the Confirm button's data, the second before the edit is seen.
    const confirm = question.reply_markup?.inline_keyboard[0]?.[0]?.callback_data;
    const firstPress = run.emulator.pressButton({
      messageId: question.message_id,
      data: confirm,
      userId: ADMIN,
    });
    const second = await run.press({ messageId: question.message_id, data: confirm, userId: ADMIN });
    const first = firstPress;
    const edited = run.emulator.latest(question.message_id);
    expect(edited?.edited).toBe(true);
    expect(edited?.plain).toContain("archived 'pdf-tools'");
    expect(labels(edited)).toEqual(["Restore pdf-tools"]);
    expect(first.answer?.show_alert).toBe(false);
    expect(second.answer).toMatchObject({ show_alert: true });
    expect(second.answer?.text).toMatch(/already answered/);
    expect(await archivedEntries(run.home)).toHaveLength(1);
    expect(await exists(path.join(run.home, "skills", "documents", "pdf-tools", "SKILL.md"))).toBe(false);
    // One edit for the one accepted press; the second changed no message.
    expect(run.emulator.callsOf("editMessageText")).toHaveLength(1);
  });

  it("Cancel changes nothing and retires the question's buttons", async () => {
    const run = await boot();
    const question = await ask(run, "/curator archive pdf-tools");
    await run.press({ messageId: question.message_id, label: "Cancel", userId: ADMIN });
    const edited = run.emulator.latest(question.message_id);
    expect(edited?.plain).toBe("Cancelled; nothing was changed.");
    expect(labels(edited)).toEqual([]);
    // The old Confirm (its data still known to the client) no longer works.
    const late = await run.press({
      messageId: question.message_id,
      data: question.reply_markup?.inline_keyboard[0]?.[0]?.callback_data,
      userId: ADMIN,
    });
    expect(late.answer?.text).toMatch(/already answered/);
    expect(await exists(path.join(run.home, "skills", "documents", "pdf-tools", "SKILL.md"))).toBe(true);
    expect(await archivedEntries(run.home)).toEqual([]);
  });

  it("a read-only user's press is refused privately and changes nothing; the admin's still works", async () => {
    const run = await boot();
    const question = await ask(run, "/curator archive pdf-tools", ADMIN, GROUP);
    const sentBefore = run.emulator.callsOf("sendMessage").length;
    const refused = await run.press({ messageId: question.message_id, label: "Confirm", userId: USER });
    expect(refused.answer?.show_alert).toBe(true);
    expect(refused.answer?.text).toMatch(/admins only/);
    expect(run.emulator.callsOf("sendMessage")).toHaveLength(sentBefore);
    expect(run.emulator.callsOf("editMessageText")).toHaveLength(0);
    expect(await exists(path.join(run.home, "skills", "documents", "pdf-tools", "SKILL.md"))).toBe(true);
    await run.press({ messageId: question.message_id, label: "Confirm", userId: ADMIN });
    expect(await exists(path.join(run.home, "skills", "documents", "pdf-tools", "SKILL.md"))).toBe(false);
  });

  it("a forged callback and an expired one are refused and change nothing", async () => {
    const run = await boot();
    const question = await ask(run, "/curator archive pdf-tools");
    const forged = await run.press({ messageId: question.message_id, data: "curator archive pdf-tools -y" });
    expect(forged.answer?.text).toMatch(/not one this gateway showed/);
    const guessed = await run.press({ messageId: question.message_id, data: "A".repeat(22) });
    expect(guessed.answer?.text).toMatch(/not one this gateway showed/);
    run.advance(25 * 3_600_000);
    const expired = await run.press({ messageId: question.message_id, label: "Confirm", userId: ADMIN });
    expect(expired.answer?.text).toMatch(/expired/);
    expect(await exists(path.join(run.home, "skills", "documents", "pdf-tools", "SKILL.md"))).toBe(true);
    expect(run.emulator.callsOf("editMessageText")).toHaveLength(0);
  });

  it("a maintenance summary's Restore button restores the skill into its category", async () => {
    const run = await boot({ prepare: makeCuratorDue });
    const since = run.emulator.sent.length;
    const outcome = await run.gateway.runMaintenanceTick();
    expect(outcome.posted).toBe(true);
    const summary = await run.emulator.waitForMessage(
      (message) => message.chat_id === String(HOME_CHAT),
      8000,
      since,
    );
    expect(labels(summary)).toContain("Restore old-stale");
    expect(labels(summary)).toContain("Roll back this run");
    expect(await exists(path.join(run.home, "skills", "notes", "old-stale", "SKILL.md"))).toBe(false);
    const before = run.emulator.sent.length;
    await run.press({
      messageId: summary.message_id,
      chatId: String(HOME_CHAT),
      label: "Restore old-stale",
    });
    const answer = await run.emulator.waitForMessage(
      (message) => message.chat_id === String(HOME_CHAT),
      8000,
      before,
    );
    expect(answer.plain).toContain("restored 'old-stale' to skills/notes/old-stale");
    expect(await exists(path.join(run.home, "skills", "notes", "old-stale", "SKILL.md"))).toBe(true);
    // The summary stays as it was (a Restore answers with a new message).
    expect(run.emulator.latest(summary.message_id)?.edited).toBeUndefined();
  });

  it("paging through 300 skills edits one message and never sends another", async () => {
    const run = await boot({
      prepare: async (home) => {
        for (let index = 0; index < 299; index += 1) {
          await writeTestSkill(home, "bulk", `skill-${String(index).padStart(3, "0")}`);
        }
      },
    });
    const sendsBefore = run.emulator.callsOf("sendMessage").length;
    const list = await ask(run, "/skills");
    expect(list.plain).toContain("Skills (300)");
    expect(list.plain).toContain("Page 1 of 15 (1–20 of 300)");
    expect(labels(list)).toEqual(["Next ›"]);
    for (let page = 2; page <= 15; page += 1) {
      await run.press({ messageId: list.message_id, label: "Next ›", userId: USER });
      expect(run.emulator.latest(list.message_id)?.plain).toContain(`Page ${page} of 15`);
    }
    const last = run.emulator.latest(list.message_id);
    expect(last?.plain).toContain("skill-298");
    expect(labels(last)).toEqual(["‹ Prev"]);
    await run.press({ messageId: list.message_id, label: "‹ Prev", userId: USER });
    expect(run.emulator.latest(list.message_id)?.plain).toContain("Page 14 of 15");
    expect(run.emulator.callsOf("sendMessage").length - sendsBefore).toBe(1);
    expect(run.emulator.callsOf("editMessageText")).toHaveLength(15);
  });

  it("/curator status carries buttons for the next likely actions", async () => {
    const run = await boot();
    const status = await ask(run, "/curator status");
    expect(status.plain).toMatch(/^curator: ENABLED/);
    expect(labels(status)).toEqual(["Dry run", "Pause", "Archived skills"]);
    const since = run.emulator.sent.length;
    await run.press({ messageId: status.message_id, label: "Pause", userId: ADMIN });
    const paused = await run.emulator.waitForMessage(
      (message) => message.chat_id === String(ADMIN),
      8000,
      since,
    );
    expect(paused.plain).toContain("curator: paused");
    const again = await ask(run, "/curator status");
    expect(labels(again)).toContain("Resume");
  });
});
