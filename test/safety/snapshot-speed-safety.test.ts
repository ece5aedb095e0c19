/**
 * The snapshot writer encodes members straight into shared batches (headers, bodies and padding side
 * by side, large files streamed past them). These tests pin that the archive still holds every member
 * exactly as on disk, in depth-first sorted order, across batch boundaries and for the awkward cases:
 * empty and block-sized files, files around the streaming threshold, pax paths and link targets.
 */
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { t as tarList } from "tar";
import { describe, expect, it } from "vitest";
import { createSnapshot } from "../../src/curator/snapshot.js";
import { configWith, freshHomeEachTest, writeSkill } from "./helpers.js";

interface Member {
  path: string;
  type: string;
  mode: number;
  mtime: number;
  size: number;
  linkpath?: string;
  sha?: string;
}

let home: string;
freshHomeEachTest((made) => {
  home = made;
});

/** Every member of an archive, parsed strictly (a bad checksum or a short body throws). */
async function readArchive(archive: string): Promise<Member[]> {
  const out: Member[] = [];
  const pending: Promise<void>[] = [];
  await tarList({
    file: archive,
    strict: true,
    onReadEntry: (entry) => {
      const member: Member = {
        path: String(entry.path),
        type: String(entry.type),
        mode: Number(entry.mode) & 0o777,
        mtime: Math.floor((entry.mtime?.getTime() ?? 0) / 1000),
        size: Number(entry.size),
        linkpath: entry.linkpath ? String(entry.linkpath) : undefined,
      };
      out.push(member);
      const chunks: Buffer[] = [];
      entry.on("data", (chunk: Buffer) => chunks.push(chunk));
      pending.push(
        new Promise((resolve) =>
          entry.on("end", () => {
            if (member.type === "File") member.sha = Buffer.concat(chunks).toString("base64");
            resolve();
          }),
        ),
      );
    },
  });
  await Promise.all(pending);
  return out;
}

/** The members a snapshot must hold, walked independently: depth-first, names sorted. */
async function expectedMembers(skills: string): Promise<Member[]> {
  const out: Member[] = [];
  const walk = async (dir: string, rel: string): Promise<void> => {
    for (const name of (await fs.readdir(dir)).sort()) {
      if (rel === "" && name.startsWith(".")) continue;
      const abs = path.join(dir, name);
      const childRel = rel === "" ? name : `${rel}/${name}`;
      const stat = await fs.lstat(abs);
      const base = { mode: stat.mode & 0o777, mtime: Math.floor(stat.mtimeMs / 1000) };
      if (stat.isSymbolicLink())
        out.push({
          ...base,
          path: childRel,
          type: "SymbolicLink",
          size: 0,
          linkpath: await fs.readlink(abs),
        });
      else if (stat.isDirectory()) {
        out.push({ ...base, path: `${childRel}/`, type: "Directory", size: 0 });
        await walk(abs, childRel);
      } else {
        const body = await fs.readFile(abs);
        out.push({ ...base, path: childRel, type: "File", size: body.length, sha: body.toString("base64") });
      }
    }
  };
  await walk(skills, "");
  return out;
}

describe("snapshot archive encoding", () => {
  it("holds every member byte for byte across batches, around the streaming threshold and with pax headers", async () => {
    const skills = path.join(home, "skills");
    const sizes = [0, 1, 511, 512, 513, 1024, 64 * 1024, 128 * 1024 - 1, 128 * 1024, 128 * 1024 + 1, 700_000];
    const dir = await writeSkill(home, "sizes");
    for (const size of sizes) {
      const file = path.join(dir, `f-${String(size).padStart(7, "0")}.bin`);
      await fs.writeFile(file, randomBytes(size));
    }
    // Enough small files to fill several batches, so members straddle batch boundaries.
    const many = await writeSkill(home, "many");
    for (let i = 0; i < 700; i++)
      await fs.writeFile(
        path.join(many, `n-${String(i).padStart(4, "0")}.txt`),
        randomBytes(300 + (i % 900)),
      );
    const longDir = await writeSkill(home, `deep/${"d".repeat(120)}`);
    await fs.writeFile(path.join(longDir, `${"f".repeat(150)}.md`), "long path\n");
    await writeSkill(home, "unicode-é", { "注释.md": "non-ascii name\n" });
    await fs.symlink(`../${"t".repeat(200)}`, path.join(skills, "sizes", "long-link"));
    await fs.symlink("../many", path.join(skills, "linked"));
    await fs.chmod(path.join(dir, "f-0000001.bin"), 0o600);
    await fs.chmod(path.join(many, "n-0001.txt"), 0o755);

    const snap = await createSnapshot({ home, config: configWith(), reason: "manual" });
    const archive = path.join(snap.dir, "skills.tar.gz");
    expect(await readArchive(archive)).toEqual(await expectedMembers(skills));

    const raw = gunzipSync(await fs.readFile(archive));
    expect(raw.length % 512).toBe(0);
    expect(raw.subarray(raw.length - 1024).every((byte) => byte === 0)).toBe(true);
    const manifest = JSON.parse(await fs.readFile(path.join(snap.dir, "manifest.json"), "utf8"));
    expect(manifest.skill_files).toBe(4);
    expect(manifest.links).toEqual([
      { path: "linked", target: "../many" },
      { path: "sizes/long-link", target: `../${"t".repeat(200)}` },
    ]);
  });

  it("produces the same archive bytes when the tree has not changed", async () => {
    await writeSkill(home, "alpha", { "scripts/run.sh": "echo hi\n", "big.bin": "x".repeat(300_000) });
    await writeSkill(home, "beta", { "notes.md": "y".repeat(5000) });
    const config = configWith();
    const first = await createSnapshot({ home, config, reason: "a", now: new Date("2026-01-01T00:00:00Z") });
    const second = await createSnapshot({ home, config, reason: "b", now: new Date("2026-01-01T00:00:01Z") });
    const tarOf = async (dir: string) => gunzipSync(await fs.readFile(path.join(dir, "skills.tar.gz")));
    expect((await tarOf(first.dir)).equals(await tarOf(second.dir))).toBe(true);
  });
});
