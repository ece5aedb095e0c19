/**
 * `/skills overlaps` in a Telegram chat (real grammY against the Bot API emulator): each overlapping pair
 * comes with "View" buttons for either skill and a "Compare" button, whose press shows the two side by
 * side (description, tags, related skills, version) with the diff of their SKILL.md; in Chinese too.
 */
import { describe, expect, it } from "vitest";
import type { SentMessage } from "../emulators/telegram.js";
import { type PlatformRun, usePlatform } from "../support/harness/index.js";
import { TELEGRAM_IDS } from "../support/harness/telegram.js";
import { writeTestSkill } from "../support/platform-home.js";

const ADMIN = TELEGRAM_IDS.admin;
const MEMBER = TELEGRAM_IDS.member;

const boot = usePlatform("telegram", {
  prepare: async (home) => {
    await writeTestSkill(
      home,
      "devops",
      "cloud-deploy",
      "version: 1.0.0\nmetadata:\n  hermes:\n    tags: [deploy, nginx]\n    related_skills: [docker-deploy]\n",
      "Deploy a web application to a cloud server behind an nginx reverse proxy.",
    );
    await writeTestSkill(
      home,
      "devops",
      "docker-deploy",
      "metadata:\n  hermes:\n    tags: [deploy, docker]\n",
      "Deploy a web application in Docker containers behind an nginx reverse proxy.",
    );
  },
});

/** `userId` says `text` in their direct chat with the bot; resolves with the first reply. */
async function askPrivately(run: PlatformRun<"telegram">, text: string, userId: number) {
  const [reply] = await run.ask({ text, userId, chatId: userId, chatType: "private" });
  return reply;
}

function labels(message: SentMessage | undefined): string[] {
  return (message?.reply_markup?.inline_keyboard ?? []).flat().map((button) => button.text);
}

describe("telegram: /skills overlaps offers View and Compare buttons", () => {
  it("compares the two skills of a pair side by side, in English and Chinese", async () => {
    const run = await boot();
    const listed = await askPrivately(run, "/skills overlaps", ADMIN);
    expect(listed?.plain).toContain("cloud-deploy ↔ docker-deploy");
    expect(labels(listed)).toEqual([
      "View cloud-deploy",
      "View docker-deploy",
      "Compare cloud-deploy and docker-deploy",
    ]);

    const before = run.emulator.sent.length;
    await run.press({
      messageId: listed?.message_id as number,
      label: "Compare cloud-deploy and docker-deploy",
      userId: ADMIN,
    });
    const shown = [...run.emulator.sent.slice(before), run.emulator.latest(listed?.message_id as number)]
      .map((message) => message?.plain ?? "")
      .join("\n");
    expect(shown).toContain("cloud-deploy and docker-deploy side by side:");
    expect(shown).toContain("deploy, nginx");
    expect(shown).toContain("deploy, docker");
    expect(shown).toContain("1.0.0");
    expect(shown).toContain("- Deploy a web application to a cloud server behind an nginx reverse proxy.");
    expect(shown).toContain("+ Deploy a web application in Docker containers behind an nginx reverse proxy.");

    await run.ask({ text: "/language zh-CN", userId: MEMBER, chatId: MEMBER, chatType: "private" });
    const chinese = await askPrivately(run, "/skills overlaps", MEMBER);
    expect(labels(chinese)).toEqual([
      "查看 cloud-deploy",
      "查看 docker-deploy",
      "比较 cloud-deploy 和 docker-deploy",
    ]);
    const compared = await askPrivately(run, "/skills compare cloud-deploy docker-deploy", MEMBER);
    expect(compared?.plain).toContain("cloud-deploy 与 docker-deploy 并排比较：");
    expect(compared?.plain).toContain("相关技能");
  });
});
