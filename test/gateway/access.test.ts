import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/config.js";
import { AccessGate, roleOf, STRANGER_NOTICE_INTERVAL_MS } from "../../src/core/access.js";
import type { InboundMessage } from "../../src/core/message.js";
import { replyToPlainText } from "../../src/core/reply.js";

const config = parseConfig({
  gateway: {
    admins: ["telegram:1"],
    allowed_users: ["telegram:2", "discord:2"],
    allowed_chats: ["feishu:oc_team"],
  },
});

function message(
  sender: string,
  kind: "dm" | "group" = "dm",
  chat = sender,
  platform: InboundMessage["platform"] = "telegram",
  isBot = false,
): InboundMessage {
  return {
    eventId: String(Math.random()),
    platform,
    chat: { kind, id: chat },
    sender: { id: sender, isBot },
    text: "hi",
    receivedAt: 0,
  };
}

describe("roleOf", () => {
  it("reads platform:id lists, per platform", async () => {
    expect(roleOf(config, "telegram", "1")).toBe("admin");
    expect(roleOf(config, "telegram", "2")).toBe("user");
    expect(roleOf(config, "discord", "1")).toBe("stranger");
    expect(roleOf(config, "feishu", "ou_x", "oc_team")).toBe("user");
    expect(roleOf(config, "feishu", "ou_x", "oc_other")).toBe("stranger");
  });
  it("makes the terminal chat the owner", async () => {
    expect(roleOf(parseConfig({}), "console", "local")).toBe("admin");
  });
});

describe("AccessGate", () => {
  it("admits admins and allowed users with their role", async () => {
    const gate = new AccessGate(config);
    expect(await gate.admit(message("1"))).toEqual({ admit: true, role: "admin" });
    expect(await gate.admit(message("2", "group", "-5"))).toEqual({ admit: true, role: "user" });
  });
  it("tells a stranger in a DM their id once, then stays quiet until the interval passes", async () => {
    let now = 1_000;
    const gate = new AccessGate(config, () => now);
    const first = await gate.admit(message("42"));
    expect(first.admit).toBe(false);
    expect(first.admit === false && first.notice && replyToPlainText(first.notice)).toContain("telegram:42");
    expect(await gate.admit(message("42"))).toEqual({ admit: false, reason: "stranger-dm-quiet" });
    now += STRANGER_NOTICE_INTERVAL_MS;
    expect(await gate.admit(message("42"))).toMatchObject({ admit: false, reason: "stranger-dm" });
  });
  it("keeps groups silent for strangers and ignores bots", async () => {
    const gate = new AccessGate(config);
    expect(await gate.admit(message("42", "group", "-9"))).toEqual({
      admit: false,
      reason: "stranger-group",
    });
    expect(await gate.admit(message("1", "dm", "1", "telegram", true))).toEqual({
      admit: false,
      reason: "bot",
    });
  });
});
