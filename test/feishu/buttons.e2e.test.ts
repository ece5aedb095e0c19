/**
 * Buttons end to end on Feishu/Lark: the real gateway and the real Feishu adapter (official Lark SDK)
 * against the loopback emulator. Replies with buttons are interactive cards; a press is the
 * `card.action.trigger` callback over the long connection or the webhook (verified like events),
 * answered at once (a refusal as a toast only the presser sees); results replace the card in place.
 */
import { promises as fs } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createFeishuAdapter, type FeishuAdapter } from "../../adapters/feishu/index.js";
import { parseConfig } from "../../src/config/config.js";
import { createLogger } from "../../src/core/logger.js";
import { createGateway, type Gateway } from "../../src/gateway/gateway.js";
import { LarkEmulator, type LarkSend } from "../emulators/lark.js";
import { makeCuratorDue, writeTestSkill } from "../support/platform-home.js";

const ADMIN = "ou_admin_0001";
const USER = "ou_bob_0002";
const TOKEN = "vtoken-buttons";
const ENCRYPT_KEY = "encrypt-key-buttons";
const CHAT = "oc_ops";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Running {
  home: string;
  emulator: LarkEmulator;
  gateway: Gateway;
  adapter: FeishuAdapter;
  advance(ms: number): void;
}

async function boot(
  options: { webhook?: boolean; prepare?: (home: string) => Promise<void> } = {},
): Promise<Running> {
  const home = await mkdtemp(path.join(os.tmpdir(), "skillgate-feishu-buttons-"));
  cleanups.push(() => rm(home, { recursive: true, force: true }));
  await writeTestSkill(home, "documents", "pdf-tools");
  await options.prepare?.(home);
  const emulator = new LarkEmulator();
  await emulator.listen();
  cleanups.push(() => emulator.close());
  const mode = options.webhook
    ? {
        mode: "webhook",
        verification_token: TOKEN,
        encrypt_key: ENCRYPT_KEY,
        webhook: { port: 0, path: "/feishu/webhook" },
      }
    : { mode: "websocket" };
  const config = parseConfig({
    gateway: {
      admins: [`feishu:${ADMIN}`],
      allowed_users: [`feishu:${USER}`],
      home_channel: `feishu:${CHAT}`,
      health: { enabled: false },
      feishu: { enabled: true, domain: emulator.url, ...mode },
    },
    // The summary test ticks right after boot: idle time counts from the gateway's start.
    curator: { min_idle_hours: 0 },
  });
  const logger = createLogger({ level: "silent" });
  const secrets: Record<string, string> = {
    FEISHU_APP_ID: emulator.appId,
    FEISHU_APP_SECRET: emulator.appSecret,
  };
  const adapter = createFeishuAdapter({ config, home, secret: (name) => secrets[name], logger });
  let offset = 0;
  const gateway = createGateway({
    home,
    config,
    adapters: [adapter],
    logger,
    now: () => Date.now() + offset,
  });
  await gateway.start();
  cleanups.push(() => gateway.stop());
  return { home, emulator, gateway, adapter, advance: (ms) => (offset += ms) };
}

/** A user says `text` in the group (mentioning the bot); resolves with the bot's reply. */
async function ask(run: Running, text: string, sender = ADMIN): Promise<LarkSend> {
  const event = run.emulator.messageEvent({
    chatType: "group",
    chatId: CHAT,
    senderOpenId: sender,
    text: `{bot}${text}`,
    mentionBot: true,
    token: TOKEN,
  });
  const id = (event.event as { message: { message_id: string } }).message.message_id;
  if (run.adapter.webhookUrl) {
    await run.emulator.deliverWebhook(run.adapter.webhookUrl, event, { encryptKey: ENCRYPT_KEY });
  } else {
    await run.emulator.pushWsEvent(event);
  }
  return run.emulator.waitForSend((send) => send.target === id && send.kind === "reply");
}

/**
 * Presses a card button over the connection in use; resolves with the callback's answer (what the
 * presser sees at once) once the gateway is idle again.
 */
async function press(
  run: Running,
  input: Parameters<LarkEmulator["cardActionEvent"]>[0],
): Promise<Record<string, unknown>> {
  const event = run.emulator.cardActionEvent({ token: TOKEN, ...input });
  let answer: unknown;
  if (run.adapter.webhookUrl) {
    const response = await run.emulator.deliverWebhook(run.adapter.webhookUrl, event, {
      encryptKey: ENCRYPT_KEY,
    });
    expect(response.status).toBe(200);
    answer = response.body ? JSON.parse(response.body) : {};
  } else {
    const ack = await run.emulator.pushWsEvent(event);
    expect(ack.code).toBe(200);
    answer = ack.data ?? {};
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
  await run.gateway.whenIdle();
  return answer as Record<string, unknown>;
}

function latest(run: Running, messageId: string): LarkSend | undefined {
  return [...run.emulator.sends].reverse().find((send) => send.messageId === messageId);
}

function labels(send: LarkSend | undefined): string[] {
  return (send?.buttons ?? []).map((button) => button.label);
}

const skillFile = (run: Running) => path.join(run.home, "skills", "documents", "pdf-tools", "SKILL.md");
const exists = (file: string) =>
  fs.access(file).then(
    () => true,
    () => false,
  );

describe("feishu buttons over the long connection", () => {
  it("an admin confirms an archive on the card; pressing twice archives once", async () => {
    const run = await boot();
    const question = await ask(run, "/curator archive pdf-tools");
    expect(question.msgType).toBe("interactive");
    expect(question.text).toContain("Archive 'pdf-tools'?");
    expect(labels(question)).toEqual(["Confirm", "Cancel"]);
    const first = await press(run, {
      messageId: question.messageId,
      label: "Confirm",
      operatorOpenId: ADMIN,
    });
    // The same button again (a second client still showing the old card): same value, new event.
    const confirm = question.buttons.find((button) => button.label === "Confirm")?.value;
    const second = await press(run, { messageId: question.messageId, value: confirm, operatorOpenId: ADMIN });
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
      await press(run, { messageId: question.messageId, label: "Cancel", operatorOpenId: ADMIN }),
    ).toEqual({});
    expect(latest(run, question.messageId)?.text).toBe("Cancelled; nothing was changed.");
    expect(labels(latest(run, question.messageId))).toEqual([]);
    expect(await exists(skillFile(run))).toBe(true);
  });

  it("a read-only user's press gets a private toast and changes nothing", async () => {
    const run = await boot();
    const question = await ask(run, "/curator archive pdf-tools");
    const answer = await press(run, {
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
    await press(run, { messageId: summary.messageId, label: "Restore old-stale", operatorOpenId: ADMIN });
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
      await press(run, { messageId: list.messageId, label: "Next ›", operatorOpenId: USER });
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

    const forged = await press(run, {
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

    const accepted = await press(run, {
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
    const expired = await press(run, {
      messageId: question.messageId,
      label: "Confirm",
      operatorOpenId: ADMIN,
    });
    expect(JSON.stringify(expired)).toMatch(/expired/);
    expect(await exists(skillFile(run))).toBe(true);
  });
});
