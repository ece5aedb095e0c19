/**
 * The curator's LLM consolidation pass (opt-in: `curator.consolidate: true` or `curator run
 * --consolidate`). A model reviews the curator-managed skills with three tools only — `skills_list`,
 * `skill_view`, `skill_manage` — and folds overlapping skills into class-level umbrellas. Guard rails:
 * a snapshot first; `skill_manage` under the background-review origin (pinned, hub, bundled, external and
 * unmanaged skills refused, every delete names its umbrella and becomes an archive); iteration and time
 * caps; the outcome classified from evidence, not from the model's say-so; cron jobs re-pointed at the
 * umbrellas. A dry run tells the model it is report-only and offers no tool that writes.
 */
import type { SkillgateConfig } from "../config/config.js";
import { homePaths } from "../config/home.js";
import { isoTimestamp } from "../core/fsutil.js";
import { english, lines as linesOf, type Text, t } from "../core/i18n/messages.js";
import { meterFor } from "../core/progress.js";
import type { ConsolidatedEntry, PrunedEntry } from "../llm/classify.js";
import {
  type ClassifyInput,
  classifyPass,
  parseStructuredSummary,
  type RecordedCall,
} from "../llm/classify.js";
import {
  type ChatMessage,
  type ClientOptions,
  createModelClient,
  type ModelClient,
  ModelError,
} from "../llm/client.js";
import { type ResolvedModel, resolveCuratorModel } from "../llm/config.js";
import type { SkillLibrary } from "../skills/types.js";
import { UsageStore } from "../skills/usage.js";
import { rewriteCronReferences } from "./cron-rewrite.js";
import { createManageSession } from "./manage.js";
import { type CuratedRow, curatedRows } from "./plan.js";
import { loadProvenance } from "./provenance.js";
import { listCandidates, reviewPrompt } from "./review-prompt.js";
import { runCurator } from "./run.js";
import { createSnapshot, listSnapshots } from "./snapshot.js";
import { runToolCall, type SkillToolName, type ToolRuntime, toolDefinitions } from "./tools.js";
import type { ConsolidationOutcome, Consolidator, ConsolidatorInput } from "./types.js";

/** Longest tool result handed back to the model (characters). */
const MAX_TOOL_OUTPUT = 60_000;

/** Test and embedding seams. */
export interface ConsolidatorOptions {
  /** Environment for secret lookups (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Client tuning (retries, backoff). */
  clientOptions?: ClientOptions;
  /** Replaces the client factory. */
  createClient?: (model: ResolvedModel) => ModelClient;
}

/** Builds the consolidation pass the curator run calls. */
export function createConsolidator(options: ConsolidatorOptions = {}): Consolidator {
  return (input) => consolidate(input, options);
}

/** The consolidation pass with default settings. */
export const consolidator: Consolidator = createConsolidator();

function emptyOutcome(): ConsolidationOutcome {
  return {
    consolidated: [],
    pruned: [],
    added: [],
    toolCalls: [],
    model: null,
    provider: null,
    final: "",
    summary: "",
    error: null,
    cronRewrites: null,
  };
}

async function curatedNames(input: ConsolidatorInput): Promise<string[]> {
  input.library.invalidate();
  const skills = await input.library.all();
  const usage = await new UsageStore(homePaths(input.home).skills).read();
  const provenance = await loadProvenance(input.home, skills);
  return curatedRows({ skills, usage, provenance, config: input.config }).map((row) => row.name);
}

/**
 * Makes sure a snapshot of this run exists before the model may change anything: the run's own
 * `pre-curator-run` snapshot when it took one, else a new one. Returns its id (null when backups are
 * disabled). Throws when a snapshot is needed and cannot be taken.
 */
async function ensureSnapshot(input: ConsolidatorInput): Promise<string | null> {
  if (!input.config.curator.backup.enabled) {
    input.progress(t("consolidate.progress.noBackup"));
    return null;
  }
  const newest = (await listSnapshots(input.home))[0];
  const createdAt = newest?.manifest?.created_at
    ? Date.parse(newest.manifest.created_at.replace(/(\.\d{3})\d+/, "$1"))
    : Number.NaN;
  if (newest?.manifest?.reason === "pre-curator-run" && createdAt >= input.now.getTime() - 1000)
    return newest.id;
  const snapshot = await createSnapshot({
    home: input.home,
    config: input.config,
    reason: "pre-curator-run",
    meter: input.meter,
  });
  input.progress(t("run.progress.snapshot", { id: snapshot.id }));
  return snapshot.id;
}

/** A tool call as the progress line shows it: its name and the arguments that say what it touches. */
function describeCall(name: string, args: Record<string, unknown>, raw?: string): Text {
  if (raw !== undefined) return t("consolidate.progress.unparsable", { name });
  const shown = ["action", "name", "file_path", "absorbed_into", "category"]
    .filter((key) => typeof args[key] === "string")
    .map((key) => `${key}=${JSON.stringify(args[key]).slice(0, 60)}`);
  return `${name}(${shown.join(", ")})`;
}

function oneLineSummary(
  consolidated: ConsolidatedEntry[],
  pruned: PrunedEntry[],
  added: string[],
  dryRun: boolean,
): string {
  const umbrellas = new Set(consolidated.map((item) => item.into)).size;
  const parts = [
    consolidated.length > 0 ? `${consolidated.length} merged into ${umbrellas} umbrella(s)` : "",
    pruned.length > 0 ? `${pruned.length} pruned` : "",
    added.length > 0 ? `${added.length} new skill(s)` : "",
  ].filter(Boolean);
  if (parts.length === 0) return dryRun ? "proposed no changes" : "no change";
  return dryRun ? `proposed: ${parts.join(", ")}` : parts.join(", ");
}

/** Runs the pass. Model failures end the pass early and come back in `error`; the run continues. */
async function consolidate(
  input: ConsolidatorInput,
  options: ConsolidatorOptions,
): Promise<ConsolidationOutcome> {
  const outcome = emptyOutcome();
  const { rows, cron } = await listCandidates(input);
  if (rows.length === 0) {
    outcome.summary = "no candidates";
    return outcome;
  }
  const resolution = resolveCuratorModel(input.config, input.home, options.env ?? process.env);
  for (const note of resolution.notes) input.progress(note);
  if (!resolution.ok) {
    outcome.error = resolution.reason;
    return outcome;
  }
  const model = resolution.model;
  outcome.model = model.model;
  outcome.provider = model.provider;
  let snapshotId: string | null = null;
  if (!input.dryRun) {
    try {
      snapshotId = await ensureSnapshot(input);
    } catch (error) {
      outcome.error = `the pre-consolidation snapshot failed (${(error as Error).message}); the model was not called and nothing was changed`;
      return outcome;
    }
  }
  const client = options.createClient?.(model) ?? createModelClient(model, options.clientOptions);
  const before = await curatedNames(input);
  const conversation = await converse(input, client, rows, cron);
  Object.assign(outcome, {
    toolCalls: conversation.toolCalls,
    final: conversation.final,
    error: conversation.error,
  });

  if (input.dryRun) {
    const proposals = proposalsFrom(conversation.final, new Set(rows.map((row) => row.name)));
    outcome.consolidated = proposals.consolidated;
    outcome.pruned = proposals.pruned;
  } else {
    const after = await curatedNames(input);
    const classified = classifyPass({
      before,
      after,
      calls: conversation.calls,
      final: conversation.final,
    } satisfies ClassifyInput);
    outcome.consolidated = classified.consolidated;
    outcome.pruned = classified.pruned;
    outcome.added = classified.added;
    for (const claim of parseStructuredSummary(conversation.final).consolidations) {
      if (after.includes(claim.from))
        input.progress(t("consolidate.progress.claimed", { from: claim.from, into: claim.into }));
    }
    if (outcome.consolidated.length + outcome.pruned.length > 0) {
      const merged = new Map(outcome.consolidated.map((item) => [item.name, item.into]));
      const pruned = new Set(outcome.pruned.map((item) => item.name));
      outcome.cronRewrites = await rewriteCronReferences(input.home, merged, pruned, new Date());
      if (outcome.cronRewrites.jobs_updated > 0)
        input.progress(t("consolidate.progress.cron", { count: outcome.cronRewrites.jobs_updated }));
    }
  }
  outcome.summary = oneLineSummary(outcome.consolidated, outcome.pruned, outcome.added, input.dryRun);
  // The run reports the snapshot it knows about; this one is carried alongside for it to pick up.
  return Object.assign(outcome, { snapshotId });
}

/** A dry run's proposals: the YAML block's merges and prunings of actual candidates. */
function proposalsFrom(
  final: string,
  candidates: ReadonlySet<string>,
): { consolidated: ConsolidatedEntry[]; pruned: PrunedEntry[] } {
  const summary = parseStructuredSummary(final);
  return {
    consolidated: summary.consolidations
      .filter((item) => candidates.has(item.from) && item.from !== item.into)
      .map((item) => ({
        name: item.from,
        into: item.into,
        source: "dry-run proposal (model)",
        reason: item.reason || `would merge into ${item.into}`,
      })),
    pruned: summary.prunings
      .filter((item) => candidates.has(item.name))
      .map((item) => ({
        name: item.name,
        source: "dry-run proposal (model)",
        reason: item.reason || "would prune",
      })),
  };
}

interface Conversation {
  final: string;
  error: string | null;
  /**
   * The error as the progress line shows it: skillgate's own stop reasons in the reader's words
   * (`error`, the report's, is their English), a model's or the network's error as it came.
   */
  errorText: Text | null;
  toolCalls: { name: string; arguments: string }[];
  calls: RecordedCall[];
}

/** The tool loop: model turn, tool calls, results, until a final answer or a cap or an error. */
async function converse(
  input: ConsolidatorInput,
  client: ModelClient,
  rows: CuratedRow[],
  cron: ReadonlySet<string>,
): Promise<Conversation> {
  const started = Date.now();
  const elapsed = () => Math.round((Date.now() - started) / 1000);
  const tools: SkillToolName[] = input.dryRun
    ? ["skills_list", "skills_search", "skill_view"]
    : ["skills_list", "skills_search", "skill_view", "skill_manage"];
  const session = createManageSession({
    origin: "background_review",
    actor: "curator",
    id: `curator-${isoTimestamp(input.now)}`,
  });
  const runtime: ToolRuntime = {
    library: input.library,
    home: input.home,
    platform: null,
    allowed: tools,
    countUsage: false,
    manage: input.dryRun
      ? undefined
      : { home: input.home, config: input.config, library: input.library, session },
  };
  const messages: ChatMessage[] = [
    {
      role: "system",
      content: "You maintain a skill library with the tools provided. Follow the user's rules exactly.",
    },
    { role: "user", content: reviewPrompt(rows, cron, input.dryRun) },
  ];
  const result: Conversation = { final: "", error: null, errorText: null, toolCalls: [], calls: [] };
  const fail = (text: Text) => {
    result.errorText = text;
    result.error = english(text);
  };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), input.config.curator.maxSeconds * 1000);
  const stopping = () => input.signal?.aborted === true;
  const onStop = () => controller.abort();
  input.signal?.addEventListener("abort", onStop, { once: true });
  const turns = meterFor(input.meter, "consolidating", input.config.curator.maxIterations, "turns");
  try {
    for (let turn = 1; ; turn += 1) {
      turns(turn - 1);
      if (turn > input.config.curator.maxIterations) {
        fail(t("consolidate.stopped.turns", { turns: String(input.config.curator.maxIterations) }));
        break;
      }
      let response: Awaited<ReturnType<ModelClient["chat"]>>;
      try {
        response = await client.chat({ messages, tools: toolDefinitions(tools), signal: controller.signal });
      } catch (error) {
        if (stopping()) {
          fail(t("consolidate.stopped.shutdown"));
        } else if (error instanceof ModelError && error.kind === "aborted" && controller.signal.aborted) {
          fail(t("consolidate.stopped.time", { seconds: String(input.config.curator.maxSeconds) }));
        } else {
          fail(error instanceof Error ? error.message : String(error));
        }
        break;
      }
      messages.push(response.message);
      const calls = response.message.tool_calls ?? [];
      if (calls.length === 0) {
        result.final = response.message.content ?? "";
        break;
      }
      for (const call of calls) {
        // A safe point: every tool call is a whole, recorded change.
        if (stopping()) break;
        const ran = await runToolCall(runtime, call);
        result.toolCalls.push({ name: call.function.name, arguments: call.function.arguments });
        result.calls.push({
          name: call.function.name,
          args: ran.rawArguments !== undefined ? { _raw: ran.rawArguments } : ran.arguments,
        });
        const shown = describeCall(ran.name, ran.arguments, ran.rawArguments);
        // The tool's refusal is the model's material (English, as the model read it).
        input.progress(
          ran.output.success === false
            ? t("consolidate.progress.callRefused", {
                seconds: elapsed(),
                call: shown,
                error: String(ran.output.error).slice(0, 120),
              })
            : t("consolidate.progress.call", { seconds: elapsed(), call: shown }),
        );
        let content = JSON.stringify(ran.output);
        if (content.length > MAX_TOOL_OUTPUT) content = `${content.slice(0, MAX_TOOL_OUTPUT)}… (truncated)`;
        messages.push({ role: "tool", tool_call_id: call.id, content });
      }
      if (stopping()) {
        fail(t("consolidate.stopped.shutdown"));
        break;
      }
    }
  } finally {
    clearTimeout(timer);
    input.signal?.removeEventListener("abort", onStop);
  }
  const count = result.toolCalls.length;
  input.progress(
    result.errorText !== null
      ? t("consolidate.progress.finishedError", { seconds: elapsed(), count, error: result.errorText })
      : t("consolidate.progress.finished", { seconds: elapsed(), count }),
  );
  return result;
}

/** What the chat preview needs from a command context. */
export interface PreviewContext {
  home: string;
  config: SkillgateConfig;
  library: SkillLibrary;
  surface: "terminal" | "chat" | "web";
  commandPrefix: (path: string[]) => string;
  now: () => Date;
}

/**
 * The chat confirmation of a consolidating `curator run` (beyond Hermes, #18373): before a chat run
 * lets the model merge anything, a dry run shows the merges it proposes and the person repeats the
 * command with `-y` to apply. Returns the question to ask, or null when no preview is needed (terminal,
 * dry runs, prune-only runs). Uses `consolidatorImpl` for the model pass (default the real one).
 */
export async function consolidationPreview(
  ctx: PreviewContext,
  flags: { consolidate: boolean; dryRun: boolean },
  consolidatorImpl: Consolidator = consolidator,
): Promise<Text | null> {
  if (ctx.surface === "terminal" || flags.dryRun) return null;
  if (!(flags.consolidate || ctx.config.curator.consolidate)) return null;
  const preview = await runCurator({
    home: ctx.home,
    config: ctx.config,
    library: ctx.library,
    now: ctx.now(),
    dryRun: true,
    consolidate: true,
    trigger: "manual",
    commandPrefix: ctx.commandPrefix,
    consolidator: consolidatorImpl,
  });
  // The model's reasons are its own words, shown as written.
  const lines: Text[] = [t("cmd.preview.head")];
  if (preview.llm.error) {
    lines.push(t("cmd.preview.failed", { error: preview.llm.error }));
  } else if (preview.consolidated.length + preview.pruned.length === 0) {
    lines.push(t("cmd.preview.nothing"));
  } else {
    lines.push(t("cmd.preview.proposes"));
    for (const item of preview.consolidated)
      lines.push(
        item.reason
          ? t("cmd.preview.mergeWhy", { name: item.name, into: item.into, reason: item.reason })
          : t("cmd.preview.merge", { name: item.name, into: item.into }),
      );
    for (const item of preview.pruned)
      lines.push(
        item.reason
          ? t("cmd.preview.pruneWhy", { name: item.name, reason: item.reason })
          : t("cmd.preview.prune", { name: item.name }),
      );
  }
  if (preview.autoTransitions.archived + preview.autoTransitions.marked_stale > 0) {
    lines.push(
      t("cmd.preview.auto", {
        stale: preview.autoTransitions.marked_stale,
        archived: preview.autoTransitions.archived,
      }),
    );
  }
  lines.push(t("cmd.preview.realRun"));
  lines.push(t("cmd.preview.apply"));
  return linesOf(lines);
}
