/**
 * A rollback puts back the cron jobs' skill links the snapshot recorded (`cron-jobs.json`), for the jobs
 * that still exist.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { homePaths } from "../config/home.js";
import { atomicWriteFile, withLock } from "../core/fsutil.js";
import { type Text, t } from "../core/i18n/messages.js";
import type { SnapshotInfo } from "./snapshot.js";

/** How many cron jobs got their skill links back. */
export interface CronRestoreResult {
  restored: number;
  skipped: number;
  matched: number;
  /** Why cron links were not considered, when they were not. */
  note?: string;
}

type CronJob = Record<string, unknown> & { id?: unknown };

/**
 * Puts back the `skills`/`skill` fields of jobs that still exist (matched by id) from the snapshot's
 * `cron-jobs.json`. Jobs created since are untouched; deleted ones are counted as skipped.
 */
export async function restoreCronLinks(home: string, snapshot: SnapshotInfo): Promise<CronRestoreResult> {
  const result: CronRestoreResult = { restored: 0, skipped: 0, matched: 0 };
  let backed: CronJob[];
  try {
    const doc = JSON.parse(await fs.readFile(path.join(snapshot.dir, "cron-jobs.json"), "utf8")) as {
      jobs?: unknown;
    };
    backed = Array.isArray(doc?.jobs) ? (doc.jobs as CronJob[]) : [];
  } catch {
    return { ...result, note: "no readable cron-jobs.json in the snapshot" };
  }
  const live = homePaths(home).cronJobs;
  await withLock(
    homePaths(home).cronJobsLock,
    async () => {
      let doc: { jobs?: unknown };
      try {
        doc = JSON.parse(await fs.readFile(live, "utf8")) as { jobs?: unknown };
      } catch {
        result.skipped = backed.length;
        result.note = "cron/jobs.json is missing or unreadable";
        return;
      }
      const jobs = Array.isArray(doc?.jobs) ? (doc.jobs as CronJob[]) : [];
      const byId = new Map(jobs.filter((job) => job && typeof job === "object").map((job) => [job.id, job]));
      let changed = false;
      for (const old of backed) {
        const job = old && typeof old === "object" ? byId.get(old.id) : undefined;
        if (!job) {
          result.skipped++;
          continue;
        }
        if (
          JSON.stringify(job.skills) === JSON.stringify(old.skills) &&
          JSON.stringify(job.skill) === JSON.stringify(old.skill)
        ) {
          result.matched++;
          continue;
        }
        for (const key of ["skills", "skill"]) {
          if (key in old) job[key] = old[key];
          else delete job[key];
        }
        result.restored++;
        changed = true;
      }
      if (changed) await atomicWriteFile(live, JSON.stringify(doc, null, 2));
    },
    { waitMs: 30_000, recordHolder: false },
  );
  return result;
}

/** What a rollback did to the cron jobs' skill links, one text per kind (none when there were none). */
export function cronParts(cron: CronRestoreResult): Text[] {
  const parts: Text[] = [];
  if (cron.restored > 0) parts.push(t("cmd.rollback.cronRestored", { count: cron.restored }));
  if (cron.skipped > 0) parts.push(t("cmd.rollback.cronSkipped", { count: cron.skipped }));
  if (cron.matched > 0) parts.push(t("cmd.rollback.cronMatched", { count: cron.matched }));
  return parts;
}
