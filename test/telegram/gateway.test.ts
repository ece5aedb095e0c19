/**
 * End to end: the real gateway with the real Telegram adapter (grammy) against the Bot API emulator,
 * over a temp home with real skills. Each check goes from a user's update to what the emulator saw the
 * bot send. "Nothing was sent" is proven by ordering: a later message in the same chat is answered first.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isoTimestamp } from "../../src/core/fsutil.js";
import { english } from "../../src/core/i18n/messages.js";
import { NO_AGENT_REPLY } from "../../src/gateway/gateway.js";
import { parseSkillMd } from "../../src/skills/frontmatter.js";
import { emptyRecord } from "../../src/skills/usage-record.js";
import { isSkillVisible } from "../../src/skills/visibility.js";
import { usePlatform } from "../support/harness/index.js";
import { TELEGRAM_IDS } from "../support/harness/telegram.js";
import { waitFor } from "./helpers.js";

const ADMIN = TELEGRAM_IDS.admin;
const USER = TELEGRAM_IDS.member;
const HOME_CHAT = -100777;
const DAY = 86_400_000;
const SECRET_VAR = "SKILLGATE_TG_E2E_WEATHER_KEY";
const MARKER = /\n\(\d+\/\d+\)$/;

async function writeSkill(
  home: string,
  rel: string,
  frontmatter: string,
  files: Record<string, string> = {},
): Promise<void> {
  const dir = path.join(home, "skills", rel);
  await mkdir(dir, { recursive: true });
  const name = path.basename(rel);
  await writeFile(
    path.join(dir, "SKILL.md"),
    `---\nname: ${name}\ndescription: ${name} helper for tests\n${frontmatter}---\n\nHow to use ${name}.\n`,
  );
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  }
}

/** 250 numbered lines, ~11,000 characters. */
const BIG_FILE = Array.from(
  { length: 250 },
  (_, index) => `${String(index).padStart(3, "0")} the quick brown fox & <friends> ${"·".repeat(10)}`,
).join("\n");

async function seedLibrary(home: string): Promise<void> {
  await writeSkill(home, "research/arxiv", "");
  await writeSkill(home, "devops/pdf-tools", "");
  await writeSkill(home, "devops/big-skill", "", { "references/big.md": BIG_FILE });
  await writeSkill(
    home,
    "weather/weather",
    `required_environment_variables:\n  - name: ${SECRET_VAR}\n    prompt: Weather API key\n`,
  );
}

const start = usePlatform("telegram", {
  prepare: seedLibrary,
  config: {
    gateway: { home_channel: `telegram:${HOME_CHAT}` },
    skills: { platform_disabled: { telegram: ["arxiv"] } },
  },
});

/** The member, speaking in the shared supergroup. */
const IN_GROUP = { userId: USER, chatId: -100500, chatType: "supergroup" } as const;

/** A gateway over Telegram on a seeded library (the weather secret unset). */
function boot(options: Parameters<typeof start>[0] = {}) {
  delete process.env[SECRET_VAR];
  return start(options);
}

describe("telegram ↔ gateway", () => {
  it("answers /curator status in a DM and /curator@bot status in a group, from the gateway", async () => {
    const run = await boot();
    const [dm] = await run.ask({ userId: ADMIN, text: "/curator status" });
    expect(dm?.plain).toMatch(/^curator: ENABLED/);
    expect(dm?.parse_mode).toBe("HTML");

    const [group] = await run.ask({ ...IN_GROUP, text: "/curator@SkillgateBot status" });
    expect(group?.plain).toMatch(/^curator: ENABLED/);
    // In a group the first chunk quotes the user's message.
    expect(group?.reply_to_message_id).toBeTypeOf("number");

    const [bare] = await run.ask({ ...IN_GROUP, text: "/curator" });
    expect(bare?.plain).toMatch(/^curator: ENABLED/);
  });

  it("refuses a mutating command from a non-admin and runs it for an admin", async () => {
    const run = await boot();
    const { home } = run;
    const [refused] = await run.ask({ userId: USER, text: "/curator pause" });
    expect(refused?.plain).toMatch(/for admins only/);
    const state = () =>
      readFile(path.join(home, "skills", ".curator_state"), "utf8")
        .then((text) => JSON.parse(text) as { paused: boolean })
        .catch(() => ({ paused: false }));
    expect((await state()).paused).toBe(false);

    const [done] = await run.ask({ userId: ADMIN, text: "/curator pause" });
    expect(done?.plain).not.toMatch(/for admins only/);
    expect((await state()).paused).toBe(true);
  });

  it("delivers a 10,000-character reply in complete chunks of at most 4096 units", async () => {
    const run = await boot();
    const { emulator } = run;
    const since = emulator.sent.length;
    emulator.userSays({ userId: ADMIN, text: "/skill big-skill references/big.md" });
    const first = await emulator.waitForMessage((message) => message.chat_id === String(ADMIN), 8000, since);
    const total = Number(/\((\d+)\/(\d+)\)$/.exec(first.plain)?.[2]);
    expect(total).toBeGreaterThanOrEqual(3);
    const chunks = await emulator.waitForMessages(
      total,
      (message) => message.chat_id === String(ADMIN),
      8000,
      since,
    );
    for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(4096);
    const text = chunks.map((chunk) => chunk.plain.replace(MARKER, "")).join("");
    expect(text).toContain(BIG_FILE);
  });

  it("refuses a skill disabled for telegram, which stays visible on another platform", async () => {
    const run = await boot();
    const { home, config } = run;
    const [refused] = await run.ask({ userId: ADMIN, text: "/arxiv find papers on curators" });
    expect(refused?.plain).toMatch(/arxiv.*disabled for telegram/);
    const { frontmatter } = parseSkillMd(
      await readFile(path.join(home, "skills", "research", "arxiv", "SKILL.md"), "utf8"),
    );
    expect(isSkillVisible("arxiv", frontmatter, "telegram", config)).toBe(false);
    expect(isSkillVisible("arxiv", frontmatter, "discord", config)).toBe(true);

    const [loaded] = await run.ask({ userId: ADMIN, text: "/pdf_tools extract tables" });
    expect(loaded?.plain).toMatch(/Skill loaded: pdf-tools/);
  });

  it("loads a skill with a missing secret and tells the user what is missing and how to set it", async () => {
    const run = await boot();
    const [answer] = await run.ask({ userId: USER, text: "/weather tomorrow in Oslo" });
    expect(answer?.plain).toMatch(/Skill loaded: weather/);
    expect(answer?.plain).toContain(SECRET_VAR);
    expect(answer?.plain).toMatch(/not supported over messaging/);
  });

  it("registers a valid, non-empty command menu without skills disabled for telegram", async () => {
    const run = await boot();
    const { emulator } = run;
    const menu = emulator.menus.get("default") ?? [];
    expect(menu.length).toBeGreaterThan(0);
    const names = menu.map((entry) => entry.command);
    expect(names).toEqual(
      expect.arrayContaining(["curator", "skills", "help", "pdf_tools", "big_skill", "weather"]),
    );
    expect(names).not.toContain("arxiv");
    for (const entry of menu) expect(entry.command).toMatch(/^[a-z0-9_]{1,32}$/);
    for (const call of emulator.callsOf("setMyCommands"))
      expect((call.params.commands as unknown[]).length).toBeGreaterThan(0);
  });

  it("replies inside the forum topic the command came from", async () => {
    const run = await boot();
    const [answer] = await run.ask({
      userId: USER,
      chatId: -100888,
      threadId: 42,
      text: "/curator status",
    });
    expect(answer?.message_thread_id).toBe(42);
    expect(answer?.plain).toMatch(/^curator: ENABLED/);
  });

  it("never runs an edited command, a command for another bot, or a path as a command", async () => {
    const run = await boot();
    const { emulator, home } = run;
    const since = emulator.sent.length;
    emulator.userSays({ userId: ADMIN, text: "/curator pause", edited: true });
    emulator.userSays({ userId: ADMIN, text: "/curator@OtherHelperBot pause" });
    const [text] = await run.ask({ userId: ADMIN, text: "/etc/hosts is broken" });
    expect(text?.plain).toBe(htmlless(english(NO_AGENT_REPLY)));
    expect(emulator.sent.slice(since).filter((message) => message.chat_id === String(ADMIN))).toHaveLength(1);
    const state = await readFile(path.join(home, "skills", ".curator_state"), "utf8").catch(() => "{}");
    expect((JSON.parse(state) as { paused?: boolean }).paused ?? false).toBe(false);
  });

  it("posts the maintenance summary with the rename map to the home chat", async () => {
    const now = Date.now();
    const { emulator, gateway } = await boot({
      config: { curator: { min_idle_hours: 0 } },
      prepare: async (home) => {
        await writeSkill(home, "misc/old-stale", "");
        const old = {
          ...emptyRecord(isoTimestamp(new Date(now - 400 * DAY))),
          created_by: "agent",
          use_count: 1,
          last_used_at: isoTimestamp(new Date(now - 200 * DAY)),
        };
        await writeFile(
          path.join(home, "skills", ".usage.json"),
          JSON.stringify({ "old-stale": old }, null, 2),
        );
        const state = {
          last_run_at: isoTimestamp(new Date(now - 10 * DAY)),
          last_run_duration_seconds: 1,
          last_run_summary: "auto: no changes",
          last_run_summary_shown_at: null,
          last_report_path: null,
          paused: false,
          run_count: 1,
        };
        await writeFile(path.join(home, "skills", ".curator_state"), JSON.stringify(state, null, 2));
      },
    });
    const since = emulator.sent.length;
    const outcome = await gateway.runMaintenanceTick();
    expect(outcome).toMatchObject({ ran: true, posted: true });
    const [summary] = await emulator.waitForMessages(
      1,
      (message) => message.chat_id === String(HOME_CHAT),
      8000,
      since,
    );
    expect(summary?.plain).toMatch(/archived 1 skill\(s\):/);
    expect(summary?.plain).toMatch(/old-stale — pruned \(stale\)/);
    expect(summary?.plain).toMatch(/\/curator status/);
  });

  it("after a restart answers each update queued while down exactly once", async () => {
    const run = await boot();
    const { emulator } = run;
    await run.ask({ userId: ADMIN, text: "/whoami" });
    await run.stopGateway();
    const since = emulator.sent.length;
    const chats = [3001, 3002, 3003, 3004, 3005];
    for (const chat of chats)
      emulator.userSays({ userId: USER, chatId: -chat, chatType: "group", text: "/curator status" });
    await run.restart();
    await emulator.waitForMessages(chats.length, () => true, 8000, since);
    // A message after the backlog proves everything before it was handled; nothing came twice.
    await run.ask({ userId: ADMIN, text: "/whoami" });
    const answered = emulator.sent.slice(since).map((message) => message.chat_id);
    expect(answered.filter((id) => id !== String(ADMIN)).sort()).toEqual(
      chats.map((chat) => String(-chat)).sort(),
    );
    expect(answered.filter((id) => id === String(ADMIN))).toHaveLength(1);
  });

  it("reports a 409 conflict on /healthz and recovers by itself", async () => {
    const run = await boot({
      config: { gateway: { health: { enabled: true, port: 0 } } },
      prepare: (_home, emulator) =>
        emulator.failNext(
          "getUpdates",
          {
            error_code: 409,
            description:
              "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
          },
          4,
        ),
    });
    type Health = { status: string; adapters: { telegram?: { state: string; detail?: string } } };
    const probe = async () => {
      const response = await fetch(run.gateway.healthUrl ?? "");
      return { code: response.status, body: (await response.json()) as Health };
    };
    let degraded: Health | undefined;
    await waitFor(async () => {
      const { body } = await probe();
      if (body.adapters.telegram?.state === "degraded") degraded = body;
      return degraded !== undefined;
    });
    expect(degraded?.adapters.telegram?.detail).toMatch(
      /409 Conflict: another process is polling this bot token/,
    );
    expect(degraded?.status).toBe("degraded");
    const [answer] = await run.ask({ userId: ADMIN, text: "/curator status" });
    expect(answer?.plain).toMatch(/^curator: ENABLED/);
    expect((await probe()).code).toBe(200);
  });

  it("waits out 429 retry_after and falls back to plain text on a parse error, each reply arriving once", async () => {
    const run = await boot();
    const { emulator } = run;
    emulator.failNext("sendMessage", {
      error_code: 429,
      description: "Too Many Requests: retry after 1",
      parameters: { retry_after: 1 },
    });
    const [flooded] = await run.ask({ userId: ADMIN, text: "/curator status" });
    expect(flooded?.plain).toMatch(/^curator: ENABLED/);
    const sends = emulator.callsOf("sendMessage").filter((call) => call.params.chat_id === ADMIN);
    expect(sends.map((call) => call.error?.error_code ?? 200)).toEqual([429, 200]);
    expect((sends[1]?.at ?? 0) - (sends[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);

    emulator.failNext("sendMessage", {
      error_code: 400,
      description: "Bad Request: can't parse entities: Unexpected end tag at byte offset 12",
    });
    const [plain] = await run.ask({ userId: ADMIN, text: "/curator status" });
    expect(plain?.parse_mode).toBeUndefined();
    expect(plain?.plain).toBe(flooded?.plain);
    expect(emulator.sent.filter((message) => message.chat_id === String(ADMIN))).toHaveLength(2);
  });
});

/** The visible text of a reply built from `text` (backtick spans lose their backticks). */
function htmlless(text: string): string {
  return text.replace(/`([^`]*)`/g, "$1");
}
