/** Helpers for the tests over golden data written by the real Hermes (test/fixtures/hermes/). */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";

/** The folder of the Hermes golden data. */
export const HERMES_FIXTURES = path.join(import.meta.dirname, "..", "fixtures", "hermes");

/** Extracts a fixture tarball (one top-level `home/`) into a fresh temp dir and returns `<dir>/home`. */
export async function extractHome(tarball: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-hermes-"));
  execFileSync("tar", ["-C", dir, "-xzf", path.join(HERMES_FIXTURES, tarball)]);
  return path.join(dir, "home");
}

/** Extracts a plain archive (members relative to its root) into a fresh temp dir. */
export async function extractArchive(archive: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-hermes-tar-"));
  execFileSync("tar", ["-C", dir, "-xzf", archive]);
  return dir;
}

/** Removes the temp dir a home was extracted into. */
export async function removeExtracted(home: string): Promise<void> {
  await fs.rm(path.dirname(home), { recursive: true, force: true });
}

/**
 * A tree as `relative path -> kind, permission bits and sha256`, skipping top-level names in `skip`.
 * Directories are listed too, so an emptied category folder counts.
 */
export async function treeOf(
  root: string,
  skip: ReadonlySet<string> = new Set(),
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (dir: string, rel: string) => {
    for (const entry of (await fs.readdir(dir, { withFileTypes: true })).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (!rel && skip.has(entry.name)) continue;
      const abs = path.join(dir, entry.name);
      const stat = await fs.lstat(abs);
      const mode = (stat.mode & 0o777).toString(8);
      if (entry.isDirectory()) {
        out.set(childRel, `dir ${mode}`);
        await walk(abs, childRel);
      } else if (entry.isSymbolicLink()) {
        out.set(childRel, `link ${await fs.readlink(abs)}`);
      } else {
        const hash = createHash("sha256")
          .update(await fs.readFile(abs))
          .digest("hex");
        out.set(childRel, `file ${mode} ${hash}`);
      }
    }
  };
  await walk(root, "");
  return out;
}
