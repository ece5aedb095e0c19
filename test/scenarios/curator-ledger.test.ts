/**
 * Ledger scenarios of reference (d) exercised through the real writers rather than `withLedger` with a
 * hand-picked actor: 41 (skill_manage patch actors + per-entry rollback), 44 (archive by the curator,
 * restore), 47 (the user actor override) and 76 (the write origin decides provenance and actor).
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SkillgateConfig } from "../../src/config/config.js";
import { archiveSkill, restoreSkill } from "../../src/curator/archive.js";
import { listEntries } from "../../src/curator/ledger.js";
import {
  createManageSession,
  type ManageContext,
  skillManage,
  type WriteOrigin,
} from "../../src/curator/manage.js";
import { rollbackEntry } from "../../src/curator/rollback-entry.js";
import type { SkillLibrary } from "../../src/skills/types.js";
import { libraryFor } from "../curator/harness.js";
import { patchAfterView, record } from "../curator/helpers.js";
import { config, makeHome, readUsage, removeHome, skillMd, writeSkill, writeUsage } from "../llm/helpers.js";

const NOW = new Date("2026-06-01T12:00:00Z");
let home: string;
let cfg: SkillgateConfig;
let lib: SkillLibrary;

beforeEach(async () => {
  home = await makeHome();
  cfg = config();
  lib = libraryFor(home, cfg);
});
afterEach(async () => {
  await removeHome(home);
});

function ctx(origin: WriteOrigin, actor?: "curator" | "agent" | "user"): ManageContext {
  return { home, config: cfg, library: lib, session: createManageSession({ origin, actor }) };
}

describe("scenario 41: skill_manage patches are ledgered with the right actor and roll back exactly", () => {
  it("scenario 41: a background-review patch is `curator`, a foreground one `agent`; rollback restores the original bytes", async () => {
    const dir = await writeSkill(home, "tools/pdf", { body: "# pdf\n\nStep one.\nStep two.\n" });
    await writeUsage(home, { pdf: { created_by: "agent", use_count: 1 } });
    const file = path.join(dir, "SKILL.md");
    const original = await fs.readFile(file, "utf8");

    expect(await patchAfterView(ctx("background_review"), "pdf", "Step one.", "Step 1.")).toMatchObject({
      success: true,
    });
    const afterBackground = await fs.readFile(file, "utf8");
    expect(await patchAfterView(ctx("foreground"), "pdf", "Step two.", "Step 2.")).toMatchObject({
      success: true,
    });

    const [fgEntry, bgEntry] = await listEntries(home);
    expect([bgEntry?.action, bgEntry?.actor]).toEqual(["patch", "curator"]);
    expect([fgEntry?.action, fgEntry?.actor]).toEqual(["patch", "agent"]);

    // Undo the foreground patch: the file is exactly what the background patch left.
    await rollbackEntry({ home, config: cfg, entryId: fgEntry?.id ?? "" });
    expect(await fs.readFile(file, "utf8")).toBe(afterBackground);
    // Undo the background patch too: the original bytes are back.
    await rollbackEntry({ home, config: cfg, entryId: bgEntry?.id ?? "" });
    expect(await fs.readFile(file, "utf8")).toBe(original);
  });
});

describe("scenario 44: archive by the curator and restore are ledgered with both sides", () => {
  it("scenario 44: an archive under actor curator records before and after; restore writes a restore entry", async () => {
    const dir = await writeSkill(home, "ops/deployer", { files: { "scripts/go.sh": "echo go\n" } });
    await writeUsage(home, { deployer: record(NOW, { idleDays: 200 }) });
    await archiveSkill("deployer", { home, config: cfg, library: lib, actor: "curator", now: NOW });
    await restoreSkill("deployer", { home, config: cfg, library: lib, actor: "user", now: NOW });
    const [restore, archive] = await listEntries(home);
    expect([archive?.action, archive?.actor, archive?.skill]).toEqual(["archive", "curator", "deployer"]);
    const rel = (files: { path: string }[] | undefined) =>
      (files ?? []).map((f) => path.relative(path.join(home, "skills"), f.path)).sort();
    expect(rel(archive?.before)).toEqual(["ops/deployer/SKILL.md", "ops/deployer/scripts/go.sh"]);
    expect(rel(archive?.after)).toEqual([".archive/deployer/SKILL.md", ".archive/deployer/scripts/go.sh"]);
    expect([restore?.action, restore?.actor]).toEqual(["restore", "user"]);
    expect(rel(restore?.after)).toEqual(["ops/deployer/SKILL.md", "ops/deployer/scripts/go.sh"]);
    expect(await fs.readFile(path.join(dir, "scripts/go.sh"), "utf8")).toBe("echo go\n");
  });
});

describe("scenarios 47 and 76: the write origin and the actor override", () => {
  it("scenario 76: only the background-review origin is the curator; anything else is a foreground agent write", () => {
    expect(createManageSession({ origin: "background_review" }).actor).toBe("curator");
    expect(createManageSession({ origin: "foreground" }).actor).toBe("agent");
  });

  it("scenario 47: an explicit user actor overrides the origin's default in the ledger, and the origin still sets provenance", async () => {
    const asUser = ctx("background_review", "user");
    expect(
      await skillManage(asUser, { action: "create", name: "helper", content: skillMd("helper", "Helps.") }),
    ).toMatchObject({ success: true });
    const fg = ctx("foreground");
    expect(
      await skillManage(fg, { action: "create", name: "personal", content: skillMd("personal", "Mine.") }),
    ).toMatchObject({ success: true });
    const entries = await listEntries(home);
    expect(entries.map((e) => [e.skill, e.actor])).toEqual([
      ["personal", "agent"],
      ["helper", "user"],
    ]);
    const usage = await readUsage(home);
    expect(usage.helper?.created_by).toBe("agent");
    expect(usage.personal?.created_by).toBeNull();
    expect(await listEntries(home, { skill: "helper", limit: 5 })).toHaveLength(1);
  });
});
