/**
 * The lean path of `skills list` and `skills view` (only `commands/skills.ts` loaded, `--json` written in
 * pieces): the built CLI prints byte for byte the document the library's listing gives, non-ASCII
 * names and descriptions included, over a real pipe; `--help` still shows the whole `skills` group.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skillsCommands } from "../../commands/skills.js";
import { skillsConfigCommands } from "../../commands/skills-config.js";
import { skillsHubCommands } from "../../commands/skills-hub.js";
import { skillsOverlapsCommand } from "../../commands/skills-overlaps.js";
import { skillsSearchCommand } from "../../commands/skills-search.js";
import { commandWords } from "../../src/cli/command-words.js";
import { buildProgram } from "../../src/cli/program.js";
import { loadConfig } from "../../src/config/config.js";
import { renderJson } from "../../src/core/render-terminal.js";
import { reply } from "../../src/core/reply.js";
import { openLibrary } from "../../src/skills/library.js";
import { runCliArgs } from "../support/cli-in-process.js";

const root = path.resolve(import.meta.dirname, "../..");
const cli = path.join(root, "dist", "src", "cli", "main.js");
let home: string;

function skill(rel: string, name: string, description: string): void {
  const dir = path.join(home, "skills", rel);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, "SKILL.md"),
    `---\nname: ${JSON.stringify(name)}\ndescription: ${JSON.stringify(description)}\n---\n\nBody.\n`,
  );
}

beforeAll(() => {
  execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: root, stdio: "ignore" });
  home = mkdtempSync(path.join(os.tmpdir(), "skillgate-short-reads-"));
  // Enough skills that the document is written in several pieces (~64k characters each).
  for (let index = 0; index < 900; index++)
    skill(
      `类别-${index % 5}/skill-${index}`,
      index % 4 === 0 ? `技能-${index}` : `skill-${index}`,
      `说明 ${index} — "quoted", back\\slash, emoji 🚀 ${"描述".repeat(40)}`,
    );
});

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

describe("skills list --json, written in pieces", () => {
  it("prints exactly the listing's document through a pipe", async () => {
    const printed = execFileSync(process.execPath, [cli, "--home", home, "skills", "list", "--json"], {
      env: { ...process.env, HERMES_PLATFORM: "", NO_COLOR: "1" },
      maxBuffer: 64 * 1024 * 1024,
    });
    const library = openLibrary(home, loadConfig(path.join(home, "config.yaml")), { watch: false });
    const listing = await library.list({ platform: null, create: false });
    const document = renderJson(reply([], { json: listing }));
    const expected = Buffer.from(document);
    expect(listing.count).toBe(900);
    expect(document.length).toBeGreaterThan(2 * 64 * 1024);
    expect(printed.equals(expected)).toBe(true);
  });
});

describe("the specs loaded for skills list|view|usage", () => {
  /** What commander prints for `args` with the whole `skills` group. */
  function fullGroupOutput(args: string[]): string {
    let out = "";
    const io = { stdout: { write: (text: string) => (out += text) }, stderr: { write: () => true } };
    const program = buildProgram(
      [
        ...skillsCommands,
        skillsSearchCommand,
        skillsOverlapsCommand,
        ...skillsConfigCommands,
        ...skillsHubCommands,
      ],
      () => undefined,
      io as never,
    );
    const exitless = (command: Command) => {
      command.exitOverride();
      for (const sub of command.commands) exitless(sub);
    };
    exitless(program);
    try {
      program.parse(args, { from: "user" });
    } catch {
      // help ends in a CommanderError
    }
    return out;
  }

  it("prints the same help for a subcommand as the whole group does", async () => {
    for (const sub of ["list", "view", "usage"]) {
      const lean = await runCliArgs(["skills", sub, "--help"]);
      expect(lean.code).toBe(0);
      expect(lean.stdout).toBe(fullGroupOutput(["skills", sub, "--help"]));
    }
  });

  it("still lists every subcommand of the group for `skills --help list`", async () => {
    const help = await runCliArgs(["skills", "--help", "list"]);
    for (const sub of ["search", "overlaps", "config", "hub"]) expect(help.stdout).toContain(sub);
  });

  it("finds the command words past --home and the options", () => {
    expect(commandWords(["--home", "/h", "skills", "list", "--json"])).toEqual(["skills", "list"]);
    expect(commandWords(["skills", "--json", "view", "x"])).toEqual(["skills", "view", "x"]);
    expect(commandWords(["--version"])).toEqual([]);
  });
});

describe("the short reads' V8 settings", () => {
  it("are left alone when main runs inside a process that goes on running (tests)", () => {
    const mainUrl = new URL("../../src/cli/main.ts", import.meta.url).href;
    const script = `
      import { PassThrough } from "node:stream";
      const { main } = await import(${JSON.stringify(mainUrl)});
      const stdout = new PassThrough();
      let printed = "";
      stdout.on("data", (chunk) => { printed += chunk; });
      const io = { stdin: new PassThrough(), stdout, stderr: new PassThrough(), env: { NO_COLOR: "1" } };
      const code = await main(["--home", ${JSON.stringify(home)}, "skills", "list", "--json"], io);
      function sum(n) { let total = 0; for (let i = 0; i < n; i++) total += i; return total; }
      const optimized = () => (new Function("f", "return %GetOptimizationStatus(f)")(sum) & 16) !== 0;
      const until = Date.now() + 3000;
      while (!optimized() && Date.now() < until) {
        for (let i = 0; i < 20000; i++) sum(100);
        await new Promise((resolve) => setImmediate(resolve));
      }
      console.log(JSON.stringify({ code, count: JSON.parse(printed).count, optimized: optimized() }));
    `;
    const result = spawnSync(
      process.execPath,
      ["--allow-natives-syntax", "--import", "tsx", "--input-type=module", "-e", script],
      { cwd: root, encoding: "utf8" },
    );
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout.trim().split("\n").pop() as string)).toEqual({
      code: 0,
      count: 900,
      optimized: true,
    });
  });
});
