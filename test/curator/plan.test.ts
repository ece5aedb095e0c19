/** The pure planner: reference scenarios 6–13, 15–17, 51 on hand-built skill entries (no disk). */
import { describe, expect, it } from "vitest";
import type { SkillgateConfig } from "../../src/config/config.js";
import { isoTimestamp } from "../../src/core/fsutil.js";
import { cronRefsFromJobs, normalizeSkillRef } from "../../src/curator/cron.js";
import { curatedRows, plan } from "../../src/curator/plan.js";
import { classify, type Provenance, parseBundledManifest } from "../../src/curator/provenance.js";
import type { SkillEntry } from "../../src/skills/types.js";
import type { UsageMap } from "../../src/skills/usage-record.js";
import { configWith, DAY, record } from "./helpers.js";

const NOW = new Date("2026-06-01T12:00:00Z");
const ROOT = "/h/skills";

function entry(name: string, options: Partial<SkillEntry> = {}): SkillEntry {
  const relPath = options.relPath ?? name;
  return {
    name,
    description: "",
    category: relPath.includes("/") ? (relPath.split("/")[0] ?? null) : null,
    dir: `${ROOT}/${relPath}`,
    skillFile: `${ROOT}/${relPath}/SKILL.md`,
    root: ROOT,
    rootKind: "local",
    relPath,
    frontmatter: { name },
    ...options,
  };
}

function provenance(partial: Partial<Provenance> = {}): Provenance {
  return {
    bundled: new Set(),
    hub: new Set(),
    protected: new Set(),
    warnings: [],
    warningTexts: [],
    ...partial,
  };
}

function planFor(
  skills: SkillEntry[],
  usage: UsageMap,
  options: { cron?: string[]; prov?: Partial<Provenance>; config?: SkillgateConfig; now?: Date } = {},
) {
  return plan({
    skills,
    usage,
    cronRefs: new Set(options.cron ?? []),
    provenance: provenance(options.prov),
    now: options.now ?? NOW,
    config: options.config ?? configWith(),
  });
}

describe("plan: automatic transitions", () => {
  it("marks 45-day idle skills stale and archives 120-day idle ones (scenario 6)", () => {
    const result = planFor([entry("mid"), entry("old", { relPath: "cat/old" })], {
      mid: record(NOW, { idleDays: 45 }),
      old: record(NOW, { idleDays: 120 }),
    });
    expect(result.counts).toEqual({ checked: 2, marked_stale: 1, archived: 1, reactivated: 0, seeded: 0 });
    expect(result.actions.map((a) => [a.name, a.kind, a.relPath])).toEqual([
      ["mid", "stale", "mid"],
      ["old", "archive", "cat/old"],
    ]);
    expect(result.changes).toBe(true);
  });

  it("leaves pinned skills alone even at 365 days and reactivates a stale one used recently (scenario 7)", () => {
    const result = planFor([entry("pinned"), entry("back")], {
      pinned: record(NOW, { idleDays: 365, pinned: true }),
      back: record(NOW, { idleDays: 2, state: "stale" }),
    });
    expect(result.skipped).toEqual([{ name: "pinned", reason: "pinned" }]);
    expect(result.actions).toMatchObject([{ name: "back", kind: "reactivate", from: "stale", to: "active" }]);
    expect(result.counts.reactivated).toBe(1);
  });

  it("never considers skills without the provenance marker (scenario 8)", () => {
    const result = planFor([entry("nomark"), entry("manual")], {
      manual: record(NOW, { idleDays: 500, created_by: null }),
    });
    expect(result.counts.checked).toBe(0);
    expect(result.actions).toEqual([]);
  });

  it("skips cron-referenced skills, by bare name or absolute path (scenario 9)", () => {
    const skills = [entry("cronned"), entry("by-path", { relPath: "ops/by-path" }), entry("loose")];
    const usage = {
      cronned: record(NOW, { idleDays: 200 }),
      "by-path": record(NOW, { idleDays: 200 }),
      loose: record(NOW, { idleDays: 200 }),
    };
    const refs = cronRefsFromJobs({
      jobs: [
        { id: "a", skills: ["cronned"], enabled: false },
        { id: "b", skill: "/home/u/.hermes/skills/ops/by-path/SKILL.md", paused: true },
      ],
    });
    const result = planFor(skills, usage, { cron: [...refs] });
    expect(result.counts.archived).toBe(1);
    expect(result.actions.map((a) => a.name)).toEqual(["loose"]);
    expect(result.skipped).toEqual([
      { name: "cronned", reason: "cron" },
      { name: "by-path", reason: "cron" },
    ]);
  });

  it("gives never-used skills a grace period but archives them when old (scenario 10)", () => {
    const young = record(NOW, { created_at: isoTimestamp(new Date(NOW.getTime() - 10 * DAY)) });
    const old = record(NOW, { created_at: isoTimestamp(new Date(NOW.getTime() - 200 * DAY)) });
    const result = planFor([entry("young"), entry("old")], { young, old });
    expect(result.skipped).toEqual([{ name: "young", reason: "grace" }]);
    expect(result.actions).toMatchObject([{ name: "old", kind: "archive" }]);
  });

  it("brings a young never-used stale skill back to active", () => {
    const stale = record(NOW, {
      state: "stale",
      created_at: isoTimestamp(new Date(NOW.getTime() - 3 * DAY)),
    });
    expect(planFor([entry("s")], { s: stale }).actions).toMatchObject([
      { kind: "reactivate", from: "stale", to: "active" },
    ]);
  });

  it("ignores bundled skills while prune_builtins is off (scenario 12)", () => {
    const result = planFor(
      [entry("builtin")],
      { builtin: record(NOW, { idleDays: 500, created_by: null }) },
      {
        prov: { bundled: new Set(["builtin"]) },
        config: configWith({ curator: { prune_builtins: false } }),
      },
    );
    expect(result.counts.checked).toBe(0);
  });

  it("seeds a bundled skill that has no record instead of archiving it (scenario 13)", () => {
    const result = planFor([entry("builtin")], {}, { prov: { bundled: new Set(["builtin"]) } });
    expect(result.counts).toMatchObject({ checked: 1, seeded: 1, archived: 0 });
    expect(result.actions).toMatchObject([{ kind: "seed", name: "builtin" }]);
    expect(result.changes).toBe(false);
  });

  it("re-anchors the clock of an untouched bundled skill once, then ages it normally", () => {
    const untouched = record(NOW, { created_by: null });
    const first = planFor(
      [entry("builtin")],
      { builtin: untouched },
      { prov: { bundled: new Set(["builtin"]) } },
    );
    expect(first.actions).toMatchObject([{ kind: "seed", reanchor: true }]);
    const seen = { ...untouched, first_seen_at: isoTimestamp(NOW), created_at: isoTimestamp(NOW) };
    const later = new Date(NOW.getTime() + 100 * DAY);
    const second = planFor(
      [entry("builtin")],
      { builtin: seen },
      { prov: { bundled: new Set(["builtin"]) }, now: later },
    );
    expect(second.actions).toMatchObject([{ kind: "archive", name: "builtin" }]);
  });

  it("never plans anything for protected, hub or external skills (scenarios 15, 16, 51)", () => {
    const usage = {
      plan: record(NOW, { idleDays: 500 }),
      hubby: record(NOW, { idleDays: 500 }),
      ext: record(NOW, { idleDays: 500 }),
    };
    const skills = [
      entry("plan"),
      entry("hubby"),
      entry("ext", { rootKind: "external", root: "/ext", dir: "/ext/ext" }),
    ];
    const result = planFor(skills, usage, {
      prov: { protected: new Set(["plan"]), hub: new Set(["hubby"]) },
    });
    expect(result.counts.checked).toBe(0);
    const config = configWith();
    const prov = provenance({ protected: new Set(["plan"]), hub: new Set(["hubby"]) });
    expect(classify("plan", skills[0], usage.plan, true, prov, config)).toMatchObject({
      kind: "protected",
      eligible: false,
    });
    expect(classify("hubby", skills[1], usage.hubby, true, prov, config)).toMatchObject({
      kind: "hub",
      eligible: false,
    });
    expect(classify("ext", skills[2], usage.ext, true, prov, config)).toMatchObject({
      kind: "external",
      eligible: false,
    });
  });

  it("counts a recent view or patch as activity even when the last use is old (scenario 17)", () => {
    const old = isoTimestamp(new Date(NOW.getTime() - 300 * DAY));
    const recent = isoTimestamp(new Date(NOW.getTime() - 1 * DAY));
    const viewed = record(NOW, { use_count: 3, last_used_at: old, last_viewed_at: recent });
    const patched = record(NOW, { use_count: 3, last_used_at: old, last_patched_at: recent });
    const result = planFor([entry("viewed"), entry("patched")], { viewed, patched });
    expect(result.actions).toEqual([]);
  });

  it("counts created_at only when there is no activity", () => {
    const created = record(NOW, {
      use_count: 1,
      created_at: isoTimestamp(new Date(NOW.getTime() - 50 * DAY)),
    });
    expect(planFor([entry("c")], { c: created }).actions).toMatchObject([{ kind: "stale", idleDays: 50 }]);
  });

  it("is pure: the same input gives the same plan and the input is not modified", () => {
    const usage = { a: record(NOW, { idleDays: 45 }), b: record(NOW, { idleDays: 120 }) };
    const frozen = JSON.stringify(usage);
    const skills = [entry("a"), entry("b")];
    expect(planFor(skills, usage)).toEqual(planFor(skills, usage));
    expect(JSON.stringify(usage)).toBe(frozen);
  });

  it("lists only managed skills, plus bundled ones when prune_builtins is on (scenario 51)", () => {
    const usage: UsageMap = {
      agent: record(NOW),
      manual: record(NOW, { created_by: null }),
      legacy: { ...record(NOW, { created_by: null }), agent_created: true },
    };
    const skills = [entry("agent"), entry("manual"), entry("legacy"), entry("builtin")];
    const rows = curatedRows({
      skills,
      usage,
      provenance: provenance({ bundled: new Set(["builtin"]) }),
      config: configWith(),
    });
    expect(rows.map((row) => [row.name, row.kind])).toEqual([
      ["agent", "agent"],
      ["legacy", "agent"],
      ["builtin", "bundled"],
    ]);
  });
});

describe("provenance and cron parsing", () => {
  it("reads both manifest formats and skips comments", () => {
    expect([...parseBundledManifest("# header\nalpha:0123abcd\nbeta\n\n  gamma:ff  \n")]).toEqual([
      "alpha",
      "beta",
      "gamma",
    ]);
  });

  it("tells the two unmanaged reasons apart", () => {
    const prov = provenance();
    const config = configWith();
    expect(classify("x", entry("x"), undefined, false, prov, config).unmanagedReason).toBe(
      "pre-dates marker",
    );
    expect(
      classify("x", entry("x"), record(NOW, { created_by: null }), true, prov, config).unmanagedReason,
    ).toBe("foreground-created");
  });

  it("normalises skill references from cron jobs", () => {
    expect(normalizeSkillRef("/abs/skills/cat/foo/SKILL.md")).toBe("foo");
    expect(normalizeSkillRef("cat/foo/")).toBe("foo");
    expect(normalizeSkillRef("foo")).toBe("foo");
    expect(normalizeSkillRef("  ")).toBeNull();
    expect([...cronRefsFromJobs([{ skills: ["a", 3, null], skill: "b" }, "junk", null])]).toEqual(["a", "b"]);
  });
});
