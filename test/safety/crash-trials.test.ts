/**
 * Kill trials on generated libraries, through the built CLI as a person runs it: `curator run` killed at
 * random crash points and moments (backups on and off), the gateway killed during a run from its terminal
 * chat, `serve` stopped with SIGTERM mid-run, whole-tree rollbacks killed at random points, and rollback
 * deleters killed mid-delete. After each kill the next command runs (`skills list`), and then: every
 * package is whole and found once; every package in `.archive/` has its ledger entry, origin and state;
 * every ledger entry's blobs exist; nothing is left over (journals, temp files, trash, partial snapshots,
 * the run lock); the last archive entries roll back per entry, and `restore` puts a package back into
 * its category.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEntries } from "../../src/curator/ledger.js";
import { listSnapshots } from "../../src/curator/snapshot.js";
import { treeHash } from "./helpers.js";
import {
  copyHome,
  crashSteps,
  generatedHome,
  leftovers,
  libraryProblems,
  type PackageState,
  packagesOf,
  rng,
  runCli,
} from "./trials.js";

const homes: string[] = [];
afterAll(async () => {
  await Promise.all(homes.map((home) => fs.rm(home, { recursive: true, force: true })));
});

async function trialCopy(base: string): Promise<string> {
  const home = await copyHome(base);
  homes.push(home);
  return home;
}

/** The next command after a kill: it must succeed, and it runs recovery first. */
async function nextCommand(home: string): Promise<string> {
  const run = await runCli(home, ["skills", "list", "--json"]);
  expect(run.code, run.stderr).toBe(0);
  JSON.parse(run.stdout);
  return run.stderr;
}

/**
 * Rolls back the newest archive entry per entry and restores the next newest by its archive name: each
 * package must land back where it lived before the trial (its category kept).
 */
async function undoLastArchives(home: string, before: readonly PackageState[]): Promise<void> {
  const [last, previous] = (await readEntries(home)).filter((entry) => entry.action === "archive").reverse();
  const undo = [
    last && { folder: String(last.evidence.archived_as), args: ["curator", "rollback", last.id, "-y"] },
    previous && {
      folder: String(previous.evidence.archived_as),
      args: ["curator", "restore", String(previous.evidence.archived_as)],
    },
  ];
  for (const step of undo) {
    if (!step) continue;
    const archived = (await packagesOf(home)).find((item) => item.where === `.archive/${step.folder}`);
    expect(archived, `${step.folder} is in the archive`).toBeDefined();
    const run = await runCli(home, step.args);
    expect(run.code, run.stderr).toBe(0);
    const now = (await packagesOf(home)).find((item) => item.digest === archived?.digest);
    const was = before.find((item) => item.digest === archived?.digest);
    expect(now?.where, step.args.join(" ")).toBe(was?.where);
  }
}

/** Counts of how trials ended, printed once per group for the record. */
function tally(): { add: (key: string) => void; text: () => string } {
  const counts = new Map<string, number>();
  return {
    add: (key) => counts.set(key, (counts.get(key) ?? 0) + 1),
    text: () => [...counts].map(([key, n]) => `${key}: ${n}`).join(", "),
  };
}

/** Days the generated activity is shifted back: a 2k library then has about 400 archives due (2 chunks). */
const AGED = 45;

describe("curator run killed at random points on a generated 2k library", () => {
  const bases: Record<string, string> = {};
  beforeAll(async () => {
    bases.backups = await generatedHome(2000, 42, {}, AGED);
    bases.nobackups = await generatedHome(2000, 42, { curator: { backup: { enabled: false } } }, AGED);
    homes.push(bases.backups, bases.nobackups);
  }, 120_000);

  for (const kind of ["backups", "nobackups"] as const) {
    it(`${kind === "backups" ? "with" : "without"} backups: every trial ends with every package whole, recorded and undoable`, async () => {
      const base = bases[kind] as string;
      const before = await packagesOf(base);
      const steps = await crashSteps(base, ["curator", "run"]);
      // Two chunks of archives at least: intents, moves and commits of each, then the records.
      expect(steps).toBeGreaterThan(260);
      const random = rng(kind === "backups" ? 3501 : 3502);
      const outcomes = tally();
      for (let trial = 0; trial < 6; trial++) {
        const home = await trialCopy(base);
        const timed = trial % 3 === 2;
        const step = 1 + Math.floor(random() * steps);
        const run = await runCli(
          home,
          ["curator", "run"],
          timed ? { killAfterMs: 300 + Math.floor(random() * 2500) } : { crashStep: step },
        );
        const label = `${kind} trial ${trial} (${timed ? "timed" : `step ${step} of ${steps}`})`;
        const moved = (await packagesOf(home)).filter(
          (item, i) => item.where !== (before[i] as PackageState).where,
        ).length;
        outcomes.add(
          run.signal === "SIGKILL" ? (moved > 0 ? "killed mid-run" : "killed before moving") : "finished",
        );
        await nextCommand(home);
        expect(await libraryProblems(home, before), label).toEqual([]);
        if (trial % 2 === 0) {
          await undoLastArchives(home, before);
          expect(await libraryProblems(home, before), `${label}, after the undo`).toEqual([]);
        }
        await fs.rm(home, { recursive: true, force: true });
      }
      console.info(`curator run kill trials (${kind}): ${outcomes.text()}`);
    }, 600_000);
  }
});

describe("the gateway killed during a run from its terminal chat, and stopped with SIGTERM", () => {
  let base: string;
  let before: PackageState[];
  beforeAll(async () => {
    base = await generatedHome(2000, 7, {}, AGED);
    homes.push(base);
    before = await packagesOf(base);
  }, 120_000);

  it("kill -9 of `serve` mid-run leaves every package whole and recorded after the next start", async () => {
    const steps = await crashSteps(base, ["serve", "--console"], { input: "/curator run\n", endInput: true });
    expect(steps).toBeGreaterThan(260);
    const random = rng(3503);
    const outcomes = tally();
    for (let trial = 0; trial < 4; trial++) {
      const home = await trialCopy(base);
      const step = 1 + Math.floor(random() * steps);
      const run = await runCli(home, ["serve", "--console"], {
        input: "/curator run\n",
        endInput: false,
        crashStep: step,
        timeoutMs: 60_000,
      });
      outcomes.add(run.signal === "SIGKILL" ? "killed" : `ended ${run.code}`);
      await nextCommand(home);
      expect(await libraryProblems(home, before), `trial ${trial} (step ${step} of ${steps})`).toEqual([]);
      await fs.rm(home, { recursive: true, force: true });
    }
    console.info(`gateway kill trials: ${outcomes.text()}`);
  }, 600_000);

  it("SIGTERM mid-run: the run stops at a safe point, records what it did, and the process exits cleanly", async () => {
    const outcomes = tally();
    const points = [
      // While the pre-run snapshot is written: nothing may change.
      (home: string) =>
        fs
          .readdir(path.join(home, "skills", ".curator_backups"))
          .then((names) =>
            Promise.all(
              names.map((name) =>
                fs.access(path.join(home, "skills", ".curator_backups", name, "skills.tar.gz.partial")).then(
                  () => true,
                  () => false,
                ),
              ),
            ),
          )
          .then((found) => found.includes(true)),
      // Once the archive batch has begun.
      (home: string) =>
        fs.access(path.join(home, "skills", ".move-journal.jsonl")).then(
          () => true,
          () => false,
        ),
    ];
    for (let trial = 0; trial < 4; trial++) {
      const home = await trialCopy(base);
      const point = points[trial % points.length] as (home: string) => Promise<boolean>;
      const run = await runCli(home, ["serve", "--console"], {
        input: "/curator run\n",
        endInput: false,
        killWhen: async () => ((await point(home)) ? "SIGTERM" : undefined),
        timeoutMs: 90_000,
      });
      expect(run.signal, `trial ${trial}: ${run.stderr.slice(-1500)}`).toBeNull();
      expect(run.code, `trial ${trial}: ${run.stderr.slice(-1500)}`).toBe(0);
      // Nothing to recover: the stop itself left the home in order.
      expect(await leftovers(home), `trial ${trial}`).toEqual([]);
      const state = JSON.parse(
        await fs.readFile(path.join(home, "skills", ".curator_state"), "utf8").catch(() => "{}"),
      ) as { last_run_summary?: string; run_count?: number };
      const archivedNow = (await packagesOf(home)).filter((item) =>
        item.where.startsWith(".archive/"),
      ).length;
      if (trial % points.length === 0) {
        // Stopped during the snapshot: nothing moved, and no snapshot was kept.
        expect(archivedNow, `trial ${trial}`).toBe(
          before.filter((item) => item.where.startsWith(".archive/")).length,
        );
        expect((await listSnapshots(home)).length, `trial ${trial}`).toBe((await listSnapshots(base)).length);
        outcomes.add("stopped in the snapshot");
      } else if (state.last_run_summary?.includes("stopped early")) {
        expect(state.run_count ?? 0, `trial ${trial}`).toBe(0);
        outcomes.add("stopped mid-batch");
      } else outcomes.add("finished before the stop");
      expect(await libraryProblems(home, before), `trial ${trial}`).toEqual([]);
      await fs.rm(home, { recursive: true, force: true });
    }
    console.info(`gateway SIGTERM trials: ${outcomes.text()}`);
  }, 600_000);
});

describe("whole-tree rollback and its deleter killed at random points on a generated library", () => {
  let base: string;
  let snapshotId: string;
  let beforeHash: string;
  let afterHash: string;
  beforeAll(async () => {
    base = await generatedHome(600, 11);
    homes.push(base);
    const backup = await runCli(base, ["curator", "backup", "--reason", "trial target"]);
    expect(backup.code, backup.stderr).toBe(0);
    snapshotId = (await listSnapshots(base))[0]?.id as string;
    afterHash = await treeHash(base);
    // Diverge: a category goes, a skill is edited, a new one appears.
    const skills = path.join(base, "skills");
    const [first, second] = (await fs.readdir(skills)).filter((name) => !name.startsWith(".")).sort();
    await fs.rm(path.join(skills, first as string), { recursive: true });
    const inSecond = (await fs.readdir(path.join(skills, second as string)))[0] as string;
    await fs.appendFile(
      path.join(skills, second as string, inSecond, "SKILL.md"),
      "\nedited after the backup\n",
    );
    await fs.mkdir(path.join(skills, "new-skill"));
    await fs.writeFile(path.join(skills, "new-skill", "SKILL.md"), "---\nname: new-skill\n---\nnew\n");
    beforeHash = await treeHash(base);
  }, 120_000);

  it("every trial ends exactly before or exactly after, recorded in the ledger when after, with nothing left", async () => {
    const args = ["curator", "rollback", "--id", snapshotId, "-y"];
    const steps = await crashSteps(base, args);
    expect(steps).toBeGreaterThan(10);
    const random = rng(3504);
    const outcomes = tally();
    for (let trial = 0; trial < 12; trial++) {
      const home = await trialCopy(base);
      const timed = trial % 4 === 3;
      const step = 1 + Math.floor(random() * steps);
      await runCli(home, args, timed ? { killAfterMs: Math.floor(random() * 1500) } : { crashStep: step });
      const label = `trial ${trial} (${timed ? "timed" : `step ${step} of ${steps}`})`;
      // Until the next start, the claim Hermes honours stays: a half-swapped tree is never Hermes' to run on.
      const journal = await fs.readFile(path.join(home, "skills", ".rollback-journal.json"), "utf8").then(
        (text) => JSON.parse(text) as { phase: string },
        () => undefined,
      );
      if (journal?.phase === "swapping")
        await expect(
          fs.access(path.join(home, "skills", ".locks", "curator-run")),
          label,
        ).resolves.toBeUndefined();
      await nextCommand(home);
      const hash = await treeHash(home);
      expect([beforeHash, afterHash], label).toContain(hash);
      expect(await leftovers(home), label).toEqual([]);
      const lines = (await readEntries(home)).filter(
        (entry) => entry.action === "snapshot-rollback" && entry.evidence.snapshot === snapshotId,
      );
      expect(lines.length, label).toBe(hash === afterHash ? 1 : 0);
      outcomes.add(hash === afterHash ? "after" : "before");
      await fs.rm(home, { recursive: true, force: true });
    }
    console.info(`rollback kill trials: ${outcomes.text()}`);
  }, 600_000);

  it("a rollback deleter killed mid-delete leaves nothing after the next start", async () => {
    const outcomes = tally();
    for (let trial = 0; trial < 2; trial++) {
      const home = await trialCopy(base);
      const run = await runCli(home, ["curator", "rollback", "--id", snapshotId, "-y"]);
      expect(run.code, run.stderr).toBe(0);
      const trash = path.join(home, "skills", ".curator_backups", ".trash");
      const marker = (await fs.readdir(trash).catch(() => [] as string[])).find((name) =>
        name.endsWith(".deleter"),
      );
      const pid = marker ? Number(await fs.readFile(path.join(trash, marker), "utf8").catch(() => "")) : 0;
      let killed = false;
      if (pid > 0)
        try {
          process.kill(pid, "SIGKILL");
          killed = true;
        } catch {
          killed = false;
        }
      await new Promise((resolve) => setTimeout(resolve, 100));
      const left = (await fs.readdir(trash).catch(() => [] as string[])).length > 0;
      outcomes.add(killed && left ? "deleter killed mid-delete" : "deleter done first");
      await nextCommand(home);
      expect(await fs.readdir(trash).catch(() => [] as string[]), `trial ${trial}`).toEqual([]);
      await fs.rm(home, { recursive: true, force: true });
    }
    console.info(`deleter kill trials: ${outcomes.text()}`);
  }, 300_000);
});
