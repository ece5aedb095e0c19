/**
 * `npm run bench -- --scale`: what coordination on Redis costs against one gateway alone. Runs the
 * gateway benchmark (`bench/gateway.ts`, Telegram, `/curator status` at 300 commands/s) alternately
 * without and with `gateway.coordination` on a Debian `redis-server` this script starts on a free
 * loopback port (the measured gateway leads, a second one waits as a standby), and prints p50/p99, Redis
 * commands per answered command (server side, renewals included), Redis round trips per event (the
 * leader's own count of its event path, target ≤ 6) and the RSS of each replica. BENCH_SCALE_PAIRS sets the number of
 * alternations (default 2); the other BENCH_* variables pass through.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { startRedis } from "../test/support/redis.js";

const PAIRS = Number(process.env.BENCH_SCALE_PAIRS ?? 2);
const here = import.meta.dirname;

interface Figures {
  p50_ms: number;
  p99_ms: number;
  idle_rss_mb: number;
  load_rss_mb: number;
  redis_per_command: number | null;
  redis_round_trips_per_event: number | null;
  standby_rss_mb: number | null;
}

function runGatewayBench(env: Record<string, string>): Figures {
  const result = spawnSync(process.execPath, ["--import", "tsx", path.join(here, "gateway.ts")], {
    env: { ...process.env, BENCH_JSON: "1", BENCH_PLATFORMS: "telegram", ...env },
    encoding: "utf8",
  });
  const line = result.stdout
    .split("\n")
    .reverse()
    .find((text) => text.startsWith("{"));
  if (result.status !== 0 || !line)
    throw new Error(`bench/gateway.ts failed:\n${result.stdout}\n${result.stderr}`);
  return JSON.parse(line) as Figures;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

const redis = await startRedis();
const alone: Figures[] = [];
const coordinated: Figures[] = [];
try {
  const build = spawnSync("npm", ["run", "--silent", "build"], {
    cwd: path.resolve(here, ".."),
    stdio: "inherit",
  });
  if (build.status !== 0) throw new Error("npm run build failed");
  for (let pair = 0; pair < PAIRS; pair++) {
    alone.push(runGatewayBench({ BENCH_BUILD: "0" }));
    coordinated.push(runGatewayBench({ BENCH_BUILD: "0", BENCH_REDIS_URL: redis.url }));
  }
} finally {
  await redis.dispose();
}
const row = (name: string, pick: (figures: Figures) => number | null, unit: string) => {
  const a = median(alone.map((figures) => pick(figures) ?? Number.NaN));
  const b = median(coordinated.map((figures) => pick(figures) ?? Number.NaN));
  console.log(
    `  ${name.padEnd(26)} ${Number.isNaN(a) ? "—".padStart(9) : `${a.toFixed(1)} ${unit}`.padStart(9)}   ${`${b.toFixed(1)} ${unit}`.padStart(9)}`,
  );
};
console.log(`scale bench: one gateway vs a leader with a standby on Redis (median of ${PAIRS} alternations)`);
console.log(`  ${"".padEnd(26)} ${"alone".padStart(9)}   ${"on Redis".padStart(9)}`);
row("/curator status p50", (figures) => figures.p50_ms, "ms");
row("/curator status p99", (figures) => figures.p99_ms, "ms");
row("Redis commands / command", (figures) => figures.redis_per_command, "");
row("Redis round trips / event", (figures) => figures.redis_round_trips_per_event, "");
row("leader RSS idle", (figures) => figures.idle_rss_mb, "MB");
row("leader RSS under load", (figures) => figures.load_rss_mb, "MB");
row("standby RSS", (figures) => figures.standby_rss_mb, "MB");
