/**
 * Golden test over a snapshot the real Hermes wrote (test/fixtures/hermes/snapshot-by-hermes): skillgate
 * lists it, rolls back to it and ends with the tree Hermes' own rollback gives (the archive's
 * contents, with `.hub/` and `.curator_backups/` left in place); lock files and other bookkeeping
 * members are skipped by rule, never a reason to refuse. And the other direction: a skillgate snapshot
 * carries the ledger, while skillgate's own rollback keeps the live ledger and appends to it.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readEntries } from "../../src/curator/ledger.js";
import { rollbackToSnapshot } from "../../src/curator/rollback.js";
import { createSnapshot, listSnapshots } from "../../src/curator/snapshot.js";
import { skipsMember, verifyArchive } from "../../src/curator/tarball/read.js";
import { UsageStore } from "../../src/skills/usage.js";
import { buildTar, type RawMember } from "../safety/tarbuild.js";
import { configWith } from "./helpers.js";
import { extractArchive, extractHome, HERMES_FIXTURES, removeExtracted, treeOf } from "./hermes-golden.js";

const SNAPSHOT_ID = "2026-11-30T12-08-00Z";
/** Entries both programs leave in place on rollback, or that are lock/ledger bookkeeping. */
const LEFT_IN_PLACE = new Set([
  ".curator_backups",
  ".hub",
  ".locks",
  ".usage.json.lock",
  ".curator_ledger.jsonl",
]);

let home: string;
let expected: string;
beforeEach(async () => {
  home = await extractHome("home-before/home.tar.gz");
  const dir = path.join(home, "skills", ".curator_backups", SNAPSHOT_ID);
  await fs.mkdir(dir, { recursive: true });
  for (const file of ["manifest.json", "skills.tar.gz", "cron-jobs.json"])
    await fs.copyFile(path.join(HERMES_FIXTURES, "snapshot-by-hermes", file), path.join(dir, file));
  expected = await extractArchive(path.join(dir, "skills.tar.gz"));
});
afterEach(async () => {
  await removeExtracted(home);
  await fs.rm(expected, { recursive: true, force: true });
});

describe("rolling back a snapshot Hermes wrote", () => {
  it("lists it as a snapshot", async () => {
    const ids = (await listSnapshots(home)).map((snapshot) => snapshot.id);
    expect(ids).toContain(SNAPSHOT_ID);
  });

  it("ends with the tree Hermes' own rollback gives, keeping the live lock file and the hub", async () => {
    const skills = path.join(home, "skills");
    const lock = path.join(skills, ".usage.json.lock");
    const { ino: lockIno } = await fs.stat(lock);
    const hubBefore = await treeOf(path.join(skills, ".hub"));
    // Change the live library in every way a rollback must undo.
    await new UsageStore(skills).bump("docker-monitor-basics", "use");
    await fs.rm(path.join(skills, "automation", "python-tuning-setup"), { recursive: true });
    await fs.mkdir(path.join(skills, "newcat", "added-later"), { recursive: true });
    await fs.writeFile(
      path.join(skills, "newcat", "added-later", "SKILL.md"),
      "---\nname: added-later\n---\n",
    );
    await fs.rm(path.join(skills, ".archive"), { recursive: true });
    await fs.writeFile(path.join(skills, ".bundled_manifest"), "changed\n");
    const jobsFile = path.join(home, "cron", "jobs.json");
    const jobs = JSON.parse(await fs.readFile(jobsFile, "utf8"));
    const linked = jobs.jobs.find((job: { skills?: string[] }) => (job.skills ?? []).length > 0);
    const linkedSkills = linked.skills;
    linked.skills = [];
    linked.name = "renamed since the snapshot";
    await fs.writeFile(jobsFile, JSON.stringify(jobs));

    const result = await rollbackToSnapshot({ home, config: configWith(), id: SNAPSHOT_ID });
    expect(result.target).toBe(SNAPSHOT_ID);

    const want = await treeOf(expected, LEFT_IN_PLACE);
    const got = await treeOf(skills, LEFT_IN_PLACE);
    expect([...got.keys()]).toEqual([...want.keys()]);
    expect(got).toEqual(want);
    expect(got.get(".usage.json")).toMatch(/^file 600 /);
    expect(got.has(".archive/kubernetes-format/references/limits.md")).toBe(true);
    // Hermes' lock file is never deleted or replaced; the hub is left alone.
    expect((await fs.stat(lock)).ino).toBe(lockIno);
    expect(await treeOf(path.join(skills, ".hub"))).toEqual(hubBefore);
    // Cron links came back from cron-jobs.json for jobs that still exist; other fields stay as they are.
    const after = JSON.parse(await fs.readFile(jobsFile, "utf8"));
    const job = after.jobs.find((candidate: { id: string }) => candidate.id === linked.id);
    expect(job.skills).toEqual(linkedSkills);
    expect(job.name).toBe("renamed since the snapshot");
  });

  it("skips bookkeeping members by rule and still refuses unsafe ones", async () => {
    const unsafe: RawMember[][] = [
      [
        { path: ".usage.json.lock", type: "file", content: "" },
        { path: "../escape", type: "file", content: "x" },
      ],
      [{ path: ".locks/null", type: "chardev" }],
      [
        { path: ".locks/evil", type: "file", content: "" },
        { path: "/abs", type: "file", content: "" },
      ],
    ];
    for (const members of unsafe) {
      const archive = path.join(expected, "hostile.tar.gz");
      await fs.writeFile(archive, buildTar(members));
      await expect(verifyArchive(archive)).rejects.toMatchObject({ code: "curator.unsafe_archive" });
    }
    const fine = path.join(expected, "fine.tar.gz");
    await fs.writeFile(
      fine,
      buildTar([
        { path: ".usage.json.lock", type: "file", content: "" },
        { path: ".locks/ledger.lock", type: "file", content: "" },
        { path: "cat/one/SKILL.md", type: "file", content: "---\nname: one\n---\n" },
      ]),
    );
    expect(await verifyArchive(fine)).toMatchObject({
      topLevel: ["cat"],
      skipped: [".usage.json.lock", ".locks/ledger.lock"],
    });
    for (const member of [
      ".usage.json.lock",
      ".locks/ledger.lock",
      ".curator_ledger.jsonl",
      ".hub/lock.json",
    ])
      expect(skipsMember(member)).toBe(true);
    for (const member of [".usage.json", ".archive/x/SKILL.md", ".bundled_manifest", "cat/skill/SKILL.md"])
      expect(skipsMember(member)).toBe(false);
  });
});

describe("the history survives either program's rollback", () => {
  it("a skillgate snapshot carries the ledger; skillgate's rollback keeps the live one and appends", async () => {
    const skills = path.join(home, "skills");
    const ledger = path.join(skills, ".curator_ledger.jsonl");
    await fs.writeFile(ledger, '{"id":"aaaaaaaaaaaa","action":"edit"}\n');
    const taken = await createSnapshot({ home, config: configWith(), reason: "manual" });
    const contents = await extractArchive(path.join(taken.dir, "skills.tar.gz"));
    try {
      // What Hermes would put back when it rolls back to this snapshot: the ledger as it was.
      expect(await fs.readFile(path.join(contents, ".curator_ledger.jsonl"), "utf8")).toContain(
        "aaaaaaaaaaaa",
      );
      const manifest = JSON.parse(await fs.readFile(path.join(taken.dir, "manifest.json"), "utf8"));
      // Live skills only (Hermes' count): 19 live skill folders; the archived one is not counted.
      expect(manifest.skill_files).toBe(19);
    } finally {
      await fs.rm(contents, { recursive: true, force: true });
    }
    await fs.appendFile(ledger, '{"id":"bbbbbbbbbbbb","action":"edit"}\n');
    await rollbackToSnapshot({ home, config: configWith(), id: taken.id });
    const text = await fs.readFile(ledger, "utf8");
    expect(text).toContain("aaaaaaaaaaaa");
    expect(text).toContain("bbbbbbbbbbbb");
    const entries = await readEntries(home);
    expect(entries.at(-1)?.action).toBe("snapshot-rollback");
    expect(entries.at(-1)?.evidence).toMatchObject({ snapshot: taken.id });
  });
});
