/**
 * A home named by `--home` or `HERMES_HOME` that does not exist is refused (exit 78, the path and the
 * fixes) by every command but `init`, which creates it; nothing is created on disk. Only the default
 * `~/.hermes` is made on first use, by what writes there, with one line saying so; read-only commands
 * create nothing (`skills list` on an empty home does not make `skills/`).
 */
import { existsSync, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCliArgs } from "../support/cli-in-process.js";

const temps: string[] = [];
afterEach(async () => {
  for (const dir of temps.splice(0)) await fs.rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "sg-missing-home-"));
  temps.push(dir);
  return dir;
}

const env = (extra: NodeJS.ProcessEnv = {}) => ({
  NO_COLOR: "1",
  SKILLGATE_LOG_LEVEL: "silent",
  PATH: process.env.PATH,
  ...extra,
});

const COMMANDS = [
  ["serve"],
  ["skills", "list"],
  ["skills", "list", "--json"],
  ["curator", "status"],
  ["curator", "run", "--dry-run"],
  ["console", "--link"],
];

describe("a home named but missing", () => {
  it("is refused by every command but init: exit 78, the path, the fixes; nothing created", async () => {
    const parent = await tempDir();
    const home = path.join(parent, "hermse");
    // The doctor reports it as one of its checks.
    const doctor = await runCliArgs(["--home", home, "doctor"], { env: env() });
    expect(doctor.code).toBe(78);
    expect(doctor.stdout).toContain(`The home ${home} does not exist.`);
    expect(doctor.stdout).toContain("skillgate init");
    for (const args of COMMANDS) {
      const run = await runCliArgs(["--home", home, ...args], { env: env() });
      expect(run.code, args.join(" ")).toBe(78);
      expect(run.stderr).toContain(`The home ${home} does not exist (named by --home).`);
      expect(run.stderr).toContain(`skillgate init --home ${home}`);
      expect(existsSync(home), args.join(" ")).toBe(false);
    }
    const viaEnv = await runCliArgs(["curator", "status"], { env: env({ HERMES_HOME: home }) });
    expect(viaEnv.code).toBe(78);
    expect(viaEnv.stderr).toContain("(named by HERMES_HOME)");
    expect(existsSync(home)).toBe(false);
    const zh = await runCliArgs(["--home", home, "skills", "list"], { env: env({ LANG: "zh_CN.UTF-8" }) });
    expect(zh.code).toBe(78);
    expect(zh.stderr).toContain(`主目录 ${home} 不存在`);
    // init makes it.
    const init = await runCliArgs(["--home", home, "init"], { env: env() });
    expect(init.code).toBe(0);
    expect(existsSync(path.join(home, "skills"))).toBe(true);
  });

  it("the default ~/.hermes: read-only commands create nothing; what writes creates it with one line", async () => {
    const user = await tempDir();
    const home = path.join(user, ".hermes");
    const saved = process.env.HOME;
    process.env.HOME = user;
    try {
      expect(path.join(os.homedir(), ".hermes")).toBe(home);
      for (const args of [["skills", "list"], ["curator", "status"], ["doctor"]]) {
        await runCliArgs(args, { env: env({ HOME: user }) });
        expect(existsSync(home), args.join(" ")).toBe(false);
      }
      const pinned = await runCliArgs(["curator", "pin", "nothing"], { env: env({ HOME: user }) });
      expect(pinned.stderr).toContain(`Created the home ${home}`);
      expect(existsSync(home)).toBe(true);
    } finally {
      process.env.HOME = saved;
    }
  });

  it("skills list on an empty existing home does not create skills/", async () => {
    const home = await tempDir();
    const run = await runCliArgs(["--home", home, "skills", "list"], { env: env() });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("does not exist yet");
    expect(await fs.readdir(home)).toEqual([]);
  });
});
