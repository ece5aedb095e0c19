/** Archive and restore on disk: reference scenarios 14–16, 50, 52, 53, plus category round trips. */
import { createHash } from "node:crypto";
import { promises as fs, rmSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CuratorError } from "../../src/core/errors.js";
import type { ProgressEvent } from "../../src/core/progress.js";
import { archiveMany, archiveSkill, listArchived, restoreSkill } from "../../src/curator/archive.js";
import { readArchiveOrigins } from "../../src/curator/archive-layout.js";
import { readEntries } from "../../src/curator/ledger.js";
import { readSuppressed } from "../../src/curator/provenance.js";
import { rollbackEntry } from "../../src/curator/rollback-entry.js";
import type { SkillEntry } from "../../src/skills/types.js";
import { libraryFor } from "./harness.js";
import { configWith, freshHomeEachTest, readUsage, record, writeSkill, writeUsage } from "./helpers.js";

const NOW = new Date("2026-06-01T12:00:00Z");
let home: string;
const skills = () => path.join(home, "skills");

freshHomeEachTest((made) => {
  home = made;
});

function opts(config = configWith(), now = NOW) {
  return { home, config, library: libraryFor(home, config), actor: "user" as const, now };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CuratorError);
  return (error as Error).message;
}

describe("archive", () => {
  it("moves the package flat under .archive, records its category, sets archived state and ledgers it (scenarios 50, 52)", async () => {
    await writeSkill(home, "devops/deployer", { "references/notes.md": "notes" });
    await writeUsage(home, { deployer: record(NOW, { idleDays: 5 }) });
    const result = await archiveSkill("deployer", opts());
    expect(result).toMatchObject({
      name: "deployer",
      from: "devops/deployer",
      archivedAs: "deployer",
    });
    await expect(fs.stat(path.join(skills(), "devops/deployer"))).rejects.toThrow();
    expect(await fs.readFile(path.join(skills(), ".archive/deployer/references/notes.md"), "utf8")).toBe(
      "notes",
    );
    const usage = await readUsage(home);
    expect(usage.deployer?.state).toBe("archived");
    expect(usage.deployer?.archived_at).toBe("2026-06-01T12:00:00.000000+00:00");
    expect(await readArchiveOrigins(home)).toEqual({ deployer: "devops/deployer" });
    const entries = await readEntries(home);
    expect(entries.map((e) => [e.action, e.skill, e.actor])).toEqual([["archive", "deployer", "user"]]);
    expect(entries[0]?.before.map((f) => path.basename(f.path)).sort()).toEqual(["SKILL.md", "notes.md"]);
  });

  it("adds a timestamp suffix on collision (scenario 52)", async () => {
    await writeSkill(home, "dup");
    await fs.mkdir(path.join(skills(), ".archive/dup"), { recursive: true });
    await fs.writeFile(path.join(skills(), ".archive/dup/SKILL.md"), "---\nname: dup\n---\nolder\n");
    const result = await archiveSkill("dup", opts());
    expect(result.archivedAs).toBe("dup-20260601120000");
    const again = await writeSkill(home, "dup");
    expect(again).toContain("dup");
    expect((await archiveSkill("dup", opts())).archivedAs).toBe("dup-20260601120000-2");
  });

  it("refuses bundled (prune off), hub, external, missing and '..' names (scenarios 15, 16, 52)", async () => {
    await writeSkill(home, "builtin");
    await writeSkill(home, "hubby");
    await writeSkill(home, "hub-dir", {}, "from-hub-frontmatter");
    await fs.writeFile(path.join(skills(), ".bundled_manifest"), "builtin:abc\n");
    await fs.mkdir(path.join(skills(), ".hub"), { recursive: true });
    await fs.writeFile(
      path.join(skills(), ".hub/lock.json"),
      JSON.stringify({
        version: 1,
        installed: { hubby: { install_path: "hubby" }, other: { install_path: "hub-dir" } },
      }),
    );
    const ext = path.join(home, "ext");
    await fs.mkdir(path.join(ext, "outside"), { recursive: true });
    await fs.writeFile(path.join(ext, "outside/SKILL.md"), "---\nname: outside\n---\nx\n");
    const noPrune = configWith({ curator: { prune_builtins: false }, skills: { external_dirs: [ext] } });
    expect(await refusal(archiveSkill("builtin", opts(noPrune)))).toContain("enable curator.prune_builtins");
    expect(await refusal(archiveSkill("hubby", opts(noPrune)))).toContain("hub-installed");
    expect(await refusal(archiveSkill("from-hub-frontmatter", opts(noPrune)))).toContain("hub-installed");
    expect(await refusal(archiveSkill("outside", opts(noPrune)))).toContain("external");
    expect(await refusal(archiveSkill("ghost", opts(noPrune)))).toContain("not found");
    expect(await refusal(archiveSkill("../etc", opts(noPrune)))).toContain("invalid skill name");
    expect((await listArchived(home)).length).toBe(0);
    expect(await fs.readdir(path.join(ext))).toEqual(["outside"]);
  });

  it("refuses a pinned skill and names the unpin command", async () => {
    await writeSkill(home, "keeper");
    await writeUsage(home, { keeper: record(NOW, { pinned: true }) });
    expect(await refusal(archiveSkill("keeper", opts()))).toContain("`skillgate curator unpin keeper`");
  });

  it("suppresses an archived built-in and restore clears it (scenario 14)", async () => {
    await writeSkill(home, "builtin");
    await fs.writeFile(path.join(skills(), ".bundled_manifest"), "builtin:abc\n");
    await fs.writeFile(path.join(skills(), ".curator_suppressed"), "# pruned built-ins\nother\n");
    await archiveSkill("builtin", opts());
    expect([...(await readSuppressed(home))].sort()).toEqual(["builtin", "other"]);
    await restoreSkill("builtin", opts());
    expect([...(await readSuppressed(home))]).toEqual(["other"]);
    expect(await fs.readFile(path.join(skills(), ".curator_suppressed"), "utf8")).toContain(
      "# pruned built-ins",
    );
  });

  it("never suppresses or archives a protected built-in (scenario 15)", async () => {
    await writeSkill(home, "plan");
    const protectedProv = {
      bundled: new Set(["plan"]),
      hub: new Set<string>(),
      protected: new Set(["plan"]),
      warnings: [],
      warningTexts: [],
    };
    expect(await refusal(archiveSkill("plan", { ...opts(), provenance: protectedProv }))).toContain(
      "protected built-in",
    );
    expect(await readSuppressed(home)).toEqual(new Set());
  });
});

describe("restore", () => {
  it("puts a skill back into its category, active, archived_at cleared, ledgered (scenario 50)", async () => {
    await writeSkill(home, "research/scholar", { "scripts/run.sh": "echo hi" });
    await writeUsage(home, { scholar: record(NOW, { idleDays: 100 }) });
    await archiveSkill("scholar", opts());
    const back = await restoreSkill("scholar", opts());
    expect(back).toMatchObject({ name: "scholar", restoredTo: "research/scholar", flattened: false });
    expect(await fs.readFile(path.join(skills(), "research/scholar/scripts/run.sh"), "utf8")).toBe("echo hi");
    const usage = await readUsage(home);
    expect(usage.scholar).toMatchObject({ state: "active", archived_at: null });
    expect((await readEntries(home)).map((e) => e.action)).toEqual(["archive", "restore"]);
    expect(await listArchived(home)).toEqual([]);
  });

  it("falls back to the top level only when the original place is taken", async () => {
    await writeSkill(home, "cat/tool");
    await archiveSkill("tool", opts());
    await fs.mkdir(path.join(skills(), "cat/tool"), { recursive: true });
    await fs.writeFile(path.join(skills(), "cat/tool/notes.txt"), "not a skill");
    const back = await restoreSkill("tool", opts());
    expect(back).toMatchObject({ restoredTo: "tool", flattened: true });
    expect(await fs.readFile(path.join(skills(), "cat/tool/notes.txt"), "utf8")).toBe("not a skill");
  });

  it("refuses when the name is live, hub-installed or bundled with prune off, or the archive is missing", async () => {
    expect(await refusal(restoreSkill("x", opts()))).toContain("no archive directory");
    await writeSkill(home, "twin");
    await archiveSkill("twin", opts());
    await writeSkill(home, "other-cat/twin");
    expect(await refusal(restoreSkill("twin", opts()))).toContain("already live");
    await fs.rm(path.join(skills(), "other-cat"), { recursive: true });
    await fs.mkdir(path.join(skills(), ".hub"), { recursive: true });
    await fs.writeFile(path.join(skills(), ".hub/lock.json"), JSON.stringify({ installed: { twin: {} } }));
    expect(await refusal(restoreSkill("twin", opts()))).toContain("now hub-installed");
    await fs.rm(path.join(skills(), ".hub"), { recursive: true });
    await fs.writeFile(path.join(skills(), ".bundled_manifest"), "twin\n");
    expect(
      await refusal(restoreSkill("twin", opts(configWith({ curator: { prune_builtins: false } })))),
    ).toContain("bundled");
    expect(await refusal(restoreSkill("nothing-here", opts()))).toContain("not found in archive");
    expect(await refusal(restoreSkill("../../etc", opts()))).toContain("invalid");
    expect((await listArchived(home)).map((item) => item.archivedAs)).toEqual(["twin"]);
  });

  it("finds nested and timestamped archives; `git` never takes `git-helpers`; dupes beat siblings (scenario 53)", async () => {
    const archive = path.join(skills(), ".archive");
    const put = async (rel: string, name: string) => {
      await fs.mkdir(path.join(archive, rel), { recursive: true });
      await fs.writeFile(path.join(archive, rel, "SKILL.md"), `---\nname: ${name}\n---\nbody\n`);
    };
    await put("tools/nested", "nested");
    await put("git-helpers", "git-helpers");
    await put("report-card", "report-card");
    await put("report-20260101000000", "report");
    await put("report-20260301000000", "report");
    const git = await refusal(restoreSkill("git", opts()));
    expect(git).toContain("not found in archive");
    expect((await restoreSkill("nested", opts())).restoredTo).toBe("tools/nested");
    const report = await restoreSkill("report", opts());
    expect(report.archivedAs).toBe("report-20260301000000");
    expect(report.restoredTo).toBe("report");
    expect((await listArchived(home)).map((item) => item.archivedAs)).toEqual([
      "git-helpers",
      "report-20260101000000",
      "report-card",
    ]);
  });

  it("keeps two categories' same folder name apart with a timestamp, each restorable to its category", async () => {
    await writeSkill(home, "a/same", {}, "same-a");
    await writeSkill(home, "b/same", {}, "same-b");
    await archiveSkill("same-a", opts());
    await archiveSkill("same-b", opts());
    expect((await listArchived(home)).map((item) => [item.archivedAs, item.restoreTo])).toEqual([
      ["same", "a/same"],
      ["same-20260601120000", "b/same"],
    ]);
    expect((await restoreSkill("b/same", opts())).restoredTo).toBe("b/same");
    expect((await restoreSkill("same", opts())).restoredTo).toBe("a/same");
  });

  it("accepts every name list-archived prints, and each lands back in its category", async () => {
    const layout = ["flat-one", "alpha/one", "alpha/two", "beta/deep/three", "gamma/one"];
    for (const rel of layout) await writeSkill(home, rel, {}, rel.replaceAll("/", "-"));
    for (const rel of layout) await archiveSkill(rel.replaceAll("/", "-"), opts());
    // A second generation of the same folder creates timestamped archives too.
    await writeSkill(home, "alpha/one", {}, "alpha-one");
    await archiveSkill("alpha-one", opts(configWith(), new Date("2026-06-02T08:00:00Z")));
    await writeSkill(home, "legacy-flat", {}, "legacy-flat");
    await fs.rename(
      path.join(skills(), "legacy-flat"),
      path.join(skills(), ".archive/legacy-flat-20250101010101"),
    );
    const listed = await listArchived(home);
    expect(listed.map((item) => [item.archivedAs, item.restoreTo])).toEqual([
      ["flat-one", "flat-one"],
      ["legacy-flat-20250101010101", "legacy-flat"],
      ["one", "alpha/one"],
      ["one-20260601120000", "gamma/one"],
      ["one-20260602080000", "alpha/one"],
      ["three", "beta/deep/three"],
      ["two", "alpha/two"],
    ]);
    for (const [index, item] of listed.entries()) {
      const restored = await restoreSkill(item.archivedAs, opts());
      expect(restored.restoredTo).toBe(item.restoreTo);
      await fs.stat(path.join(skills(), restored.restoredTo, "SKILL.md"));
      // Two generations of one skill cannot both be live: archive this one again before the next returns.
      if (listed.slice(index + 1).some((later) => later.skillName === item.skillName))
        await archiveSkill(restored.name, opts());
    }
    expect((await listArchived(home)).map((item) => item.archivedAs)).toEqual(["one"]);
  });
});

describe("archiveMany (batched, group-committed)", () => {
  it("archives more than one chunk: every move ledgered with matching before/after blobs, one usage write carrying extra changes", async () => {
    const names = Array.from({ length: 70 }, (_, i) => `batch-${String(i).padStart(2, "0")}`);
    const usage: Record<string, ReturnType<typeof record>> = { bystander: record(NOW, { idleDays: 1 }) };
    for (const name of names) {
      await writeSkill(home, `cat-${name.slice(-1)}/${name}`, { "references/r.md": `ref of ${name}` });
      usage[name] = record(NOW, { idleDays: 200 });
    }
    await writeSkill(home, "pinned-one");
    usage["pinned-one"] = record(NOW, { idleDays: 200, pinned: true });
    await writeUsage(home, usage);
    const o = opts();
    const entries = await o.library.all();
    const wanted = entries.filter((entry) => entry.name !== "bystander");
    const events: ProgressEvent[] = [];
    const done = await archiveMany(
      wanted.map((entry) => ({ entry, evidence: { reason: "test" } })),
      {
        ...o,
        meter: (event) => events.push(event),
        alsoUpdateUsage: (records) => {
          const bystander = records.bystander;
          if (bystander) bystander.state = "stale";
        },
      },
    );
    expect(done.archived.map((item) => item.name).sort()).toEqual(names);
    expect(done.failures.map((failure) => failure.name)).toEqual(["pinned-one"]);
    // Progress: from 0 to all 71, once per chunk, never going back.
    expect(events.map((event) => event.done)).toEqual([0, 64, 71]);
    expect(new Set(events.map((event) => `${event.task}/${event.total}`))).toEqual(new Set(["archiving/71"]));
    const after = await readUsage(home);
    for (const name of names) expect(after[name]?.state).toBe("archived");
    expect(after.bystander?.state).toBe("stale");
    expect(after["pinned-one"]?.state).toBe("active");
    // Every package's category is kept for restore, as the one-by-one archive keeps it.
    const origins = await readArchiveOrigins(home);
    for (const name of names) expect(origins[name]).toBe(`cat-${name.slice(-1)}/${name}`);
    const ledger = await readEntries(home);
    expect(ledger.map((entry) => entry.skill).sort()).toEqual(names);
    for (const entry of ledger) {
      expect(entry.action).toBe("archive");
      expect(entry.evidence).toMatchObject({ archived: true, reason: "test" });
      expect(entry.usage_after?.state).toBe("archived");
      expect(entry.usage_before?.state).toBe("active");
      expect(entry.before).toHaveLength(2);
      expect(entry.after).toHaveLength(2);
      for (const [index, file] of entry.before.entries()) {
        const moved = entry.after[index];
        // Flat archive: `skills/<category>/<name>/…` moved to `skills/.archive/<name>/…`.
        const category = `cat-${entry.skill.slice(-1)}`;
        expect(moved?.path).toBe(
          file.path.replace(`${skills()}${path.sep}${category}${path.sep}`, `${skills()}/.archive/`),
        );
        expect("sha256" in file && moved && "sha256" in moved && moved.sha256 === file.sha256).toBe(true);
        // The blob holds exactly what is now in the archive.
        const digest = "sha256" in file ? file.sha256 : "";
        expect(await fs.readFile(path.join(home, ".curator_backups/blobs", digest))).toEqual(
          await fs.readFile(moved?.path ?? ""),
        );
      }
    }
  });

  it("a batch stamps names the archive already holds, in any case, and its own second use of a name", async () => {
    await writeSkill(home, "one/keeper");
    // Another skill whose folder has the same name.
    await writeSkill(home, "two/keeper", {}, "second-keeper");
    await writeSkill(home, "ops/mixed");
    await fs.mkdir(path.join(skills(), ".archive/keeper"), { recursive: true });
    await fs.writeFile(path.join(skills(), ".archive/keeper/SKILL.md"), "older keeper\n");
    // A case-insensitive file system would see `.archive/MIXED` as taken by `mixed`: so does the batch.
    await fs.mkdir(path.join(skills(), ".archive/MIXED"), { recursive: true });
    await fs.writeFile(path.join(skills(), ".archive/MIXED/SKILL.md"), "older mixed\n");
    const o = opts();
    const entries = (await o.library.all()).filter((entry) => entry.rootKind === "local");
    expect(entries.map((entry) => entry.relPath).sort()).toEqual(["one/keeper", "ops/mixed", "two/keeper"]);
    const done = await archiveMany(
      entries.map((entry) => ({ entry })),
      o,
    );
    expect(done.failures).toEqual([]);
    expect(done.archived.map((item) => [item.from, item.archivedAs]).sort()).toEqual([
      ["one/keeper", "keeper-20260601120000"],
      ["ops/mixed", "mixed-20260601120000"],
      ["two/keeper", "keeper-20260601120000-2"],
    ]);
    // Nothing that was there is touched.
    expect(await fs.readFile(path.join(skills(), ".archive/keeper/SKILL.md"), "utf8")).toBe("older keeper\n");
    expect(await fs.readFile(path.join(skills(), ".archive/MIXED/SKILL.md"), "utf8")).toBe("older mixed\n");
  });

  it("a blob listed when the batch began but collected since is stored again, so its ledger line can be undone", async () => {
    await writeSkill(home, "ops/first", { "notes.md": "shared words\n" });
    await writeSkill(home, "ops/second", { "notes.md": "shared words\n" });
    const blobs = path.join(home, ".curator_backups/blobs");
    const digest = createHash("sha256").update("shared words\n").digest("hex");
    await fs.mkdir(blobs, { recursive: true });
    await fs.writeFile(path.join(blobs, digest), "shared words\n");
    const o = opts();
    const first = (await o.library.find("first")) as SkillEntry;
    const second = (await o.library.find("second")) as SkillEntry;
    // The blob is gone by the time the batch captures the first package (a GC in another process).
    const gone = await archiveMany([{ entry: first }, { entry: second }], {
      ...o,
      meter: (event) => {
        if (event.done === 0) rmSync(path.join(blobs, digest));
      },
    });
    expect(gone.failures).toEqual([]);
    expect(await fs.readFile(path.join(blobs, digest), "utf8")).toBe("shared words\n");
    const ledger = await readEntries(home);
    expect(ledger.map((entry) => entry.skill).sort()).toEqual(["first", "second"]);
    for (const entry of ledger)
      expect(entry.before.some((file) => "sha256" in file && file.sha256 === digest)).toBe(true);
  });

  it("a batch-archived skill can be undone from its ledger line", async () => {
    await writeSkill(home, "ops/undo-me", { "scripts/run.sh": "echo hi\n" });
    await writeUsage(home, { "undo-me": record(NOW, { idleDays: 200 }) });
    const o = opts();
    await archiveMany([{ entry: (await o.library.find("undo-me")) as SkillEntry }], o);
    const [entry] = await readEntries(home);
    await rollbackEntry({ home, config: o.config, entryId: entry?.id ?? "" });
    expect(await fs.readFile(path.join(skills(), "ops/undo-me/scripts/run.sh"), "utf8")).toBe("echo hi\n");
    expect((await readUsage(home))["undo-me"]?.state).toBe("active");
  });

  it("a package with a file too large for the in-memory capture is still archived and ledgered", async () => {
    const big = "x".repeat(5 * 1024 * 1024);
    await writeSkill(home, "heavy", { "assets/big.txt": big });
    await writeSkill(home, "light");
    await writeUsage(home, { heavy: record(NOW, { idleDays: 200 }), light: record(NOW, { idleDays: 200 }) });
    const o = opts();
    const all = await o.library.all();
    const done = await archiveMany(
      all.map((entry) => ({ entry })),
      o,
    );
    expect(done.archived.map((item) => item.name).sort()).toEqual(["heavy", "light"]);
    const heavy = (await readEntries(home)).find((entry) => entry.skill === "heavy");
    const bigFile = heavy?.before.find((file) => file.path.endsWith("big.txt"));
    expect(bigFile && "sha256" in bigFile ? bigFile.sha256 : "").toBe(
      createHash("sha256").update(big).digest("hex"),
    );
    expect((await readUsage(home)).heavy?.state).toBe("archived");
  });
});
