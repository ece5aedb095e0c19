/**
 * Curator lifecycle scenarios of reference (d) that the per-module suites covered only in part:
 * 29 (transitions listed in the report), 50 (no lifecycle write for a bundled skill with prune off),
 * 51 (the curated set on a real disk layout) and 54 (telemetry for bundled and hub skills, lifecycle refused).
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { terminalContext } from "../../commands/context.js";
import { skillsCommands } from "../../commands/skills.js";
import type { SkillgateConfig } from "../../src/config/config.js";
import { CuratorError } from "../../src/core/errors.js";
import { archiveSkill } from "../../src/curator/archive.js";
import { runCurator } from "../../src/curator/run.js";
import { libraryFor, runCli } from "../curator/harness.js";
import {
  configWith,
  freshHomeEachTest,
  readUsage,
  record,
  writeSkill,
  writeUsage,
} from "../curator/helpers.js";

const NOW = new Date("2026-06-01T12:00:00Z");
let home: string;
freshHomeEachTest((made) => {
  home = made;
});

function run(config: SkillgateConfig, dryRun = false) {
  return runCurator({
    home,
    config,
    library: libraryFor(home, config),
    trigger: "manual",
    now: NOW,
    dryRun,
  });
}

async function rawUsage(): Promise<Record<string, unknown>> {
  return JSON.parse(await fs.readFile(path.join(home, "skills", ".usage.json"), "utf8"));
}

async function reportFiles(
  reportPath: string | null,
): Promise<{ md: string; json: Record<string, unknown> }> {
  expect(reportPath).not.toBeNull();
  const md = await fs.readFile(reportPath ?? "", "utf8");
  const json = JSON.parse(await fs.readFile(path.join(path.dirname(reportPath ?? ""), "run.json"), "utf8"));
  return { md, json };
}

describe("scenario 29: the report lists the state transitions of the automatic pass", () => {
  beforeEach(async () => {
    await writeSkill(home, "tired");
    await writeSkill(home, "ops/ancient");
    await writeSkill(home, "comeback");
    await writeSkill(home, "fresh");
    await writeUsage(home, {
      tired: record(NOW, { idleDays: 45 }),
      ancient: record(NOW, { idleDays: 120 }),
      comeback: record(NOW, { idleDays: 3, state: "stale" }),
      fresh: record(NOW, { idleDays: 1 }),
    });
  });

  it("scenario 29: a prune-only run lists every transition (name, from → to) in REPORT.md and run.json", async () => {
    const result = await run(configWith());
    const { md, json } = await reportFiles(result.reportPath);
    const expected = [
      { name: "ancient", from: "active", to: "archived" },
      { name: "comeback", from: "stale", to: "active" },
      { name: "tired", from: "active", to: "stale" },
    ];
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    expect([...(json.state_transitions as { name: string }[])].sort(byName)).toEqual(expected);
    expect((json.counts as Record<string, number>).state_transitions).toBe(3);
    expect(md).toContain("### State transitions (3)");
    for (const t of expected) expect(md).toContain(`- \`${t.name}\`: ${t.from} → ${t.to}`);
    expect(md).not.toContain("`fresh`");
    expect(md).toContain("- marked stale: 1");
    expect(md).toContain("- archived (no LLM, pure time-based staleness): 1");
    expect(md).toContain("- reactivated: 1");
    // The section sits between the LLM pass summary and the recovery hints.
    const at = (heading: string) => md.indexOf(heading);
    expect(at("## LLM consolidation pass")).toBeLessThan(at("### State transitions"));
    expect(at("### State transitions")).toBeLessThan(at("## Recovery"));
  });

  it("scenario 29: a dry run lists the transitions it would make and changes none of them", async () => {
    const result = await run(configWith(), true);
    const { md, json } = await reportFiles(result.reportPath);
    expect(md).toContain("DRY-RUN");
    expect(md).toContain("- `tired`: active → stale");
    expect(md).toContain("- `ancient`: active → archived");
    expect(md).toContain("- `comeback`: stale → active");
    expect((json.state_transitions as unknown[]).length).toBe(3);
    const usage = await readUsage(home);
    expect([usage.tired?.state, usage.ancient?.state, usage.comeback?.state]).toEqual([
      "active",
      "active",
      "stale",
    ]);
  });

  it("scenario 29: a run with nothing to do has no transitions section", async () => {
    await writeUsage(home, {
      tired: record(NOW, { idleDays: 1 }),
      ancient: record(NOW, { idleDays: 1 }),
      comeback: record(NOW, { idleDays: 1 }),
      fresh: record(NOW, { idleDays: 1 }),
    });
    const result = await run(configWith());
    const { md, json } = await reportFiles(result.reportPath);
    expect(json.state_transitions).toEqual([]);
    expect(md).not.toContain("### State transitions");
    expect(md).toContain("- state transitions: 0");
  });
});

describe("scenario 50: a bundled skill with prune_builtins off gets no lifecycle write", () => {
  it("scenario 50: run, pin, unpin, adopt and archive leave its usage record exactly as it was", async () => {
    const noPrune = configWith({ curator: { prune_builtins: false } });
    await writeSkill(home, "builtin");
    await fs.writeFile(path.join(home, "skills", ".bundled_manifest"), "builtin:0a1b\n");
    // Even a record that claims the marker does not make a bundled skill curated while prune is off.
    await writeUsage(home, {
      builtin: record(NOW, { idleDays: 500, state: "stale" }),
    });
    const before = (await rawUsage()).builtin;
    const result = await run(noPrune);
    expect(result.autoTransitions.checked).toBe(0);
    expect(result.stateTransitions).toEqual([]);
    for (const words of [
      ["pin", "builtin"],
      ["unpin", "builtin"],
      ["adopt", "builtin"],
    ]) {
      const { reply } = await runCli(home, noPrune, words, { now: NOW });
      expect(reply.exitCode, words.join(" ")).toBe(1);
    }
    await expect(
      archiveSkill("builtin", {
        home,
        config: noPrune,
        library: libraryFor(home, noPrune),
        actor: "user",
        now: NOW,
      }),
    ).rejects.toBeInstanceOf(CuratorError);
    expect((await rawUsage()).builtin).toEqual(before);
    await fs.stat(path.join(home, "skills", "builtin", "SKILL.md"));
  });
});

describe("scenario 51: the curated set on disk", () => {
  it("scenario 51: excludes bundled (prune off), hub (also by install_path frontmatter name), .archive, .hub and external skills even with an agent record", async () => {
    const ext = path.join(home, "external-skills");
    await writeSkill(home, "mine");
    await writeSkill(home, "builtin");
    await writeSkill(home, "hub-listed");
    await writeSkill(home, "vendor-dir", {}, "hub-named");
    await writeSkill(home, ".hub/cache-skill");
    await writeSkill(home, ".archive/buried");
    await fs.mkdir(path.join(ext, "outsider"), { recursive: true });
    await fs.writeFile(
      path.join(ext, "outsider", "SKILL.md"),
      "---\nname: outsider\ndescription: lives elsewhere\n---\nbody\n",
    );
    await fs.writeFile(path.join(home, "skills", ".bundled_manifest"), "builtin:ff\n");
    await fs.writeFile(
      path.join(home, "skills", ".hub", "lock.json"),
      JSON.stringify({
        version: 1,
        installed: {
          "hub-listed": { install_path: "hub-listed" },
          "pkg-key": { install_path: "vendor-dir" },
        },
      }),
    );
    const idle = record(NOW, { idleDays: 500 });
    const names = ["mine", "builtin", "hub-listed", "hub-named", "cache-skill", "buried", "outsider"];
    await writeUsage(home, Object.fromEntries(names.map((name) => [name, idle])));
    const config = configWith({ curator: { prune_builtins: false }, skills: { external_dirs: [ext] } });

    const preview = await run(config, true);
    expect(preview.autoTransitions.checked).toBe(1);
    expect(preview.stateTransitions.map((t) => t.name)).toEqual(["mine"]);

    const result = await run(config);
    expect(result.autoTransitions).toMatchObject({ checked: 1, archived: 1 });
    expect(result.archived).toEqual(["mine"]);
    const usage = await readUsage(home);
    for (const name of names.filter((n) => n !== "mine")) expect(usage[name]?.state, name).toBe("active");
    for (const rel of ["builtin", "hub-listed", "vendor-dir", ".hub/cache-skill"])
      await fs.stat(path.join(home, "skills", rel, "SKILL.md"));
    await fs.stat(path.join(ext, "outsider", "SKILL.md"));

    const status = await runCli(home, config, ["status", "--json"], { now: NOW });
    const json = status.reply.json as { managed: { total: number; bundled: number } };
    expect(json.managed.bundled).toBe(0);
    // Only `mine` is managed (now archived); nothing hub, bundled or external is counted.
    expect(json.managed.total).toBe(1);
  });
});

describe("scenario 54: bundled and hub skills get telemetry, never lifecycle", () => {
  it("scenario 54: views bump their counters; pin, adopt and archive are refused; the usage report names every kind", async () => {
    await writeSkill(home, "builtin");
    await writeSkill(home, "from-hub");
    await writeSkill(home, "mine");
    await writeSkill(home, "handmade");
    await fs.writeFile(path.join(home, "skills", ".bundled_manifest"), "builtin\n");
    await fs.mkdir(path.join(home, "skills", ".hub"), { recursive: true });
    await fs.writeFile(
      path.join(home, "skills", ".hub", "lock.json"),
      JSON.stringify({ version: 1, installed: { "from-hub": { install_path: "from-hub" } } }),
    );
    await writeUsage(home, { mine: record(NOW, { idleDays: 1 }) });
    const config = configWith({ curator: { prune_builtins: false } });
    const library = libraryFor(home, config);
    for (const name of ["builtin", "from-hub"]) {
      expect((await library.view(name, { bumpView: true })).success).toBe(true);
      expect((await library.view(name, { bumpView: true })).success).toBe(true);
    }
    const usage = await readUsage(home);
    expect(usage.builtin?.view_count).toBe(2);
    expect(usage["from-hub"]?.view_count).toBe(2);
    expect([usage.builtin?.pinned, usage["from-hub"]?.pinned]).toEqual([false, false]);

    for (const name of ["builtin", "from-hub"]) {
      const pin = await runCli(home, config, ["pin", name], { now: NOW });
      expect(pin.reply.exitCode, `pin ${name}`).toBe(1);
      expect(pin.text).toContain("bundled or hub-installed");
      expect((await runCli(home, config, ["adopt", name], { now: NOW })).reply.exitCode).toBe(1);
      expect((await runCli(home, config, ["archive", name], { now: NOW })).reply.exitCode).toBe(1);
    }
    const after = await readUsage(home);
    expect(after.builtin?.created_by ?? null).toBeNull();
    expect(after["from-hub"]?.created_by ?? null).toBeNull();
    expect([after.builtin?.state, after["from-hub"]?.state]).toEqual(["active", "active"]);

    const spec = skillsCommands.find((candidate) => candidate.path[1] === "usage");
    if (!spec) throw new Error("no skills usage command");
    const report = await spec.run(terminalContext({ home, config, library, now: () => NOW }), {
      args: [],
      options: { sort: "name" },
    });
    const rows = (report.json as { skills: { name: string; provenance: string; view_count: number }[] })
      .skills;
    expect(rows.map((row) => [row.name, row.provenance])).toEqual([
      ["builtin", "bundled"],
      ["from-hub", "hub"],
      ["handmade", "unmanaged"],
      ["mine", "agent"],
    ]);
    expect(rows.find((row) => row.name === "from-hub")?.view_count).toBe(2);
  });
});
