/**
 * After a consolidation, cron jobs that named a merged skill are pointed at its umbrella, and jobs that
 * named a pruned skill drop it (#18671: stale references after consolidation). Only the `skills` list and
 * the legacy `skill` field change; the rest of `cron/jobs.json` is kept as it was. The rewrite holds the
 * jobs lock (`cron/.jobs.lock`, flocked between skillgate processes — Hermes takes no lock on the file; rollback takes it too) and replaces the file atomically.
 */
import { homePaths } from "../config/home.js";
import { atomicWriteFile, isoTimestamp, readTextIfExists, withLock } from "../core/fsutil.js";
import { normalizeSkillRef } from "./cron.js";
import type { CronRewrite, CronRewriteSummary } from "./types.js";

type Job = Record<string, unknown>;

/** The skill references of a job: its `skills` list, else its legacy `skill`. */
export function jobSkillRefs(job: Job): string[] {
  if (Array.isArray(job.skills)) return job.skills.filter((ref): ref is string => typeof ref === "string");
  return typeof job.skill === "string" && job.skill !== "" ? [job.skill] : [];
}

/**
 * Rewrites one job in place. A merged name becomes its umbrella (deduplicated, order kept), a pruned name
 * is dropped (a name in both maps counts as merged), then `skill` is the first remaining name or null.
 * Returns what changed, or null when the job references none of the names.
 */
export function rewriteJob(
  job: Job,
  merged: ReadonlyMap<string, string>,
  pruned: ReadonlySet<string>,
): Omit<CronRewrite, "job_id" | "job_name"> | null {
  const before = jobSkillRefs(job);
  const after: string[] = [];
  const mapped: Record<string, string> = {};
  const dropped: string[] = [];
  for (const ref of before) {
    const name = normalizeSkillRef(ref) ?? ref;
    const umbrella = merged.get(name);
    let next: string | null = ref;
    if (umbrella !== undefined) {
      next = umbrella;
      mapped[ref] = umbrella;
    } else if (pruned.has(name)) {
      next = null;
      dropped.push(ref);
    }
    if (next !== null && !after.includes(next)) after.push(next);
  }
  if (Object.keys(mapped).length === 0 && dropped.length === 0) return null;
  job.skills = after;
  job.skill = after[0] ?? null;
  return { before, after, mapped, dropped };
}

function jobsOf(document: unknown): Job[] | undefined {
  const list = Array.isArray(document) ? document : (document as { jobs?: unknown } | null)?.jobs;
  if (!Array.isArray(list)) return undefined;
  return list.filter((job): job is Job => job !== null && typeof job === "object" && !Array.isArray(job));
}

/**
 * Applies the rename map of a consolidation to `<home>/cron/jobs.json`. `merged` maps old → umbrella;
 * `pruned` lists skills archived without one. A missing jobs file means nothing to do; an unreadable one
 * is reported in `error` and left untouched.
 */
export async function rewriteCronReferences(
  home: string,
  merged: ReadonlyMap<string, string>,
  pruned: ReadonlySet<string>,
  now: Date = new Date(),
): Promise<CronRewriteSummary> {
  const summary: CronRewriteSummary = { rewrites: [], jobs_updated: 0, jobs_scanned: 0 };
  if (merged.size === 0 && pruned.size === 0) return summary;
  const file = homePaths(home).cronJobs;
  try {
    await withLock(
      homePaths(home).cronJobsLock,
      async () => {
        const text = await readTextIfExists(file);
        if (text === undefined) return;
        let document: unknown;
        try {
          document = JSON.parse(text.replace(/^\uFEFF/, ""));
        } catch {
          summary.error = "cron/jobs.json is not valid JSON; its skill references were not rewritten";
          return;
        }
        const jobs = jobsOf(document);
        if (!jobs) {
          summary.error = "cron/jobs.json has no jobs list; its skill references were not rewritten";
          return;
        }
        summary.jobs_scanned = jobs.length;
        for (const job of jobs) {
          const change = rewriteJob(job, merged, pruned);
          if (!change) continue;
          summary.rewrites.push({
            job_id: String(job.id ?? ""),
            job_name: typeof job.name === "string" ? job.name : "",
            ...change,
          });
        }
        summary.jobs_updated = summary.rewrites.length;
        if (summary.jobs_updated === 0) return;
        if (
          !Array.isArray(document) &&
          document !== null &&
          typeof document === "object" &&
          "updated_at" in document
        ) {
          (document as Record<string, unknown>).updated_at = isoTimestamp(now);
        }
        await atomicWriteFile(file, `${JSON.stringify(document, null, 2)}\n`);
      },
      { waitMs: 30_000, recordHolder: false },
    );
  } catch (error) {
    // Nothing was written: report no rewrites, only the error.
    summary.rewrites = [];
    summary.jobs_updated = 0;
    summary.error = `cron/jobs.json could not be rewritten: ${(error as Error).message}`;
  }
  return summary;
}
