/**
 * Skill references held by cron jobs (`<home>/cron/jobs.json`). A skill named by any job — paused or
 * disabled jobs included — is never auto-staled, archived or pruned. Jobs reference skills through a
 * `skills` list and the legacy `skill` field; absolute-path references are reduced to bare names.
 */
import { homePaths } from "../config/home.js";
import { errorCause } from "../core/errors.js";
import { readTextIfExists } from "../core/fsutil.js";
import { english, type Text, t } from "../core/i18n/messages.js";

/**
 * The cron references of a home, plus warnings when the jobs file could not be read (in English, and
 * as texts for the reader).
 */
export interface CronRefs {
  names: Set<string>;
  warnings: string[];
  warningTexts: Text[];
}

/** No references, and `warning` when there is one. */
function noRefs(warning?: Text): CronRefs {
  return warning === undefined
    ? { names: new Set(), warnings: [], warningTexts: [] }
    : { names: new Set(), warnings: [english(warning)], warningTexts: [warning] };
}

/**
 * Reduces a job's skill reference to a bare skill name: `/abs/skills/cat/foo/SKILL.md`, `cat/foo/` and
 * `foo` all become `foo`. Returns null for empty values.
 */
export function normalizeSkillRef(ref: string): string | null {
  let value = ref.trim().replace(/\\/g, "/");
  value = value.replace(/\/SKILL\.md$/i, "").replace(/\/+$/, "");
  const last = value.split("/").pop() ?? "";
  return last === "" || last === "." || last === ".." ? null : last;
}

function jobList(data: unknown): unknown[] {
  if (Array.isArray(data)) return data;
  const jobs = (data as { jobs?: unknown } | null)?.jobs;
  return Array.isArray(jobs) ? jobs : [];
}

/** The skill names a parsed `jobs.json` document references. */
export function cronRefsFromJobs(data: unknown): Set<string> {
  const names = new Set<string>();
  for (const job of jobList(data)) {
    if (job === null || typeof job !== "object") continue;
    const { skills, skill } = job as { skills?: unknown; skill?: unknown };
    const refs = [...(Array.isArray(skills) ? skills : []), skill];
    for (const ref of refs) {
      if (typeof ref !== "string") continue;
      const name = normalizeSkillRef(ref);
      if (name) names.add(name);
    }
  }
  return names;
}

/** Reads the cron references of `home`. A missing file has none; an unreadable one has none plus a warning. */
export async function readCronRefs(home: string): Promise<CronRefs> {
  const file = homePaths(home).cronJobs;
  let text: string | undefined;
  try {
    text = await readTextIfExists(file);
  } catch (error) {
    return noRefs(t("cron.unreadable", { file, cause: errorCause(error) }));
  }
  if (text === undefined) return noRefs();
  try {
    return {
      names: cronRefsFromJobs(JSON.parse(text.replace(/^\uFEFF/, ""))),
      warnings: [],
      warningTexts: [],
    };
  } catch {
    return noRefs(t("cron.invalid", { file }));
  }
}
