/**
 * Snapshot benchmark on the 10k-skill synthetic library: GNU `tar czf` of the same tree, skillgate's
 * snapshot time and peak RSS, and the whole-tree rollback time (the safety snapshot taken while the
 * archive is verified and extracted, then the swap), next to GNU `tar xzf` of the same archive for reference. skillgate's figures are measured in child processes so each peak RSS is its own.
 * Targets: snapshot ≤ 1.5× GNU tar, peak RSS ≤ 200 MB.
 * Run: `node --import tsx bench/snapshot.ts [skill-count]`.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseConfig } from "../src/config/config.js";
import { rollbackToSnapshot } from "../src/curator/rollback.js";
import { createSnapshot, listSnapshots } from "../src/curator/snapshot.js";
import { buildSyntheticLibrary } from "./synthetic.js";

interface ChildFigures {
  ms: number;
  maxRssMb: number;
  archiveBytes?: number;
}

/** Child mode: run one operation and print its figures as JSON. */
async function child(mode: string, home: string): Promise<void> {
  const config = parseConfig({});
  const started = performance.now();
  let archiveBytes: number | undefined;
  if (mode === "snapshot") {
    const snap = await createSnapshot({ home, config, reason: "bench" });
    archiveBytes = statSync(path.join(snap.dir, "skills.tar.gz")).size;
  } else {
    const newest = (await listSnapshots(home))[0];
    await rollbackToSnapshot({ home, config, id: newest?.id });
  }
  const figures: ChildFigures = {
    ms: performance.now() - started,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    archiveBytes,
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

function runChild(mode: string, home: string): ChildFigures {
  const self = fileURLToPath(import.meta.url);
  const result = spawnSync(process.execPath, ["--import", "tsx", self, "--child", mode, home], {
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`${mode} child failed: ${result.stderr}`);
  const line = result.stdout.trim().split("\n").pop() ?? "{}";
  return JSON.parse(line) as ChildFigures;
}

function gnuTar(skills: string, out: string): number {
  const started = performance.now();
  const result = spawnSync("tar", ["czf", out, "-C", skills, "."], { stdio: "inherit" });
  if (result.status !== 0) throw new Error("GNU tar failed");
  return performance.now() - started;
}

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? "10000");
  const base = mkdtempSync(path.join(os.tmpdir(), "skillgate-bench-snapshot-"));
  try {
    const home = path.join(base, "home");
    const buildStart = performance.now();
    const skills = buildSyntheticLibrary(home, count);
    console.log(`library: ${count} skills built in ${(performance.now() - buildStart).toFixed(0)} ms`);
    const tarOut = path.join(base, "gnu.tar.gz");
    // Warm the page cache once so both contenders read from memory.
    gnuTar(skills, tarOut);
    const gnuMs = gnuTar(skills, tarOut);
    console.log(
      `GNU tar czf:          ${gnuMs.toFixed(0)} ms  (${(statSync(tarOut).size / 1024).toFixed(0)} KB)`,
    );
    const unpackDir = path.join(base, "gnu-x");
    mkdirSync(unpackDir);
    const xStart = performance.now();
    spawnSync("tar", ["xzf", tarOut, "-C", unpackDir], { stdio: "inherit" });
    console.log(
      `GNU tar xzf:          ${(performance.now() - xStart).toFixed(0)} ms  (reference for the rollback's extraction)`,
    );
    rmSync(unpackDir, { recursive: true, force: true });
    rmSync(tarOut);
    const snap = runChild("snapshot", home);
    console.log(
      `skillgate snapshot:   ${snap.ms.toFixed(0)} ms  (${((snap.archiveBytes ?? 0) / 1024).toFixed(0)} KB), peak RSS ${snap.maxRssMb.toFixed(0)} MB`,
    );
    const rollback = runChild("rollback", home);
    console.log(
      `skillgate rollback:   ${rollback.ms.toFixed(0)} ms (incl. safety snapshot), peak RSS ${rollback.maxRssMb.toFixed(0)} MB`,
    );
    const ratio = snap.ms / gnuMs;
    const verdict = (ok: boolean) => (ok ? "ok" : "MISSED");
    console.log(`snapshot / GNU tar:   ${ratio.toFixed(2)}×  (target ≤ 1.5×: ${verdict(ratio <= 1.5)})`);
    console.log(
      `peak RSS:             ${Math.max(snap.maxRssMb, rollback.maxRssMb).toFixed(0)} MB (target ≤ 200 MB: ${verdict(Math.max(snap.maxRssMb, rollback.maxRssMb) <= 200)})`,
    );
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--child") await child(process.argv[3] ?? "", process.argv[4] ?? "");
else await main();
