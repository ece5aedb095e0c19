/**
 * End to end on Feishu (the official Lark SDK over the long connection to the loopback emulator): an
 * admin disables a skill for Feishu in place in config.yaml, confirmed with the card's Confirm button (a
 * reader cannot; /help and loading follow), a concurrent save is never overwritten, readiness lists a
 * missing command and an unset setting, and a missing secret is set through the card form the "Set KEY"
 * button opens — stored in .env (0600), found in no log line, no message the bot sent and no other file;
 * the form works once.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { LarkSend } from "../emulators/lark.js";
import { saveDuring } from "../support/concurrent-config.js";
import { FEISHU_IDS } from "../support/harness/feishu.js";
import { usePlatform } from "../support/harness/index.js";
import { filesUnder, MISSING_COMMAND } from "../support/platform-home.js";
import { bootSkillsSetup, type SetupRun } from "../support/skills-setup.js";

vi.mock("../../src/config/edit.js", async (importOriginal) => {
  const { withConcurrentSave } = await import("../support/concurrent-config.js");
  return withConcurrentSave(await importOriginal());
});

const ADMIN = FEISHU_IDS.admin;
const USER = FEISHU_IDS.member;
const KEY = "SKILLGATE_FEISHU_SETUP_WEATHER_KEY";
const VALUE = "fs-secret-VALUE-5d1b8";

type Running = SetupRun<"feishu">;

const start = usePlatform("feishu");

function boot(): Promise<Running> {
  return bootSkillsSetup(
    start,
    KEY,
    (emulator) =>
      `gateway:   # first, on purpose\n  admins: ["feishu:${ADMIN}"]\n  allowed_users: ["feishu:${USER}", "mock:reader"]\n  health: {enabled: false}\n  feishu: {enabled: true, mode: websocket, domain: "${emulator.url}"}\n# skills below\nskills:\n  platform_disabled:\n    telegram:\n      - arxiv   # noisy there\n`,
  );
}

/** The same home with the Feishu replies in Chinese (`gateway.feishu.locale`, as on the feishu domain). */
function bootChinese(): Promise<Running> {
  return bootSkillsSetup(
    start,
    KEY,
    (emulator) =>
      `gateway:\n  admins: ["feishu:${ADMIN}"]\n  health: {enabled: false}\n  feishu: {enabled: true, mode: websocket, domain: "${emulator.url}", locale: zh-CN}\n`,
  );
}

function ask(run: Running, sender: string, text: string): Promise<LarkSend> {
  return run.ask(run.message(text, { senderOpenId: sender }));
}

describe("feishu: skills set up from chat", () => {
  it("an admin disables a skill for feishu with the Confirm button; a reader cannot; /help and loading follow there, it loads elsewhere; the file keeps its bytes", async () => {
    const run = await boot();
    const before = await fs.readFile(run.file, "utf8");
    const refused = await ask(run, USER, "/skills disable weather --platform feishu -y");
    expect(refused.text).toMatch(/for admins only/);
    expect(await fs.readFile(run.file, "utf8")).toBe(before);

    const question = await ask(run, ADMIN, "/skills disable weather --platform feishu");
    expect(question.msgType).toBe("interactive");
    // A card's plain_text shows no markdown: the code span keeps its word, not its backticks.
    expect(question.text).toContain("Disable weather on feishu");
    expect(question.text).not.toContain("`");
    expect(question.buttons.map((button) => button.label)).toEqual(["Confirm", "Cancel"]);
    const confirm = question.buttons[0]?.value;
    const press = async (operatorOpenId: string) => {
      const ack = await run.emulator.pushWsEvent(
        run.emulator.cardActionEvent({ messageId: question.messageId, value: confirm, operatorOpenId }),
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
      await run.gateway.whenIdle();
      return JSON.stringify(ack.data ?? {});
    };
    // The reader's press is judged for the reader: a toast only they see, nothing written.
    expect(await press(USER)).toContain("for admins only");
    expect(await fs.readFile(run.file, "utf8")).toBe(before);

    expect(await press(ADMIN)).toBe("{}");
    const result = [...run.emulator.sends].reverse().find((send) => send.messageId === question.messageId);
    expect(result?.text).toContain("weather disabled on feishu");
    const after = `${before}    feishu: [weather]\n`;
    expect(await fs.readFile(run.file, "utf8")).toBe(after);
    expect(await press(ADMIN)).toContain("already answered");
    expect(await fs.readFile(run.file, "utf8")).toBe(after);

    const help = await ask(run, USER, "/help");
    expect(help.text).not.toContain("/weather");
    expect(help.text).toContain("/arxiv");
    const gone = await ask(run, USER, "/weather");
    expect(gone.text).toMatch(/weather.*disabled for feishu/);
    await run.mock.shouldReply("/skill weather", "Skill loaded: weather", { user: "reader" });
  });

  it("a concurrent save of config.yaml during a chat edit is detected and nothing is overwritten", async () => {
    const run = await boot();
    const theirs = `${await fs.readFile(run.file, "utf8")}# saved by someone else meanwhile\n`;
    saveDuring(() => fs.writeFile(run.file, theirs));
    const reply = await ask(run, ADMIN, "/skills disable weather --platform feishu -y");
    expect(reply.text).toContain("changed while skillgate was editing it");
    expect(await fs.readFile(run.file, "utf8")).toBe(theirs);
    // The skill is still offered: nothing was written.
    const loaded = await ask(run, USER, "/weather");
    expect(loaded.text).toContain("Skill loaded: weather");
  });

  it("a skill declaring a missing command and an unset setting shows both", async () => {
    const run = await boot();
    const card = await ask(run, USER, "/deployer");
    expect(card.text).toContain(`command \`${MISSING_COMMAND}\` is not on PATH`);
    expect(card.text).toContain("setting `deployer.region` is not set (Which region?)");
  });

  it("a secret typed into the card form lands in .env (0600) and nowhere else; the form works once and only for the admin", async () => {
    const run = await boot();
    const card = await ask(run, ADMIN, "/weather");
    expect(card.text).toContain(KEY);
    // "Set KEY" is an ordinary stored action on the skill card: its value is an opaque id.
    const button = card.buttons.find((item) => item.label === `Set ${KEY}`);
    expect(JSON.stringify(button?.value)).not.toContain(KEY);

    // A reader's press is refused with a toast only they see; no form is posted.
    const before = run.emulator.sends.length;
    const refused = await run.emulator.pushWsEvent(
      run.emulator.cardActionEvent({ messageId: card.messageId, label: `Set ${KEY}`, operatorOpenId: USER }),
    );
    expect(JSON.stringify(refused.data)).toContain("for admins only");
    expect(run.emulator.sends.length).toBe(before);

    const opened = await run.emulator.pushWsEvent(
      run.emulator.cardActionEvent({ messageId: card.messageId, label: `Set ${KEY}`, operatorOpenId: ADMIN }),
    );
    expect(JSON.stringify(opened.data)).toContain("only you can use it");
    const form = await run.emulator.waitForSend(
      (send) => run.emulator.sends.indexOf(send) >= before && send.msgType === "interactive",
    );
    expect(form.text).toContain(`Set ${KEY}`);

    const stranger = await run.emulator.submitCardForm({
      messageId: form.messageId,
      operatorOpenId: USER,
      values: { secret_value: "not-the-admin" },
    });
    expect(JSON.stringify(stranger.answer)).toContain("only they can use it");

    const since = run.emulator.sends.length;
    const submitted = await run.emulator.submitCardForm({
      messageId: form.messageId,
      operatorOpenId: ADMIN,
      values: { secret_value: VALUE },
    });
    expect(submitted.code).toBe(200);
    expect((submitted.answer.toast as { type: string }).type).toBe("success");
    const confirmation = await run.emulator.waitForSend(
      (send) => run.emulator.sends.indexOf(send) >= since && send.text.includes("set ✓"),
    );
    expect(confirmation.text).toContain(`\`${KEY}\` set ✓`);
    expect(confirmation.text).toContain("weather: ready.");
    const envFile = path.join(run.home, ".env");
    expect(await fs.readFile(envFile, "utf8")).toBe(`${KEY}=${VALUE}\n`);
    expect((await fs.stat(envFile)).mode & 0o777).toBe(0o600);

    const replay = await run.emulator.submitCardForm({
      messageId: form.messageId,
      operatorOpenId: ADMIN,
      values: { secret_value: "replayed" },
    });
    expect(JSON.stringify(replay.answer)).toContain("already used");
    expect(await fs.readFile(envFile, "utf8")).toBe(`${KEY}=${VALUE}\n`);

    await run.gateway.stop();
    for (const send of run.emulator.sends) expect(send.content).not.toContain(VALUE);
    expect(JSON.stringify(run.emulator.calls)).not.toContain(VALUE);
    expect(run.logText()).not.toContain(VALUE);
    for (const file of await filesUnder(run.home)) {
      if (file === envFile) continue;
      expect(await fs.readFile(file, "utf8"), file).not.toContain(VALUE);
    }
  });

  it("in Chinese: the Set KEY button, the toast, the form and its closing card", async () => {
    const run = await bootChinese();
    const card = await ask(run, ADMIN, "/weather");
    const label = `设置 ${KEY}`;
    expect(card.buttons.map((item) => item.label)).toContain(label);
    const before = run.emulator.sends.length;
    const opened = await run.emulator.pushWsEvent(
      run.emulator.cardActionEvent({ messageId: card.messageId, label, operatorOpenId: ADMIN }),
    );
    expect(JSON.stringify(opened.data)).toContain("只有你能使用");
    const form = await run.emulator.waitForSend(
      (send) => run.emulator.sends.indexOf(send) >= before && send.msgType === "interactive",
    );
    expect(form.text).toContain(label);
    expect(form.text).toContain("此表单只能使用一次");
    const submitted = await run.emulator.submitCardForm({
      messageId: form.messageId,
      operatorOpenId: ADMIN,
      values: { secret_value: VALUE },
    });
    expect((submitted.answer.toast as { type: string }).type).toBe("success");
    expect(JSON.stringify(submitted.answer.card)).toContain("已保存到网关的 .env 文件");
    expect(await fs.readFile(path.join(run.home, ".env"), "utf8")).toBe(`${KEY}=${VALUE}\n`);
  });
});
