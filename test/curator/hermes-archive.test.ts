/**
 * The archive layout both programs read. Golden data: a home after the real Hermes archived two skills
 * (test/fixtures/hermes/archive-by-hermes). skillgate lists and restores them; what skillgate archives
 * is what Hermes' `list-archived` (the top-level names under `.archive/`) and `restore` (the name at any
 * depth) see; skillgate's own restore still returns a skill to its category; homes archived in the
 * earlier nested layout keep working and are migrated.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { archiveSkill, listArchived, restoreSkill } from "../../src/curator/archive.js";
import { migrateArchiveLayout, readArchiveOrigins } from "../../src/curator/archive-layout.js";
import { libraryFor } from "./harness.js";
import { configWith, readUsage, writeSkill, writeUsage } from "./helpers.js";
import { extractHome, HERMES_FIXTURES, removeExtracted } from "./hermes-golden.js";

const NOW = new Date("2026-12-01T00:00:00Z");
let home: string;
const skills = () => path.join(home, "skills");
const opts = () => ({
  home,
  config: configWith(),
  library: libraryFor(home, configWith()),
  actor: "user" as const,
  now: NOW,
});

/** What Hermes' `curator list-archived` prints: the top-level directory names under `.archive/`. */
async function hermesListArchived(): Promise<string[]> {
  const entries = await fs.readdir(path.join(skills(), ".archive"), { withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** Where Hermes' `curator restore <name>` finds a package: a folder called `name` at any depth. */
async function hermesFind(name: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, rel: string) => {
    for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.name === name) found.push(childRel);
      await walk(path.join(dir, entry.name), childRel);
    }
  };
  await walk(path.join(skills(), ".archive"), "");
  return found;
}

afterEach(async () => {
  await removeExtracted(home);
});

describe("a home Hermes archived", () => {
  beforeEach(async () => {
    home = await extractHome("archive-by-hermes/home-after.tar.gz");
  });

  it("lists what Hermes lists, restores each skill live and active, then stops listing it", async () => {
    const results = JSON.parse(
      await fs.readFile(path.join(HERMES_FIXTURES, "archive-by-hermes", "results.json"), "utf8"),
    );
    expect((await listArchived(home)).map((item) => item.archivedAs)).toEqual(results["list-archived"]);
    for (const name of results["list-archived"] as string[]) {
      const restored = await restoreSkill(name, opts());
      // Hermes recorded no category: the skill comes back at the top level, as Hermes' restore puts it.
      expect(restored.restoredTo).toBe(name);
      await fs.stat(path.join(skills(), name, "SKILL.md"));
      const record = (await readUsage(home))[name];
      expect(record?.state).toBe("active");
      expect(record?.archived_at).toBeNull();
    }
    expect(await fs.readFile(path.join(skills(), "pdf-signing-checklist", "scripts", "run.sh"))).toBeTruthy();
    expect(await listArchived(home)).toEqual([]);
  });
});

describe("what skillgate archives, Hermes reads", () => {
  beforeEach(async () => {
    home = await extractHome("archive-by-hermes/home-before.tar.gz");
  });

  it("puts packages flat where Hermes lists and finds them; skillgate's restore returns them to their category", async () => {
    await archiveSkill("pdf-signing-checklist", opts());
    await archiveSkill("wireguard-serve", opts());
    // Hermes' list-archived prints skill folders only, no category folders.
    expect(await hermesListArchived()).toEqual(["pdf-signing-checklist", "wireguard-serve"]);
    expect(await hermesFind("wireguard-serve")).toEqual(["wireguard-serve"]);
    await fs.stat(path.join(skills(), ".archive", "pdf-signing-checklist", "scripts", "setup.sh"));
    const usage = await readUsage(home);
    expect(usage["pdf-signing-checklist"]).toMatchObject({ state: "archived" });
    // The category is kept where Hermes does not look; .usage.json carries nothing Hermes would not write.
    expect(usage["pdf-signing-checklist"]?.archived_from).toBeUndefined();
    expect(await readArchiveOrigins(home)).toEqual({
      "pdf-signing-checklist": "backend-apis/pdf-signing-checklist",
      "wireguard-serve": "finance-ops/wireguard-serve",
    });
    const restored = await restoreSkill("pdf-signing-checklist", opts());
    expect(restored.restoredTo).toBe("backend-apis/pdf-signing-checklist");
    await fs.stat(path.join(skills(), "backend-apis", "pdf-signing-checklist", "scripts", "run.sh"));
    expect(await readArchiveOrigins(home)).toEqual({ "wireguard-serve": "finance-ops/wireguard-serve" });
    expect(await hermesListArchived()).toEqual(["wireguard-serve"]);
  });
});

describe("homes archived in the earlier nested layout", () => {
  beforeEach(async () => {
    home = await extractHome("archive-by-hermes/home-before.tar.gz");
    // Two packages archived the old way: `.archive/<category>/<name>`, one of them timestamped.
    await fs.mkdir(path.join(skills(), ".archive", "backend-apis"), { recursive: true });
    await fs.rename(
      path.join(skills(), "backend-apis", "pdf-signing-checklist"),
      path.join(skills(), ".archive", "backend-apis", "pdf-signing-checklist"),
    );
    await writeSkill(home, ".archive/ops/deep/old-tool-20250101010101", {}, "old-tool");
    await writeUsage(home, {
      ...(await readUsage(home)),
      "old-tool": { created_by: "agent", state: "archived", archived_at: "2025-01-01T01:01:01.000000+00:00" },
    });
  });

  it("restores by the names the old list printed, each back into its category", async () => {
    expect((await listArchived(home)).map((item) => item.archivedAs)).toEqual([
      "backend-apis/pdf-signing-checklist",
      "ops/deep/old-tool-20250101010101",
    ]);
    const first = await restoreSkill("backend-apis/pdf-signing-checklist", opts());
    expect(first.restoredTo).toBe("backend-apis/pdf-signing-checklist");
    const second = await restoreSkill("old-tool", opts());
    expect(second.restoredTo).toBe("ops/deep/old-tool");
    expect((await readUsage(home))["old-tool"]?.state).toBe("active");
  });

  it("migrates the nested packages among flat ones, and leaves the flat ones (and what they hold) alone", async () => {
    // Flat packages, one holding a folder with its own SKILL.md (part of that package, not a nested one),
    // and a folder whose SKILL.md is not a file (a category, walked like any other).
    await writeSkill(home, ".archive/flat-one", { "examples/inner/SKILL.md": "---\nname: inner\n---\n" });
    await writeSkill(home, ".archive/flat-two");
    await fs.mkdir(path.join(skills(), ".archive", "odd", "SKILL.md"), { recursive: true });
    await writeSkill(home, ".archive/odd/nested-three", {}, "nested-three");
    expect(await migrateArchiveLayout(home, NOW)).toBe(3);
    expect(await hermesListArchived()).toEqual([
      "flat-one",
      "flat-two",
      "nested-three",
      // Still holds its odd SKILL.md folder: a folder that holds anything is never removed.
      "odd",
      "old-tool-20250101010101",
      "pdf-signing-checklist",
    ]);
    await fs.stat(path.join(skills(), ".archive", "flat-one", "examples", "inner", "SKILL.md"));
    expect((await readArchiveOrigins(home))["nested-three"]).toBe("odd/nested-three");
    expect(await migrateArchiveLayout(home, NOW)).toBe(0);
  });

  it("migrates to the flat layout Hermes reads, keeping the category for restore", async () => {
    expect(await migrateArchiveLayout(home, NOW)).toBe(2);
    expect(await hermesListArchived()).toEqual(["old-tool-20250101010101", "pdf-signing-checklist"]);
    expect(await migrateArchiveLayout(home, NOW)).toBe(0);
    expect(await readArchiveOrigins(home)).toEqual({
      "old-tool-20250101010101": "ops/deep/old-tool",
      "pdf-signing-checklist": "backend-apis/pdf-signing-checklist",
    });
    const items = await listArchived(home);
    expect(items.map((item) => [item.archivedAs, item.restoreTo])).toEqual([
      ["old-tool-20250101010101", "ops/deep/old-tool"],
      ["pdf-signing-checklist", "backend-apis/pdf-signing-checklist"],
    ]);
    // The name the old list printed still works after the move.
    expect((await restoreSkill("ops/deep/old-tool-20250101010101", opts())).restoredTo).toBe(
      "ops/deep/old-tool",
    );
    expect((await restoreSkill("pdf-signing-checklist", opts())).restoredTo).toBe(
      "backend-apis/pdf-signing-checklist",
    );
  });
});
