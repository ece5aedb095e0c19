import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  contentToText,
  envelopeFromDispatcher,
  type FeishuEventEnvelope,
  normalizeEvent,
  stripBotMentions,
} from "../../adapters/feishu/normalize.js";

const BOT = "ou_bot_fixture_0001";

function withText(envelope: FeishuEventEnvelope, text: string): FeishuEventEnvelope {
  envelope.event!.message!.content = JSON.stringify({ text });
  return envelope;
}

function fixture(name: string): FeishuEventEnvelope {
  return JSON.parse(
    readFileSync(new URL(`../fixtures/feishu/${name}.json`, import.meta.url), "utf8"),
  ) as FeishuEventEnvelope;
}

describe("feishu normalizeEvent", () => {
  it("reads a p2p text command with event id, sender open_id and a dm chat", () => {
    const message = normalizeEvent(fixture("p2p-text"), BOT);
    expect(message).not.toBeNull();
    expect(message?.eventId).toBe("5e3702a84e847582be8db7fb73283c02");
    expect(message?.platform).toBe("feishu");
    expect(message?.chat).toEqual({ kind: "dm", id: "oc_5ce6d572455d361153b7xx51da133945" });
    expect(message?.sender).toEqual({ id: "ou_84aad35d084aa403a838cf73ee18467", isBot: false });
    expect(message?.text).toBe("/curator status");
    expect(message?.command).toEqual({ name: "curator", args: ["status"], rawArgs: "status" });
    expect(message?.receivedAt).toBe(1726912543023);
  });

  it("strips the leading bot mention in a group, keeps other mentions as names and quoted args", () => {
    const message = normalizeEvent(fixture("group-mention"), BOT);
    expect(message?.chat.kind).toBe("group");
    expect(message?.text).toBe('/curator pin "pdf tools" @Bob');
    expect(message?.command?.name).toBe("curator");
    expect(message?.command?.args).toEqual(["pin", "pdf tools", "@Bob"]);
  });

  it("treats @Bot/cmd without a space as a command, in a thread", () => {
    const message = normalizeEvent(fixture("group-mention-nospace"), BOT);
    expect(message?.text).toBe("/curator status");
    expect(message?.command).toEqual({ name: "curator", args: ["status"], rawArgs: "status" });
    expect(message?.chat.threadId).toBe("omt_1a2b3c4d5e6f7089");
    expect(message?.replyTo).toBe("om_1f2e3d4c5b6a79808f7e6d5c4b3a2910");
  });

  it("reads post content as plain text and finds the command in it", () => {
    const message = normalizeEvent(fixture("post-content"), BOT);
    expect(message?.text).toBe("/skills view pdf-tools\nsee the docs");
    expect(message?.command?.name).toBe("skills");
    expect(message?.command?.args).toEqual(["view", "pdf-tools", "see", "the", "docs"]);
  });

  it("ignores a group message that does not mention the bot (even if it mentions someone else)", () => {
    expect(normalizeEvent(fixture("group-no-mention"), BOT)).toBeNull();
  });

  it("ignores a group message when the bot's open_id is unknown (fails closed)", () => {
    expect(normalizeEvent(fixture("group-mention"), "")).toBeNull();
  });

  it("ignores messages from apps and from the bot itself, other event types and malformed events", () => {
    const fromApp = fixture("p2p-text");
    fromApp.event!.sender!.sender_type = "app";
    expect(normalizeEvent(fromApp, BOT)).toBeNull();
    const self = fixture("p2p-text");
    self.event!.sender!.sender_id!.open_id = BOT;
    expect(normalizeEvent(self, BOT)).toBeNull();
    const other = fixture("p2p-text");
    other.header!.event_type = "im.message.message_read_v1";
    expect(normalizeEvent(other, BOT)).toBeNull();
    const broken = fixture("p2p-text");
    broken.event!.message!.content = "{not json";
    expect(normalizeEvent(broken, BOT)).toBeNull();
    expect(normalizeEvent({}, BOT)).toBeNull();
  });

  it("drops a message that is only a mention of the bot", () => {
    const onlyMention = fixture("group-mention");
    onlyMention.event!.message!.content = JSON.stringify({ text: "@_user_1 " });
    expect(normalizeEvent(onlyMention, BOT)).toBeNull();
  });

  it("answers a group message whose bot mention is at the end, without the mention", () => {
    const trailing = fixture("group-mention");
    trailing.event!.message!.content = JSON.stringify({ text: "what is stale? @_user_1" });
    const message = normalizeEvent(trailing, BOT);
    expect(message?.text).toBe("what is stale?");
    expect(message?.command).toBeUndefined();
  });

  it("rebuilds the envelope from the SDK's flattened handler data", () => {
    const envelope = fixture("group-mention");
    const flattened = { ...envelope.header, schema: "2.0", ...envelope.event } as Record<string, unknown>;
    const rebuilt = envelopeFromDispatcher(flattened);
    expect(normalizeEvent(rebuilt, BOT)?.text).toBe(normalizeEvent(envelope, BOT)?.text);
    expect(rebuilt.header?.event_id).toBe("f7984f25108f8137722bb63cee927e66");
  });
});

describe("feishu text helpers", () => {
  it("does not let a mention key eat a longer key", () => {
    expect(stripBotMentions("@_user_10 hi", new Set(["@_user_1"]))).toBe("@_user_10 hi");
    expect(stripBotMentions("@_user_1 @_user_1, /help", new Set(["@_user_1"]))).toBe("/help");
  });

  it("reads locale-nested post content and falls back to placeholders", () => {
    const post = JSON.stringify({
      en_us: {
        title: "Hi",
        content: [[{ tag: "text", text: "line" }], [{ tag: "code_block", language: "GO", text: "x := 1" }]],
      },
    });
    expect(contentToText("post", post)).toBe("Hi\nline\n\nx := 1\n");
    expect(contentToText("image", JSON.stringify({ image_key: "img_x" }))).toBe("[image]");
  });

  it("parses commands with the shared chat parser (paths are not commands, smart dashes folded)", () => {
    const command = (text: string) => normalizeEvent(withText(fixture("p2p-text"), text), BOT)?.command;
    expect(command("/Curator PIN x")).toEqual({ name: "curator", args: ["PIN", "x"], rawArgs: "PIN x" });
    expect(command("/etc/hosts is broken")).toBeUndefined();
    expect(command("hello")).toBeUndefined();
    expect(command("/curator prune \u2014dry-run")?.args).toEqual(["prune", "--dry-run"]);
  });
});
