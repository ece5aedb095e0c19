/** Reference gateway scenarios 25–34, adapted to the mock adapter posing as Telegram/Discord. */
import { promises as fs } from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { createMockAdapter } from "../../adapters/mock/index.js";
import type { SkillgateConfig } from "../../src/config/config.js";
import { textReply } from "../../src/core/reply.js";
import type { ChatAgent } from "../../src/gateway/gateway.js";
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
const T0 = Date.UTC(2026, 5, 1, 8);
freshHomeEachTest((made) => {
  home = made;
});
beforeEach(async () => {
  await writeSkill(home, { name: "pdf-tools" });
  await writeSkill(home, { name: "arxiv", description: "search arXiv" });
  await writeSkill(home, { name: "skill-a" });
  await writeSkill(home, { name: "skill-b" });
  await writeSkill(home, {
    name: "weather",
    frontmatter: { required_environment_variables: [{ name: "WEATHER_API_KEY", prompt: "key" }] },
  });
});

/** A gateway over a mock Telegram adapter whose clock starts at T0 and moves only when told. */
async function startOnClock(config: SkillgateConfig) {
  const clock = new Clock(T0);
  const { gateway, mock } = await startGateway({
    home,
    config,
    now: clock.now,
    mock: { platform: "telegram" },
  });
  return { clock, gateway, mock };
}

const disabledDoc = { platform_disabled: { telegram: ["arxiv", "skill-b"] } };

describe("reference gateway scenarios", () => {
  it("25: /help on Telegram does not list skills disabled for Telegram; the menu neither", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc(), skills: disabledDoc });
    const { gateway, mock } = await startGateway({ home, config, mock: { platform: "telegram" } });
    const text = await mock.shouldReply("/help", ["/curator status", "/pdf-tools"], { user: "reader" });
    expect(text).not.toContain("/arxiv");
    expect(text).not.toContain("/skill-b");
    expect(mock.catalogs[0]?.map((entry) => entry.name)).not.toContain("arxiv");
    await gateway.stop();
  });

  it("26: /skill-a /skill-b summarize this loads both; a disabled one is refused by name", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc(), skills: disabledDoc });
    const discord = createMockAdapter({ platform: "discord" });
    const telegram = createMockAdapter({ platform: "telegram" });
    const { gateway } = await startGateway({
      home,
      config: {
        ...config,
        gateway: { ...config.gateway, admins: [...config.gateway.admins, "discord:admin"] },
      },
      adapters: [discord, telegram],
    });
    const loaded = await discord.shouldReply(
      "/skill-a /skill-b summarize this",
      ["Skill loaded: skill-a", "Skill loaded: skill-b", "Instruction: summarize this"],
      { user: "admin" },
    );
    expect(loaded.match(/Skill loaded/g)).toHaveLength(2);
    await telegram.shouldReply(
      "/skill-a /skill-b summarize this",
      ["`skill-b` skill is disabled for telegram"],
      {
        user: "admin",
      },
    );
    await gateway.stop();
  });

  it("27: /nosuchcmd gets the unknown-command reply; /etc/hosts is broken is normal text", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    const respond = vi.fn<ChatAgent["respond"]>(async (message) => textReply(`text: ${message.text}`));
    const { gateway, mock } = await startGateway({
      home,
      config,
      agent: { respond },
      mock: { platform: "telegram" },
    });
    await mock.shouldReply("/nosuchcmd", ["Unknown command `/nosuchcmd`", "/help"], { user: "reader" });
    await mock.shouldReply("/etc/hosts is broken", "text: /etc/hosts is broken", { user: "reader" });
    expect(respond).toHaveBeenCalledTimes(1);
    await gateway.stop();
  });

  it("28: /curator status is answered by the gateway, never the model; bare /curator is the same", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    const respond = vi.fn<ChatAgent["respond"]>(async () => textReply("I am the model"));
    const { gateway, mock } = await startGateway({
      home,
      config,
      agent: { respond },
      mock: { platform: "telegram" },
    });
    const status = await mock.shouldReply("/curator status", "curator: ENABLED", {
      user: "reader",
      chat: "-100",
      kind: "group",
    });
    expect(await mock.shouldReply("/curator", "curator: ENABLED", { user: "reader" })).toBe(status);
    expect(respond).not.toHaveBeenCalled();
    await gateway.stop();
  });

  it("29: /curator pin by an admin pins; a bundled skill is refused; a non-admin is refused", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    await writeUsage(home, Date.now(), { "pdf-tools": 1 });
    await writeSkill(home, { name: "bundled-one" });
    await fs.writeFile(path.join(home, "skills", ".bundled_manifest"), "bundled-one:0123456789abcdef\n");
    const { gateway, mock } = await startGateway({ home, config, mock: { platform: "telegram" } });
    await mock.shouldReply("/curator pin pdf-tools", "curator: pinned 'pdf-tools'", { user: "admin" });
    const refused = await mock.request("/curator pin bundled-one", { user: "admin" });
    expect(refused?.reply.exitCode).toBe(1);
    expect(refused?.text).toMatch(/bundled/);
    await mock.shouldReply("/curator pin arxiv", ["⛔", "/curator pin", "admins only"], { user: "reader" });
    await gateway.stop();
  });

  it("30: /curator run --dry-run reports without changing last_run_at", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    await writeUsage(home, Date.now(), { "pdf-tools": 200 });
    const state = path.join(home, "skills", ".curator_state");
    const seeded = { last_run_at: "2026-01-01T00:00:00.000000+00:00", paused: false, run_count: 3 };
    await fs.writeFile(state, JSON.stringify(seeded));
    const { gateway, mock } = await startGateway({ home, config, mock: { platform: "telegram" } });
    await mock.shouldReply("/curator run --dry-run", /dry-run/, { user: "admin" });
    expect(JSON.parse(await fs.readFile(state, "utf8")).last_run_at).toBe(seeded.last_run_at);
    await expect(fs.access(path.join(home, "skills", "pdf-tools"))).resolves.toBeUndefined();
    await gateway.stop();
  });

  it("31: a due curator waits while the agent is answering, then runs once idle long enough", async () => {
    const config = await writeConfig(home, {
      gateway: gatewayDoc({ home_channel: "telegram:home" }),
      curator: { min_idle_hours: 2 },
    });
    await writeUsage(home, T0, { "pdf-tools": 150 });
    await fs.writeFile(
      path.join(home, "skills", ".curator_state"),
      JSON.stringify({ last_run_at: new Date(T0 - 10 * DAY).toISOString(), paused: false }),
    );
    let finish: () => void = () => undefined;
    const agent: ChatAgent = {
      respond: () =>
        new Promise((resolve) => {
          finish = () => resolve(textReply("answer"));
        }),
    };
    const clock = new Clock(T0);
    const { gateway, mock } = await startGateway({
      home,
      config,
      agent,
      now: clock.now,
      mock: { platform: "telegram" },
    });
    const answer = mock.request("tell me something", { user: "reader" });
    await vi.waitFor(() => expect(gateway.inFlight).toBe(1));
    clock.advance(3 * HOUR);
    expect(await gateway.runMaintenanceTick()).toMatchObject({ ran: false, reason: "busy" });
    finish();
    await answer;
    await gateway.whenIdle();
    expect(await gateway.runMaintenanceTick()).toMatchObject({ ran: false, reason: "not idle" });
    clock.advance(2 * HOUR + 1);
    expect(await gateway.runMaintenanceTick()).toMatchObject({ ran: true, posted: true });
    expect(mock.sent.filter((sent) => sent.target.chatId === "home")).toHaveLength(1);
    await gateway.stop();
  });

  it("32: fresh install — the first tick seeds last_run_at and posts nothing", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc({ home_channel: "telegram:home" }) });
    await writeUsage(home, T0, { "pdf-tools": 300 });
    const { gateway, mock } = await startOnClock(config);
    expect(await gateway.runMaintenanceTick()).toMatchObject({ ran: false, posted: false });
    const state = JSON.parse(await fs.readFile(path.join(home, "skills", ".curator_state"), "utf8"));
    expect(state.last_run_at).toBeTruthy();
    expect(mock.sent).toHaveLength(0);
    await expect(fs.access(path.join(home, "skills", "pdf-tools"))).resolves.toBeUndefined();
    await gateway.stop();
  });

  it("33: a run that archives posts the rename map to the home channel; prune-only omits the pin hint", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc({ home_channel: "telegram:home" }) });
    await writeUsage(home, T0, { "pdf-tools": 1, arxiv: 120 });
    await fs.writeFile(
      path.join(home, "skills", ".curator_state"),
      JSON.stringify({ last_run_at: new Date(T0 - 8 * DAY).toISOString(), paused: false }),
    );
    const { clock, gateway, mock } = await startOnClock(config);
    // Idle time counts from the gateway's start: past min_idle_hours (2) now.
    clock.advance(3 * HOUR);
    expect(await gateway.runMaintenanceTick()).toMatchObject({ ran: true, posted: true });
    const post = mock.sent.find((sent) => sent.target.chatId === "home");
    expect(post?.text).toContain("archived 1 skill(s):");
    expect(post?.text).toContain("arxiv — pruned (stale)");
    expect(post?.text).toContain("full report: `/curator status`");
    expect(post?.text).not.toContain("keep an umbrella stable");
    await gateway.stop();
  });

  it("34: /weather with WEATHER_API_KEY unset still loads and names the variable and the hint", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    vi.stubEnv("WEATHER_API_KEY", "");
    try {
      const { gateway, mock } = await startGateway({ home, config, mock: { platform: "telegram" } });
      const text = await mock.shouldReply(
        "/weather",
        ["Skill loaded: weather", "`WEATHER_API_KEY`", "not supported over messaging"],
        { user: "reader" },
      );
      expect(text).toContain(".env");
      await gateway.stop();
      await fs.writeFile(path.join(home, ".env"), "WEATHER_API_KEY=abc123\n");
      const again = await startGateway({ home, config, mock: { platform: "telegram" } });
      await again.mock.shouldReply("/weather", "Readiness: ready", { user: "reader" });
      await again.gateway.stop();
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
