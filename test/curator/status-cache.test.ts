/**
 * The cached library figures of `curator status`: reused while nothing changed, recomputed on the next
 * call after a change made by this process, by another process (an atomic replace as Hermes and a CLI
 * write it, or an in-place edit), to the library itself, to the hub lock or to the bundled manifest.
 * Calls that arrive while the figures are being computed share that computation; one that failed is
 * not kept.
 */
import { execFileSync } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { curatorStatus, setPinned } from "../../src/curator/operations.js";
import { type ManagedSkillLibrary, openLibrary } from "../../src/skills/library.js";
import { configWith, makeHome, readUsage, record, removeHome, writeSkill, writeUsage } from "./helpers.js";

const NOW = new Date("2026-06-01T12:00:00Z");
const config = configWith();
let home: string;
let library: ManagedSkillLibrary;

beforeEach(async () => {
  home = await makeHome();
  await writeSkill(home, "alpha");
  await writeSkill(home, "beta");
  await writeSkill(home, "gamma");
  await writeUsage(home, {
    alpha: record(NOW, { idleDays: 1 }),
    beta: record(NOW, { idleDays: 2 }),
    gamma: record(NOW, { idleDays: 3 }),
  });
  // No watchers: the library revalidates by polling, so a test controls when a change is seen.
  library = openLibrary(home, config, { watch: false, persistIndex: false });
});
afterEach(async () => {
  library.close?.();
  await removeHome(home);
});

const status = () => curatorStatus({ home, config, library, now: NOW });
const usageFile = () => path.join(home, "skills", ".usage.json");

describe("curator status cache", () => {
  it("reuses the figures while nothing changed", async () => {
    const first = await status();
    const second = await status();
    expect(second.managed).toEqual({
      total: 3,
      agent_created: 3,
      bundled: 0,
      active: 3,
      stale: 0,
      archived: 0,
    });
    // The same objects: nothing was recomputed.
    expect(second.rankings).toBe(first.rankings);
    expect(second.managed).toBe(first.managed);
  });

  it("computes the figures once for calls that arrive together", async () => {
    const together = await Promise.all(Array.from({ length: 8 }, () => status()));
    for (const other of together.slice(1)) expect(other.rankings).toBe(together[0]?.rankings);
    expect(together[0]?.managed.total).toBe(3);
  });

  it("does not keep a computation that failed", async () => {
    let calls = 0;
    const flaky = {
      generation: () => "one generation",
      all: () => (++calls === 1 ? Promise.reject(new Error("disk gone")) : library.all()),
    } as unknown as ManagedSkillLibrary;
    const ctx = { home, config, library: flaky, now: NOW };
    await expect(curatorStatus(ctx)).rejects.toThrow("disk gone");
    expect((await curatorStatus(ctx)).managed.total).toBe(3);
    expect(calls).toBe(2);
  });

  it("sees a pin made by this process through its own usage store", async () => {
    expect((await status()).pinned).toEqual([]);
    expect((await setPinned({ home, config, library, now: NOW }, "beta", true)).ok).toBe(true);
    expect((await status()).pinned).toEqual(["beta"]);
  });

  it("sees an atomic replace of .usage.json by another process", async () => {
    expect((await status()).pinned).toEqual([]);
    const records = await readUsage(home);
    (records.gamma as { pinned: boolean }).pinned = true;
    const script = `
      const fs = require("node:fs");
      const [file, text] = process.argv.slice(1);
      fs.writeFileSync(file + ".tmp", text);
      fs.renameSync(file + ".tmp", file);
    `;
    execFileSync(process.execPath, ["-e", script, usageFile(), JSON.stringify(records, null, 2)]);
    expect((await status()).pinned).toEqual(["gamma"]);
  });

  it("sees an in-place edit of .usage.json of the same size", async () => {
    const before = await status();
    expect(before.managed.stale).toBe(0);
    const text = await fs.readFile(usageFile(), "utf8");
    const edited = text.replace(/"state": "active"/, '"state": "stale" ');
    expect(edited.length).toBe(text.length);
    await fs.writeFile(usageFile(), edited);
    expect((await status()).managed.stale).toBe(1);
  });

  it("sees a skill added to the library once the library notices it", async () => {
    expect((await status()).unmanaged.total).toBe(0);
    await writeSkill(home, "delta");
    library.invalidate();
    const after = await status();
    expect(after.unmanaged.total).toBe(1);
    expect(after.managed.total).toBe(3);
  });

  it("sees the hub lock and the bundled manifest change", async () => {
    expect((await status()).managed.agent_created).toBe(3);
    await fs.mkdir(path.join(home, "skills", ".hub"), { recursive: true });
    await fs.writeFile(
      path.join(home, "skills", ".hub", "lock.json"),
      JSON.stringify({ installed: { alpha: { install_path: "alpha" } } }),
    );
    expect((await status()).managed.agent_created).toBe(2);
    await fs.writeFile(path.join(home, "skills", ".bundled_manifest"), "beta:0123\n");
    const after = await status();
    expect(after.managed.agent_created).toBe(1);
    expect(after.managed.bundled).toBe(1);
  });

  it("recomputes for another config (bundled skills count only while prune_builtins is on)", async () => {
    await fs.writeFile(path.join(home, "skills", ".bundled_manifest"), "beta:0123\n");
    expect((await status()).managed.bundled).toBe(1);
    const keeping = configWith({ curator: { prune_builtins: false } });
    const other = await curatorStatus({ home, config: keeping, library, now: NOW });
    expect(other.managed.bundled).toBe(0);
  });
});
