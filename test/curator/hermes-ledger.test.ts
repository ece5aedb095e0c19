/**
 * Golden test over a ledger the real Hermes wrote (test/fixtures/hermes/ledger-by-hermes): an edit, a
 * delete and an archive, with their blobs under `<home>/.curator_backups/blobs`. skillgate reads every
 * entry, rolls each back to its before state, and appends its own entries in the same line format.
 * The entries hold absolute paths of the home Hermes ran on; the test rewrites that prefix to the
 * temp home, as the fixture README allows.
 */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listEntries, readEntries } from "../../src/curator/ledger.js";
import { rollbackEntry } from "../../src/curator/rollback-entry.js";
import { configWith } from "./helpers.js";
import { extractHome, HERMES_FIXTURES, removeExtracted } from "./hermes-golden.js";

const HERMES_HOME = "/tmp/hermes-fixture/ledger/home";
let home: string;
let skills: string;
beforeEach(async () => {
  home = await extractHome("ledger-by-hermes/home-after.tar.gz");
  skills = path.join(home, "skills");
  const ledger = path.join(skills, ".curator_ledger.jsonl");
  await fs.writeFile(ledger, (await fs.readFile(ledger, "utf8")).replaceAll(HERMES_HOME, home));
});
afterEach(async () => {
  await removeExtracted(home);
});

const sha = async (file: string) =>
  createHash("sha256")
    .update(await fs.readFile(file))
    .digest("hex");

describe("a ledger Hermes wrote", () => {
  it("reads every entry, newest first, with Hermes' ids, actors, actions, skills and evidence", async () => {
    const lines = (
      await fs.readFile(path.join(HERMES_FIXTURES, "ledger-by-hermes", "ledger-by-hermes.jsonl"), "utf8")
    )
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const entries = await listEntries(home);
    expect(
      entries.map((entry) => [entry.id, entry.actor, entry.action, entry.skill, entry.evidence]),
    ).toEqual(lines.reverse().map((line) => [line.id, line.actor, line.action, line.skill, line.evidence]));
  });

  it("rolls each entry back to its before state and appends entries Hermes can read", async () => {
    const [edit, del, archive] = await readEntries(home);
    expect([edit?.action, del?.action, archive?.action]).toEqual(["edit", "delete", "archive"]);
    const config = configWith();

    await rollbackEntry({ home, config, entryId: edit?.id ?? "" });
    const editDir = path.join(skills, "observability", "discord-sync-helper");
    expect(await sha(path.join(editDir, "SKILL.md"))).toBe(
      (edit?.before[0] as { sha256: string } | undefined)?.sha256,
    );
    await expect(fs.stat(path.join(editDir, "references", "hermes-added.md"))).rejects.toMatchObject({
      code: "ENOENT",
    });

    await rollbackEntry({ home, config, entryId: del?.id ?? "" });
    const deleted = path.join(skills, "security", "openapi-rendering");
    for (const file of del?.before ?? [])
      expect(await sha(file.path)).toBe((file as { sha256: string }).sha256);
    await fs.stat(path.join(deleted, "scripts", "setup.sh"));

    await rollbackEntry({ home, config, entryId: archive?.id ?? "" });
    const restored = path.join(skills, "backend-apis", "pdf-signing-checklist");
    for (const rel of ["SKILL.md", "scripts/run.sh", "scripts/setup.sh"])
      await fs.stat(path.join(restored, rel));
    await expect(
      fs.stat(path.join(skills, ".archive", "pdf-signing-checklist", "SKILL.md")),
    ).rejects.toMatchObject({ code: "ENOENT" });

    // skillgate's own lines: one JSON object per line, Hermes' keys, blobs in the same store.
    const raw = (await fs.readFile(path.join(skills, ".curator_ledger.jsonl"), "utf8")).trim().split("\n");
    expect(raw.length).toBeGreaterThan(3);
    for (const line of raw.slice(3)) {
      const entry = JSON.parse(line);
      expect(entry.id).toMatch(/^[0-9a-f]{12}$/);
      expect(entry.ts).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/);
      for (const key of ["actor", "action", "skill", "evidence", "before", "after"])
        expect(entry).toHaveProperty(key);
      for (const file of [...entry.before, ...entry.after]) {
        if (!("sha256" in file)) continue;
        await fs.stat(path.join(home, ".curator_backups", "blobs", file.sha256));
      }
    }
  });
});
