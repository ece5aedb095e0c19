/** Shared fixtures for the safety-net tests: temp homes, tiny libraries, a tree hash. */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { parseConfig, type SkillgateConfig } from "../../src/config/config.js";
import { isLibraryEntry } from "../../src/curator/snapshot.js";
import { madeForEachTest, makeTempHome, removeTempHome } from "../support/fresh-dir.js";

/** A fresh temp home with an empty `skills/`. */
export const makeHome = (): Promise<string> => makeTempHome("skillgate-safety-");

/** Removes a temp home. */
export const removeHome = removeTempHome;

/** A fresh temp home for each test of the enclosing `describe` (or file), handed to `use`, removed after. */
export function freshHomeEachTest(use: (home: string) => void): void {
  madeForEachTest(makeHome, removeHome, use);
}

/** A config from a YAML-like object (defaults for everything else). */
export function configWith(doc: Record<string, unknown> = {}): SkillgateConfig {
  return parseConfig(doc);
}

/** Writes files relative to a base dir, creating parents. */
export async function writeFiles(base: string, files: Record<string, string>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(base, rel);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, content);
  }
}

/** Writes a skill package `skills/<rel>/SKILL.md` (+ extra files). */
export async function writeSkill(
  home: string,
  rel: string,
  extra: Record<string, string> = {},
): Promise<string> {
  const dir = path.join(home, "skills", rel);
  const name = path.basename(rel);
  await writeFiles(dir, {
    "SKILL.md": `---\nname: ${name}\ndescription: ${name} skill\n---\n\nDoes ${name}.\n`,
    ...extra,
  });
  return dir;
}

/**
 * A hash of the library as a rollback sees it: every path, type, content and link target under
 * `skills/`, skipping the entries snapshots and rollbacks leave alone (backups, locks, scratch dirs)
 * and the relative paths in `skip`.
 */
export async function treeHash(home: string, skip: string[] = []): Promise<string> {
  const hash = createHash("sha256");
  const skills = path.join(home, "skills");
  const walk = async (dir: string, rel: string): Promise<void> => {
    const names = (await fs.readdir(dir)).sort();
    for (const name of names) {
      if (rel === "" && !isLibraryEntry(name)) continue;
      const abs = path.join(dir, name);
      const childRel = rel === "" ? name : `${rel}/${name}`;
      if (skip.includes(childRel)) continue;
      const stat = await fs.lstat(abs);
      if (stat.isSymbolicLink()) hash.update(`L ${childRel} ${await fs.readlink(abs)}\n`);
      else if (stat.isDirectory()) {
        hash.update(`D ${childRel}\n`);
        await walk(abs, childRel);
      } else
        hash.update(
          `F ${childRel} ${createHash("sha256")
            .update(await fs.readFile(abs))
            .digest("hex")}\n`,
        );
    }
  };
  await walk(skills, "");
  return hash.digest("hex");
}

/** Every file path (relative to skills/) with its content, for diffs in assertions. */
export async function listTree(home: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const skills = path.join(home, "skills");
  const walk = async (dir: string, rel: string): Promise<void> => {
    for (const name of (await fs.readdir(dir)).sort()) {
      if (rel === "" && !isLibraryEntry(name)) continue;
      const abs = path.join(dir, name);
      const childRel = rel === "" ? name : `${rel}/${name}`;
      const stat = await fs.lstat(abs);
      if (stat.isSymbolicLink()) out[childRel] = `-> ${await fs.readlink(abs)}`;
      else if (stat.isDirectory()) await walk(abs, childRel);
      else out[childRel] = await fs.readFile(abs, "utf8");
    }
  };
  await walk(skills, "");
  return out;
}

/** True when the path exists (without following a final symlink). */
export async function exists(p: string): Promise<boolean> {
  return fs
    .lstat(p)
    .then(() => true)
    .catch(() => false);
}
