/**
 * Curator plan + apply on synthetic libraries (1k and 10k skills by default). Every skill is curator-
 * managed, with a spread of idle times so one run marks ~20 % stale, archives ~5 % and reactivates
 * ~5 %. Reports: the read phase (library scan, usage, provenance, cron), the pure `plan`, `applyPlan`
 * (ledger on, snapshot off — the snapshot has its own bench) and a whole `runCurator` on a fresh copy.
 * Run: `node --import tsx bench/curator-plan.ts [count…]`; `BENCH_LEDGER=off` measures without the ledger.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseConfig } from "../src/config/config.js";
import { isoTimestamp } from "../src/core/fsutil.js";
import { applyPlan } from "../src/curator/apply.js";
import { readCronRefs } from "../src/curator/cron.js";
import { plan } from "../src/curator/plan.js";
import { loadProvenance } from "../src/curator/provenance.js";
import { runCurator } from "../src/curator/run.js";
import { everySkillOnDisk, openLibrary } from "../src/skills/library.js";
import { UsageStore } from "../src/skills/usage.js";
import { emptyRecord, type UsageMap } from "../src/skills/usage-record.js";
import { buildSyntheticLibrary } from "./synthetic.js";

const DAY = 86_400_000;
const NOW = new Date("2026-06-01T12:00:00Z");
const config = parseConfig({
  curator: { backup: { enabled: false } },
  skills: { ledger: process.env.BENCH_LEDGER !== "off" },
});

/** Usage for every skill: mostly fresh, 20 % idle 30–89 d, 5 % idle 90+ d, 5 % stale but used lately. */
async function writeUsage(home: string): Promise<void> {
  const library = openLibrary(home, config, { watch: false });
  const usage: UsageMap = {};
  for (const [index, entry] of (await library.all()).entries()) {
    const record = emptyRecord(isoTimestamp(new Date(NOW.getTime() - 400 * DAY)));
    record.created_by = "agent";
    record.use_count = 1 + (index % 7);
    const bucket = index % 20;
    const idle = bucket < 4 ? 30 + (index % 60) : bucket === 4 ? 90 + (index % 200) : index % 25;
    if (bucket === 5) record.state = "stale";
    record.last_used_at = isoTimestamp(new Date(NOW.getTime() - idle * DAY));
    usage[entry.name] = record;
  }
  writeFileSync(path.join(home, "skills", ".usage.json"), JSON.stringify(usage, null, 2));
}

async function timed<T>(fn: () => Promise<T> | T): Promise<[T, number]> {
  const started = performance.now();
  const value = await fn();
  return [value, performance.now() - started];
}

async function prepare(count: number): Promise<string> {
  const home = mkdtempSync(path.join(os.tmpdir(), `skillgate-bench-curator-${count}-`));
  buildSyntheticLibrary(home, count);
  await writeUsage(home);
  return home;
}

async function measure(count: number): Promise<void> {
  const home = await prepare(count);
  const second = await prepare(count);
  try {
    const library = openLibrary(home, config, { watch: false });
    const [input, readMs] = await timed(async () => {
      const skills = await everySkillOnDisk(library);
      const usage = await new UsageStore(path.join(home, "skills")).read();
      const provenance = await loadProvenance(home, skills);
      const cron = await readCronRefs(home);
      return { skills, usage, provenance, cronRefs: cron.names, now: NOW, config };
    });
    const [curatorPlan, planMs] = await timed(() => plan(input));
    const [outcome, applyMs] = await timed(() =>
      applyPlan(curatorPlan, {
        home,
        config,
        library,
        actor: "curator",
        dryRun: false,
        provenance: input.provenance,
      }),
    );
    const [result, runMs] = await timed(() =>
      runCurator({
        home: second,
        config,
        library: openLibrary(second, config, { watch: false }),
        trigger: "manual",
        now: NOW,
      }),
    );
    const c = outcome.counts;
    console.log(
      `${String(count).padStart(6)} skills | read ${readMs.toFixed(0)} ms | plan ${planMs.toFixed(1)} ms | apply ${applyMs.toFixed(0)} ms ` +
        `(stale ${c.marked_stale}, archived ${c.archived}, reactivated ${c.reactivated}, failures ${outcome.failures.length}) | ` +
        `whole run ${runMs.toFixed(0)} ms (archived ${result.autoTransitions.archived})`,
    );
  } finally {
    rmSync(home, { recursive: true, force: true });
    rmSync(second, { recursive: true, force: true });
  }
}

const counts = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
for (const count of counts.length > 0 ? counts : [1000, 10_000]) await measure(count);
