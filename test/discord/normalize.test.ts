import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { buildInteractionLayout } from "../../adapters/discord/commands.js";
import {
  type DiscordInteractionJson,
  type DiscordMessageJson,
  normalizeAutocomplete,
  normalizeInteraction,
  normalizeMessage,
  snowflakeTime,
} from "../../adapters/discord/normalize.js";
import { sampleCatalog } from "./catalog.js";

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "discord");
const BOT = "900000000000000001";
const layout = buildInteractionLayout(sampleCatalog);

function interaction(name: string): DiscordInteractionJson {
  return JSON.parse(readFileSync(path.join(fixtures, `interaction-${name}.json`), "utf8"));
}
function message(name: string): DiscordMessageJson {
  return JSON.parse(readFileSync(path.join(fixtures, `message-${name}.json`), "utf8"));
}

describe("normalizeInteraction", () => {
  it("turns /curator status in a guild into a group command with the interaction id as event id", () => {
    const result = normalizeInteraction(interaction("curator-status-guild"), layout);
    expect(result).toMatchObject({
      eventId: "1310000000000000001",
      platform: "discord",
      chat: { kind: "group", id: "920000000000000001" },
      sender: { id: "222333444555666777", name: "Alice", isBot: false },
      text: "/curator status",
      command: { name: "curator", args: ["status"], rawArgs: "status" },
    });
    expect(result?.receivedAt).toBe(snowflakeTime("1310000000000000001"));
  });

  it("maps a positional option to an argument: /curator pin skill:pdf-tools", () => {
    expect(normalizeInteraction(interaction("curator-pin-guild"), layout)?.command).toEqual({
      name: "curator",
      args: ["pin", "pdf-tools"],
      rawArgs: "pin pdf-tools",
    });
  });

  it("turns true booleans into flags and drops false ones, in a DM", () => {
    const result = normalizeInteraction(interaction("curator-run-dm"), layout);
    expect(result?.chat).toEqual({ kind: "dm", id: "930000000000000005" });
    expect(result?.command?.args).toEqual(["run", "--dry-run"]);
    expect(result?.text).toBe("/curator run --dry-run");
  });

  it("turns integer options into --name value", () => {
    expect(normalizeInteraction(interaction("curator-prune"), layout)?.command?.args).toEqual([
      "prune",
      "--days",
      "30",
      "--dry-run",
    ]);
  });

  it("keeps a string flag's value whole and quotes it in the raw text", () => {
    const result = normalizeInteraction(interaction("curator-backup-reason"), layout);
    expect(result?.command?.args).toEqual(["backup", "--reason", "before the big cleanup"]);
    expect(result?.command?.rawArgs).toBe("backup --reason 'before the big cleanup'");
  });

  it("orders positionals by the layout, not by arrival", () => {
    expect(normalizeInteraction(interaction("skills-view"), layout)?.command?.args).toEqual([
      "view",
      "pdf-tools",
      "references/api.md",
    ]);
  });

  it("splits a variadic positional shell-style", () => {
    expect(normalizeInteraction(interaction("curator-adopt-many"), layout)?.command?.args).toEqual([
      "adopt",
      "alpha",
      "beta",
      "gamma delta",
    ]);
  });

  it("maps /skill name:<x> file:<y> to the skill command", () => {
    expect(normalizeInteraction(interaction("skill-load"), layout)?.command).toEqual({
      name: "skill",
      args: ["pdf-tools", "references/api.md"],
      rawArgs: "pdf-tools references/api.md",
    });
  });

  it("puts -- before a positional that looks like an option", () => {
    const raw = interaction("curator-pin-guild");
    const options = raw.data?.options?.[0]?.options;
    if (options?.[0]) options[0].value = "--force";
    expect(normalizeInteraction(raw, layout)?.command?.args).toEqual(["pin", "--", "--force"]);
  });

  it("without a layout treats strings as positional and other kinds as flags", () => {
    expect(normalizeInteraction(interaction("curator-pin-guild"))?.command?.args).toEqual([
      "pin",
      "pdf-tools",
    ]);
    expect(normalizeInteraction(interaction("curator-prune"))?.command?.args).toEqual([
      "prune",
      "--days",
      "30",
      "--dry-run",
    ]);
  });

  it("ignores autocomplete and non-command interactions", () => {
    expect(normalizeInteraction(interaction("autocomplete-skill"), layout)).toBeNull();
    expect(normalizeInteraction({ ...interaction("curator-status-guild"), type: 3 }, layout)).toBeNull();
  });
});

describe("normalizeAutocomplete", () => {
  it("reads the focused option and the sender", () => {
    expect(normalizeAutocomplete(interaction("autocomplete-skill"))).toEqual({
      senderId: "222333444555666777",
      path: ["skill"],
      option: "name",
      prefix: "pd",
    });
  });

  it("returns null for a command interaction", () => {
    expect(normalizeAutocomplete(interaction("curator-status-guild"))).toBeNull();
  });
});

describe("normalizeMessage", () => {
  it("takes a DM command as is, with the message id as event id", () => {
    const result = normalizeMessage(message("dm-command"), BOT);
    expect(result).toMatchObject({
      eventId: "1320000000000000001",
      chat: { kind: "dm", id: "930000000000000005" },
      text: "/curator status",
      command: { name: "curator", args: ["status"] },
      receivedAt: Date.parse("2025-06-01T12:00:00.000Z"),
    });
  });

  it("takes plain DM text without a command", () => {
    const result = normalizeMessage(message("dm-text"), BOT);
    expect(result?.text).toBe("hello there");
    expect(result?.command).toBeUndefined();
  });

  it("does not read a path as a command", () => {
    const result = normalizeMessage(message("dm-path"), BOT);
    expect(result?.text).toBe("/etc/hosts is broken");
    expect(result?.command).toBeUndefined();
  });

  it("strips the bot mention in a guild: <@id> /curator pin pdf-tools", () => {
    const result = normalizeMessage(message("guild-mention-command"), BOT);
    expect(result?.chat).toEqual({ kind: "group", id: "920000000000000001" });
    expect(result?.text).toBe("/curator pin pdf-tools");
    expect(result?.command).toEqual({
      name: "curator",
      args: ["pin", "pdf-tools"],
      rawArgs: "pin pdf-tools",
    });
  });

  it("strips the nickname form <@!id> and keeps option arguments", () => {
    expect(normalizeMessage(message("guild-nick-mention"), BOT)?.command?.args).toEqual([
      "list",
      "--category",
      "devops",
    ]);
  });

  it("ignores guild messages that do not mention the bot, or mention someone else", () => {
    expect(normalizeMessage(message("guild-unmentioned"), BOT)).toBeNull();
    expect(normalizeMessage(message("guild-mention-other"), BOT)).toBeNull();
  });

  it("ignores bot authors and the bot itself", () => {
    expect(normalizeMessage(message("guild-bot-author"), BOT)).toBeNull();
    const own = { ...message("dm-command"), author: { id: BOT, username: "skillgate" } };
    expect(normalizeMessage(own, BOT)).toBeNull();
  });

  it("ignores system messages and a bare mention", () => {
    expect(normalizeMessage(message("guild-system"), BOT)).toBeNull();
    expect(normalizeMessage({ ...message("guild-mention-command"), content: `<@${BOT}>` }, BOT)).toBeNull();
  });

  it("marks thread messages as threads and keeps the reply reference", () => {
    expect(normalizeMessage(message("thread-mention"), BOT)?.chat).toEqual({
      kind: "thread",
      id: "920000000000000077",
      threadId: "920000000000000077",
    });
    expect(normalizeMessage(message("guild-reply-mention"), BOT)?.replyTo).toBe("1320000000000000001");
  });
});
