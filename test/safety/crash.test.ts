/**
 * Crash safety: a child process running a snapshot, a whole-tree rollback or a purge is killed with
 * SIGKILL at a random point (mostly at a random crash-point step, some after a random delay), then
 * recovery runs. The library must hash exactly as before or exactly as after, and nothing may be lost.
 * 100 trials in total across the three operations; then the batched archive of the curator's pass.
 */
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/config.js";
import { english } from "../../src/core/i18n/messages.js";
import { archiveMany } from "../../src/curator/archive.js";
import { readBlob } from "../../src/curator/blobs.js";
import { readJournal } from "../../src/curator/journal.js";
import { readEntries } from "../../src/curator/ledger.js";
import { recoverInterruptedRollback } from "../../src/curator/rollback.js";
import { createSnapshot, listSnapshots } from "../../src/curator/snapshot.js";
import { openLibrary } from "../../src/skills/library.js";
import {
  configWith,
  exists,
  listTree,
  makeHome,
  removeHome,
  treeHash,
  writeFiles,
  writeSkill,
} from "./helpers.js";
import { rng } from "./trials.js";

const child = path.join(path.dirname(fileURLToPath(import.meta.url)), "crash-child.ts");
const homes: string[] = [];
afterAll(async () => {
  await Promise.all(homes.map(removeHome));
});

interface ChildRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Runs the child; `crashStep` kills it at that crash point, `killAfterMs` kills it that long after it is ready. */
function runChild(
  args: string[],
  opts: { crashStep?: number; killAfterMs?: number; trace?: boolean },
): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.SKILLGATE_CRASH_STEP;
    delete env.SKILLGATE_CRASH_AT;
    delete env.SKILLGATE_CRASH_TRACE;
    if (opts.crashStep !== undefined) env.SKILLGATE_CRASH_STEP = String(opts.crashStep);
    if (opts.trace) env.SKILLGATE_CRASH_TRACE = "1";
    const proc = spawn(process.execPath, ["--import", "tsx", child, ...args], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    proc.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    proc.stdout.on("data", (chunk: Buffer) => {
      if (opts.killAfterMs !== undefined && chunk.toString().includes("ready")) {
        setTimeout(() => proc.kill("SIGKILL"), opts.killAfterMs);
      }
    });
    proc.on("error", reject);
    proc.on("close", (code, signal) => resolve({ code, signal, stderr }));
  });
}

/** How many crash points an operation passes through (from a traced, uninterrupted run). */
async function countSteps(args: string[]): Promise<number> {
  const run = await runChild(args, { trace: true });
  expect(run.code).toBe(0);
  return run.stderr.split("\n").filter((line) => line.startsWith("crash-point")).length;
}

async function leftovers(home: string): Promise<string[]> {
  const names = await fs.readdir(path.join(home, "skills"));
  return names.filter((name) => name.startsWith(".rollback") || name.startsWith(".purge-trash"));
}

/** A tiny library with a category, support files, usage data, an archive and a symlinked skill. */
async function tinyLibrary(home: string): Promise<void> {
  await writeSkill(home, "alpha", { "references/a.md": "A\n" });
  await writeSkill(home, "tools/beta", { "scripts/run.sh": "echo beta\n" });
  await writeFiles(path.join(home, "skills"), {
    ".usage.json": '{"alpha": {"use_count": 1}}',
    ".archive/gone/SKILL.md": "---\nname: gone\n---\n",
  });
  await fs.symlink("alpha", path.join(home, "skills", "alias"));
}

const TRIALS = { snapshot: 30, rollback: 40, purge: 30 };

describe("SIGKILL at random points, then recovery (100 trials)", () => {
  it(`snapshot: ${TRIALS.snapshot} trials leave the library untouched and list only complete snapshots`, async () => {
    const probe = await makeHome();
    homes.push(probe);
    await tinyLibrary(probe);
    const steps = await countSteps(["snapshot", probe]);
    expect(steps).toBeGreaterThanOrEqual(3);
    const random = rng(36);
    for (let trial = 0; trial < TRIALS.snapshot; trial++) {
      const home = await makeHome();
      homes.push(home);
      await tinyLibrary(home);
      const before = await treeHash(home);
      const timed = trial % 5 === 4;
      const run = await runChild(
        ["snapshot", home],
        timed ? { killAfterMs: Math.floor(random() * 40) } : { crashStep: 1 + Math.floor(random() * steps) },
      );
      await recoverInterruptedRollback(home, configWith());
      expect(await treeHash(home), `trial ${trial}`).toBe(before);
      for (const snapshot of await listSnapshots(home)) {
        expect(snapshot.manifest?.reason, `trial ${trial}`).toBe("crash-test");
      }
      if (run.signal !== "SIGKILL") expect(await listSnapshots(home)).toHaveLength(1);
      // A later snapshot cleans up whatever the killed one left.
      await createSnapshot({ home, config: configWith(), reason: "after" });
      const dirs = await fs.readdir(path.join(home, "skills", ".curator_backups"));
      expect(dirs.length, `trial ${trial}`).toBe((await listSnapshots(home)).length);
      await removeHome(home);
    }
  }, 120_000);

  it(`rollback: ${TRIALS.rollback} trials end exactly before or exactly after, with nothing lost`, async () => {
    const setup = async (home: string) => {
      await tinyLibrary(home);
      const snap = await createSnapshot({
        home,
        config: configWith(),
        reason: "target",
        now: new Date("2026-01-01T00:00:00Z"),
      });
      const after = await treeHash(home);
      // Diverge: delete a skill, add one, edit a file, repoint the link.
      await fs.rm(path.join(home, "skills", "tools"), { recursive: true });
      await writeSkill(home, "gamma", { "notes.md": "new\n" });
      await fs.appendFile(path.join(home, "skills", "alpha", "SKILL.md"), "edited\n");
      await fs.rm(path.join(home, "skills", "alias"));
      await fs.symlink("gamma", path.join(home, "skills", "alias"));
      return { id: snap.id, after, before: await treeHash(home) };
    };
    const probe = await makeHome();
    homes.push(probe);
    const probeState = await setup(probe);
    const steps = await countSteps(["rollback", probe, probeState.id]);
    expect(await treeHash(probe)).toBe(probeState.after);
    expect(steps).toBeGreaterThanOrEqual(10);
    const random = rng(38);
    const outcomes = { before: 0, after: 0 };
    for (let trial = 0; trial < TRIALS.rollback; trial++) {
      const home = await makeHome();
      homes.push(home);
      const state = await setup(home);
      const timed = trial % 5 === 4;
      await runChild(
        ["rollback", home, state.id],
        timed ? { killAfterMs: Math.floor(random() * 60) } : { crashStep: 1 + (trial % steps) },
      );
      const notice = (await recoverInterruptedRollback(home, configWith())).map(english).join(" ");
      const hash = await treeHash(home);
      expect([state.before, state.after], `trial ${trial} (notice: ${notice})`).toContain(hash);
      expect(await leftovers(home), `trial ${trial}`).toEqual([]);
      expect(await readJournal(home)).toBeNull();
      if (hash === state.after) {
        // The state it replaced is kept in the safety snapshot.
        const safety = (await listSnapshots(home)).find(
          (s) => s.manifest?.reason === `pre-rollback to ${state.id}`,
        );
        expect(safety, `trial ${trial}`).toBeDefined();
        outcomes.after++;
      } else outcomes.before++;
      await removeHome(home);
    }
    expect(outcomes.before).toBeGreaterThan(0);
    expect(outcomes.after).toBeGreaterThan(0);
  }, 120_000);

  it(`purge: ${TRIALS.purge} trials keep the package or ledger it completely`, async () => {
    const packageFiles = {
      "SKILL.md": "---\nname: old\n---\nold skill\n",
      "references/r.md": "ref\n",
      "scripts/s.sh": "echo s\n",
    };
    const setup = async (home: string) => {
      await tinyLibrary(home);
      const dir = path.join(home, "skills", ".archive", "old");
      await writeFiles(dir, packageFiles);
      const old = new Date(Date.now() - 10 * 86_400_000);
      for (const target of [dir, path.join(home, "skills", ".archive", "gone")])
        await fs.utimes(target, old, old);
      return {
        before: await treeHash(home),
        after: await treeHash(home, [".archive/old", ".archive/gone"]),
        oldGone: await treeHash(home, [".archive/old"]),
        goneGone: await treeHash(home, [".archive/gone"]),
      };
    };
    const probe = await makeHome();
    homes.push(probe);
    const probeState = await setup(probe);
    const steps = await countSteps(["purge", probe]);
    expect(await treeHash(probe)).toBe(probeState.after);
    const random = rng(48);
    for (let trial = 0; trial < TRIALS.purge; trial++) {
      const home = await makeHome();
      homes.push(home);
      const state = await setup(home);
      const timed = trial % 5 === 4;
      await runChild(
        ["purge", home],
        timed ? { killAfterMs: Math.floor(random() * 40) } : { crashStep: 1 + (trial % steps) },
      );
      await recoverInterruptedRollback(home, configWith());
      const hash = await treeHash(home);
      // Packages are purged one at a time: each one is either fully present or fully gone.
      expect([state.before, state.after, state.oldGone, state.goneGone], `trial ${trial}`).toContain(hash);
      expect(await leftovers(home)).toEqual([]);
      if (!(await exists(path.join(home, "skills", ".archive", "old")))) {
        const entry = (await readEntries(home)).find((e) => e.action === "purge" && e.skill === "old");
        expect(entry, `trial ${trial}`).toBeDefined();
        const saved: Record<string, string> = {};
        for (const file of entry?.before ?? []) {
          if ("sha256" in file)
            saved[path.relative(path.join(home, "skills", ".archive", "old"), file.path)] = (
              await readBlob(home, file.sha256)
            ).toString();
        }
        expect(saved, `trial ${trial}`).toEqual(packageFiles);
      }
      await removeHome(home);
    }
  }, 120_000);
});

describe("SIGKILL during a batched archive (the curator's pass), then a second run", () => {
  /** Eight packages in two categories, each with support files; one folder name is shared. */
  const packages: Record<string, Record<string, string>> = {};
  for (let i = 0; i < 8; i++) {
    packages[`${i % 2 === 0 ? "ops" : "web"}/skill-${i}`] = {
      "SKILL.md": `---\nname: skill-${i}\n---\nbody ${i}\n`,
      "references/r.md": `reference ${i}\n`,
      "scripts/same.sh": "echo shared content\n",
    };
  }
  const setup = async (home: string) => {
    for (const [rel, files] of Object.entries(packages)) await writeSkill(home, rel, files);
  };
  /** Where each package is now: "live", "archived", or what was found when it is neither whole. */
  const whereIs = (tree: Record<string, string>, rel: string): string => {
    const files = packages[rel] ?? {};
    const base = rel.split("/")[1] ?? rel;
    const at = (prefix: string) =>
      Object.fromEntries(
        Object.entries(tree)
          .filter(([file]) => file.startsWith(`${prefix}/`))
          .map(([file, text]) => [file.slice(prefix.length + 1), text]),
      );
    const live = at(rel);
    const archived = at(`.archive/${base}`);
    if (Object.keys(live).length === 0 && JSON.stringify(archived) === JSON.stringify(files))
      return "archived";
    if (Object.keys(archived).length === 0 && JSON.stringify(live) === JSON.stringify(files)) return "live";
    return `broken: live ${JSON.stringify(live)} archived ${JSON.stringify(archived)}`;
  };

  it("leaves every package whole (in place or archived), ledgers only real moves, and a rerun finishes", async () => {
    const probe = await makeHome();
    homes.push(probe);
    await setup(probe);
    const steps = await countSteps(["archive", probe]);
    // One chunk: its intents announced, each package moved, the chunk ledgered.
    expect(steps).toBe(Object.keys(packages).length + 2);
    const random = rng(61);
    for (let trial = 0; trial < 12; trial++) {
      const home = await makeHome();
      homes.push(home);
      await setup(home);
      const timed = trial % 4 === 3;
      await runChild(
        ["archive", home],
        timed ? { killAfterMs: Math.floor(random() * 60) } : { crashStep: 1 + (trial % steps) },
      );
      const tree = await listTree(home);
      const places = Object.keys(packages).map((rel) => whereIs(tree, rel));
      for (const place of places) expect(["live", "archived"], `trial ${trial}`).toContain(place);
      // A ledger line is written only for a package that did move, and its blobs hold the package.
      for (const entry of (await readEntries(home)).filter((e) => e.action === "archive")) {
        const rel = Object.keys(packages).find((key) => key.endsWith(`/${entry.skill}`)) ?? "";
        expect(places[Object.keys(packages).indexOf(rel)], `trial ${trial} ${entry.skill}`).toBe("archived");
        const saved: Record<string, string> = {};
        for (const file of entry.after)
          if ("sha256" in file)
            saved[path.relative(path.join(home, "skills", ".archive", entry.skill), file.path)] = (
              await readBlob(home, file.sha256)
            ).toString();
        expect(saved, `trial ${trial}`).toEqual(packages[rel]);
      }
      // The next pass archives what is left; nothing is archived twice.
      const config = parseConfig({});
      const library = openLibrary(home, config, { watch: false });
      const left = (await library.all()).filter((entry) => entry.rootKind === "local");
      const rerun = await archiveMany(
        left.map((entry) => ({ entry })),
        { home, config, library, actor: "curator" },
      );
      expect(rerun.failures, `trial ${trial}`).toEqual([]);
      const final = await listTree(home);
      for (const rel of Object.keys(packages)) expect(whereIs(final, rel), `trial ${trial}`).toBe("archived");
      // No live skill file is left behind (only the library's own dot-files outside the archive).
      expect(Object.keys(final).filter((file) => !file.startsWith("."))).toEqual([]);
      await removeHome(home);
    }
  }, 120_000);
});
