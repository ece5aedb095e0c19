/**
 * Findings 4 and 9 as memory bounds (not timings): a 1 GB sparse SKILL.md listed, viewed and loaded in
 * chat, and a 100 MB webhook body with the right secret, each leave the process's peak RSS under 200 MB.
 * Each runs in its own child process so the figure is that work's alone.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { outputOf } from "../support/child-output.js";

const CHILD = path.join(import.meta.dirname, "rss-child.ts");

async function runChild(mode: string): Promise<Record<string, unknown>> {
  const proc = spawn(process.execPath, ["--import", "tsx", CHILD, mode], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const { code, stdout, stderr } = await outputOf(proc);
  if (code !== 0) throw new Error(`child ${mode} exited ${code}: ${stderr}`);
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
}

describe("memory bounds", () => {
  it("finding 4: a 1 GB sparse SKILL.md is refused with a clear error and RSS stays under 200 MB", async () => {
    const result = await runChild("skill");
    process.stdout.write(`1 GB SKILL.md: peak RSS ${result.maxRssMb} MB\n`);
    expect(result.listed).toBe(0);
    expect(String((result.skipped as string[])[0])).toMatch(/1024 MiB, over the 1 MiB limit/);
    expect(String(result.viewError)).toMatch(/over the 1 MiB limit/);
    expect(result.loadExit).toBe(1);
    expect(result.maxRssMb as number).toBeLessThan(200);
  }, 60_000);

  it("finding 9: a 100 MB webhook body with the right secret gets 413 and RSS stays under 200 MB", async () => {
    const result = await runChild("webhook");
    process.stdout.write(`100 MB webhook body: peak RSS ${result.maxRssMb} MB, answer ${result.status}\n`);
    expect([413, "EPIPE", "ECONNRESET"]).toContain(result.status);
    expect(result.maxRssMb as number).toBeLessThan(200);
  }, 60_000);
});
