/**
 * Finding 5: one reply is at most `gateway.max_reply_messages` messages (default 5). A 410 KB linked
 * file opened by a read-only Telegram user arrives as a few messages plus the whole text as a document
 * (`sendDocument`); a platform without files gets the reply cut, with a line naming the CLI command that
 * shows the rest. The same holds for the chat agent.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createMockAdapter } from "../../adapters/mock/index.js";
import { applyBudget } from "../../src/core/budget.js";
import { FileRefusedError } from "../../src/core/errors.js";
import { type Reply, reply, replyToPlainText, textReply } from "../../src/core/reply.js";
import { createGateway } from "../../src/gateway/gateway.js";
import { makeHome, removeHome, writeSkill } from "../gateway/helpers.js";
import { usePlatform } from "../support/harness/index.js";
import { TELEGRAM_IDS } from "../support/harness/telegram.js";
import { capturingLogger, waitUntil } from "../telegram/helpers.js";

const USER = TELEGRAM_IDS.member;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const BIG = Array.from({ length: 6000 }, (_, index) => `line ${index}: ${"lorem ipsum ".repeat(5)}`).join(
  "\n",
);

const start = usePlatform("telegram", {
  prepare: (home) =>
    writeSkill(home, { name: "bigdoc", category: "docs", files: { "references/big.md": BIG } }),
  gateway: { agent: { respond: async () => textReply(BIG) } },
});

async function boot(gateway: Record<string, unknown> = {}) {
  const run = await start({ config: { gateway } });
  return { emulator: run.emulator, home: run.home, gw: run.gateway };
}

describe("finding 5: the reply budget", () => {
  it("a 410 KB linked file becomes at most 5 messages and a document with all of it", async () => {
    expect(BIG.length).toBeGreaterThan(400_000);
    const { emulator, gw } = await boot();
    emulator.userSays({ userId: USER, text: "/skills view bigdoc references/big.md" });
    await waitUntil(() => emulator.documents.length > 0, 8000);
    await gw.whenIdle();
    const messages = emulator.sent.filter((message) => message.chat_id === String(USER));
    expect(messages.length).toBeGreaterThanOrEqual(1);
    expect(messages.length + emulator.documents.length).toBeLessThanOrEqual(5);
    const [document] = emulator.documents;
    expect(document?.file_name).toMatch(/\.txt$/);
    expect(document?.content).toContain("line 0:");
    expect(document?.content).toContain("line 5999:");
    expect(messages.map((message) => message.plain).join("\n")).toMatch(/attached file/);
  });

  it("the agent's long answer is held to the budget too, and max_reply_messages is honoured", async () => {
    const { emulator, gw } = await boot({ max_reply_messages: 2 });
    emulator.userSays({ userId: USER, text: "tell me everything" });
    await waitUntil(() => emulator.documents.length > 0, 8000);
    await gw.whenIdle();
    const messages = emulator.sent.filter((message) => message.chat_id === String(USER));
    expect(messages.length + emulator.documents.length).toBeLessThanOrEqual(2);
    expect(emulator.documents[0]?.content).toContain("line 5999:");
  });

  it("a document Telegram refuses falls back to the cut text within what is left of the budget", async () => {
    const { emulator, gw } = await boot();
    emulator.documentSizeLimit = 64 * 1024;
    emulator.userSays({ userId: USER, text: "/skills view bigdoc references/big.md" });
    await waitUntil(() => emulator.sent.some((message) => /cut here/.test(message.plain)), 8000);
    await gw.whenIdle();
    expect(emulator.documents).toHaveLength(0);
    const messages = emulator.sent.filter((message) => message.chat_id === String(USER));
    // The lead line went before the refusal; the cut text uses the rest of the 5 messages.
    expect(messages.length).toBeLessThanOrEqual(5);
    const text = messages.map((message) => message.plain).join("\n");
    expect(text).toContain("line 0:");
    expect(text).toContain("skillgate skills view bigdoc references/big.md");
  });

  it("without files, a long reply is cut to the budget with the CLI command that shows the rest", async () => {
    const home = await makeHome();
    cleanups.push(() => removeHome(home));
    await writeSkill(home, { name: "bigdoc", files: { "references/big.md": BIG } });
    const mock = createMockAdapter({ platform: "discord", capabilities: { maxMessageLength: 2000 } });
    const gw = createGateway({
      home,
      config: (await import("../../src/config/config.js")).parseConfig({
        gateway: { admins: ["discord:admin"], health: { enabled: false } },
      }),
      adapters: [mock],
    });
    cleanups.push(() => gw.stop());
    mock.settle = () => gw.whenIdle();
    await gw.start();
    const answer = await mock.shouldReply("/skills view bigdoc references/big.md", "cut here", {
      user: "admin",
    });
    expect(answer).toContain("skillgate skills view bigdoc references/big.md");
    expect(answer.length).toBeLessThanOrEqual(5 * 2000);
  });

  it("a refused file is sent again cut, within the messages the refused attempt left, and logged", async () => {
    const home = await makeHome();
    cleanups.push(() => removeHome(home));
    await writeSkill(home, { name: "bigdoc", files: { "references/big.md": BIG } });
    const mock = createMockAdapter({
      platform: "discord",
      capabilities: { maxMessageLength: 2000, files: true },
    });
    const attempts: Reply[] = [];
    const send = mock.send.bind(mock);
    mock.send = async (target, value, inReplyTo) => {
      attempts.push(value);
      // The platform took two messages, then refused the file.
      if (value.blocks.some((block) => block.kind === "file"))
        throw new FileRefusedError("discord", "x.txt", "too large", { delivered: 2 });
      await send(target, value, inReplyTo);
    };
    const { logger, lines } = capturingLogger();
    const gw = createGateway({
      home,
      config: (await import("../../src/config/config.js")).parseConfig({
        gateway: { admins: ["discord:admin"], health: { enabled: false } },
      }),
      adapters: [mock],
      logger,
    });
    cleanups.push(() => gw.stop());
    mock.settle = () => gw.whenIdle();
    await gw.start();
    const answer = await mock.shouldReply("/skills view bigdoc references/big.md", "cut here", {
      user: "admin",
    });
    expect(attempts).toHaveLength(2);
    expect(attempts[0]?.blocks.some((block) => block.kind === "file")).toBe(true);
    expect(attempts[1]?.blocks.some((block) => block.kind === "file")).toBe(false);
    expect(answer).toContain("skillgate skills view bigdoc references/big.md");
    // 5 messages in the budget, 2 already used: the cut text fits in 3.
    expect(answer.length).toBeLessThanOrEqual(3 * 2000);
    expect(answer.length).toBeGreaterThan(2 * 2000);
    expect(lines.some((line) => line.level === 40 && line.file === "x.txt" && line.delivered === 2)).toBe(
      true,
    );
  });

  it("applyBudget leaves a reply that fits untouched and never exceeds the budget when cutting", () => {
    const small = textReply("short");
    const measure = (value: Reply) => Math.ceil(replyToPlainText(value).length / 1000);
    expect(applyBudget(small, { maxMessages: 5, measure, files: false })).toBe(small);
    const long = reply([{ kind: "code", text: "x".repeat(100_000) }]);
    for (const max of [1, 2, 5]) {
      const cut = applyBudget(long, { maxMessages: max, measure, files: false, cliCommand: "skillgate x" });
      expect(measure(cut)).toBeLessThanOrEqual(max);
    }
    const filed = applyBudget(long, { maxMessages: 2, measure, files: true, fileName: "x.txt" });
    expect(filed.blocks.find((block) => block.kind === "file")).toMatchObject({ name: "x.txt" });
  });
});
