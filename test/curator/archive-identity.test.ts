/**
 * An archive origin record names the very archive it was made for (the archived `SKILL.md` digest and
 * the folder's inode and change time, which every rename sets anew): a record left behind by a Hermes
 * restore never sends a skill Hermes archived again to the category it left. Without a record of its
 * own, an archive takes the category from the ledger line that moved it there (Hermes' or skillgate's),
 * and otherwise restores flat, as Hermes does.
 */
import { createHash, randomUUID } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isoTimestamp } from "../../src/core/fsutil.js";
import { archiveSkill, listArchived, restoreSkill } from "../../src/curator/archive.js";
import { archiveOriginsFile, readArchiveOrigins } from "../../src/curator/archive-layout.js";
import { libraryFor } from "./harness.js";
import { configWith, makeHome, readUsage, record, removeHome, writeSkill, writeUsage } from "./helpers.js";
import { extractHome, removeExtracted } from "./hermes-golden.js";

const NOW = new Date("2026-06-01T12:00:00Z");
let home: string;
const skills = () => path.join(home, "skills");

function opts(doc: Record<string, unknown> = {}) {
  const config = configWith(doc);
  return { home, config, library: libraryFor(home, config), actor: "user" as const, now: NOW };
}

/**
 * A new clock tick: the kernel stamps change times at its tick, so two renames within one tick could
 * share one. A person's steps between two archives are always far apart.
 */
const nextTick = () => new Promise((resolve) => setTimeout(resolve, 30));

/** Hermes' `curator restore <name>`: the folder renamed back to `skills/<name>`, flat. */
async function hermesRestore(name: string): Promise<void> {
  await nextTick();
  await fs.rename(path.join(skills(), ".archive", name), path.join(skills(), name));
}

/** A person moving a live skill folder to another category. */
async function moveTo(from: string, to: string): Promise<void> {
  await nextTick();
  await fs.mkdir(path.dirname(path.join(skills(), to)), { recursive: true });
  await fs.rename(path.join(skills(), from), path.join(skills(), to));
}

/**
 * Hermes' `curator archive <name>`, an hour after what came before (a person's later step): the folder
 * renamed to `.archive/<name>` and the usage record set to archived then; with `ledger`, the `archive`
 * line its ledger appends (the shape of the golden ledger).
 */
async function hermesArchive(rel: string, { ledger }: { ledger: boolean }): Promise<void> {
  await nextTick();
  const name = path.basename(rel);
  const from = path.join(skills(), rel);
  const to = path.join(skills(), ".archive", name);
  const skillMd = createHash("sha256")
    .update(await fs.readFile(path.join(from, "SKILL.md")))
    .digest("hex");
  await fs.mkdir(path.dirname(to), { recursive: true });
  await fs.rename(from, to);
  const at = isoTimestamp(new Date(Date.now() + 3_600_000));
  const usage = await readUsage(home);
  await writeUsage(home, {
    ...usage,
    [name]: { ...(usage[name] ?? record(NOW)), state: "archived", archived_at: at },
  });
  if (!ledger) return;
  const line = {
    id: randomUUID().replace(/-/g, "").slice(0, 12),
    ts: at,
    actor: "user",
    action: "archive",
    skill: name,
    evidence: { archived: true },
    before: [{ path: path.join(from, "SKILL.md"), sha256: skillMd }],
    after: [{ path: path.join(to, "SKILL.md"), sha256: skillMd }],
  };
  await fs.appendFile(path.join(skills(), ".curator_ledger.jsonl"), `${JSON.stringify(line)}\n`);
}

describe("a record left from an earlier archive never applies to a later one", () => {
  beforeEach(async () => {
    home = await makeHome();
    await writeSkill(home, "devops/deployer");
    await writeUsage(home, { deployer: record(NOW, { idleDays: 5 }) });
  });
  afterEach(async () => {
    await removeHome(home);
  });

  it("Hermes restores, the skill moves to web/, Hermes archives with its ledger: restored into web/", async () => {
    await archiveSkill("deployer", opts());
    await hermesRestore("deployer");
    await moveTo("deployer", "web/deployer");
    await hermesArchive("web/deployer", { ledger: true });
    // The old record is still there, its digest matching (the content never changed).
    expect(await readArchiveOrigins(home)).toEqual({ deployer: "devops/deployer" });
    expect((await listArchived(home))[0]?.restoreTo).toBe("web/deployer");
    const restored = await restoreSkill("deployer", opts());
    expect(restored.restoredTo).toBe("web/deployer");
    await fs.stat(path.join(skills(), "web/deployer/SKILL.md"));
  });

  it("the same, by a Hermes without a ledger: restored flat, never into devops/", async () => {
    await archiveSkill("deployer", opts());
    await hermesRestore("deployer");
    await moveTo("deployer", "web/deployer");
    await hermesArchive("web/deployer", { ledger: false });
    const restored = await restoreSkill("deployer", opts());
    expect(restored.restoredTo).toBe("deployer");
  });

  it("with skillgate's ledger off, a Hermes restore and archive of the same folder restores flat", async () => {
    await archiveSkill("deployer", opts({ skills: { ledger: false } }));
    await hermesRestore("deployer");
    await hermesArchive("deployer", { ledger: false });
    expect((await restoreSkill("deployer", opts({ skills: { ledger: false } }))).restoredTo).toBe("deployer");
  });

  it("an archive left as skillgate made it restores into its category from the record alone", async () => {
    await archiveSkill("deployer", opts({ skills: { ledger: false } }));
    const file = JSON.parse(await fs.readFile(archiveOriginsFile(home), "utf8"));
    expect(file.deployer.from).toBe("devops/deployer");
    expect(file.deployer.skill_md_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(file.deployer.folder_identity).toMatch(/^\d+:\d+$/);
    await nextTick();
    expect((await restoreSkill("deployer", opts({ skills: { ledger: false } }))).restoredTo).toBe(
      "devops/deployer",
    );
  });

  it("a record from before the identity was kept yields to the ledger's newer line", async () => {
    await archiveSkill("deployer", opts());
    await hermesRestore("deployer");
    await moveTo("deployer", "web/deployer");
    await hermesArchive("web/deployer", { ledger: true });
    // As an earlier skillgate wrote it: the place and the digest, no folder identity.
    const file = JSON.parse(await fs.readFile(archiveOriginsFile(home), "utf8"));
    delete file.deployer.folder_identity;
    await fs.writeFile(archiveOriginsFile(home), JSON.stringify(file));
    expect((await restoreSkill("deployer", opts())).restoredTo).toBe("web/deployer");
  });
});

describe("the golden ledger Hermes wrote", () => {
  afterEach(async () => {
    await removeExtracted(home);
  });

  it("gives the category its archive line left, for a home extracted at another path", async () => {
    home = await extractHome("ledger-by-hermes/home-after.tar.gz");
    const [item] = (await listArchived(home)).filter((entry) => entry.archivedAs === "pdf-signing-checklist");
    expect(item?.restoreTo).toBe("backend-apis/pdf-signing-checklist");
    expect(item?.category).toBe("backend-apis");
    const restored = await restoreSkill("pdf-signing-checklist", opts());
    expect(restored.restoredTo).toBe("backend-apis/pdf-signing-checklist");
    for (const file of ["SKILL.md", "scripts/run.sh", "scripts/setup.sh"])
      await fs.stat(path.join(skills(), "backend-apis/pdf-signing-checklist", file));
  });

  it("no line for an archive Hermes made later without it: restored flat", async () => {
    home = await extractHome("ledger-by-hermes/home-after.tar.gz");
    // Hermes restores it, and a Hermes without the ledger archives it again later.
    await hermesRestore("pdf-signing-checklist");
    await moveTo("pdf-signing-checklist", "web/pdf-signing-checklist");
    await hermesArchive("web/pdf-signing-checklist", { ledger: false });
    expect((await restoreSkill("pdf-signing-checklist", opts())).restoredTo).toBe("pdf-signing-checklist");
  });
});
