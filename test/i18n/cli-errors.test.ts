/**
 * The command line's errors, warnings and recovery notes follow LANG, run as the built CLI
 * (`dist/src/cli/main.js`: `npm run build` first): a config.yaml error at load, config.yaml's warnings
 * (each printed once), usage errors (the registry's and commander's own), `serve` and `console` that
 * cannot start (Redis coordination among the causes) and the repairs recovery at start reports. Under
 * zh_CN no English sentence is left (the allow-list of `complete-support.ts`), under en_US the output is
 * the English skillgate always printed, byte for byte, and a `--json` document is the same bytes under
 * both.
 */
import { promises as fs } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { connectRedis } from "../../src/gateway/coordination/redis.js";
import { startRedis, type TestRedis } from "../support/redis.js";
import { CLI, type CliRun, expectChinese, runCli } from "./complete-support.js";

// Every test spawns the CLI a few times (with a full test run beside it on two cores).
vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });

const ENGLISH = "en_US.UTF-8";
const CHINESE = "zh_CN.UTF-8";

/** The same command under English and Chinese, side by side. */
async function both(args: string[], timeoutMs?: number): Promise<{ en: CliRun; zh: CliRun }> {
  const [en, zh] = await Promise.all([runCli(args, ENGLISH, timeoutMs), runCli(args, CHINESE, timeoutMs)]);
  return { en, zh };
}

/** The `--json` document of a refusal. */
function refusal(error: string, exitCode: number): string {
  return `${JSON.stringify({ ok: false, error, exit_code: exitCode }, null, 2)}\n`;
}

let base = "";

/** A home with an empty library and `config` as its config.yaml (none when undefined). */
async function makeHome(name: string, config?: string): Promise<string> {
  const home = path.join(base, name);
  await fs.mkdir(path.join(home, "skills"), { recursive: true });
  if (config !== undefined) await fs.writeFile(path.join(home, "config.yaml"), config);
  return home;
}

beforeAll(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-cli-errors-"));
  await fs.access(CLI).catch(() => {
    throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  });
});

afterAll(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

describe("config.yaml at load", () => {
  it("a wrong value: its error in the reader's language, exit 78; --json the same bytes", async () => {
    const home = await makeHome("config-error", "gateway:\n  maintenance:\n    check_minutes: abc\n");
    const message =
      'config.yaml: `gateway.maintenance.check_minutes` is "abc"; it must be a number ≥ 0.01. (config.yaml line 3, column 5)';
    const { en, zh } = await both(["--home", home, "skills", "list"]);
    expect(en).toEqual({ code: 78, stdout: "", stderr: `${message}\n` });
    expect(zh.code).toBe(78);
    expect(zh.stdout).toBe("");
    expectChinese(zh.stderr);
    expect(zh.stderr).toMatch(/^config\.yaml：`gateway\.maintenance\.check_minutes` 的值是 "abc"；/);
    const json = await both(["--home", home, "skills", "list", "--json"]);
    expect(json.en.stdout).toBe(refusal(message, 78));
    expect(json.zh.stdout).toBe(json.en.stdout);
    expect(json.en.stderr).toBe(`${message}\n`);
    expectChinese(json.zh.stderr);
  });

  it("its warnings: each once, in the reader's language; --json the same bytes", async () => {
    const home = await makeHome(
      "config-warnings",
      "skills:\n  disabled: [on]\ncurator:\n  stale_after_days: 0\n  auxiliary:\n    model: x\n",
    );
    const warnings = [
      'warning: config.yaml: `skills.disabled` has true, which Hermes\' YAML reader takes for a boolean, not a skill name, so it hides nothing; quote the name (e.g. "on").',
      "warning: config.yaml: `curator.auxiliary` is deprecated; move it to `auxiliary.curator` (same keys).",
      "warning: config.yaml: `curator.stale_after_days` is 0; using the default 30 (it must be a number ≥ 1).",
    ];
    const { en, zh } = await both(["--home", home, "skills", "list"]);
    expect(en).toEqual({
      code: 0,
      stdout: "No skills found in skills/ directory.\n",
      stderr: `${warnings.join("\n")}\n`,
    });
    expect(zh.code).toBe(0);
    const lines = zh.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(new Set(lines).size).toBe(3);
    for (const line of lines) expect(line).toMatch(/^警告：config\.yaml：/);
    expect(lines.filter((line) => line.includes("`skills.disabled`"))).toHaveLength(1);
    expectChinese(zh.stderr);
    const json = await both(["--home", home, "skills", "list", "--json"]);
    expect(json.zh.stdout).toBe(json.en.stdout);
    expect(JSON.parse(json.en.stdout)).toMatchObject({ success: true, skills: [] });
    expect(json.en.stderr).toBe(`${warnings.join("\n")}\n`);
    expect(json.zh.stderr.trimEnd().split("\n")).toEqual(lines);
  });
});

describe("usage errors on the command line", () => {
  /** Each command line, what English prints (today's words), and names its Chinese keeps. */
  const CASES: { args: string[]; english: string; names?: string[] }[] = [
    {
      args: ["skills", "lst"],
      english:
        "Unknown subcommand `skillgate skills lst`. Did you mean `skillgate skills list`? Available: list, view, usage, search, overlaps, disable, enable, config, install, update, uninstall, hub.\n",
    },
    { args: ["skills", "--bogus"], english: "Unknown option --bogus for `skillgate skills`.\n" },
    { args: ["curator", "pin"], english: "error: missing required argument 'skill'\n" },
    { args: ["skills", "list", "--bogus"], english: "error: unknown option '--bogus'\n" },
    { args: ["skills", "list", "--jsn"], english: "error: unknown option '--jsn'\n(Did you mean --json?)\n" },
    { args: ["bogus"], english: "error: unknown command 'bogus'\n" },
    {
      args: ["servee"],
      english: "error: unknown command 'servee'\n(Did you mean serve?)\n",
      names: ["serve"],
    },
    {
      args: ["curator", "pin", "a", "b", "c"],
      english: "error: too many arguments for 'pin'. Expected 1 argument but got 3.\n",
    },
    {
      args: ["doctor", "extra"],
      english: "error: too many arguments for 'doctor'. Expected 0 arguments but got 1.\n",
    },
    { args: ["console", "--port"], english: "error: option '--port <n>' argument missing\n" },
    {
      args: ["console", "--port", "abc"],
      english: "error: option '--port <n>' argument 'abc' is invalid. it must be a whole number.\n",
    },
    {
      args: ["skills", "usage", "--sort", "bogus"],
      english:
        "error: option '--sort <value>' argument 'bogus' is invalid. Allowed choices are activity, recent, name.\n",
      names: ["activity", "recent", "name"],
    },
  ];

  it("the registry's and commander's own: Chinese under zh_CN, today's English under en_US, exit 2", async () => {
    const home = await makeHome("usage");
    for (const { args, english, names } of CASES) {
      const label = args.join(" ");
      const { en, zh } = await both(["--home", home, ...args]);
      expect(en, label).toEqual({ code: 2, stdout: "", stderr: english });
      expect(zh.code, label).toBe(2);
      expect(zh.stdout, label).toBe("");
      expectChinese(zh.stderr, names);
    }
  });

  it("--json: the refusal's document is the same bytes under both languages", async () => {
    const home = await makeHome("usage-json");
    const jsonCases = CASES.filter((item) =>
      ["skills lst", "skills --bogus", "curator pin", "skills list --bogus", "console --port abc"].includes(
        item.args.join(" "),
      ),
    );
    expect(jsonCases).toHaveLength(5);
    for (const { args, english, names } of jsonCases) {
      const label = args.join(" ");
      const { en, zh } = await both(["--home", home, ...args, "--json"]);
      expect(en.code, label).toBe(2);
      expect(en.stdout, label).toBe(refusal(english.trim(), 2));
      expect(zh.stdout, label).toBe(en.stdout);
      expectChinese(zh.stderr, names);
    }
  });
});

/** A stand-in Redis that answers every command with OK and `INFO` with `redis_version:<version>`. */
async function oldRedis(version: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = net.createServer((socket) => {
    let pending = Buffer.alloc(0);
    socket.on("data", (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const parsed = parseCommand(pending);
        if (!parsed) return;
        pending = pending.subarray(parsed.used);
        const name = (parsed.args[0] ?? "").toUpperCase();
        if (name === "INFO") {
          const body = `# Server\r\nredis_version:${version}\r\n`;
          socket.write(`$${Buffer.byteLength(body)}\r\n${body}\r\n`);
        } else if (name === "PING") socket.write("+PONG\r\n");
        else socket.write("+OK\r\n");
      }
    });
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** One RESP command (`*N` then N bulk strings) at the start of `buffer`, or undefined when incomplete. */
function parseCommand(buffer: Buffer): { args: string[]; used: number } | undefined {
  const lineEnd = (from: number) => buffer.indexOf("\r\n", from);
  let at = lineEnd(0);
  if (at === -1) return undefined;
  const count = Number(buffer.subarray(1, at).toString());
  let offset = at + 2;
  const args: string[] = [];
  for (let index = 0; index < count; index++) {
    at = lineEnd(offset);
    if (at === -1) return undefined;
    const length = Number(buffer.subarray(offset + 1, at).toString());
    const start = at + 2;
    if (buffer.length < start + length + 2) return undefined;
    args.push(buffer.subarray(start, start + length).toString());
    offset = start + length + 2;
  }
  return { args, used: offset };
}

describe("serve and console that cannot start", () => {
  let redis: TestRedis;

  beforeAll(async () => {
    redis = await startRedis();
  }, 30_000);

  afterAll(async () => {
    await redis?.dispose();
  });

  it("Redis unreachable: the reason in the reader's language, exit 1", async () => {
    const url = "redis://127.0.0.1:1";
    const home = await makeHome("no-redis", `gateway:\n  coordination:\n    redis_url: ${url}\n`);
    const { en, zh } = await both(["--home", home, "serve"]);
    expect(en).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "skillgate serve could not start: gateway.coordination: Redis at redis://127.0.0.1:1 cannot be reached (connect ECONNREFUSED 127.0.0.1:1); start Redis there (Redis ≥ 7 or Valkey), correct gateway.coordination.redis_url, or remove gateway.coordination to run a single gateway without Redis.\n",
    });
    expect(zh.code).toBe(1);
    expect(zh.stderr).toMatch(/^skillgate serve 无法启动：gateway\.coordination：无法连接 /);
    expect(zh.stderr).toContain("连接被拒绝（ECONNREFUSED）");
    expectChinese(zh.stderr, [url]);
  });

  it("a Redis older than 7: refused in the reader's language", async () => {
    const fake = await oldRedis("6.2.0");
    try {
      const home = await makeHome("old-redis", `gateway:\n  coordination:\n    redis_url: ${fake.url}\n`);
      const { en, zh } = await both(["--home", home, "serve"]);
      expect(en).toEqual({
        code: 1,
        stdout: "",
        stderr: `skillgate serve could not start: gateway.coordination: Redis at ${fake.url} is version 6.2.0; skillgate needs Redis 7 or later (or Valkey). Upgrade it or point redis_url at a newer server.\n`,
      });
      expect(zh.code).toBe(1);
      expect(zh.stderr).toContain("版本是 6.2.0");
      expectChinese(zh.stderr, [fake.url]);
    } finally {
      await fake.close();
    }
  });

  it("a broken coordination id file in the home: what to do, in the reader's language", async () => {
    const home = await makeHome("home-id", `gateway:\n  coordination:\n    redis_url: ${redis.url}\n`);
    const file = path.join(home, "gateway", "coordination-id");
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, "not an id\n");
    const { en, zh } = await both(["--home", home, "serve"]);
    expect(en).toEqual({
      code: 1,
      stdout: "",
      stderr: `skillgate serve could not start: ${file} does not hold a coordination id; remove it and start the gateway again (a new one is made).\n`,
    });
    expect(zh.code).toBe(1);
    expectChinese(zh.stderr, [redis.url]);
    expect(zh.stderr).toContain(`${file} 中没有协调 id`);
  });

  it("a replica id a live gateway holds: refused with the fix, in the reader's language", async () => {
    const id = "0123456789abcdef";
    const home = await makeHome(
      "replica-id",
      `gateway:\n  coordination:\n    redis_url: ${redis.url}\n    replica_id: twin\n`,
    );
    await fs.mkdir(path.join(home, "gateway"), { recursive: true });
    await fs.writeFile(path.join(home, "gateway", "coordination-id"), `${id}\n`);
    // Another host's claim, without expiry: it never lapses while the test runs.
    const client = await connectRedis(redis.url);
    try {
      await client.set(`skillgate:${id}:replica:twin`, "another-host 1 0a1b2c3d");
    } finally {
      client.destroy();
    }
    // The claim is waited for through its TTL and one renewal (13 s) before the refusal.
    const { en, zh } = await both(["--home", home, "serve"], 90_000);
    expect(en).toEqual({
      code: 1,
      stdout: "",
      stderr: `skillgate serve could not start: another live gateway on this home already uses replica_id 'twin' (Redis ${redis.url}). Give each replica its own: \`skillgate serve --set gateway.coordination.replica_id=<name>\`, or leave it unset for host name and pid.\n`,
    });
    expect(zh.code).toBe(1);
    expect(zh.stderr).toContain("已在使用 replica_id 'twin'");
    expectChinese(zh.stderr, [redis.url, "replica_id"]);
  }, 120_000);

  it("console on a port already taken: the system error in the reader's words", async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as net.AddressInfo;
    try {
      const home = await makeHome("console-port");
      const { en, zh } = await both(["--home", home, "console", "--port", String(port)]);
      expect(en).toEqual({
        code: 1,
        stdout: "",
        stderr: `skillgate console could not start: listen EADDRINUSE: address already in use 127.0.0.1:${port}\n`,
      });
      expect(zh.code).toBe(1);
      expect(zh.stderr).toBe(`skillgate console 无法启动：127.0.0.1:${port}：地址已被占用（EADDRINUSE）\n`);
      expectChinese(zh.stderr);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

describe("recovery at start", () => {
  /** An old temp file of an interrupted write (its writer is gone whoever it was). */
  async function deadTemp(file: string): Promise<void> {
    await fs.writeFile(file, "x");
    const old = new Date(Date.now() - 2 * 3600_000);
    await fs.utimes(file, old, old);
  }

  /**
   * A home a crash left: a corrupt rollback journal, a move journal (one move gone elsewhere, one in
   * both places, one done but unrecorded), a dead write's temp file and a dead process's run lock.
   */
  async function crashedHome(name: string): Promise<string> {
    const home = await makeHome(name);
    const skills = path.join(home, "skills");
    const skill = async (dir: string, skillName: string) => {
      await fs.mkdir(path.join(skills, dir), { recursive: true });
      await fs.writeFile(
        path.join(skills, dir, "SKILL.md"),
        `---\nname: ${skillName}\ndescription: d\n---\n`,
      );
    };
    await skill(".archive/done", "done");
    await skill(".archive/twice", "twice");
    await skill("tools/twice", "twice");
    await fs.writeFile(path.join(skills, ".rollback-journal.json"), "{not json");
    const intent = (kind: string, skillName: string, from: string, to: string) => ({
      kind,
      skill: skillName,
      from,
      to,
      archivedAs: skillName,
      suppressed: false,
      at: "2026-01-01T00:00:00Z",
      entry: null,
    });
    const header = { journal: "skillgate-moves", version: 1, pid: 999999999, host: "x", started_at: "" };
    const intents = [
      intent("archive", "gone", "tools/gone", ".archive/gone"),
      intent("restore", "twice", ".archive/twice", "tools/twice"),
      intent("archive", "done", "tools/done", ".archive/done"),
    ];
    await fs.writeFile(
      path.join(skills, ".move-journal.jsonl"),
      `${JSON.stringify(header)}\n${JSON.stringify({ intents })}\n`,
    );
    await deadTemp(path.join(skills, ".usage.json.999999999.00000000.tmp"));
    await fs.mkdir(path.join(skills, ".locks"), { recursive: true });
    await fs.writeFile(
      path.join(skills, ".locks", "curator-run"),
      `999999999 ${os.hostname()} 0a1b2c3d4e5f\n`,
    );
    return home;
  }

  /** A home with `count` dead writes' temp files. */
  async function manyTemps(name: string, count: number): Promise<string> {
    const home = await makeHome(name);
    for (let index = 0; index < count; index++)
      await deadTemp(path.join(home, "skills", `.t${index}.json.999999999.00000000.tmp`));
    return home;
  }

  /** A home whose repairs fail: `skills/.locks` is a file, and a dead write's temp file asks for them. */
  async function unrepairable(name: string): Promise<string> {
    const home = await makeHome(name);
    await fs.writeFile(path.join(home, "skills", ".locks"), "");
    await deadTemp(path.join(home, ".env.999999999.00000000.tmp"));
    return home;
  }

  it("each repair in the reader's language; the English as it was", async () => {
    const [enHome, zhHome] = await Promise.all([crashedHome("crashed-en"), crashedHome("crashed-zh")]);
    const [en, zh] = await Promise.all([
      runCli(["--home", enHome, "skills", "list"], ENGLISH),
      runCli(["--home", zhHome, "skills", "list"], CHINESE),
    ]);
    const skills = path.join(enHome, "skills");
    expect(en.code).toBe(0);
    expect(en.stderr).toBe(
      [
        `curator: the rollback journal ${skills}/.rollback-journal.json is unreadable; it was left in place. Check skills/ by hand, then delete the journal.`,
        "recovery: 'gone' is neither at tools/gone nor at .archive/gone (moved since the interrupted archive); nothing to complete.",
        "recovery: the interrupted restore of 'twice' left both .archive/twice and tools/twice; both were kept as they are — compare them and remove the one you do not want.",
        "recovery: completed the interrupted archive of 'done' (tools/done → .archive/done): wrote its origin.",
        `recovery: removed ${skills}/.usage.json.999999999.00000000.tmp, left by a write that was interrupted.`,
        `recovery: the curator run lock left by process 999999999 on ${os.hostname()} (no longer running) was released.`,
        "",
      ].join("\n"),
    );
    expect(zh.code).toBe(0);
    const lines = zh.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(6);
    expect(lines[0]).toMatch(/^管理器：回滚进度文件 /);
    for (const line of lines.slice(1)) expect(line).toMatch(/^修复：/);
    expectChinese(zh.stderr, [os.hostname()]);
  });

  it("past 20 repairs, a count of the rest in the reader's language", async () => {
    const [enHome, zhHome] = await Promise.all([manyTemps("many-en", 25), manyTemps("many-zh", 25)]);
    const [en, zh] = await Promise.all([
      runCli(["--home", enHome, "skills", "list"], ENGLISH),
      runCli(["--home", zhHome, "skills", "list"], CHINESE),
    ]);
    const enLines = en.stderr.trimEnd().split("\n");
    expect(enLines).toHaveLength(21);
    for (const line of enLines.slice(0, 20))
      expect(line).toMatch(
        new RegExp(
          `^recovery: removed ${enHome}/skills/\\.t\\d+\\.json\\.999999999\\.00000000\\.tmp, left by a write that was interrupted\\.$`,
        ),
      );
    expect(enLines[20]).toBe("recovery: … and 5 more repair(s) of the same kinds.");
    const zhLines = zh.stderr.trimEnd().split("\n");
    expect(zhLines).toHaveLength(21);
    expect(zhLines[20]).toBe("修复：……另有 5 项同类修复。");
    expectChinese(zh.stderr);
  });

  it("repairs that fail: a warning in the reader's language; --json the same bytes", async () => {
    const home = await unrepairable("unrepairable");
    const { en, zh } = await both(["--home", home, "skills", "list"]);
    const locks = path.join(home, "skills", ".locks");
    expect(en).toEqual({
      code: 0,
      stdout: "No skills found in skills/ directory.\n",
      stderr: `warning: recovering interrupted work failed: EEXIST: file already exists, mkdir '${locks}'\n`,
    });
    expect(zh.stderr).toBe(`警告：修复被中断的工作时失败：${locks}：已存在（EEXIST）\n`);
    expectChinese(zh.stderr);
    const json = await both(["--home", home, "skills", "list", "--json"]);
    expect(json.zh.stdout).toBe(json.en.stdout);
    expect(json.en.stderr).toBe(en.stderr);
    expect(json.zh.stderr).toBe(zh.stderr);
  });
});

describe("init and the demo", () => {
  it("init says the home is ready, and what it installed, in the reader's language", async () => {
    const en = await runCli(["--home", path.join(base, "init-en"), "init"], ENGLISH);
    const zh = await runCli(["--home", path.join(base, "init-zh"), "init"], CHINESE);
    expect(en.stdout).toBe(
      `Home ready: ${path.join(base, "init-en")}.\n\nAdd skills under skills/<category>/<name>/SKILL.md, or run \`skillgate init --examples\` for the example skills.\n`,
    );
    expect(zh.stdout).toContain("主目录已就绪");
    expectChinese(zh.stdout);
    // One after the other on one home: the second run finds the examples there and leaves them alone.
    const target = path.join(base, "init-examples");
    const first = await runCli(["--home", target, "init", "--examples"], ENGLISH);
    expect(first.stdout).toMatch(/^Installed \d+ example skill\(s\) into /);
    expect(first.stdout).toContain("Next: `skillgate serve --terminal` to chat with them");
    const second = await runCli(["--home", target, "init", "--examples"], CHINESE);
    expect(second.stdout).toContain("保持原样（已存在）");
    const names = (await fs.readdir(path.join(target, "skills"), { recursive: true })).map(String);
    expectChinese(second.stdout, names);
  });

  it("the demo introduces itself in the reader's language", async () => {
    const zh = await runCli(["serve", "--demo"], CHINESE);
    expect(zh.code).toBe(0);
    expect(zh.stderr).toContain("演示：示例技能放在一个临时主目录");
    const en = await runCli(["serve", "--demo"], ENGLISH);
    expect(en.stderr).toContain("Demo: the example skills in a temporary home (");
    expect(en.stderr).toContain(
      "Try /help, /skills list, /skill paper-digest references/checklist.md or /curator status.",
    );
  });
});
