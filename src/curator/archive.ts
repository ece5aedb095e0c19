/**
 * Archive and restore, never delete. Packages go flat to `.archive/<name>` (the layout Hermes reads, see
 * `archive-layout.ts`), with a `-YYYYMMDDHHMMSS` suffix only when that place is taken; the category is
 * recorded in `.archive_origins.json`, for that very archive, so `restore` can put a skill back where it
 * lived (an archive without its own record takes the category from the ledger, or restores flat). Every
 * name `listArchived` reports is accepted by `restoreSkill`. Both moves are ledgered and keep
 * `.usage.json` (state, archived_at) and `.curator_suppressed` in step.
 *
 * This file archives one skill; the rest lives by concern and is re-exported here for the surfaces:
 * - `archive-move.ts`: options, names, the move itself and a single package's write-ahead;
 * - `archive-batch.ts`: many packages at once, written ahead per chunk;
 * - `archived-packages.ts`: what is archived, where each goes back, which one a name means;
 * - `restore.ts`: putting one back;
 * - `archive-records.ts`: the usage, origin and suppression bookkeeping of both;
 * - `archive-layout.ts`, `archive-ledger-origin.ts`: the shared layout and where an archive came from.
 */
import { homePaths } from "../config/home.js";
import { t } from "../core/i18n/messages.js";
import type { SkillEntry } from "../skills/types.js";
import { UsageStore } from "../skills/usage.js";
import { archiveBatch } from "./archive-batch.js";
import { type ArchiveResult, assertSafeName, type MoveOptions, refuse } from "./archive-move.js";

export { type ArchiveManyOptions, archiveMany, archiveRefusal, type MoveFailure } from "./archive-batch.js";
export {
  type ArchiveResult,
  assertSafeName,
  type CommandPrefix,
  type MoveOptions,
  terminalPrefix,
} from "./archive-move.js";
export { type ArchivedItem, listArchived, pickArchived } from "./archived-packages.js";
export { type RestoreResult, restoreSkill } from "./restore.js";

/**
 * Archives a live skill entry (the caller found it): a batch of one, journaled before it moves (see
 * `archiveMany`). Refusals throw `CuratorError`. The move, the usage record (state archived,
 * archived_at), the origin and the suppression list are recorded with one ledger entry.
 */
export async function archiveEntry(entry: SkillEntry, opts: MoveOptions): Promise<ArchiveResult> {
  const store = new UsageStore(homePaths(opts.home).skills);
  const done = await archiveBatch([{ entry }], { ...opts, usage: await store.read() });
  const failure = done.failures[0];
  if (failure) throw failure.error;
  return done.archived[0] as ArchiveResult;
}

/** Archives the skill called `name`: finds it, refuses what the reference refuses, moves it, ledgers it. */
export async function archiveSkill(name: string, opts: MoveOptions): Promise<ArchiveResult> {
  assertSafeName(name);
  const entry = await opts.library.find(name);
  if (!entry) throw refuse(t("cmd.op.notFound", { name }), "curator.not_found");
  return archiveEntry(entry, opts);
}
