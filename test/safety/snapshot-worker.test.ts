/**
 * Snapshots begun and written off the main thread (`beginSnapshot`): the worker's archive is the one the
 * main thread writes, a discarded snapshot leaves nothing behind and costs no older one, and a failed
 * worker fails the snapshot cleanly. The worker loads the TypeScript sources through tsx here, as the
 * compiled build loads its JavaScript.
 */
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { t as tarList } from "tar";
import { describe, expect, it } from "vitest";
import { CuratorError } from "../../src/core/errors.js";
import type { ProgressEvent } from "../../src/core/progress.js";
import { beginSnapshot, createSnapshot, listSnapshots } from "../../src/curator/snapshot.js";
import { configWith, exists, freshHomeEachTest, writeFiles, writeSkill } from "./helpers.js";

let home: string;
freshHomeEachTest((made) => {
  home = made;
});

/** Every member of an archive with its type, size and mode. */
async function members(archive: string): Promise<string[]> {
  const out: string[] = [];
  await tarList({
    file: archive,
    onReadEntry: (entry) => out.push(`${entry.path} ${entry.type} ${entry.size} ${entry.mode?.toString(8)}`),
  });
  return out;
}

async function library(): Promise<void> {
  for (let i = 0; i < 4; i++)
    await writeSkill(home, `cat${i}/skill-${i}`, { "references/notes.md": `notes ${i}\n`.repeat(200) });
  await writeFiles(path.join(home, "skills"), {
    ".usage.json": "{}",
    ".archive/old/SKILL.md": "---\nname: old\n---\n",
  });
  await fs.symlink("../cat0/skill-0", path.join(home, "skills", "cat1", "linked"));
}

describe("beginSnapshot off the main thread", () => {
  it("writes the same archive and manifest as the main thread, with the same progress", async () => {
    await library();
    const config = configWith({ curator: { backup: { keep: 10 } } });
    const runs: { members: string[]; manifest: Record<string, unknown>; events: ProgressEvent[] }[] = [];
    for (const [offThread, second] of [
      [false, 0],
      [true, 1],
    ] as const) {
      const events: ProgressEvent[] = [];
      const pending = await beginSnapshot({
        home,
        config,
        reason: "manual",
        now: new Date(Date.UTC(2026, 0, 1, 0, 0, second)),
        meter: (event) => events.push(event),
        offThread,
      });
      const snap = await pending.keep();
      const manifest = JSON.parse(await fs.readFile(path.join(snap.dir, "manifest.json"), "utf8"));
      runs.push({ members: await members(path.join(snap.dir, "skills.tar.gz")), manifest, events });
    }
    const [here, worker] = runs as [(typeof runs)[number], (typeof runs)[number]];
    expect(worker.members).toEqual(here.members);
    expect(worker.members.some((line) => line.startsWith("cat1/linked SymbolicLink"))).toBe(true);
    for (const field of ["skill_files", "links", "archive_bytes", "cron_jobs"])
      expect(worker.manifest[field]).toEqual(here.manifest[field]);
    expect(worker.manifest.skill_files).toBe(4);
    expect(worker.events).toEqual(here.events);
    expect(worker.events.at(-1)).toMatchObject({ task: "snapshot", done: worker.events[0]?.total });
  });

  it("a discarded snapshot leaves no folder, prunes nothing and releases the lock", async () => {
    await library();
    const config = configWith({ curator: { backup: { keep: 1 } } });
    const older = await createSnapshot({
      home,
      config,
      reason: "manual",
      now: new Date("2026-01-01T00:00:00Z"),
    });
    const pending = await beginSnapshot({
      home,
      config,
      reason: "pre-curator-run",
      now: new Date("2026-01-02T00:00:00Z"),
      offThread: true,
    });
    await pending.discard();
    await pending.discard();
    expect(await exists(path.join(home, "skills", ".curator_backups", "2026-01-02T00-00-00Z"))).toBe(false);
    expect((await listSnapshots(home)).map((snapshot) => snapshot.id)).toEqual([older.id]);
    await expect(pending.keep()).rejects.toThrow(/already discarded/);
    // The lock is free again: a snapshot now is taken at once (and retention applies to it).
    const next = await createSnapshot({
      home,
      config,
      reason: "manual",
      now: new Date("2026-01-03T00:00:00Z"),
    });
    expect((await listSnapshots(home)).map((snapshot) => snapshot.id)).toEqual([next.id]);
  });

  it("a worker that fails fails the snapshot with its reason, and leaves no folder behind", async () => {
    await library();
    const config = configWith();
    const pending = await beginSnapshot({ home, config, reason: "manual", offThread: true });
    // The worker (still loading) finds its destination gone when it starts writing.
    const dirs = (await fs.readdir(path.join(home, "skills", ".curator_backups"))).filter((name) =>
      name.startsWith("20"),
    );
    expect(dirs).toHaveLength(1);
    await fs.rm(path.join(home, "skills", ".curator_backups", dirs[0] as string), { recursive: true });
    const failure = await pending.keep().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CuratorError);
    expect((failure as CuratorError).message).toMatch(/snapshot failed: .*ENOENT/);
    expect(await listSnapshots(home)).toEqual([]);
    // The lock was released with the failure.
    expect((await createSnapshot({ home, config, reason: "manual" })).id).toBeTruthy();
  });

  /** Open file descriptors of this process (worker threads included). */
  async function openFiles(): Promise<number> {
    return (await fs.readdir("/proc/self/fd")).length;
  }

  /** A library that takes gzip a while: 40 categories of incompressible files. */
  async function largeLibrary(): Promise<void> {
    for (let i = 0; i < 40; i++) {
      const files: Record<string, string> = {};
      for (let j = 0; j < 4; j++) files[`references/part-${j}.md`] = randomBytes(40_000).toString("base64");
      await writeSkill(home, `cat${i}/skill-${i}`, files);
    }
  }

  for (const offThread of [false, true]) {
    it(`a snapshot discarded mid-archive stops writing and closes its file (${offThread ? "worker" : "this thread"})`, async () => {
      await largeLibrary();
      const before = await openFiles();
      let started: () => void = () => undefined;
      const archiving = new Promise<void>((resolve) => {
        started = resolve;
      });
      const events: ProgressEvent[] = [];
      const pending = await beginSnapshot({
        home,
        config: configWith(),
        reason: "manual",
        offThread,
        meter: (event) => {
          events.push(event);
          if (event.done >= 1) started();
        },
      });
      await archiving;
      await pending.discard();
      // It stopped where it was: the 40 skills were never all reached.
      expect(events[0]).toEqual({ task: "snapshot", done: 0, total: 40, unit: "skills" });
      expect(events.at(-1)?.done).toBeLessThan(40);
      expect(await fs.readdir(path.join(home, "skills", ".curator_backups"))).toEqual([]);
      expect(await openFiles()).toBe(before);
    });
  }
});
