/**
 * 1,000 generated hostile snapshot archives (absolute paths, `..`, links escaping the tree, hard links,
 * devices, fifos, members under symlinks, forged manifests): a rollback to any of them writes nothing
 * outside the library, and whenever the archive holds a member that is unsafe by an independent rule,
 * the rollback is refused and the library is left exactly as it was.
 */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stableJson } from "../../src/core/fsutil.js";
import { recoverInterruptedRollback, rollbackToSnapshot } from "../../src/curator/rollback.js";
import { createSnapshot } from "../../src/curator/snapshot.js";
import { configWith, exists, treeHash, writeSkill } from "./helpers.js";
import { buildTar, type RawMember } from "./tarbuild.js";

let base: string;
let home: string;
let sentinel: string;
let snapshotDir: string;
let snapshotId: string;
const ESCAPE_NAME = "sg-hostile-escape";
const config = configWith({ curator: { backup: { keep: 2 } } });

async function dirHash(dir: string): Promise<string> {
  const hash = createHash("sha256");
  const walk = async (d: string, rel: string): Promise<void> => {
    for (const name of (await fs.readdir(d)).sort()) {
      const abs = path.join(d, name);
      const stat = await fs.lstat(abs);
      hash.update(`${rel}/${name} ${stat.mode} ${stat.size} ${stat.mtimeMs}\n`);
      if (stat.isDirectory()) await walk(abs, `${rel}/${name}`);
      else if (stat.isFile()) hash.update(await fs.readFile(abs));
    }
  };
  await walk(dir, "");
  return hash.digest("hex");
}

beforeAll(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-hostile-"));
  home = path.join(base, "home");
  sentinel = path.join(base, "sentinel");
  await fs.mkdir(path.join(home, "skills"), { recursive: true });
  await fs.mkdir(path.join(sentinel, "inner"), { recursive: true });
  await fs.writeFile(path.join(sentinel, "passwd"), "root:x:0:0\n");
  await fs.writeFile(path.join(sentinel, "inner", "keep"), "keep\n");
  await writeSkill(home, "alpha");
  const snap = await createSnapshot({
    home,
    config,
    reason: "fuzz target",
    now: new Date("2020-01-01T00:00:00Z"),
  });
  snapshotDir = snap.dir;
  snapshotId = snap.id;
});

afterAll(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

/** Path components, from harmless to hostile. */
const component = fc.constantFrom(
  "alpha",
  "beta",
  "SKILL.md",
  "refs",
  "x",
  "..",
  ".",
  "",
  ".curator_backups",
  ".hub",
  "sentinel",
);

function memberPath(): fc.Arbitrary<string> {
  return fc.oneof(
    {
      weight: 5,
      arbitrary: fc.array(component, { minLength: 1, maxLength: 4 }).map((parts) => parts.join("/")),
    },
    { weight: 1, arbitrary: fc.constantFrom("/tmp/sg-hostile-escape", `/${ESCAPE_NAME}`) },
    { weight: 2, arbitrary: fc.constantFrom("SENTINEL/passwd", "SENTINEL/new", "SENTINEL") },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        `../${ESCAPE_NAME}`,
        `../../${ESCAPE_NAME}`,
        `alpha/../../${ESCAPE_NAME}`,
        "alpha\\..\\..\\x",
      ),
    },
  );
}

function linkTarget(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(
      "alpha",
      "alpha/SKILL.md",
      "../..",
      "..",
      "../sentinel",
      "/",
      "SENTINEL",
      "SENTINEL/passwd",
      "SENTINEL/inner",
    ),
    memberPath(),
  );
}

const member: fc.Arbitrary<RawMember> = fc.record({
  path: memberPath(),
  type: fc.constantFrom<RawMember["type"]>(
    "file",
    "file",
    "file",
    "dir",
    "symlink",
    "symlink",
    "hardlink",
    "chardev",
    "blockdev",
    "fifo",
  ),
  content: fc.constantFrom("pwned\n", "---\nname: evil\n---\n"),
  linkpath: linkTarget(),
});

/** Members a real snapshot could hold (plain names, in-tree links), so accepted rollbacks happen too. */
const benignMember: fc.Arbitrary<RawMember> = fc.record({
  path: fc
    .array(fc.constantFrom("alpha", "beta", "refs", "SKILL.md", "x"), { minLength: 1, maxLength: 3 })
    .map((p) => p.join("/")),
  type: fc.constantFrom<RawMember["type"]>("file", "file", "dir", "symlink"),
  content: fc.constant("ok\n"),
  linkpath: fc.constantFrom("alpha", "SKILL.md", "../alpha"),
});

const archiveCase = fc.record({
  benign: fc.array(benignMember, { maxLength: 4 }),
  hostile: fc.array(member, { maxLength: 3 }),
  /** Where the hostile members go among the benign ones. */
  at: fc.nat(4),
  /** Forge the manifest so every symlink in the archive is "recorded". */
  forgeManifest: fc.boolean(),
});

function materialise(raw: RawMember): RawMember {
  const fix = (value: string) => value.replaceAll("SENTINEL", sentinel);
  return { ...raw, path: fix(raw.path), linkpath: fix(raw.linkpath ?? "") };
}

/** Independent oracle: a member no snapshot may ever contain. */
function obviouslyUnsafe(raw: RawMember): boolean {
  const parts = raw.path.split("/");
  if (raw.path.startsWith("/") || raw.path.includes("\\") || parts.includes("..")) return true;
  if (["chardev", "blockdev", "fifo"].includes(raw.type)) return true;
  if (
    raw.type === "hardlink" &&
    ((raw.linkpath ?? "").startsWith("/") || (raw.linkpath ?? "").split("/").includes(".."))
  )
    return true;
  return false;
}

async function outsideState(): Promise<string> {
  const top = (await fs.readdir(base)).sort().join(",");
  const homeTop = (await fs.readdir(home)).sort().join(",");
  const escaped = (await exists(path.join(os.tmpdir(), ESCAPE_NAME))) || (await exists(`/${ESCAPE_NAME}`));
  return `${top}|${homeTop}|${escaped}|${await dirHash(sentinel)}`;
}

describe("hostile archives (1,000 generated)", () => {
  it("never write outside the library, and unsafe members are refused with nothing changed", async () => {
    const outsideBefore = await outsideState();
    const archive = path.join(snapshotDir, "skills.tar.gz");
    const manifestFile = path.join(snapshotDir, "manifest.json");
    const manifest = JSON.parse(await fs.readFile(manifestFile, "utf8"));
    let refused = 0;
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(archiveCase, async ({ benign, hostile, at, forgeManifest }) => {
        const members = [...benign.slice(0, at), ...hostile, ...benign.slice(at)];
        if (members.length === 0) return;
        const concrete = members.map(materialise);
        await fs.writeFile(archive, buildTar(concrete));
        const links = forgeManifest
          ? concrete.filter((m) => m.type === "symlink").map((m) => ({ path: m.path, target: m.linkpath }))
          : [];
        await fs.writeFile(manifestFile, stableJson({ ...manifest, links }));
        const libraryBefore = await treeHash(home);
        let ok = true;
        try {
          await rollbackToSnapshot({ home, config, id: snapshotId });
          accepted++;
        } catch {
          ok = false;
          refused++;
        }
        await recoverInterruptedRollback(home, config);
        expect(await outsideState()).toBe(outsideBefore);
        if (members.some(obviouslyUnsafe)) {
          expect(ok).toBe(false);
          expect(await treeHash(home)).toBe(libraryBefore);
        }
        const scratch = (await fs.readdir(path.join(home, "skills"))).filter((n) =>
          n.startsWith(".rollback"),
        );
        expect(scratch).toEqual([]);
      }),
      { numRuns: 1000, seed: 4242 },
    );
    expect(refused).toBeGreaterThan(100);
    expect(accepted).toBeGreaterThan(10);
  }, 300_000);
});
