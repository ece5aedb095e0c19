/** Config, scheduling and state: reference scenarios 1–5, plus the run lock. */
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CuratorError } from "../../src/core/errors.js";
import { isoTimestamp } from "../../src/core/fsutil.js";
import { english } from "../../src/core/i18n/messages.js";
import { acquireRunLock, runLockFile } from "../../src/curator/lock.js";
import { maybeRunCurator, runCurator } from "../../src/curator/run.js";
import { scheduleVerdict } from "../../src/curator/schedule.js";
import { defaultState, readState, updateState, writeState } from "../../src/curator/state.js";
import type { SkillLibrary } from "../../src/skills/types.js";
import { configWith, DAY, freshHomeEachTest } from "./helpers.js";

const NOW = new Date("2026-06-01T12:00:00Z");
const HOUR = 3_600_000;

/** An empty library: scheduling does not depend on skills. */
const emptyLibrary = (home: string): SkillLibrary => ({
  home,
  all: async () => [],
  visible: async () => [],
  find: async () => undefined,
  list: async () => ({ success: true, skills: [], categories: [], count: 0 }),
  view: async () => ({ success: false }),
  invalidate: () => undefined,
});

let home: string;
freshHomeEachTest((made) => {
  home = made;
});

describe("config (scenario 1)", () => {
  it("has the seed document's defaults and reads overrides back", () => {
    const defaults = configWith().curator;
    expect(defaults).toMatchObject({
      enabled: true,
      intervalHours: 168,
      minIdleHours: 2,
      staleAfterDays: 30,
      archiveAfterDays: 90,
    });
    const custom = configWith({
      curator: { interval_hours: 12, min_idle_hours: 0.5, stale_after_days: 7, archive_after_days: 60 },
    }).curator;
    expect(custom).toMatchObject({
      intervalHours: 12,
      minIdleHours: 0.5,
      staleAfterDays: 7,
      archiveAfterDays: 60,
    });
  });
});

describe("schedule (scenarios 2–4)", () => {
  const config = configWith().curator;

  it("never runs when disabled or paused", () => {
    const old = { ...defaultState(), last_run_at: isoTimestamp(new Date(NOW.getTime() - 30 * DAY)) };
    expect(
      scheduleVerdict(old, configWith({ curator: { enabled: false } }).curator, NOW, Infinity),
    ).toMatchObject({ due: false, reason: "disabled" });
    expect(scheduleVerdict({ ...old, paused: true }, config, NOW, Infinity)).toMatchObject({
      due: false,
      reason: "paused",
    });
    expect(scheduleVerdict(old, config, NOW, Infinity)).toEqual({ due: true, reason: "due" });
  });

  it("is due one interval after the last run, counting a naive timestamp as UTC", () => {
    const at = (ms: number) => ({ ...defaultState(), last_run_at: isoTimestamp(new Date(ms)) });
    expect(scheduleVerdict(at(NOW.getTime()), config, NOW, Infinity).due).toBe(false);
    expect(scheduleVerdict(at(NOW.getTime() - 2 * 168 * HOUR), config, NOW, Infinity).due).toBe(true);
    const naive = { ...defaultState(), last_run_at: "2026-05-25T12:00:00" };
    expect(scheduleVerdict(naive, config, NOW, Infinity).due).toBe(true);
    expect(scheduleVerdict(naive, config, new Date(NOW.getTime() - 1000), Infinity).due).toBe(false);
  });

  it("skips a run while the home has not been idle for min_idle_hours", () => {
    const old = { ...defaultState(), last_run_at: isoTimestamp(new Date(NOW.getTime() - 30 * DAY)) };
    expect(scheduleVerdict(old, config, NOW, 2 * 3600 - 1)).toMatchObject({ due: false, reason: "not idle" });
    expect(scheduleVerdict(old, config, NOW, 2 * 3600).due).toBe(true);
  });

  it("defers the first run: seeds last_run_at with a summary naming the dry-run command, twice in a row no run", async () => {
    const cfg = configWith();
    const opts = {
      home,
      config: cfg,
      library: emptyLibrary(home),
      trigger: "auto" as const,
      idleForSeconds: Infinity,
      now: NOW,
    };
    expect(await maybeRunCurator(opts)).toEqual({ ran: false, reason: "first run deferred" });
    const { state } = await readState(home);
    expect(state.last_run_at).toBe(isoTimestamp(NOW));
    expect(state.run_count).toBe(0);
    expect(state.last_run_summary).toContain("deferred first run");
    expect(state.last_run_summary).toContain("`skillgate curator run --dry-run`");
    expect(await maybeRunCurator({ ...opts, now: new Date(NOW.getTime() + HOUR) })).toEqual({
      ran: false,
      reason: "not due",
    });
    expect((await readState(home)).state.last_run_at).toBe(isoTimestamp(NOW));
  });

  it("maybeRunCurator: disabled, not idle, due, and an internal failure never throws (scenario 4)", async () => {
    const last = isoTimestamp(new Date(NOW.getTime() - 8 * DAY));
    await writeState(home, { ...defaultState(), last_run_at: last });
    const base = { home, library: emptyLibrary(home), trigger: "auto" as const, now: NOW };
    expect(
      await maybeRunCurator({
        ...base,
        config: configWith({ curator: { enabled: false } }),
        idleForSeconds: Infinity,
      }),
    ).toMatchObject({ ran: false, reason: "disabled" });
    expect(await maybeRunCurator({ ...base, config: configWith(), idleForSeconds: 60 })).toMatchObject({
      ran: false,
      reason: "not idle",
    });
    const ran = await maybeRunCurator({ ...base, config: configWith(), idleForSeconds: 3 * 3600 });
    expect(ran.ran).toBe(true);
    expect(ran.result?.trigger).toBe("auto");
    const { state } = await readState(home);
    expect(state.run_count).toBe(1);
    expect(state.last_run_at).toBe(isoTimestamp(NOW));
    await writeState(home, { ...state, last_run_at: last });
    const broken: SkillLibrary = {
      ...emptyLibrary(home),
      all: async () => Promise.reject(new Error("disk on fire")),
    };
    const failed = await maybeRunCurator({
      ...base,
      library: broken,
      config: configWith(),
      idleForSeconds: Infinity,
    });
    expect(failed).toEqual({ ran: false, reason: "failed: disk on fire" });
  });

  it("does not run while another process holds the run lock", async () => {
    await writeState(home, {
      ...defaultState(),
      last_run_at: isoTimestamp(new Date(NOW.getTime() - 8 * DAY)),
    });
    const lock = await acquireRunLock(home);
    try {
      const opts = {
        home,
        config: configWith(),
        library: emptyLibrary(home),
        trigger: "auto" as const,
        now: NOW,
        idleForSeconds: Infinity,
      };
      expect(await maybeRunCurator(opts)).toEqual({ ran: false, reason: "another run in progress" });
    } finally {
      await lock.release();
    }
  });
});

describe("state file (scenarios 3, 5)", () => {
  it("round-trips pause/resume and keeps only known and _ keys, sorted, indent 2", async () => {
    await updateState(home, (state) => {
      state.paused = true;
    });
    expect((await readState(home)).state.paused).toBe(true);
    const file = path.join(home, "skills", ".curator_state");
    const raw = JSON.parse(await fs.readFile(file, "utf8"));
    await fs.writeFile(file, JSON.stringify({ ...raw, bogus: 1, _note: "kept", paused: false }));
    await updateState(home, (state) => {
      state.run_count = 3;
    });
    const text = await fs.readFile(file, "utf8");
    const parsed = JSON.parse(text);
    expect(parsed.bogus).toBeUndefined();
    expect(parsed._note).toBe("kept");
    expect(parsed.paused).toBe(false);
    expect(Object.keys(parsed)).toEqual([...Object.keys(parsed)].sort());
    expect(text).toContain('\n  "run_count": 3');
  });

  it("reads a corrupt file as the defaults and keeps it aside; last_report_path persists (scenario 5)", async () => {
    const file = path.join(home, "skills", ".curator_state");
    await fs.writeFile(file, "{ not json");
    const read = await readState(home);
    expect(read.state).toEqual(defaultState());
    expect(english(read.warning ?? "")).toMatch(/corrupt-/);
    const kept = (await fs.readdir(path.join(home, "skills"))).filter((name) =>
      name.startsWith(".curator_state.corrupt-"),
    );
    expect(kept).toHaveLength(1);
    expect(await fs.readFile(path.join(home, "skills", kept[0] ?? ""), "utf8")).toBe("{ not json");
    await updateState(home, (state) => {
      state.last_report_path = "/tmp/r/REPORT.md";
    });
    expect((await readState(home)).state.last_report_path).toBe("/tmp/r/REPORT.md");
  });

  it("treats a JSON array as corrupt too", async () => {
    await fs.writeFile(path.join(home, "skills", ".curator_state"), "[1,2]");
    expect((await readState(home)).state).toEqual(defaultState());
  });
});

describe("run lock", () => {
  it("refuses a manual run while the lock is held, names the holder, and frees it afterwards", async () => {
    const lock = await acquireRunLock(home);
    const opts = {
      home,
      config: configWith(),
      library: emptyLibrary(home),
      trigger: "manual" as const,
      now: NOW,
    };
    const error = await runCurator(opts).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CuratorError);
    expect((error as CuratorError).code).toBe("curator.locked");
    expect((error as CuratorError).message).toContain(`process ${process.pid}`);
    await lock.release();
    await runCurator(opts);
    await expect(fs.stat(runLockFile(home))).rejects.toThrow();
  });

  it("takes over a lock left by a dead process", async () => {
    await fs.mkdir(path.dirname(runLockFile(home)), { recursive: true });
    await fs.writeFile(runLockFile(home), "999999999 deadbeef\n");
    const lock = await acquireRunLock(home);
    expect(await fs.readFile(runLockFile(home), "utf8")).toContain(String(process.pid));
    await lock.release();
  });

  it("refuses a manual run when the curator is disabled", async () => {
    const error = await runCurator({
      home,
      config: configWith({ curator: { enabled: false } }),
      library: emptyLibrary(home),
      trigger: "manual",
    }).catch((e: unknown) => e);
    expect((error as CuratorError).code).toBe("curator.disabled");
  });
});
