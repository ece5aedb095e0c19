/** Temp homes with skills, usage records and config for the LLM tests. */
import { promises as fs } from "node:fs";
import path from "node:path";
import { parseConfig, type SkillgateConfig } from "../../src/config/config.js";
import { homePaths } from "../../src/config/home.js";
import { stableJson } from "../../src/core/fsutil.js";
import { openLibrary } from "../../src/skills/library.js";
import type { SkillLibrary } from "../../src/skills/types.js";
import { emptyRecord, type UsageRecord } from "../../src/skills/usage-record.js";
import { madeForEachTest, makeTempHome, removeTempHome } from "../support/fresh-dir.js";

/** A fresh temp home with an empty `skills/`. */
export const makeHome = (): Promise<string> => makeTempHome("skillgate-llm-");

/** Removes a temp home. */
export const removeHome = removeTempHome;

/** A fresh temp home for each test of the enclosing `describe` (or file), handed to `use`, removed after. */
export function freshHomeEachTest(use: (home: string) => void): void {
  madeForEachTest(makeHome, removeHome, use);
}

/** SKILL.md text with a frontmatter name and description. */
export function skillMd(
  name: string,
  description: string,
  body = `# ${name}\n\nHow to do ${name}.\n`,
  extra = "",
): string {
  return `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\n${body}`;
}

/** Writes a skill package under `<home>/skills/<relPath>`. */
export async function writeSkill(
  home: string,
  relPath: string,
  options: { description?: string; body?: string; extra?: string; files?: Record<string, string> } = {},
): Promise<string> {
  const dir = path.join(home, "skills", ...relPath.split("/"));
  const name = path.basename(dir);
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(
    path.join(dir, "SKILL.md"),
    skillMd(name, options.description ?? `Use for ${name} tasks.`, options.body, options.extra),
  );
  for (const [file, text] of Object.entries(options.files ?? {})) {
    await fs.mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await fs.writeFile(path.join(dir, file), text);
  }
  return dir;
}

/** Writes `.usage.json` records (missing keys filled). */
export async function writeUsage(home: string, records: Record<string, Partial<UsageRecord>>): Promise<void> {
  const full: Record<string, UsageRecord> = {};
  for (const [name, record] of Object.entries(records))
    full[name] = { ...emptyRecord("2026-01-01T00:00:00+00:00"), ...record };
  await fs.writeFile(homePaths(home).usage, stableJson(full));
}

/** Reads `.usage.json`. */
export async function readUsage(home: string): Promise<Record<string, UsageRecord>> {
  try {
    return JSON.parse(await fs.readFile(homePaths(home).usage, "utf8"));
  } catch {
    return {};
  }
}

/** A config from a config.yaml-shaped document. */
export function config(document: Record<string, unknown> = {}): SkillgateConfig {
  return parseConfig(document);
}

/** A fresh library (watchers off) for a home. */
export function library(home: string, cfg: SkillgateConfig, env: NodeJS.ProcessEnv = {}): SkillLibrary {
  return openLibrary(home, cfg, { watch: false, env });
}

/** Every file under `dir` with its content, for before/after comparisons (missing dir → {}). */
export async function treeOf(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (current: string): Promise<void> => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = await fs.readdir(current, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) out[path.relative(dir, full)] = await fs.readFile(full, "utf8");
    }
  };
  await walk(dir);
  return out;
}
