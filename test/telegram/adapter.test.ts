/**
 * The Telegram adapter with the real grammy client against the loopback Bot API emulator: inbound
 * normalization over real long polling and webhooks, chunked HTML replies, fallbacks and retries, the
 * command menu, offsets across restarts, conflicts, and the one-gateway-per-bot lock.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTelegramAdapter } from "../../adapters/telegram/index.js";
import { htmlToPlain } from "../../adapters/telegram/render.js";
import { AdapterError } from "../../src/core/errors.js";
import { t } from "../../src/core/i18n/messages.js";
import type { Adapter, CommandCatalogEntry } from "../../src/core/message.js";
import { reply, textReply } from "../../src/core/reply.js";
import {
  adapterFor,
  capturingLogger,
  emulatorConfig,
  emulatorWithHome,
  freePort,
  tempHome,
  waitUntil,
} from "./helpers.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const setup = () => emulatorWithHome(cleanups);

function track(adapter: Adapter): Adapter {
  cleanups.push(() => adapter.stop());
  return adapter;
}

/** An adapter with the default settings, started against a fresh emulator and stopped after the test. */
async function startedAdapter() {
  const { emulator, home } = await setup();
  const started = adapterFor(emulator, home);
  await track(started.adapter).start(started.sink);
  return { emulator, home, ...started };
}

const MARKER = /\n\(\d+\/\d+\)$/;

describe("telegram adapter: inbound", () => {
  it("delivers DM, group, topic and mention commands; drops edits and other bots' commands", async () => {
    const { emulator, home } = await setup();
    const { adapter, sink, inbox, waitInbox } = adapterFor(emulator, home);
    await track(adapter).start(sink);
    expect(adapter.health().state).toBe("connected");

    emulator.userSays({ userId: 11, text: "/curator status" });
    emulator.userSays({
      userId: 12,
      chatType: "supergroup",
      chatId: -100500,
      text: "/curator@OtherHelperBot status",
    });
    emulator.userSays({ userId: 11, text: "/curator run", edited: true });
    emulator.userSays({
      userId: 12,
      chatType: "supergroup",
      chatId: -100500,
      text: "/curator@SkillgateBot pin pdf-tools",
    });
    emulator.userSays({ userId: 13, threadId: 77, chatId: -100600, text: "/skills list" });
    emulator.userSays({ userId: 12, chatType: "group", chatId: -100700, text: "@SkillgateBot /curator" });
    const messages = await waitInbox(4);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(inbox).toHaveLength(4);
    expect(
      messages.map((message) => [
        message.chat.kind,
        message.chat.id,
        message.chat.threadId,
        message.command?.name,
        message.command?.args,
      ]),
    ).toEqual([
      ["dm", "11", undefined, "curator", ["status"]],
      ["group", "-100500", undefined, "curator", ["pin", "pdf-tools"]],
      ["thread", "-100600", "77", "skills", ["list"]],
      ["group", "-100700", undefined, "curator", []],
    ]);
    // Only message updates are requested.
    expect(emulator.callsOf("getUpdates")[0]?.params.allowed_updates).toEqual(["message", "callback_query"]);
  });

  it("receives updates by webhook with the secret token and rejects a wrong secret", async () => {
    const { emulator, home } = await setup();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/telegram/hook`;
    const config = emulatorConfig(emulator, {
      telegram: { mode: "webhook", webhook: { url, port, secret: "s3cret_Token-1" } },
    });
    const { adapter, sink, waitInbox } = adapterFor(emulator, home, { config });
    await track(adapter).start(sink);
    expect(emulator.webhook).toEqual({ url, secretToken: "s3cret_Token-1", maxConnections: 1 });
    expect(emulator.callsOf("getUpdates")).toHaveLength(0);

    emulator.userSays({ userId: 21, text: "/curator status" });
    const [message] = await waitInbox(1);
    expect(message?.command).toEqual({ name: "curator", args: ["status"], rawArgs: "status" });
    await waitUntil(() => emulator.webhookDeliveries.length > 0);
    expect(emulator.webhookDeliveries.map((delivery) => delivery.status)).toEqual([200]);

    const forged = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": "wrong" },
      body: JSON.stringify({
        update_id: 1,
        message: { message_id: 1, date: 1, chat: { id: 5, type: "private" }, text: "/curator pause" },
      }),
    });
    expect(forged.status).toBe(401);
  });

  it("a refused setWebhook fails start and frees the port and the lock", async () => {
    const { emulator, home } = await setup();
    const port = await freePort();
    const webhook = { url: `http://127.0.0.1:${port}/hook`, port, secret: "abc" };
    const config = emulatorConfig(emulator, { telegram: { mode: "webhook", webhook } });
    emulator.failNext("setWebhook", {
      error_code: 400,
      description: "Bad Request: bad webhook: HTTPS url must be provided for webhook",
    });
    const first = adapterFor(emulator, home, { config });
    await expect(first.adapter.start(first.sink)).rejects.toThrow(/bad webhook/);
    expect(first.adapter.health().state).toBe("failed");
    const second = adapterFor(emulator, home, { config });
    await track(second.adapter).start(second.sink);
    expect(second.adapter.health().state).toBe("connected");
  });

  it("refuses webhook mode without a secret", async () => {
    const { emulator, home } = await setup();
    const config = emulatorConfig(emulator, {
      telegram: { mode: "webhook", webhook: { url: "http://127.0.0.1:9/x", port: await freePort() } },
    });
    const { adapter, sink } = adapterFor(emulator, home, { config });
    await expect(track(adapter).start(sink)).rejects.toThrow(/secret/);
  });
});

describe("telegram adapter: restarts and conflicts", () => {
  it("after a restart processes each queued update once, and none of the earlier ones again", async () => {
    const { emulator, home } = await setup();
    const first = adapterFor(emulator, home);
    await first.adapter.start(first.sink);
    emulator.userSays({ userId: 31, text: "/curator status" });
    emulator.userSays({ userId: 31, text: "/skills" });
    await first.waitInbox(2);
    await first.adapter.stop();
    expect(emulator.pendingPolls).toBe(0);
    const saved = JSON.parse(await readFile(path.join(home, "gateway", "telegram-offset.json"), "utf8")) as {
      offset: number;
    };

    const queued = [1, 2, 3, 4, 5].map((index) =>
      emulator.userSays({ userId: 32, text: `/curator pin skill-${index}` }),
    );
    expect(saved.offset).toBe(queued[0]?.update_id ?? 0);

    const second = adapterFor(emulator, home);
    await track(second.adapter).start(second.sink);
    const replayed = await second.waitInbox(5);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(second.inbox).toHaveLength(5);
    expect(replayed.map((message) => message.eventId)).toEqual(
      queued.map((update) => String(update.update_id)),
    );
    expect(emulator.callsOf("getUpdates").at(-1)?.params.offset).toBe((queued[4]?.update_id ?? 0) + 1);
  });

  it("uses the saved offset even when the server still holds handled updates", async () => {
    const { emulator, home } = await setup();
    // Updates 1–2 were handled by a gateway that crashed before confirming them with Telegram.
    const handled = [
      emulator.userSays({ userId: 33, text: "/curator status" }),
      emulator.userSays({ userId: 33, text: "/curator pause" }),
    ];
    const fresh = emulator.userSays({ userId: 33, text: "/curator resume" });
    await writeFile(
      path.join(await mkdirp(home, "gateway"), "telegram-offset.json"),
      JSON.stringify({
        bot_id: Number(emulator.token.split(":")[0]),
        offset: (handled[1]?.update_id ?? 0) + 1,
        saved_at: new Date().toISOString(),
      }),
    );
    const { adapter, sink, inbox, waitInbox } = adapterFor(emulator, home);
    await track(adapter).start(sink);
    await waitInbox(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(inbox.map((message) => message.eventId)).toEqual([String(fresh.update_id)]);
  });

  it("leaves a webhook it did not set in place: polling does not start and says another program uses the bot", async () => {
    const { emulator, home } = await setup();
    // Another program receives this bot's updates by webhook.
    emulator.webhook = { url: "https://other.example/hook", maxConnections: 40 };
    const { adapter, sink } = adapterFor(emulator, home);
    const started = track(adapter).start(sink);
    await expect(started).rejects.toThrow(
      /another program uses this bot: a webhook is set \(https:\/\/other\.example\/hook\)/,
    );
    await expect(started).rejects.toMatchObject({ refused: true });
    expect(emulator.callsOf("deleteWebhook")).toEqual([]);
    expect(emulator.callsOf("getUpdates")).toEqual([]);
    expect(emulator.webhook?.url).toBe("https://other.example/hook");
  });

  it("reports a 409 conflict in health and the log, retries with backoff and recovers", async () => {
    const { emulator, home } = await setup();
    const { logger, lines } = capturingLogger();
    const { adapter, sink, waitInbox } = adapterFor(emulator, home, { logger });
    const conflict = {
      error_code: 409,
      description:
        "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
    };
    emulator.failNext("getUpdates", conflict, 3);
    await track(adapter).start(sink);
    await waitUntil(() => adapter.health().state === "degraded");
    expect(adapter.health().detail).toMatch(/409 Conflict: another process is polling this bot token/);
    // Named as what it is: another program (Hermes' gateway, an old replica) uses this bot; skillgate backs off.
    expect(adapter.health().detail).toMatch(/^another program uses this bot .*backs off/);
    await waitUntil(() => emulator.callsOf("getUpdates").length >= 4);
    expect(lines.some((line) => /409 Conflict/.test(String(line.msg)) && line.level === 50)).toBe(true);
    // Backoff grows: each wait is longer than the one before.
    const times = emulator.callsOf("getUpdates").map((call) => call.at);
    const gaps = times.slice(1, 4).map((time, index) => time - (times[index] ?? 0));
    expect(gaps[2]).toBeGreaterThan(gaps[0] ?? 0);

    emulator.userSays({ userId: 41, text: "/curator status" });
    await waitInbox(1);
    await waitUntil(() => adapter.health().state === "connected");
  });

  it("a second poller on the same token makes the first one degraded until it goes away", async () => {
    const { emulator, home } = await setup();
    const other = await tempHome();
    cleanups.push(other.cleanup);
    const first = adapterFor(emulator, home);
    await track(first.adapter).start(first.sink);
    const intruder = adapterFor(emulator, other.home);
    await intruder.adapter.start(intruder.sink);
    await waitUntil(() => /409 Conflict/.test(first.adapter.health().detail ?? ""), 5000);
    await intruder.adapter.stop();
    await waitUntil(() => first.adapter.health().state === "connected", 5000);
    emulator.userSays({ userId: 42, text: "/curator status" });
    await first.waitInbox(1);
  });

  it("refuses a second gateway on the same home and bot", async () => {
    const { emulator, home } = await setup();
    const first = adapterFor(emulator, home);
    await track(first.adapter).start(first.sink);
    const second = adapterFor(emulator, home);
    const failure = await second.adapter.start(second.sink).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AdapterError);
    expect((failure as AdapterError).code).toBe("adapter.telegram.locked");
    expect((failure as Error).message).toMatch(/already connected to this Telegram bot/);
  });

  it("needs a token and says where to put it", async () => {
    const { emulator, home } = await setup();
    expect(() =>
      createTelegramAdapter({
        config: emulatorConfig(emulator),
        home,
        secret: () => undefined,
        logger: capturingLogger().logger,
      }),
    ).toThrow(/TELEGRAM_BOT_TOKEN is not set/);
  });

  it("a rejected token fails start with a clear error", async () => {
    const { emulator, home } = await setup();
    const adapter = createTelegramAdapter({
      config: emulatorConfig(emulator),
      home,
      secret: () => "123:not-the-token",
      logger: capturingLogger().logger,
    });
    await expect(adapter.start(async () => {})).rejects.toThrow(/401 Unauthorized/);
    expect(adapter.health().state).toBe("failed");
  });
});

describe("telegram adapter: outbound", () => {
  it("sends a 10,000-character reply as complete chunks, in a forum topic when asked", async () => {
    const { emulator, adapter } = await startedAdapter();
    emulator.userSays({ userId: 51, threadId: 9, chatId: -100900, text: "hello" });
    const lines = Array.from(
      { length: 200 },
      (_, index) => `line ${String(index).padStart(3, "0")} <&> ${"z".repeat(35)}`,
    );
    const since = emulator.sent.length;
    await adapter.send(
      { chatId: "-100900", threadId: "9" },
      reply([{ kind: "code", text: lines.join("\n") }]),
    );
    const sent = emulator.sent.slice(since);
    expect(sent.length).toBe(3);
    for (const message of sent) {
      expect(message.parse_mode).toBe("HTML");
      expect(message.message_thread_id).toBe(9);
      expect(message.text.length).toBeLessThanOrEqual(4096);
    }
    expect(sent.map((message) => message.plain.replace(MARKER, "")).join("")).toBe(lines.join("\n"));
  });

  it("re-sends a chunk Telegram cannot parse as plain text", async () => {
    const { emulator, adapter } = await startedAdapter();
    emulator.failNext("sendMessage", {
      error_code: 400,
      description: 'Bad Request: can\'t parse entities: Unsupported start tag "x" at byte offset 3',
    });
    await adapter.send(
      { chatId: "61" },
      reply([
        { kind: "heading", text: "Status" },
        { kind: "paragraph", text: "a < b & `c`" },
      ]),
    );
    const calls = emulator.callsOf("sendMessage");
    expect(calls).toHaveLength(2);
    expect(calls[0]?.params.parse_mode).toBe("HTML");
    expect(calls[1]?.params.parse_mode).toBeUndefined();
    expect(emulator.sent.at(-1)?.text).toBe("Status\n\na < b & c");
    expect(emulator.sent.at(-1)?.text).toBe(htmlToPlain(String(calls[0]?.params.text)));
  });

  it("waits out a 429 retry_after and sends the chunk once", async () => {
    const { emulator, adapter } = await startedAdapter();
    emulator.failNext("sendMessage", {
      error_code: 429,
      description: "Too Many Requests: retry after 1",
      parameters: { retry_after: 1 },
    });
    await adapter.send({ chatId: "62" }, textReply("flood test"));
    const calls = emulator.callsOf("sendMessage");
    expect(calls.map((call) => call.error?.error_code ?? 200)).toEqual([429, 200]);
    expect((calls[1]?.at ?? 0) - (calls[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);
    expect(
      emulator.sent.filter((message) => message.chat_id === "62").map((message) => message.plain),
    ).toEqual(["flood test"]);
  });

  it("falls back to the chat when a topic is gone, and fails clearly on other refusals", async () => {
    const { emulator, adapter } = await startedAdapter();
    emulator.userSays({ userId: 63, chatType: "supergroup", chatId: -100630, text: "hi" });
    await adapter.send({ chatId: "-100630", threadId: "5" }, textReply("where does this go"));
    expect(emulator.sent.at(-1)).toMatchObject({
      chat_id: "-100630",
      message_thread_id: undefined,
      plain: "where does this go",
    });
    emulator.failNext("sendMessage", {
      error_code: 403,
      description: "Forbidden: bot was blocked by the user",
    });
    await expect(adapter.send({ chatId: "64" }, textReply("x"))).rejects.toThrow(
      /bot was blocked by the user/,
    );
  });
});

describe("telegram adapter: command menu", () => {
  const registry: CommandCatalogEntry[] = [
    { name: "curator", description: "Curator status and maintenance" },
    { name: "skills", description: "List and view skills" },
    { name: "help", description: "" },
  ];
  const skills = (count: number): CommandCatalogEntry[] =>
    Array.from({ length: count }, (_, index) => ({
      name: `Skill-${index}.v2`,
      description: "d".repeat(300),
      isSkill: true,
    }));

  it("sets valid, deduplicated names with registry commands first, capped at 100", async () => {
    const { emulator, adapter } = await startedAdapter();
    const catalog = [
      { name: "pdf-tools", description: "PDF helpers", isSkill: true },
      ...registry,
      { name: "PDF_Tools", description: "duplicate once mapped", isSkill: true },
      {
        name: "a-very-long-skill-name-that-exceeds-thirty-two-characters",
        description: "long",
        isSkill: true,
      },
      ...skills(150),
    ];
    await adapter.syncCommands?.(catalog);
    const menu = emulator.menus.get("default") ?? [];
    expect(menu).toHaveLength(100);
    expect(menu.slice(0, 4).map((entry) => entry.command)).toEqual([
      "curator",
      "skills",
      "help",
      "pdf_tools",
    ]);
    expect(menu[2]?.description).toBe("help");
    expect(menu.filter((entry) => entry.command === "pdf_tools")).toHaveLength(1);
    expect(menu[4]?.command).toBe("a_very_long_skill_name_that_exce");
    for (const entry of menu) {
      expect(entry.command).toMatch(/^[a-z0-9_]{1,32}$/);
      expect(entry.description.length).toBeGreaterThanOrEqual(1);
      expect(entry.description.length).toBeLessThanOrEqual(256);
    }
  });

  it("shortens the menu when Telegram refuses it, and never sends an empty one", async () => {
    const { emulator, adapter } = await startedAdapter();
    emulator.failNext(
      "setMyCommands",
      { error_code: 400, description: "Bad Request: BOT_COMMANDS_TOO_MUCH" },
      2,
    );
    await adapter.syncCommands?.([...registry, ...skills(40)]);
    const sizes = emulator.callsOf("setMyCommands").map((call) => (call.params.commands as unknown[]).length);
    // The default menu is shortened twice; the Chinese one (`language_code: "zh"`) goes through whole.
    expect(sizes).toEqual([43, 23, 13, 43]);
    expect(
      emulator.menus
        .get("default")
        ?.slice(0, 3)
        .map((entry) => entry.command),
    ).toEqual(["curator", "skills", "help"]);

    await adapter.syncCommands?.([]);
    expect(emulator.callsOf("setMyCommands")).toHaveLength(4);
    for (const call of emulator.callsOf("setMyCommands"))
      expect((call.params.commands as unknown[]).length).toBeGreaterThan(0);
  });

  it("registers a default menu in English and a language_code zh menu in Chinese, with the same ASCII names", async () => {
    const { emulator, adapter } = await startedAdapter();
    await adapter.syncCommands?.([
      { name: "help", description: t("help.summary") },
      { name: "pdf-tools", description: "", isSkill: true },
    ]);
    const calls = emulator.callsOf("setMyCommands");
    expect(calls.map((call) => call.params.language_code ?? "")).toEqual(["", "zh"]);
    const byLanguage = new Map(
      calls.map((call) => [
        String(call.params.language_code ?? ""),
        call.params.commands as { command: string; description: string }[],
      ]),
    );
    const english = byLanguage.get("") ?? [];
    const chinese = byLanguage.get("zh") ?? [];
    expect(chinese.map((entry) => entry.command)).toEqual(english.map((entry) => entry.command));
    const help = (menu: typeof english) => menu.find((entry) => entry.command === "help")?.description;
    expect(help(english)).toBe("list the commands and the skills you can load here");
    expect(help(chinese)).toBe("列出这里可用的命令和可以加载的技能");
    const skill = (menu: typeof english) => menu.find((entry) => entry.command === "pdf_tools")?.description;
    expect(skill(english)).toBe("Load the pdf-tools skill");
    expect(skill(chinese)).toBe("加载技能 pdf-tools");
    expect(emulator.menus.get("default")).toEqual(english);
  });

  it("keeps the previous menu when the update fails", async () => {
    const { emulator, adapter } = await startedAdapter();
    await adapter.syncCommands?.(registry);
    const before = emulator.menus.get("default");
    emulator.failNext("setMyCommands", { error_code: 500, description: "Internal Server Error" }, 5);
    await adapter.syncCommands?.([...registry, ...skills(3)]);
    expect(emulator.menus.get("default")).toEqual(before);
    expect(emulator.callsOf("deleteMyCommands")).toHaveLength(0);
  });
});

async function mkdirp(home: string, name: string): Promise<string> {
  const { mkdir } = await import("node:fs/promises");
  const dir = path.join(home, name);
  await mkdir(dir, { recursive: true });
  return dir;
}
