/**
 * Shapes shared by the curator's modules: the plan, the run result, the consolidation seam and the
 * provenance classification. Kept free of logic so every module (and other engineers) can import them.
 */
import type { SkillgateConfig } from "../config/config.js";
import type { Text } from "../core/i18n/messages.js";
import type { ProgressSink } from "../core/progress.js";
import type { ConsolidatedEntry, PrunedEntry } from "../llm/classify.js";

import type { SkillLibrary } from "../skills/types.js";
import type { SkillState } from "../skills/usage-record.js";

/** Counts of the automatic (time-based, no LLM) pass, as `run.json` names them. */
export interface AutoTransitionCounts {
  checked: number;
  marked_stale: number;
  archived: number;
  reactivated: number;
  seeded: number;
}

/** What the plan decided for one skill. */
export type PlanActionKind = "seed" | "stale" | "archive" | "reactivate";

/** One transition the plan asks `applyPlan` to perform. */
export interface PlanAction {
  kind: PlanActionKind;
  name: string;
  /** Skill folder relative to `<home>/skills` (category kept), when the skill is live on disk. */
  relPath?: string;
  from?: SkillState;
  to?: SkillState;
  /** The activity anchor the decision was based on (ISO), or null for seeds. */
  anchor: string | null;
  /** Whole days since the anchor. */
  idleDays: number;
  /** Set for seeds: also re-anchor the clock of a never-touched bundled skill (`first_seen_at`). */
  reanchor?: boolean;
}

/** Why the plan left a curated skill alone. */
export type SkipReason = "pinned" | "cron" | "grace";

/** The pure result of `plan()`. */
export interface CuratorPlan {
  /** The clock the plan was made with (ISO, Hermes format). */
  now: string;
  counts: AutoTransitionCounts;
  actions: PlanAction[];
  skipped: { name: string; reason: SkipReason }[];
  /** Names of the curated skills considered, in order. */
  candidates: string[];
  /** True when any action changes a skill's state or location (seeds alone do not count). */
  changes: boolean;
}

/** One cron job whose skill links were rewritten after a consolidation. */
export interface CronRewrite {
  job_id: string;
  job_name: string;
  before: string[];
  after: string[];
  mapped: Record<string, string>;
  dropped: string[];
}

/** The cron rewrite summary of a run. */
export interface CronRewriteSummary {
  rewrites: CronRewrite[];
  jobs_updated: number;
  jobs_scanned: number;
  error?: string;
}

/** What the LLM consolidation pass reports back to the run. */
export interface ConsolidationOutcome {
  consolidated: ConsolidatedEntry[];
  pruned: PrunedEntry[];
  /** Skills the pass created. */
  added: string[];
  toolCalls: { name: string; arguments: string }[];
  model: string | null;
  provider: string | null;
  /** The model's final message, verbatim. */
  final: string;
  /** One-line summary for the run summary (`llm: <summary>`). */
  summary: string;
  /** Set when the pass failed; the run continues. */
  error: string | null;
  cronRewrites: CronRewriteSummary | null;
  /** The snapshot the pass took before changing anything, when the automatic pass took none. */
  snapshotId?: string | null;
}

/** Input handed to the consolidation pass. */
export interface ConsolidatorInput {
  home: string;
  config: SkillgateConfig;
  library: SkillLibrary;
  dryRun: boolean;
  now: Date;
  /** The pass's progress lines (the terminal's stderr), as texts the surface resolves for its reader. */
  progress: (line: Text) => void;
  /** Counted progress (model turns of the pass; its snapshot). */
  meter?: ProgressSink;
  /** The process is stopping: the pass ends between two tool calls. */
  signal?: AbortSignal;
}

/** The LLM seam: the consolidation engineer supplies one; the run calls it when consolidating. */
export type Consolidator = (input: ConsolidatorInput) => Promise<ConsolidationOutcome>;

/** One line of the rename map. */
export type RenameEntry =
  | { kind: "consolidated"; name: string; into: string }
  | { kind: "pruned"; name: string };

/** The rename map of a run: umbrella moves first, then skills archived for staleness. */
export interface RenameMap {
  entries: RenameEntry[];
  /** Alphabetically first umbrella, when anything was consolidated (the pin hint names it). */
  pinHint: string | null;
}

/** The LLM part of a run, as reported. */
export interface LlmReport {
  /** `skipped (consolidation off)`, `skipped (no model configured)`, `skipped (no candidates)`, or the outcome summary. */
  status: string;
  model: string | null;
  provider: string | null;
  final: string;
  summary: string;
  error: string | null;
  toolCalls: { name: string; arguments: string }[];
}

/** Everything a curator run did (or, for a dry run, would do). */
export interface CuratorRunResult {
  startedAt: string;
  durationSeconds: number;
  dryRun: boolean;
  trigger: "manual" | "auto";
  /** Anything changed on disk (a dry run never does). The gateway posts only then. */
  changed: boolean;
  /** Counts of the automatic pass (a dry run shows what it would do). */
  autoTransitions: AutoTransitionCounts;
  /** The summary line(s) stored as `last_run_summary`, rename map included. */
  summary: string;
  /** `REPORT.md` of this run, or null when it could not be written. */
  reportPath: string | null;
  snapshotId: string | null;
  renameMap: RenameMap;
  /** Names archived by the automatic pass (planned ones for a dry run). */
  archived: string[];
  stateTransitions: { name: string; from: SkillState; to: SkillState }[];
  consolidated: ConsolidatedEntry[];
  pruned: PrunedEntry[];
  added: string[];
  llm: LlmReport;
  cronRewrites: CronRewriteSummary | null;
  /** Curated names before and after the LLM pass. */
  before: string[];
  after: string[];
  /** Non-fatal problems (unreadable cron file, failed archive of one skill…), in English. */
  warnings: string[];
  /** The same problems as texts for the reader. */
  warningTexts: Text[];
  /** The process was stopping: the run ended at a safe point before finishing its pass. */
  interrupted?: boolean;
}

/** Where a skill comes from, for the curator. */
export type ProvenanceKind = "bundled" | "hub" | "external" | "protected" | "agent" | "unmanaged";

/** Why an eligible skill is not curator-managed. */
export type UnmanagedReason = "pre-dates marker" | "foreground-created";
