/**
 * Buttons end to end on Feishu/Lark: the real gateway and the real Feishu adapter (official Lark SDK)
 * against the loopback emulator. Replies with buttons are interactive cards; a press is the
 * `card.action.trigger` callback over the long connection or the webhook (verified like events),
 * answered at once (a refusal as a toast only the presser sees); results replace the card in place.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { LarkSend } from "../emulators/lark.js";
import { FEISHU_GROUP, FEISHU_IDS } from "../support/harness/feishu.js";
import { type PlatformRun, usePlatform } from "../support/harness/index.js";
import { exists, makeCuratorDue, pdfToolsFile, writeTestSkill } from "../support/platform-home.js";

const ADMIN = FEISHU_IDS.admin;
const USER = FEISHU_IDS.member;
const TOKEN = "vtoken-buttons";
const ENCRYPT_KEY = "encrypt-key-buttons";
const CHAT = FEISHU_GROUP;

type Running = PlatformRun<"feishu">;

const start = usePlatform("feishu", {
  prepare: (home) => writeTestSkill(home, "documents", "pdf-tools"),
  config: {
    gateway: { home_channel: `feishu:${CHAT}` },
    // The summary test ticks right after boot: idle time counts from the gateway's start.
    curator: { min_idle_hours: 0 },
  },
});

/** Boots over the long connection, or over the signed webhook. */
function boot(options: { webhook?: boolean; prepare?: (home: string) => Promise<void> } = {}) {
  const webhook = {
    mode: "webhook",
    verification_token: TOKEN,
    encrypt_key: ENCRYPT_KEY,
    webhook: { port: 0, path: "/feishu/webhook" },
  };
  return start({
    prepare: options.prepare,
    config: { gateway: { feishu: options.webhook ? webhook : {} } },
  });
}

/** A user says `text` in the group (mentioning the bot); resolves with the bot's reply. */
function ask(run: Running, text: string, sender = ADMIN): Promise<LarkSend> {
  return run.ask(run.message(`{bot}${text}`, { chatType: "group", senderOpenId: sender }));
}

function latest(run: Running, messageId: string): LarkSend | undefined {
  return [...run.emulator.sends].reverse().find((send) => send.messageId === messageId);
}

function labels(send: LarkSend | undefined): string[] {
  return (send?.buttons ?? []).map((button) => button.label);
}

const skillFile = (run: Running) => pdfToolsFile(run.home);

describe("feishu buttons over the long connection", () => {
  it("an admin confirms an archive on the card; pressing twice archives once", async () => {
    const run = await boot();
    const question = await ask(run, "/curator archive pdf-tools");
    expect(question.msgType).toBe("interactive");
    expect(question.text).toContain("Archive 'pdf-tools'?");
    expect(labels(question)).toEqual(["Confirm", "Cancel"]);
    const first = await run.press({
      messageId: question.messageId,
      label: "Confirm",
      operatorOpenId: ADMIN,
    });
    // The same button again (a second client still showing the old card): same value, new event.
    const confirm = question.buttons.find((button) => button.label === "Confirm")?.value;
    const second = await run.press({ messageId: question.messageId, value: confirm, operatorOpenId: ADMIN });
    expect(first).toEqual({});
    expect(second).toMatchObject({ toast: { type: "error" } });
    expect(JSON.stringify(second)).toMatch(/already answered/);
    const patches = run.emulator.sends.filter((send) => send.kind === "patch");
    expect(patches).toHaveLength(1);
    expect(latest(run, question.messageId)?.text).toContain("archived 'pdf-tools'");
    expect(labels(latest(run, question.messageId))).toEqual(["Restore pdf-tools"]);
    expect(await exists(skillFile(run))).toBe(false);
    expect(await fs.readdir(path.join(run.home, "skills", ".archive"))).toHaveLength(1);
  });

  it("Cancel changes nothing", async () => {
    const run = await boot();
    const question = await ask(run, "/curator archive pdf-tools");
    expect(
      await run.press({ messageId: question.messageId, label: "Cancel", operatorOpenId: ADMIN }),
    ).toEqual({});
    expect(latest(run, question.messageId)?.text).toBe("Cancelled; nothing was changed.");
    expect(labels(latest(run, question.messageId))).toEqual([]);
    expect(await exists(skillFile(run))).toBe(true);
  });

  it("a read-only user's press gets a private toast and changes nothing", async () => {
    const run = await boot();
    const question = await ask(run, "/curator archive pdf-tools");
    const answer = await run.press({
      messageId: question.messageId,
      label: "Confirm",
      operatorOpenId: USER,
    });
    expect(JSON.stringify(answer)).toMatch(/admins only/);
    expect(run.emulator.sends.filter((send) => send.kind === "patch")).toHaveLength(0);
    expect(await exists(skillFile(run))).toBe(true);
  });

  it("a maintenance summary's Restore button restores the skill into its category", async () => {
    const run = await boot({ prepare: makeCuratorDue });
    expect((await run.gateway.runMaintenanceTick()).posted).toBe(true);
    const summary = await run.emulator.waitForSend((send) => labels(send).includes("Restore old-stale"));
    expect(labels(summary)).toContain("Roll back this run");
    const restored = path.join(run.home, "skills", "notes", "old-stale", "SKILL.md");
    expect(await exists(restored)).toBe(false);
    await run.press({ messageId: summary.messageId, label: "Restore old-stale", operatorOpenId: ADMIN });
    const answer = await run.emulator.waitForSend((send) => send.text.includes("restored 'old-stale'"));
    expect(answer.text).toContain("to skills/notes/old-stale");
    expect(await exists(restored)).toBe(true);
  });

  it("paging through 300 skills updates one card and never sends another message", async () => {
    const run = await boot({
      prepare: async (home) => {
        for (let index = 0; index < 299; index += 1) {
          await writeTestSkill(home, "bulk", `skill-${String(index).padStart(3, "0")}`);
        }
      },
    });
    const list = await ask(run, "/skills", USER);
    expect(list.text).toContain("Page 1 of 15");
    const sentBefore = run.emulator.sends.filter((send) => send.kind !== "patch").length;
    for (let page = 2; page <= 15; page += 1) {
      await run.press({ messageId: list.messageId, label: "Next ›", operatorOpenId: USER });
      expect(latest(run, list.messageId)?.text).toContain(`Page ${page} of 15`);
    }
    expect(labels(latest(run, list.messageId))).toEqual(["‹ Prev"]);
    expect(run.emulator.sends.filter((send) => send.kind !== "patch")).toHaveLength(sentBefore);
    expect(run.emulator.sends.filter((send) => send.kind === "patch")).toHaveLength(14);
  });

  it("/curator status is a card with buttons for the next likely actions", async () => {
    const run = await boot();
    const status = await ask(run, "/curator status");
    expect(status.msgType).toBe("interactive");
    expect(status.text).toMatch(/curator: ENABLED/);
    expect(labels(status)).toEqual(["Dry run", "Pause", "Archived skills"]);
  });
});

describe("feishu buttons over the webhook", () => {
  it("a signed card callback confirms; a forged, a badly signed and an expired one change nothing", async () => {
    const run = await boot({ webhook: true });
    const url = run.adapter.webhookUrl as string;
    const question = await ask(run, "/curator archive pdf-tools");
    expect(labels(question)).toEqual(["Confirm", "Cancel"]);

    const forged = await run.press({
      messageId: question.messageId,
      value: { action_id: "curator archive pdf-tools -y" },
      operatorOpenId: ADMIN,
    });
    expect(JSON.stringify(forged)).toMatch(/not one this gateway showed/);

    const unsigned = run.emulator.cardActionEvent({
      messageId: question.messageId,
      label: "Confirm",
      operatorOpenId: ADMIN,
      token: TOKEN,
    });
    const rejected = await run.emulator.deliverWebhook(url, unsigned, {
      encryptKey: ENCRYPT_KEY,
      badSignature: true,
    });
    expect(rejected.status).toBe(401);
    const wrongToken = run.emulator.cardActionEvent({
      messageId: question.messageId,
      label: "Confirm",
      operatorOpenId: ADMIN,
      token: "not-the-token",
    });
    expect((await run.emulator.deliverWebhook(url, wrongToken, { encryptKey: ENCRYPT_KEY })).status).toBe(
      401,
    );
    await run.gateway.whenIdle();
    expect(await exists(skillFile(run))).toBe(true);

    const accepted = await run.press({
      messageId: question.messageId,
      label: "Confirm",
      operatorOpenId: ADMIN,
    });
    expect(accepted).toEqual({});
    expect(await exists(skillFile(run))).toBe(false);
    expect(latest(run, question.messageId)?.text).toContain("archived 'pdf-tools'");
  });

  it("an expired button is refused", async () => {
    const run = await boot({ webhook: true });
    const question = await ask(run, "/curator archive pdf-tools");
    run.advance(25 * 3_600_000);
    const expired = await run.press({
      messageId: question.messageId,
      label: "Confirm",
      operatorOpenId: ADMIN,
    });
    expect(JSON.stringify(expired)).toMatch(/expired/);
    expect(await exists(skillFile(run))).toBe(true);
  });
});
