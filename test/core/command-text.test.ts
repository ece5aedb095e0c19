import { readFileSync } from "node:fs";
import path from "node:path";
import type { Update } from "grammy/types";
import { describe, expect, it } from "vitest";
import { type DiscordMessageJson, normalizeMessage } from "../../adapters/discord/normalize.js";
import { normalizeEvent } from "../../adapters/feishu/normalize.js";
import { normalizeUpdate } from "../../adapters/telegram/normalize.js";
import { matchChatCommand, parsedCommand, quoteArg, splitArgs } from "../../src/core/command-text.js";
import type { ParsedCommand } from "../../src/core/message.js";

const fixtures = path.join(import.meta.dirname, "../fixtures");
const readJson = (file: string): unknown => JSON.parse(readFileSync(path.join(fixtures, file), "utf8"));

/** The same chat text through each platform's own pure normalize (the terminal chat and mock use matchChatCommand). */
const surfaces: Record<string, (text: string) => ParsedCommand | undefined> = {
  telegram: (text) => {
    const update = readJson("telegram/private-command.json") as Update;
    const message = update.message as NonNullable<Update["message"]>;
    const length = /^\S+/.exec(text)?.[0].length ?? 0;
    message.text = text;
    message.entities = [{ offset: 0, length, type: "bot_command" }];
    return normalizeUpdate(update, "SkillgateBot")?.command;
  },
  feishu: (text) => {
    const envelope = readJson("feishu/p2p-text.json") as { event: { message: { content: string } } };
    envelope.event.message.content = JSON.stringify({ text });
    return normalizeEvent(envelope as Parameters<typeof normalizeEvent>[0], "ou_bot")?.command;
  },
  discord: (text) => {
    const message = readJson("discord/message-dm-command.json") as DiscordMessageJson;
    message.content = text;
    return normalizeMessage(message, "900000000000000001")?.command;
  },
  terminal: (text) => matchChatCommand(text) ?? undefined,
};

const cases: [string, string[]][] = [
  ["/curator pin don't", ["pin", "don't"]],
  ["/curator pin don\u2019t", ["pin", "don\u2019t"]],
  ["/curator pin 'pdf tools'", ["pin", "pdf tools"]],
  ['/curator pin "pdf tools" \u2014dry-run', ["pin", "pdf tools", "--dry-run"]],
  ["/curator backup --reason \u201cbefore the trip\u201d", ["backup", "--reason", "before the trip"]],
  ["/curator backup --reason \u2018it's late\u2019", ["backup", "--reason", "it's late"]],
  ["/curator backup --reason \u201evor der Reise\u201c", ["backup", "--reason", "vor der Reise"]],
  ['/skill "pdf tools', ["pdf tools"]],
  ["/skills list \u2013y a\u2014b", ["list", "-y", "a\u2014b"]],
  ["/skill a\\ b what's up", ["a b", "what's", "up"]],
];

describe("command text is split once, the same on every surface", () => {
  for (const [text, args] of cases) {
    it(`${text} → ${JSON.stringify(args)}`, () => {
      for (const [surface, parse] of Object.entries(surfaces)) {
        expect({ surface, args: parse(text)?.args }).toEqual({ surface, args });
      }
    });
  }

  it("keeps the raw argument text next to the split words", () => {
    expect(parsedCommand("Curator", "  pin don't  ")).toEqual({
      name: "curator",
      args: ["pin", "don't"],
      rawArgs: "pin don't",
    });
  });

  it("gives back what quoteArg quoted, apostrophes included", () => {
    for (const word of ["don't", "a b", "it's 'x'", "", 'say "hi"']) {
      expect(splitArgs(quoteArg(word))).toEqual([word]);
    }
  });

  it("still joins quoted parts glued to a word, as a shell does", () => {
    expect(splitArgs(`x "" a"b c"d`)).toEqual(["x", "", "ab cd"]);
  });
});

describe("InboundMessage carries the platform's message id", () => {
  it("from Telegram, Feishu and Discord messages", () => {
    expect(
      normalizeUpdate(readJson("telegram/private-command.json") as Update, "SkillgateBot")?.messageId,
    ).toBe("1201");
    const envelope = readJson("feishu/p2p-text.json") as Parameters<typeof normalizeEvent>[0];
    expect(normalizeEvent(envelope, "ou_bot")?.messageId).toBe("om_5ce6d572455d361153b7cb51da133945");
    const message = readJson("discord/message-dm-command.json") as DiscordMessageJson;
    expect(normalizeMessage(message, "900000000000000001")?.messageId).toBe("1320000000000000001");
  });
});
