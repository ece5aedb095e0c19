import { appendFileSync, renameSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { everySkillOnDisk, openLibrary } from "../../src/skills/library.js";
import type { SkillEntry, SkillLibrary } from "../../src/skills/types.js";
import { config, eventually, tempHome, writeSkill } from "./helpers.js";

let env: ReturnType<typeof tempHome>;
let library: SkillLibrary | undefined;
beforeEach(() => {
  env = tempHome();
  writeSkill(env.skills, "cat/alpha", "name: alpha\ndescription: first");
  writeSkill(env.skills, "beta", "name: beta\ndescription: second");
});
afterEach(() => {
  library?.close?.();
  library = undefined;
  env.cleanup();
});

const names = async (lib: SkillLibrary, platform: string | null = null) =>
  ((await lib.list({ platform })).skills ?? []).map((skill) => skill.name);

describe.each([
  { mode: "watchers", watch: true },
  { mode: "polling", watch: false },
])("cache ($mode) sees changes within a second (scenario 72)", ({ watch }) => {
  it("sees an added nested skill, an edit and a removal", async () => {
    library = openLibrary(env.home, config(), { watch });
    expect(await names(library)).toEqual(["beta", "alpha"]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await library.list();

    writeSkill(env.skills, "newcat/deep/gamma", "name: gamma\ndescription: added");
    const lib = library;
    expect(await eventually(async () => (await names(lib)).includes("gamma"))).toBe(true);

    appendFileSync(path.join(env.skills, "beta", "SKILL.md"), "\nmore body\n");
    writeFileSync(
      path.join(env.skills, "beta", "SKILL.md"),
      "---\nname: beta\ndescription: edited in place\n---\nbody\n",
    );
    expect(await eventually(async () => (await descriptionOf(lib, "beta")) === "edited in place")).toBe(true);

    rmSync(path.join(env.skills, "cat", "alpha"), { recursive: true });
    expect(await eventually(async () => !(await names(lib)).includes("alpha"))).toBe(true);

    // An atomic replace (tmp + rename), as editors and skillgate's own writers do.
    const tmp = path.join(env.skills, "beta", ".SKILL.md.tmp");
    writeFileSync(tmp, "---\nname: beta\ndescription: replaced atomically\n---\n");
    renameSync(tmp, path.join(env.skills, "beta", "SKILL.md"));
    expect(await eventually(async () => (await descriptionOf(lib, "beta")) === "replaced atomically")).toBe(
      true,
    );
  });

  it("sees a change of the disabled lists in config.yaml", async () => {
    const file = path.join(env.home, "config.yaml");
    writeFileSync(file, "skills:\n  disabled: []\n");
    const { loadConfig } = await import("../../src/config/config.js");
    library = openLibrary(env.home, loadConfig(file), { watch });
    const lib = library;
    expect(await names(lib, "telegram")).toEqual(["beta", "alpha"]);
    writeFileSync(file, "skills:\n  disabled: [beta]\n  platform_disabled:\n    telegram: [alpha]\n");
    const later = new Date(Date.now() + 2000);
    utimesSync(file, later, later);
    expect(await eventually(async () => (await names(lib, "telegram")).length === 0)).toBe(true);
    expect(await names(lib)).toEqual(["alpha"]);
  });
});

/** The description `lib` lists for skill `name` now. */
async function descriptionOf(lib: SkillLibrary, name: string): Promise<string | undefined> {
  return ((await lib.list()).skills ?? []).find((skill) => skill.name === name)?.description;
}

describe("cache without changes", () => {
  it("does not rescan an unchanged tree", async () => {
    const lib = openLibrary(env.home, config(), { watch: true });
    library = lib;
    await lib.list();
    await new Promise((resolve) => setTimeout(resolve, 400));
    await lib.list(); // the refresh right after the watchers are armed
    const scans = lib.scanCount();
    const first = await lib.all();
    for (let i = 0; i < 5; i++) {
      expect(await lib.all()).toEqual(first);
      await lib.list();
      await lib.view("beta", { bumpView: true }); // usage writes in skills/ are not library changes
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    await lib.list();
    expect(lib.scanCount()).toBe(scans);
    lib.invalidate();
    await lib.list();
    expect(lib.scanCount()).toBe(scans + 1);
  });

  it("hands out one frozen set of records per scan, safe from callers' mutation", async () => {
    const lib = openLibrary(env.home, config({ skills: { disabled: ["beta"] } }), { watch: false });
    library = lib;
    const all = await lib.all();
    expect(all.map((entry) => entry.name)).toEqual(["beta", "alpha"]);
    // The same array and records on every call while nothing changed, shared with visible() and find().
    expect(await lib.all()).toBe(all);
    expect(await lib.find("alpha")).toBe(all[1]);
    expect(await lib.visible(null)).toEqual([all[1]]);
    expect((await lib.visible(null))[0]).toBe(all[1]);
    expect(Object.isFrozen(all)).toBe(true);
    expect(all.every((entry) => Object.isFrozen(entry))).toBe(true);
    const alpha = all[1] as SkillEntry;
    expect(() => {
      (alpha as { name: string }).name = "changed";
    }).toThrow(TypeError);
    expect(() => all.push(alpha)).toThrow(TypeError);
    expect(() => all.sort()).toThrow(TypeError);
    // Own enumerable properties: a copy by spread, a structured clone and JSON keep every field, the
    // frontmatter (read from the scan when asked for) included.
    expect({ ...alpha }.frontmatter).toEqual({ name: "alpha", description: "first" });
    expect(structuredClone(alpha).frontmatter).toEqual({ name: "alpha", description: "first" });
    expect(JSON.parse(JSON.stringify(alpha)).frontmatter).toEqual({ name: "alpha", description: "first" });
    expect(Object.keys(alpha)).toContain("frontmatter");
    expect(alpha.frontmatter).toBe(alpha.frontmatter);
    expect(() => {
      (alpha as { frontmatter: unknown }).frontmatter = {};
    }).toThrow(TypeError);
    // A whole listing is kept per scan too, frozen.
    const listed = await lib.list();
    expect(await lib.list()).toBe(listed);
    expect(Object.isFrozen(listed) && Object.isFrozen(listed.skills?.[0])).toBe(true);
    expect((await lib.list({ category: "cat" })).skills?.map((skill) => skill.name)).toEqual(["alpha"]);
    writeSkill(env.skills, "gamma", "name: gamma\ndescription: third");
    lib.invalidate();
    expect((await lib.list()).skills?.map((skill) => skill.name)).toEqual(["gamma", "alpha"]);
    const after = await lib.all();
    expect(after).not.toBe(all);
    expect(after.map((entry) => entry.name)).toEqual(["beta", "alpha", "gamma"]);
    expect(all.map((entry) => entry.name)).toEqual(["beta", "alpha"]);
  });

  it("hands a read-only pass the library's own records: same skills and order as all(), frozen, no copies", async () => {
    writeSkill(env.skills, "gated", "name: gated\ndescription: hidden here\nplatforms: [plan9]");
    const lib = openLibrary(env.home, config(), { watch: false });
    library = lib;
    const all = await lib.all();
    const records = await everySkillOnDisk(lib);
    expect(records.map((entry) => [entry.name, entry.relPath, entry.dir, entry.hiddenBy])).toEqual(
      all.map((entry) => [entry.name, entry.relPath, entry.dir, entry.hiddenBy]),
    );
    expect(records.map((entry) => entry.name)).toContain("gated");
    // The same objects while nothing changes, and none of them the copies all() hands out.
    expect(await everySkillOnDisk(lib)).toBe(records);
    expect(records.some((entry) => all.includes(entry))).toBe(false);
    expect(Object.isFrozen(records) && records.every((entry) => Object.isFrozen(entry))).toBe(true);
    const alpha = records.find((entry) => entry.name === "alpha") as SkillEntry;
    expect(() => {
      (alpha as { name: string }).name = "changed";
    }).toThrow(TypeError);
    expect(alpha.description).toBe("first");
    expect(alpha.frontmatter).toEqual({ name: "alpha", description: "first" });
    writeSkill(env.skills, "gamma", "name: gamma\ndescription: third");
    lib.invalidate();
    expect((await everySkillOnDisk(lib)).map((entry) => entry.name)).toContain("gamma");
  });

  it("a library without records() is read through all()", async () => {
    const lib = openLibrary(env.home, config(), { watch: false });
    library = lib;
    const standIn: SkillLibrary = { ...lib, all: () => lib.all(), records: undefined };
    expect(await everySkillOnDisk(standIn)).toBe(await lib.all());
  });

  it("a config given as a function is consulted on every call", async () => {
    let disabled: string[] = [];
    library = openLibrary(env.home, () => config({ skills: { disabled } }), { watch: false });
    expect(await names(library)).toEqual(["beta", "alpha"]);
    disabled = ["alpha"];
    expect(await names(library)).toEqual(["beta"]);
  });
});
