/**
 * Findings 2 and 3: archive, restore and purge never move or delete anything outside the library. A
 * skill inside a category folder linked from outside is refused (its real folder stays where it is); a
 * skill folder that is itself a (relative) symlink is archived as a link that still resolves, listed by
 * `list-archived`, restored by `restore`, and purged by deleting the link only.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeHome, removeHome, writeFiles } from "../safety/helpers.js";
import { runCli } from "./cli.js";

let home: string;
let outside: string;
beforeEach(async () => {
  home = await makeHome();
  outside = path.join(home, "..", `${path.basename(home)}-outside`);
  await writeFiles(outside, {
    "cat/inner/SKILL.md": "---\nname: inner\ndescription: inner skill\n---\nInner.\n",
    "checkout/SKILL.md": "---\nname: checkout\ndescription: a skill from a git checkout\n---\nLinked.\n",
    "checkout/references/notes.md": "notes\n",
  });
});
afterEach(async () => {
  await removeHome(home);
  await fs.rm(outside, { recursive: true, force: true });
});

describe("finding 2: a skill in a category folder linked from outside", () => {
  it("is refused by archive; the real folder outside stays put", async () => {
    await fs.symlink(
      path.relative(path.join(home, "skills"), path.join(outside, "cat")),
      path.join(home, "skills", "linkedcat"),
    );
    const listed = await runCli(home, ["skills", "list", "--json"]);
    expect(JSON.parse(listed.stdout).skills.map((skill: { name: string }) => skill.name)).toContain("inner");
    const archived = await runCli(home, ["curator", "archive", "inner"]);
    expect(archived.code).toBe(1);
    expect(archived.stderr).toMatch(/symlink that leads outside the library/);
    await expect(fs.stat(path.join(outside, "cat", "inner", "SKILL.md"))).resolves.toBeTruthy();
    await expect(fs.lstat(path.join(home, "skills", ".archive", "linkedcat"))).rejects.toThrow();
  });
});

describe("finding 3: a skill folder that is a relative symlink", () => {
  it("is archived as a working link, listed, restored, and the checkout is never moved", async () => {
    const link = path.join(home, "skills", "tools", "checkout");
    await fs.mkdir(path.dirname(link), { recursive: true });
    await fs.symlink(path.relative(path.dirname(link), path.join(outside, "checkout")), link);
    const archived = await runCli(home, ["curator", "archive", "checkout"]);
    expect(archived.code, archived.stderr).toBe(0);
    const inArchive = path.join(home, "skills", ".archive", "checkout");
    expect((await fs.lstat(inArchive)).isSymbolicLink()).toBe(true);
    expect(await fs.readFile(path.join(inArchive, "SKILL.md"), "utf8")).toMatch(/name: checkout/);
    await expect(fs.stat(path.join(outside, "checkout", "references", "notes.md"))).resolves.toBeTruthy();
    const listed = await runCli(home, ["curator", "list-archived", "--json"]);
    expect(listed.stdout).toContain("tools/checkout");
    const restored = await runCli(home, ["curator", "restore", "checkout"]);
    expect(restored.code, restored.stderr).toBe(0);
    expect((await fs.lstat(link)).isSymbolicLink()).toBe(true);
    expect(await fs.readFile(path.join(link, "SKILL.md"), "utf8")).toMatch(/name: checkout/);
    const view = await runCli(home, ["skills", "view", "checkout", "--json"]);
    expect(JSON.parse(view.stdout).success).toBe(true);
  });

  it("purge deletes the archived link, never the checkout behind it", async () => {
    await fs.symlink(path.join(outside, "checkout"), path.join(home, "skills", "checkout"));
    expect((await runCli(home, ["curator", "archive", "checkout"])).code).toBe(0);
    // Age the archived package past the purge threshold.
    const usageFile = path.join(home, "skills", ".usage.json");
    const usage = JSON.parse(await fs.readFile(usageFile, "utf8"));
    usage.checkout.archived_at = "2001-01-01T00:00:00.000000+00:00";
    await fs.writeFile(usageFile, JSON.stringify(usage));
    const purged = await runCli(home, ["curator", "purge", "--days", "1", "-y"]);
    expect(purged.code, purged.stderr).toBe(0);
    await expect(fs.lstat(path.join(home, "skills", ".archive", "checkout"))).rejects.toThrow();
    expect(await fs.readFile(path.join(outside, "checkout", "references", "notes.md"), "utf8")).toBe(
      "notes\n",
    );
  });

  it("skill_manage-style writes into a linked skill are refused by the containment rule", async () => {
    const { writeRefusal } = await import("../../src/skills/containment.js");
    await fs.symlink(path.join(outside, "checkout"), path.join(home, "skills", "checkout"));
    expect(
      writeRefusal(path.join(home, "skills"), path.join(home, "skills", "checkout"), "checkout"),
    ).toMatch(/linked into the library/);
  });
});
