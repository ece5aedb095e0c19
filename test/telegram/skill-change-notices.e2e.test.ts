/**
 * Changes told as they happen, end to end on Telegram (real grammY against the Bot API emulator): a skill
 * is loaded in two chats, one of which chose Chinese; the curator's skill_manage patches it from outside
 * any chat (as a run in another process would), and both chats are told at once, each in its language,
 * with a "What changed" button; rolling that change back is told as a rollback. The chat's next message
 * does not repeat the notice.
 */
import { describe, expect, it } from "vitest";
import { listEntries } from "../../src/curator/ledger.js";
import { createManageSession, recordView, skillManage } from "../../src/curator/manage.js";
import { adoptSkill } from "../../src/curator/operations.js";
import { rollbackEntry } from "../../src/curator/rollback-entry.js";
import { openLibrary } from "../../src/skills/library.js";
import type { SentMessage } from "../emulators/telegram.js";
import { until, usePlatform } from "../support/harness/index.js";
import { TELEGRAM_IDS } from "../support/harness/telegram.js";
import { writeTestSkill } from "../support/platform-home.js";

const ADMIN = TELEGRAM_IDS.admin;
const MEMBER = TELEGRAM_IDS.member;

const boot = usePlatform("telegram", {
  prepare: async (home) => {
    await writeTestSkill(home, "devops", "cloud-deploy", "version: 1.0.0\n", "Back up first, then deploy.");
  },
  gateway: { loadedSkillPollMs: 50 },
});

function labels(message: SentMessage | undefined): string[] {
  return (message?.reply_markup?.inline_keyboard ?? []).flat().map((button) => button.text);
}

describe("telegram: chats that loaded a skill are told when the curator or a rollback changes it", () => {
  it("tells each chat at once, in its language, and names what changed it", async () => {
    const run = await boot();
    const dm = { userId: ADMIN, chatId: ADMIN, chatType: "private" as const };
    const memberDm = { userId: MEMBER, chatId: MEMBER, chatType: "private" as const };
    await run.ask({ text: "/skill cloud-deploy", ...dm });
    await run.ask({ text: "/language zh-CN", ...memberDm });
    await run.ask({ text: "/skill cloud-deploy", ...memberDm });

    const config = run.config;
    const library = openLibrary(run.home, config);
    // The person hands the skill to the curator, which then patches it in its background review.
    expect(
      await adoptSkill({ home: run.home, config, library, now: new Date() }, "cloud-deploy"),
    ).toMatchObject({
      ok: true,
    });
    const session = createManageSession({ origin: "background_review" });
    recordView(session, "cloud-deploy");
    const before = run.emulator.sent.length;
    const patched = await skillManage(
      { home: run.home, config, library, session },
      {
        action: "patch",
        name: "cloud-deploy",
        old_string: "version: 1.0.0\n",
        new_string: "version: 1.1.0\n",
      },
    );
    expect(patched).toMatchObject({ success: true });
    const told = () => run.emulator.sent.slice(before).filter((sent) => sent.plain.includes("cloud-deploy"));
    await until(() => told().length >= 2, "both chats told of the curator's change");
    const english = told().find((sent) => sent.chat_id === String(ADMIN));
    const chinese = told().find((sent) => sent.chat_id === String(MEMBER));
    expect(english?.plain).toContain("The curator changed the cloud-deploy skill");
    expect(english?.plain).toContain("1.0.0 → 1.1.0");
    expect(labels(english)).toContain("What changed in cloud-deploy");
    expect(chinese?.plain).toContain("管理器（Curator）改动了本聊天已加载的技能 cloud-deploy");
    expect(labels(chinese)).toContain("cloud-deploy 改了什么");

    // Told once: the chat's next message carries no second notice.
    const [next] = await run.ask({ text: "/whoami", ...dm });
    expect(next?.plain).not.toContain("1.1.0");

    const [entry] = await listEntries(run.home, { skill: "cloud-deploy", limit: 1 });
    const rollbackFrom = run.emulator.sent.length;
    await rollbackEntry({ home: run.home, config, entryId: entry?.id ?? "" });
    const rolledBack = () =>
      run.emulator.sent
        .slice(rollbackFrom)
        .filter((sent) => sent.chat_id === String(ADMIN) && sent.plain.includes("rollback"));
    await until(() => rolledBack().length > 0, "the rollback told");
    expect(rolledBack()[0]?.plain).toContain("A rollback changed the cloud-deploy skill");
    expect(rolledBack()[0]?.plain).toContain("1.1.0 → 1.0.0");
  });
});
