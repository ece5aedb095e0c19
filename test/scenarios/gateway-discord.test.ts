/**
 * Reference gateway scenarios for Discord that the existing Discord tests leave open: the real gateway
 * with the real Discord adapter (discord.js) against the loopback Discord emulator.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createDiscordAdapter } from "../../adapters/discord/index.js";
import { registry as defaultRegistry } from "../../commands/index.js";
import type { CommandSpec } from "../../commands/types.js";
import { parseConfig } from "../../src/config/config.js";
import { createLogger } from "../../src/core/logger.js";
import type { InboundMessage } from "../../src/core/message.js";
import { textReply } from "../../src/core/reply.js";
import { type ChatAgent, createGateway, type Gateway } from "../../src/gateway/gateway.js";
import { DiscordEmulator, type EmulatedMessage, type EmulatorUser } from "../emulators/discord.js";
import { makeHome, removeHome, writeSkill } from "../gateway/helpers.js";

const GUILD = "910000000000000001";
const CHANNEL = "920000000000000001";
const member: EmulatorUser = { id: "555666777", username: "bob" };
const admin: EmulatorUser = { id: "222333444", username: "ada" };

interface Running {
  emulator: DiscordEmulator;
  gateway: Gateway;
  agentSaw: InboundMessage[];
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A gateway over Discord; the agent records what it is asked and echoes it, unless `answer` is given. */
async function boot(options: { answer?: string; registry?: readonly CommandSpec[] } = {}): Promise<Running> {
  const home = await makeHome();
  cleanups.push(() => removeHome(home));
  await writeSkill(home, { name: "pdf-tools" });
  const emulator = new DiscordEmulator({
    guilds: [{ id: GUILD, name: "Skill Ops", channels: [{ id: CHANNEL, name: "general" }] }],
  });
  await emulator.listen();
  cleanups.push(() => emulator.close());
  const config = parseConfig({
    gateway: {
      admins: [`discord:${admin.id}`],
      allowed_users: [`discord:${member.id}`],
      health: { enabled: false },
      discord: { enabled: true, api: emulator.apiBase },
    },
  });
  const logger = createLogger({ level: "silent" });
  const adapter = createDiscordAdapter({
    config,
    home,
    secret: (name) => (name === "DISCORD_BOT_TOKEN" ? emulator.token : undefined),
    logger,
  });
  const agentSaw: InboundMessage[] = [];
  const agent: ChatAgent = {
    respond: async (message) => {
      agentSaw.push(message);
      return textReply(options.answer ?? `agent heard: ${message.text}`);
    },
  };
  const gateway = createGateway({
    home,
    config,
    adapters: [adapter],
    logger,
    agent,
    registry: options.registry,
  });
  await gateway.start();
  cleanups.push(() => gateway.stop());
  return { emulator, gateway, agentSaw };
}

function repliesTo(emulator: DiscordEmulator, messageId: string): EmulatedMessage[] {
  return emulator.messages.filter((message) => message.replyTo === messageId);
}

describe("discord scenarios", () => {
  it("scenario 35: in a guild a plain message is ignored; '@bot hi' is answered in the channel as a reply", async () => {
    const run = await boot();
    const plain = run.emulator.userMessage({
      user: member,
      guildId: GUILD,
      channelId: CHANNEL,
      content: "hi",
    });
    const mentioned = run.emulator.userMessage({
      user: member,
      guildId: GUILD,
      channelId: CHANNEL,
      content: `<@${run.emulator.bot.id}> hi`,
    });
    const answer = await run.emulator.waitForMessage((message) => message.replyTo === mentioned);
    expect(answer.channelId).toBe(CHANNEL);
    expect(answer.content).toBe("agent heard: hi");
    await run.gateway.whenIdle();
    expect(repliesTo(run.emulator, plain)).toEqual([]);
    expect(run.agentSaw.map((message) => message.text)).toEqual(["hi"]);
  });

  it("scenario 38: a 4,500-character answer arrives as 3 messages of at most 2,000, the first replying to the user", async () => {
    const words = Array.from({ length: 901 }, (_, index) => `w${String(index).padStart(3, "0")}`);
    const long = words.join(" ");
    expect(long.length).toBeGreaterThanOrEqual(4500);
    const run = await boot({ answer: long });
    const since = run.emulator.messages.length;
    const asked = run.emulator.userMessage({
      user: member,
      guildId: GUILD,
      channelId: CHANNEL,
      content: `<@${run.emulator.bot.id}> tell me everything`,
    });
    await run.emulator.waitForMessage((message) => message.replyTo === asked);
    await run.gateway.whenIdle();
    const parts = run.emulator.messages.slice(since).filter((message) => message.channelId === CHANNEL);
    expect(parts).toHaveLength(3);
    expect(parts.map((part) => part.replyTo)).toEqual([asked, undefined, undefined]);
    for (const part of parts) expect(part.content.length).toBeLessThanOrEqual(2000);
    expect(
      parts
        .map((part) => part.content)
        .join(" ")
        .split(/\s+/),
    ).toEqual(words);
  });

  it("scenario 39: a catalog over 100 commands syncs; /skill and the registry's own commands are kept", async () => {
    const extra: CommandSpec[] = Array.from({ length: 120 }, (_, index) => ({
      path: [`extra${String(index).padStart(3, "0")}`],
      summary: `extra command ${index}`,
      mutating: false,
      run: async () => textReply(`extra ${index}`),
    }));
    const run = await boot({ registry: [...defaultRegistry, ...extra] });
    const registered = run.emulator.globalCommands().map((command) => command.name);
    expect(registered.length).toBeLessThanOrEqual(100);
    expect(registered).toEqual(expect.arrayContaining(["skill", "curator", "skills", "help", "whoami"]));
    expect(registered.filter((name) => name.startsWith("extra")).length).toBeGreaterThan(0);
    expect(registered).not.toContain("extra119");
    // Every dropped command still works when typed.
    const typed = run.emulator.userMessage({
      user: member,
      channelId: "930000000000000001",
      content: "/extra119",
    });
    const answer = await run.emulator.waitForMessage((message) => message.replyTo === typed);
    expect(answer.content).toBe("extra 119");
  });
});
