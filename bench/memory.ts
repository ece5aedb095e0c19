/**
 * `npm run bench -- memory`: where memory goes at 10k skills, this build side by side with a base build.
 *
 * - CLI: peak RSS (GNU time) of `skills list --json` and `skills view <name> --json` on a 10k home
 *   (`bench/make-library.mjs`, seed 42), this build and the base alternately; median of BENCH_REPS.
 * - Gateway: `bench/gateway.ts` on a copy of the same home with each set of adapters (Telegram alone,
 *   + Feishu, + Discord, all three, against the loopback emulators), and all three on its default 40-skill
 *   home: idle RSS, RSS after the load run (now and its peak) and p99 at 300 commands/s. The differences
 *   between the rows are what each adapter and the 10k library cost.
 * - A coordinated pair on a `redis-server` this script starts on a free loopback port (Telegram, 10k): the
 *   leader's idle RSS and the standby's.
 *
 * The base is BENCH_BASE_CLI (a built `dist/src/cli/main.js`, e.g. a checkout of main); without it only
 * this build is measured. Every figure is printed with the load average when it was taken (the machine
 * is shared) and the whole run is written to `bench/results/memory-<time>.json`. Env: BENCH_REPS (default
 * 3 for the CLI, 1 for the gateway rows: BENCH_GATEWAY_REPS), BENCH_COMMANDS (the gateway's load run,
 * default 2000), BENCH_LIBS (where the 10k home is kept), BENCH_MEMORY_SKIP=cli,gateway,standby.
 * Run: `node --import tsx bench/memory.ts` after `npm run build`.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startRedis } from "../test/support/redis.js";
import { loadavg, median, writeResults } from "./stats.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const THIS_CLI = path.join(ROOT, "dist", "src", "cli", "main.js");
const BASE_CLI = process.env.BENCH_BASE_CLI;
const REPS = Number(process.env.BENCH_REPS ?? 3);
const GATEWAY_REPS = Number(process.env.BENCH_GATEWAY_REPS ?? 1);
const SKIP = new Set((process.env.BENCH_MEMORY_SKIP ?? "").split(",").filter(Boolean));
const libsDir = process.env.BENCH_LIBS ?? path.join(os.tmpdir(), "skillgate-bench-libs");

const builds: { label: string; cli: string }[] = [
  { label: "this", cli: THIS_CLI },
  ...(BASE_CLI ? [{ label: "base", cli: BASE_CLI }] : []),
];

/** The seed-42 10k home (built once per day, as the ratio bench does), with its scan index written. */
function home10k(): string {
  const today = `${new Date().toISOString().slice(0, 10)}T00:00:00Z`;
  const home = path.join(libsDir, "memory-10000");
  const stamp = `${home}.stamp`;
  if (!(existsSync(stamp) && readFileSync(stamp, "utf8") === today)) {
    mkdirSync(libsDir, { recursive: true });
    spawnSync("rm", ["-rf", home]);
    const made = spawnSync(process.execPath, [
      path.join(ROOT, "bench", "make-library.mjs"),
      home,
      "10000",
      "--seed",
      "42",
      "--now",
      today,
    ]);
    if (made.status !== 0) throw new Error(`make-library failed: ${made.stderr}`);
    writeFileSync(stamp, today);
    // Entries changed within ~2 s are never trusted by the scan index (RACY_MS in scan.ts).
    spawnSync("sleep", ["2.2"]);
  }
  for (const { cli } of builds)
    spawnSync(process.execPath, [cli, "--home", home, "skills", "list", "--json"]);
  return home;
}

/** Peak RSS (MB) of one CLI run, via GNU time. */
function peakRss(args: string[]): number {
  const result = spawnSync("/usr/bin/time", ["-f", "RSSKB=%M", process.execPath, ...args], {
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`${args.join(" ")} failed: ${result.stderr.slice(-2000)}`);
  return Number(/RSSKB=(\d+)/.exec(result.stderr)?.[1] ?? Number.NaN) / 1024;
}

interface Row {
  what: string;
  build: string;
  value: number;
  unit: "MB" | "ms";
  target?: number;
  load_average: string;
  runs?: number[];
}

const rows: Row[] = [];
function record(row: Row): void {
  rows.push(row);
  const target = row.target === undefined ? "" : `  (target ≤ ${row.target} ${row.unit})`;
  console.log(
    `  ${row.what.padEnd(48)} ${row.build.padEnd(5)} ${row.value.toFixed(1).padStart(7)} ${row.unit}${target}   load ${row.load_average}`,
  );
}

function measureCli(home: string): void {
  const list = JSON.parse(
    spawnSync(process.execPath, [THIS_CLI, "--home", home, "skills", "list", "--json"], {
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
    }).stdout,
  ) as { skills: { name: string }[] };
  const name = list.skills[Math.floor(list.skills.length / 2)]?.name ?? "";
  const commands: { what: string; args: string[]; target?: number }[] = [
    { what: "CLI skills list --json 10k, peak RSS", args: ["skills", "list", "--json"], target: 70 },
    { what: "CLI skills view 10k, peak RSS", args: ["skills", "view", name, "--json"], target: 70 },
    // A table with a date per row: the row that caught a date formatter built per call (770 MB).
    { what: "CLI skills usage 10k, peak RSS", args: ["skills", "usage"] },
  ];
  for (const { what, args, target } of commands) {
    const samples = new Map<string, number[]>(builds.map((build) => [build.label, []]));
    const load = loadavg();
    // Alternating builds, so both see the same machine.
    for (let rep = 0; rep < REPS; rep++)
      for (const build of builds)
        samples.get(build.label)?.push(peakRss([build.cli, "--home", home, ...args]));
    for (const build of builds) {
      const runs = samples.get(build.label) ?? [];
      record({
        what,
        build: build.label,
        value: median(runs),
        unit: "MB",
        target,
        load_average: load,
        runs,
      });
    }
  }
}

/** One `bench/gateway.ts` run: its JSON figures. */
function gatewayRun(cli: string, env: Record<string, string | undefined>): Record<string, unknown> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, BENCH_BUILD: "0", BENCH_JSON: "1", BENCH_CLI: cli };
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete childEnv[key];
    else childEnv[key] = value;
  }
  delete childEnv.NODE_OPTIONS;
  const result = spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, "bench", "gateway.ts")], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    env: childEnv,
  });
  const line = (result.stdout ?? "").split("\n").find((text) => text.startsWith("{"));
  if (!line) throw new Error(`bench/gateway.ts printed no figures:\n${result.stdout}\n${result.stderr}`);
  return JSON.parse(line) as Record<string, unknown>;
}

function measureGateway(home: string): void {
  const sets: { what: string; platforms: string; home: string | undefined; targets?: [number, number] }[] = [
    { what: "telegram, 10k", platforms: "telegram", home },
    { what: "telegram + feishu, 10k", platforms: "telegram,feishu", home },
    { what: "telegram + discord, 10k", platforms: "telegram,discord", home },
    { what: "three adapters, 10k", platforms: "telegram,feishu,discord", home, targets: [130, 170] },
    { what: "three adapters, 40 skills", platforms: "telegram,feishu,discord", home: undefined },
  ];
  for (const set of sets) {
    const runs = new Map<string, Record<string, unknown>[]>(builds.map((build) => [build.label, []]));
    const load = loadavg();
    for (let rep = 0; rep < GATEWAY_REPS; rep++)
      for (const build of builds)
        runs
          .get(build.label)
          ?.push(gatewayRun(build.cli, { BENCH_PLATFORMS: set.platforms, BENCH_HOME: set.home }));
    for (const build of builds) {
      const figures = runs.get(build.label) ?? [];
      const pick = (key: string) => figures.map((run) => run[key] as number);
      const [idleTarget, loadTarget] = set.targets ?? [];
      record({
        what: `gateway idle RSS, ${set.what}`,
        build: build.label,
        value: median(pick("idle_rss_mb")),
        unit: "MB",
        target: idleTarget,
        load_average: load,
        runs: pick("idle_rss_mb"),
      });
      record({
        what: `gateway RSS after load, ${set.what}`,
        build: build.label,
        value: median(pick("after_rss_mb")),
        unit: "MB",
        target: loadTarget,
        load_average: load,
        runs: pick("after_rss_mb"),
      });
      record({
        what: `gateway peak RSS, ${set.what}`,
        build: build.label,
        value: median(pick("load_rss_mb")),
        unit: "MB",
        load_average: load,
        runs: pick("load_rss_mb"),
      });
      record({
        what: `gateway p99 at 300/s, ${set.what}`,
        build: build.label,
        value: median(pick("p99_ms")),
        unit: "ms",
        target: set.targets ? 50 : undefined,
        load_average: `${load} (during the run: ${figures
          .map((run) => (run.load_average as number[])[0]?.toFixed(2))
          .join(" / ")})`,
        runs: pick("p99_ms"),
      });
    }
  }
}

async function measureStandby(home: string): Promise<void> {
  const redis = await startRedis();
  try {
    for (const build of builds) {
      const load = loadavg();
      const figures = gatewayRun(build.cli, {
        BENCH_PLATFORMS: "telegram",
        BENCH_HOME: home,
        BENCH_REDIS_URL: redis.url,
      });
      record({
        what: "coordinated leader idle RSS, telegram, 10k",
        build: build.label,
        value: figures.idle_rss_mb as number,
        unit: "MB",
        load_average: load,
      });
      record({
        what: "standby replica RSS, telegram, 10k",
        build: build.label,
        value: figures.standby_rss_mb as number,
        unit: "MB",
        target: 100,
        load_average: load,
      });
    }
  } finally {
    await redis.dispose();
  }
}

const started = loadavg();
console.log(
  `memory bench: ${builds.map((build) => `${build.label} = ${build.cli}`).join(", ")}; load average ${started} (${os.cpus().length} cores)`,
);
const home = home10k();
if (!SKIP.has("cli")) measureCli(home);
if (!SKIP.has("gateway")) measureGateway(home);
if (!SKIP.has("standby")) await measureStandby(home);
const file = writeResults("memory", {
  base: BASE_CLI ?? null,
  load_start: started,
  load_end: loadavg(),
  cores: os.cpus().length,
  rows,
});
console.log(`load average at the end: ${loadavg()}\nwritten ${file}`);
