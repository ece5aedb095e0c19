/**
 * Slow work in chat, end to end on Discord: the real gateway and the real Discord adapter (discord.js)
 * against the emulator. A typed command still running after the threshold gets a "running…" reply at
 * once, edited into the result; a slash command already shows "thinking…" (its deferral), so it gets no
 * extra message and its deferred reply becomes the result.
 */
import { describe, expect, it } from "vitest";
import { registry } from "../../commands/index.js";
import { defineCommand } from "../../commands/types.js";
import { runAction } from "../../src/core/actions.js";
import { textReply } from "../../src/core/reply.js";
import { gatedCommand } from "../support/gated-command.js";
import { DISCORD_CHANNEL, DISCORD_DMS, DISCORD_GUILD, DISCORD_USERS } from "../support/harness/discord.js";
import { usePlatform } from "../support/harness/index.js";
import { writeTestSkill } from "../support/platform-home.js";

const GUILD = DISCORD_GUILD;
const CHANNEL = DISCORD_CHANNEL;
const DM_CHANNEL = DISCORD_DMS.admin;
const admin = DISCORD_USERS.admin;

const start = usePlatform("discord", { prepare: (home) => writeTestSkill(home, "documents", "pdf-tools") });

/** A reply with a button that runs the slow command. */
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

async function boot() {
  const crunch = gatedCommand();
  const run = await start({
    gateway: { registry: [...registry, crunch.spec, menu], acknowledgeAfterMs: 150 },
  });
  return { emulator: run.emulator, gateway: run.gateway, release: crunch.release };
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
