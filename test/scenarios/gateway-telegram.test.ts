/**
 * Reference gateway scenarios for Telegram that the existing Telegram tests cover only in parts: the
 * real gateway with the real Telegram adapter (grammy) against the Bot API emulator. "Nothing was sent"
 * is proven by ordering: a later message in the same chat is answered first.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createMockAdapter, type MockAdapter } from "../../adapters/mock/index.js";
import type { InboundMessage } from "../../src/core/message.js";
import { reply, textReply } from "../../src/core/reply.js";
import type { ChatAgent } from "../../src/gateway/gateway.js";
import type { TelegramEmulator } from "../emulators/telegram.js";
import { writeSkill, writeUsage } from "../gateway/helpers.js";
import { type PlatformRun, usePlatform } from "../support/harness/index.js";
import { TELEGRAM_IDS } from "../support/harness/telegram.js";

const ADMIN = TELEGRAM_IDS.admin;
const USER = TELEGRAM_IDS.member;
const GROUP = -100500;
const MARKER = /\n\((\d+)\/(\d+)\)$/;

type Running = PlatformRun<"telegram"> & { agentSaw: InboundMessage[]; other: MockAdapter };

const start = usePlatform("telegram", {
  prepare: async (home) => {
    await writeSkill(home, { name: "pdf-tools", category: "documents" });
    await writeSkill(home, { name: "arxiv", category: "research" });
    await writeUsage(home, Date.now(), { "pdf-tools": 1 });
  },
  config: {
    gateway: { admins: [`telegram:${ADMIN}`, "discord:admin"] },
    skills: { platform_disabled: { telegram: ["arxiv"] } },
  },
});

/**
 * A gateway over Telegram plus a mock adapter posing as Discord. The agent records what it is asked and
 * echoes it, unless `answer` builds the reply. `before` runs once the emulator is up, before the start.
 */
async function boot(
  options: { answer?: ChatAgent["respond"]; before?: (emulator: TelegramEmulator) => void } = {},
): Promise<Running> {
  const other = createMockAdapter({ platform: "discord" });
  const agentSaw: InboundMessage[] = [];
  const agent: ChatAgent = {
    respond: async (message, ctx) => {
      agentSaw.push(message);
      return options.answer ? options.answer(message, ctx) : textReply(`agent heard: ${message.text}`);
    },
  };
  const run = await start({
    prepare: (_home, emulator) => options.before?.(emulator),
    others: [other],
    gateway: { agent },
  });
  other.settle = () => run.gateway.whenIdle();
  return Object.assign(run, { agentSaw, other });
}

async function usageOf(home: string, skill: string): Promise<Record<string, unknown> | undefined> {
  const records = JSON.parse(await fs.readFile(path.join(home, "skills", ".usage.json"), "utf8"));
  return records[skill];
}

/** `userId` says `text` in the shared supergroup. */
function inGroup(userId: number, text: string) {
  return { userId, chatId: GROUP, chatType: "supergroup" as const, text };
}

describe("telegram scenarios", () => {
  it("scenario 4: '@SkillgateBot what's up' in a group reaches the agent without the mention, reply in the group", async () => {
    const run = await boot();
    const [answer] = await run.ask(inGroup(USER, "@SkillgateBot what's up"));
    expect(run.agentSaw.map((message) => message.text)).toEqual(["what's up"]);
    expect(answer?.plain).toBe("agent heard: what's up");
    expect(answer?.reply_to_message_id).toBeTypeOf("number");
  });

  it("scenario 4: a group message opening with another bot's mention is not ours", async () => {
    const run = await boot();
    const since = run.emulator.sent.length;
    run.emulator.userSays(inGroup(USER, "@OtherHelperBot hi"));
    await run.ask(inGroup(USER, "/whoami"));
    expect(
      run.emulator.sent.slice(since).filter((message) => message.chat_id === String(GROUP)),
    ).toHaveLength(1);
    expect(run.agentSaw).toEqual([]);
  });

  it("scenario 5: '@SkillgateBot /curator status' and '/curator@SkillgateBot status' are both gateway commands", async () => {
    const run = await boot();
    const group = { userId: USER, chatId: GROUP, chatType: "supergroup" as const };
    const [mentioned] = await run.ask({ ...group, text: "@SkillgateBot /curator status" });
    expect(mentioned?.plain).toMatch(/^curator: ENABLED/);
    const [addressed] = await run.ask({ ...group, text: "/curator@SkillgateBot status" });
    expect(addressed?.plain).toBe(mentioned?.plain);
    expect(run.agentSaw).toEqual([]);
  });

  it("scenario 6: '/curator@SkillgateBot pin pdf-tools' keeps its argument and pins the skill", async () => {
    const run = await boot();
    const [answer] = await run.ask(inGroup(ADMIN, "/curator@SkillgateBot pin pdf-tools"));
    expect(answer?.plain).toContain("curator: pinned 'pdf-tools'");
    expect((await usageOf(run.home, "pdf-tools"))?.pinned).toBe(true);
  });

  it("scenario 11: a 10,000-character answer with a code block crossing the cut keeps the fence and language", async () => {
    const code = Array.from({ length: 440 }, (_, index) => `value_${index} = compute(${index})`).join("\n");
    expect(code.length).toBeGreaterThanOrEqual(10_000);
    const run = await boot({
      answer: async () =>
        reply([
          { kind: "paragraph", text: "Here is the script:" },
          { kind: "code", text: code, lang: "python" },
        ]),
    });
    const since = run.emulator.sent.length;
    run.emulator.userSays({ userId: ADMIN, text: "write the script" });
    const first = await run.emulator.waitForMessage(
      (message) => message.chat_id === String(ADMIN),
      8000,
      since,
    );
    const total = Number(MARKER.exec(first.plain)?.[2]);
    expect(total).toBeGreaterThanOrEqual(3);
    const chunks = await run.emulator.waitForMessages(
      total,
      (message) => message.chat_id === String(ADMIN),
      8000,
      since,
    );
    for (const [index, chunk] of chunks.entries()) {
      expect(chunk.text.length).toBeLessThanOrEqual(4096);
      expect(MARKER.exec(chunk.plain)?.slice(1)).toEqual([String(index + 1), String(total)]);
      const opened = chunk.text.split('<pre><code class="language-python">').length - 1;
      const closed = chunk.text.split("</code></pre>").length - 1;
      expect(opened).toBe(1);
      expect(closed).toBe(1);
    }
    const shown = chunks.map((chunk) => chunk.plain.replace(MARKER, "")).join("\n");
    for (const line of code.split("\n")) expect(shown).toContain(line);
  });

  it("scenario 19: five updates queued before a cold start are all answered, in order", async () => {
    const texts = ["one", "two", "three", "four", "five"];
    const run = await boot({
      before: (emulator) => {
        for (const text of texts) emulator.userSays({ userId: USER, text });
      },
    });
    const replies = await run.emulator.waitForMessages(
      5,
      (message) => message.chat_id === String(USER),
      8000,
      0,
    );
    expect(replies.map((message) => message.plain)).toEqual(texts.map((text) => `agent heard: ${text}`));
    expect(run.agentSaw.map((message) => message.text)).toEqual(texts);
  });

  it("scenario 24: /arxiv disabled for telegram is refused there, while the same gateway loads it on discord", async () => {
    const run = await boot();
    const [refused] = await run.ask({ userId: ADMIN, text: "/arxiv find papers on curators" });
    expect(refused?.plain).toMatch(/arxiv\S* skill is disabled for telegram/);
    const loaded = await run.other.shouldReply("/arxiv find papers on curators", "Skill loaded: arxiv", {
      user: "admin",
    });
    expect(loaded).not.toMatch(/disabled/);
    expect(run.agentSaw.map((message) => `${message.platform}: ${message.text}`)).toEqual([
      "discord: find papers on curators",
    ]);
  });
});
