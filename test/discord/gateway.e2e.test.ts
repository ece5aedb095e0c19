/**
 * End to end: the real gateway with the real Discord adapter (discord.js) against the loopback Discord
 * emulator — slash commands in a guild, text commands in a DM, chunked answers, access rules, skill
 * visibility, secret hints, the maintenance summary, command registration and autocomplete.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { createMockAdapter } from "../../adapters/mock/index.js";
import { acquireLock } from "../../src/core/fsutil.js";
import { type EmulatorUser, visibleText } from "../emulators/discord.js";
import { finalText, startOpenAIEmulator, toolCalls } from "../emulators/openai.js";
import {
  DISCORD_CHANNEL,
  DISCORD_DMS,
  DISCORD_GUILD,
  DISCORD_HOME_CHANNEL,
  DISCORD_USERS,
  shown,
} from "../support/harness/discord.js";
import { type PlatformRun, until, usePlatform } from "../support/harness/index.js";
import { makeCuratorDue, writeArxivAndWeather, writeTestSkill } from "../support/platform-home.js";

const GUILD = DISCORD_GUILD;
const CHANNEL = DISCORD_CHANNEL;
const HOME_CHANNEL = DISCORD_HOME_CHANNEL;
const DM_CHANNEL = DISCORD_DMS.admin;
const admin: EmulatorUser = DISCORD_USERS.admin;
const member: EmulatorUser = DISCORD_USERS.member;
const MISSING_SECRET = "SKILLGATE_DISCORD_E2E_WEATHER_KEY";
const DAY_MS = 24 * 60 * 60 * 1000;
const TELEGRAM_ADMIN = "4242";
const LLM_KEY_VAR = "SKILLGATE_DISCORD_E2E_LLM_KEY";

type Running = PlatformRun<"discord">;

/** The 10,000+ character file the long-answer test reads back. */
function longFile(): string {
  return Array.from(
    { length: 400 },
    (_unused, index) => `row ${String(index).padStart(4, "0")}: ${"abcdefgh ".repeat(2)}`,
  ).join("\n");
}

/** The home: `arxiv` (disabled for discord), `weather` (needs a missing secret), `pdf-tools` with a long file. */
async function makeHome(home: string): Promise<void> {
  await writeArxivAndWeather(home, MISSING_SECRET);
  const pdf = await writeTestSkill(home, "documents", "pdf-tools");
  await mkdir(path.join(pdf, "references"), { recursive: true });
  await writeFile(path.join(pdf, "references", "long.txt"), longFile());
  await writeTestSkill(home, "documents", "pdf-forms");
}

/** Idle time counts from the gateway's start, and these tests tick right after boot. */
const CURATOR = { min_idle_hours: 0 };

const boot = usePlatform("discord", {
  prepare: makeHome,
  config: {
    curator: CURATOR,
    skills: { platform_disabled: { discord: ["arxiv"] } },
    gateway: {
      admins: [`discord:${admin.id}`, `telegram:${TELEGRAM_ADMIN}`],
      home_channel: `discord:${HOME_CHANNEL}`,
      // Room for the chunking tests below; the budget itself is tested in test/hostile/reply-budget.
      max_reply_messages: 10,
    },
  },
});

/** Sends a slash command (in #general unless `where` says otherwise) and resolves with its answered reply. */
function slash(
  run: Running,
  user: EmulatorUser,
  name: string,
  subcommand?: string,
  options?: Record<string, string | number | boolean>,
  where?: { channelId: string; guildId?: string },
) {
  return run.slash(user, name, subcommand, options, where);
}

describe("discord e2e through the real gateway", () => {
  it("answers /curator status as a slash command in a guild, deferring first", async () => {
    const run = await boot();
    const { sent, original } = await slash(run, admin, "curator", "status");
    expect(sent.callbacks.map((callback) => callback.type)).toEqual([5]);
    expect(original.edits).toBe(1);
    expect(original.createdSeq).toBeLessThan(original.updatedSeq);
    expect(shown(visibleText(original))).toMatch(/curator: ENABLED/);
    expect(original.channelId).toBe(CHANNEL);
  });

  it("answers /curator status typed as text in a DM, and when mentioned in a guild", async () => {
    const run = await boot();
    const dm = run.emulator.userMessage({ user: member, channelId: DM_CHANNEL, content: "/curator status" });
    const dmReply = await run.emulator.waitForMessage((message) => message.replyTo === dm);
    expect(dmReply.channelId).toBe(DM_CHANNEL);
    expect(shown(visibleText(dmReply))).toMatch(/curator: ENABLED/);

    const mention = run.emulator.userMessage({
      user: member,
      guildId: GUILD,
      channelId: CHANNEL,
      content: `<@${run.emulator.bot.id}> /curator status`,
    });
    const mentionReply = await run.emulator.waitForMessage((message) => message.replyTo === mention);
    expect(mentionReply.channelId).toBe(CHANNEL);
    expect(shown(visibleText(mentionReply))).toMatch(/curator: ENABLED/);
  });

  it("ignores an unmentioned guild message", async () => {
    const run = await boot();
    const ignored = run.emulator.userMessage({
      user: admin,
      guildId: GUILD,
      channelId: CHANNEL,
      content: "/curator status",
    });
    const later = run.emulator.userMessage({
      user: admin,
      channelId: DM_CHANNEL,
      content: "/curator status",
    });
    await run.emulator.waitForMessage((message) => message.replyTo === later);
    await run.gateway.whenIdle();
    expect(run.emulator.messages.filter((message) => message.replyTo === ignored)).toEqual([]);
  });

  it("refuses a mutating command from a non-admin and leaves the library alone", async () => {
    const run = await boot();
    const { original } = await slash(run, member, "curator", "pause");
    expect(shown(original.content)).toMatch(/admins only/);
    expect(shown(original.content)).toContain(`discord:${member.id}`);
    const state = await readFile(path.join(run.home, "skills", ".curator_state"), "utf8").catch(() => "{}");
    expect(JSON.parse(state).paused ?? false).toBe(false);

    const { original: allowed } = await slash(run, admin, "curator", "pause");
    expect(allowed.content).not.toMatch(/admins only/);
    const after = JSON.parse(await readFile(path.join(run.home, "skills", ".curator_state"), "utf8"));
    expect(after.paused).toBe(true);
  });

  it("delivers a 10,000-character answer as the edited deferred reply plus follow-ups, complete", async () => {
    const run = await boot();
    const expected = longFile();
    expect(expected.length).toBeGreaterThanOrEqual(10_000);
    const { sent } = await slash(run, admin, "skill", undefined, {
      name: "pdf-tools",
      file: "references/long.txt",
    });
    await run.gateway.whenIdle();
    const parts = run.emulator.interactionMessages(sent.id);
    expect(parts[0]?.kind).toBe("original");
    expect(parts[0]?.edits).toBe(1);
    expect(parts.length).toBeGreaterThanOrEqual(6);
    expect(parts.slice(1).every((part) => part.kind === "followup")).toBe(true);
    for (const part of parts) expect(part.content.length).toBeLessThanOrEqual(2000);
    // Reassemble the code block: drop each chunk's fence lines (and the heading before the block).
    const body = parts
      .flatMap((part) =>
        part.content.split("\n").filter((line) => !/^```/.test(line) && !line.startsWith("**")),
      )
      .join("\n")
      .trim();
    expect(body).toBe(expected.trim());
  });

  it("refuses a skill disabled for discord and shows the missing-secret hint for another", async () => {
    delete process.env[MISSING_SECRET];
    const telegram = createMockAdapter({ platform: "telegram" });
    const run = await boot({ others: [telegram] });
    const { original: disabled } = await slash(run, admin, "skill", undefined, { name: "arxiv" });
    expect(shown(disabled.content)).toMatch(/arxiv.*disabled for discord/);
    // The same skill loads on a platform that does not disable it.
    const elsewhere = await telegram.shouldReply("/skill arxiv", "arxiv", { user: TELEGRAM_ADMIN });
    expect(elsewhere).not.toMatch(/disabled/);

    const { original: weather } = await slash(run, member, "skill", undefined, { name: "weather" });
    expect(shown(weather.content)).toContain(MISSING_SECRET);
    expect(shown(weather.content)).toMatch(/not supported over messaging/);
    expect(weather.content).not.toMatch(/disabled/);
    // An admin is offered the private input (a modal) instead of the hint.
    const { original: forAdmin } = await slash(run, admin, "skill", undefined, { name: "weather" });
    expect(shown(forAdmin.content)).toContain(`use "Set ${MISSING_SECRET}" below`);
    expect(shown(forAdmin.content)).not.toMatch(/not supported over messaging/);
  });

  it("posts the maintenance summary with the rename map to the home channel", async () => {
    const run = await boot({ prepare: makeCuratorDue });
    const outcome = await run.gateway.runMaintenanceTick();
    expect(outcome).toMatchObject({ ran: true, posted: true });
    const summary = await run.emulator.waitForMessage((message) => message.channelId === HOME_CHANNEL);
    expect(summary.kind).toBe("channel");
    const text = shown(summary.content);
    expect(text).toContain("archived 1 skill(s):");
    expect(text).toMatch(/old-stale — pruned \(stale\)/);
    expect(text).toContain("/curator status");
  });

  it("posts the consolidation rename map (old → umbrella) and the pin hint to the home channel", async () => {
    const llm = await startOpenAIEmulator();
    onTestFinished(() => llm.close());
    process.env[LLM_KEY_VAR] = "sk-discord-e2e";
    onTestFinished(() => {
      delete process.env[LLM_KEY_VAR];
    });
    const prepare = async (home: string) => {
      await makeCuratorDue(home);
      await writeTestSkill(home, "documents", "docx-extraction");
      await writeTestSkill(home, "documents", "docx-render");
      const usage = JSON.parse(await readFile(path.join(home, "skills", ".usage.json"), "utf8"));
      const recent = new Date(Date.now() - DAY_MS).toISOString();
      for (const name of ["docx-extraction", "docx-render"]) {
        usage[name] = {
          ...usage["old-stale"],
          created_by: "agent",
          use_count: 3,
          last_used_at: recent,
          created_at: recent,
        };
      }
      await writeFile(path.join(home, "skills", ".usage.json"), `${JSON.stringify(usage, null, 2)}\n`);
    };
    const umbrella =
      "---\nname: document-tools\ndescription: Everything about office documents.\n---\n\n# Document tools\n";
    llm.push(
      toolCalls({
        name: "skill_manage",
        arguments: { action: "create", name: "document-tools", category: "documents", content: umbrella },
      }),
      toolCalls(
        {
          name: "skill_manage",
          arguments: { action: "delete", name: "docx-extraction", absorbed_into: "document-tools" },
        },
        {
          name: "skill_manage",
          arguments: { action: "delete", name: "docx-render", absorbed_into: "document-tools" },
        },
      ),
      finalText("Merged the docx skills into document-tools."),
    );
    const run = await boot({
      prepare,
      config: {
        auxiliary: {
          curator: {
            provider: "custom",
            model: "curator-model",
            base_url: llm.baseUrl,
            api_key: LLM_KEY_VAR,
          },
        },
        curator: { ...CURATOR, consolidate: true },
      },
    });
    const outcome = await run.gateway.runMaintenanceTick();
    expect(outcome).toMatchObject({ ran: true, posted: true });
    const summary = await run.emulator.waitForMessage((message) => message.channelId === HOME_CHANNEL);
    const text = shown(summary.content);
    expect(text).toContain("docx-extraction → document-tools");
    expect(text).toContain("docx-render → document-tools");
    expect(text).toContain("old-stale — pruned (stale)");
    expect(text).toContain("/curator pin document-tools");
  });

  it("registers one global command set, twice over, and guild-only when guild_id is set", async () => {
    const first = await boot();
    const { home, emulator } = first;
    await first.stopGateway();
    const second = await boot({ home, emulator });
    const globalNames = emulator.globalCommands().map((command) => command.name);
    expect(globalNames).toEqual(expect.arrayContaining(["curator", "skills", "skill"]));
    expect(new Set(globalNames).size).toBe(globalNames.length);
    expect(emulator.guildCommands(GUILD)).toEqual([]);
    const skill = emulator.globalCommands().find((command) => command.name === "skill");
    expect(JSON.stringify(skill?.options)).toContain('"autocomplete":true');
    const curator = emulator.globalCommands().find((command) => command.name === "curator");
    const subcommands = ((curator?.options ?? []) as { name: string }[]).map((option) => option.name);
    expect(subcommands).toEqual(expect.arrayContaining(["status", "pin", "run", "archive", "restore"]));
    await second.stopGateway();

    const guildRun = await boot({ home, emulator, config: { gateway: { discord: { guild_id: GUILD } } } });
    expect(
      emulator
        .guildCommands(GUILD)
        .map((command) => command.name)
        .sort(),
    ).toEqual([...globalNames].sort());
    expect(emulator.globalCommands()).toEqual([]);
    await guildRun.stopGateway();

    await boot({ home, emulator });
    expect(
      emulator
        .globalCommands()
        .map((command) => command.name)
        .sort(),
    ).toEqual([...globalNames].sort());
    expect(emulator.guildCommands(GUILD)).toEqual([]);
  });

  it("autocompletes /skill name with visible skills only, and nothing for strangers", async () => {
    const run = await boot();
    const where = { guildId: GUILD, channelId: CHANNEL, name: "skill", focused: "name" };
    const all = await run.emulator.autocomplete({ ...where, user: member, options: { name: "" } });
    const names = all.map((choice) => choice.name);
    expect(names).toEqual(expect.arrayContaining(["pdf-tools", "pdf-forms", "weather"]));
    expect(names).not.toContain("arxiv");
    const pdf = await run.emulator.autocomplete({ ...where, user: member, options: { name: "pdf" } });
    expect(pdf.map((choice) => choice.name).sort()).toEqual(["pdf-forms", "pdf-tools"]);
    const ar = await run.emulator.autocomplete({ ...where, user: member, options: { name: "ar" } });
    expect(ar).toEqual([]);
    const stranger = await run.emulator.autocomplete({
      ...where,
      user: { id: "999", username: "eve" },
      options: { name: "" },
    });
    expect(stranger).toEqual([]);
  });

  it("defers the reply before a slow command finishes", async () => {
    const run = await boot();
    // Hold the usage lock: loading a skill bumps its usage, so the command waits until we let go.
    const lock = await acquireLock(path.join(run.home, "skills", ".usage.json.lock"));
    let released = false;
    try {
      const sent = run.emulator.interaction({
        user: admin,
        guildId: GUILD,
        channelId: CHANNEL,
        name: "skill",
        options: { name: "pdf-tools" },
      });
      await run.emulator.waitForCall(
        (call) => call.path === `/interactions/${sent.id}/${sent.token}/callback`,
      );
      expect(sent.callbacks.map((callback) => callback.type)).toEqual([5]);
      // The command is queued or running, and cannot finish while the lock is held.
      await until(() => run.gateway.inFlight > 0, "the command is in flight");
      const original = run.emulator.interactionMessages(sent.id)[0];
      expect(original?.deferred).toBe(true);
      expect(original?.edits).toBe(0);
      await lock.release();
      released = true;
      const answered = await run.emulator.waitForMessage(
        (message) => message.interactionId === sent.id && !message.deferred,
      );
      expect(shown(answered.content)).toContain("pdf-tools");
      expect(answered.updatedSeq).toBeGreaterThan(sent.callbacks[0]?.seq ?? Number.POSITIVE_INFINITY);
    } finally {
      if (!released) await lock.release();
    }
  });

  it("answers a slash command in a DM", async () => {
    const run = await boot();
    const { original } = await slash(run, member, "curator", "status", undefined, { channelId: DM_CHANNEL });
    expect(original.channelId).toBe(DM_CHANNEL);
    expect(shown(visibleText(original))).toMatch(/curator: ENABLED/);
  });
});
