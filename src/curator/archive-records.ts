/**
 * The bookkeeping an archive or restore keeps in step with the move: the skill's usage record (state,
 * `archived_at`), its archive origin and the suppression list `.curator_suppressed`.
 */

import { homePaths } from "../config/home.js";
import { isoTimestamp } from "../core/fsutil.js";
import { UsageStore } from "../skills/usage.js";
import { emptyRecord, type UsageMap } from "../skills/usage-record.js";
import { updateArchiveOrigins } from "./archive-layout.js";
import { removeSuppressed } from "./provenance.js";

/** Marks a skill archived now in the usage records. */
export function markArchived(records: UsageMap, name: string, now: Date): void {
  const record = records[name] ?? emptyRecord();
  record.state = "archived";
  record.archived_at = isoTimestamp(now);
  records[name] = record;
}

/**
 * Records a restore: the skill's usage state active (`archived_at` cleared), the archive folder's origin
 * forgotten and the name off the suppression list.
 */
export async function recordRestored(home: string, skillName: string, archivedAs: string): Promise<void> {
  await new UsageStore(homePaths(home).skills).update((records) => {
    const record = records[skillName] ?? emptyRecord();
    record.state = "active";
    record.archived_at = null;
    records[skillName] = record;
  });
  await updateArchiveOrigins(home, { [archivedAs]: null });
  await removeSuppressed(home, skillName);
}
