/**
 * Skill search: relevance, latency and what the skill index costs the agent. For each library size
 * (default 100, 1k, 10k distractors from `make-library.mjs --seed 42`, plus the labelled skills of
 * `test/fixtures/search`) it prints:
 * - recall@3 and MRR of the labelled English and Chinese queries (target recall@3 ≥ 0.9);
 * - warm search latency p50/p99 in process (target p99 ≤ 20 ms at 10k), wall-clock and the CPU time the
 *   process spent (on a loaded machine the wall-clock tail is mostly time spent waiting for a core);
 * - the tokens the skill index costs per agent turn, before (every visible skill's name and description,
 *   as Hermes lists them) and after (what `agentSkillIndex` puts into the prompt at the default
 *   `agent_list_limit`), estimated as characters / 4 (target ≤ 2,000 at 10k);
 * - at the largest size, fresh-process `skills search --json` against `skills list --json` (best of 3,
 *   after one run that builds the indexes; target ≤ 1.5×).
 * Every figure line ends with the machine's 1-minute load average when it was taken (figures taken under
 * load are not comparable with figures taken on an idle machine).
 * Run: `npm run bench -- search` or `node --import tsx bench/search.ts [sizes…]`.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../src/config/config.js";
import { agentSkillIndex } from "../src/gateway/agent.js";
import { openLibrary } from "../src/skills/library.js";
import { searchIndexOf } from "../src/skills/search.js";
import { labelledQueries, measureRelevance, writeLabelledHome } from "../test/fixtures/search/labelled.js";

const repo = path.resolve(import.meta.dirname, "..");
const cli = path.join(repo, "dist", "src", "cli", "main.js");
const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((value) => value > 0);

const tokens = (text: string) => Math.ceil(text.length / 4);

/** The 1-minute load average and the cores, printed beside every figure. */
const load = () => `(load ${(os.loadavg()[0] ?? 0).toFixed(2)} on ${os.cpus().length} cores)`;

function percentile(samples: number[], share: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] as number;
}

function processMs(home: string, args: string[]): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, [cli, "--home", home, ...args], { stdio: "ignore" });
  if (result.status !== 0) throw new Error(`${args.join(" ")} exited with ${result.status}`);
  return performance.now() - started;
}

async function measure(size: number, fresh: boolean): Promise<void> {
  const home = mkdtempSync(path.join(os.tmpdir(), "skillgate-bench-search-"));
  try {
    writeLabelledHome(home, size);
    const config = loadConfig(path.join(home, "config.yaml"));
    const library = openLibrary(home, config);
    const index = searchIndexOf(library);
    let started = performance.now();
    await index.sync();
    const buildMs = performance.now() - started;
    const relevance = await measureRelevance((query) => index.search(query, { limit: 10 }));
    // Warm means the library's directory watchers are armed (until then it re-validates every 500 ms).
    await new Promise((resolve) => setTimeout(resolve, 3000));
    for (const { query } of labelledQueries) await index.search(query, { limit: 10 });
    const latencies: number[] = [];
    const cpuTimes: number[] = [];
    for (let round = 0; round < 5; round++)
      for (const { query } of labelledQueries) {
        const cpu = process.cpuUsage();
        started = performance.now();
        await index.search(query, { limit: 10 });
        latencies.push(performance.now() - started);
        const spent = process.cpuUsage(cpu);
        cpuTimes.push((spent.user + spent.system) / 1000);
      }
    const visible = await library.visible(null);
    const before = tokens(visible.map((entry) => `- ${entry.name}: ${entry.description}`).join("\n"));
    let after = 0;
    const sample = labelledQueries.slice(0, 20);
    for (const { query } of sample)
      after += tokens(
        (await agentSkillIndex(library, null, visible, query, config.skills.agentListLimit)).text,
      );
    after = Math.round(after / sample.length);
    console.log(
      `${String(visible.length).padStart(6)} skills  recall@3 ${relevance.recallAt3.toFixed(3)}  MRR ${relevance.mrr.toFixed(3)}  ` +
        `index build ${buildMs.toFixed(0)} ms  warm p50 ${percentile(latencies, 0.5).toFixed(2)} ms  p99 ${percentile(latencies, 0.99).toFixed(2)} ms  ` +
        `(CPU p50 ${percentile(cpuTimes, 0.5).toFixed(2)} ms  p99 ${percentile(cpuTimes, 0.99).toFixed(2)} ms)  ` +
        `index tokens/turn before ${before}  after ${after}  ${load()}`,
    );
    for (const miss of relevance.misses)
      console.log(`    miss: ${miss.query} → ${miss.got.join(", ")} (wanted ${miss.expected})`);
    library.close?.();
    if (fresh) {
      const query = ["skills", "search", "部署", "nginx", "--json"];
      processMs(home, query);
      processMs(home, ["skills", "list", "--json"]);
      let search = Number.POSITIVE_INFINITY;
      let list = Number.POSITIVE_INFINITY;
      for (let run = 0; run < 3; run++) {
        search = Math.min(search, processMs(home, query));
        list = Math.min(list, processMs(home, ["skills", "list", "--json"]));
      }
      console.log(
        `        fresh process: skills search ${search.toFixed(0)} ms, skills list ${list.toFixed(0)} ms (${(search / list).toFixed(2)}×)  ${load()}`,
      );
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

const chosen = sizes.length > 0 ? sizes : [100, 1000, 10_000];
for (const size of chosen) await measure(size, size === Math.max(...chosen));
