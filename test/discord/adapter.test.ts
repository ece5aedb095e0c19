/**
 * The Discord adapter with the real discord.js against the loopback emulator, without the gateway: the
 * test plays the gateway through the sink and `send`.
 */

import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DiscordAdapter } from "../../adapters/discord/index.js";
import { AdapterError } from "../../src/core/errors.js";
import type { InboundMessage } from "../../src/core/message.js";
import { reply, textReply } from "../../src/core/reply.js";
import { DiscordEmulator, type EmulatorUser } from "../emulators/discord.js";
import { bareDiscordAdapter } from "../support/harness/discord.js";
import { arrived } from "../support/until.js";
import { autocompletePdf, sampleCatalog, suggestTestSkills } from "./catalog.js";

const GUILD = "910000000000000001";
const CHANNEL = "920000000000000001";
const DM_CHANNEL = "930000000000000009";
const alice: EmulatorUser = { id: "222333444555666777", username: "alice", global_name: "Alice" };

interface Harness {
  emulator: DiscordEmulator;
  adapter: DiscordAdapter;
  inbox: InboundMessage[];
  home: string;
}

let harness: Harness | undefined;
const cleanups: (() => Promise<void>)[] = [];

async function boot(
  options: { guildId?: string; token?: string; start?: boolean; home?: string } = {},
): Promise<Harness> {
  const emulator = harness?.emulator ?? new DiscordEmulator();
  if (!harness) {
    await emulator.listen();
    cleanups.push(() => emulator.close());
  }
  const home = options.home ?? (await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-discord-")));
  cleanups.push(() => fs.rm(home, { recursive: true, force: true }));
  const { adapter, inbox } = await bareDiscordAdapter({
    home,
    admin: alice,
    section: { api: emulator.apiBase, ...(options.guildId ? { guild_id: options.guildId } : {}) },
    secrets: { DISCORD_BOT_TOKEN: options.token ?? emulator.token },
    hooks: { suggestSkills: suggestTestSkills },
    start: options.start,
  });
  if (options.start !== false) cleanups.push(() => adapter.stop());
  harness = { emulator, adapter, inbox, home };
  return harness;
}

beforeEach(() => {
  harness = undefined;
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("the discord emulator", () => {
  it("answers heartbeats so the real client keeps one session", async () => {
    const emulator = new DiscordEmulator({ heartbeatIntervalMs: 40 });
    await emulator.listen();
    cleanups.push(() => emulator.close());
    harness = { emulator } as Harness;
    const { adapter } = await boot();
    await emulator.waitForHeartbeats(3);
    expect(emulator.identifies).toBe(1);
    expect(adapter.health().state).toBe("connected");
  });

  it("enforces Discord's limits: 2000 characters, no empty message, token auth", async () => {
    const emulator = new DiscordEmulator();
    const api = await emulator.listen();
    cleanups.push(() => emulator.close());
    const post = (content: string, token = emulator.token) =>
      fetch(`${api}/v10/channels/${CHANNEL}/messages`, {
        method: "POST",
        headers: { authorization: `Bot ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ content }),
      });
    expect((await post("x".repeat(2000))).status).toBe(200);
    const tooLong = await post("x".repeat(2001));
    expect(tooLong.status).toBe(400);
    expect(((await tooLong.json()) as { code: number }).code).toBe(50035);
    expect((await post("")).status).toBe(400);
    expect((await post("hi", "wrong")).status).toBe(401);
    expect(emulator.messages).toHaveLength(1);
  });
});

describe("discord adapter against the emulator", () => {
  it("connects, reports health and capabilities", async () => {
    const { adapter, emulator } = await boot();
    expect(emulator.connectedClients).toBe(1);
    expect(adapter.health().state).toBe("connected");
    expect(adapter.capabilities).toEqual({
      maxMessageLength: 2000,
      nativeCommands: true,
      edit: true,
      threads: true,
      buttons: true,
      files: true,
      privateInput: "modal",
      remembersReaderLanguage: true,
    });
    await adapter.stop();
    expect(adapter.health().state).toBe("stopped");
  });

  it("rejects a wrong token with a clear AdapterError", async () => {
    const { adapter } = await boot({ token: "wrong-token", start: false });
    const error = await adapter.start(async () => undefined).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AdapterError);
    expect(String((error as Error).message)).toMatch(/DISCORD_BOT_TOKEN/);
    expect(String((error as Error).message)).not.toContain("wrong-token");
  });

  it("defers a slash command, then edits the deferred reply and follows up with the rest", async () => {
    const { adapter, emulator, inbox } = await boot();
    await adapter.syncCommands(sampleCatalog);
    const sent = emulator.interaction({
      user: alice,
      guildId: GUILD,
      channelId: CHANNEL,
      name: "curator",
      subcommand: "pin",
      options: { skill: "pdf-tools" },
    });
    const message = await arrived(inbox, sent.id);
    expect(message.command).toEqual({
      name: "curator",
      args: ["pin", "pdf-tools"],
      rawArgs: "pin pdf-tools",
    });
    expect(message.chat).toEqual({ kind: "group", id: CHANNEL });
    // The deferral was sent before the gateway answered anything.
    await emulator.waitForCall((call) => call.path === `/interactions/${sent.id}/${sent.token}/callback`);
    expect(sent.callbacks.map((callback) => callback.type)).toEqual([5]);

    const long = Array.from({ length: 250 }, (_unused, index) => `entry ${index}: ${"z".repeat(30)}`).join(
      "\n",
    );
    await adapter.send({ chatId: CHANNEL }, reply([{ kind: "code", text: long }]), message);
    const messages = emulator.interactionMessages(sent.id);
    expect(messages[0]?.kind).toBe("original");
    expect(messages[0]?.edits).toBe(1);
    expect(messages.slice(1).every((candidate) => candidate.kind === "followup")).toBe(true);
    expect(messages.length).toBeGreaterThan(4);
    for (const candidate of messages) expect(candidate.content.length).toBeLessThanOrEqual(2000);
    const received = messages.map((candidate) => candidate.content.replace(/^```\n|\n```$/g, "")).join("\n");
    expect(received).toBe(long);
    expect(messages[0]?.allowedMentions).toEqual({ parse: [] });
  });

  it("takes a DM text command and replies in the DM channel", async () => {
    const { adapter, emulator, inbox } = await boot();
    const id = emulator.userMessage({ user: alice, channelId: DM_CHANNEL, content: "/curator status" });
    const message = await arrived(inbox, id);
    expect(message.chat).toEqual({ kind: "dm", id: DM_CHANNEL });
    await adapter.send({ chatId: message.chat.id }, textReply("curator: enabled"), message);
    const posted = await emulator.waitForMessage((candidate) => candidate.channelId === DM_CHANNEL);
    expect(posted.content).toBe("curator: enabled");
    expect(posted.replyTo).toBe(id);
  });

  it("takes a guild message only when it mentions the bot, and never from bots", async () => {
    const { emulator, inbox } = await boot();
    emulator.userMessage({ user: alice, guildId: GUILD, channelId: CHANNEL, content: "/curator status" });
    emulator.userMessage({
      user: { id: "5", username: "robot", bot: true },
      guildId: GUILD,
      channelId: CHANNEL,
      content: `<@${emulator.bot.id}> /curator status`,
    });
    const mentioned = emulator.userMessage({
      user: alice,
      guildId: GUILD,
      channelId: CHANNEL,
      content: `<@${emulator.bot.id}> /curator status`,
    });
    await arrived(inbox, mentioned);
    expect(inbox.map((candidate) => candidate.eventId)).toEqual([mentioned]);
    expect(inbox[0]?.command?.args).toEqual(["status"]);
  });

  it("drops a replayed event id", async () => {
    const { emulator, inbox } = await boot();
    const id = emulator.userMessage({ user: alice, channelId: DM_CHANNEL, content: "/help" });
    await arrived(inbox, id);
    emulator.dispatch("MESSAGE_CREATE", {
      id,
      channel_id: DM_CHANNEL,
      channel_type: 1,
      author: { id: alice.id, username: "alice" },
      content: "/help",
      type: 0,
      mentions: [],
    });
    const next = emulator.userMessage({ user: alice, channelId: DM_CHANNEL, content: "/whoami" });
    await arrived(inbox, next);
    expect(inbox.filter((candidate) => candidate.eventId === id)).toHaveLength(1);
  });

  it("answers a stranger's slash command privately instead of leaving it deferred", async () => {
    const { emulator, inbox } = await boot();
    const stranger: EmulatorUser = { id: "444", username: "mallory" };
    const sent = emulator.interaction({
      user: stranger,
      guildId: GUILD,
      channelId: CHANNEL,
      name: "curator",
      subcommand: "pause",
    });
    await emulator.waitForCall((call) => call.path === `/interactions/${sent.id}/${sent.token}/callback`);
    expect(sent.callbacks).toHaveLength(1);
    expect(sent.callbacks[0]?.type).toBe(4);
    const data = sent.callbacks[0]?.data as { content: string; flags: number };
    expect(data.flags & 64).toBe(64);
    expect(data.content).toContain("discord:444");
    expect(inbox).toEqual([]);
  });

  it("answers /skill autocomplete through the gateway hook", async () => {
    const { emulator } = await boot();
    const choices = await autocompletePdf(emulator, alice, { guildId: GUILD, channelId: CHANNEL });
    expect(choices).toEqual([
      { name: "pdf-tools", value: "pdf-tools" },
      { name: "pdf-forms", value: "pdf-forms" },
    ]);
  });

  it("posts to a channel without an inbound message (home channel)", async () => {
    const { adapter, emulator } = await boot();
    await adapter.send({ chatId: CHANNEL }, textReply("archived 2 skill(s)"));
    const posted = await emulator.waitForMessage(
      (candidate) => candidate.channelId === CHANNEL && candidate.kind === "channel",
    );
    expect(posted.content).toBe("archived 2 skill(s)");
    expect(posted.replyTo).toBeUndefined();
  });

  it("registers commands idempotently, globally or per guild but never both", async () => {
    const { adapter, emulator, home } = await boot({ start: false });
    await adapter.syncCommands(sampleCatalog);
    await adapter.syncCommands(sampleCatalog);
    await (await boot({ start: false, home })).adapter.syncCommands(sampleCatalog);
    const puts = emulator.calls.filter((call) => call.method === "PUT" && call.path.endsWith("/commands"));
    expect(puts).toHaveLength(2);
    const names = emulator.globalCommands().map((command) => command.name);
    expect(names).toEqual(["curator", "skills", "help", "whoami", "skill"]);
    expect(emulator.guildCommands(GUILD)).toEqual([]);

    const guildAdapter = (await boot({ guildId: GUILD, start: false, home })).adapter;
    await guildAdapter.syncCommands(sampleCatalog);
    await guildAdapter.syncCommands(sampleCatalog);
    expect(emulator.guildCommands(GUILD).map((command) => command.name)).toEqual(names);
    expect(emulator.globalCommands()).toEqual([]);

    const globalAgain = (await boot({ start: false, home })).adapter;
    await globalAgain.syncCommands(sampleCatalog);
    expect(emulator.globalCommands().map((command) => command.name)).toEqual(names);
    expect(emulator.guildCommands(GUILD)).toEqual([]);
  });
});
