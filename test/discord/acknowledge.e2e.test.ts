/**
 * Slow work in chat, end to end on Discord: the real gateway and the real Discord adapter (discord.js)
 * against the emulator. A typed command still running after the threshold gets a "running…" reply at
 * once, edited into the result; a slash command already shows "thinking…" (its deferral), so it gets no
 * extra message and its deferred reply becomes the result.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createDiscordAdapter } from "../../adapters/discord/index.js";
import { registry } from "../../commands/index.js";
import { defineCommand } from "../../commands/types.js";
import { parseConfig } from "../../src/config/config.js";
import { runAction } from "../../src/core/actions.js";
import { createLogger } from "../../src/core/logger.js";
import { textReply } from "../../src/core/reply.js";
import { createGateway } from "../../src/gateway/gateway.js";
import { DiscordEmulator, type EmulatorUser } from "../emulators/discord.js";
import { writeTestSkill } from "../support/platform-home.js";

const GUILD = "910000000000000001";
const CHANNEL = "920000000000000001";
const DM_CHANNEL = "930000000000000001";
const admin: EmulatorUser = { id: "222333444", username: "ada", global_name: "Ada" };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function boot() {
  const home = await mkdtemp(path.join(os.tmpdir(), "skillgate-discord-ack-"));
  cleanups.push(() => rm(home, { recursive: true, force: true }));
  await writeTestSkill(home, "documents", "pdf-tools");
  const emulator = new DiscordEmulator({
    guilds: [{ id: GUILD, name: "Skill Ops", channels: [{ id: CHANNEL, name: "general" }] }],
  });
  await emulator.listen();
  cleanups.push(() => emulator.close());
  const config = parseConfig({
    gateway: {
      admins: [`discord:${admin.id}`],
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
  const gates: ((text: string) => void)[] = [];
  const crunch = defineCommand({
    path: ["crunch"],
    summary: "long work (test)",
    mutating: false,
    run: async () => textReply(await new Promise<string>((resolve) => gates.push(resolve))),
  });
  // A reply with a button that runs the slow command.
  const menu = defineCommand({
    path: ["menu"],
    summary: "a button that runs crunch (test)",
    mutating: false,
    run: async () => ({
      ...textReply("Crunch now?"),
      actions: {
        rows: [[runAction("Crunch", { path: ["crunch"], args: [], options: {} }, { placement: "replace" })]],
      },
    }),
  });
  const gateway = createGateway({
    home,
    config,
    adapters: [adapter],
    logger,
    registry: [...registry, crunch, menu],
    acknowledgeAfterMs: 150,
  });
  await gateway.start();
  cleanups.push(() => gateway.stop());
  const release = async (text: string) => {
    const deadline = Date.now() + 8000;
    while (gates.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    gates.shift()?.(text);
  };
  return { emulator, gateway, release };
}

describe("Discord: slow work is acknowledged", () => {
  it("a typed command gets a 'running…' reply that is edited into the result", async () => {
    const { emulator, gateway, release } = await boot();
    const typed = emulator.userMessage({ user: admin, channelId: DM_CHANNEL, content: "/crunch" });
    const notice = await emulator.waitForMessage((message) => message.replyTo === typed, 8000);
    expect(notice.content).toMatch(/Running.*crunch.*result/);
    expect(notice.edits).toBe(0);
    await release("crunched 10,000 skills");
    await gateway.whenIdle();
    const after = emulator.messages.filter((message) => message.channelId === DM_CHANNEL);
    // One message: the notice, edited once into the result.
    expect(after).toHaveLength(1);
    expect(after[0]?.id).toBe(notice.id);
    expect(after[0]?.edits).toBe(1);
    expect(after[0]?.content).toContain("crunched 10,000 skills");
  });

  it("a slash command gets no extra notice: its deferred reply becomes the result", async () => {
    const { emulator, gateway, release } = await boot();
    const sent = emulator.interaction({ user: admin, channelId: CHANNEL, guildId: GUILD, name: "crunch" });
    await new Promise((resolve) => setTimeout(resolve, 400));
    await release("crunched by slash");
    const original = await emulator.waitForMessage(
      (message) => message.interactionId === sent.id && message.kind === "original" && !message.deferred,
      8000,
    );
    await gateway.whenIdle();
    expect(original.content).toContain("crunched by slash");
    expect(emulator.messages.filter((message) => message.kind === "channel")).toEqual([]);
  });

  it("a slow button press shows a running state on the pressed message and removes its buttons", async () => {
    const { emulator, gateway, release } = await boot();
    emulator.userMessage({ user: admin, channelId: DM_CHANNEL, content: "/menu" });
    const card = await emulator.waitForMessage(
      (message) => message.channelId === DM_CHANNEL && message.components.length > 0,
      8000,
    );
    emulator.pressButton({ user: admin, messageId: card.id, label: "Crunch" });
    await emulator.waitForMessage(
      (message) => message.id === card.id && /Running/.test(message.content),
      8000,
    );
    const running = emulator.messages.find((message) => message.id === card.id);
    expect(running?.components).toEqual([]);
    await release("crunched from a button");
    await gateway.whenIdle();
    const done = emulator.messages.find((message) => message.id === card.id);
    expect(done?.content).toContain("crunched from a button");
    expect(emulator.messages.filter((message) => message.channelId === DM_CHANNEL)).toHaveLength(1);
  });
});
