/**
 * Two processes racing the curator 100 times: the one run lock must let exactly one automatic run
 * happen per due moment, and never two runs at once (manual or automatic). A lock-free control shows
 * the overlap detector does catch concurrent runs.
 */
import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isoTimestamp } from "../../src/core/fsutil.js";
import { defaultState, readState, writeState } from "../../src/curator/state.js";
import { makeHome, removeHome, writeSkill, writeUsage } from "./helpers.js";

const run = promisify(execFile);
const RACER = path.join(import.meta.dirname, "fixtures", "racer.ts");
const ITERATIONS = 100;

interface RacerReport {
  ran: number[];
  locked: number;
  overlaps: number;
}

let home: string;
beforeEach(async () => {
  home = await makeHome();
  await fs.mkdir(path.join(home, "barrier"));
  await writeSkill(home, "one");
  await writeSkill(home, "two");
  await writeUsage(home, {
    one: { created_by: "agent", use_count: 1, last_used_at: "2026-01-01T00:00:00+00:00" },
    two: { created_by: "agent" },
  });
  await writeState(home, { ...defaultState(), last_run_at: isoTimestamp(new Date("2026-01-01T00:00:00Z")) });
});
afterEach(async () => {
  await removeHome(home);
});

async function race(mode: string, iterations = ITERATIONS): Promise<[RacerReport, RacerReport]> {
  const start = (id: string, other: string) =>
    run(process.execPath, ["--import", "tsx", RACER, home, id, other, mode, String(iterations)], {
      timeout: 120_000,
    }).then(({ stdout }) => JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as RacerReport);
  return Promise.all([start("a", "b"), start("b", "a")]);
}

describe("run lock across processes", () => {
  it("lets exactly one automatic run happen per due moment, never two at once", async () => {
    const [a, b] = await race("auto");
    expect(a.overlaps + b.overlaps).toBe(0);
    expect([...a.ran, ...b.ran].sort((x, y) => x - y)).toEqual(
      Array.from({ length: ITERATIONS }, (_v, i) => i + 1),
    );
    expect((await readState(home)).state.run_count).toBe(ITERATIONS);
  }, 180_000);

  it("never overlaps manual runs; each is either run or refused as locked, and none is lost", async () => {
    const [a, b] = await race("manual");
    expect(a.overlaps + b.overlaps).toBe(0);
    const runs = a.ran.length + b.ran.length;
    expect(runs + a.locked + b.locked).toBe(2 * ITERATIONS);
    const perIteration = new Set([...a.ran, ...b.ran]);
    expect(perIteration.size).toBe(ITERATIONS);
    expect((await readState(home)).state.run_count).toBe(runs);
  }, 180_000);

  it("control: without the lock the detector does see concurrent runs", async () => {
    const [a, b] = await race("control", 30);
    expect(a.overlaps + b.overlaps).toBeGreaterThan(0);
  }, 60_000);
});
