/**
 * Starting and holding the curator: `curator run` (in the foreground or detached) and `curator pause |
 * resume`.
 */
import { spawn } from "node:child_process";
import { CuratorError } from "../src/core/errors.js";
import { stateWord } from "../src/core/i18n/data-words.js";
import { t } from "../src/core/i18n/messages.js";
import { errorReply, type Reply, type ReplyBlock, reply, textReply } from "../src/core/reply.js";
import { consolidationPreview, consolidator } from "../src/curator/consolidate.js";
import { setPaused } from "../src/curator/operations.js";
import { runJsonSummary, summaryButtons, summaryReply } from "../src/curator/report.js";
import { runCurator } from "../src/curator/run.js";
import type { CuratorRunResult } from "../src/curator/types.js";
import {
  type CommandContext,
  type CommandInput,
  type CommandSpec,
  defineCommand,
  type OptionSpec,
  type OptionValues,
} from "./types.js";

// ---------------------------------------------------------------- run

const RUN_OPTIONS = [
  { name: "dry-run", description: t("cmd.option.run.dryRun"), kind: "boolean" },
  { name: "consolidate", description: t("cmd.option.run.consolidate"), kind: "boolean" },
  { name: "background", description: t("cmd.option.run.background"), kind: "boolean" },
] as const satisfies readonly OptionSpec[];

/** Parsed input of `curator run`. */
export type RunInput = CommandInput<OptionValues<typeof RUN_OPTIONS>>;

/** The argv of a detached `curator run` child for `--background`. */
export function backgroundArgv(home: string, input: RunInput): string[] {
  const script = process.argv[1];
  if (!script) throw new CuratorError("run", t("cmd.run.noEntryScript"));
  const flags = [
    input.options["dry-run"] ? "--dry-run" : "",
    input.options.consolidate ? "--consolidate" : "",
  ].filter(Boolean);
  return [...process.execArgv, script, "--home", home, "curator", "run", ...flags];
}

function startInBackground(ctx: CommandContext, input: RunInput): Reply {
  const child = spawn(process.execPath, backgroundArgv(ctx.home, input), { detached: true, stdio: "ignore" });
  child.unref();
  const status = ctx.commandPrefix(["curator", "status"]);
  return textReply(t("cmd.run.background", { pid: String(child.pid ?? "?"), command: status }), {
    json: { ok: true, background: true, pid: child.pid ?? null },
  });
}

function runTextBlocks(result: CuratorRunResult, consolidating: boolean, ctx: CommandContext): ReplyBlock[] {
  const blocks: ReplyBlock[] = [];
  if (!consolidating) {
    blocks.push({
      kind: "paragraph",
      text: t("cmd.run.pruneOnly", { command: `${ctx.commandPrefix(["curator", "run"])} --consolidate` }),
    });
  }
  blocks.push(...summaryReply(result, ctx.commandPrefix).blocks);
  const a = result.autoTransitions;
  if (result.dryRun) {
    blocks.push({
      kind: "paragraph",
      text: t("cmd.run.preview", { count: a.checked }),
    });
    const planned = result.stateTransitions.map((move) =>
      t("cmd.run.transition", { name: move.name, from: stateWord(move.from), to: stateWord(move.to) }),
    );
    if (planned.length > 0)
      blocks.push({ kind: "paragraph", text: t("cmd.run.wouldDo") }, { kind: "list", items: planned });
    blocks.push({
      kind: "paragraph",
      text: t("cmd.run.dryRunDone", { report: result.reportPath ?? t("cmd.run.notWritten") }),
    });
  } else {
    blocks.push({
      kind: "paragraph",
      text: t("cmd.run.auto", {
        checked: a.checked,
        stale: a.marked_stale,
        archived: a.archived,
        reactivated: a.reactivated,
      }),
    });
    if (result.reportPath)
      blocks.push({ kind: "paragraph", text: t("cmd.run.report", { path: result.reportPath }) });
  }
  for (const warning of result.warningTexts)
    blocks.push({ kind: "paragraph", text: t("cli.warning", { warning }) });
  return blocks;
}

/** `curator run`: one curator pass now, or detached with `--background`. */
export const runCommand = defineCommand({
  path: ["curator", "run"],
  summary: t("cmd.summary.run"),
  options: RUN_OPTIONS,
  mutating: true,
  // In chat, a consolidating run first shows the dry run's proposed merges and waits for `-y` (llm engineer).
  confirm: (ctx, input) =>
    ctx.config.curator.enabled
      ? consolidationPreview(ctx, {
          consolidate: input.options.consolidate === true,
          dryRun: input.options["dry-run"] === true,
        })
      : null,
  async run(ctx, input) {
    if (!ctx.config.curator.enabled) {
      return errorReply(t("cmd.run.disabled"));
    }
    const { "dry-run": dryRun = false, consolidate = false, background = false } = input.options;
    if (background) return startInBackground(ctx, input);
    const consolidating = consolidate || ctx.config.curator.consolidate;
    const result = await runCurator({
      home: ctx.home,
      config: ctx.config,
      library: ctx.library,
      now: ctx.now(),
      dryRun,
      consolidate: consolidate ? true : undefined,
      trigger: "manual",
      progress: ctx.progress,
      meter: ctx.meter,
      commandPrefix: ctx.commandPrefix,
      consolidator,
      runLock: ctx.runLock,
      signal: ctx.signal,
    });
    const done = reply(runTextBlocks(result, consolidating, ctx), { json: runJsonSummary(result) });
    return { ...done, actions: summaryButtons(result) };
  },
});

// ---------------------------------------------------------------- pause / resume

/** `curator pause` (true) or `curator resume` (false). */
export function pauseCommand(paused: boolean): CommandSpec {
  return {
    path: ["curator", paused ? "pause" : "resume"],
    summary: paused ? t("cmd.summary.pause") : t("cmd.summary.resume"),
    mutating: true,
    async run(ctx) {
      await setPaused(ctx.home, paused);
      const text = paused
        ? t("cmd.pause.paused", { command: ctx.commandPrefix(["curator", "resume"]) })
        : t("cmd.pause.resumed");
      return textReply(text, { json: { ok: true, paused } });
    },
  };
}
