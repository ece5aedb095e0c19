/**
 * Reference gateway-core scenarios 27–33 on the local terminal chat (`skillgate serve --console`): the
 * real gateway with the console adapter over in-memory streams. The mock-adapter versions live in
 * `test/gateway/scenarios.test.ts`; these prove the same core answers on the terminal surface.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { ConsoleAdapter } from "../../adapters/console/index.js";
import type { SkillgateConfig } from "../../src/config/config.js";
import { textReply } from "../../src/core/reply.js";
import type { ChatAgent, Gateway } from "../../src/gateway/gateway.js";
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
} from "../gateway/helpers.js";

const T0 = Date.UTC(2026, 5, 1, 8);
let home: string;
freshHomeEachTest((made) => {
  home = made;
});
beforeEach(async () => {
  await writeSkill(home, { name: "pdf-tools" });
  await writeSkill(home, { name: "arxiv" });
});

interface Terminal {
  gateway: Gateway;
  /** Everything printed so far. */
  printed: () => string;
  /** Types a line and waits until the output after it matches `expected`; returns that new output. */
  type: (line: string, expected: RegExp) => Promise<string>;
}

async function terminal(config: SkillgateConfig, extra: { agent?: ChatAgent; now?: () => number } = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = "";
  output.on("data", (chunk) => {
    printed += String(chunk);
  });
  const adapter = new ConsoleAdapter({ input, output, color: false });
  const { gateway } = await startGateway({ home, config, adapters: [adapter], ...extra });
  const type = async (line: string, expected: RegExp): Promise<string> => {
    const before = printed.length;
    input.write(`${line}\n`);
    await vi.waitFor(() => expect(printed.slice(before)).toMatch(expected), { timeout: 5000 });
    await gateway.whenIdle();
    return printed.slice(before);
  };
  const running: Terminal = { gateway, printed: () => printed, type };
  return running;
}

describe("gateway-core scenarios on the terminal chat", () => {
  it("scenario 27: /nosuchcmd is an unknown command; '/etc/hosts is broken' goes to the agent as text", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    const respond = vi.fn<ChatAgent["respond"]>(async (message) => textReply(`text: ${message.text}`));
    const term = await terminal(config, { agent: { respond } });
    expect(await term.type("/nosuchcmd", /Unknown command/)).toContain("/nosuchcmd");
    expect(await term.type("/etc/hosts is broken", /text: /)).toContain("text: /etc/hosts is broken");
    expect(respond).toHaveBeenCalledTimes(1);
    await term.gateway.stop();
  });

  it("scenario 28: /curator status and bare /curator are answered by the gateway, never the agent", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    const respond = vi.fn<ChatAgent["respond"]>(async () => textReply("I am the model"));
    const term = await terminal(config, { agent: { respond } });
    const status = await term.type("/curator status", /curator: ENABLED/);
    expect(await term.type("/curator", /curator: ENABLED/)).toBe(status);
    expect(respond).not.toHaveBeenCalled();
    await term.gateway.stop();
  });

  it("scenario 29: the terminal owner pins a skill; a bundled skill is refused", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    await writeUsage(home, Date.now(), { "pdf-tools": 1 });
    await writeSkill(home, { name: "bundled-one" });
    await fs.writeFile(path.join(home, "skills", ".bundled_manifest"), "bundled-one:0123456789abcdef\n");
    const term = await terminal(config);
    await term.type("/curator pin pdf-tools", /curator: pinned 'pdf-tools'/);
    const usage = JSON.parse(await fs.readFile(path.join(home, "skills", ".usage.json"), "utf8"));
    expect(usage["pdf-tools"].pinned).toBe(true);
    const refused = await term.type("/curator pin bundled-one", /bundled/);
    expect(refused).not.toContain("pinned 'bundled-one'");
    await term.gateway.stop();
  });

  it("scenario 30: /curator run --dry-run reports and leaves last_run_at and the skills alone", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    await writeUsage(home, Date.now(), { arxiv: 200 });
    const state = path.join(home, "skills", ".curator_state");
    const seeded = { last_run_at: "2026-01-01T00:00:00.000000+00:00", paused: false, run_count: 3 };
    await fs.writeFile(state, JSON.stringify(seeded));
    const term = await terminal(config);
    await term.type("/curator run --dry-run", /dry-run/);
    expect(JSON.parse(await fs.readFile(state, "utf8")).last_run_at).toBe(seeded.last_run_at);
    await expect(fs.access(path.join(home, "skills", "arxiv", "SKILL.md"))).resolves.toBeUndefined();
    await term.gateway.stop();
  });

  it("scenario 33: with the terminal as home channel, a run that prunes prints the rename map there", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc({ home_channel: "console:local" }) });
    await writeUsage(home, T0, { "pdf-tools": 1, arxiv: 120 });
    await fs.writeFile(
      path.join(home, "skills", ".curator_state"),
      JSON.stringify({ last_run_at: new Date(T0 - 8 * DAY).toISOString(), paused: false }),
    );
    const clock = new Clock(T0);
    const term = await terminal(config, { now: clock.now });
    // Idle time counts from the gateway's start: past min_idle_hours (2) now.
    clock.advance(3 * HOUR);
    expect(await term.gateway.runMaintenanceTick()).toMatchObject({ ran: true, posted: true });
    expect(term.printed()).toContain("archived 1 skill(s):");
    expect(term.printed()).toContain("arxiv — pruned (stale)");
    expect(term.printed()).not.toContain("keep an umbrella stable");
    const printedBefore = term.printed();
    expect(await term.gateway.runMaintenanceTick()).toMatchObject({ ran: false, posted: false });
    expect(term.printed()).toBe(printedBefore);
    await term.gateway.stop();
  });
});
