/**
 * The terminal chat (`skillgate serve --terminal`) speaks the terminal's language, as the rest of the
 * command line does: under a Chinese `LANG` its replies, its question, the hint for a typed answer and
 * the cancellation are Chinese; under an English one they are the English texts. The library ends the
 * same either way. Runs the built CLI with piped lines.
 */
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { outputOf } from "../support/child-output.js";
import { englishLeft } from "./complete-support.js";

const cli = path.resolve(import.meta.dirname, "../../dist/src/cli/main.js");
const homes: string[] = [];
afterEach(async () => {
  for (const home of homes.splice(0)) await fs.rm(home, { recursive: true, force: true });
});

async function chat(lang: string, lines: string): Promise<{ stdout: string; home: string }> {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-terminal-locale-"));
  homes.push(home);
  for (const name of ["one", "two"]) {
    await fs.mkdir(path.join(home, "skills", name), { recursive: true });
    await fs.writeFile(
      path.join(home, "skills", name, "SKILL.md"),
      `---\nname: ${name}\ndescription: d\n---\n`,
    );
  }
  const env: NodeJS.ProcessEnv = { ...process.env, LANG: lang, NO_COLOR: "1" };
  delete env.LC_ALL;
  delete env.LC_MESSAGES;
  const child = spawn(process.execPath, [cli, "--home", home, "serve", "--terminal"], {
    stdio: ["pipe", "pipe", "pipe"],
    env,
  });
  const { code, stdout } = await outputOf(child, { input: lines });
  expect(code).toBe(0);
  return { stdout, home };
}

const LINES = "/help\n/curator archive one\nn\n/curator archive two\ny\n";

describe("the terminal chat follows LANG", () => {
  it("answers in Chinese under zh_CN, with nothing English left but names and commands", async () => {
    const { stdout, home } = await chat("zh_CN.UTF-8", LINES);
    expect(stdout).toContain("输入 y 确认");
    expect(stdout).toContain("已取消，没有做任何改动。");
    expect(stdout).toMatch(/归档/);
    expect(englishLeft(stdout, ["one", "two", "skillgate", "curator"])).toBeNull();
    await fs.stat(path.join(home, "skills", "one", "SKILL.md"));
    await expect(fs.stat(path.join(home, "skills", "two"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("answers in English under en_US", async () => {
    const { stdout, home } = await chat("en_US.UTF-8", LINES);
    expect(stdout).toContain("Type y to confirm; anything else leaves everything as it is.");
    expect(stdout).toContain("Cancelled; nothing was changed.");
    expect(stdout).toContain("Archive 'one'? It can be restored later with `/curator restore one`.");
    expect(stdout).not.toMatch(/[\u4e00-\u9fff]/);
    await expect(fs.stat(path.join(home, "skills", "two"))).rejects.toMatchObject({ code: "ENOENT" });
  });
});
