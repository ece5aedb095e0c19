/**
 * Discord conformance: the adapter against the emulator's model of the real rules (privileged intents
 * and close code 4014, sharding past 2,500 servers and close code 4011, the 3-second interaction
 * deadline, the 15-minute token, role mentions).
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client, GatewayIntentBits } from "discord.js";
import { afterEach, describe, expect, it } from "vitest";
import { createDiscordAdapter, type DiscordTuning } from "../../adapters/discord/index.js";
import { parseConfig } from "../../src/config/config.js";
import { createLogger } from "../../src/core/logger.js";
import type { AdapterHooks, InboundMessage } from "../../src/core/message.js";
import { textReply } from "../../src/core/reply.js";
import { DiscordEmulator, type DiscordEmulatorOptions, type EmulatorUser } from "../emulators/discord.js";

const GUILD = "910000000000000001";
const CHANNEL = "920000000000000001";
const alice: EmulatorUser = { id: "222333444555666777", username: "alice" };

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function emulator(options: DiscordEmulatorOptions = {}): Promise<DiscordEmulator> {
  const emu = new DiscordEmulator(options);
  await emu.listen();
  cleanups.push(() => emu.close());
  return emu;
}

async function adapterFor(
  emu: DiscordEmulator,
  options: { hooks?: AdapterHooks; tuning?: Partial<DiscordTuning>; start?: boolean } = {},
) {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-discord-conf-"));
  cleanups.push(() => fs.rm(home, { recursive: true, force: true }));
  const adapter = createDiscordAdapter({
    config: parseConfig({
      gateway: { admins: [`discord:${alice.id}`], discord: { enabled: true, api: emu.apiBase } },
    }),
    home,
    secret: (name) => (name === "DISCORD_BOT_TOKEN" ? emu.token : undefined),
    logger: createLogger({ level: "silent" }),
    tuning: { readyTimeoutMs: 4_000, ...options.tuning },
  });
  const inbox: InboundMessage[] = [];
  if (options.start !== false) {
    await adapter.start(async (message) => {
      inbox.push(message);
    }, options.hooks);
    cleanups.push(() => adapter.stop());
  }
  return { adapter, inbox };
}

async function until<T>(probe: () => T | undefined | false, timeoutMs = 4_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("discord emulator rules", () => {
  it("closes with 4014 when a privileged intent is requested but not switched on", async () => {
    const emu = await emulator();
    const client = new Client({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.MessageContent],
      rest: { api: emu.apiBase },
    });
    cleanups.push(() => client.destroy());
    await client.login(emu.token).catch(() => undefined);
    await until(() => emu.closeCodes.includes(4014));
    expect(emu.identifies).toBe(0);
  });

  it("lets the same client in once the portal switch is on", async () => {
    const emu = await emulator({ privilegedIntents: { messageContent: true } });
    const client = new Client({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.MessageContent],
      rest: { api: emu.apiBase },
    });
    cleanups.push(() => client.destroy());
    await client.login(emu.token);
    await until(() => emu.identifies === 1);
    expect(emu.closeCodes).toEqual([]);
  });

  it("refuses a one-shard session of a bot in more than 2,500 servers with 4011, and recommends shards", async () => {
    const emu = await emulator({ memberOfGuilds: 2_600 });
    const info = (await (
      await fetch(`${emu.apiBase}/v10/gateway/bot`, { headers: { authorization: `Bot ${emu.token}` } })
    ).json()) as { shards: number };
    expect(info.shards).toBe(3);
    const client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: emu.apiBase } });
    cleanups.push(() => client.destroy());
    await client.login(emu.token).catch(() => undefined);
    await until(() => emu.closeCodes.includes(4011));
    expect(emu.identifies).toBe(0);
  });

  it("lets a bot in exactly 2,500 servers in on one shard", async () => {
    const emu = await emulator({ memberOfGuilds: 2_500 });
    const client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: emu.apiBase } });
    cleanups.push(() => client.destroy());
    await client.login(emu.token);
    await until(() => emu.identifies === 1);
    expect(emu.closeCodes).toEqual([]);
  });

  it("refuses an interaction response after the deadline with 10062", async () => {
    const emu = await emulator({ interactionDeadlineMs: 50 });
    const sent = emu.interaction({ user: alice, channelId: CHANNEL, guildId: GUILD, name: "curator" });
    await new Promise((resolve) => setTimeout(resolve, 120));
    const response = await fetch(`${emu.apiBase}/v10/interactions/${sent.id}/${sent.token}/callback`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type: 5 }),
    });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { code: number }).code).toBe(10062);
    expect(sent.late).toBe(1);
  });

  it("blanks guild message content for a bot without the Message Content intent unless it is mentioned", async () => {
    const emu = await emulator();
    const { inbox } = await adapterFor(emu);
    emu.userMessage({ user: alice, guildId: GUILD, channelId: CHANNEL, content: "/curator status" });
    emu.userMessage({
      user: alice,
      guildId: GUILD,
      channelId: CHANNEL,
      content: `<@${emu.bot.id}> /curator pin x`,
    });
    const message = await until(() => inbox[0]);
    expect(message.command?.args).toEqual(["pin", "x"]);
    expect(inbox).toHaveLength(1);
  });
});

describe("discord adapter against the real rules", () => {
  it("connects to an application whose privileged intents are all off (finding 1)", async () => {
    const emu = await emulator();
    const { adapter } = await adapterFor(emu);
    expect(adapter.health().state).toBe("connected");
    expect(emu.closeCodes).toEqual([]);
    const privileged =
      GatewayIntentBits.MessageContent | GatewayIntentBits.GuildMembers | GatewayIntentBits.GuildPresences;
    expect((emu.lastIntents ?? 0) & privileged).toBe(0);
  });

  it("turns close code 4014 into an error naming the portal switch, without waiting for the timeout", async () => {
    const emu = await emulator();
    emu.closeNextIdentify(4014);
    const { adapter } = await adapterFor(emu, { start: false, tuning: { readyTimeoutMs: 20_000 } });
    const started = Date.now();
    const error = await adapter.start(async () => undefined).catch((caught: unknown) => caught as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/4014/);
    expect((error as Error).message).toMatch(/Privileged Gateway Intents/);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(adapter.health().state).toBe("failed");
  });

  it("refuses a bot past Discord's sharding threshold at once, saying it holds one session and what to do", async () => {
    const emu = await emulator({ memberOfGuilds: 2_501 });
    const { adapter } = await adapterFor(emu, { start: false, tuning: { readyTimeoutMs: 20_000 } });
    const error = await adapter.start(async () => undefined).catch((caught: unknown) => caught as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/4011 \(sharding required\)/);
    expect((error as Error).message).toMatch(/at most 2,500/);
    expect((error as Error).message).toMatch(/one session per bot/);
    // Not worth a retry: one refused identify, not the start's three attempts.
    expect(emu.closeCodes).toEqual([4011]);
    expect(adapter.health()).toMatchObject({ state: "failed" });
    expect(adapter.health().detail).toMatch(/4011/);
  });

  it("takes a mention of the bot's managed role as a mention of the bot (finding 3)", async () => {
    const emu = await emulator();
    const { inbox } = await adapterFor(emu);
    const id = emu.userMessage({
      user: alice,
      guildId: GUILD,
      channelId: CHANNEL,
      content: `<@&${emu.botRoleId}> /curator status`,
    });
    const message = await until(() => inbox.find((candidate) => candidate.eventId === id));
    expect(message.text).toBe("/curator status");
    expect(message.command?.name).toBe("curator");
  });

  it("answers autocomplete within Discord's 3 s even when the skill lookup hangs (finding 5)", async () => {
    const emu = await emulator();
    await adapterFor(emu, {
      hooks: {
        admit: () => ({ admitted: true }),
        suggestSkills: () => new Promise<string[]>(() => undefined),
      },
      tuning: { autocompleteBudgetMs: 150 },
    });
    const choices = await emu.autocomplete(
      {
        user: alice,
        channelId: CHANNEL,
        guildId: GUILD,
        name: "skill",
        options: { name: "pd" },
        focused: "name",
      },
      2_900,
    );
    expect(choices).toEqual([]);
    const record = [...emu.interactions.values()].at(-1);
    expect(record?.late).toBe(0);
    expect(record?.callbacks.map((callback) => callback.type)).toEqual([8]);
  });

  it("posts to the channel once the interaction token has expired (15 minutes)", async () => {
    const emu = await emulator();
    const { adapter, inbox } = await adapterFor(emu);
    const sent = emu.interaction({
      user: alice,
      channelId: CHANNEL,
      guildId: GUILD,
      name: "curator",
      subcommand: "status",
    });
    const message = await until(() => inbox.find((candidate) => candidate.eventId === sent.id));
    await until(() => sent.callbacks.length === 1);
    emu.age(sent.id, 16 * 60 * 1000);
    await adapter.send({ chatId: CHANNEL }, textReply("late answer"), message);
    const posted = await emu.waitForMessage((candidate) => candidate.content.includes("late answer"));
    expect(posted.kind).toBe("channel");
    expect(posted.channelId).toBe(CHANNEL);
  });
});
