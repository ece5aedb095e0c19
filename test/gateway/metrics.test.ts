/**
 * `/metrics` beside `/healthz`: a running gateway (the mock adapter) is scraped after a curator run and a
 * few commands; the values are checked, and Prometheus' own `promtool check metrics` accepts the text.
 */
import { spawnSync } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeCuratorDue } from "../support/platform-home.js";
import { gatewayDoc, makeHome, removeHome, startGateway, writeConfig, writeSkill } from "./helpers.js";

let home: string;
beforeEach(async () => {
  home = await makeHome();
  await writeSkill(home, { name: "arxiv", description: "search papers" });
});
afterEach(async () => {
  await removeHome(home);
});

/** The value of one series line, e.g. `skillgate_events_received_total{platform="mock"}`. */
function value(text: string, series: string): number | undefined {
  const line = text.split("\n").find((item) => item.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("/metrics", () => {
  it("counts events, answers, latency, curator runs and role, in a text promtool accepts", async () => {
    await makeCuratorDue(home);
    const config = await writeConfig(home, {
      curator: { min_idle_hours: 0 },
      gateway: gatewayDoc({ health: { port: 0 } }),
    });
    const { gateway, mock } = await startGateway({ home, config });
    try {
      const tick = await gateway.runMaintenanceTick();
      expect(tick, JSON.stringify(tick)).toMatchObject({ ran: true });
      await mock.shouldReply("/whoami", "mock:reader", { user: "reader" });
      await mock.shouldReply("/skills", "arxiv", { user: "reader" });
      await mock.shouldReply("/curator status", "curator: ENABLED", { user: "reader" });
      await gateway.whenIdle();
      const url = (gateway.healthUrl ?? "").replace("/healthz", "/metrics");
      const response = await fetch(url);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await response.text();
      expect(value(text, 'skillgate_events_received_total{platform="mock"}')).toBe(3);
      expect(value(text, 'skillgate_events_answered_total{platform="mock"}')).toBe(3);
      expect(value(text, 'skillgate_command_duration_seconds_count{platform="mock"}')).toBe(3);
      expect(value(text, 'skillgate_command_duration_seconds_bucket{le="+Inf",platform="mock"}')).toBe(3);
      expect(value(text, 'skillgate_curator_runs_total{changed="true"}')).toBe(1);
      expect(value(text, "skillgate_curator_run_duration_seconds_count")).toBe(1);
      expect(value(text, 'skillgate_curator_moves_total{kind="archived"}')).toBe(1);
      expect(value(text, "skillgate_inbox_backlog")).toBe(0);
      expect(value(text, 'skillgate_coordination_role{role="leader"}')).toBe(1);
      expect(value(text, 'skillgate_coordination_role{role="follower"}')).toBe(0);
      expect(value(text, "skillgate_coordination_epoch")).toBe(0);
      expect(text).not.toMatch(/skillgate_errors_total\{/);

      const promtool = spawnSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" });
      expect(promtool.error, "promtool (Debian's prometheus package) must be installed").toBeUndefined();
      expect(promtool.stdout + promtool.stderr).toBe("");
      expect(promtool.status).toBe(0);
    } finally {
      await gateway.stop();
    }
  });
});
