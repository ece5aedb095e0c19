import { promises as fs } from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { SkillgateConfig } from "../../src/config/config.js";
import { homePaths } from "../../src/config/home.js";
import { listEntries } from "../../src/curator/ledger.js";
import {
  createManageSession,
  type ManageContext,
  recordView,
  skillManage,
} from "../../src/curator/manage.js";
import type { SkillLibrary } from "../../src/skills/types.js";
import { patchAfterView } from "../curator/helpers.js";
import {
  config,
  freshHomeEachTest,
  library,
  readUsage,
  skillMd,
  treeOf,
  writeSkill,
  writeUsage,
} from "./helpers.js";

let home: string;
let cfg: SkillgateConfig;
let lib: SkillLibrary;

function ctx(origin: "foreground" | "background_review"): ManageContext {
  return { home, config: cfg, library: lib, session: createManageSession({ origin }) };
}

freshHomeEachTest((made) => {
  home = made;
  cfg = config();
  lib = library(home, cfg);
});

describe("skill_manage: create, edit, patch, files", () => {
  it("a foreground create is the person's skill (created_by null); a background create is curator-managed", async () => {
    const fg = await skillManage(ctx("foreground"), {
      action: "create",
      name: "mine",
      content: skillMd("mine", "Mine."),
    });
    expect(fg).toMatchObject({ success: true, path: "mine/SKILL.md" });
    const bg = await skillManage(ctx("background_review"), {
      action: "create",
      name: "umbrella",
      category: "tools",
      content: skillMd("umbrella", "Umbrella."),
    });
    expect(bg).toMatchObject({ success: true, path: "tools/umbrella/SKILL.md" });
    const usage = await readUsage(home);
    expect(usage.mine?.created_by).toBeNull();
    expect(usage.umbrella?.created_by).toBe("agent");
    expect(await fs.readFile(path.join(home, "skills/tools/umbrella/SKILL.md"), "utf8")).toContain(
      "name: umbrella",
    );
    const entries = await listEntries(home);
    expect(entries.map((entry) => [entry.action, entry.skill, entry.actor])).toEqual([
      ["create", "umbrella", "curator"],
      ["create", "mine", "agent"],
    ]);
  });

  it("refuses bad names, bad frontmatter and duplicates without writing anything", async () => {
    const c = ctx("foreground");
    for (const name of ["../evil", "/etc/x", "a/b", "Has Space", "..", ""]) {
      const result = await skillManage(c, { action: "create", name, content: skillMd("x", "X.") });
      expect(result.success, name).toBe(false);
    }
    expect(
      (await skillManage(c, { action: "create", name: "x", category: "../up", content: skillMd("x", "X.") }))
        .success,
    ).toBe(false);
    expect(await skillManage(c, { action: "create", name: "x", content: "no frontmatter" })).toMatchObject({
      success: false,
    });
    expect(await skillManage(c, { action: "create", name: "x", content: skillMd("y", "Y.") })).toMatchObject({
      success: false,
      error: expect.stringContaining("must match"),
    });
    expect(
      await skillManage(c, { action: "create", name: "x", content: "---\nname: x\n---\nbody" }),
    ).toMatchObject({
      error: expect.stringContaining("description"),
    });
    expect(await skillManage(c, { action: "frobnicate", name: "x" })).toMatchObject({ success: false });
    expect(await treeOf(path.join(home, "skills"))).toEqual({});
    await writeSkill(home, "taken");
    expect(
      await skillManage(c, { action: "create", name: "taken", content: skillMd("taken", "T.") }),
    ).toMatchObject({
      error: expect.stringContaining("already exists"),
    });
  });

  it("read-before-write: edit and patch need a view in the session; patches bump patch_count", async () => {
    await writeSkill(home, "cat/tool", { body: "Step one.\nStep two.\n" });
    const c = ctx("foreground");
    const blocked = await skillManage(c, {
      action: "patch",
      name: "tool",
      old_string: "Step one.",
      new_string: "Step 1.",
    });
    expect(blocked).toMatchObject({ success: false, error: expect.stringContaining("read before write") });
    expect(
      (await skillManage(c, { action: "edit", name: "tool", content: skillMd("tool", "New.") })).success,
    ).toBe(false);
    recordView(c.session, "tool");
    expect(
      await skillManage(c, { action: "patch", name: "tool", old_string: "Step one.", new_string: "Step 1." }),
    ).toMatchObject({ success: true });
    expect(
      await skillManage(c, { action: "patch", name: "tool", old_string: "Step", new_string: "X" }),
    ).toMatchObject({
      error: expect.stringContaining("matches 2 times"),
    });
    expect(
      await skillManage(c, { action: "patch", name: "tool", old_string: "missing", new_string: "X" }),
    ).toMatchObject({ success: false });
    expect(
      await skillManage(c, {
        action: "patch",
        name: "tool",
        old_string: "name: tool",
        new_string: "name: other",
      }),
    ).toMatchObject({
      error: expect.stringContaining("must match"),
    });
    expect(
      await skillManage(c, { action: "edit", name: "tool", content: skillMd("tool", "Rewritten.") }),
    ).toMatchObject({ success: true });
    const text = await fs.readFile(path.join(home, "skills/cat/tool/SKILL.md"), "utf8");
    expect(text).toContain("Rewritten.");
    expect((await readUsage(home)).tool?.patch_count).toBe(2);
    expect((await listEntries(home)).map((entry) => entry.action)).toEqual(["edit", "patch"]);
  });

  it("write_file and remove_file stay inside the skill's support folders", async () => {
    const dir = await writeSkill(home, "pkg", { files: { "references/old.md": "old" } });
    await fs.symlink(path.dirname(home), path.join(dir, "assets"));
    const c = ctx("foreground");
    const write = (file_path: string) =>
      skillManage(c, { action: "write_file", name: "pkg", file_path, file_content: "x" });
    expect(await write("references/new.md")).toMatchObject({ success: true });
    expect(await fs.readFile(path.join(dir, "references/new.md"), "utf8")).toBe("x");
    for (const bad of [
      "../escape.md",
      "references/../../x.md",
      "/etc/passwd",
      "SKILL.md",
      "notes.md",
      "references",
      "assets/escape.md",
    ]) {
      expect((await write(bad)).success, bad).toBe(false);
    }
    expect(await fs.stat(path.join(path.dirname(home), "escape.md")).catch(() => null)).toBeNull();
    // Overwriting an existing file and removing one need a view first.
    expect(await write("references/old.md")).toMatchObject({
      error: expect.stringContaining("read before write"),
    });
    expect(
      await skillManage(c, { action: "remove_file", name: "pkg", file_path: "references/old.md" }),
    ).toMatchObject({ success: false });
    recordView(c.session, "pkg", "references/old.md");
    expect(
      await skillManage(c, { action: "remove_file", name: "pkg", file_path: "references/old.md" }),
    ).toMatchObject({ success: true });
    expect(await fs.stat(path.join(dir, "references/old.md")).catch(() => null)).toBeNull();
    expect((await readUsage(home)).pkg?.patch_count).toBe(2);
  });
});

describe("skill_manage: delete", () => {
  it("scenario 43: create, edit, delete(absorbed_into='') → ledger [delete, edit, create]; a foreground delete is a real delete", async () => {
    const c = ctx("foreground");
    await skillManage(c, { action: "create", name: "temp", content: skillMd("temp", "Temp.") });
    await skillManage(c, { action: "edit", name: "temp", content: skillMd("temp", "Temp 2.") });
    expect(await skillManage(c, { action: "delete", name: "temp", absorbed_into: "" })).toMatchObject({
      success: true,
      archived: false,
    });
    const entries = await listEntries(home);
    expect(entries.map((entry) => entry.action)).toEqual(["delete", "edit", "create"]);
    expect(entries[0]?.evidence).toMatchObject({ absorbed_into: "", archived: false });
    expect(entries[0]?.before.length).toBeGreaterThan(0);
    expect(entries[0]?.after).toEqual([]);
    expect(await fs.stat(path.join(home, "skills/temp")).catch(() => null)).toBeNull();
    expect((await readUsage(home)).temp).toBeUndefined();
  });

  it("a pinned skill is never deleted, by anyone", async () => {
    await writeSkill(home, "precious");
    await writeUsage(home, { precious: { created_by: "agent", pinned: true } });
    for (const origin of ["foreground", "background_review"] as const) {
      const result = await skillManage(ctx(origin), {
        action: "delete",
        name: "precious",
        absorbed_into: "",
      });
      expect(result).toMatchObject({ success: false, error: expect.stringContaining("pinned") });
    }
    expect(await fs.stat(path.join(home, "skills/precious/SKILL.md"))).toBeTruthy();
  });

  it("background delete without absorbed_into, into itself, or into a missing umbrella is refused (#29912)", async () => {
    await writeSkill(home, "old");
    await writeSkill(home, "keeper");
    await writeUsage(home, { old: { created_by: "agent" }, keeper: { created_by: "agent" } });
    const c = ctx("background_review");
    expect(await skillManage(c, { action: "delete", name: "old" })).toMatchObject({
      success: false,
      error: expect.stringContaining("absorbed_into"),
    });
    expect(await skillManage(c, { action: "delete", name: "old", absorbed_into: "old" })).toMatchObject({
      success: false,
    });
    expect(await skillManage(c, { action: "delete", name: "old", absorbed_into: "ghost" })).toMatchObject({
      success: false,
      error: expect.stringContaining("does not exist"),
    });
    expect(await fs.stat(path.join(home, "skills/old/SKILL.md"))).toBeTruthy();
    expect(await listEntries(home)).toEqual([]);
  });

  it("a background delete into an existing umbrella is a recoverable archive that keeps the usage record", async () => {
    await writeSkill(home, "cat/old", { files: { "references/a.md": "A" } });
    await writeSkill(home, "keeper");
    await writeUsage(home, { old: { created_by: "agent", use_count: 3 }, keeper: { created_by: "agent" } });
    const result = await skillManage(ctx("background_review"), {
      action: "delete",
      name: "old",
      absorbed_into: "keeper",
    });
    expect(result).toMatchObject({ success: true, archived: true, absorbed_into: "keeper" });
    expect(await fs.stat(path.join(home, "skills/cat/old")).catch(() => null)).toBeNull();
    expect(await treeOf(path.join(homePaths(home).archive, "old"))).toMatchObject({
      "references/a.md": "A",
    });
    const usage = await readUsage(home);
    expect(usage.old).toMatchObject({ state: "archived", use_count: 3, created_by: "agent" });
    const [entry] = await listEntries(home);
    expect(entry).toMatchObject({
      actor: "curator",
      skill: "old",
      evidence: expect.objectContaining({ absorbed_into: "keeper", archived: true }),
    });
  });
});

describe("skill_manage: background-review guards", () => {
  beforeEach(async () => {
    for (const name of ["managed", "pinned-one", "unmanaged", "bundled-one", "hub-one"])
      await writeSkill(home, name);
    await writeUsage(home, {
      managed: { created_by: "agent" },
      "pinned-one": { created_by: "agent", pinned: true },
      unmanaged: { created_by: null },
      "bundled-one": { created_by: "agent" },
      "hub-one": { created_by: "agent" },
    });
    await fs.writeFile(homePaths(home).bundledManifest, "bundled-one:0123\n");
    await fs.mkdir(path.dirname(homePaths(home).hubLock), { recursive: true });
    await fs.writeFile(
      homePaths(home).hubLock,
      JSON.stringify({ version: 1, installed: { "hub-one": { install_path: "hub-one" } } }),
    );
  });

  it("pinned, unmanaged, bundled and hub skills are refused; a managed one is allowed", async () => {
    const c = ctx("background_review");
    const expected: Record<string, RegExp> = {
      "pinned-one": /pinned/,
      unmanaged: /not curator-managed/,
      "bundled-one": /bundled/,
      "hub-one": /hub-installed/,
    };
    for (const [name, pattern] of Object.entries(expected)) {
      const patch = await patchAfterView(c, name, "How to", "Way to");
      expect(patch.success, name).toBe(false);
      expect(patch.success === false && patch.error, name).toMatch(pattern);
      const write = await skillManage(c, {
        action: "write_file",
        name,
        file_path: "references/x.md",
        file_content: "x",
      });
      expect(write.success, name).toBe(false);
    }
    recordView(c.session, "managed");
    expect(
      await skillManage(c, { action: "patch", name: "managed", old_string: "How to", new_string: "Way to" }),
    ).toMatchObject({ success: true });
    // Foreground patches of a pinned skill still work (pinning blocks deletion, not fixes).
    expect(await patchAfterView(ctx("foreground"), "pinned-one", "How to", "Way to")).toMatchObject({
      success: true,
    });
  });

  it("external skills are read-only for everyone", async () => {
    const external = path.join(home, "ext");
    await fs.mkdir(path.join(external, "outside"), { recursive: true });
    await fs.writeFile(path.join(external, "outside/SKILL.md"), skillMd("outside", "Outside."));
    cfg = config({ skills: { external_dirs: [external] } });
    lib = library(home, cfg);
    const c = ctx("foreground");
    recordView(c.session, "outside");
    expect(
      await skillManage(c, { action: "edit", name: "outside", content: skillMd("outside", "Changed.") }),
    ).toMatchObject({
      success: false,
      error: expect.stringContaining("external"),
    });
  });
});
