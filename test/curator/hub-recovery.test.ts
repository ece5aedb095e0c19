/**
 * The hub's journal is recovered by the start-up recovery every CLI command runs (`recoverHome`), not
 * only by the next hub command: a killed install leaves the library as before or as after once any
 * command has started, the journal gone and a note on the terminal.
 */
import { execFile, spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { mayNeedRecovery } from "../../src/curator/recovery.js";
import { hubPaths, readHubLock } from "../../src/skills/hub/format.js";
import { tempHome } from "../skills/helpers.js";

const run = promisify(execFile);
const CHILD = path.join(import.meta.dirname, "hub-child.ts");
const CLI = path.resolve(import.meta.dirname, "..", "..", "dist", "src", "cli", "main.js");

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function killedInstall(home: string, crashAt: string): Promise<number | null> {
  const env: NodeJS.ProcessEnv = { ...process.env, SKILLGATE_CRASH_AT: crashAt };
  delete env.SKILLGATE_CRASH_STEP;
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ["--import", "tsx", CHILD, home, "install"], {
      env,
      stdio: "ignore",
    });
    proc.on("error", reject);
    proc.on("close", (code) => resolve(code));
  });
}

describe("start-up recovery finishes or undoes a killed hub install", () => {
  for (const [point, expected] of [
    ["hub-install-journal", "undone"],
    ["hub-install-moved", "finished"],
    ["hub-install-locked", "finished"],
  ] as const) {
    it(`killed at ${point}: the next CLI command leaves the library ${expected === "undone" ? "as before" : "as after"}`, async () => {
      const made = tempHome("skillgate-hub-recovery-");
      cleanup = made.cleanup;
      const { home, skills } = made;
      await fs.mkdir(skills, { recursive: true });
      expect(await killedInstall(home, point)).not.toBe(0);
      const journal = path.join(hubPaths(home).hub, ".journal.json");
      expect(await fs.stat(journal).catch(() => null)).not.toBeNull();
      expect(mayNeedRecovery(home)).toBe(true);

      const { stdout, stderr } = await run(process.execPath, [CLI, "--home", home, "skills", "list"], {
        env: { ...process.env, LANG: "C" },
      });
      expect(await fs.stat(journal).catch(() => null)).toBeNull();
      expect(mayNeedRecovery(home)).toBe(false);
      const lock = await readHubLock(home);
      const installed = lock.ok ? Object.keys(lock.lock.installed) : ["corrupt"];
      const onDisk = await fs.readFile(path.join(skills, "notes", "SKILL.md"), "utf8").catch(() => null);
      if (expected === "undone") {
        expect(installed).toEqual([]);
        expect(onDisk).toBeNull();
        expect(stderr).toContain("Undid the hub change of 'notes'");
        expect(stdout).not.toContain("notes");
      } else {
        expect(installed).toEqual(["notes"]);
        expect(onDisk).toContain("version: 1.0.0");
        expect(await fs.readFile(path.join(skills, "notes", "refs", "guide.md"), "utf8")).toBe(
          "guide 1.0.0\n",
        );
        expect(stdout).toContain("notes");
      }
      expect(await fs.readdir(hubPaths(home).quarantine).catch(() => [])).toEqual([]);
    }, 60_000);
  }
});
