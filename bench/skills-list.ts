/**
 * `skills list` speed on synthetic libraries of 1k and 10k skills. Prints, per size: the floor (reading
 * the first 4 KB of every SKILL.md, paths known in advance), Node start-up (`node -e 0`), `skills list
 * --json` in a fresh process, and a warm in-process list. Targets: fresh ≤ 2 × floor + start-up; warm ≤
 * 20 ms. Each figure is the best of several runs (the machine is shared), the warm one also a median.
 *
 * The fresh process is `node dist/src/cli/main.js --home DIR skills list --json`, measured with the scan index
 * in `<home>/.cache/skillgate` present (the normal case) and without it (the first run on a home); the
 * library-only process (`dist/src/skills/library.js` imported by `node -e`) is measured as well, so the
 * CLI's own start-up cost is visible. Process figures are best and median of several runs. Run:
 * `node --import tsx bench/skills-list.ts [sizes…]`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseConfig } from "../src/config/config.js";
import { indexPath } from "../src/skills/index-cache.js";
import { openLibrary } from "../src/skills/library.js";
import { buildSyntheticLibrary } from "./synthetic.js";

const repo = path.resolve(import.meta.dirname, "..");
const cli = path.join(repo, "dist", "src", "cli", "main.js");
const libraryJs = path.join(repo, "dist", "src", "skills", "library.js");
const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((value) => value > 0);

function best(runs: number, fn: () => number): number {
  let result = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) result = Math.min(result, fn());
  return result;
}

/** Best and median of `runs` samples. */
function bestMedian(runs: number, fn: () => number): { best: number; median: number } {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) samples.push(fn());
  samples.sort((a, b) => a - b);
  return { best: samples[0] as number, median: samples[Math.floor(samples.length / 2)] as number };
}

function timed(fn: () => void): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

function skillFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) skillFiles(full, out);
    else if (entry.name === "SKILL.md") out.push(full);
  }
  return out;
}

function floor(files: string[]): number {
  const buffer = Buffer.alloc(4096);
  return best(5, () =>
    timed(() => {
      for (const file of files) {
        const fd = openSync(file, "r");
        readSync(fd, buffer, 0, 4096, 0);
        closeSync(fd);
      }
    }),
  );
}

function runProcess(args: string[], expectCount?: number): number {
  const start = performance.now();
  const result = spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  const elapsed = performance.now() - start;
  if (result.status !== 0) throw new Error(`${args.join(" ")} failed: ${result.stderr}`);
  if (expectCount !== undefined) {
    const count = (JSON.parse(result.stdout) as { count?: number }).count;
    if (count !== expectCount) throw new Error(`expected ${expectCount} skills, the process listed ${count}`);
  }
  return elapsed;
}

function processTime(args: string[], expectCount?: number, runs = 7): { best: number; median: number } {
  return bestMedian(runs, () => runProcess(args, expectCount));
}

/** A fresh process with no scan index (the first run on a home): removes the index before each run. */
function coldProcessTime(
  home: string,
  args: string[],
  expectCount: number,
): { best: number; median: number } {
  return bestMedian(3, () => {
    rmSync(indexPath(home), { force: true });
    return runProcess(args, expectCount);
  });
}

async function warm(home: string, count: number): Promise<{ cold: number; median: number; max: number }> {
  const library = openLibrary(home, parseConfig({}));
  let start = performance.now();
  const first = await library.list();
  const cold = performance.now() - start;
  if (first.count !== count) throw new Error(`in-process list gave ${first.count}, expected ${count}`);
  // Let the watchers arm and the follow-up refresh run, as in a long-running gateway.
  await new Promise((resolve) => setTimeout(resolve, 400));
  await library.list();
  const samples: number[] = [];
  for (let i = 0; i < 30; i++) {
    start = performance.now();
    JSON.stringify(await library.list());
    samples.push(performance.now() - start);
  }
  library.close?.();
  samples.sort((a, b) => a - b);
  return {
    cold,
    median: samples[Math.floor(samples.length / 2)] as number,
    max: samples[samples.length - 1] as number,
  };
}

function ensureBuilt(): void {
  if (existsSync(libraryJs)) return;
  console.log("dist/src/skills/library.js is missing; building with tsc -p tsconfig.build.json …");
  execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: repo, stdio: "inherit" });
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const bm = (value: { best: number; median: number }) => `best ${ms(value.best)}, median ${ms(value.median)}`;
const verdict = (value: number, target: number) => (value <= target ? "(meets target)" : "(over target)");

async function main(): Promise<void> {
  ensureBuilt();
  const startup = processTime(["-e", "0"], undefined, 9);
  const libraryScript = `const {openLibrary}=await import(${JSON.stringify(libraryJs)});const {parseConfig}=await import(${JSON.stringify(path.join(repo, "dist", "src", "config", "config.js"))});const r=await openLibrary(process.argv[1],parseConfig({}),{watch:false}).list();process.stdout.write(JSON.stringify(r));`;
  console.log(`Node start-up (node -e 0): ${bm(startup)}`);
  if (!existsSync(cli)) console.log("dist/src/cli/main.js is not built: the CLI figures are skipped");
  for (const count of sizes.length > 0 ? sizes : [1000, 10000]) {
    const home = mkdtempSync(path.join(os.tmpdir(), `skillgate-bench-${count}-`));
    try {
      buildSyntheticLibrary(home, count);
      // Let the new files settle, so the scan index may trust their stamps (see RACY_MS in scan.ts).
      await new Promise((resolve) => setTimeout(resolve, 2100));
      const files = skillFiles(path.join(home, "skills"));
      const floorMs = floor(files);
      const target = 2 * floorMs + startup.best;
      console.log(`\n${count} skills (${files.length} SKILL.md files)`);
      console.log(`  floor (first 4 KB of every SKILL.md, best of 5): ${ms(floorMs)}`);
      console.log(`  target for a fresh process (2 × floor + best start-up): ${ms(target)}`);
      if (existsSync(cli)) {
        const args = [cli, "--home", home, "skills", "list", "--json"];
        const cold = coldProcessTime(home, args, count);
        runProcess(args, count); // writes the index
        const indexed = processTime(args, count);
        console.log(
          `  CLI skills list --json, fresh process, scan index present: ${bm(indexed)} ${verdict(indexed.best, target)}`,
        );
        console.log(`  CLI skills list --json, fresh process, no index (first run): ${bm(cold)}`);
      }
      const library = processTime(["--input-type=module", "-e", libraryScript, home], count);
      console.log(
        `  library only (node -e + list), index present: ${bm(library)} ${verdict(library.best, target)}`,
      );
      const inProcess = await warm(home, count);
      console.log(`  in-process first list (from the index): ${ms(inProcess.cold)}`);
      console.log(
        `  warm in-process list (+JSON): median ${ms(inProcess.median)}, max ${ms(inProcess.max)} ${inProcess.max <= 20 ? "(meets ≤ 20 ms)" : "(over 20 ms)"}`,
      );
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }
}

await main();
