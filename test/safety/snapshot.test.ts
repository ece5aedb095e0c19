/** Snapshots and whole-tree rollback: reference scenarios 36–40, symlinked skills, failure paths. */
import { promises as fs } from "node:fs";
import path from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { t as tarList } from "tar";
import { describe, expect, it } from "vitest";
import type { ProgressEvent } from "../../src/core/progress.js";
import { readJournal } from "../../src/curator/journal.js";
import { recoverInterruptedRollback, rollbackToSnapshot } from "../../src/curator/rollback.js";
import {
  createSnapshot,
  listSnapshots,
  resolveSnapshot,
  SNAPSHOT_ID_PATTERN,
} from "../../src/curator/snapshot.js";
import {
  configWith,
  exists,
  freshHomeEachTest,
  listTree,
  treeHash,
  writeFiles,
  writeSkill,
} from "./helpers.js";

let home: string;
freshHomeEachTest((made) => {
  home = made;
});

async function members(archive: string): Promise<string[]> {
  const out: string[] = [];
  await tarList({ file: archive, onReadEntry: (entry) => out.push(String(entry.path)) });
  return out;
}

/** A manual snapshot of the library as it is, taken at 2026-01-01T00:00:00Z. */
function manualSnapshot(config = configWith()) {
  return createSnapshot({ home, config, reason: "manual", now: new Date("2026-01-01T00:00:00Z") });
}

/** A manual snapshot, at a fixed time, of a library holding the one skill `alpha`. */
async function snapshotOfAlpha() {
  await writeSkill(home, "alpha");
  return manualSnapshot();
}

describe("createSnapshot (scenario 36)", () => {
  it("writes the archive and a manifest with reason, skill_files and bytes, excluding backups and the hub", async () => {
    await writeSkill(home, "alpha", { "scripts/run.sh": "echo hi\n" });
    await writeSkill(home, "tools/beta");
    await writeFiles(path.join(home, "skills"), {
      ".usage.json": "{}",
      ".hub/lock.json": "{}",
      ".locks/ledger.lock": "1 x",
      ".archive/old/SKILL.md": "---\nname: old\n---\n",
    });
    const now = new Date("2026-05-01T13:05:42.100Z");
    const snap = await createSnapshot({ home, config: configWith(), reason: "manual", now });
    expect(snap.id).toBe("2026-05-01T13-05-42Z");
    expect(snap.id).toMatch(SNAPSHOT_ID_PATTERN);
    const manifest = JSON.parse(await fs.readFile(path.join(snap.dir, "manifest.json"), "utf8"));
    expect(manifest.reason).toBe("manual");
    // Live skills only, as Hermes counts them: the archived one is in the archive but not counted.
    expect(manifest.skill_files).toBe(2);
    expect(manifest.archive_bytes).toBeGreaterThan(0);
    expect(manifest.archive).toBe("skills.tar.gz");
    expect(manifest.created_at).toBe("2026-05-01T13:05:42.100000+00:00");
    expect(manifest.cron_jobs).toEqual({ backed_up: false, reason: "no cron/jobs.json present" });
    // indent 2, sorted keys
    const raw = await fs.readFile(path.join(snap.dir, "manifest.json"), "utf8");
    expect(raw.split("\n")[1]).toBe('  "archive": "skills.tar.gz",');
    const names = await members(path.join(snap.dir, "skills.tar.gz"));
    expect(names).toContain("alpha/scripts/run.sh");
    expect(names).toContain(".usage.json");
    expect(names.some((n) => n.startsWith(".archive/old"))).toBe(true);
    expect(
      names.some((n) => n.startsWith(".hub") || n.startsWith(".curator_backups") || n.startsWith(".locks")),
    ).toBe(false);
  });

  it("refuses when backups are disabled and leaves nothing behind", async () => {
    await writeSkill(home, "alpha");
    const config = configWith({ curator: { backup: { enabled: false } } });
    await expect(createSnapshot({ home, config, reason: "manual" })).rejects.toThrow(/disabled/);
    expect(await listSnapshots(home)).toEqual([]);
  });

  it("gives snapshots in the same second unique ids and prunes to keep", async () => {
    await writeSkill(home, "alpha");
    const config = configWith({ curator: { backup: { keep: 2 } } });
    const now = new Date("2026-05-01T13:05:42Z");
    const a = await createSnapshot({ home, config, reason: "a", now });
    const b = await createSnapshot({ home, config, reason: "b", now });
    const c = await createSnapshot({ home, config, reason: "c", now });
    expect([a.id, b.id, c.id]).toEqual([
      "2026-05-01T13-05-42Z",
      "2026-05-01T13-05-42Z-01",
      "2026-05-01T13-05-42Z-02",
    ]);
    expect((await listSnapshots(home)).map((s) => s.id)).toEqual([c.id, b.id]);
  });

  it("copies cron jobs, even malformed ones, and records a parse warning", async () => {
    await writeSkill(home, "alpha");
    await writeFiles(home, { "cron/jobs.json": "{not json" });
    const snap = await createSnapshot({ home, config: configWith(), reason: "manual" });
    expect(await fs.readFile(path.join(snap.dir, "cron-jobs.json"), "utf8")).toBe("{not json");
    const manifest = JSON.parse(await fs.readFile(path.join(snap.dir, "manifest.json"), "utf8"));
    expect(manifest.cron_jobs.backed_up).toBe(true);
    expect(manifest.cron_jobs.parse_warning).toMatch(/not valid JSON/);
  });

  it("ignores unfinished snapshot dirs in listings and removes them on the next snapshot", async () => {
    await writeSkill(home, "alpha");
    const partial = path.join(home, "skills", ".curator_backups", "2020-01-01T00-00-00Z");
    await fs.mkdir(partial, { recursive: true });
    await fs.writeFile(path.join(partial, "skills.tar.gz.partial"), "x");
    expect(await listSnapshots(home)).toEqual([]);
    await createSnapshot({ home, config: configWith(), reason: "manual" });
    expect(await exists(partial)).toBe(false);
  });
});

describe("resolveSnapshot (scenario 37)", () => {
  it("returns the newest by default and null for an unknown id", async () => {
    await writeSkill(home, "alpha");
    const config = configWith();
    await createSnapshot({ home, config, reason: "one", now: new Date("2026-01-01T00:00:00Z") });
    await createSnapshot({ home, config, reason: "two", now: new Date("2026-01-02T00:00:00Z") });
    expect((await resolveSnapshot(home))?.manifest?.reason).toBe("two");
    expect(await resolveSnapshot(home, "1999-01-01T00-00-00Z")).toBeNull();
  });
});

describe("rollbackToSnapshot (scenarios 38–40)", () => {
  it("restores a deleted skill, takes a pre-rollback snapshot and leaves no staging dir", async () => {
    await writeSkill(home, "alpha", { "references/notes.md": "notes\n" });
    await writeSkill(home, "beta");
    const config = configWith();
    const snap = await manualSnapshot(config);
    const before = await treeHash(home);
    await fs.rm(path.join(home, "skills", "alpha"), { recursive: true });
    await writeSkill(home, "gamma");
    const result = await rollbackToSnapshot({ home, config, now: new Date("2026-01-02T00:00:00Z") });
    expect(result.target).toBe(snap.id);
    expect(result.message).toBe(`restored from snapshot ${snap.id}`);
    expect(await treeHash(home)).toBe(before);
    const safety = await resolveSnapshot(home, result.safetySnapshot);
    expect(safety?.manifest?.reason).toBe(`pre-rollback to ${snap.id}`);
    const leftovers = (await fs.readdir(path.join(home, "skills"))).filter((n) => n.startsWith(".rollback"));
    expect(leftovers).toEqual([]);
    expect(await readJournal(home)).toBeNull();
  });

  it("says there is no matching backup when none exists", async () => {
    await writeSkill(home, "alpha");
    await expect(rollbackToSnapshot({ home, config: configWith() })).rejects.toThrow(
      /no matching backup found/,
    );
    await expect(rollbackToSnapshot({ home, config: configWith(), id: "nope" })).rejects.toThrow(
      /for id 'nope'/,
    );
  });

  it("restores only skill links of cron jobs that still exist and leaves new jobs alone", async () => {
    await writeSkill(home, "alpha");
    const config = configWith();
    const jobsAt = path.join(home, "cron", "jobs.json");
    await writeFiles(home, {
      "cron/jobs.json": JSON.stringify({
        jobs: [
          { id: "j1", name: "one", skills: ["alpha"], skill: "alpha", prompt: "old prompt" },
          { id: "j2", name: "two", skills: ["alpha"], skill: "alpha" },
          { id: "j3", name: "three", skills: ["x"], skill: "x" },
        ],
      }),
    });
    const snap = await manualSnapshot(config);
    await fs.writeFile(
      jobsAt,
      JSON.stringify({
        jobs: [
          { id: "j1", name: "one", skills: ["umbrella"], skill: "umbrella", prompt: "new prompt" },
          { id: "j3", name: "three", skills: ["x"], skill: "x" },
          { id: "j4", name: "new", skills: ["umbrella"] },
        ],
      }),
    );
    const result = await rollbackToSnapshot({
      home,
      config,
      id: snap.id,
      now: new Date("2026-01-02T00:00:00Z"),
    });
    expect(result.cron).toMatchObject({ restored: 1, skipped: 1, matched: 1 });
    expect(result.message).toContain("1 job(s) had skill links restored");
    const jobs = JSON.parse(await fs.readFile(jobsAt, "utf8")).jobs;
    expect(jobs[0]).toEqual({
      id: "j1",
      name: "one",
      skills: ["alpha"],
      skill: "alpha",
      prompt: "new prompt",
    });
    expect(jobs[2]).toEqual({ id: "j4", name: "new", skills: ["umbrella"] });
    expect(jobs).toHaveLength(3);
  });

  it("keeps the oldest target at the keep limit (scenario 40)", async () => {
    await writeSkill(home, "alpha");
    const config = configWith({ curator: { backup: { keep: 2 } } });
    const oldest = await createSnapshot({
      home,
      config,
      reason: "one",
      now: new Date("2026-01-01T00:00:00Z"),
    });
    await createSnapshot({ home, config, reason: "two", now: new Date("2026-01-02T00:00:00Z") });
    await fs.rm(path.join(home, "skills", "alpha"), { recursive: true });
    await rollbackToSnapshot({ home, config, id: oldest.id, now: new Date("2026-01-03T00:00:00Z") });
    expect(await exists(path.join(home, "skills", "alpha", "SKILL.md"))).toBe(true);
    const ids = (await listSnapshots(home)).map((s) => s.id);
    expect(ids).toContain(oldest.id);
    expect(ids[0]).toBe("2026-01-03T00-00-00Z");
  });

  it("aborts without touching anything when the safety snapshot cannot be taken (scenario 40, #63366)", async () => {
    const snap = await snapshotOfAlpha();
    await writeSkill(home, "beta", { "x.md": "live" });
    const before = await listTree(home);
    const disabled = configWith({ curator: { backup: { enabled: false } } });
    await expect(rollbackToSnapshot({ home, config: disabled, id: snap.id })).rejects.toThrow(
      /pre-rollback safety snapshot failed/,
    );
    expect(await listTree(home)).toEqual(before);
  });

  it("refuses an archive with an unsafe member and changes nothing (scenario 38)", async () => {
    const snap = await snapshotOfAlpha();
    // Replace the archive with one holding a `..` member (built by hand: tar itself refuses to write it).
    const { buildTar } = await import("./tarbuild.js");
    const gz = buildTar([
      { path: "../escape.md", type: "file", content: "x" },
      { path: "alpha/SKILL.md", type: "file", content: "y" },
    ]);
    await fs.writeFile(path.join(snap.dir, "skills.tar.gz"), gz);
    const before = await listTree(home);
    await expect(rollbackToSnapshot({ home, config: configWith(), id: snap.id })).rejects.toThrow(/unsafe/);
    expect(await listTree(home)).toEqual(before);
    expect(await exists(path.join(home, "escape.md"))).toBe(false);
  });

  it("refuses an archive that inflates more than a thousand times its size and changes nothing", async () => {
    const snap = await snapshotOfAlpha();
    const { buildTar } = await import("./tarbuild.js");
    const tar = buildTar(
      [
        { path: "alpha/SKILL.md", type: "file", content: "y" },
        { path: "alpha/zeros.bin", type: "file", content: "\0".repeat(40 * 1024 * 1024) },
      ],
      { gzip: false },
    );
    const gz = gzipSync(tar, { level: 9 });
    expect(tar.length / gz.length).toBeGreaterThan(1000);
    await fs.writeFile(path.join(snap.dir, "skills.tar.gz"), gz);
    await writeSkill(home, "beta");
    const before = await listTree(home);
    await expect(rollbackToSnapshot({ home, config: configWith(), id: snap.id })).rejects.toThrow(
      /unreadable.*1000 times/,
    );
    expect(await listTree(home)).toEqual(before);
    expect(await recoverInterruptedRollback(home, configWith())).toEqual([]);
  });

  it("restores from an archive that is a plain (uncompressed) tar", async () => {
    const snap = await snapshotOfAlpha();
    const archive = path.join(snap.dir, "skills.tar.gz");
    await fs.writeFile(archive, gunzipSync(await fs.readFile(archive)));
    const before = await treeHash(home);
    await fs.rm(path.join(home, "skills", "alpha"), { recursive: true });
    await rollbackToSnapshot({
      home,
      config: configWith(),
      id: snap.id,
      now: new Date("2026-01-02T00:00:00Z"),
    });
    expect(await treeHash(home)).toBe(before);
  });

  it("restores symlinked skills faithfully, inside and outside the tree (#44658)", async () => {
    const outside = path.join(home, "dev", "linked-skill");
    await writeFiles(outside, { "SKILL.md": "---\nname: linked-skill\n---\n" });
    await writeSkill(home, "real");
    await fs.symlink(outside, path.join(home, "skills", "linked-skill"));
    await fs.symlink("real", path.join(home, "skills", "alias"));
    const config = configWith();
    const snap = await manualSnapshot(config);
    const before = await treeHash(home);
    await fs.rm(path.join(home, "skills", "linked-skill"));
    await fs.rm(path.join(home, "skills", "alias"));
    await fs.rm(path.join(home, "skills", "real"), { recursive: true });
    await rollbackToSnapshot({ home, config, id: snap.id, now: new Date("2026-01-02T00:00:00Z") });
    expect(await treeHash(home)).toBe(before);
    expect(await fs.readlink(path.join(home, "skills", "linked-skill"))).toBe(outside);
    expect(await fs.readlink(path.join(home, "skills", "alias"))).toBe("real");
    expect(await fs.readFile(path.join(home, "skills", "linked-skill", "SKILL.md"), "utf8")).toContain(
      "linked-skill",
    );
  });

  it("puts everything back when extraction fails midway", async () => {
    const snap = await snapshotOfAlpha();
    await writeSkill(home, "beta");
    const before = await listTree(home);
    // Truncate the gzip stream: verification reads it and fails before anything moves.
    const archive = path.join(snap.dir, "skills.tar.gz");
    const bytes = await fs.readFile(archive);
    await fs.writeFile(archive, bytes.subarray(0, Math.floor(bytes.length / 2)));
    await expect(rollbackToSnapshot({ home, config: configWith(), id: snap.id })).rejects.toThrow();
    expect(await listTree(home)).toEqual(before);
    expect(await recoverInterruptedRollback(home, configWith())).toEqual([]);
  });
});

describe("progress of snapshots and rollbacks", () => {
  it("a snapshot counts skills and a rollback its archive bytes, each ending at its total", async () => {
    for (let i = 0; i < 6; i++)
      await writeSkill(home, `cat${i}/skill-${i}`, { "notes.md": "x".repeat(4000) });
    const events: ProgressEvent[] = [];
    const snap = await createSnapshot({
      home,
      config: configWith(),
      reason: "manual",
      meter: (event) => events.push(event),
    });
    const snapshotEvents = events.filter((event) => event.task === "snapshot");
    // Counted in skills (six, one per category here), from zero to the end.
    expect(snapshotEvents[0]).toEqual({ task: "snapshot", done: 0, total: 6, unit: "skills" });
    expect(snapshotEvents.at(-1)).toEqual({ task: "snapshot", done: 6, total: 6, unit: "skills" });
    const dones = snapshotEvents.map((event) => event.done);
    expect([...dones].sort((a, b) => a - b)).toEqual(dones);

    await writeSkill(home, "cat0/added-later");
    events.length = 0;
    await rollbackToSnapshot({
      home,
      config: configWith(),
      id: path.basename(snap.dir),
      meter: (event) => events.push(event),
    });
    // The safety snapshot (the same six categories) and the restore (archive bytes read) run side by
    // side; each task's events run from zero to its total.
    const safety = events.filter((event) => event.task === "snapshot");
    expect(safety[0]).toEqual({ task: "snapshot", done: 0, total: 7, unit: "skills" });
    expect(safety.at(-1)).toEqual({ task: "snapshot", done: 7, total: 7, unit: "skills" });
    const restoring = events.filter((event) => event.task === "restoring");
    const archiveBytes = (await fs.stat(path.join(snap.dir, "skills.tar.gz"))).size;
    expect(restoring[0]).toEqual({ task: "restoring", done: 0, total: archiveBytes, unit: "bytes" });
    expect(restoring.at(-1)?.done).toBe(archiveBytes);
    expect(await exists(path.join(home, "skills", "cat0", "added-later"))).toBe(false);
  });
});

describe("the old library after a rollback", () => {
  it("leaves skills/ at once and is deleted in the background; what a dead deleter left, recovery removes", async () => {
    await writeSkill(home, "tools/keep");
    const snap = await createSnapshot({ home, config: configWith(), reason: "manual" });
    await writeSkill(home, "tools/added-later", { "big.md": "y".repeat(10_000) });
    await rollbackToSnapshot({ home, config: configWith(), id: path.basename(snap.dir) });
    const skills = await fs.readdir(path.join(home, "skills"));
    expect(skills.filter((name) => name.startsWith(".rollback") || name.startsWith(".purge"))).toEqual([]);
    const trash = path.join(home, "skills", ".curator_backups", ".trash");
    const deadline = Date.now() + 15_000;
    while ((await fs.readdir(trash).catch(() => [])).length > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await fs.readdir(trash)).toEqual([]);

    // A deleter that died (no live pid in its marker) leaves the rest to the next start.
    await writeFiles(path.join(trash, "rollback-old-1"), { "tools/x/SKILL.md": "x" });
    await fs.writeFile(path.join(trash, "rollback-old-1.deleter"), "999999999");
    await recoverInterruptedRollback(home, configWith());
    expect(await fs.readdir(trash)).toEqual([]);
  });
});
