/** Fixtures for the curator tests: temp homes, skills with usage records, a tree hash, a command runner. */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { loadConfig, parseConfig, type SkillgateConfig } from "../../src/config/config.js";
import { isoTimestamp } from "../../src/core/fsutil.js";
import {
  createManageSession,
  type ManageContext,
  recordView,
  skillManage,
} from "../../src/curator/manage.js";
import { openLibrary } from "../../src/skills/library.js";
import { UsageStore } from "../../src/skills/usage.js";
import { emptyRecord, type UsageRecord } from "../../src/skills/usage-record.js";
import { madeForEachTest, makeTempHome, removeTempHome } from "../support/fresh-dir.js";

export const DAY = 86_400_000;

/** A fresh temp home with an empty `skills/`. */
export const makeHome = (): Promise<string> => makeTempHome("skillgate-curator-");

/** Removes a temp home. */
export const removeHome = removeTempHome;

/** A fresh temp home for each test of the enclosing `describe` (or file), handed to `use`, removed after. */
export function freshHomeEachTest(use: (home: string) => void): void {
  madeForEachTest(makeHome, removeHome, use);
}

/** A config from a YAML-like document (defaults for the rest). */
export function configWith(doc: Record<string, unknown> = {}): SkillgateConfig {
  return parseConfig(doc);
}

/** Writes `skills/<rel>/SKILL.md` (+ extra files) and returns the skill folder. */
export async function writeSkill(
  home: string,
  rel: string,
  extra: Record<string, string> = {},
  name = path.basename(rel),
): Promise<string> {
  const dir = path.join(home, "skills", rel);
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(
    path.join(dir, "SKILL.md"),
    `---\nname: ${name}\ndescription: ${name} does things\n---\n\nBody of ${name}.\n`,
  );
  for (const [file, text] of Object.entries(extra)) {
    await fs.mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await fs.writeFile(path.join(dir, file), text);
  }
  return dir;
}

/** A usage record `daysAgo` days idle (last used then) relative to `now`, managed unless told. */
export function record(now: Date, fields: Partial<UsageRecord> & { idleDays?: number } = {}): UsageRecord {
  const { idleDays, ...rest } = fields;
  const base = emptyRecord(isoTimestamp(new Date(now.getTime() - 400 * DAY)));
  base.created_by = "agent";
  if (idleDays !== undefined) {
    base.use_count = 1;
    base.last_used_at = isoTimestamp(new Date(now.getTime() - idleDays * DAY));
  }
  return { ...base, ...rest };
}

/** Replaces `.usage.json` with these records. */
export async function writeUsage(
  home: string,
  records: Record<string, UsageRecord | Record<string, unknown>>,
): Promise<void> {
  await fs.writeFile(path.join(home, "skills", ".usage.json"), JSON.stringify(records, null, 2));
}

/** Current usage records. */
export async function readUsage(home: string): Promise<Record<string, UsageRecord>> {
  return new UsageStore(path.join(home, "skills")).read();
}

/** Hash of every path and content under `skills/`, minus `.curator_state` and lock files. */
export async function skillsTreeHash(home: string): Promise<string> {
  const hash = createHash("sha256");
  const walk = async (dir: string, rel: string): Promise<void> => {
    for (const name of (await fs.readdir(dir)).sort()) {
      const childRel = rel ? `${rel}/${name}` : name;
      if (childRel === ".curator_state" || childRel === ".locks" || name.endsWith(".lock")) continue;
      const abs = path.join(dir, name);
      const stat = await fs.lstat(abs);
      if (stat.isDirectory()) {
        hash.update(`D ${childRel}\n`);
        await walk(abs, childRel);
      } else {
        hash.update(
          `F ${childRel} ${createHash("sha256")
            .update(await fs.readFile(abs))
            .digest("hex")}\n`,
        );
      }
    }
  };
  await walk(path.join(home, "skills"), "");
  return hash.digest("hex");
}

/**
 * A foreground `skill_manage` session over `home` (its config.yaml as written) that has viewed skill
 * `name`: returns a patch of that skill's text, as the agent would send it.
 */
export function foregroundPatcher(home: string, name: string) {
  const config = loadConfig(path.join(home, "config.yaml"));
  const ctx = {
    home,
    config,
    library: openLibrary(home, config),
    session: createManageSession({ origin: "foreground" }),
  };
  return (old_string: string, new_string: string) => patchAfterView(ctx, name, old_string, new_string);
}

/** `ctx`'s session views skill `name` (as `skill_manage` requires), then patches its text. */
export function patchAfterView(ctx: ManageContext, name: string, old_string: string, new_string: string) {
  recordView(ctx.session, name);
  return skillManage(ctx, { action: "patch", name, old_string, new_string });
}
