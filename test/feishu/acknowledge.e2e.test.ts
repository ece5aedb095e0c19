/**
 * Slow work in chat, end to end on Feishu/Lark: the real gateway and the real Feishu adapter (official
 * Lark SDK) against the loopback emulator. Work still running after the threshold gets a "running…"
 * card at once (only cards can be updated), and that card is updated into the result in place.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createFeishuAdapter } from "../../adapters/feishu/index.js";
import { registry } from "../../commands/index.js";
import { defineCommand } from "../../commands/types.js";
import { parseConfig } from "../../src/config/config.js";
import { createLogger } from "../../src/core/logger.js";
import { textReply } from "../../src/core/reply.js";
import { createGateway } from "../../src/gateway/gateway.js";
import { LarkEmulator } from "../emulators/lark.js";
import { writeTestSkill } from "../support/platform-home.js";

const ADMIN = "ou_admin_0001";
const CHAT = "oc_ops";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("Feishu: slow work is acknowledged", () => {
  it("replies with a 'running…' card, then updates that card into the result", async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), "skillgate-feishu-ack-"));
    cleanups.push(() => rm(home, { recursive: true, force: true }));
    await writeTestSkill(home, "documents", "pdf-tools");
    const emulator = new LarkEmulator();
    await emulator.listen();
    cleanups.push(() => emulator.close());
    const config = parseConfig({
      gateway: {
        admins: [`feishu:${ADMIN}`],
        health: { enabled: false },
        feishu: { enabled: true, domain: emulator.url, mode: "websocket" },
      },
    });
    const logger = createLogger({ level: "silent" });
    const secrets: Record<string, string> = {
      FEISHU_APP_ID: emulator.appId,
      FEISHU_APP_SECRET: emulator.appSecret,
    };
    const adapter = createFeishuAdapter({ config, home, secret: (name) => secrets[name], logger });
    let release: (text: string) => void = () => undefined;
    const gate = new Promise<string>((resolve) => {
      release = resolve;
    });
    const crunch = defineCommand({
      path: ["crunch"],
      summary: "long work (test)",
      mutating: false,
      run: async () => textReply(await gate),
    });
    const gateway = createGateway({
      home,
      config,
      adapters: [adapter],
      logger,
      registry: [...registry, crunch],
      acknowledgeAfterMs: 150,
    });
    await gateway.start();
    cleanups.push(() => gateway.stop());
    const event = emulator.messageEvent({
      chatType: "group",
      chatId: CHAT,
      senderOpenId: ADMIN,
      text: "{bot}/crunch",
      mentionBot: true,
    });
    const asked = (event.event as { message: { message_id: string } }).message.message_id;
    await emulator.pushWsEvent(event);
    const notice = await emulator.waitForSend((send) => send.target === asked, 8000);
    expect(notice.kind).toBe("reply");
    expect(notice.msgType).toBe("interactive");
    expect(notice.text).toMatch(/Running.*crunch.*result/);
    release("crunched 10,000 skills");
    const updated = await emulator.waitForSend(
      (send) => send.kind === "patch" && send.target === notice.messageId,
      8000,
    );
    expect(updated.text).toContain("crunched 10,000 skills");
    await gateway.whenIdle();
    // Nothing else was posted: the one card carries the result.
    expect(emulator.sends.filter((send) => send.kind === "create" || send.kind === "reply")).toHaveLength(1);
  });
});
