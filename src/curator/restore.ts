/**
 * Restoring an archived skill to where it lived (its category kept when the archive says where), or to
 * `skills/<name>` when that place is taken; journaled, ledgered, and its records put back in step.
 */

import path from "node:path";
import type { SkillgateConfig } from "../config/config.js";
import { homePaths } from "../config/home.js";
import { isoTimestamp, pathExists } from "../core/fsutil.js";
import { type Text, t } from "../core/i18n/messages.js";
import { destinationRefusal } from "../skills/containment.js";
import { UsageStore } from "../skills/usage.js";
import { emptyRecord } from "../skills/usage-record.js";
import { migrateArchiveLayout } from "./archive-layout.js";
import {
  assertSafeName,
  type MoveOptions,
  moveAnnounced,
  movedFiles,
  refuse,
  terminalPrefix,
} from "./archive-move.js";
import { recordRestored } from "./archive-records.js";
import { type ArchivedItem, listArchived, pickArchived } from "./archived-packages.js";
import { buildEntry, captureState, type LedgerEntry } from "./ledger.js";
import type { MoveIntent } from "./move-journal.js";
import { loadProvenance, type Provenance } from "./provenance.js";

/** Result of a restore. */
export interface RestoreResult {
  name: string;
  archivedAs: string;
  /** Relative to skills/. */
  restoredTo: string;
  dest: string;
  /** True when the original place was taken and the skill went to `skills/<name>` instead. */
  flattened: boolean;
}

/** Why a restore of `skillName` must not happen, or null. */
function restoreRefusal(skillName: string, provenance: Provenance, config: SkillgateConfig): Text | null {
  const name = skillName;
  if (provenance.hub.has(name)) return t("restore.refused.hub", { name });
  if (provenance.bundled.has(name) && !config.curator.pruneBuiltins)
    return t("restore.refused.bundled", { name });
  if (provenance.protected.has(name)) return t("restore.refused.protected", { name });
  return null;
}

/**
 * Restores an archived skill to where it lived (its category kept); when that place is taken it goes to
 * `skills/<name>`, and when that is taken too the restore is refused. State becomes active, archived_at is
 * cleared, the name leaves `.curator_suppressed`, and the move is ledgered.
 */
export async function restoreSkill(name: string, opts: MoveOptions): Promise<RestoreResult> {
  assertSafeName(name);
  const paths = homePaths(opts.home);
  const prefix = opts.commandPrefix ?? terminalPrefix;
  if (!(await pathExists(paths.archive))) throw refuse(t("cmd.restore.noArchive"), "curator.not_found");
  await migrateArchiveLayout(opts.home, opts.now);
  const item = pickArchived(await listArchived(opts.home), name, prefix);
  if (!item) {
    throw refuse(
      t("cmd.restore.notArchived", { name, command: prefix(["curator", "list-archived"]) }),
      "curator.not_found",
    );
  }
  const provenance = opts.provenance ?? (await loadProvenance(opts.home, []));
  const refusal = restoreRefusal(item.skillName, provenance, opts.config);
  if (refusal) throw refuse(refusal);
  const live = await opts.library.find(item.skillName);
  if (live) {
    throw refuse(t("cmd.restore.live", { name: item.skillName, dir: live.dir }));
  }
  let dest = path.join(paths.skills, ...item.restoreTo.split("/"));
  let flattened = false;
  if (await pathExists(dest)) {
    const flat = path.join(paths.skills, path.posix.basename(item.restoreTo));
    if (await pathExists(flat)) throw refuse(t("cmd.restore.destination", { dest, flat }));
    dest = flat;
    flattened = true;
  }
  const outside = destinationRefusal(paths.skills, dest, item.skillName);
  if (outside) throw refuse(outside, "curator.outside_library");
  await moveAnnounced(restoreIntent(item, dest, await restoreLedgerEntry(item, dest, opts), opts), opts, () =>
    recordRestored(opts.home, item.skillName, item.archivedAs),
  );
  opts.library.invalidate();
  const restoredTo = path.relative(paths.skills, dest).split(path.sep).join("/");
  return { name: item.skillName, archivedAs: item.archivedAs, restoredTo, dest, flattened };
}

/** The ledger line of restoring `item` to `dest`, captured before the move; null when it cannot be. */
async function restoreLedgerEntry(
  item: ArchivedItem,
  dest: string,
  opts: MoveOptions,
): Promise<LedgerEntry | null> {
  if (!opts.config.skills.ledger) return null;
  try {
    const before = await captureState(opts.home, [item.dir]);
    const usageBefore = await new UsageStore(homePaths(opts.home).skills).readRecord(item.skillName);
    const usageAfter = { ...(usageBefore ?? emptyRecord()), state: "active" as const, archived_at: null };
    return buildEntry({
      actor: opts.actor,
      action: "restore",
      skill: item.skillName,
      evidence: { archived_as: item.archivedAs, ...(opts.evidence ?? {}) },
      before: before.files,
      after: movedFiles(before.files, item.dir, dest),
      roots: [item.dir, dest],
      usage_before: usageBefore,
      usage_after: usageAfter,
    });
  } catch {
    // The ledger fails open: an audit problem never blocks the restore.
    return null;
  }
}

/** The journal intent of restoring `item` to `dest`. */
function restoreIntent(
  item: ArchivedItem,
  dest: string,
  entry: LedgerEntry | null,
  opts: MoveOptions,
): MoveIntent {
  const skills = homePaths(opts.home).skills;
  const relative = (file: string) => path.relative(skills, file).split(path.sep).join("/");
  return {
    kind: "restore",
    skill: item.skillName,
    from: relative(item.dir),
    to: relative(dest),
    archivedAs: item.archivedAs,
    suppressed: true,
    at: isoTimestamp(opts.now ?? new Date()),
    entry,
  };
}
