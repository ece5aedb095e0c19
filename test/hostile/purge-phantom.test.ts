/**
 * A purge killed between moving a package away and writing its ledger line leaves no phantom `purge`
 * entry: the next start puts the package back. Killed after the line, the next start finishes it. A trash
 * whose origin record was cut short (or damaged) never stops recovery, and never costs a package.
 */
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readEntries } from "../../src/curator/ledger.js";
import { recoverHome } from "../../src/curator/recovery.js";
import { configWith, exists, makeHome, removeHome, writeFiles, writeSkill } from "../safety/helpers.js";

const child = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "safety", "crash-child.ts");

let home: string;
beforeEach(async () => {
  home = await makeHome();
  await writeSkill(home, "ops/live", {});
  const dir = path.join(home, "skills", ".archive", "old");
  await writeFiles(dir, {
    "SKILL.md": "---\nname: old\ndescription: Old\n---\nold skill\n",
    "r.md": "ref\n",
  });
  const old = new Date(Date.now() - 10 * 86_400_000);
  await fs.utimes(dir, old, old);
});
afterEach(async () => {
  await removeHome(home);
});

/** Runs a purge in a child process killed at the crash point `at`. */
function purgeKilledAt(at: string): Promise<NodeJS.Signals | null> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, SKILLGATE_CRASH_AT: at };
    delete env.SKILLGATE_CRASH_STEP;
    const proc = spawn(process.execPath, ["--import", "tsx", child, "purge", home], { env, stdio: "ignore" });
    proc.on("error", reject);
    proc.on("close", (_code, signal) => resolve(signal));
  });
}

const trashes = async () =>
  (await fs.readdir(path.join(home, "skills"))).filter((name) => name.startsWith(".purge-trash"));

describe("a purge killed mid-way", () => {
  it("after the move, before the ledger line: the package is put back and no purge is recorded", async () => {
    expect(await purgeKilledAt("purge:moved")).toBe("SIGKILL");
    expect(await exists(path.join(home, "skills", ".archive", "old"))).toBe(false);
    await recoverHome(home, configWith(), { atStart: true });
    expect(await fs.readFile(path.join(home, "skills", ".archive", "old", "r.md"), "utf8")).toBe("ref\n");
    expect((await readEntries(home)).filter((entry) => entry.action === "purge")).toEqual([]);
    expect(await trashes()).toEqual([]);
  });

  it("while its origin was being written: recovery empties the trash and the package stays where it was", async () => {
    // What a kill between creating origin.json and writing it leaves: an empty file, no package moved.
    const trash = path.join(home, "skills", ".purge-trash-cut0");
    await writeFiles(trash, { "origin.json": "" });
    await recoverHome(home, configWith(), { atStart: true });
    expect(await trashes()).toEqual([]);
    expect(await fs.readFile(path.join(home, "skills", ".archive", "old", "r.md"), "utf8")).toBe("ref\n");
  });

  it("a damaged origin beside a package: recovery goes on and keeps the package for a person to look at", async () => {
    const trash = path.join(home, "skills", ".purge-trash-bad0");
    await writeFiles(trash, {
      "origin.json": '{"dir": "old", ',
      "package/SKILL.md": "---\nname: kept\n---\n",
    });
    await recoverHome(home, configWith(), { atStart: true });
    expect(await fs.readFile(path.join(trash, "package", "SKILL.md"), "utf8")).toBe("---\nname: kept\n---\n");
    expect(await exists(path.join(home, "skills", ".archive", "old", "r.md"))).toBe(true);
  });

  it("after the ledger line: the purge is finished and its entry stays", async () => {
    expect(await purgeKilledAt("purge:ledgered")).toBe("SIGKILL");
    await recoverHome(home, configWith(), { atStart: true });
    expect(await exists(path.join(home, "skills", ".archive", "old"))).toBe(false);
    expect((await readEntries(home)).filter((entry) => entry.action === "purge").map((e) => e.skill)).toEqual(
      ["old"],
    );
    expect(await trashes()).toEqual([]);
  });
});
