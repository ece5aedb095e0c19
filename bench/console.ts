/**
 * The web console's library page on synthetic libraries of 1k and 5k skills (every skill with a usage
 * record): a console in this process, an admin session, then the time of a cold first `/library`
 * (scan, usage, provenance, readiness and visibility of every skill), warm pages (rows cached until the
 * library changes), a search-and-filter page, and a page after a change on disk (rows rebuilt). Best and
 * median of several runs. Run: `node --import tsx bench/console.ts [sizes…]`.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { registry } from "../commands/index.js";
import { parseConfig } from "../src/config/config.js";
import { startConsoleServer } from "../src/gateway/console/server.js";
import { openLibrary } from "../src/skills/library.js";
import { buildSyntheticLibrary } from "./synthetic.js";

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((value) => value > 0);

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

async function bestMedian(runs: number, fn: () => Promise<number>): Promise<string> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) samples.push(await fn());
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)] as number;
  return `best ${(samples[0] as number).toFixed(1)} ms, median ${median.toFixed(1)} ms`;
}

for (const count of sizes.length > 0 ? sizes : [1000, 5000]) {
  const home = mkdtempSync(path.join(os.tmpdir(), "skillgate-bench-console-"));
  try {
    const skills = buildSyntheticLibrary(home, count);
    const config = parseConfig({});
    const now = new Date().toISOString();
    const usage: Record<string, unknown> = {};
    const names = (await openLibrary(home, config, { watch: false, persistIndex: false }).all()).map(
      (s) => s.name,
    );
    names.forEach((name, i) => {
      usage[name] = { use_count: i % 7, created_at: now, created_by: "agent", state: "active" };
    });
    writeFileSync(path.join(skills, ".usage.json"), JSON.stringify(usage));
    const server = await startConsoleServer({
      home,
      config,
      library: openLibrary(home, config),
      registry,
      port: 0,
      bind: "127.0.0.1",
    });
    const login = await fetch(server.loginUrl(), { redirect: "manual" });
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const get = (query: string) =>
      fetch(`${server.url}/library${query}`, { headers: { cookie } }).then((r) => r.text());
    const cold = await timed(() => get(""));
    const warm = await bestMedian(10, () => timed(() => get("?page=3")));
    const filtered = await bestMedian(10, () =>
      timed(() => get("?q=pdf&state=active&sort=activity&dir=desc")),
    );
    const changed = await bestMedian(3, async () => {
      writeFileSync(path.join(skills, ".usage.json"), JSON.stringify(usage));
      return timed(() => get(""));
    });
    console.log(
      `${count} skills: cold /library ${cold.toFixed(0)} ms; warm page ${warm}; search+filter+sort ${filtered}; after a change ${changed}`,
    );
    await server.close();
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
