/**
 * Installing skillgate needs no compiler: the package is packed as `npm pack` makes it for the registry,
 * installed into an empty folder by npm with `PATH` holding only `node`, `npm` and `npx` (no python3,
 * make or C++ compiler), no `nodedir` and an empty home (no cached Node headers), and the installed
 * `skillgate` answers `--version` and `skills list`. Packages come from npm's local cache first (the
 * cache `npm ci` filled), from the npm registry otherwise.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { promises as fs, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
  version: string;
};
let work: string;
let env: NodeJS.ProcessEnv;
let installed: string;

/** A folder with links to this Node's `node`, `npm` and `npx`, and nothing else. */
async function nodeOnlyPath(dir: string): Promise<string> {
  const bin = path.join(dir, "bin");
  await fs.mkdir(bin);
  const nodeDir = path.dirname(process.execPath);
  for (const name of ["node", "npm", "npx"]) {
    const target = await fs.realpath(path.join(nodeDir, name));
    await fs.symlink(target, path.join(bin, name));
  }
  return bin;
}

/** Every `binding.gyp` under `dir`: a package with one is built by node-gyp at install. */
async function gypPackages(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name === "binding.gyp") found.push(path.join(entry.parentPath, entry.name));
  }
  return found;
}

beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), "sg-install-"));
  const cache = execFileSync("npm", ["config", "get", "cache"], { cwd: root, encoding: "utf8" }).trim();
  const userconfig = path.join(work, "npmrc");
  await fs.writeFile(userconfig, "");
  const npmHome = path.join(work, "home");
  await fs.mkdir(npmHome);
  env = {
    PATH: await nodeOnlyPath(work),
    HOME: npmHome,
    // An empty user config: no `nodedir`, nothing a developer's ~/.npmrc adds.
    npm_config_userconfig: userconfig,
    npm_config_cache: cache,
    // Install scripts run in a POSIX shell, named by path since PATH has none (a shell, not a compiler).
    npm_config_script_shell: "/bin/sh",
    npm_config_prefer_offline: "true",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
    ...Object.fromEntries(
      Object.entries(process.env).filter(([key]) => /^(https?_proxy|no_proxy)$/i.test(key)),
    ),
  };
  // `pretest` built dist/; --ignore-scripts keeps `prepare` from rebuilding it under running tests.
  execFileSync("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", work], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const target = path.join(work, "app");
  await fs.mkdir(target);
  await fs.writeFile(path.join(target, "package.json"), '{ "name": "app", "private": true }\n');
  const install = spawnSync(
    "npm",
    ["install", "--no-audit", "--no-fund", path.join(work, `skillgate-${manifest.version}.tgz`)],
    { cwd: target, env, encoding: "utf8", timeout: 240_000 },
  );
  if (install.status !== 0)
    throw new Error(`npm install failed (${install.status}):\n${install.stdout}\n${install.stderr}`);
  installed = target;
}, 300_000);

afterAll(async () => {
  if (work) await fs.rm(work, { recursive: true, force: true });
});

function skillgate(args: string[]) {
  return spawnSync(path.join(installed, "node_modules", ".bin", "skillgate"), args, {
    cwd: installed,
    env: { ...env, NO_COLOR: "1" },
    encoding: "utf8",
    timeout: 60_000,
  });
}

describe("install from the packed tarball, without a compiler", () => {
  it("installs no package that node-gyp would build", async () => {
    expect(await gypPackages(path.join(installed, "node_modules"))).toEqual([]);
    expect(
      await fs.stat(path.join(installed, "node_modules", "fs-ext")).catch(() => undefined),
    ).toBeUndefined();
  });

  it("the installed skillgate prints its version", () => {
    const result = skillgate(["--version"]);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(manifest.version);
  });

  it("lists a home's skills, taking the kernel lock through the prebuilt libc binding", async () => {
    const home = path.join(work, "hermes");
    const skill = path.join(home, "skills", "notes", "meeting-notes");
    await fs.mkdir(skill, { recursive: true });
    await fs.writeFile(
      path.join(skill, "SKILL.md"),
      "---\nname: meeting-notes\ndescription: Turns a transcript into notes.\n---\n\nBody.\n",
    );
    const list = skillgate(["--home", home, "skills", "list"]);
    expect(list.stderr).toBe("");
    expect(list.status).toBe(0);
    expect(list.stdout).toContain("meeting-notes");
    // `skills view` is a person looking, not the agent using the skill: no view is counted.
    const view = skillgate(["--home", home, "skills", "view", "meeting-notes"]);
    expect(view.status).toBe(0);
    expect(view.stdout).toContain("Body.");
    const usage = JSON.parse(
      await fs.readFile(path.join(home, "skills", ".usage.json"), "utf8").catch(() => "{}"),
    );
    expect(usage["meeting-notes"]?.view_count ?? 0).toBe(0);
  });
});
