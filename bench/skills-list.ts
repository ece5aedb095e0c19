/**
 * `skills list` speed on synthetic libraries of 1k and 10k skills. Prints, per size: the floor (reading
 * the first 4 KB of every SKILL.md, paths known in advance), Node start-up (`node -e 0`), `skills list
 * --json` in a fresh process, and a warm in-process list. Targets: fresh ≤ 2 × floor + start-up; warm ≤
 * 20 ms. Each figure is the best of several runs (the machine is shared), the warm one also a median.
 *
 * The fresh process is `node dist/src/cli.js --home DIR skills list --json` when the CLI is built; the
 * library-only process (`dist/src/skills/library.js` imported by `node -e`) is measured as well, so the
 * CLI's own start-up cost is visible. Run: `node --import tsx bench/skills-list.ts [sizes…]`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseConfig } from "../src/config/config.js";
import { openLibrary } from "../src/skills/library.js";
import { buildSyntheticLibrary } from "./synthetic.js";

const repo = path.resolve(import.meta.dirname, "..");
const cli = path.join(repo, "dist", "src", "cli.js");
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

function processTime(args: string[], expectCount?: number): number {
  return best(5, () => {
    const start = performance.now();
    const result = spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
    const elapsed = performance.now() - start;
    if (result.status !== 0) throw new Error(`${args.join(" ")} failed: ${result.stderr}`);
    if (expectCount !== undefined) {
      const count = (JSON.parse(result.stdout) as { count?: number }).count;
      if (count !== expectCount)
        throw new Error(`expected ${expectCount} skills, the process listed ${count}`);
    }
    return elapsed;
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

async function main(): Promise<void> {
  ensureBuilt();
  const startup = processTime(["-e", "0"]);
  const libraryScript = `const {openLibrary}=await import(${JSON.stringify(libraryJs)});const {parseConfig}=await import(${JSON.stringify(path.join(repo, "dist", "src", "config", "config.js"))});const r=await openLibrary(process.argv[1],parseConfig({}),{watch:false}).list();process.stdout.write(JSON.stringify(r));`;
  console.log(
    `Node start-up (node -e 0): ${ms(startup)}; CLI ${existsSync(cli) ? "found" : "not built"} at dist/src/cli.js`,
  );
  for (const count of sizes.length > 0 ? sizes : [1000, 10000]) {
    const home = mkdtempSync(path.join(os.tmpdir(), `skillgate-bench-${count}-`));
    try {
      buildSyntheticLibrary(home, count);
      const files = skillFiles(path.join(home, "skills"));
      const floorMs = floor(files);
      const libraryMs = processTime(["--input-type=module", "-e", libraryScript, home], count);
      let cliMs: number | undefined;
      let cliProblem = existsSync(cli) ? "" : "dist/src/cli.js is not built";
      if (existsSync(cli)) {
        try {
          cliMs = processTime([cli, "--home", home, "skills", "list", "--json"], count);
        } catch (error) {
          cliProblem = `the CLI run did not print the expected JSON (${(error as Error).message.split("\n")[0]?.slice(0, 120)})`;
        }
      }
      const inProcess = await warm(home, count);
      const target = 2 * floorMs + startup;
      console.log(`\n${count} skills (${files.length} SKILL.md files)`);
      console.log(`  floor (first 4 KB of every SKILL.md): ${ms(floorMs)}`);
      console.log(`  target for a fresh process (2 × floor + start-up): ${ms(target)}`);
      if (cliMs !== undefined)
        console.log(
          `  fresh process, skillgate skills list --json: ${ms(cliMs)} ${cliMs <= target ? "(meets target)" : "(over target)"}`,
        );
      else console.log(`  fresh process, skillgate skills list --json: not measured — ${cliProblem}`);
      console.log(
        `  fresh process, library only (node -e + list): ${ms(libraryMs)} ${libraryMs <= target ? "(meets target)" : "(over target)"}`,
      );
      console.log(`  in-process cold list: ${ms(inProcess.cold)}`);
      console.log(
        `  warm in-process list (+JSON): median ${ms(inProcess.median)}, max ${ms(inProcess.max)} ${inProcess.max <= 20 ? "(meets ≤ 20 ms)" : "(over 20 ms)"}`,
      );
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }
}

await main();
