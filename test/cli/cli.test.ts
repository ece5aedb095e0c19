/**
 * The CLI and the terminal chat as child processes of the built `dist/src/cli/main.js`: exit codes 0/1/2/78,
 * `--json` purity, `HERMES_PLATFORM`, confirmation without a TTY, `serve --console` scripted through
 * stdin, and a graceful SIGTERM.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChildOutput, outputOf } from "../support/child-output.js";

const root = path.resolve(import.meta.dirname, "../..");
const cli = path.join(root, "dist", "src", "cli", "main.js");
let home: string;

function run(
  args: string[],
  options: { input?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<ChildOutput> {
  const child = spawn(process.execPath, [cli, "--home", home, ...args], {
    env: { ...process.env, HERMES_PLATFORM: "", WEATHER_API_KEY: "", NO_COLOR: "1", ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  return outputOf(child, { input: options.input ?? "" });
}

async function writeSkill(name: string, frontmatter = "", category = ""): Promise<void> {
  const dir = path.join(home, "skills", category, name);
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(
    path.join(dir, "SKILL.md"),
    `---\nname: ${name}\ndescription: ${name} helps\n${frontmatter}---\n\nBody.\n`,
  );
}

beforeAll(async () => {
  execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: root, stdio: "ignore" });
  home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-cli-"));
  await writeSkill("pdf-tools", "", "docs");
  await writeSkill("arxiv");
  await writeSkill("weather", "required_environment_variables: [WEATHER_API_KEY]\n");
  await fs.writeFile(
    path.join(home, "config.yaml"),
    "skills:\n  platform_disabled:\n    telegram: [arxiv]\ngateway:\n  health: { enabled: false }\n  admins: ['telegram:1']\n",
  );
}, 180_000);

afterAll(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

describe("skillgate CLI", () => {
  it("prints exactly one JSON document for skills list --json", async () => {
    const result = await run(["skills", "list", "--json"]);
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc.success).toBe(true);
    expect(doc.skills.map((skill: { name: string }) => skill.name).sort()).toEqual([
      "arxiv",
      "pdf-tools",
      "weather",
    ]);
  });

  it("answers as the platform in HERMES_PLATFORM (same as --platform)", async () => {
    const viaEnv = JSON.parse(
      (await run(["skills", "list", "--json"], { env: { HERMES_PLATFORM: "telegram" } })).stdout,
    );
    const viaFlag = JSON.parse((await run(["skills", "list", "--platform", "telegram", "--json"])).stdout);
    expect(viaEnv.skills.map((skill: { name: string }) => skill.name)).not.toContain("arxiv");
    expect(viaFlag).toEqual(viaEnv);
  });

  it("exit 0 for a done command, with text on stdout; bare curator is status", async () => {
    const status = await run(["curator", "status"]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain("curator: ENABLED");
    expect((await run(["curator"])).stdout).toBe(status.stdout);
  });

  it("exit 1 for a refused command; --json still prints one document", async () => {
    const refused = await run(["curator", "restore", "never-archived", "--json"]);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ ok: false });
  });

  it("exit 2 for bad usage, naming the problem; --json gives a JSON error", async () => {
    const missing = await run(["curator", "pin"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("missing required argument 'skill'");
    expect(missing.stdout).toBe("");
    const unknown = await run(["curator", "pinn", "x", "--json"]);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout)).toMatchObject({ ok: false, exit_code: 2 });
    expect(unknown.stderr).toContain("Did you mean `skillgate curator pin`?");
    const badInt = await run(["curator", "ledger", "--limit", "many"]);
    expect(badInt.code).toBe(2);
  });

  it("prints its version, and answers a typo'd command with the one it resembles", async () => {
    const manifest = JSON.parse(await fs.readFile(path.join(root, "package.json"), "utf8"));
    for (const flag of ["--version", "-V"]) {
      const version = await run([flag]);
      expect(version.code).toBe(0);
      expect(version.stdout.trim()).toBe(manifest.version);
    }
    const typo = await run(["curatr", "status"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("unknown command 'curatr'");
    expect(typo.stderr).toContain("Did you mean curator?");
  });

  it("skills view of an unknown name suggests the closest skill and the list command, not an agent tool", async () => {
    const near = await run(["skills", "view", "arxix"]);
    expect(near.code).toBe(1);
    expect(near.stderr).toContain("Skill 'arxix' not found.");
    expect(near.stderr).toContain("Did you mean `skillgate skills view arxiv`?");
    expect(near.stderr).toContain("`skillgate skills list` lists every skill.");
    expect(near.stderr).not.toContain("skills_list");
    const far = await run(["skills", "view", "nope"]);
    expect(far.stderr).not.toContain("Did you mean");
    expect(far.stderr).toContain("`skillgate skills list` lists every skill.");
    expect(far.stderr).not.toContain("skills_list");
  });

  it("refuses a confirmation without a terminal and without -y, and proceeds with -y", async () => {
    const refused = await run(["curator", "adopt", "--all-unmanaged"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("no terminal to confirm on");
    expect(refused.stderr).toContain("skillgate curator adopt --all-unmanaged -y");
    const usage = JSON.parse(
      await fs.readFile(path.join(home, "skills", ".usage.json"), "utf8").catch(() => "{}"),
    );
    expect(
      Object.values(usage).some((record) => (record as { created_by?: string }).created_by === "agent"),
    ).toBe(false);
    const done = await run(["curator", "adopt", "--all-unmanaged", "-y", "--json"]);
    expect(done.code).toBe(0);
    expect(JSON.parse(done.stdout).adopted.sort()).toEqual(["arxiv", "pdf-tools", "weather"]);
  });

  it("skills disable/enable --platform edit config.yaml in place; config set keeps a secret value out of the ledger", async () => {
    const file = path.join(home, "config.yaml");
    const before = await fs.readFile(file, "utf8");
    const refused = await run(["skills", "disable", "weather", "--platform", "discord"]);
    expect(refused.code).toBe(1);
    expect(await fs.readFile(file, "utf8")).toBe(before);
    const done = await run(["skills", "disable", "weather", "--platform", "discord", "-y"]);
    expect(done.code).toBe(0);
    expect(done.stdout).toContain("disabled on discord");
    const after = await fs.readFile(file, "utf8");
    expect(after).toBe(
      before.replace("    telegram: [arxiv]\n", "    telegram: [arxiv]\n    discord: [weather]\n"),
    );
    const listed = JSON.parse((await run(["skills", "list", "--platform", "discord", "--json"])).stdout);
    expect(listed.skills.map((skill: { name: string }) => skill.name)).not.toContain("weather");
    expect((await run(["skills", "enable", "weather", "--platform", "discord", "-y"])).code).toBe(0);
    expect(await fs.readFile(file, "utf8")).toBe(
      before.replace("    telegram: [arxiv]\n", "    telegram: [arxiv]\n    discord: []\n"),
    );

    await writeSkill(
      "notes",
      "metadata:\n  hermes:\n    config:\n      - key: notes.api_token\n        description: API token\n",
    );
    const set = await run(["skills", "config", "set", "notes.api_token", "tok-CLI-SECRET-1", "-y"]);
    expect(set.code).toBe(0);
    expect(set.stdout).not.toContain("tok-CLI-SECRET-1");
    expect(await fs.readFile(file, "utf8")).toContain("      api_token: tok-CLI-SECRET-1\n");
    const ledger = await fs.readFile(path.join(home, "skills", ".curator_ledger.jsonl"), "utf8");
    expect(ledger).toContain("skills-config-set");
    expect(ledger).not.toContain("tok-CLI-SECRET-1");
    await fs.writeFile(file, before);
  });

  it("exit 78 for a bad config value, naming the key (commands and serve)", async () => {
    const bad = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-cli-bad-"));
    try {
      await fs.writeFile(path.join(bad, "config.yaml"), "curator:\n  enabled: maybe\n");
      for (const args of [
        ["curator", "status"],
        ["serve", "--console"],
      ]) {
        const child = spawn(process.execPath, [cli, "--home", bad, ...args], {
          stdio: ["pipe", "pipe", "pipe"],
        });
        const result = await outputOf(child, { input: "" });
        expect(result.code).toBe(78);
        expect(result.stderr).toContain("curator.enabled");
        expect(result.stdout).toBe("");
      }
    } finally {
      await fs.rm(bad, { recursive: true, force: true });
    }
  });
});

describe("skillgate serve --console (terminal chat)", () => {
  it("answers piped commands and exits 0 when stdin ends", async () => {
    const result = await run(["serve", "--console"], {
      input: "/curator status\n/skills\n/whoami\n/nosuch\n",
    });
    expect(result.code).toBe(0);
    const status = result.stdout.indexOf("curator: ENABLED");
    const skills = result.stdout.indexOf("pdf-tools");
    expect(status).toBeGreaterThanOrEqual(0);
    expect(skills).toBeGreaterThan(status);
    expect(result.stdout).toContain("`console:local`: an admin");
    expect(result.stdout).toContain("Unknown command `/nosuch`");
  });

  it("shows the missing variable and the setup hint for a skill that needs a secret", async () => {
    const result = await run(["serve", "--console"], { input: "/weather check Paris\n" });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Skill loaded: weather");
    expect(result.stdout).toContain("`WEATHER_API_KEY`");
    // The terminal chat runs on the host: it says how to set the variable here, not "over messaging".
    expect(result.stdout).not.toContain("not supported over messaging");
    expect(result.stdout).toContain("Add `WEATHER_API_KEY=…` to ");
    expect(result.stdout).toContain("run `skillgate skills view weather` in another terminal");
    expect(result.stdout).toContain("Instruction: check Paris");
  });

  it("asks the chat to repeat a confirmed command with -y", async () => {
    const fresh = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-cli-adopt-"));
    try {
      await fs.mkdir(path.join(fresh, "skills", "one"), { recursive: true });
      await fs.writeFile(
        path.join(fresh, "skills", "one", "SKILL.md"),
        "---\nname: one\ndescription: d\n---\n",
      );
      const child = spawn(process.execPath, [cli, "--home", fresh, "serve", "--console"], {
        stdio: ["pipe", "pipe", "pipe"],
      });
      const { code, stdout } = await outputOf(child, { input: "/curator adopt --all-unmanaged\n" });
      expect(code).toBe(0);
      expect(stdout).toContain("Reply `/curator adopt --all-unmanaged -y` to confirm.");
    } finally {
      await fs.rm(fresh, { recursive: true, force: true });
    }
  });

  it("answers a question with a typed y (or n), also when the lines are piped", async () => {
    const fresh = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-cli-answer-"));
    try {
      for (const name of ["one", "two"]) {
        await fs.mkdir(path.join(fresh, "skills", name), { recursive: true });
        await fs.writeFile(
          path.join(fresh, "skills", name, "SKILL.md"),
          `---\nname: ${name}\ndescription: d\n---\n`,
        );
      }
      const child = spawn(process.execPath, [cli, "--home", fresh, "serve", "--console"], {
        stdio: ["pipe", "pipe", "pipe"],
      });
      const { code, stdout } = await outputOf(child, {
        input: "/curator archive one\nn\n/curator archive two\ny\n/curator list-archived\n",
      });
      expect(code).toBe(0);
      expect(stdout).toContain("Archive 'one'? It can be restored later with `/curator restore one`.");
      expect(stdout).toContain("Type y to confirm");
      expect(stdout).toContain("Cancelled; nothing was changed.");
      expect(stdout).toContain("curator: archived 'two' to .archive/two");
      expect(stdout).not.toContain("curator: archived 'one'");
      expect(stdout).not.toContain("I only understand commands");
      await fs.stat(path.join(fresh, "skills", "one", "SKILL.md"));
      await expect(fs.stat(path.join(fresh, "skills", "two"))).rejects.toMatchObject({ code: "ENOENT" });
    } finally {
      await fs.rm(fresh, { recursive: true, force: true });
    }
  });

  it("stops gracefully on SIGTERM while waiting for input", async () => {
    const child: ChildProcess = spawn(process.execPath, [cli, "--home", home, "serve", "--console"], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout?.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stdin?.write("/whoami\n");
    await new Promise<void>((resolve) => {
      const check = () => (stdout.includes("console:local") ? resolve() : setTimeout(check, 20));
      check();
    });
    child.kill("SIGTERM");
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
  });
});
