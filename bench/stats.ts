/**
 * What the bench scripts share: the middle of a sample, the load it was taken under, and the results
 * file each run leaves in `bench/results/`.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");

/** The median of `values` (the upper one of an even count); NaN for none. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** The machine's 1, 5 and 15 minute load averages, as printed beside every figure. */
export function loadavg(): string {
  return os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");
}

/**
 * Writes `bench/results/<name>-<time>.json`: the run's time and commit, then `figures`. Returns the
 * file's path relative to the repository.
 */
export function writeResults(name: string, figures: Record<string, unknown>): string {
  const dir = path.join(ROOT, "bench", "results");
  mkdirSync(dir, { recursive: true });
  const at = new Date().toISOString();
  const file = path.join(dir, `${name}-${at.replace(/[:.]/g, "-")}.json`);
  const commit = spawnSync("git", ["rev-parse", "--short", "HEAD"], {
    cwd: ROOT,
    encoding: "utf8",
  }).stdout.trim();
  writeFileSync(file, `${JSON.stringify({ at, commit, ...figures }, null, 2)}\n`);
  return path.relative(ROOT, file);
}
