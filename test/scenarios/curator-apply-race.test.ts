import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isoTimestamp } from "../../src/core/fsutil.js";
import { RACY_MS } from "../../src/core/read-cache.js";
import { type ApplyOptions, applyPlan } from "../../src/curator/apply.js";
import type { CuratorPlan } from "../../src/curator/types.js";
import { UsageStore } from "../../src/skills/usage.js";
import { libraryFor } from "../curator/harness.js";
import {
  configWith,
  freshHomeEachTest,
  readUsage,
  record,
  writeSkill,
  writeUsage,
} from "../curator/helpers.js";

const NOW = new Date("2026-06-01T12:00:00Z");
/** Backups off: these scenarios are about the archives, not the snapshot. */
const CONFIG = configWith({ curator: { backup: { enabled: false } } });

function archivePlan(names: string[]): CuratorPlan {
  return {
    now: isoTimestamp(NOW),
    counts: { checked: names.length, marked_stale: 0, archived: 0, reactivated: 0, seeded: 0 },
    actions: names.map((name) => ({
      kind: "archive",
      name,
      from: "active",
      to: "archived",
      anchor: null,
      idleDays: 120,
    })),
    skipped: [],
    candidates: names,
    changes: true,
  };
}

describe("apply re-checks activity made after planning", () => {
  let home: string;
  freshHomeEachTest((made) => {
    home = made;
  });

  /** Applies the plan to archive `names`, backups off, as the curator would after planning. */
  function applyArchives(names: string[], extra: Partial<ApplyOptions> = {}) {
    return applyPlan(archivePlan(names), {
      home,
      config: CONFIG,
      library: libraryFor(home, CONFIG),
      actor: "curator",
      dryRun: false,
      ...extra,
    });
  }

  it("keeps a skill used between the plan and the archive, and archives the idle one", async () => {
    await writeSkill(home, "ops/used-meanwhile");
    await writeSkill(home, "ops/still-idle");
    await writeUsage(home, {
      "used-meanwhile": record(NOW, { idleDays: 120 }),
      "still-idle": record(NOW, { idleDays: 120 }),
    });
    // Someone loads the skill in chat while the pre-run snapshot is being written.
    await new UsageStore(path.join(home, "skills")).bump("used-meanwhile", "use", NOW);
    const outcome = await applyArchives(["used-meanwhile", "still-idle"]);
    expect(outcome.archived.map((item) => item.name)).toEqual(["still-idle"]);
    expect(outcome.failures).toMatchObject([
      { name: "used-meanwhile", error: "used since the plan was made; kept" },
    ]);
    expect(existsSync(path.join(home, "skills", "ops", "used-meanwhile", "SKILL.md"))).toBe(true);
    expect((await readUsage(home))["used-meanwhile"]?.state).toBe("active");
  });

  it("sees a use written in place by another writer after the plan's shared read (no stale cache)", async () => {
    await writeSkill(home, "ops/used-elsewhere");
    await writeSkill(home, "ops/idle");
    const idle = record(NOW, { idleDays: 120 });
    await writeUsage(home, { "used-elsewhere": idle, idle });
    // The run plans from the shared parse of the file...
    const store = new UsageStore(path.join(home, "skills"));
    expect((await store.readShared())["used-elsewhere"]?.last_used_at).toBe(idle.last_used_at);
    // ...then another program rewrites it in place (same inode), recording a use just now.
    await writeUsage(home, { "used-elsewhere": { ...idle, last_used_at: isoTimestamp(NOW) }, idle });
    const outcome = await applyArchives(["used-elsewhere", "idle"]);
    expect(outcome.archived.map((item) => item.name)).toEqual(["idle"]);
    expect(outcome.failures.map((failure) => failure.name)).toEqual(["used-elsewhere"]);
    expect(existsSync(path.join(home, "skills", "ops", "used-elsewhere", "SKILL.md"))).toBe(true);
  });

  it("keeps a skill moved since the plan's read of the library, and archives the others", async () => {
    await writeSkill(home, "ops/moved-meanwhile");
    await writeSkill(home, "ops/stays-put");
    await writeUsage(home, {
      "moved-meanwhile": record(NOW, { idleDays: 120 }),
      "stays-put": record(NOW, { idleDays: 120 }),
    });
    const library = libraryFor(home, CONFIG);
    const skills = await library.all();
    // A person moves one skill to another category while the pre-run snapshot is being written.
    await fs.mkdir(path.join(home, "skills", "web"), { recursive: true });
    await fs.rename(
      path.join(home, "skills", "ops", "moved-meanwhile"),
      path.join(home, "skills", "web", "moved-meanwhile"),
    );
    const outcome = await applyArchives(["moved-meanwhile", "stays-put"], { library, skills });
    expect(outcome.archived.map((item) => item.name)).toEqual(["stays-put"]);
    expect(outcome.failures).toMatchObject([
      { name: "moved-meanwhile", error: "skill 'moved-meanwhile' is no longer at ops/moved-meanwhile; kept" },
    ]);
    expect(existsSync(path.join(home, "skills", "web", "moved-meanwhile", "SKILL.md"))).toBe(true);
    expect(existsSync(path.join(home, "skills", ".archive", "stays-put", "SKILL.md"))).toBe(true);
    const usage = await readUsage(home);
    expect(usage["moved-meanwhile"]?.state).toBe("active");
    expect(usage["stays-put"]?.state).toBe("archived");
  });

  describe("the one usage write reuses the plan's parse of a settled file", () => {
    const settle = () => new Promise((resolve) => setTimeout(resolve, RACY_MS + 100));

    it("changes the shared records in place when the file is as the plan read it", async () => {
      await writeSkill(home, "ops/idle");
      await writeSkill(home, "ops/busy");
      await writeUsage(home, { idle: record(NOW, { idleDays: 120 }), busy: record(NOW, { idleDays: 1 }) });
      await settle();
      const shared = await new UsageStore(path.join(home, "skills")).readShared();
      const outcome = await applyArchives(["idle"]);
      expect(outcome.archived.map((item) => item.name)).toEqual(["idle"]);
      // The plan's own object now says what the file says: it was not parsed a second time.
      expect(shared.idle?.state).toBe("archived");
      const usage = await readUsage(home);
      expect(usage.idle?.state).toBe("archived");
      expect(usage.busy).toEqual(shared.busy);
    });

    it("reads the file again when another writer changed it after the plan's read, and keeps that change", async () => {
      await writeSkill(home, "ops/idle");
      await writeSkill(home, "ops/busy");
      await writeUsage(home, { idle: record(NOW, { idleDays: 120 }), busy: record(NOW, { idleDays: 1 }) });
      await settle();
      const store = new UsageStore(path.join(home, "skills"));
      const shared = await store.readShared();
      // The chat views `busy` (another process: an atomic rewrite of the file) after the plan was made.
      await store.bump("busy", "view", NOW);
      await applyArchives(["idle"]);
      expect(shared.idle?.state).toBe("active");
      const usage = await readUsage(home);
      expect(usage.idle?.state).toBe("archived");
      expect(usage.busy?.view_count).toBe((shared.busy?.view_count ?? 0) + 1);
    });
  });
});
