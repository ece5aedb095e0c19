/**
 * A curator run: take the one run lock, read state, plan the automatic transitions, apply them (after a
 * snapshot when anything changes), hand over to the optional LLM consolidation pass, then write the
 * report and the state. `maybeRunCurator` is the automatic entry point with every scheduling gate.
 */
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { SkillgateConfig } from "../config/config.js";
import { homePaths } from "../config/home.js";
import { CuratorError, errorCause } from "../core/errors.js";
import { checkWriteFence } from "../core/fence.js";
import { isoTimestamp } from "../core/fsutil.js";
import { addWarning, type Text, t, type WarningLists } from "../core/i18n/messages.js";
import type { ProgressSink } from "../core/progress.js";
import type { HeldRunLock, RunLock } from "../core/stores.js";
import { everySkillOnDisk } from "../skills/library.js";
import { searchIndexOf } from "../skills/search.js";
import { findOverlaps } from "../skills/search-overlaps.js";
import type { SkillLibrary } from "../skills/types.js";
import { UsageStore } from "../skills/usage.js";
import { parseTimestamp } from "../skills/usage-record.js";
import { type ApplyOutcome, applyPlan } from "./apply.js";
import { type CommandPrefix, terminalPrefix } from "./archive-move.js";
import { readCronRefs } from "./cron.js";
import { fileRunLock } from "./lock.js";
import { curatedRows, plan } from "./plan.js";
import { loadProvenance } from "./provenance.js";
import { recoverUnderRunLock } from "./recovery.js";
import { buildRenameMap, headline, REPORT_OVERLAPS, renameMapText, writeRunReport } from "./report.js";
import { scheduleVerdict, seedFirstRun } from "./schedule.js";
import { beginSnapshot, type PendingSnapshot } from "./snapshot.js";
import { type CuratorState, readState, updateState } from "./state.js";
import type { ConsolidationOutcome, Consolidator, CuratorRunResult, LlmReport } from "./types.js";

/** Options of a run. */
export interface RunOptions {
  home: string;
  config: SkillgateConfig;
  library: SkillLibrary;
  now?: Date;
  dryRun?: boolean;
  /** Forces the LLM pass on (true) or off (false); default `curator.consolidate`. */
  consolidate?: boolean;
  trigger: "manual" | "auto";
  /** The run's progress lines (the terminal's stderr), as texts the surface resolves for its reader. */
  progress?: (line: Text) => void;
  /** Counted progress of the long parts (the snapshot, the archives). */
  meter?: ProgressSink;
  /** The LLM consolidation pass; without one a consolidating run reports `llm: skipped (no model configured)`. */
  consolidator?: Consolidator;
  /** How the surface spells commands in stored summaries; default the terminal's `skillgate …`. */
  commandPrefix?: CommandPrefix;
  /** The run lock; default the file lock of `home`. */
  runLock?: RunLock;
  /**
   * The process is stopping: the run stops at its next safe point — before the snapshot is kept nothing
   * changes (`curator.interrupted`), during the archives the batch records what it moved and ends, and
   * the model pass ends between two tool calls. An interrupted run does not count as the period's run.
   */
  signal?: AbortSignal;
}

/** Result of `maybeRunCurator`. */
export interface MaybeRunResult {
  ran: boolean;
  reason: string;
  result?: CuratorRunResult;
}

/** Runs the curator now (manual or automatic trigger). Throws `curator.locked` when another run holds the lock. */
export async function runCurator(opts: RunOptions): Promise<CuratorRunResult> {
  if (!opts.config.curator.enabled) {
    throw new CuratorError("run", t("cmd.run.disabledError"), {
      code: "curator.disabled",
    });
  }
  const lock = await (opts.runLock ?? fileRunLock(opts.home)).acquire();
  try {
    return await runLocked(opts);
  } finally {
    await lock.release();
  }
}

/**
 * The automatic entry point: runs only when enabled, not paused, past the first-run deferral, one
 * interval after the last run, and idle for `min_idle_hours`. A fresh home only gets its clock seeded.
 * Never throws: a failure comes back as `{ran: false, reason}`.
 */
export async function maybeRunCurator(
  opts: RunOptions & { idleForSeconds: number },
): Promise<MaybeRunResult> {
  const now = opts.now ?? new Date();
  const prefix = opts.commandPrefix ?? terminalPrefix;
  try {
    const verdict = scheduleVerdict(
      (await readState(opts.home)).state,
      opts.config.curator,
      now,
      opts.idleForSeconds,
    );
    if (verdict.due === false && verdict.seed) {
      await updateState(opts.home, (state) => {
        if (state.last_run_at === null || parseTimestamp(state.last_run_at) === undefined)
          seedFirstRun(state, now, prefix);
      });
      return { ran: false, reason: verdict.reason };
    }
    if (!verdict.due) return { ran: false, reason: verdict.reason };
    let lock: HeldRunLock;
    try {
      lock = await (opts.runLock ?? fileRunLock(opts.home)).acquire();
    } catch (error) {
      if (error instanceof CuratorError && error.code === "curator.locked")
        return { ran: false, reason: "another run in progress" };
      throw error;
    }
    try {
      // Another process may have finished a run between our check and the lock: decide again.
      const again = scheduleVerdict(
        (await readState(opts.home)).state,
        opts.config.curator,
        now,
        opts.idleForSeconds,
      );
      if (!again.due) return { ran: false, reason: again.reason };
      const result = await runLocked({ ...opts, now, trigger: "auto" });
      return { ran: true, reason: "due", result };
    } finally {
      await lock.release();
    }
  } catch (error) {
    return { ran: false, reason: `failed: ${(error as Error).message}` };
  }
}

async function curatedNames(opts: RunOptions): Promise<string[]> {
  opts.library.invalidate();
  const skills = await everySkillOnDisk(opts.library);
  const usage = await new UsageStore(homePaths(opts.home).skills).read();
  const provenance = await loadProvenance(opts.home, skills);
  return curatedRows({ skills, usage, provenance, config: opts.config }).map((row) => row.name);
}

function skippedLlm(status: string): LlmReport {
  return {
    status: `skipped (${status})`,
    model: null,
    provider: null,
    final: "",
    summary: "",
    error: null,
    toolCalls: [],
  };
}

/** True when the run has an LLM pass to hand over to (it may still skip for want of candidates). */
function willConsolidate(opts: RunOptions): boolean {
  return (opts.consolidate ?? opts.config.curator.consolidate) && opts.consolidator !== undefined;
}

async function runLlm(opts: RunOptions, candidates: string[], now: Date, progress: (line: Text) => void) {
  const consolidate = opts.consolidate ?? opts.config.curator.consolidate;
  if (!consolidate) return { report: skippedLlm("consolidation off"), outcome: null };
  if (!opts.consolidator) return { report: skippedLlm("no model configured"), outcome: null };
  if (candidates.length === 0) return { report: skippedLlm("no candidates"), outcome: null };
  let outcome: ConsolidationOutcome;
  try {
    outcome = await opts.consolidator({
      home: opts.home,
      config: opts.config,
      library: opts.library,
      dryRun: opts.dryRun ?? false,
      now,
      progress,
      meter: opts.meter,
      signal: opts.signal,
    });
  } catch (error) {
    const message = (error as Error).message;
    return { report: { ...skippedLlm(""), status: `error (${message})`, error: message }, outcome: null };
  }
  const report: LlmReport = {
    status: outcome.error ? `error (${outcome.error})` : outcome.summary || "no change",
    model: outcome.model,
    provider: outcome.provider,
    final: outcome.final,
    summary: outcome.summary,
    error: outcome.error,
    toolCalls: outcome.toolCalls,
  };
  return { report, outcome };
}

function beforeNames(candidates: string[], applied: ApplyOutcome): string[] {
  const gone = new Set(applied.archived.map((item) => item.name));
  return candidates.filter((name) => !gone.has(name));
}

/**
 * Begins the pre-run snapshot (none for a dry run or with backups off). A snapshot that cannot even
 * begin fails only when the plan needs it: `keep` then throws the reason.
 */
async function beginPreRunSnapshot(
  opts: RunOptions,
  now: Date,
  dryRun: boolean,
): Promise<PendingSnapshot | undefined> {
  if (dryRun || !opts.config.curator.backup.enabled) return undefined;
  try {
    return await beginSnapshot({
      home: opts.home,
      config: opts.config,
      reason: "pre-curator-run",
      now,
      meter: opts.meter,
      signal: opts.signal,
    });
  } catch (error) {
    return {
      keep: () => Promise.reject(error),
      discard: () => Promise.resolve(),
    };
  }
}

/** Reads what the plan needs and plans the automatic pass for `now`. */
async function planRun(opts: RunOptions, now: Date, warnings: WarningLists) {
  opts.library.invalidate();
  const skills = await everySkillOnDisk(opts.library);
  const store = new UsageStore(homePaths(opts.home).skills);
  // The shared parse: apply's re-check reuses it while the file is unchanged.
  const usage = await store.readShared();
  const provenance = await loadProvenance(opts.home, skills);
  const cron = await readCronRefs(opts.home);
  for (const text of [...store.warningTexts, ...provenance.warningTexts, ...cron.warningTexts])
    addWarning(warnings, text);
  const curatorPlan = plan({ skills, usage, cronRefs: cron.names, provenance, now, config: opts.config });
  return { curatorPlan, provenance, skills };
}

/**
 * Writes the report (best-effort) and the final state of a run, in one state write (`markRun`: the
 * run's own record, when it was not written before the LLM pass).
 */
async function finishRun(
  opts: RunOptions,
  result: CuratorRunResult,
  prefix: CommandPrefix,
  markRun?: (state: CuratorState) => void,
): Promise<void> {
  try {
    const overlaps = await findOverlaps(opts.library, { limit: REPORT_OVERLAPS }).catch(() => []);
    result.reportPath = await writeRunReport(opts.home, result, prefix, overlaps);
  } catch (error) {
    addWarning(result, t("run.reportFailed", { cause: errorCause(error) }));
  }
  // A dry run's report stays in logs/curator/; the state keeps pointing at the last real run.
  if (result.dryRun) return;
  await updateState(opts.home, (state) => {
    markRun?.(state);
    state.last_run_summary = result.summary;
    state.last_run_duration_seconds = Math.round(result.durationSeconds * 100) / 100;
    // The run folder, as Hermes stores it (REPORT.md, run.json and cron_rewrites.json live in it).
    if (result.reportPath) state.last_report_path = path.dirname(result.reportPath);
  });
}

async function runLocked(opts: RunOptions): Promise<CuratorRunResult> {
  const started = opts.now ?? new Date();
  const clockStart = performance.now();
  const dryRun = opts.dryRun ?? false;
  const prefix = opts.commandPrefix ?? terminalPrefix;
  const progress = opts.progress ?? (() => undefined);
  const warnings: WarningLists = { warnings: [], warningTexts: [] };
  progress(t(dryRun ? "run.progress.dryRun" : "run.progress.review"));
  // A replica that does not lead the home starts no run that writes (the batches check again).
  if (!dryRun) await checkWriteFence(opts.home, t("fence.what.curatorRun"));
  // What an interrupted run or rollback left is repaired first, under the run lock this run holds.
  if (!dryRun)
    for (const note of await recoverUnderRunLock(opts.home, opts.config, { blobs: true })) {
      progress(note);
      addWarning(warnings, note);
    }

  // The pre-run snapshot is written (off the main thread) while the run plans; apply keeps it when the
  // plan changes anything and discards it otherwise.
  const snapshot = await beginPreRunSnapshot(opts, started, dryRun);
  let applied: ApplyOutcome;
  let planned: Awaited<ReturnType<typeof planRun>>;
  try {
    planned = await planRun(opts, started, warnings);
    // The report lists overlapping skills (`finishRun`) from the search index, which a home never
    // searched builds from every SKILL.md (~1.5 s at 10k). Brought up to date now, while the snapshot is
    // still being written on its own thread, it leaves the report only what the run changed to re-read.
    if (snapshot)
      await searchIndexOf(opts.library)
        .sync()
        .catch(() => undefined);
    applied = await applyPlan(planned.curatorPlan, {
      home: opts.home,
      config: opts.config,
      library: opts.library,
      // The transitions are the curator's decisions, whoever asked for the run.
      actor: "curator",
      dryRun,
      provenance: planned.provenance,
      skills: planned.skills,
      meter: opts.meter,
      snapshot,
      signal: opts.signal,
    });
  } finally {
    await snapshot?.discard();
  }
  const { curatorPlan } = planned;
  if (applied.snapshotId) progress(t("run.progress.snapshot", { id: applied.snapshotId }));
  for (const failure of applied.failures)
    addWarning(warnings, t("run.archiveFailed", { name: failure.name, cause: failure.text }));
  const startedAt = isoTimestamp(started);
  const interrupted = applied.interrupted;
  // A dry run records nothing in the state: `curator status` keeps describing the last real run.
  const markRun = (state: CuratorState) => {
    if (dryRun) return;
    state.last_run_summary = headline(dryRun, applied.counts);
    // An interrupted run is not the period's run: the next tick after the restart finishes the pass.
    if (interrupted) return;
    state.last_run_at = startedAt;
    state.run_count += 1;
  };
  const consolidating = willConsolidate(opts);
  // Before a (long) LLM pass the run is recorded at once; without one, the final state write does it.
  if (consolidating) await updateState(opts.home, markRun);

  // The curated set after the automatic pass is the plan's minus what it archived; the library is read
  // again only for a pass that hands it to the model, which must see the disk as it is now.
  const before =
    dryRun || !consolidating ? beforeNames(curatorPlan.candidates, applied) : await curatedNames(opts);
  const llm = interrupted
    ? { report: skippedLlm("the process is shutting down"), outcome: null }
    : await runLlm(opts, before, started, progress);
  const after = llm.outcome && !dryRun ? await curatedNames(opts) : before;
  const consolidated = llm.outcome?.consolidated ?? [];
  const pruned = llm.outcome?.pruned ?? [];
  const added = llm.outcome?.added ?? [];
  const archived = applied.archived.map((item) => item.name);
  const renameMap = buildRenameMap(consolidated, pruned, archived);
  const mapText = renameMapText(renameMap, prefix, dryRun);
  const result: CuratorRunResult = {
    startedAt,
    durationSeconds: (performance.now() - clockStart) / 1000,
    dryRun,
    trigger: opts.trigger,
    changed:
      !dryRun && (applied.transitions.length > 0 || consolidated.length + pruned.length + added.length > 0),
    autoTransitions: applied.counts,
    summary:
      headline(dryRun, applied.counts, llm.report.status) +
      (interrupted ? "; stopped early (the process was shutting down), the rest at the next run" : "") +
      (mapText ? `\n${mapText}` : ""),
    reportPath: null,
    snapshotId: applied.snapshotId ?? llm.outcome?.snapshotId ?? null,
    renameMap,
    archived,
    stateTransitions: applied.transitions,
    consolidated,
    pruned,
    added,
    llm: llm.report,
    cronRewrites: llm.outcome?.cronRewrites ?? null,
    before,
    after,
    ...warnings,
    interrupted,
  };
  await finishRun(opts, result, prefix, consolidating ? undefined : markRun);
  return result;
}
