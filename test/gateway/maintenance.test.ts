import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createMockAdapter } from "../../adapters/mock/index.js";
import { registry } from "../../commands/index.js";
import type { CommandSpec } from "../../commands/types.js";
import { parseConfig, type SkillgateConfig } from "../../src/config/config.js";
import { silentLogger } from "../../src/core/logger.js";
import { textReply } from "../../src/core/reply.js";
import { createManageSession, recordView, skillManage } from "../../src/curator/manage.js";
import type { ConsolidationOutcome, Consolidator } from "../../src/curator/types.js";
import { createGateway } from "../../src/gateway/gateway.js";
import { FIRST_CHECK_DELAY_MS, MaintenanceTicker } from "../../src/gateway/maintenance.js";
import { openLibrary } from "../../src/skills/library.js";
import {
  Clock,
  DAY,
  freshHomeEachTest,
  gatewayDoc,
  HOUR,
  startGateway,
  writeConfig,
  writeSkill,
  writeUsage,
} from "./helpers.js";

let home: string;
const T0 = Date.UTC(2026, 2, 1, 12);

freshHomeEachTest((made) => {
  home = made;
});

async function readState(): Promise<Record<string, unknown>> {
  return JSON.parse(await fs.readFile(path.join(home, "skills", ".curator_state"), "utf8"));
}

/** A home whose curator was seeded `daysAgo` days before `now`, with one stale agent-created skill. */
async function dueHome(now: number, extra: Record<string, unknown> = {}) {
  const config = await writeConfig(home, {
    gateway: gatewayDoc({ home_channel: "mock:home-chat" }),
    ...extra,
  });
  await writeSkill(home, { name: "old-notes" });
  await writeSkill(home, { name: "fresh-notes" });
  await writeUsage(home, now, { "old-notes": 120, "fresh-notes": 1 });
  await fs.writeFile(
    path.join(home, "skills", ".curator_state"),
    JSON.stringify({ last_run_at: new Date(now - 8 * DAY).toISOString(), paused: false, run_count: 1 }),
  );
  return config;
}

function homePosts(mock: ReturnType<typeof createMockAdapter>) {
  return mock.sent.filter((sent) => sent.target.chatId === "home-chat" && !sent.inReplyTo);
}

/**
 * Starts a gateway with `consolidator` on a clock at T0, lets three idle hours pass, runs a maintenance tick
 * (which must run and post) and returns the text of the first post to the home chat.
 */
async function postedAfterIdle(config: SkillgateConfig, consolidator: Consolidator) {
  const clock = new Clock(T0);
  const { gateway, mock } = await startGateway({ home, config, now: clock.now, consolidator });
  clock.advance(3 * HOUR);
  expect(await gateway.runMaintenanceTick()).toMatchObject({ ran: true, posted: true });
  return { gateway, text: homePosts(mock)[0]?.text ?? "" };
}

describe("maintenance tick", () => {
  it("first tick on a fresh home only seeds last_run_at and posts nothing", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc({ home_channel: "mock:home-chat" }) });
    await writeSkill(home, { name: "old-notes" });
    await writeUsage(home, T0, { "old-notes": 200 });
    const clock = new Clock(T0);
    const { gateway, mock } = await startGateway({ home, config, now: clock.now });
    const outcome = await gateway.runMaintenanceTick();
    expect(outcome).toMatchObject({ ran: false, posted: false });
    expect(outcome.reason).toMatch(/first run/);
    expect(new Date(String((await readState()).last_run_at)).getTime()).toBe(T0);
    await expect(fs.access(path.join(home, "skills", "old-notes"))).resolves.toBeUndefined();
    expect(homePosts(mock)).toHaveLength(0);
    await gateway.stop();
  });

  it("due and idle: one run and one post with the rename map; the next tick does nothing", async () => {
    const config = await dueHome(T0);
    const clock = new Clock(T0);
    const { gateway, mock } = await startGateway({ home, config, now: clock.now });
    // Idle time counts from the gateway's start: past min_idle_hours (2) now.
    clock.advance(3 * HOUR);
    const outcome = await gateway.runMaintenanceTick();
    expect(outcome).toEqual({ ran: true, reason: "due", posted: true });
    const posts = homePosts(mock);
    expect(posts).toHaveLength(1);
    expect(posts[0]?.text).toContain("archived 1 skill(s):");
    expect(posts[0]?.text).toContain("old-notes — pruned (stale)");
    expect(posts[0]?.text).toContain("/curator status");
    expect(posts[0]?.text).not.toContain("keep an umbrella stable");
    await expect(fs.access(path.join(home, "skills", "old-notes"))).rejects.toThrow();
    clock.advance(HOUR);
    expect(await gateway.runMaintenanceTick()).toMatchObject({
      ran: false,
      reason: "not due",
      posted: false,
    });
    expect(homePosts(mock)).toHaveLength(1);
    await gateway.stop();
  });

  it("posts the umbrella rename and the pin hint after a consolidation (scenario 33)", async () => {
    const config = await dueHome(T0, { curator: { consolidate: true } });
    await writeSkill(home, { name: "docx-extraction" });
    await writeSkill(home, { name: "document-tools" });
    await writeUsage(home, T0, {
      "old-notes": 120,
      "fresh-notes": 1,
      "docx-extraction": 3,
      "document-tools": 2,
    });
    const fake: Consolidator = async (input) => {
      if (!input.dryRun) {
        await fs.mkdir(path.join(home, "skills", ".archive"), { recursive: true });
        await fs.rename(
          path.join(home, "skills", "docx-extraction"),
          path.join(home, "skills", ".archive", "docx-extraction"),
        );
      }
      const outcome: ConsolidationOutcome = {
        consolidated: [
          { name: "docx-extraction", into: "document-tools", source: "agent", reason: "overlap" },
        ],
        pruned: [],
        added: [],
        toolCalls: [],
        model: "fake",
        provider: "test",
        final: "merged",
        summary: "1 consolidated",
        error: null,
        cronRewrites: null,
      };
      return outcome;
    };
    const { gateway, text } = await postedAfterIdle(config, fake);
    expect(text).toContain("archived 2 skill(s):");
    expect(text).toContain("docx-extraction → document-tools");
    expect(text).toContain("old-notes — pruned (stale)");
    expect(text).toContain("keep an umbrella stable: `/curator pin document-tools`");
    await gateway.stop();
  });

  it("the home chat's summary lists the skills whose content the consolidation changed, old → new version", async () => {
    const config = await dueHome(T0, { curator: { consolidate: true } });
    await writeSkill(home, { name: "document-tools", frontmatter: { version: "1.0.0" } });
    await writeSkill(home, { name: "pdf-notes" });
    await writeUsage(home, T0, { "old-notes": 120, "fresh-notes": 1, "document-tools": 2, "pdf-notes": 2 });
    const fake: Consolidator = async (input) => {
      if (!input.dryRun) {
        const session = createManageSession({ origin: "background_review" });
        const ctx = { home, config: input.config, library: input.library, session };
        for (const [name, old_string, new_string] of [
          ["document-tools", "version: 1.0.0", "version: 1.1.0"],
          ["pdf-notes", "Body of pdf-notes.", "Body of pdf-notes, sharper."],
        ] as const) {
          recordView(session, name);
          expect(await skillManage(ctx, { action: "patch", name, old_string, new_string })).toMatchObject({
            success: true,
          });
        }
      }
      return {
        consolidated: [],
        pruned: [],
        added: [],
        toolCalls: [],
        model: "fake",
        provider: "test",
        final: "patched",
        summary: "2 patched",
        error: null,
        cronRewrites: null,
      };
    };
    const { gateway, text } = await postedAfterIdle(config, fake);
    expect(text).toContain("Skills whose content changed:");
    expect(text).toContain("document-tools: version 1.0.0 → 1.1.0");
    expect(text).toMatch(/pdf-notes\s*$/m);
    // Archived skills are not content changes.
    expect(text.slice(text.indexOf("Skills whose content changed:"))).not.toContain("old-notes");
    await gateway.stop();
  });

  it("a due run with nothing to change posts nothing", async () => {
    const config = await dueHome(T0);
    await writeUsage(home, T0, { "old-notes": 1, "fresh-notes": 1 });
    const clock = new Clock(T0);
    const { gateway, mock } = await startGateway({ home, config, now: clock.now });
    const outcome = await gateway.runMaintenanceTick();
    expect(outcome.posted).toBe(false);
    expect(homePosts(mock)).toHaveLength(0);
    await gateway.stop();
  });

  it("not idle: recent chat activity keeps the curator from running (min_idle_hours)", async () => {
    const config = await dueHome(T0, { curator: { min_idle_hours: 2 } });
    const clock = new Clock(T0);
    const { gateway, mock } = await startGateway({ home, config, now: clock.now });
    await mock.shouldReply("/whoami", "mock:reader", { user: "reader" });
    await gateway.whenIdle();
    clock.advance(HOUR);
    expect(await gateway.runMaintenanceTick()).toEqual({ ran: false, reason: "not idle", posted: false });
    await expect(fs.access(path.join(home, "skills", "old-notes"))).resolves.toBeUndefined();
    clock.advance(HOUR + 1000);
    expect(await gateway.runMaintenanceTick()).toMatchObject({ ran: true, posted: true });
    await gateway.stop();
  });

  it("idle time survives a restart of the gateway", async () => {
    const config = await dueHome(T0, { curator: { min_idle_hours: 2 } });
    const clock = new Clock(T0);
    const first = await startGateway({ home, config, now: clock.now });
    await first.mock.shouldReply("/whoami", "mock:reader", { user: "reader" });
    await first.gateway.stop();
    clock.advance(HOUR);
    const second = await startGateway({ home, config, now: clock.now });
    expect(await second.gateway.runMaintenanceTick()).toMatchObject({ ran: false, reason: "not idle" });
    await second.gateway.stop();
  });

  it("a command in flight defers the run to a later tick", async () => {
    const config = await dueHome(T0, { curator: { min_idle_hours: 0 } });
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow: CommandSpec = {
      path: ["slow"],
      summary: "waits",
      mutating: false,
      run: async () => {
        await gate;
        return textReply("slow done");
      },
    };
    const clock = new Clock(T0);
    const { gateway, mock } = await startGateway({
      home,
      config,
      now: clock.now,
      registry: [...registry, slow],
    });
    const answered = mock.request("/slow", { user: "reader" });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(gateway.inFlight).toBe(1);
    expect(await gateway.runMaintenanceTick()).toEqual({ ran: false, reason: "busy", posted: false });
    await expect(fs.access(path.join(home, "skills", "old-notes"))).resolves.toBeUndefined();
    release();
    expect((await answered)?.text).toBe("slow done");
    await gateway.whenIdle();
    expect(await gateway.runMaintenanceTick()).toMatchObject({ ran: true, posted: true });
    await gateway.stop();
  });

  it("two gateways on one home: one run, one post", async () => {
    const config = await dueHome(T0);
    const clock = new Clock(T0);
    const a = createMockAdapter();
    const b = createMockAdapter();
    const one = createGateway({ home, config, adapters: [a], now: clock.now });
    const two = createGateway({ home, config, adapters: [b], now: clock.now });
    await one.start();
    await two.start();
    clock.advance(3 * HOUR);
    const outcomes = await Promise.all([one.runMaintenanceTick(), two.runMaintenanceTick()]);
    expect(outcomes.filter((outcome) => outcome.ran)).toHaveLength(1);
    expect(homePosts(a).length + homePosts(b).length).toBe(1);
    expect((await readState()).run_count).toBe(2);
    await Promise.all([one.stop(), two.stop()]);
  });

  it("does not post when no home channel is configured, but still runs", async () => {
    const config = await dueHome(T0);
    const noHome = { ...config, gateway: { ...config.gateway, homeChannel: undefined } };
    const clock = new Clock(T0);
    const { gateway, mock } = await startGateway({ home, config: noHome, now: clock.now });
    clock.advance(3 * HOUR);
    expect(await gateway.runMaintenanceTick()).toEqual({ ran: true, reason: "due", posted: false });
    expect(mock.sent).toHaveLength(0);
    await gateway.stop();
  });

  it("a restart with no recorded chat activity is not idle: idle counts from the process start", async () => {
    const config = await dueHome(T0, { curator: { min_idle_hours: 2 } });
    const clock = new Clock(T0);
    const { gateway } = await startGateway({ home, config, now: clock.now });
    expect(await gateway.runMaintenanceTick()).toEqual({ ran: false, reason: "not idle", posted: false });
    clock.advance(HOUR);
    expect(await gateway.runMaintenanceTick()).toMatchObject({ ran: false, reason: "not idle" });
    clock.advance(HOUR + 1000);
    expect(await gateway.runMaintenanceTick()).toMatchObject({ ran: true });
    await gateway.stop();
  });
});

describe("maintenance timing", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("checks first about 90 seconds after start, then every check_minutes", async () => {
    vi.useFakeTimers();
    const config = parseConfig({});
    const ticker = new MaintenanceTicker({
      home,
      config,
      library: openLibrary(home, config),
      logger: silentLogger(),
      now: Date.now,
      busy: () => false,
      idleSeconds: async () => 0,
      post: async () => false,
    });
    const ticks = vi.spyOn(ticker, "tick").mockResolvedValue({ ran: false, reason: "test", posted: false });
    ticker.start(60 * 60_000);
    await vi.advanceTimersByTimeAsync(FIRST_CHECK_DELAY_MS - 1000);
    expect(ticks).toHaveBeenCalledTimes(0);
    await vi.advanceTimersByTimeAsync(1000);
    expect(ticks).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(59 * 60_000);
    expect(ticks).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(ticks).toHaveBeenCalledTimes(2);
    ticker.stop();
    await vi.advanceTimersByTimeAsync(2 * 60 * 60_000);
    expect(ticks).toHaveBeenCalledTimes(2);
  });
});
