/**
 * The example library: `init --examples` installs it without overwriting anything, `serve --console
 * --demo` chats with it on a temporary home and leaves the user's home alone, and /help on an empty
 * library points to both.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { installExamples, makeDemoHome, removeDemoHome } from "../../src/cli/examples.js";
import { loadConfig } from "../../src/config/config.js";
import { openLibrary } from "../../src/skills/library.js";
import { runCliArgs } from "../support/cli-in-process.js";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "skillgate-examples-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const cli = (args: string[], input = "") =>
  runCliArgs(args, { input, env: { NO_COLOR: "1", SKILLGATE_LOG_LEVEL: "silent" } });

describe("example library", () => {
  it("installs a handful of skills across categories: linked files, a secret, a platform-disabled one", async () => {
    const home = await tempDir();
    const result = await installExamples(home);
    expect(result.installed.length).toBeGreaterThanOrEqual(5);
    expect(new Set(result.installed.map((skill) => skill.split("/")[0])).size).toBeGreaterThanOrEqual(4);
    // The demo's config is not the home's: nothing is written beside the skills.
    expect(existsSync(path.join(home, "config.yaml"))).toBe(false);
    const demo = await makeDemoHome();
    cleanups.push(() => removeDemoHome(demo));
    const config = loadConfig(path.join(demo, "config.yaml"));
    expect(config.gateway.health.enabled).toBe(false);
    expect(config.skills.platformDisabled.telegram).toContain("incident-notes");
    const library = openLibrary(home, config);
    cleanups.push(async () => library.close?.());
    const names = (await library.all()).map((skill) => skill.name).sort();
    expect(names).toEqual([
      "commit-messages",
      "incident-notes",
      "meeting-minutes",
      "paper-digest",
      "weather-brief",
    ]);
    expect((await library.visible("telegram")).map((skill) => skill.name)).not.toContain("incident-notes");
    const digest = await library.view("paper-digest", { filePath: "references/checklist.md" });
    expect(JSON.stringify(digest)).toContain("Reading checklist");
    const weather = await readFile(path.join(home, "skills", "tools", "weather-brief", "SKILL.md"), "utf8");
    expect(weather).toContain("WEATHER_API_KEY");
  });

  it("never overwrites a skill or a config.yaml already in the home", async () => {
    const home = await tempDir();
    await writeFile(path.join(home, "config.yaml"), "gateway:\n  admins: ['telegram:1']\n");
    await installExamples(home);
    const mine = path.join(home, "skills", "writing", "commit-messages", "SKILL.md");
    await writeFile(mine, "---\nname: commit-messages\ndescription: mine\n---\n\nMine.\n");
    const again = await installExamples(home);
    expect(again.installed).toEqual([]);
    expect(again.skipped).toContain("writing/commit-messages");
    expect(await readFile(mine, "utf8")).toContain("Mine.");
    expect(await readFile(path.join(home, "config.yaml"), "utf8")).toContain("telegram:1");
  });

  it("skillgate init --examples --json reports what it installed", async () => {
    const home = path.join(await tempDir(), "fresh-home");
    const { code, stdout } = await cli(["--home", home, "init", "--examples", "--json"]);
    expect(code).toBe(0);
    const doc = JSON.parse(stdout) as { ok: boolean; installed: string[] };
    expect(doc.ok).toBe(true);
    expect(doc.installed).toContain("research/paper-digest");
    // A real home keeps its own defaults (no demo config: /healthz stays on).
    expect(existsSync(path.join(home, "config.yaml"))).toBe(false);
    expect(existsSync(path.join(home, "skills", "research", "paper-digest", "templates", "digest.md"))).toBe(
      true,
    );
  });

  it("serve --console --demo chats with the examples on a temporary home and leaves the user's home alone", async () => {
    const home = path.join(await tempDir(), "untouched");
    const { code, stdout, stderr } = await cli(
      ["--home", home, "serve", "--console", "--demo"],
      "/skills list\n",
    );
    expect(code).toBe(0);
    expect(stdout).toContain("paper-digest");
    expect(stdout).toContain("weather-brief");
    expect(existsSync(home)).toBe(false);
    const demoHome = /temporary home \(([^)]+)\)/.exec(stderr)?.[1];
    expect(demoHome).toBeDefined();
    expect(existsSync(demoHome ?? "/")).toBe(false);
  });

  it("serve --terminal and plain serve --demo are the same terminal chat as the older serve --console", async () => {
    const home = await tempDir();
    for (const args of [
      ["serve", "--terminal"],
      ["serve", "--console"],
    ]) {
      const { code, stdout } = await cli(["--home", home, ...args], "/whoami\n");
      expect(code).toBe(0);
      expect(stdout).toContain("`console:local`: an admin");
    }
    const demo = await cli(["--home", path.join(home, "nothing-here"), "serve", "--demo"], "/skills list\n");
    expect(demo.code).toBe(0);
    expect(demo.stdout).toContain("paper-digest");
    const help = await cli(["serve", "--help"]);
    const flat = help.stdout.replace(/\s+/g, " ");
    expect(flat).toContain(
      "--terminal only the terminal chat in this terminal: no platforms, no web console",
    );
    expect(flat).toContain("--console the older name of --terminal");
  });

  it("/help on an empty library points to the demo and to init --examples", async () => {
    const home = await tempDir();
    const { stdout } = await cli(["--home", home, "serve", "--console"], "/help\n");
    expect(stdout).toContain("skillgate serve --demo");
    expect(stdout).toContain("skillgate init --examples");
  });
});
