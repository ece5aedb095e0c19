/**
 * `npm run bench -- traditional`: what the Traditional Chinese catalogs cost, and that nobody else pays.
 *
 * - CLI: peak RSS (GNU time) and wall time of `skillgate help` under `LANG` en_US, zh_CN, zh_TW and
 *   zh_HK on an empty home; median of BENCH_REPS (default 3). English and Simplified never load the
 *   converter, so their rows are the build without it; the Traditional rows include deriving a catalog.
 * - In one process: the first zh-TW message (the converter loaded, the catalog derived), a second one,
 *   the first zh-HK message, and the heap and RSS 3 s later after a garbage collection (the converter is
 *   dropped once a catalog is derived; V8 gives its pages back over a few seconds).
 *
 * Every figure is printed with the load average when it was taken (the machine is shared) and the run is
 * written to `bench/results/traditional-<time>.json`. Run: `node --import tsx bench/traditional.ts` after
 * `npm run build`.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadavg, median, writeResults } from "./stats.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const CLI = path.join(ROOT, "dist", "src", "cli", "main.js");
const REPS = Number(process.env.BENCH_REPS ?? 3);

/** Peak RSS (MB) and wall time (s) of `skillgate help` under `lang`, by GNU time. */
function cliRun(home: string, lang: string): { rssMb: number; seconds: number } {
  const result = spawnSync("/usr/bin/time", ["-f", "%M %e", process.execPath, CLI, "--home", home, "help"], {
    env: { PATH: process.env.PATH, LANG: lang, NO_COLOR: "1", SKILLGATE_LOG_LEVEL: "silent" },
    encoding: "utf8",
  });
  const [rss = "", seconds = ""] = result.stderr.trim().split("\n").at(-1)?.split(" ") ?? [];
  return { rssMb: Number(rss) / 1024, seconds: Number(seconds) };
}

/** What one process measures: milliseconds of the first messages, MB of heap and RSS. */
interface InProcessFigures {
  firstTwMs: number;
  secondTwMs: number;
  firstHkMs: number;
  heapBeforeMb: number;
  heapAfterMb: number;
  rssBeforeMb: number;
  rssAfterMb: number;
}

/** The in-process figures, from a fresh process with `--expose-gc`. */
function inProcess(): InProcessFigures {
  const script = `
    const { resolveText, t } = await import(${JSON.stringify(path.join(ROOT, "dist/src/core/i18n/messages.js"))});
    const state = t("cmd.state.archived");
    const mb = (bytes) => Math.round(bytes / 1e5) / 10;
    const settle = async (ms) => { await new Promise((done) => setTimeout(done, ms)); global.gc(); };
    const timed = (locale) => { const at = performance.now(); resolveText(state, locale); return Math.round(performance.now() - at); };
    resolveText(state, "zh-CN");
    await settle(200);
    const before = process.memoryUsage();
    const firstTw = timed("zh-TW");
    const secondTw = timed("zh-TW");
    const firstHk = timed("zh-HK");
    await settle(3000);
    const after = process.memoryUsage();
    console.log(JSON.stringify({ firstTwMs: firstTw, secondTwMs: secondTw, firstHkMs: firstHk,
      heapBeforeMb: mb(before.heapUsed), heapAfterMb: mb(after.heapUsed),
      rssBeforeMb: mb(before.rss), rssAfterMb: mb(after.rss) }));`;
  const result = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], {
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout) as InProcessFigures;
}

const home = mkdtempSync(path.join(os.tmpdir(), "skillgate-bench-traditional-"));
try {
  const cli: Record<string, { rssMb: number; seconds: number; load: string }> = {};
  for (const lang of ["en_US.UTF-8", "zh_CN.UTF-8", "zh_TW.UTF-8", "zh_HK.UTF-8"]) {
    const runs = Array.from({ length: REPS }, () => cliRun(home, lang));
    cli[lang] = {
      rssMb: Math.round(median(runs.map((run) => run.rssMb))),
      seconds: median(runs.map((run) => run.seconds)),
      load: loadavg(),
    };
    const row = cli[lang];
    console.log(
      `skillgate help, LANG=${lang}: peak RSS ${row.rssMb} MB, ${row.seconds} s (load ${row.load})`,
    );
  }
  const oneProcess = { ...inProcess(), load: loadavg() };
  console.log(
    `in process: first zh-TW message ${oneProcess.firstTwMs} ms, next ${oneProcess.secondTwMs} ms, first zh-HK ${oneProcess.firstHkMs} ms; ` +
      `heap ${oneProcess.heapBeforeMb} → ${oneProcess.heapAfterMb} MB, RSS ${oneProcess.rssBeforeMb} → ${oneProcess.rssAfterMb} MB after GC (load ${oneProcess.load})`,
  );
  const file = writeResults("traditional", { reps: REPS, cli, inProcess: oneProcess });
  console.log(`written to ${file}`);
} finally {
  rmSync(home, { recursive: true, force: true });
}
