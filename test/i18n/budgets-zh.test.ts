/**
 * Budgets hold in Chinese: long zh-CN replies (`/skills list` of a 400-skill home with Chinese
 * descriptions, `/curator status` with hundreds of entries) are measured on the localized text by each
 * platform's own renderer and stay inside Telegram's 4096 UTF-16 units, Discord's 2000 characters and
 * Feishu's request-body bytes per message (three bytes per CJK character), within the reply budget of
 * `gateway.max_reply_messages`; the budget's own notes are in Chinese too.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderReply as renderDiscord } from "../../adapters/discord/render.js";
import { renderCard } from "../../adapters/feishu/actions.js";
import {
  FEISHU_MAX_CONTENT_BYTES,
  renderReply as renderFeishu,
  requestBytes,
} from "../../adapters/feishu/render.js";
import { renderReply as renderTelegram, TELEGRAM_MAX_LENGTH } from "../../adapters/telegram/render.js";
import { terminalContext } from "../../commands/context.js";
import { registry } from "../../commands/index.js";
import { parseAndRun } from "../../commands/runner.js";
import type { CommandContext } from "../../commands/types.js";
import { loadConfig } from "../../src/config/config.js";
import { applyBudget } from "../../src/core/budget.js";
import { type LocalizedReply, localizeReply, type Reply, replyToPlainText } from "../../src/core/reply.js";
import { openLibrary } from "../../src/skills/library.js";
import { tempHome } from "../telegram/helpers.js";

const SKILL_COUNT = 400;
/** A budget the 400-skill list does not fit whole on any platform (the default is 5 messages). */
const MAX_MESSAGES = 2;
const DISCORD_LIMIT = 2000;
const NOW = new Date();

let home = "";
let cleanup: () => Promise<void> = async () => {};

async function writeLibrary(target: string): Promise<void> {
  const usage: Record<string, unknown> = {};
  const long = new Date(NOW.getTime() - 40 * 86_400_000).toISOString();
  for (let index = 0; index < SKILL_COUNT; index++) {
    const name = `技能-${String(index).padStart(3, "0")}`;
    const dir = path.join(target, "skills", `分类-${index % 12}`, name);
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, "SKILL.md"),
      `---\nname: ${name}\ndescription: 这是第 ${index} 个测试技能，用来整理文档、归档旧笔记并生成摘要报告。\n---\n\n# ${name}\n\n按步骤完成。\n`,
    );
    usage[name] = {
      created_by: "agent",
      use_count: index % 7,
      view_count: index % 5,
      patch_count: 0,
      last_used_at: long,
      last_viewed_at: null,
      last_patched_at: null,
      created_at: long,
      state: index % 3 === 0 ? "stale" : "active",
      pinned: index % 2 === 0,
      archived_at: null,
    };
  }
  await writeFile(path.join(target, "skills", ".usage.json"), `${JSON.stringify(usage, null, 2)}\n`);
}

function chat(target: string): CommandContext {
  const config = loadConfig(path.join(target, "config.yaml"));
  return {
    ...terminalContext({
      home: target,
      config,
      library: openLibrary(target, config, { watch: false }),
      now: () => NOW,
    }),
    surface: "chat",
    platform: "telegram",
    commandPrefix: (words) => `/${words.join(" ")}`,
    caller: { platform: "telegram", id: "1", isAdmin: true },
    chatId: "1",
  };
}

async function zh(words: string[]): Promise<LocalizedReply> {
  const [group, sub, ...rest] = words;
  const spec = registry.find((candidate) => candidate.path[0] === group && candidate.path[1] === sub);
  if (!spec) throw new Error(`no command ${words.join(" ")}`);
  const value = await parseAndRun(spec, chat(home), rest);
  return localizeReply(value, "zh-CN");
}

/** The reply within the budget as `measure` counts messages, with files where the platform has them. */
function budgeted(value: Reply, measure: (reply: Reply) => number, files: boolean): Reply {
  return applyBudget(value, {
    maxMessages: MAX_MESSAGES,
    measure,
    files,
    cliCommand: "skillgate skills list",
    fileName: "skills-list.txt",
  });
}

const withoutFiles = (value: Reply): Reply => ({
  ...value,
  blocks: value.blocks.filter((block) => block.kind !== "file"),
});

beforeAll(async () => {
  ({ home, cleanup } = await tempHome());
  await writeLibrary(home);
  await writeFile(path.join(home, "config.yaml"), "gateway:\n  admins: ['telegram:1']\n");
}, 120_000);

afterAll(async () => {
  await cleanup();
  await rm(home, { recursive: true, force: true });
});

describe("Chinese replies stay inside each platform's limits", () => {
  it("`/skills list` of 400 skills: Telegram 4096, Discord 2000, Feishu bytes, per message, within the budget", async () => {
    const list = await zh(["skills", "list"]);
    const text = replyToPlainText(list, "zh-CN");
    expect(text).toContain("技能（400）");
    expect(text).toMatch(/这是第 \d+ 个测试技能/);

    const telegram = (value: Reply) => renderTelegram(withoutFiles(value)).length;
    const discord = (value: Reply) => renderDiscord(withoutFiles(value)).length;
    const feishu = (value: Reply) => renderFeishu(withoutFiles(value)).length;
    for (const [name, measure, files] of [
      ["telegram", telegram, true],
      ["telegram (no files)", telegram, false],
      ["discord", discord, true],
      ["feishu", feishu, false],
    ] as const) {
      expect(measure(list), name).toBeGreaterThan(MAX_MESSAGES);
      const fitted = budgeted(list, measure, files);
      expect(measure(fitted), name).toBeLessThanOrEqual(MAX_MESSAGES);
      const shown = replyToPlainText(withoutFiles(fitted), "zh-CN");
      // The budget's own line is Chinese too.
      expect(shown, name).toMatch(
        files ? /完整的回答（[\d,]+ 个字符）在附件 skills-list\.txt 中/ : /在此截断/,
      );
      expect(shown, name).not.toMatch(/cut here|full answer/);
    }
    for (const chunk of renderTelegram(withoutFiles(budgeted(list, telegram, false)))) {
      expect(chunk.text.length).toBeLessThanOrEqual(TELEGRAM_MAX_LENGTH);
    }
    for (const chunk of renderDiscord(withoutFiles(budgeted(list, discord, true)))) {
      expect(chunk.length).toBeLessThanOrEqual(DISCORD_LIMIT);
    }
    for (const payload of renderFeishu(withoutFiles(budgeted(list, feishu, false)))) {
      expect(requestBytes(payload)).toBeLessThanOrEqual(FEISHU_MAX_CONTENT_BYTES);
    }
    // Without a budget, each chunk every renderer cuts the whole list into is within its limit.
    for (const chunk of renderTelegram(list))
      expect(chunk.text.length).toBeLessThanOrEqual(TELEGRAM_MAX_LENGTH);
    for (const chunk of renderDiscord(list)) expect(chunk.length).toBeLessThanOrEqual(DISCORD_LIMIT);
    for (const payload of renderFeishu(list))
      expect(requestBytes(payload)).toBeLessThanOrEqual(FEISHU_MAX_CONTENT_BYTES);
  });

  it("`/curator status` with 200 pins and 400 entries: a card within Feishu's bytes, chunks within Telegram and Discord", async () => {
    const status = await zh(["curator", "status"]);
    const text = replyToPlainText(status, "zh-CN");
    expect(text).toContain("已固定（200）");
    expect(text).toMatch(/另有 \d+ 个/);
    expect(text).toContain("最久未活动（前 5 个）");
    const card = renderCard(status);
    // The card fits, or the reply goes out as posts that each fit.
    if (card) expect(requestBytes(card)).toBeLessThanOrEqual(FEISHU_MAX_CONTENT_BYTES);
    for (const payload of renderFeishu(status))
      expect(requestBytes(payload)).toBeLessThanOrEqual(FEISHU_MAX_CONTENT_BYTES);
    const telegram = renderTelegram(status);
    const discord = renderDiscord(status);
    expect(telegram.length).toBeLessThanOrEqual(MAX_MESSAGES);
    expect(discord.length).toBeLessThanOrEqual(MAX_MESSAGES);
    for (const chunk of telegram) expect(chunk.text.length).toBeLessThanOrEqual(TELEGRAM_MAX_LENGTH);
    for (const chunk of discord) expect(chunk.length).toBeLessThanOrEqual(DISCORD_LIMIT);
  });

  it("`/curator list-pinned` and `/skills usage` of the big home: each page within every limit", async () => {
    for (const words of [
      ["curator", "list-pinned"],
      ["skills", "usage"],
    ]) {
      const value = await zh(words);
      expect(replyToPlainText(value, "zh-CN"), words.join(" ")).toMatch(/[\u4e00-\u9fff]/);
      const fitted = budgeted(value, (reply) => renderTelegram(withoutFiles(reply)).length, false);
      for (const chunk of renderTelegram(withoutFiles(fitted))) {
        expect(chunk.text.length).toBeLessThanOrEqual(TELEGRAM_MAX_LENGTH);
      }
      const forDiscord = budgeted(value, (reply) => renderDiscord(withoutFiles(reply)).length, true);
      expect(renderDiscord(withoutFiles(forDiscord)).length).toBeLessThanOrEqual(MAX_MESSAGES);
      for (const chunk of renderDiscord(withoutFiles(forDiscord)))
        expect(chunk.length).toBeLessThanOrEqual(DISCORD_LIMIT);
      const forFeishu = budgeted(value, (reply) => renderFeishu(withoutFiles(reply)).length, false);
      for (const payload of renderFeishu(withoutFiles(forFeishu))) {
        expect(requestBytes(payload)).toBeLessThanOrEqual(FEISHU_MAX_CONTENT_BYTES);
      }
    }
  });
});
