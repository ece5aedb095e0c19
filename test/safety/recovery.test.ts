/**
 * Recovery of interrupted work, piece by piece: a batch killed after a move and after a chunk's ledger
 * commit (a child process, killed at a named crash point), a blob collected meanwhile, a package found at
 * both ends, a live batch left alone, a dead run lock released and a Hermes claim respected, dead temp
 * blobs and unfinished snapshots removed, and a stop that lands on a safe point: an archive batch
 * aborted mid-way and a curator run aborted before and during its snapshot.
 */
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { acquireLock } from "../../src/core/fsutil.js";
import { english } from "../../src/core/i18n/messages.js";
import type { ProgressEvent } from "../../src/core/progress.js";
import { HOST_TAG } from "../../src/core/temp-files.js";
import { archiveMany, restoreSkill } from "../../src/curator/archive.js";
import { readArchiveOrigins } from "../../src/curator/archive-layout.js";
import { blobPath, hasBlob, readBlob } from "../../src/curator/blobs.js";
import { moveJournalPath } from "../../src/curator/journal.js";
import { readEntries } from "../../src/curator/ledger.js";
import { recoverMoves } from "../../src/curator/move-journal.js";
import { mayNeedRecovery, recoverHome } from "../../src/curator/recovery.js";
import { runCurator } from "../../src/curator/run.js";
import { listSnapshots } from "../../src/curator/snapshot.js";
import { openLibrary } from "../../src/skills/library.js";
import { configWith, exists, freshHomeEachTest, writeFiles, writeSkill } from "./helpers.js";

const child = path.join(path.dirname(fileURLToPath(import.meta.url)), "crash-child.ts");
let home: string;
const skills = () => path.join(home, "skills");
const config = configWith();

freshHomeEachTest((made) => {
  home = made;
});

/** Eight packages in two categories (each with a support file). */
async function eightPackages(): Promise<string[]> {
  const rels: string[] = [];
  for (let i = 0; i < 8; i++) {
    const rel = `${i % 2 === 0 ? "ops" : "web"}/skill-${i}`;
    await writeSkill(home, rel, { "references/r.md": `reference ${i}\n` });
    rels.push(rel);
  }
  return rels;
}

/** Archives every live skill in a child process that is killed at the crash point `at`. */
function archiveKilledAt(at: string): Promise<NodeJS.Signals | null> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, SKILLGATE_CRASH_AT: at };
    delete env.SKILLGATE_CRASH_STEP;
    const proc = spawn(process.execPath, ["--import", "tsx", child, "archive", home], {
      env,
      stdio: "ignore",
    });
    proc.on("error", reject);
    proc.on("close", (_code, signal) => resolve(signal));
  });
}

async function usageStates(): Promise<Record<string, string | undefined>> {
  const usage = JSON.parse(await fs.readFile(path.join(skills(), ".usage.json"), "utf8").catch(() => "{}"));
  return Object.fromEntries(
    Object.entries(usage as Record<string, { state?: string }>).map(([name, record]) => [name, record.state]),
  );
}

describe("an archive batch killed mid-way, then recovered", () => {
  it("after its first move: the moved package gets its ledger entry, origin and state; the rest stays", async () => {
    const rels = await eightPackages();
    expect(await archiveKilledAt("archive:moved")).toBe("SIGKILL");
    expect(await exists(moveJournalPath(home))).toBe(true);
    expect(await readEntries(home)).toEqual([]);
    expect(mayNeedRecovery(home)).toBe(true);
    const notes = await recoverHome(home, config);
    expect(
      notes.map(english).filter((note) => note.includes("completed the interrupted archive")),
    ).toHaveLength(1);
    expect(await exists(moveJournalPath(home))).toBe(false);
    const [entry] = await readEntries(home);
    expect(entry?.action).toBe("archive");
    expect(entry?.evidence.recovered).toBe(true);
    const folder = String(entry?.evidence.archived_as);
    const origin = rels.find((rel) => rel.endsWith(`/${folder}`)) as string;
    expect(await readArchiveOrigins(home)).toEqual({ [folder]: origin });
    expect((await usageStates())[folder]).toBe("archived");
    for (const file of entry?.before ?? [])
      if ("sha256" in file) expect(await hasBlob(home, file.sha256)).toBe(true);
    // The other seven were never moved: still live, unrecorded.
    for (const rel of rels.filter((rel) => rel !== origin))
      expect(await exists(path.join(skills(), rel))).toBe(true);
    // Restore puts it back into its category.
    const library = openLibrary(home, config, { watch: false });
    const restored = await restoreSkill(folder, { home, config, library, actor: "user" });
    expect(restored.restoredTo).toBe(origin);
    expect(mayNeedRecovery(home)).toBe(false);
  });

  it("after a chunk's ledger commit, before the usage and origins writes: recovery completes them", async () => {
    const rels = await eightPackages();
    expect(await archiveKilledAt("archive:ledgered")).toBe("SIGKILL");
    const entries = await readEntries(home);
    expect(entries).toHaveLength(8);
    // The last chunk's commit runs beside the usage and origins writes: a kill may land before either,
    // before the usage file was ever written or after. Both are made as if neither write happened.
    const usageFile = path.join(skills(), ".usage.json");
    const written = await fs.readFile(usageFile, "utf8").catch(() => undefined);
    if (written !== undefined) {
      const usage = JSON.parse(written) as Record<string, { state?: string }>;
      for (const record of Object.values(usage)) record.state = "active";
      await fs.writeFile(usageFile, JSON.stringify(usage));
    }
    await fs.rm(path.join(skills(), ".archive_origins.json"), { force: true });
    await recoverHome(home, config);
    expect(Object.values(await usageStates()).filter((state) => state === "archived")).toHaveLength(8);
    const origins = await readArchiveOrigins(home);
    for (const rel of rels) expect(origins[path.posix.basename(rel)]).toBe(rel);
    // No entry written twice.
    expect((await readEntries(home)).map((entry) => entry.id).sort()).toEqual(
      entries.map((e) => e.id).sort(),
    );
  });

  it("a blob collected before recovery is taken again from the moved package", async () => {
    await eightPackages();
    await archiveKilledAt("archive:moved");
    const journal = await fs.readFile(moveJournalPath(home), "utf8");
    const digests = [...journal.matchAll(/"sha256":"([0-9a-f]{64})"/g)].map((match) => match[1] as string);
    expect(digests.length).toBeGreaterThan(0);
    for (const digest of digests) await fs.rm(blobPath(home, digest), { force: true });
    await recoverHome(home, config);
    const [entry] = await readEntries(home);
    const folder = String(entry?.evidence.archived_as);
    for (const file of entry?.before ?? []) {
      if (!("sha256" in file)) continue;
      const archived = path.join(skills(), ".archive", folder, file.path.split(`/${folder}/`)[1] as string);
      expect((await readBlob(home, file.sha256)).equals(await fs.readFile(archived))).toBe(true);
    }
  });

  it("a package found at both ends is left as it is, with a note", async () => {
    await eightPackages();
    await archiveKilledAt("archive:moved");
    const folder = (await fs.readdir(path.join(skills(), ".archive")))[0] as string;
    const from = /"from":"([^"]+)"/.exec(await fs.readFile(moveJournalPath(home), "utf8"))?.[1] as string;
    expect(path.posix.basename(from)).toBe(folder);
    // Something put a package back at the old place since.
    await writeSkill(home, from);
    const notes = await recoverHome(home, config);
    expect(notes.map(english).join("\n")).toMatch(/left both .* both were kept/);
    expect(await exists(path.join(skills(), from))).toBe(true);
    expect(await exists(path.join(skills(), ".archive", folder))).toBe(true);
    expect(await readEntries(home)).toEqual([]);
  });

  it("a journal whose writer still holds its lock is left to it", async () => {
    await writeFiles(skills(), { ".move-journal.jsonl": '{"journal":"skillgate-moves","version":1}\n' });
    const lock = await acquireLock(path.join(skills(), ".locks", "move-journal"), { waitMs: 0 });
    try {
      expect(await recoverMoves(home, config)).toEqual([]);
      expect(await exists(moveJournalPath(home))).toBe(true);
    } finally {
      await lock.release();
    }
    expect(await recoverMoves(home, config)).toEqual([]);
    expect(await exists(moveJournalPath(home))).toBe(false);
  });
});

describe("leftovers recovery removes, and what it leaves alone", () => {
  it("a run lock left by a dead skillgate process is released; a Hermes claim keeps the repairs waiting", async () => {
    const lock = path.join(skills(), ".locks", "curator-run");
    // A record of another host is never judged by a pid here (several gateways on one shared home).
    await writeFiles(path.join(skills(), ".locks"), { "curator-run": "999999999 other-host 0a1b2c3d4e5f\n" });
    expect(await recoverHome(home, config)).toEqual([]);
    expect(await exists(lock)).toBe(true);
    await writeFiles(path.join(skills(), ".locks"), {
      "curator-run": `999999999 ${os.hostname()} 0a1b2c3d4e5f\n`,
    });
    const notes = await recoverHome(home, config);
    expect(notes.map(english).join("\n")).toMatch(/run lock left by process 999999999/);
    expect(await exists(lock)).toBe(false);
    // A fresh Hermes claim (a bare pid): Hermes is running; the journal waits for a later start.
    await writeFiles(path.join(skills(), ".locks"), { "curator-run": `${process.pid}\n` });
    await writeFiles(skills(), { ".move-journal.jsonl": '{"journal":"skillgate-moves","version":1}\n' });
    expect(await recoverHome(home, config)).toEqual([]);
    expect(await exists(lock)).toBe(true);
    expect(await exists(moveJournalPath(home))).toBe(true);
  });

  it("dead writers' tmp blobs and unfinished snapshots go; a snapshot being written stays", async () => {
    const blobs = path.join(home, ".curator_backups", "blobs");
    const dead = `.tmp-999999999.${HOST_TAG}abcd.0-${"a".repeat(64)}`;
    const live = `.tmp-${process.ppid}.${HOST_TAG}abcd.0-${"b".repeat(64)}`;
    await writeFiles(blobs, { [dead]: "x", [live]: "y" });
    await writeFiles(path.join(skills(), ".curator_backups", "2026-01-01T00-00-00Z"), {
      "skills.tar.gz.partial": "half",
    });
    const notes = await recoverHome(home, config, { blobs: true });
    expect(await fs.readdir(blobs)).toEqual([live]);
    expect(await exists(path.join(skills(), ".curator_backups", "2026-01-01T00-00-00Z"))).toBe(false);
    expect(notes.map(english).join("\n")).toMatch(/unfinished snapshot 2026-01-01T00-00-00Z/);
    // While the snapshot lock is held, a snapshot folder without its archive is someone's work in progress.
    await writeFiles(path.join(skills(), ".curator_backups", "2026-01-02T00-00-00Z"), {
      "skills.tar.gz.partial": "",
    });
    const held = await acquireLock(path.join(skills(), ".locks", "snapshot.lock"), { waitMs: 0 });
    try {
      await recoverHome(home, config);
      expect(await exists(path.join(skills(), ".curator_backups", "2026-01-02T00-00-00Z"))).toBe(true);
    } finally {
      await held.release();
    }
  });

  it("a home with nothing left over needs no recovery", async () => {
    await eightPackages();
    expect(mayNeedRecovery(home)).toBe(false);
  });
});

describe("a stop lands on a safe point", () => {
  it("an archive batch aborted mid-way records every package it moved and leaves the rest in place", async () => {
    for (let i = 0; i < 400; i++) await writeSkill(home, `cat-${i % 4}/many-${i}`);
    const library = openLibrary(home, config, { watch: false });
    const entries = (await library.all()).filter((entry) => entry.rootKind === "local");
    const stop = new AbortController();
    // Asked to stop while the second chunk is being prepared: the first chunk is moved and recorded.
    const meter = (event: ProgressEvent) => {
      if (event.done >= 300) stop.abort();
    };
    const done = await archiveMany(
      entries.map((entry) => ({ entry })),
      { home, config, library, actor: "curator", meter, signal: stop.signal },
    );
    expect(done.archived.length).toBe(256);
    expect(await exists(moveJournalPath(home))).toBe(false);
    const ledgered = new Set((await readEntries(home)).map((entry) => entry.skill));
    const states = await usageStates();
    for (const item of done.archived) {
      expect(ledgered.has(item.name)).toBe(true);
      expect(states[item.name]).toBe("archived");
    }
    const live = (await library.all()).filter((entry) => entry.rootKind === "local");
    expect(live.length + done.archived.length).toBe(400);
  });

  it("a curator run asked to stop before it changed anything changes nothing and says so", async () => {
    for (let i = 0; i < 30; i++) await writeSkill(home, `old/stale-${i}`);
    await writeFiles(skills(), {
      ".usage.json": JSON.stringify(
        Object.fromEntries(
          Array.from({ length: 30 }, (_, i) => [
            `stale-${i}`,
            { created_by: "agent", use_count: 1, last_used_at: "2025-01-01T00:00:00+00:00" },
          ]),
        ),
      ),
    });
    const library = openLibrary(home, config, { watch: false });
    const stopped = new AbortController();
    stopped.abort();
    const error = await runCurator({
      home,
      config,
      library,
      trigger: "manual",
      signal: stopped.signal,
    }).catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe("curator.interrupted");
    expect(await fs.readdir(path.join(skills(), "old"))).toHaveLength(30);
    expect(await listSnapshots(home)).toEqual([]);
    expect(await fs.readdir(path.join(skills(), ".curator_backups")).catch(() => [])).toEqual([]);
  });
});
