/**
 * Where skillgate and Hermes meet on one home: an archive origin record applies only to the package it
 * was recorded for (Hermes restores and re-archives without knowing the file), per-entry rollback maps an
 * entry written through another path to the same home, an empty Hermes claim of the run lock is
 * respected and never removed, and a snapshot counts `skill_files` as Hermes does (dependency folders
 * and support folders left out).
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CuratorError } from "../../src/core/errors.js";
import { archiveSkill, listArchived, restoreSkill } from "../../src/curator/archive.js";
import { readArchiveOrigins } from "../../src/curator/archive-layout.js";
import { readEntries } from "../../src/curator/ledger.js";
import { acquireRunLock, RUN_LOCK_STALE_MS, runLockFile } from "../../src/curator/lock.js";
import { rollbackEntry } from "../../src/curator/rollback-entry.js";
import { createSnapshot } from "../../src/curator/snapshot.js";
import { libraryFor } from "./harness.js";
import { configWith, makeHome, record, removeHome, writeSkill, writeUsage } from "./helpers.js";
import { extractHome, HERMES_FIXTURES, removeExtracted } from "./hermes-golden.js";

const NOW = new Date("2026-06-01T12:00:00Z");
let home: string;
const skills = () => path.join(home, "skills");
const cleanup: string[] = [];

beforeEach(async () => {
  home = await makeHome();
});
afterEach(async () => {
  await removeHome(home);
  for (const dir of cleanup.splice(0)) await fs.rm(dir, { recursive: true, force: true });
});

function opts(at = home) {
  const config = configWith();
  return { home: at, config, library: libraryFor(at, config), actor: "user" as const, now: NOW };
}

/** What Hermes' `curator restore <name>` does: the folder back to `skills/<name>`, flat. */
async function hermesRestore(name: string): Promise<void> {
  await fs.rename(path.join(skills(), ".archive", name), path.join(skills(), name));
}

/** What Hermes' `curator archive <name>` does to a live skill folder: moved to `.archive/<name>`. */
async function hermesArchive(rel: string): Promise<void> {
  await fs.mkdir(path.join(skills(), ".archive"), { recursive: true });
  await fs.rename(path.join(skills(), rel), path.join(skills(), ".archive", path.basename(rel)));
}

describe(".archive_origins.json applies only to the package it was recorded for", () => {
  it("a Hermes restore leaves the record behind; a different package Hermes archives under that name restores flat", async () => {
    await writeSkill(home, "devops/deployer");
    await writeUsage(home, { deployer: record(NOW, { idleDays: 5 }) });
    await archiveSkill("deployer", opts());
    expect(await readArchiveOrigins(home)).toEqual({ deployer: "devops/deployer" });
    await hermesRestore("deployer");
    // The restored one is deleted by hand; another package called deployer is made and archived by Hermes.
    await fs.rm(path.join(skills(), "deployer"), { recursive: true });
    await writeSkill(home, "other-team/deployer", { "notes.md": "a different package" });
    await fs.appendFile(path.join(skills(), "other-team/deployer/SKILL.md"), "\nIts own body.\n");
    await hermesArchive("other-team/deployer");
    const [item] = await listArchived(home);
    expect(item?.restoreTo).toBe("deployer");
    const restored = await restoreSkill("deployer", opts());
    expect(restored.restoredTo).toBe("deployer");
    expect(await fs.readFile(path.join(skills(), "deployer/notes.md"), "utf8")).toBe("a different package");
    expect(await readArchiveOrigins(home)).toEqual({});
  });

  it("the same package restored and archived again by Hermes still goes back to its category", async () => {
    await writeSkill(home, "devops/deployer");
    await archiveSkill("deployer", opts());
    await hermesRestore("deployer");
    await hermesArchive("deployer");
    expect((await restoreSkill("deployer", opts())).restoredTo).toBe("devops/deployer");
  });

  it("skillgate's per-entry rollback of an archive drops the record; of a restore, records it again", async () => {
    await writeSkill(home, "devops/deployer");
    await archiveSkill("deployer", opts());
    const archived = (await readEntries(home)).find((entry) => entry.action === "archive");
    await rollbackEntry({ home, config: configWith(), entryId: archived?.id as string });
    expect(await fs.stat(path.join(skills(), "devops/deployer/SKILL.md"))).toBeTruthy();
    expect(await readArchiveOrigins(home)).toEqual({});

    await archiveSkill("deployer", opts());
    await restoreSkill("deployer", opts());
    expect(await readArchiveOrigins(home)).toEqual({});
    const restoreEntry = (await readEntries(home)).find((entry) => entry.action === "restore");
    await rollbackEntry({ home, config: configWith(), entryId: restoreEntry?.id as string });
    expect(await readArchiveOrigins(home)).toEqual({ deployer: "devops/deployer" });
    expect((await restoreSkill("deployer", opts())).restoredTo).toBe("devops/deployer");
  });
});

describe("per-entry rollback across paths to the same home", () => {
  /**
   * Archives skill `deployer` (with `files`) while the home is mounted at `/…/data`, as in a container, then
   * moves it back: the host sees the same files at another path and the container's path no longer exists
   * here. Returns the container's path.
   */
  async function archivedInContainer(files: Record<string, string> = {}): Promise<string> {
    const mounts = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-mounts-"));
    cleanup.push(mounts);
    const container = path.join(mounts, "data");
    await fs.rename(home, container);
    await writeSkill(container, "devops/deployer", files);
    await archiveSkill("deployer", opts(container));
    await fs.rename(container, home);
    return container;
  }

  it("an entry written through a symlink to the home rolls back through the real path (and the other way)", async () => {
    const links = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-links-"));
    cleanup.push(links);
    const alias = path.join(links, "hermes");
    await fs.symlink(home, alias);
    await writeSkill(home, "devops/deployer", { "scripts/run.sh": "echo" });
    await archiveSkill("deployer", opts(alias));
    const entry = (await readEntries(home)).find((item) => item.action === "archive");
    expect(entry?.before[0]?.path.startsWith(alias)).toBe(true);
    const result = await rollbackEntry({ home, config: configWith(), entryId: entry?.id as string });
    expect(result.restored).toBe(2);
    expect(await fs.readFile(path.join(skills(), "devops/deployer/scripts/run.sh"), "utf8")).toBe("echo");
    await expect(fs.stat(path.join(skills(), ".archive/deployer"))).rejects.toThrow();

    await archiveSkill("deployer", opts());
    const second = (await readEntries(home)).filter((item) => item.action === "archive").at(-1);
    await rollbackEntry({ home: alias, config: configWith(), entryId: second?.id as string });
    expect(await fs.readFile(path.join(skills(), "devops/deployer/scripts/run.sh"), "utf8")).toBe("echo");
  });

  it("an entry written under another mount path (/data in a container) maps when its blobs and files match", async () => {
    const container = await archivedInContainer({ "references/a.md": "A" });
    const entry = (await readEntries(home)).find((item) => item.action === "archive");
    expect(entry?.before[0]?.path.startsWith(container)).toBe(true);
    await rollbackEntry({ home, config: configWith(), entryId: entry?.id as string });
    expect(await fs.readFile(path.join(skills(), "devops/deployer/references/a.md"), "utf8")).toBe("A");
  });

  it("an entry from another path whose files here differ is refused, and nothing changes", async () => {
    await archivedInContainer();
    await fs.writeFile(
      path.join(skills(), ".archive/deployer/SKILL.md"),
      "---\nname: deployer\n---\nedited here\n",
    );
    const entry = (await readEntries(home)).find((item) => item.action === "archive");
    await expect(rollbackEntry({ home, config: configWith(), entryId: entry?.id as string })).rejects.toThrow(
      /outside/,
    );
    expect(await fs.readFile(path.join(skills(), ".archive/deployer/SKILL.md"), "utf8")).toContain(
      "edited here",
    );
  });
});

describe("the run lock and Hermes' claim file", () => {
  it("an empty claim (created, pid not yet written) is busy and left in place until it is old", async () => {
    const file = runLockFile(home);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, "", { flag: "wx" });
    const busy = await acquireRunLock(home).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(busy).toBeInstanceOf(CuratorError);
    expect((busy as CuratorError).code).toBe("curator.locked");
    expect(await fs.readFile(file, "utf8")).toBe("");
    // Hermes writes its pid 1.5 s later: still its claim.
    await fs.writeFile(file, "4242");
    await expect(acquireRunLock(home)).rejects.toThrow(/another curator run is in progress/);
    expect(await fs.readFile(file, "utf8")).toBe("4242");
    // An abandoned claim (older than Hermes' own limit) is taken over, as Hermes does.
    await fs.writeFile(file, "");
    const old = new Date(Date.now() - RUN_LOCK_STALE_MS - 60_000);
    await fs.utimes(file, old, old);
    const held = await acquireRunLock(home);
    expect(await fs.readFile(file, "utf8")).toMatch(new RegExp(`^${process.pid} `));
    await held.release();
  });

  it("skillgate's own claim is created with its identity at once and removed when released", async () => {
    const held = await acquireRunLock(home);
    expect(await fs.readFile(runLockFile(home), "utf8")).toMatch(new RegExp(`^${process.pid} `));
    await held.release();
    await expect(fs.stat(runLockFile(home))).rejects.toThrow();
  });
});

describe("snapshot manifest skill_files", () => {
  it("counts what Hermes counts: not SKILL.md files under dependency or support folders", async () => {
    const golden = await extractHome("home-before/home.tar.gz");
    try {
      const expected = JSON.parse(
        await fs.readFile(path.join(HERMES_FIXTURES, "snapshot-by-hermes", "manifest.json"), "utf8"),
      ).skill_files as number;
      const liveSkill = (await fs.readdir(path.join(golden, "skills"), { withFileTypes: true })).find(
        (entry) => entry.isDirectory() && !entry.name.startsWith("."),
      );
      const category = path.join(golden, "skills", liveSkill?.name as string);
      const [pkg] = await fs.readdir(category);
      const skillDir = path.join(category, pkg as string);
      for (const rel of [
        "node_modules/dep/SKILL.md",
        ".venv/lib/site-packages/x/SKILL.md",
        "references/inner/SKILL.md",
        ".git/SKILL.md",
      ]) {
        await fs.mkdir(path.dirname(path.join(skillDir, rel)), { recursive: true });
        await fs.writeFile(path.join(skillDir, rel), "---\nname: not-a-skill\n---\n");
      }
      const taken = await createSnapshot({ home: golden, config: configWith(), reason: "manual" });
      const manifest = JSON.parse(await fs.readFile(path.join(taken.dir, "manifest.json"), "utf8"));
      expect(manifest.skill_files).toBe(expected);
    } finally {
      await removeExtracted(golden);
    }
  });
});
