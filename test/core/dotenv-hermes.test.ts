/**
 * `.env` as Hermes reads it: every value skillgate writes is read back byte for byte by python-dotenv
 * 1.x (the machine's python3) and by skillgate's own reader, every other key reads as before, and
 * skillgate's reader agrees with python-dotenv on hand-written files. Also: a symlinked `.env` is
 * refused, loader/runtime variables and the gateway's own credentials are never set for a skill, and
 * copies left by killed writes are private and removed.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` is the python-dotenv syntax under test
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { offeredKeys, secretButtons, setupTodo } from "../../commands/readiness-view.js";
import type { CommandContext } from "../../commands/types.js";
import { parseDotenv } from "../../src/config/dotenv.js";
import { dotenvValueText, planDotenvEdit } from "../../src/config/dotenv-write.js";
import { refusedSecretReason } from "../../src/config/secret-keys.js";
import { removeAbandonedWriteTemps } from "../../src/config/write-temps.js";
import { english } from "../../src/core/i18n/messages.js";
import type { AdapterCapabilities, InboundMessage } from "../../src/core/message.js";
import { HOST_TAG } from "../../src/core/temp-files.js";
import { SecretEntry } from "../../src/gateway/secrets-entry/service.js";
import { storeSecrets } from "../../src/skills/readiness.js";
import type { SkillLibrary, SkillViewResult } from "../../src/skills/types.js";
import { runCli } from "../support/cli-in-process.js";
import { readWithPythonDotenv } from "../support/python-readers.js";

const PYTHON_ENV = { PATH: process.env.PATH, VAR: "expanded", HOME: "/home/someone" };

let home: string;
let envFile: string;

beforeEach(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-dotenv-"));
  envFile = path.join(home, ".env");
});

afterEach(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

/** Both readers' view of the file: python-dotenv's and skillgate's (same environment). */
async function bothReaders(): Promise<{
  python: Record<string, string | null>;
  ours: Record<string, string>;
}> {
  const python = readWithPythonDotenv(envFile, PYTHON_ENV);
  const ours = Object.fromEntries(parseDotenv(await fs.readFile(envFile, "utf8"), PYTHON_ENV));
  return { python, ours };
}

describe("secrets written into .env read back exactly by python-dotenv", () => {
  it("a value starting with a quote keeps the key and every key after it (the bot token included)", async () => {
    await fs.writeFile(envFile, "ACME_API_KEY=\nOTHER=1\nTELEGRAM_BOT_TOKEN=123:abc\n");
    await storeSecrets(home, new Map([["ACME_API_KEY", '"sk-abc']]), { replace: true });
    const { python, ours } = await bothReaders();
    expect(python).toEqual({ ACME_API_KEY: '"sk-abc', OTHER: "1", TELEGRAM_BOT_TOKEN: "123:abc" });
    expect(ours).toEqual(python);
  });

  it.each([
    "sk-abc #1",
    "${VAR}",
    "pre${VAR:-fallback}post",
    "$${VAR}",
    "back\\slash\\",
    "'single'",
    " leading and trailing spaces ",
    'ends with a quote"',
    "#not-a-comment",
    "a\u2028b\u2029c\u0085d",
    "x\\'y\\\"z",
    "tab\tinside",
  ])("%j is read back byte for byte by both readers", async (value) => {
    await fs.writeFile(envFile, "BEFORE=1\n");
    await storeSecrets(home, new Map([["ACME_API_KEY", value]]), { replace: true });
    const { python, ours } = await bothReaders();
    expect(python.ACME_API_KEY).toBe(value);
    expect(ours.ACME_API_KEY).toBe(value);
    expect(python.BEFORE).toBe("1");
  });

  it("a key present twice gets the new value in every statement, so both readers see it", async () => {
    await fs.writeFile(envFile, "ACME_API_KEY=\nKEEP=yes\nexport ACME_API_KEY=old # stale\n");
    await storeSecrets(home, new Map([["ACME_API_KEY", "new-value"]]), { replace: true });
    const { python, ours } = await bothReaders();
    expect(python).toEqual({ ACME_API_KEY: "new-value", KEEP: "yes" });
    expect(ours).toEqual(python);
    expect(await fs.readFile(envFile, "utf8")).toBe(
      "ACME_API_KEY=new-value\nKEEP=yes\nexport ACME_API_KEY=new-value\n",
    );
  });

  it("the terminal's fill-in leaves a key alone when a later duplicate already has a value", async () => {
    await fs.writeFile(envFile, "ACME_API_KEY=\nACME_API_KEY=old\n");
    const stored = await storeSecrets(home, new Map([["ACME_API_KEY", "typed"]]));
    expect(stored).toEqual([]);
    expect(readWithPythonDotenv(envFile, PYTHON_ENV).ACME_API_KEY).toBe("old");
  });

  it("keeps CRLF line endings and an export prefix", async () => {
    await fs.writeFile(envFile, "export A=1\r\nB=2\r\n");
    await storeSecrets(home, new Map([["A", " x y"]]), { replace: true });
    await storeSecrets(home, new Map([["C", "3"]]), { replace: true });
    expect(await fs.readFile(envFile, "utf8")).toBe('export A=" x y"\r\nB=2\r\nC=3\r\n');
    expect(readWithPythonDotenv(envFile, PYTHON_ENV)).toEqual({ A: " x y", B: "2", C: "3" });
  });

  it("refuses instead of writing after a statement that would swallow the new line", () => {
    expect(() => planDotenvEdit('X="never closed\n', new Map([["ACME_API_KEY", 'has "quotes"']]))).toThrow(
      /cannot parse before `ACME_API_KEY`/,
    );
  });

  it("refuses values that cannot be one line", () => {
    expect(() => dotenvValueText("a\nb")).toThrow(/single line/);
    expect(() => dotenvValueText("a\0b")).toThrow(/single line/);
  });
});

describe("skillgate's .env reader agrees with python-dotenv", () => {
  const HAND_WRITTEN = [
    "# comment\nexport A=1\nB='two words'\nC=\"x=y\"\n  \nbad line\n=novalue\nD\n",
    'E="multi\nline" # tail\nF=plain # comment\nG=a#b\nH=  spaced  \n',
    "I='it\\'s'\nJ=\"esc \\\" \\n \\t \\\\ \\q\"\nK=${HOME}/x\nL=${NOPE:-dflt}\nM=${D}\n",
    "N=1\nN=2\n'quoted key'=v\nO=\"unterminated\nP=after\n",
    "\ufeffBOM=1\nQ=\u00a0nbsp\u00a0\nR=x\u2028#y\nS=x\u3000\n",
    'T="ends\\\\"\nU="ok"\r\nV=crlf\r\nW=\rX=cr\n',
    "Y='never closed\nZ=fine\nexport\nexport AA = spaced =\n",
  ];

  it.each(HAND_WRITTEN.map((text, index) => [index, text] as const))(
    "hand-written file #%i",
    async (_i, text) => {
      await fs.writeFile(envFile, text);
      const { python, ours } = await bothReaders();
      const pythonWithValues = Object.fromEntries(
        Object.entries(python).filter(([, value]) => value !== null),
      );
      expect(ours).toEqual(pythonWithValues);
    },
  );
});

/** Fragments python-dotenv and shells treat specially. */
const HOSTILE = fc.constantFrom(
  '"',
  "'",
  "#",
  " #",
  "$",
  "${",
  "}",
  "${VAR}",
  "${VAR:-d}",
  "\\",
  "\\'",
  '\\"',
  " ",
  "\t",
  "\u2028",
  "\u2029",
  "\u0085",
  "\u00a0",
  "\u3000",
  "=",
  "export ",
  "sk-",
  "é",
  "😀",
  ":",
);
const hostileValue = fc
  .oneof(
    fc
      .array(fc.oneof(HOSTILE, fc.string({ maxLength: 3 })), { minLength: 1, maxLength: 8 })
      .map((parts) => parts.join("")),
    fc.string({ unit: "binary", maxLength: 24 }),
  )
  .filter(
    (value) =>
      !/[\r\n\0]/.test(value) &&
      !/[\ud800-\udfff]/.test(value.replace(/[\ud800-\udbff][\udc00-\udfff]/g, "")),
  );

describe("property: hostile values through skillgate, read back with python-dotenv", () => {
  const PRESENT =
    '# hand-written\nexport OTHER=\'x y\'\nQUOTED="a\\"b"\nMULTI="line one\nline two"\nACME_API_KEY=old\nBROKEN line here\nTAIL=${VAR}-t\n';

  it("the value read equals the value entered, and every other key is unchanged", async () => {
    await fs.writeFile(envFile, PRESENT);
    const before = readWithPythonDotenv(envFile, PYTHON_ENV);
    await fc.assert(
      fc.asyncProperty(hostileValue, fc.constantFrom("ACME_API_KEY", "NEW_KEY"), async (value, key) => {
        await fs.writeFile(envFile, PRESENT);
        await storeSecrets(home, new Map([[key, value]]), { replace: true });
        const { python, ours } = await bothReaders();
        expect(python[key]).toBe(value);
        expect(ours[key]).toBe(value);
        for (const [other, was] of Object.entries(before)) if (other !== key) expect(python[other]).toBe(was);
        expect(Object.keys(python).sort()).toEqual([...new Set([...Object.keys(before), key])].sort());
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});

describe("where secrets are never written", () => {
  it("a symlinked .env is refused with a message naming its target, and nothing changes", async () => {
    const outside = path.join(home, "outside.env");
    await fs.writeFile(outside, "KEEP=1\n");
    await fs.symlink(outside, envFile);
    await expect(storeSecrets(home, new Map([["ACME_API_KEY", "v"]]), { replace: true })).rejects.toThrow(
      new RegExp(`symbolic link to ${outside.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
    );
    expect((await fs.lstat(envFile)).isSymbolicLink()).toBe(true);
    expect(await fs.readFile(outside, "utf8")).toBe("KEEP=1\n");
  });

  it.each([
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "NODE_OPTIONS",
    "PATH",
    "PYTHONPATH",
    "DYLD_INSERT_LIBRARIES",
    "BASH_ENV",
  ])("%s is refused as a loader/runtime variable", (name) => {
    expect(refusedSecretReason(name)).toMatch(/loader, a language runtime/);
  });

  it.each(["TELEGRAM_BOT_TOKEN", "DISCORD_BOT_TOKEN", "FEISHU_APP_SECRET", "FEISHU_APP_ID"])(
    "%s is refused as the gateway's own credential",
    (name) => {
      expect(refusedSecretReason(name)).toMatch(/gateway's own credentials/);
    },
  );

  it("a skill declaring them gets no Set button for them, the reason instead, and the form refuses them", async () => {
    const view: SkillViewResult = {
      success: true,
      name: "loader",
      missing_required_environment_variables: ["LD_PRELOAD", "ACME_API_KEY"],
    };
    const ctx = {
      secretInput: true,
      caller: { isAdmin: true },
      surface: "chat",
      paths: { env: envFile },
      commandPrefix: (words: string[]) => `/${words.join(" ")}`,
    } as unknown as CommandContext;
    const buttons = secretButtons(view, ctx);
    expect(buttons.map((button) => english(button.label))).toEqual(["Set ACME_API_KEY"]);
    expect(
      setupTodo(view, ctx, offeredKeys(buttons))
        .map((item) => english(item))
        .join("\n"),
    ).toMatch(/`LD_PRELOAD` is missing — `LD_PRELOAD` controls the loader/);
    const library = {
      view: async () => ({
        success: true,
        required_environment_variables: [{ name: "LD_PRELOAD", prompt: "p" }],
      }),
    } as unknown as SkillLibrary;
    const entry = new SecretEntry({ home, library });
    const press = {
      platform: "discord",
      sender: { id: "1" },
      chat: { id: "c" },
    } as unknown as InboundMessage;
    const opened = await entry.open(
      { privateInput: "modal" } as AdapterCapabilities,
      press,
      "loader",
      "LD_PRELOAD",
    );
    expect(opened).toEqual({ refused: expect.stringMatching(/loader, a language runtime/) });
  });

  it("an ordinary skill secret may be set", () => {
    expect(refusedSecretReason("ACME_API_KEY")).toBeNull();
    expect(refusedSecretReason("OPENWEATHER_TOKEN")).toBeNull();
  });
});

describe("copies left by killed writes", () => {
  /** A child that starts the write and is killed with SIGKILL just before the copy is renamed in place. */
  async function killMidWrite(kind: "env" | "config"): Promise<void> {
    const script = `
      import { promises } from "node:fs";
      promises.rename = () => { process.stdout.write("renaming\\n"); return new Promise(() => {}); };
      const home = ${JSON.stringify(home)};
      if (${JSON.stringify(kind)} === "env") {
        const { writeDotenv } = await import(${JSON.stringify(path.resolve("src/config/dotenv-write.ts"))});
        await writeDotenv(home, new Map([["ACME_API_KEY", "sk-secret-value"]]));
      } else {
        const { editConfigFile } = await import(${JSON.stringify(path.resolve("src/config/edit.ts"))});
        await editConfigFile(home, { kind: "set", path: ["model", "api_key"], value: "sk-secret-value" });
      }
    `;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk) => {
        if (String(chunk).includes("renaming")) resolve();
      });
      child.on("exit", (code) => reject(new Error(`child exited early (${code})`)));
    });
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("close", resolve));
  }

  async function temps(): Promise<string[]> {
    return (await fs.readdir(home)).filter((name) => name.endsWith(".tmp"));
  }

  it.each(["env", "config"] as const)(
    "a killed %s write leaves only a 0600 copy, removed at the next start",
    async (kind) => {
      await fs.writeFile(path.join(home, "config.yaml"), "model: {provider: x}\n", { mode: 0o644 });
      await fs.chmod(path.join(home, "config.yaml"), 0o644);
      await killMidWrite(kind);
      const left = await temps();
      expect(left).toHaveLength(1);
      const stat = await fs.stat(path.join(home, left[0] as string));
      expect(stat.mode & 0o077).toBe(0);
      // The next start (this process: a different pid, the writer is gone) removes it.
      const removed = await removeAbandonedWriteTemps(home, { atStart: true });
      expect(removed.map((file) => path.basename(file))).toEqual(left);
      expect(await temps()).toEqual([]);
    },
    60_000,
  );

  it("a young copy of a live writer stays; one of this process stays unless it is start-up; an old one goes", async () => {
    const sleeper = spawn("sleep", ["30"]);
    try {
      // Temp files carry their writer's pid and this host's tag (another host's: a pid that means nothing here).
      const live = path.join(home, `..env.${sleeper.pid}.${HOST_TAG}abcd.tmp`);
      const mine = path.join(home, `.config.yaml.${process.pid}.${HOST_TAG}abcd.tmp`);
      const otherHost = path.join(home, `..env.999999999.${HOST_TAG === "0123" ? "4567" : "0123"}abcd.tmp`);
      const unrelated = path.join(home, ".notes.1.tmp");
      for (const file of [live, mine, otherHost, unrelated]) await fs.writeFile(file, "x", { mode: 0o600 });
      expect(await removeAbandonedWriteTemps(home)).toEqual([]);
      expect(await removeAbandonedWriteTemps(home, { atStart: true })).toEqual([mine]);
      expect((await removeAbandonedWriteTemps(home, { now: Date.now() + 120_000 })).sort()).toEqual(
        [live, otherHost].sort(),
      );
      expect(await temps()).toEqual([".notes.1.tmp"]);
    } finally {
      sleeper.kill();
    }
  });

  it("doctor removes them and says so", async () => {
    await fs.writeFile(path.join(home, `..env.999999999.${HOST_TAG}abcd.tmp`), "A=1\n", { mode: 0o600 });
    await fs.mkdir(path.join(home, "skills"));
    const { runDoctor } = await import("../../src/cli/doctor.js");
    const checks = await runDoctor({ home, secret: () => undefined });
    expect(checks.map((check) => check.summary).join("\n")).toMatch(
      /Removed 1 leftover copy of \.env or config\.yaml/,
    );
    expect(await temps()).toEqual([]);
  });
});

describe("skillgate secrets set <KEY>", () => {
  async function writeSkill(name: string, frontmatter: string): Promise<void> {
    const dir = path.join(home, "skills", name);
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(
      path.join(dir, "SKILL.md"),
      `---\nname: ${name}\ndescription: ${name} helps\n${frontmatter}---\n\nBody.\n`,
    );
  }

  const cli = (args: string[], stdin: PassThrough & { isTTY?: boolean }, input?: string) =>
    runCli(home, args, { stdin, input });

  beforeEach(async () => {
    await writeSkill("acme", "required_environment_variables: [ACME_API_KEY, ACME_REGION]\n");
    await writeSkill("loader", "required_environment_variables: [LD_PRELOAD]\n");
  });

  it("reads the value from stdin, stores it with the chat's writer, and shows the skill's readiness", async () => {
    await fs.writeFile(envFile, "ACME_API_KEY=\nACME_API_KEY=old\n");
    const result = await cli(["secrets", "set", "ACME_API_KEY"], new PassThrough(), '"sk #1 ${VAR}\n');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("`ACME_API_KEY` set ✓");
    expect(result.stdout).toContain("acme: setup still needed — variable `ACME_REGION`.");
    expect(result.stdout + result.stderr).not.toContain("sk #1");
    expect(readWithPythonDotenv(envFile, PYTHON_ENV).ACME_API_KEY).toBe('"sk #1 ${VAR}');
    expect((await fs.stat(envFile)).mode & 0o777).toBe(0o600);
  });

  it("reads from a terminal without echo", async () => {
    const tty = Object.assign(new PassThrough(), { isTTY: true });
    const result = await cli(["secrets", "set", "ACME_REGION"], tty, "eu-west-1\n");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Value for ACME_REGION (hidden");
    expect(result.stdout).not.toContain("eu-west-1");
    expect(readWithPythonDotenv(envFile, PYTHON_ENV).ACME_REGION).toBe("eu-west-1");
  });

  it("refuses undeclared, loader and gateway keys, and a symlinked .env, with the reason", async () => {
    const undeclared = await cli(["secrets", "set", "NOBODY_NEEDS"], new PassThrough(), "x\n");
    expect(undeclared.code).toBe(1);
    expect(undeclared.stderr).toMatch(/No skill declares `NOBODY_NEEDS`/);
    const loader = await cli(["secrets", "set", "LD_PRELOAD"], new PassThrough(), "/tmp/x.so\n");
    expect(loader.code).toBe(1);
    expect(loader.stderr).toMatch(/loader, a language runtime/);
    const token = await cli(["secrets", "set", "TELEGRAM_BOT_TOKEN"], new PassThrough(), "1:x\n");
    expect(token.stderr).toMatch(/gateway's own credentials/);
    const outside = path.join(home, "elsewhere");
    await fs.writeFile(outside, "");
    await fs.symlink(outside, envFile);
    const linked = await cli(["secrets", "set", "ACME_REGION"], new PassThrough(), "x\n");
    expect(linked.code).toBe(1);
    expect(linked.stderr).toContain(`symbolic link to ${outside}`);
    expect(await fs.readFile(outside, "utf8")).toBe("");
  });
});
