/** Whole runs on disk: reference scenarios 6, 9, 13, 14, 18–21, 27–29, 35 and the dry-run guarantee. */
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { SkillgateConfig } from "../../src/config/config.js";
import { replyToPlainText } from "../../src/core/reply.js";
import { archiveSkill } from "../../src/curator/archive.js";
import { readArchiveOrigins } from "../../src/curator/archive-layout.js";
import { readEntries } from "../../src/curator/ledger.js";
import { readSuppressed } from "../../src/curator/provenance.js";
import { buildRenameMap, renameMapText, summaryReply } from "../../src/curator/report.js";
import { runCurator } from "../../src/curator/run.js";
import { createSnapshot, listSnapshots } from "../../src/curator/snapshot.js";
import { readState } from "../../src/curator/state.js";
import type { ConsolidationOutcome, Consolidator } from "../../src/curator/types.js";
import { UsageStore } from "../../src/skills/usage.js";
import { libraryFor } from "./harness.js";
import {
  configWith,
  freshHomeEachTest,
  readUsage,
  record,
  skillsTreeHash,
  writeSkill,
  writeUsage,
} from "./helpers.js";

const NOW = new Date("2026-06-01T12:00:00Z");
let home: string;
freshHomeEachTest((made) => {
  home = made;
});

function run(config: SkillgateConfig = configWith(), extra: Partial<Parameters<typeof runCurator>[0]> = {}) {
  return runCurator({
    home,
    config,
    library: libraryFor(home, config),
    trigger: "manual",
    now: NOW,
    ...extra,
  });
}

/** A library with one skill for each automatic transition. */
async function seedLibrary(): Promise<void> {
  await writeSkill(home, "fresh");
  await writeSkill(home, "ops/tired");
  await writeSkill(home, "ops/ancient", { "references/a.md": "a" });
  await writeSkill(home, "comeback");
  await writeSkill(home, "cron-kept");
  await writeUsage(home, {
    fresh: record(NOW, { idleDays: 1 }),
    tired: record(NOW, { idleDays: 45 }),
    ancient: record(NOW, { idleDays: 120 }),
    comeback: record(NOW, { idleDays: 3, state: "stale" }),
    "cron-kept": record(NOW, { idleDays: 200 }),
  });
  await fs.mkdir(path.join(home, "cron"), { recursive: true });
  await fs.writeFile(
    path.join(home, "cron/jobs.json"),
    JSON.stringify({ jobs: [{ id: "j1", skills: [`${home}/skills/cron-kept`], enabled: false }] }),
  );
}

function outcome(partial: Partial<ConsolidationOutcome>): ConsolidationOutcome {
  return {
    consolidated: [],
    pruned: [],
    added: [],
    toolCalls: [],
    model: "m-1",
    provider: "prov",
    final: "",
    summary: "",
    error: null,
    cronRewrites: null,
    ...partial,
  };
}

describe("a real run", () => {
  it("curates skills this OS hides: they age and archive like any other", async () => {
    const other = process.platform === "win32" ? "linux" : "windows";
    const dir = await writeSkill(home, "ops/win-tool");
    await fs.writeFile(
      path.join(dir, "SKILL.md"),
      `---\nname: win-tool\ndescription: d\nplatforms: [${other}]\n---\nbody\n`,
    );
    await writeSkill(home, "win-stale");
    await fs.writeFile(
      path.join(home, "skills/win-stale/SKILL.md"),
      `---\nname: win-stale\ndescription: d\nplatforms: [${other}]\n---\nbody\n`,
    );
    await writeUsage(home, {
      "win-tool": record(NOW, { idleDays: 200 }),
      "win-stale": record(NOW, { idleDays: 45 }),
    });
    const result = await run();
    expect(result.autoTransitions).toMatchObject({ checked: 2, marked_stale: 1, archived: 1 });
    expect(result.archived).toEqual(["win-tool"]);
    await fs.stat(path.join(home, "skills/.archive/win-tool/SKILL.md"));
    const usage = await readUsage(home);
    expect(usage["win-stale"]?.state).toBe("stale");
    expect(await readArchiveOrigins(home)).toEqual({ "win-tool": "ops/win-tool" });
  });

  it("applies every transition, snapshots first, ledgers the archive and updates the state (scenarios 6, 9, 18, 21)", async () => {
    await seedLibrary();
    const result = await run();
    expect(result.autoTransitions).toEqual({
      checked: 5,
      marked_stale: 1,
      archived: 1,
      reactivated: 1,
      seeded: 0,
    });
    expect(result.changed).toBe(true);
    expect(result.archived).toEqual(["ancient"]);
    await fs.stat(path.join(home, "skills/.archive/ancient/SKILL.md"));
    await fs.stat(path.join(home, "skills/cron-kept/SKILL.md"));
    const usage = await readUsage(home);
    expect([
      usage.tired?.state,
      usage.ancient?.state,
      usage.comeback?.state,
      usage["cron-kept"]?.state,
    ]).toEqual(["stale", "archived", "active", "active"]);
    const snapshots = await listSnapshots(home);
    expect(snapshots.map((s) => s.manifest?.reason)).toEqual(["pre-curator-run"]);
    expect(result.snapshotId).toBe(snapshots[0]?.id);
    expect((await readEntries(home)).map((e) => [e.action, e.skill, e.actor])).toEqual([
      ["archive", "ancient", "curator"],
    ]);
    const { state } = await readState(home);
    expect(state.run_count).toBe(1);
    expect(state.last_run_at).toBe(result.startedAt);
    expect(state.last_run_summary).toBe(result.summary);
    // The run folder, as Hermes stores it; the run's own result names its REPORT.md.
    expect(state.last_report_path).toBe(path.dirname(result.reportPath ?? ""));
    expect(path.basename(result.reportPath ?? "")).toBe("REPORT.md");
    expect(result.summary.split("\n")[0]).toBe(
      "auto: 1 marked stale, 1 archived, 1 reactivated; llm: skipped (consolidation off)",
    );
    expect(result.summary).toContain("  • ancient — pruned (stale)");
    // `curator status` shows this summary beside the report's path: it must not point at itself.
    expect(result.summary).not.toContain("curator status");
  });

  it("takes no snapshot and posts nothing for a run with nothing to do", async () => {
    await writeSkill(home, "fresh");
    await writeUsage(home, { fresh: record(NOW, { idleDays: 1 }) });
    const result = await run();
    expect(result.changed).toBe(false);
    expect(result.snapshotId).toBeNull();
    expect(await listSnapshots(home)).toEqual([]);
    expect(result.summary).toBe("auto: no changes; llm: skipped (consolidation off)");
    expect(result.reportPath).not.toBeNull();
  });

  it("discards the snapshot begun while planning when nothing changes, and keeps the older ones", async () => {
    await writeSkill(home, "fresh");
    await writeUsage(home, { fresh: record(NOW, { idleDays: 1 }) });
    const config = configWith({ curator: { backup: { keep: 1 } } });
    const older = await createSnapshot({
      home,
      config,
      reason: "manual",
      now: new Date("2026-05-01T00:00:00Z"),
    });
    const result = await run(config);
    expect(result.snapshotId).toBeNull();
    expect((await listSnapshots(home)).map((snapshot) => snapshot.id)).toEqual([older.id]);
    const folders = await fs.readdir(path.join(home, "skills", ".curator_backups"));
    expect(folders.filter((name) => name.startsWith("2026"))).toEqual([older.id]);
  });

  it("a run with nothing to do needs no snapshot, so one that cannot be taken does not fail it", async () => {
    await writeSkill(home, "fresh");
    await writeUsage(home, { fresh: record(NOW, { idleDays: 1 }) });
    await fs.writeFile(path.join(home, "skills/.curator_backups"), "not a directory");
    const result = await run();
    expect(result.changed).toBe(false);
    expect(result.snapshotId).toBeNull();
  });

  it("aborts with nothing changed when the pre-run snapshot fails", async () => {
    await seedLibrary();
    await fs.writeFile(path.join(home, "skills/.curator_backups"), "not a directory");
    const before = await skillsTreeHash(home);
    await expect(run()).rejects.toThrow(/nothing was changed/);
    expect(await skillsTreeHash(home)).toBe(before);
  });

  it("runs without a snapshot when backups are disabled", async () => {
    await seedLibrary();
    const result = await run(configWith({ curator: { backup: { enabled: false } } }));
    expect(result.snapshotId).toBeNull();
    expect(result.autoTransitions.archived).toBe(1);
  });

  it("seeds bundled skills without a record, archives old ones and suppresses them (scenarios 13, 14)", async () => {
    await writeSkill(home, "new-builtin");
    await writeSkill(home, "old-builtin");
    await fs.writeFile(path.join(home, "skills/.bundled_manifest"), "new-builtin:aa\nold-builtin:bb\n");
    await writeUsage(home, { "old-builtin": record(NOW, { idleDays: 500, created_by: null }) });
    const result = await run();
    expect(result.autoTransitions).toMatchObject({ checked: 2, seeded: 1, archived: 1 });
    expect((await readUsage(home))["new-builtin"]).toMatchObject({
      state: "active",
      created_at: result.startedAt,
    });
    expect(await readSuppressed(home)).toEqual(new Set(["old-builtin"]));
  });

  it("warns and protects nothing when cron/jobs.json is unreadable, but still runs", async () => {
    await seedLibrary();
    await fs.writeFile(path.join(home, "cron/jobs.json"), "{ broken");
    const result = await run();
    expect(result.warnings.join("\n")).toContain("jobs.json is not valid JSON");
    expect(result.archived.sort()).toEqual(["ancient", "cron-kept"]);
  });

  it("loses no usage bump made while the run applies its plan (scenario 49)", async () => {
    await seedLibrary();
    const store = new UsageStore(path.join(home, "skills"));
    const bumps = Promise.all(Array.from({ length: 20 }, () => store.bump("fresh", "view")));
    await Promise.all([run(), bumps]);
    expect((await readUsage(home)).fresh?.view_count).toBe(20);
  });
});

describe("a dry run", () => {
  it("changes no skill file, usage record or archive, keeps the clock, and still writes its report (scenario 19)", async () => {
    await seedLibrary();
    const before = await skillsTreeHash(home);
    const result = await run(configWith(), { dryRun: true });
    expect(await skillsTreeHash(home)).toBe(before);
    expect(result.dryRun).toBe(true);
    expect(result.changed).toBe(false);
    expect(result.snapshotId).toBeNull();
    expect(result.autoTransitions).toMatchObject({
      checked: 5,
      marked_stale: 1,
      archived: 1,
      reactivated: 1,
    });
    expect(result.summary.startsWith("dry-run auto: would mark 1 stale, archive 1, reactivate 1")).toBe(true);
    expect(result.summary).not.toMatch(/\barchived\b/);
    expect(result.summary).toContain("would archive 1 skill(s):");
    // Nothing of a dry run reaches the state: `curator status` still describes the last real run.
    const { state } = await readState(home);
    expect(state.last_run_at).toBeNull();
    expect(state.run_count).toBe(0);
    expect(state.last_run_summary).toBeNull();
    expect(state.last_report_path).toBeNull();
    const report = await fs.readFile(result.reportPath ?? "", "utf8");
    expect(report).toContain("DRY-RUN");
    const json = JSON.parse(
      await fs.readFile(path.join(path.dirname(result.reportPath ?? ""), "run.json"), "utf8"),
    );
    expect(json.dry_run).toBe(true);
    expect(await listSnapshots(home)).toEqual([]);
  });
});

describe("the LLM seam (scenario 20)", () => {
  it("reports consolidation off, no model configured, and no candidates without calling anything", async () => {
    let calls = 0;
    const counting: Consolidator = async () => {
      calls += 1;
      return outcome({ summary: "nothing to merge" });
    };
    expect((await run(configWith(), { consolidator: counting })).llm.status).toBe(
      "skipped (consolidation off)",
    );
    expect((await run(configWith({ curator: { consolidate: true } }))).llm.status).toBe(
      "skipped (no model configured)",
    );
    expect((await run(configWith(), { consolidate: true, consolidator: counting })).llm.status).toBe(
      "skipped (no candidates)",
    );
    expect(calls).toBe(0);
    await writeSkill(home, "solo");
    await writeUsage(home, { solo: record(NOW, { idleDays: 1 }) });
    const viaConfig = await run(configWith({ curator: { consolidate: true } }), { consolidator: counting });
    const viaFlag = await run(configWith(), { consolidate: true, consolidator: counting });
    expect(calls).toBe(2);
    expect(viaConfig.summary).toBe("auto: no changes; llm: nothing to merge");
    expect(viaFlag.llm.status).toBe("nothing to merge");
  });

  it("records an LLM error, keeps going, and shows it in the report (scenario 29)", async () => {
    await writeSkill(home, "solo");
    await writeUsage(home, { solo: record(NOW, { idleDays: 45 }) });
    const failing: Consolidator = async () => {
      throw new Error("model timed out");
    };
    const result = await run(configWith(), { consolidate: true, consolidator: failing });
    expect(result.summary.split("\n")[0]).toBe("auto: 1 marked stale; llm: error (model timed out)");
    const report = await fs.readFile(result.reportPath ?? "", "utf8");
    expect(report).toContain("> ⚠ LLM pass error: model timed out");
    expect(report).toContain("### State transitions (1)");
    expect(report).toContain("`solo`: active → stale");
  });
});

describe("reports (scenarios 27–29)", () => {
  it("classifies a consolidation in run.json and REPORT.md and builds the rename map with the pin hint", async () => {
    await writeSkill(home, "old-thing");
    await writeSkill(home, "keeper");
    await writeUsage(home, {
      "old-thing": record(NOW, { idleDays: 2 }),
      keeper: record(NOW, { idleDays: 2 }),
    });
    const merging: Consolidator = async (input) => {
      await writeSkill(input.home, "new-umbrella", { "references/old-thing.md": "moved" });
      await new UsageStore(path.join(input.home, "skills")).update((records) => {
        records["new-umbrella"] = record(NOW, { idleDays: 0 });
      });
      await archiveSkill("old-thing", {
        home: input.home,
        config: input.config,
        library: input.library,
        actor: "curator",
        evidence: { absorbed_into: "new-umbrella" },
      });
      return outcome({
        consolidated: [
          {
            name: "old-thing",
            into: "new-umbrella",
            source: "absorbed_into (model-declared at delete)",
            reason: "overlaps",
          },
        ],
        added: ["new-umbrella"],
        toolCalls: [
          { name: "skill_manage", arguments: JSON.stringify({ action: "create", name: "new-umbrella" }) },
          { name: "skill_manage", arguments: "x".repeat(500) },
          { name: "skill_view", arguments: "{}" },
        ],
        final: "Merged old-thing into new-umbrella.\n\nDone.",
        summary: "merged 1",
      });
    };
    const result = await run(configWith(), { consolidate: true, consolidator: merging });
    expect(result.before.sort()).toEqual(["keeper", "old-thing"]);
    expect(result.after.sort()).toEqual(["keeper", "new-umbrella"]);
    expect(result.changed).toBe(true);
    const json = JSON.parse(
      await fs.readFile(path.join(path.dirname(result.reportPath ?? ""), "run.json"), "utf8"),
    );
    expect(json.archived).toEqual(["old-thing"]);
    expect(json.added).toEqual(["new-umbrella"]);
    expect(json.counts).toMatchObject({
      before: 2,
      after: 2,
      delta: 0,
      archived_this_run: 1,
      added_this_run: 1,
      consolidated_this_run: 1,
      tool_calls_total: 3,
    });
    expect(json.tool_call_counts).toEqual({ skill_manage: 2, skill_view: 1 });
    expect(json.tool_calls[1].arguments).toHaveLength(401);
    expect(json.model).toBe("m-1");
    const report = await fs.readFile(result.reportPath ?? "", "utf8");
    expect(report.startsWith(`# Curator run — ${result.startedAt}\n`)).toBe(true);
    expect(report).toContain("Model: `m-1` via `prov`");
    expect(report).toContain("`old-thing` → merged into `new-umbrella` — overlaps");
    expect(report).toContain("## LLM final summary\n\nMerged old-thing into new-umbrella.\n\nDone.");
    const order = [
      "## Auto-transitions",
      "## LLM consolidation pass",
      "### Consolidated into umbrella skills (1)",
      "## LLM final summary",
      "## Recovery",
    ].map((h) => report.indexOf(h));
    expect(order.every((at, i) => at >= 0 && (i === 0 || at > (order[i - 1] ?? 0)))).toBe(true);
    expect(result.summary).toContain("  • old-thing → new-umbrella");
    expect(result.summary).toContain("keep an umbrella stable: skillgate curator pin new-umbrella");
    const chat = replyToPlainText(summaryReply(result, (p) => `/${p.join(" ")}`));
    expect(chat).toContain("curator: auto: no changes; llm: merged 1");
    expect(chat).toContain("old-thing → new-umbrella");
    expect(chat).toContain("full report: `/curator status`");
    expect(chat).toContain("`/curator pin new-umbrella`");
  });

  it("writes reports under logs/curator and gives a second one in the same second a -2 folder (scenario 27)", async () => {
    const first = await run();
    const second = await run();
    const root = path.join(home, "logs", "curator");
    expect(path.dirname(first.reportPath ?? "")).toBe(path.join(root, "20260601-120000"));
    expect(path.dirname(second.reportPath ?? "")).toBe(path.join(root, "20260601-120000-2"));
    for (const result of [first, second]) {
      const dir = path.dirname(result.reportPath ?? "");
      expect((await fs.readdir(dir)).sort()).toEqual(["REPORT.md", "run.json"]);
    }
  });
});

describe("rename map (scenario 35)", () => {
  const prefix = (p: string[]) => `skillgate ${p.join(" ")}`;

  it("is empty when nothing was archived", () => {
    expect(renameMapText(buildRenameMap([], [], []), prefix)).toBe("");
  });

  it("caps at 10 lines with an '… and K more' line, consolidations first", () => {
    const names = Array.from({ length: 11 }, (_v, i) => `stale-${i}`);
    const map = buildRenameMap([{ name: "a", into: "umbrella", source: "model", reason: "r" }], [], names);
    const text = renameMapText(map, prefix).split("\n");
    expect(text[0]).toBe("archived 12 skill(s):");
    expect(text[1]).toBe("  • a → umbrella");
    expect(text[2]).toBe("  • stale-0 — pruned (stale)");
    expect(text).toContain("  … and 2 more");
    expect(text.filter((line) => line.startsWith("  • ")).length).toBe(10);
    expect(text.at(-1)).toBe("keep an umbrella stable: skillgate curator pin umbrella");
    // The stored summary is what `curator status` shows: it never points at `curator status`.
    expect(text.join("\n")).not.toContain("curator status");
  });

  it("gives the pin hint only after a consolidation, naming the alphabetically first umbrella", () => {
    expect(
      renameMapText(buildRenameMap([], [{ name: "x", source: "model", reason: "r" }], []), prefix),
    ).not.toContain("pin");
    const two = buildRenameMap(
      [
        { name: "a", into: "zeta", source: "model", reason: "r" },
        { name: "b", into: "alpha", source: "model", reason: "r" },
      ],
      [],
      [],
    );
    expect(two.pinHint).toBe("alpha");
  });
});
