/**
 * Slow work in chat, end to end on Feishu/Lark: the real gateway and the real Feishu adapter (official
 * Lark SDK) against the loopback emulator. Work still running after the threshold gets a "running…"
 * card at once (only cards can be updated), and that card is updated into the result in place.
 */
import { describe, expect, it } from "vitest";
import { registry } from "../../commands/index.js";
import { gatedCommand } from "../support/gated-command.js";
import { FEISHU_IDS } from "../support/harness/feishu.js";
import { usePlatform } from "../support/harness/index.js";
import { writeTestSkill } from "../support/platform-home.js";

const ADMIN = FEISHU_IDS.admin;
const CHAT = "oc_ops";

const boot = usePlatform("feishu", { prepare: (home) => writeTestSkill(home, "documents", "pdf-tools") });

describe("Feishu: slow work is acknowledged", () => {
  it("replies with a 'running…' card, then updates that card into the result", async () => {
    const crunch = gatedCommand();
    const { emulator, gateway } = await boot({
      gateway: { registry: [...registry, crunch.spec], acknowledgeAfterMs: 150 },
    });
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
    await crunch.release("crunched 10,000 skills");
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
