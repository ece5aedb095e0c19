/**
 * Versions a chat notices, end to end on Telegram (real grammY against the Bot API emulator): a skill is
 * loaded in a chat, its SKILL.md is edited on disk, and the chat's next message is answered with a
 * one-line notice (old → new version) and a "What changed" button whose press shows the SKILL.md diff.
 * Another chat that never loaded the skill is told nothing.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { SentMessage } from "../emulators/telegram.js";
import { usePlatform } from "../support/harness/index.js";
import { TELEGRAM_IDS } from "../support/harness/telegram.js";
import { writeTestSkill } from "../support/platform-home.js";

const ADMIN = TELEGRAM_IDS.admin;
const MEMBER = TELEGRAM_IDS.member;

const boot = usePlatform("telegram", {
  prepare: async (home) => {
    await writeTestSkill(home, "devops", "cloud-deploy", "version: 1.0.0\n", "Back up first, then deploy.");
  },
});

function labels(message: SentMessage | undefined): string[] {
  return (message?.reply_markup?.inline_keyboard ?? []).flat().map((button) => button.text);
}

describe("telegram: a loaded skill's change is told at the chat's next message", () => {
  it("announces old → new version with a What changed button showing the diff", async () => {
    const run = await boot();
    const [loaded] = await run.ask({
      text: "/skill cloud-deploy",
      userId: ADMIN,
      chatId: ADMIN,
      chatType: "private",
    });
    expect(loaded?.plain).toContain("cloud-deploy");
    const [quiet] = await run.ask({ text: "/whoami", userId: ADMIN, chatId: ADMIN, chatType: "private" });
    expect(quiet?.plain).not.toContain("changed");

    const file = path.join(run.home, "skills", "devops", "cloud-deploy", "SKILL.md");
    const text = await fs.readFile(file, "utf8");
    await fs.writeFile(
      file,
      text
        .replace("version: 1.0.0", "version: 1.1.0")
        .replace("Back up first, then deploy.", "Never deploy on Fridays."),
    );

    const [told] = await run.ask({ text: "/whoami", userId: ADMIN, chatId: ADMIN, chatType: "private" });
    expect(told?.plain).toContain("cloud-deploy");
    expect(told?.plain).toContain("1.0.0 → 1.1.0");
    expect(labels(told)).toContain("What changed in cloud-deploy");
    // Told once: the following message carries no notice.
    const [after] = await run.ask({ text: "/whoami", userId: ADMIN, chatId: ADMIN, chatType: "private" });
    expect(after?.plain).not.toContain("1.1.0");
    // A chat that never loaded it hears nothing.
    const [other] = await run.ask({ text: "/whoami", userId: MEMBER, chatId: MEMBER, chatType: "private" });
    expect(other?.plain).not.toContain("cloud-deploy");

    const before = run.emulator.sent.length;
    await run.press({
      messageId: told?.message_id as number,
      label: "What changed in cloud-deploy",
      userId: ADMIN,
    });
    const shown = [
      ...run.emulator.sent.slice(before),
      ...(told ? [run.emulator.latest(told.message_id)] : []),
    ]
      .map((message) => message?.plain ?? "")
      .join("\n");
    expect(shown).toContain("- Back up first, then deploy.");
    expect(shown).toContain("+ Never deploy on Fridays.");
  });
});
