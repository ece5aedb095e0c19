/**
 * Buttons end to end on Discord: the real gateway and the real Discord adapter (discord.js) against
 * the loopback emulator. Buttons ride on the deferred slash-command reply; a press is a component
 * interaction that must be acknowledged (deferred update), refusals go as ephemeral messages, results
 * edit the message the button is on.
 */
import { promises as fs } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createDiscordAdapter } from "../../adapters/discord/index.js";
import { parseConfig } from "../../src/config/config.js";
import { createLogger } from "../../src/core/logger.js";
import { createGateway, type Gateway } from "../../src/gateway/gateway.js";
import {
  DiscordEmulator,
  type EmulatedInteraction,
  type EmulatedMessage,
  type EmulatorUser,
  visibleText,
} from "../emulators/discord.js";
import { makeCuratorDue, writeTestSkill } from "../support/platform-home.js";

const GUILD = "910000000000000001";
const CHANNEL = "920000000000000001";
const HOME_CHANNEL = "920000000000000002";
const admin: EmulatorUser = { id: "222333444", username: "ada" };
const member: EmulatorUser = { id: "555666777", username: "bob" };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Running {
  home: string;
  emulator: DiscordEmulator;
  gateway: Gateway;
  advance(ms: number): void;
}

async function boot(prepare?: (home: string) => Promise<void>): Promise<Running> {
  const home = await mkdtemp(path.join(os.tmpdir(), "skillgate-discord-buttons-"));
  cleanups.push(() => rm(home, { recursive: true, force: true }));
  await writeTestSkill(home, "documents", "pdf-tools");
  await prepare?.(home);
  const emulator = new DiscordEmulator({
    guilds: [
      {
        id: GUILD,
        name: "Skill Ops",
        channels: [
          { id: CHANNEL, name: "general" },
          { id: HOME_CHANNEL, name: "curator-news" },
        ],
      },
    ],
  });
  await emulator.listen();
  cleanups.push(() => emulator.close());
  const config = parseConfig({
    gateway: {
      admins: [`discord:${admin.id}`],
      allowed_users: [`discord:${member.id}`],
      home_channel: `discord:${HOME_CHANNEL}`,
      health: { enabled: false },
      discord: { enabled: true, api: emulator.apiBase },
    },
    // The summary test ticks right after boot: idle time counts from the gateway's start.
    curator: { min_idle_hours: 0 },
  });
  const logger = createLogger({ level: "silent" });
  const adapter = createDiscordAdapter({
    config,
    home,
    secret: (name) => (name === "DISCORD_BOT_TOKEN" ? emulator.token : undefined),
    logger,
  });
  let offset = 0;
  const gateway = createGateway({
    home,
    config,
    adapters: [adapter],
    logger,
    now: () => Date.now() + offset,
  });
  await gateway.start();
  cleanups.push(() => gateway.stop());
  return { home, emulator, gateway, advance: (ms) => (offset += ms) };
}

async function slash(
  run: Running,
  user: EmulatorUser,
  subcommand: string,
  options?: Record<string, string | number | boolean>,
  name = "curator",
): Promise<EmulatedMessage> {
  const sent = run.emulator.interaction({
    user,
    channelId: CHANNEL,
    guildId: GUILD,
    name,
    subcommand,
    ...(options ? { options } : {}),
  });
  return run.emulator.waitForMessage(
    (message) => message.interactionId === sent.id && message.kind === "original" && !message.deferred,
  );
}

/** Presses a button and waits for its acknowledgement and for the gateway to be idle. */
async function press(
  run: Running,
  input: Parameters<DiscordEmulator["pressButton"]>[0],
): Promise<EmulatedInteraction> {
  const record = run.emulator.pressButton(input);
  await run.emulator.waitForAcknowledgement(record);
  await new Promise((resolve) => setTimeout(resolve, 20));
  await run.gateway.whenIdle();
  await new Promise((resolve) => setTimeout(resolve, 20));
  return record;
}

function labels(message: EmulatedMessage | undefined): string[] {
  return (message?.components ?? []).flatMap((row) => row.components.map((button) => button.label ?? ""));
}

function shown(message: EmulatedMessage | undefined): string {
  return message ? visibleText(message).replace(/\\([\\*_~|`[\]>#.-])/g, "$1") : "";
}

function ephemeralFor(run: Running, record: EmulatedInteraction): EmulatedMessage | undefined {
  return run.emulator.messages.find((message) => message.interactionId === record.id && message.ephemeral);
}

const skillFile = (run: Running) => path.join(run.home, "skills", "documents", "pdf-tools", "SKILL.md");
const exists = (file: string) =>
  fs.access(file).then(
    () => true,
    () => false,
  );

describe("discord buttons", () => {
  it("Confirm on the deferred reply archives once even when pressed twice", async () => {
    const run = await boot();
    const question = await slash(run, admin, "archive", { skill: "pdf-tools" });
    expect(shown(question)).toContain("Archive 'pdf-tools'?");
    expect(labels(question)).toEqual(["Confirm", "Cancel"]);
    const confirm = question.components[0]?.components[0]?.custom_id;
    const first = run.emulator.pressButton({ user: admin, messageId: question.id, customId: confirm });
    const second = await press(run, { user: admin, messageId: question.id, customId: confirm });
    await run.emulator.waitForAcknowledgement(first);
    // Acknowledged in time: a deferred update for the accepted press, an ephemeral answer for the other.
    const types = [first.callbacks[0]?.type, second.callbacks[0]?.type].sort();
    expect(types).toEqual([4, 6]);
    const edited = run.emulator.messages.find((message) => message.id === question.id);
    expect(shown(edited)).toContain("archived 'pdf-tools'");
    expect(labels(edited)).toEqual(["Restore pdf-tools"]);
    const refusal = [first, second].map((record) => ephemeralFor(run, record)).find(Boolean);
    expect(refusal?.content).toMatch(/already answered/);
    expect(await exists(skillFile(run))).toBe(false);
    expect(await fs.readdir(path.join(run.home, "skills", ".archive"))).toHaveLength(1);
  });

  it("Cancel changes nothing and removes the buttons", async () => {
    const run = await boot();
    const question = await slash(run, admin, "archive", { skill: "pdf-tools" });
    const record = await press(run, { user: admin, messageId: question.id, label: "Cancel" });
    expect(record.callbacks.map((callback) => callback.type)).toEqual([6]);
    const edited = run.emulator.messages.find((message) => message.id === question.id);
    expect(shown(edited)).toBe("Cancelled; nothing was changed.");
    expect(labels(edited)).toEqual([]);
    expect(await exists(skillFile(run))).toBe(true);
  });

  it("a read-only member's press is refused with an ephemeral message and changes nothing", async () => {
    const run = await boot();
    const question = await slash(run, admin, "archive", { skill: "pdf-tools" });
    const record = await press(run, { user: member, messageId: question.id, label: "Confirm" });
    expect(record.callbacks.map((callback) => callback.type)).toEqual([4]);
    expect(ephemeralFor(run, record)?.content).toMatch(/admins only/);
    expect(await exists(skillFile(run))).toBe(true);
    expect(run.emulator.messages.find((message) => message.id === question.id)?.edits).toBe(1);
  });

  it("a forged custom_id and an expired button are refused", async () => {
    const run = await boot();
    const question = await slash(run, admin, "archive", { skill: "pdf-tools" });
    const forged = await press(run, {
      user: admin,
      messageId: question.id,
      customId: "curator archive pdf-tools -y",
    });
    expect(ephemeralFor(run, forged)?.content).toMatch(/not one this gateway showed/);
    run.advance(25 * 3_600_000);
    const expired = await press(run, { user: admin, messageId: question.id, label: "Confirm" });
    expect(ephemeralFor(run, expired)?.content).toMatch(/expired/);
    expect(await exists(skillFile(run))).toBe(true);
  });

  it("a maintenance summary's Restore button restores the skill into its category", async () => {
    const run = await boot(makeCuratorDue);
    expect((await run.gateway.runMaintenanceTick()).posted).toBe(true);
    const summary = await run.emulator.waitForMessage(
      (message) => message.channelId === HOME_CHANNEL && labels(message).includes("Restore old-stale"),
    );
    expect(labels(summary)).toContain("Roll back this run");
    const restored = path.join(run.home, "skills", "notes", "old-stale", "SKILL.md");
    expect(await exists(restored)).toBe(false);
    await press(run, { user: admin, messageId: summary.id, label: "Restore old-stale" });
    const answer = await run.emulator.waitForMessage(
      (message) => message.channelId === HOME_CHANNEL && visibleText(message).includes("restored"),
    );
    expect(shown(answer)).toContain("restored 'old-stale' to skills/notes/old-stale");
    expect(await exists(restored)).toBe(true);
  });

  it("paging through 300 skills edits one message and never sends another", async () => {
    const run = await boot(async (home) => {
      for (let index = 0; index < 299; index += 1) {
        await writeTestSkill(home, "bulk", `skill-${String(index).padStart(3, "0")}`);
      }
    });
    const list = await slash(run, member, "list", undefined, "skills");
    expect(shown(list)).toContain("Page 1 of 15");
    const count = run.emulator.messages.length;
    for (let page = 2; page <= 15; page += 1) {
      await press(run, { user: member, messageId: list.id, label: "Next ›" });
      expect(shown(run.emulator.messages.find((message) => message.id === list.id))).toContain(
        `Page ${page} of 15`,
      );
    }
    const last = run.emulator.messages.find((message) => message.id === list.id);
    expect(labels(last)).toEqual(["‹ Prev"]);
    expect(run.emulator.messages.length).toBe(count);
  });

  it("/curator status is an embed with buttons for the next likely actions", async () => {
    const run = await boot();
    const status = await slash(run, admin, "status");
    expect(status.content).toBe("");
    expect(String(status.embeds[0]?.description)).toMatch(/curator: ENABLED/);
    expect(labels(status)).toEqual(["Dry run", "Pause", "Archived skills"]);
  });
});
