/**
 * End to end on Telegram (real grammY against the Bot API emulator): an admin disables a skill for
 * Telegram (menu and loading follow, config.yaml keeps every other byte, a read-only user is refused),
 * and a missing secret is set through the card's "Set KEY" button (a stored action), whose press sends
 * the admin a one-time form link served by the gateway — single use, bound to the admin who pressed,
 * expiring after 10 minutes, the value stored only in .env (0600).
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import YAML from "yaml";
import type { CallbackQueryRecord, SentMessage } from "../emulators/telegram.js";
import { saveDuring } from "../support/concurrent-config.js";
import { usePlatform } from "../support/harness/index.js";
import { TELEGRAM_IDS } from "../support/harness/telegram.js";
import { filesUnder, MISSING_COMMAND } from "../support/platform-home.js";
import { bootSkillsSetup, type SetupRun } from "../support/skills-setup.js";

vi.mock("../../src/config/edit.js", async (importOriginal) => {
  const { withConcurrentSave } = await import("../support/concurrent-config.js");
  return withConcurrentSave(await importOriginal());
});

const ADMIN = TELEGRAM_IDS.admin;
const USER = TELEGRAM_IDS.member;
const GROUP = -100500;
const KEY = "SKILLGATE_TG_SETUP_WEATHER_KEY";
const VALUE = "tg-secret-VALUE-91c2e";
const PUBLIC = "https://skillgate.example.test";

const start = usePlatform("telegram");

type Booted = SetupRun<"telegram">;

function boot(): Promise<Booted> {
  return bootSkillsSetup(start, KEY, (emulator) => {
    const doc = {
      gateway: {
        admins: [`telegram:${ADMIN}`],
        allowed_users: [`telegram:${USER}`, "mock:reader"],
        health: { enabled: false },
        public_url: PUBLIC,
        secret_form: { port: 0 },
        telegram: { enabled: true, api_root: emulator.apiRoot },
      },
    };
    return `# written by hand\n${YAML.stringify(doc)}skills:\n  # keep order\n  ledger: true\n`;
  });
}

function linkOf(message: SentMessage | undefined): string {
  const url = message?.reply_markup?.inline_keyboard[0]?.[0]?.url ?? "";
  expect(url.startsWith(`${PUBLIC}/secret/`)).toBe(true);
  return url;
}

/** Waits until the bot edited `message` into one containing `text`. */
async function waitUntilEdited(run: Booted, message: SentMessage, text: string): Promise<void> {
  const deadline = Date.now() + 8000;
  while (!run.emulator.latest(message.message_id, message.chat_id)?.plain.includes(text)) {
    if (Date.now() > deadline) throw new Error(`message ${message.message_id} never showed "${text}"`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** `userId` presses the button labelled `label` on the group's `card`; resolves once it was answered. */
async function pressAnswered(
  run: Booted,
  card: SentMessage | undefined,
  label: string,
  userId: number,
): Promise<CallbackQueryRecord> {
  const record = run.emulator.pressButton({
    messageId: card?.message_id as number,
    chatId: String(GROUP),
    label,
    userId,
  });
  await waitForAnswer(record);
  return record;
}

/** Waits until the bot answered a callback query (the emulator records the answer on it). */
async function waitForAnswer(record: CallbackQueryRecord): Promise<void> {
  const deadline = Date.now() + 8000;
  while (record.answer === undefined) {
    if (Date.now() > deadline) throw new Error(`callback query ${record.id} was never answered`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Presses the card's "Set KEY" button as `userId` and returns the one-time link the bot sent to that
 * user's private chat (the press itself is answered with a notice only the presser sees).
 */
async function pressForLink(
  run: Booted,
  card: SentMessage,
  userId: number,
  chatId?: string,
): Promise<string> {
  const { press, dm } = await pressForDm(run, card, `Set ${KEY}`, userId, chatId ?? card.chat_id);
  expect(press.answer?.text).toContain("private chat");
  return linkOf(dm);
}

/**
 * `userId` presses the button labelled `label` on `card` (in `chatId`); resolves with the press, once it
 * was answered, and the first message the bot then sent to that person's private chat.
 */
async function pressForDm(run: Booted, card: SentMessage, label: string, userId: number, chatId: string) {
  const since = run.emulator.sent.length;
  const press = run.emulator.pressButton({ messageId: card.message_id, chatId, label, userId });
  const [dm] = await run.emulator.waitForMessages(
    1,
    (message) => message.chat_id === String(userId),
    8000,
    since,
  );
  await waitForAnswer(press);
  return { press, dm };
}

/** The local address the reverse proxy behind public_url would forward to. */
function local(run: Booted, url: string): string {
  return `http://127.0.0.1:${run.gateway.secretFormPort}${url.slice(PUBLIC.length)}`;
}

async function post(url: string, value: string): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ value }).toString(),
  });
}

describe("telegram: skills set up from chat", () => {
  it("an admin disables a skill for telegram with the Confirm button: menu and /weather follow there, it loads elsewhere; a reader cannot; the file keeps its bytes", async () => {
    const run = await boot();
    const before = await fs.readFile(run.file, "utf8");
    const [refused] = await run.ask({
      userId: USER,
      text: "/skills disable weather --platform telegram -y",
    });
    expect(refused?.plain).toMatch(/for admins only/);
    expect(await fs.readFile(run.file, "utf8")).toBe(before);

    // In a group the admin is asked with Confirm / Cancel buttons (the action model's confirmation).
    const since = run.emulator.sent.length;
    run.emulator.userSays({
      userId: ADMIN,
      chatId: GROUP,
      chatType: "supergroup",
      text: "/skills disable weather --platform telegram",
    });
    const [question] = await run.emulator.waitForMessages(
      1,
      (message) => message.chat_id === String(GROUP),
      8000,
      since,
    );
    expect(question?.plain).toContain("Disable weather on telegram");
    const labels = question?.reply_markup?.inline_keyboard.flat().map((button) => button.text);
    expect(labels).toEqual(["Confirm", "Cancel"]);
    expect(await fs.readFile(run.file, "utf8")).toBe(before);

    // A reader's press is judged for the reader: refused privately, nothing written.
    const confirm = question?.reply_markup?.inline_keyboard[0]?.[0]?.callback_data;
    // Later presses carry the same callback data, as a client still showing the old keyboard would.
    const press = (userId: number) =>
      run.emulator.pressButton({
        messageId: question?.message_id as number,
        chatId: String(GROUP),
        data: confirm,
        userId,
      });
    const byReader = press(USER);
    await waitForAnswer(byReader);
    expect(byReader.answer?.text).toContain("for admins only");
    expect(await fs.readFile(run.file, "utf8")).toBe(before);

    press(ADMIN);
    await waitUntilEdited(run, question as SentMessage, "weather disabled on telegram");
    const after = `${before}  platform_disabled:\n    telegram: [weather]\n`;
    expect(await fs.readFile(run.file, "utf8")).toBe(after);

    // Pressed again: already answered, nothing more written.
    const twice = press(ADMIN);
    await waitForAnswer(twice);
    expect(twice.answer?.text).toContain("already answered");
    expect(await fs.readFile(run.file, "utf8")).toBe(after);

    const menu = run.emulator.menuHistory.at(-1);
    expect(JSON.stringify(menu)).not.toContain('"weather"');
    expect(JSON.stringify(menu)).toContain('"arxiv"');
    const [gone] = await run.ask({ userId: USER, text: "/weather" });
    expect(gone?.plain).toMatch(/weather.*disabled for telegram/);
    await run.mock.shouldReply("/skill weather", "Skill loaded: weather", { user: "reader" });
  });

  it("a concurrent save of config.yaml during a chat edit is detected and nothing is overwritten", async () => {
    const run = await boot();
    const theirs = `${await fs.readFile(run.file, "utf8")}# saved by someone else meanwhile\n`;
    saveDuring(() => fs.writeFile(run.file, theirs));
    const [reply] = await run.ask({
      userId: ADMIN,
      text: "/skills disable weather --platform telegram -y",
    });
    expect(reply?.plain).toContain("changed while skillgate was editing it");
    expect(await fs.readFile(run.file, "utf8")).toBe(theirs);
    const [still] = await run.ask({ userId: USER, text: "/weather" });
    expect(still?.plain).toContain("Skill loaded: weather");
  });

  it("a skill declaring a missing command and an unset setting shows both", async () => {
    const run = await boot();
    const [card] = await run.ask({ userId: USER, text: "/deployer" });
    expect(card?.plain).toContain(`command ${MISSING_COMMAND} is not on PATH`);
    expect(card?.plain).toContain("setting deployer.region is not set (Which region?)");
  });

  it("a secret set through the one-time link lands in .env (0600) and nowhere else; the link works once and expires", async () => {
    const run = await boot();
    const [card] = await run.ask({ userId: ADMIN, text: "/weather" });
    expect(card?.plain).toContain(KEY);
    // The card carries "Set KEY" as an ordinary stored action (opaque callback data, no link in it).
    const button = card?.reply_markup?.inline_keyboard.flat().find((item) => item.text === `Set ${KEY}`);
    expect(button?.callback_data).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(button?.url).toBeUndefined();
    const url = await pressForLink(run, card as SentMessage, ADMIN);

    const form = await fetch(local(run, url));
    expect(form.status).toBe(200);
    expect(form.headers.get("cache-control")).toBe("no-store");
    expect(await form.text()).toContain(KEY);

    // An oversized form is refused before it is read, and does not use up the link.
    const huge = await post(local(run, url), "x".repeat(64 * 1024));
    expect(huge.status).toBe(413);
    await expect(fs.stat(path.join(run.home, ".env"))).rejects.toThrow();

    const since = run.emulator.sent.length;
    const stored = await post(local(run, url), VALUE);
    expect(stored.status).toBe(200);
    expect(await stored.text()).not.toContain(VALUE);
    const [confirmation] = await run.emulator.waitForMessages(
      1,
      (message) => message.chat_id === String(ADMIN),
      8000,
      since,
    );
    expect(confirmation?.plain).toContain(`${KEY} set ✓`);
    expect(confirmation?.plain).toContain("weather: ready.");
    const envFile = path.join(run.home, ".env");
    expect(await fs.readFile(envFile, "utf8")).toBe(`${KEY}=${VALUE}\n`);
    expect((await fs.stat(envFile)).mode & 0o777).toBe(0o600);

    const replay = await post(local(run, url), "replayed");
    expect(replay.status).toBe(410);
    expect(await replay.text()).toContain("already used");
    expect(await fs.readFile(envFile, "utf8")).toBe(`${KEY}=${VALUE}\n`);

    // A second link (the same button pressed again), used after 10 minutes, is refused.
    await fs.rm(envFile);
    const late = await pressForLink(run, card as SentMessage, ADMIN);
    expect(late).not.toBe(url);
    run.advance(10 * 60_000 + 1000);
    const expired = await post(local(run, late), "too-late");
    expect(expired.status).toBe(410);
    expect(await expired.text()).toContain("expired");
    await expect(fs.stat(envFile)).rejects.toThrow();

    await run.gateway.stop();
    for (const message of run.emulator.sent) expect(message.text).not.toContain(VALUE);
    expect(JSON.stringify(run.emulator.calls)).not.toContain(VALUE);
    expect(JSON.stringify(run.logs)).not.toContain(VALUE);
    for (const file of await filesUnder(run.home))
      expect(await fs.readFile(file, "utf8"), file).not.toContain(VALUE);
  });

  it("from a group the Set KEY press sends the link to the admin's private chat (once they started the bot), never into the group; a reader's press is refused", async () => {
    const run = await boot();
    const since = run.emulator.sent.length;
    run.emulator.userSays({ userId: ADMIN, chatId: GROUP, chatType: "supergroup", text: "/weather" });
    const [card] = await run.emulator.waitForMessages(
      1,
      (message) => message.chat_id === String(GROUP),
      8000,
      since,
    );
    expect(card?.plain).toContain(KEY);

    const reader = await pressAnswered(run, card, `Set ${KEY}`, USER);
    expect(reader.answer?.show_alert).toBe(true);
    expect(reader.answer?.text).toContain("for admins only");

    // An admin who never opened a private chat with the bot cannot be sent the link: told so, privately.
    run.emulator.neverStarted(ADMIN);
    const unreachable = await pressAnswered(run, card, `Set ${KEY}`, ADMIN);
    expect(unreachable.answer?.show_alert).toBe(true);
    expect(unreachable.answer?.text).toContain("could not message you privately");
    expect(run.emulator.sent.some((message) => message.chat_id === String(ADMIN))).toBe(false);

    await run.ask({ userId: ADMIN, text: "/help" });
    const dm = await pressForLink(run, card as SentMessage, ADMIN, String(GROUP));
    expect(dm.startsWith(`${PUBLIC}/secret/`)).toBe(true);
    for (const message of run.emulator.sent.filter((item) => item.chat_id === String(GROUP))) {
      expect(JSON.stringify(message.reply_markup ?? {})).not.toContain("/secret/");
      expect(message.text).not.toContain("/secret/");
    }
  });

  it("an admin whose Telegram speaks Chinese is told about the private link, and sent it, in Chinese", async () => {
    const run = await boot();
    const since = run.emulator.sent.length;
    run.emulator.userSays({
      userId: ADMIN,
      chatId: GROUP,
      chatType: "supergroup",
      text: "/weather",
      languageCode: "zh-hans",
    });
    const [card] = await run.emulator.waitForMessages(
      1,
      (message) => message.chat_id === String(GROUP),
      8000,
      since,
    );
    run.emulator.neverStarted(ADMIN);
    const unreachable = await pressAnswered(run, card, `设置 ${KEY}`, ADMIN);
    expect(unreachable.answer?.text).toContain("私信");
    expect(unreachable.answer?.text).not.toMatch(/[A-Za-z]{2,} [A-Za-z]{2,}/);

    await run.ask({ userId: ADMIN, text: "/help" });
    const { press, dm } = await pressForDm(run, card as SentMessage, `设置 ${KEY}`, ADMIN, String(GROUP));
    expect(press.answer?.text).toContain("私聊");
    expect(dm?.plain).toContain("一次性表单");
    expect(dm?.plain).toContain(KEY);
    expect(dm?.reply_markup?.inline_keyboard[0]?.[0]?.text).toBe(`设置 ${KEY}`);
    linkOf(dm);
  });
});
