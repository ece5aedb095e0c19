/** Ledger, blobs and per-entry rollback: reference scenarios 41–48 plus the skillgate decisions. */
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { blobPath, sha256 } from "../../src/curator/blobs.js";
import {
  appendEntry,
  type LedgerEntry,
  listEntries,
  readEntries,
  withLedger,
} from "../../src/curator/ledger.js";
import { rollbackEntry } from "../../src/curator/rollback-entry.js";
import { createSnapshot } from "../../src/curator/snapshot.js";
import { UsageStore } from "../../src/skills/usage.js";
import { configWith, exists, listTree, makeHome, removeHome, writeFiles, writeSkill } from "./helpers.js";
import { buildTar } from "./tarbuild.js";

let home: string;
let skills: string;
const config = configWith();
beforeEach(async () => {
  home = await makeHome();
  skills = path.join(home, "skills");
});
afterEach(async () => {
  await removeHome(home);
});

async function blobCount(): Promise<number> {
  const names = await fs.readdir(path.join(home, ".curator_backups", "blobs")).catch(() => [] as string[]);
  return names.filter((name) => /^[0-9a-f]{64}$/.test(name)).length;
}

async function appendRaw(entry: Partial<LedgerEntry>): Promise<void> {
  const line = JSON.stringify({
    ts: "2026-08-07T10:00:00.000000+00:00",
    actor: "curator",
    evidence: {},
    before: [],
    after: [],
    ...entry,
  });
  await fs.mkdir(skills, { recursive: true });
  await fs.appendFile(path.join(skills, ".curator_ledger.jsonl"), `${line}\n`);
}

/** The agent deletes skill `skill` (its folder `dir`) under the ledger; returns the newest entry. */
async function agentDeletes(skill: string, dir: string) {
  await withLedger({ home, config, actor: "agent", action: "delete", skill, paths: [dir] }, () =>
    fs.rm(dir, { recursive: true }),
  );
  const [newest] = await listEntries(home);
  return newest;
}

describe("withLedger", () => {
  it("records a curator patch and per-entry rollback restores the original bytes (scenario 41)", async () => {
    const dir = await writeSkill(home, "pdf");
    const file = path.join(dir, "SKILL.md");
    const original = await fs.readFile(file, "utf8");
    await withLedger(
      { home, config, actor: "curator", action: "patch", skill: "pdf", paths: [dir] },
      async () => {
        await fs.writeFile(file, `${original}\npatched\n`);
      },
    );
    await withLedger(
      { home, config, actor: "agent", action: "patch", skill: "pdf", paths: [file] },
      async () => {
        await fs.appendFile(file, "more\n");
      },
    );
    const [second, first] = await listEntries(home);
    expect(first?.actor).toBe("curator");
    expect(second?.actor).toBe("agent");
    expect(first?.id).toMatch(/^[0-9a-f]{12}$/);
    expect(first?.ts).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/);
    expect(first?.before).toEqual([{ path: file, sha256: sha256(original) }]);
    const result = await rollbackEntry({ home, config, entryId: first?.id ?? "" });
    expect(await fs.readFile(file, "utf8")).toBe(original);
    expect(result.message).toMatch(
      /^rolled back entry [0-9a-f]{12} \(patch on 'pdf'\): 1 file\(s\) restored, 0 removed\. Safety entry [0-9a-f]{12}/,
    );
    const actions = (await listEntries(home)).map((e) => e.action);
    expect(actions.slice(0, 2)).toEqual(["rollback", "pre-rollback"]);
  });

  it("lists create, edit, delete newest first with delete evidence and an empty after (scenario 43)", async () => {
    const dir = path.join(skills, "notes");
    const ledgered = (action: string, evidence: Record<string, unknown>, fn: () => Promise<void>) =>
      withLedger({ home, config, actor: "agent", action, skill: "notes", evidence, paths: [dir] }, fn);
    await ledgered("create", {}, async () => {
      await writeSkill(home, "notes");
    });
    await ledgered("edit", {}, async () => {
      await fs.appendFile(path.join(dir, "SKILL.md"), "edit\n");
    });
    await ledgered("delete", { absorbed_into: "", archived: false }, async () => {
      await fs.rm(dir, { recursive: true });
    });
    const entries = await listEntries(home);
    expect(entries.map((e) => e.action)).toEqual(["delete", "edit", "create"]);
    expect(entries[0]?.evidence).toEqual({ absorbed_into: "", archived: false });
    expect(entries[0]?.before.length).toBeGreaterThan(0);
    expect(entries[0]?.after).toEqual([]);
    expect(entries[2]?.before).toEqual([]);
  });

  it("resurrects a hard-deleted package with support files; archive and restore write entries (scenario 44)", async () => {
    const dir = await writeSkill(home, "tools/deploy", {
      "scripts/go.sh": "#!/bin/sh\necho go\n",
      "references/a.md": "A\n",
    });
    const before = await listTree(home);
    const deletion = await agentDeletes("deploy", dir);
    expect(deletion?.before.map((f) => path.relative(dir, f.path)).sort()).toEqual([
      "SKILL.md",
      "references/a.md",
      "scripts/go.sh",
    ]);
    await rollbackEntry({ home, config, entryId: deletion?.id ?? "" });
    expect(await listTree(home)).toEqual(before);

    const dest = path.join(skills, ".archive", "tools", "deploy");
    await withLedger(
      { home, config, actor: "curator", action: "archive", skill: "deploy", paths: [dir, dest] },
      async () => {
        await fs.mkdir(path.dirname(dest), { recursive: true });
        await fs.rename(dir, dest);
      },
    );
    await withLedger(
      { home, config, actor: "user", action: "restore", skill: "deploy", paths: [dest, dir] },
      () => fs.rename(dest, dir),
    );
    const [restore, archive] = await listEntries(home);
    expect(archive?.action).toBe("archive");
    expect(archive?.before.length).toBe(3);
    expect(archive?.after.length).toBe(3);
    expect(restore?.action).toBe("restore");
  });

  it("stores identical files as one blob (scenario 45)", async () => {
    const dir = await writeSkill(home, "twins", { "a.md": "same\n", "b.md": "same\n" });
    await withLedger({ home, config, actor: "agent", action: "delete", skill: "twins", paths: [dir] }, () =>
      fs.rm(dir, { recursive: true }),
    );
    const [entry] = await listEntries(home);
    expect(entry?.before).toHaveLength(3);
    expect(await blobCount()).toBe(2);
  });

  it("writes nothing when skills.ledger is false and the mutation still happens (scenario 46)", async () => {
    const off = configWith({ skills: { ledger: false } });
    const dir = await writeSkill(home, "quiet");
    await withLedger(
      { home, config: off, actor: "user", action: "delete", skill: "quiet", paths: [dir] },
      () => fs.rm(dir, { recursive: true }),
    );
    expect(await exists(dir)).toBe(false);
    expect(await exists(path.join(skills, ".curator_ledger.jsonl"))).toBe(false);
    expect(await exists(path.join(home, ".curator_backups", "blobs"))).toBe(false);
  });

  it("never blocks the mutation when the capture raises (scenario 46)", async () => {
    const dir = await writeSkill(home, "fragile");
    await writeFiles(home, { ".curator_backups/blobs": "not a directory" });
    const value = await withLedger(
      { home, config, actor: "user", action: "delete", skill: "fragile", paths: [dir] },
      async () => {
        await fs.rm(dir, { recursive: true });
        return 42;
      },
    );
    expect(value).toBe(42);
    expect(await exists(dir)).toBe(false);
  });

  it("rolls back a write_file by removing the created file (scenario 46)", async () => {
    const dir = await writeSkill(home, "writer");
    const added = path.join(dir, "references", "new.md");
    await withLedger(
      { home, config, actor: "agent", action: "write_file", skill: "writer", paths: [dir] },
      () => writeFiles(dir, { "references/new.md": "new\n" }),
    );
    const [entry] = await listEntries(home);
    expect(entry?.before).toEqual([]);
    expect(entry?.after.map((f) => f.path)).toEqual([added]);
    const result = await rollbackEntry({ home, config, entryId: entry?.id ?? "" });
    expect(result.removed).toBe(1);
    expect(await exists(added)).toBe(false);
    expect(await exists(path.join(dir, "references"))).toBe(false);
    expect(await exists(path.join(dir, "SKILL.md"))).toBe(true);
  });

  it("filters by skill and limit, newest first (scenario 47)", async () => {
    for (const name of ["a", "b", "a", "a"]) {
      await withLedger(
        { home, config, actor: "user", action: "edit", skill: name, paths: [] },
        async () => undefined,
      );
    }
    expect(await listEntries(home, { skill: "a" })).toHaveLength(3);
    expect(await listEntries(home, { skill: "a", limit: 2 })).toHaveLength(2);
    expect((await listEntries(home, { limit: 1 }))[0]?.actor).toBe("user");
  });

  it("skips dependency folders at any depth: a 5,000-file node_modules adds no blobs (#107539)", async () => {
    const dir = await writeSkill(home, "js-tool", { "index.js": "module.exports = 1;\n" });
    const modules = path.join(dir, "node_modules");
    for (let i = 0; i < 50; i++) {
      const pkg = path.join(modules, `pkg${i}`);
      await fs.mkdir(pkg, { recursive: true });
      await Promise.all(
        Array.from({ length: 100 }, (_, j) => fs.writeFile(path.join(pkg, `f${j}.js`), `// ${i}-${j}\n`)),
      );
    }
    await writeFiles(dir, { "lib/.venv/x.py": "x", "lib/__pycache__/y.pyc": "y", "lib/keep.py": "keep\n" });
    const entry = await agentDeletes("js-tool", dir);
    expect(entry?.before.map((f) => path.relative(dir, f.path)).sort()).toEqual([
      "SKILL.md",
      "index.js",
      "lib/keep.py",
    ]);
    expect(await blobCount()).toBe(3);
  });

  it("records a symlinked skill as a link without following it", async () => {
    const outside = path.join(home, "dev", "linked");
    await writeFiles(outside, { "SKILL.md": "secret content\n" });
    const link = path.join(skills, "linked");
    await fs.symlink(outside, link);
    await withLedger({ home, config, actor: "user", action: "delete", skill: "linked", paths: [link] }, () =>
      fs.rm(link),
    );
    const [entry] = await listEntries(home);
    expect(entry?.before).toEqual([{ path: link, link: outside }]);
    expect(await blobCount()).toBe(0);
    await rollbackEntry({ home, config, entryId: entry?.id ?? "" });
    expect(await fs.readlink(link)).toBe(outside);
  });

  it("drops unchanged paths (delta rule) but keeps them in pre-rollback entries", async () => {
    const dir = await writeSkill(home, "delta", { "keep.md": "same\n" });
    await withLedger({ home, config, actor: "agent", action: "patch", skill: "delta", paths: [dir] }, () =>
      fs.appendFile(path.join(dir, "SKILL.md"), "x\n"),
    );
    const [entry] = await listEntries(home);
    expect(entry?.before.map((f) => path.basename(f.path))).toEqual(["SKILL.md"]);
    const pre = await appendEntry(home, config, {
      actor: "user",
      action: "pre-rollback",
      skill: "delta",
      evidence: {},
      before: [{ path: path.join(dir, "keep.md"), sha256: sha256("same\n") }],
      after: [{ path: path.join(dir, "keep.md"), sha256: sha256("same\n") }],
    });
    expect(pre?.before).toHaveLength(1);
    expect(pre?.after).toHaveLength(1);
  });

  it("stores usage before/after and a rollback restores the lifecycle state", async () => {
    const dir = await writeSkill(home, "lifecycle");
    const store = new UsageStore(skills);
    await store.update((r) => {
      r.lifecycle = {
        ...(r.lifecycle ?? {}),
        created_by: "agent",
        state: "active",
        pinned: false,
        archived_at: null,
      } as never;
    });
    const dest = path.join(skills, ".archive", "lifecycle");
    await withLedger(
      { home, config, actor: "curator", action: "archive", skill: "lifecycle", paths: [dir, dest] },
      async () => {
        await fs.mkdir(path.dirname(dest), { recursive: true });
        await fs.rename(dir, dest);
        await store.update((r) => {
          const rec = r.lifecycle;
          if (rec) {
            rec.state = "archived";
            rec.archived_at = "2026-08-01T00:00:00+00:00";
          }
        });
      },
    );
    await store.bump("lifecycle", "view");
    const [entry] = await listEntries(home);
    expect(entry?.usage_before?.state).toBe("active");
    expect(entry?.usage_after?.state).toBe("archived");
    await rollbackEntry({ home, config, entryId: entry?.id ?? "" });
    const record = (await store.read()).lifecycle;
    expect(record?.state).toBe("active");
    expect(record?.archived_at).toBeNull();
    expect(record?.view_count).toBe(1);
    expect(await exists(path.join(dir, "SKILL.md"))).toBe(true);
    expect(await exists(dest)).toBe(false);
  });
});

describe("rollbackEntry refusals", () => {
  it("refuses paths outside the home (scenario 42)", async () => {
    await appendRaw({
      id: "aaaaaaaaaaaa",
      action: "edit",
      skill: "x",
      before: [{ path: "/etc/passwd", sha256: sha256("x") }],
    });
    await expect(rollbackEntry({ home, config, entryId: "aaaaaaaaaaaa" })).rejects.toThrow(/outside/);
  });

  it("refuses a path that escapes through a symlinked directory", async () => {
    const outside = path.join(home, "..", `${path.basename(home)}-outside`);
    await fs.mkdir(outside, { recursive: true });
    try {
      await fs.symlink(outside, path.join(skills, "escape"));
      const target = path.join(skills, "escape", "SKILL.md");
      await appendRaw({
        id: "bbbbbbbbbbbb",
        action: "edit",
        skill: "x",
        after: [{ path: target, sha256: sha256("x") }],
      });
      await expect(rollbackEntry({ home, config, entryId: "bbbbbbbbbbbb" })).rejects.toThrow(/outside/);
      expect(await fs.readdir(outside)).toEqual([]);
    } finally {
      await fs.rm(outside, { recursive: true, force: true });
    }
  });

  it("changes nothing when a blob is missing (scenario 42)", async () => {
    const dir = await writeSkill(home, "held", { "a.md": "current\n" });
    const before = await listTree(home);
    const good = sha256("stored\n");
    await fs.mkdir(path.join(home, ".curator_backups", "blobs"), { recursive: true });
    await fs.writeFile(blobPath(home, good), "stored\n");
    await appendRaw({
      id: "cccccccccccc",
      action: "edit",
      skill: "held",
      before: [
        { path: path.join(dir, "SKILL.md"), sha256: good },
        { path: path.join(dir, "a.md"), sha256: "f".repeat(64) },
      ],
    });
    await expect(rollbackEntry({ home, config, entryId: "cccccccccccc" })).rejects.toThrow(
      /missing blob f{64} .*nothing was changed/,
    );
    expect(await listTree(home)).toEqual(before);
    expect((await readEntries(home)).map((e) => e.action)).toEqual(["edit"]);
  });

  it("fails closed when the pre-rollback safety entry cannot be written (scenario 45)", async () => {
    const dir = await writeSkill(home, "closed");
    await withLedger({ home, config, actor: "agent", action: "patch", skill: "closed", paths: [dir] }, () =>
      fs.appendFile(path.join(dir, "SKILL.md"), "x\n"),
    );
    const [entry] = await listEntries(home);
    const before = await listTree(home);
    const off = configWith({ skills: { ledger: false } });
    await expect(rollbackEntry({ home, config: off, entryId: entry?.id ?? "" })).rejects.toThrow(
      /safety capture failed/,
    );
    expect(await listTree(home)).toEqual(before);
  });

  it("names an unknown id", async () => {
    await expect(rollbackEntry({ home, config, entryId: "nope" })).rejects.toThrow(
      /no ledger entry with id 'nope'/,
    );
  });
});

describe("hollow entries are filled from the newest snapshot (scenario 48, #96962, #106673)", () => {
  it("restores support files, keeps the entry's own hash, and never fills '..' members", async () => {
    const dir = await writeSkill(home, "pkg", { "references/deep/ref.md": "ref\n" });
    const skillMd = path.join(dir, "SKILL.md");
    const recorded = "---\nname: pkg\n---\nrecorded version\n";
    await fs.mkdir(path.join(home, ".curator_backups", "blobs"), { recursive: true });
    await fs.writeFile(blobPath(home, sha256(recorded)), recorded);
    const snap = await createSnapshot({ home, config, reason: "manual" });
    // Add a hostile member to the newest snapshot: it must never be filled.
    const hostile = buildTar([
      { path: "pkg/SKILL.md", type: "file", content: "tar version\n" },
      { path: "pkg/references/deep/ref.md", type: "file", content: "ref\n" },
      { path: "pkg/../evil.md", type: "file", content: "evil\n" },
      { path: "pkg/node_modules/dep.js", type: "file", content: "dep\n" },
    ]);
    await fs.writeFile(path.join(snap.dir, "skills.tar.gz"), hostile);
    await fs.rm(dir, { recursive: true });
    await appendRaw({
      id: "dddddddddddd",
      action: "delete",
      skill: "pkg",
      before: [{ path: skillMd, sha256: sha256(recorded) }],
    });
    const result = await rollbackEntry({ home, config, entryId: "dddddddddddd" });
    expect(result.restored).toBe(2);
    expect(await fs.readFile(skillMd, "utf8")).toBe(recorded);
    expect(await fs.readFile(path.join(dir, "references", "deep", "ref.md"), "utf8")).toBe("ref\n");
    expect(await exists(path.join(skills, "evil.md"))).toBe(false);
    expect(await exists(path.join(dir, "node_modules"))).toBe(false);
    expect(Object.keys(await listTree(home)).filter((p) => p.startsWith("pkg/"))).toEqual([
      "pkg/SKILL.md",
      "pkg/references/deep/ref.md",
    ]);
  });
});

describe("compaction and blob GC", () => {
  it("trims the oldest lines past the cap, keeps the newest, and collects old unreferenced blobs", async () => {
    const small = configWith({ skills: { ledger_max_bytes: 2000 } });
    const dir = await writeSkill(home, "busy");
    const orphan = sha256("orphan");
    await fs.mkdir(path.join(home, ".curator_backups", "blobs"), { recursive: true });
    await fs.writeFile(blobPath(home, orphan), "orphan");
    const old = new Date(Date.now() - 2 * 3_600_000);
    await fs.utimes(blobPath(home, orphan), old, old);
    const young = sha256("young");
    await fs.writeFile(blobPath(home, young), "young");
    await fs.writeFile(path.join(skills, ".curator_ledger.jsonl"), "\uFEFF");
    for (let i = 0; i < 12; i++) {
      await withLedger(
        { home, config: small, actor: "agent", action: "patch", skill: "busy", paths: [dir] },
        () => fs.appendFile(path.join(dir, "SKILL.md"), `${i}\n`),
      );
    }
    const size = (await fs.stat(path.join(skills, ".curator_ledger.jsonl"))).size;
    expect(size).toBeLessThanOrEqual(2000);
    const entries = await readEntries(home);
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.length).toBeLessThan(12);
    expect(await exists(blobPath(home, orphan))).toBe(false);
    expect(await exists(blobPath(home, young))).toBe(true);
    const latest = entries[entries.length - 1];
    for (const file of [...(latest?.before ?? []), ...(latest?.after ?? [])]) {
      if ("sha256" in file) expect(await exists(blobPath(home, file.sha256))).toBe(true);
    }
  });

  it("does not collect blobs while a ledger line is malformed", async () => {
    const small = configWith({ skills: { ledger_max_bytes: 600 } });
    const orphan = sha256("orphan");
    await fs.mkdir(path.join(home, ".curator_backups", "blobs"), { recursive: true });
    await fs.writeFile(blobPath(home, orphan), "orphan");
    const old = new Date(Date.now() - 2 * 3_600_000);
    await fs.utimes(blobPath(home, orphan), old, old);
    await fs.writeFile(path.join(skills, ".curator_ledger.jsonl"), "{not json\n");
    await appendEntry(home, small, {
      actor: "user",
      action: "edit",
      skill: "s",
      evidence: { pad: "x".repeat(700) },
      before: [],
      after: [],
    });
    expect(await exists(blobPath(home, orphan))).toBe(true);
  });
});
