/**
 * End to end on Discord (real discord.js against the loopback emulator): an admin disables a skill for
 * Discord from a slash command confirmed with the Confirm button (config.yaml edited in place), a
 * read-only member cannot, a concurrent save is detected, readiness lists a missing command and an unset
 * setting, and a missing secret is set through the modal the "Set KEY" button opens — stored in .env
 * with mode 0600 and found nowhere else: not in a log line, a message the bot sent, or any other file.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { EmulatedInteraction, EmulatedMessage, EmulatorUser } from "../emulators/discord.js";
import { saveDuring } from "../support/concurrent-config.js";
import { DISCORD_CHANNEL, DISCORD_GUILD, DISCORD_USERS, shown } from "../support/harness/discord.js";
import { usePlatform } from "../support/harness/index.js";
import { filesUnder, MISSING_COMMAND } from "../support/platform-home.js";
import { bootSkillsSetup, type SetupRun } from "../support/skills-setup.js";

vi.mock("../../src/config/edit.js", async (importOriginal) => {
  const { withConcurrentSave } = await import("../support/concurrent-config.js");
  return withConcurrentSave(await importOriginal());
});

const GUILD = DISCORD_GUILD;
const CHANNEL = DISCORD_CHANNEL;
const admin: EmulatorUser = DISCORD_USERS.admin;
const member: EmulatorUser = DISCORD_USERS.member;
const KEY = "SKILLGATE_DISCORD_SETUP_WEATHER_KEY";
const VALUE = "dc-secret-VALUE-7f3a9";

const CONFIG = (api: string) => `# operator notes: keep this line
zeta: untouched   # a key skillgate does not read, first on purpose
skills:
  disabled: []   # nothing hidden globally
gateway:
  admins: ["discord:${admin.id}", "mock:admin"]
  allowed_users: ["discord:${member.id}", "mock:reader"]
  health: { enabled: false }
  discord: { enabled: true, api: "${api}" }
`;

type Running = SetupRun<"discord">;

const start = usePlatform("discord");

function boot(): Promise<Running> {
  return bootSkillsSetup(start, KEY, (emulator) => CONFIG(emulator.apiBase));
}

/** A slash command in #general; resolves with its answered reply. */
async function slash(
  run: Running,
  user: EmulatorUser,
  name: string,
  subcommand: string | undefined,
  options: Record<string, string | boolean>,
): Promise<EmulatedMessage> {
  return (await run.slash(user, name, subcommand, options)).original;
}

function ephemeralFor(run: Running, record: EmulatedInteraction): EmulatedMessage | undefined {
  return run.emulator.messages.find((message) => message.interactionId === record.id && message.ephemeral);
}

describe("discord: skills set up from chat", () => {
  it("an admin disables a skill for discord with the Confirm button: autocomplete and /skill drop it there, it loads elsewhere; a member cannot; config.yaml keeps every other byte", async () => {
    const run = await boot();
    const before = await fs.readFile(run.file, "utf8");
    const asked = await slash(run, admin, "skills", "disable", { name: "weather", platform: "discord" });
    expect(shown(asked.content)).toContain("Disable `weather` on discord");
    expect(asked.components.flatMap((row) => row.components.map((button) => button.label))).toEqual([
      "Confirm",
      "Cancel",
    ]);
    expect(await fs.readFile(run.file, "utf8")).toBe(before);
    const confirm = asked.components[0]?.components[0]?.custom_id ?? "";

    // A member's press is judged for the member: an ephemeral refusal, nothing written.
    const byMember = await run.press({ user: member, messageId: asked.id, customId: confirm });
    expect(ephemeralFor(run, byMember)?.content).toContain("for admins only");
    expect(await fs.readFile(run.file, "utf8")).toBe(before);

    await run.press({ user: admin, messageId: asked.id, customId: confirm });
    const edited = run.emulator.messages.find((message) => message.id === asked.id);
    expect(shown(edited?.content ?? "")).toContain("✓ `weather` disabled on discord");
    const after = await fs.readFile(run.file, "utf8");
    expect(after).toBe(
      before.replace(
        "  disabled: []   # nothing hidden globally\n",
        "  disabled: []   # nothing hidden globally\n  platform_disabled:\n    discord: [weather]\n",
      ),
    );
    const twice = await run.press({ user: admin, messageId: asked.id, customId: confirm });
    expect(ephemeralFor(run, twice)?.content).toMatch(/already answered/);
    expect(await fs.readFile(run.file, "utf8")).toBe(after);

    const where = { guildId: GUILD, channelId: CHANNEL, name: "skill", focused: "name" };
    const names = (await run.emulator.autocomplete({ ...where, user: member, options: { name: "" } })).map(
      (choice) => choice.name,
    );
    expect(names).toContain("arxiv");
    expect(names).not.toContain("weather");
    const refused = await slash(run, member, "skill", undefined, { name: "weather" });
    expect(shown(refused.content)).toMatch(/weather.*disabled for discord/);
    await run.mock.shouldReply("/skill weather", "Skill loaded: weather", { user: "reader" });

    const denied = await slash(run, member, "skills", "disable", { name: "arxiv", yes: true });
    expect(shown(denied.content)).toContain("for admins only");
    expect(await fs.readFile(run.file, "utf8")).toBe(after);
  });

  it("a concurrent save of config.yaml during a chat edit is detected and nothing is overwritten", async () => {
    const run = await boot();
    const theirs = `${await fs.readFile(run.file, "utf8")}# saved by someone else meanwhile\n`;
    saveDuring(() => fs.writeFile(run.file, theirs));
    const reply = await slash(run, admin, "skills", "disable", {
      name: "weather",
      platform: "discord",
      yes: true,
    });
    expect(shown(reply.content)).toContain("changed while skillgate was editing it");
    expect(await fs.readFile(run.file, "utf8")).toBe(theirs);
    const loaded = await slash(run, member, "skill", undefined, { name: "weather" });
    expect(shown(loaded.content)).toContain("Skill loaded: weather");
  });

  it("a skill declaring a missing command and an unset setting shows both", async () => {
    const run = await boot();
    const card = await slash(run, member, "skill", undefined, { name: "deployer" });
    expect(shown(card.content)).toContain(`command \`${MISSING_COMMAND}\` is not on PATH`);
    expect(shown(card.content)).toContain("setting `deployer.region` is not set (Which region?)");
  });

  it("a secret typed into the Set KEY modal lands in .env (0600) and nowhere else; the button is the admin's only", async () => {
    const run = await boot();
    const card = await slash(run, admin, "skill", undefined, { name: "weather" });
    expect(shown(card.content)).toContain(`Set ${KEY}`);
    const button = (card.components as { components: { custom_id: string; label: string }[] }[])[0]
      ?.components[0];
    expect(button?.label).toBe(`Set ${KEY}`);
    const customId = button?.custom_id ?? "";

    // Someone else clicking gets a private refusal and no modal.
    const other = run.emulator.pressButton({ user: member, messageId: card.id, customId });
    await run.emulator.waitForCall(
      (call) => call.path === `/interactions/${other.id}/${other.token}/callback`,
    );
    expect(other.callbacks[0]?.type).toBe(4);
    expect(JSON.stringify(other.callbacks[0]?.data)).toContain("for admins only");

    const click = run.emulator.pressButton({ user: admin, messageId: card.id, customId });
    await run.emulator.waitForCall(
      (call) => call.path === `/interactions/${click.id}/${click.token}/callback`,
    );
    expect(click.callbacks[0]?.type).toBe(9);
    const modal = click.callbacks[0]?.data as { custom_id: string; title: string };
    expect(modal.title).toBe(`Set ${KEY}`);

    const submit = run.emulator.submitModal({
      user: admin,
      channelId: CHANNEL,
      guildId: GUILD,
      customId: modal.custom_id,
      values: { value: VALUE },
    });
    const answer = await run.emulator.waitForMessage((message) => message.interactionId === submit.id);
    expect(shown(answer.content)).toContain(`\`${KEY}\` set ✓`);
    expect(shown(answer.content)).toContain("weather: ready.");

    const envFile = path.join(run.home, ".env");
    expect(await fs.readFile(envFile, "utf8")).toBe(`${KEY}=${VALUE}\n`);
    expect((await fs.stat(envFile)).mode & 0o777).toBe(0o600);

    // A replayed submission of the same modal is refused and changes nothing.
    const replay = run.emulator.submitModal({
      user: admin,
      channelId: CHANNEL,
      guildId: GUILD,
      customId: modal.custom_id,
      values: { value: "replayed-value" },
    });
    await run.emulator.waitForCall(
      (call) => call.path === `/interactions/${replay.id}/${replay.token}/callback`,
    );
    expect(JSON.stringify(replay.callbacks[0]?.data)).toContain("already used");
    expect(await fs.readFile(envFile, "utf8")).toBe(`${KEY}=${VALUE}\n`);

    await run.gateway.stop();
    for (const message of run.emulator.messages) expect(message.content).not.toContain(VALUE);
    for (const call of run.emulator.calls) expect(JSON.stringify(call.body ?? null)).not.toContain(VALUE);
    expect(run.logText()).not.toContain(VALUE);
    expect(run.logText()).toContain("a secret was set through a private input");
    for (const file of await filesUnder(run.home)) {
      if (file === envFile) continue;
      expect(await fs.readFile(file, "utf8"), file).not.toContain(VALUE);
    }
  });

  it("an admin whose Discord speaks Chinese gets the Set KEY modal in Chinese", async () => {
    const run = await boot();
    const chinese = { ...admin, locale: "zh-CN" };
    const card = await slash(run, chinese, "skill", undefined, { name: "weather" });
    const button = (card.components as { components: { custom_id: string; label: string }[] }[])[0]
      ?.components[0];
    expect(button?.label).toBe(`设置 ${KEY}`);
    const click = run.emulator.pressButton({
      user: chinese,
      messageId: card.id,
      customId: button?.custom_id ?? "",
    });
    await run.emulator.waitForCall(
      (call) => call.path === `/interactions/${click.id}/${click.token}/callback`,
    );
    expect(click.callbacks[0]?.type).toBe(9);
    const modal = click.callbacks[0]?.data as {
      title: string;
      components: { label: string; description: string }[];
    };
    expect(modal.title).toBe(`设置 ${KEY}`);
    expect(modal.components[0]?.description).toMatch(/\.env 文件/);
    expect(modal.components[0]?.description).not.toMatch(/[A-Za-z]{2,} [A-Za-z]{2,}/);
  });
});
