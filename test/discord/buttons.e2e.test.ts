/**
 * Buttons end to end on Discord: the real gateway and the real Discord adapter (discord.js) against
 * the loopback emulator. Buttons ride on the deferred slash-command reply; a press is a component
 * interaction that must be acknowledged (deferred update), refusals go as ephemeral messages, results
 * edit the message the button is on.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type EmulatedInteraction, type EmulatedMessage, visibleText } from "../emulators/discord.js";
import { DISCORD_HOME_CHANNEL, DISCORD_USERS } from "../support/harness/discord.js";
import { type PlatformRun, usePlatform } from "../support/harness/index.js";
import { exists, makeCuratorDue, pdfToolsFile, writeTestSkill } from "../support/platform-home.js";

const HOME_CHANNEL = DISCORD_HOME_CHANNEL;
const admin = DISCORD_USERS.admin;
const member = DISCORD_USERS.member;

type Running = PlatformRun<"discord">;

const start = usePlatform("discord", {
  prepare: (home) => writeTestSkill(home, "documents", "pdf-tools"),
  config: {
    gateway: { home_channel: `discord:${HOME_CHANNEL}` },
    // The summary test ticks right after boot: idle time counts from the gateway's start.
    curator: { min_idle_hours: 0 },
  },
});

function boot(prepare?: (home: string) => Promise<void>): Promise<Running> {
  return start({ prepare });
}

/** A slash command in #general; resolves with its answered reply. */
async function slash(
  run: Running,
  user: typeof admin,
  subcommand: string,
  options?: Record<string, string | number | boolean>,
  name = "curator",
): Promise<EmulatedMessage> {
  return (await run.slash(user, name, subcommand, options)).original;
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

const skillFile = (run: Running) => pdfToolsFile(run.home);

describe("discord buttons", () => {
  it("Confirm on the deferred reply archives once even when pressed twice", async () => {
    const run = await boot();
    const question = await slash(run, admin, "archive", { skill: "pdf-tools" });
    expect(shown(question)).toContain("Archive 'pdf-tools'?");
    expect(labels(question)).toEqual(["Confirm", "Cancel"]);
    const confirm = question.components[0]?.components[0]?.custom_id;
    const first = run.emulator.pressButton({ user: admin, messageId: question.id, customId: confirm });
    const second = await run.press({ user: admin, messageId: question.id, customId: confirm });
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
    const record = await run.press({ user: admin, messageId: question.id, label: "Cancel" });
    expect(record.callbacks.map((callback) => callback.type)).toEqual([6]);
    const edited = run.emulator.messages.find((message) => message.id === question.id);
    expect(shown(edited)).toBe("Cancelled; nothing was changed.");
    expect(labels(edited)).toEqual([]);
    expect(await exists(skillFile(run))).toBe(true);
  });

  it("a read-only member's press is refused with an ephemeral message and changes nothing", async () => {
    const run = await boot();
    const question = await slash(run, admin, "archive", { skill: "pdf-tools" });
    const record = await run.press({ user: member, messageId: question.id, label: "Confirm" });
    expect(record.callbacks.map((callback) => callback.type)).toEqual([4]);
    expect(ephemeralFor(run, record)?.content).toMatch(/admins only/);
    expect(await exists(skillFile(run))).toBe(true);
    expect(run.emulator.messages.find((message) => message.id === question.id)?.edits).toBe(1);
  });

  it("a forged custom_id and an expired button are refused", async () => {
    const run = await boot();
    const question = await slash(run, admin, "archive", { skill: "pdf-tools" });
    const forged = await run.press({
      user: admin,
      messageId: question.id,
      customId: "curator archive pdf-tools -y",
    });
    expect(ephemeralFor(run, forged)?.content).toMatch(/not one this gateway showed/);
    run.advance(25 * 3_600_000);
    const expired = await run.press({ user: admin, messageId: question.id, label: "Confirm" });
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
    await run.press({ user: admin, messageId: summary.id, label: "Restore old-stale" });
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
      await run.press({ user: member, messageId: list.id, label: "Next ›" });
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
