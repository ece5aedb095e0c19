/**
 * `curator ledger --skill <name>` lists the skill's SKILL.md versions beside its entries, read back from
 * the audit log's blobs: newest first, with the `version` field each change left, in both languages, and
 * in `--json`. Without `--skill` (or for a skill whose text never changed) nothing is added.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listEntries } from "../../src/curator/ledger.js";
import { runCli } from "../support/cli-in-process.js";
import { foregroundPatcher } from "./helpers.js";

const base = { NO_COLOR: "1", SKILLGATE_LOG_LEVEL: "silent", PATH: process.env.PATH, TZ: "UTC" };
const ENGLISH = { ...base, LANG: "en_US.UTF-8" };
const CHINESE = { ...base, LANG: "zh_CN.UTF-8" };

let home = "";
let ids: string[] = [];

beforeAll(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-ledger-versions-"));
  for (const [name, version] of [
    ["cloud-deploy", "1.0.0"],
    ["pdf-tools", "2.0.0"],
  ] as const) {
    const dir = path.join(home, "skills", "devops", name);
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(
      path.join(dir, "SKILL.md"),
      `---\nname: ${name}\ndescription: ${name} things\nversion: ${version}\n---\n\nBack up first.\n`,
    );
  }
  await fs.writeFile(path.join(home, "config.yaml"), "skills:\n  ledger: true\n");
  const patch = foregroundPatcher(home, "cloud-deploy");
  expect(await patch("version: 1.0.0", "version: 1.1.0")).toMatchObject({ success: true });
  // A change of the text that leaves the version field as it was.
  expect(await patch("Back up first.", "Back up first, always.")).toMatchObject({ success: true });
  ids = (await listEntries(home, { skill: "cloud-deploy" })).map((entry) => entry.id);
  expect(ids).toHaveLength(2);
}, 60_000);

afterAll(async () => {
  if (home) await fs.rm(home, { recursive: true, force: true });
});

/** The lines of the versions section (from its heading to the footer). */
function versionLines(stdout: string, heading: string): string[] {
  const start = stdout.indexOf(heading);
  expect(start).toBeGreaterThanOrEqual(0);
  return stdout
    .slice(start)
    .split("\n")
    .filter((line) => ids.some((id) => line.includes(id)));
}

describe("curator ledger --skill", () => {
  it("lists the skill's versions newest first, each with the version field it left", async () => {
    const run = await runCli(home, ["curator", "ledger", "--skill", "cloud-deploy"], { env: ENGLISH });
    expect(run.code).toBe(0);
    const rows = versionLines(run.stdout, "Versions of cloud-deploy");
    expect(rows).toHaveLength(2);
    // Newest first: the text change kept 1.1.0; the one before moved it from 1.0.0 to 1.1.0.
    expect(rows[0]).toContain(ids[0] as string);
    expect(rows[0]).toMatch(/1\.1\.0/);
    expect(rows[1]).toContain(ids[1] as string);
    expect(rows[1]).toMatch(/1\.1\.0/);
    expect(rows.join("\n")).toMatch(/agent/);
  });

  it("says the same in Chinese", async () => {
    const run = await runCli(home, ["curator", "ledger", "--skill", "cloud-deploy"], { env: CHINESE });
    expect(run.code).toBe(0);
    expect(versionLines(run.stdout, "cloud-deploy 的版本")).toHaveLength(2);
    expect(run.stdout).not.toContain("Versions of");
  });

  it("gives the versions in --json, and nothing more without --skill or without a changed text", async () => {
    const json = JSON.parse(
      (await runCli(home, ["curator", "ledger", "--skill", "cloud-deploy", "--json"], { env: ENGLISH }))
        .stdout,
    );
    expect(json.versions.map((version: { entryId: string }) => version.entryId)).toEqual([...ids].reverse());
    expect(json.versions[0]).toMatchObject({ previousVersion: "1.0.0", version: "1.1.0", actor: "agent" });
    expect(json.versions[1]).toMatchObject({ previousVersion: "1.1.0", version: "1.1.0" });
    const all = JSON.parse((await runCli(home, ["curator", "ledger", "--json"], { env: ENGLISH })).stdout);
    expect(all.versions).toBeUndefined();
    expect(all.entries).toHaveLength(2);
    const plain = await runCli(home, ["curator", "ledger"], { env: ENGLISH });
    expect(plain.stdout).not.toContain("Versions of");
    const untouched = await runCli(home, ["curator", "ledger", "--skill", "pdf-tools"], { env: ENGLISH });
    expect(untouched.stdout).not.toContain("Versions of");
  });
});
