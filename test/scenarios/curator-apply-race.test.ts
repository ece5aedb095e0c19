import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isoTimestamp } from "../../src/core/fsutil.js";
import { applyPlan } from "../../src/curator/apply.js";
import type { CuratorPlan } from "../../src/curator/types.js";
import { UsageStore } from "../../src/skills/usage.js";
import { libraryFor } from "../curator/harness.js";
import {
  configWith,
  makeHome,
  readUsage,
  record,
  removeHome,
  writeSkill,
  writeUsage,
} from "../curator/helpers.js";

const NOW = new Date("2026-06-01T12:00:00Z");

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
  beforeEach(async () => {
    home = await makeHome();
  });
  afterEach(async () => {
    await removeHome(home);
  });

  it("keeps a skill used between the plan and the archive, and archives the idle one", async () => {
    await writeSkill(home, "ops/used-meanwhile");
    await writeSkill(home, "ops/still-idle");
    await writeUsage(home, {
      "used-meanwhile": record(NOW, { idleDays: 120 }),
      "still-idle": record(NOW, { idleDays: 120 }),
    });
    const config = configWith({ curator: { backup: { enabled: false } } });
    const plan = archivePlan(["used-meanwhile", "still-idle"]);
    // Someone loads the skill in chat while the pre-run snapshot is being written.
    await new UsageStore(path.join(home, "skills")).bump("used-meanwhile", "use", NOW);
    const outcome = await applyPlan(plan, {
      home,
      config,
      library: libraryFor(home, config),
      actor: "curator",
      dryRun: false,
    });
    expect(outcome.archived.map((item) => item.name)).toEqual(["still-idle"]);
    expect(outcome.failures).toEqual([
      { name: "used-meanwhile", error: "used since the plan was made; kept" },
    ]);
    expect(existsSync(path.join(home, "skills", "ops", "used-meanwhile", "SKILL.md"))).toBe(true);
    expect((await readUsage(home))["used-meanwhile"]?.state).toBe("active");
  });
});
