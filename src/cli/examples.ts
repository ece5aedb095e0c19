/**
 * The example library shipped with skillgate (`examples/` in the package): a handful of skills written
 * for skillgate so a first run has something to show. `installExamples` copies them into a home without
 * touching skills already there; `makeDemoHome` builds a throw-away home for `serve --demo`.
 */
import { existsSync, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { homePaths } from "../config/home.js";

/** What `installExamples` did. */
export interface ExamplesInstall {
  /** `category/name` of each skill copied. */
  installed: string[];
  /** `category/name` of each skill left alone because the home already has that folder. */
  skipped: string[];
}

/** The shipped `examples/` folder, found next to the package root (from `src/` or `dist/src/`). */
export function examplesDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 4; depth += 1) {
    const candidate = path.join(dir, "examples");
    if (existsSync(path.join(candidate, "skills"))) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error("The example skills are missing from this installation (no examples/skills next to it).");
}

/** The `category/name` folders of the example skills. */
async function exampleSkills(root: string): Promise<string[]> {
  const found: string[] = [];
  for (const category of await fs.readdir(path.join(root, "skills"))) {
    for (const name of await fs.readdir(path.join(root, "skills", category))) {
      if (existsSync(path.join(root, "skills", category, name, "SKILL.md")))
        found.push(`${category}/${name}`);
    }
  }
  return found.sort();
}

/**
 * Copies the example skills into `<home>/skills/<category>/<name>`; a folder that already exists is
 * skipped, never overwritten. The home's config.yaml is never touched (the demo's config is the demo
 * home's alone: it turns `/healthz` off).
 */
export async function installExamples(home: string): Promise<ExamplesInstall> {
  const root = examplesDir();
  const paths = homePaths(home);
  await fs.mkdir(paths.skills, { recursive: true });
  const result: ExamplesInstall = { installed: [], skipped: [] };
  for (const skill of await exampleSkills(root)) {
    const target = path.join(paths.skills, ...skill.split("/"));
    if (existsSync(target)) {
      result.skipped.push(skill);
      continue;
    }
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.cp(path.join(root, "skills", ...skill.split("/")), target, {
      recursive: true,
      errorOnExist: true,
    });
    result.installed.push(skill);
  }
  return result;
}

/**
 * A new temporary home holding the examples and the demo's config.yaml (incident-notes hidden on
 * Telegram, no `/healthz`); the caller removes it with `removeDemoHome`.
 */
export async function makeDemoHome(): Promise<string> {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-demo-"));
  await installExamples(home);
  await fs.copyFile(path.join(examplesDir(), "config.yaml"), homePaths(home).config);
  return home;
}

/** Removes a home made by `makeDemoHome`. */
export async function removeDemoHome(home: string): Promise<void> {
  await fs.rm(home, { recursive: true, force: true });
}
