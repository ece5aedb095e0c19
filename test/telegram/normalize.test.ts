import { readFileSync } from "node:fs";
import path from "node:path";
import type { Update } from "grammy/types";
import { describe, expect, it } from "vitest";
import { normalizeUpdate } from "../../adapters/telegram/normalize.js";

const BOT = "SkillgateBot";
const fixture = (name: string): Update =>
  JSON.parse(
    readFileSync(path.join(import.meta.dirname, "../fixtures/telegram", `${name}.json`), "utf8"),
  ) as Update;

describe("normalizeUpdate", () => {
  it("turns a private /curator status into a DM command with the update id as event id", () => {
    const message = normalizeUpdate(fixture("private-command"), BOT);
    expect(message).toMatchObject({
      eventId: "815403001",
      platform: "telegram",
      chat: { kind: "dm", id: "123456789" },
      sender: { id: "123456789", name: "ada_l", isBot: false },
      command: { name: "curator", args: ["status"], rawArgs: "status" },
      receivedAt: 1767225600 * 1000,
    });
    expect(message?.chat.threadId).toBeUndefined();
  });

  it("keeps the arguments of /cmd@bot in a group, quotes grouped and phone dashes restored", () => {
    const message = normalizeUpdate(fixture("group-command-addressed"), BOT);
    expect(message?.chat).toEqual({ kind: "group", id: "-1001234567890" });
    expect(message?.command).toEqual({
      name: "curator",
      args: ["pin", "pdf tools", "--dry-run"],
      rawArgs: 'pin "pdf tools" —dry-run',
    });
  });

  it("matches the bot username case-insensitively", () => {
    expect(normalizeUpdate(fixture("group-command-status"), BOT)?.command).toEqual({
      name: "curator",
      args: ["status"],
      rawArgs: "status",
    });
  });

  it("ignores a command addressed to another bot", () => {
    expect(normalizeUpdate(fixture("group-command-other-bot"), BOT)).toBeNull();
  });

  it("ignores a message that opens by mentioning another bot", () => {
    expect(normalizeUpdate(fixture("mention-other-bot"), BOT)).toBeNull();
  });

  it("puts a forum topic message in a thread so the reply lands in the topic", () => {
    const message = normalizeUpdate(fixture("forum-topic-command"), BOT);
    expect(message?.chat).toEqual({ kind: "thread", id: "-1009876543210", threadId: "3001" });
    expect(message?.command).toEqual({
      name: "skills",
      args: ["list", "--category", "devops"],
      rawArgs: "list --category devops",
    });
    // The topic's creation message is the thread anchor, not something the user replied to.
    expect(message?.replyTo).toBeUndefined();
  });

  it("never turns an edited message into anything", () => {
    expect(normalizeUpdate(fixture("edited-command"), BOT)).toBeNull();
  });

  it("passes plain text through without a command", () => {
    const message = normalizeUpdate(fixture("plain-text"), BOT);
    expect(message?.text).toBe("which skills did the curator archive last week?");
    expect(message?.command).toBeUndefined();
  });

  it("treats /etc/hosts as text even when Telegram marked /etc as a command", () => {
    const message = normalizeUpdate(fixture("etc-hosts"), BOT);
    expect(message?.command).toBeUndefined();
    expect(message?.text).toBe("/etc/hosts is broken again");
  });

  it("accepts @bot /command and strips the mention from the text", () => {
    const message = normalizeUpdate(fixture("mention-then-command"), BOT);
    expect(message?.text).toBe("/curator status");
    expect(message?.command).toEqual({ name: "curator", args: ["status"], rawArgs: "status" });
  });

  it("reads a hyphenated skill name past Telegram's shorter entity", () => {
    const message = normalizeUpdate(fixture("hyphen-skill"), BOT);
    expect(message?.command).toEqual({
      name: "pdf-tools",
      args: ["extract", "the", "tables", "from", "report.pdf"],
      rawArgs: "extract the tables from report.pdf",
    });
  });

  it("does not route a plain reply in a non-forum group to a thread", () => {
    const message = normalizeUpdate(fixture("group-plain-reply"), BOT);
    expect(message?.chat).toEqual({ kind: "group", id: "-1001234567890" });
    expect(message?.replyTo).toBe("90");
  });

  it("ignores channel posts", () => {
    expect(normalizeUpdate(fixture("channel-post"), BOT)).toBeNull();
  });

  it("needs the bot_command entity: a slash without one is plain text", () => {
    const update = fixture("private-command");
    delete update.message?.entities;
    const message = normalizeUpdate(update, BOT);
    expect(message?.command).toBeUndefined();
    expect(message?.text).toBe("/curator status");
  });
});
