/**
 * Reference gateway scenarios for Discord that the existing Discord tests leave open: the real gateway
 * with the real Discord adapter (discord.js) against the loopback Discord emulator.
 */
import { describe, expect, it } from "vitest";
import { registry as defaultRegistry } from "../../commands/index.js";
import type { CommandSpec } from "../../commands/types.js";
import type { InboundMessage } from "../../src/core/message.js";
import { textReply } from "../../src/core/reply.js";
import type { ChatAgent } from "../../src/gateway/gateway.js";
import type { DiscordEmulator, EmulatedMessage, EmulatorUser } from "../emulators/discord.js";
import { writeSkill } from "../gateway/helpers.js";
import { DISCORD_CHANNEL, DISCORD_DMS, DISCORD_GUILD, DISCORD_USERS } from "../support/harness/discord.js";
import { type PlatformRun, usePlatform } from "../support/harness/index.js";

const GUILD = DISCORD_GUILD;
const CHANNEL = DISCORD_CHANNEL;
const member: EmulatorUser = DISCORD_USERS.member;

type Running = PlatformRun<"discord"> & { agentSaw: InboundMessage[] };

const start = usePlatform("discord", { prepare: (home) => writeSkill(home, { name: "pdf-tools" }) });

/** A gateway over Discord; the agent records what it is asked and echoes it, unless `answer` is given. */
async function boot(options: { answer?: string; registry?: readonly CommandSpec[] } = {}): Promise<Running> {
  const agentSaw: InboundMessage[] = [];
  const agent: ChatAgent = {
    respond: async (message) => {
      agentSaw.push(message);
      return textReply(options.answer ?? `agent heard: ${message.text}`);
    },
  };
  const run = await start({ gateway: { agent, registry: options.registry } });
  return Object.assign(run, { agentSaw });
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
      channelId: DISCORD_DMS.member,
      content: "/extra119",
    });
    const answer = await run.emulator.waitForMessage((message) => message.replyTo === typed);
    expect(answer.content).toBe("extra 119");
  });
});
