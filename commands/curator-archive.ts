/**
 * Moving skills out of and back into the library by hand: `curator archive | restore | list-archived`
 * and `curator prune`.
 */
import { UsageError } from "../src/core/errors.js";
import { lines, list, pad, t } from "../src/core/i18n/messages.js";
import { type ReplyBlock, reply, textReply } from "../src/core/reply.js";
import { archiveSkill, listArchived, restoreSkill } from "../src/curator/archive.js";
import { withRunLock } from "../src/curator/lock.js";
import { archiveCandidates, pruneCandidates } from "../src/curator/operations.js";
import { paged, restoreRows, withButtons } from "./buttons.js";
import { ops } from "./curator-common.js";
import {
  type CommandContext,
  type CommandInput,
  type CommandSpec,
  defineCommand,
  type OptionSpec,
  type OptionValues,
} from "./types.js";

// ---------------------------------------------------------------- archive / restore / list-archived

/** Options of an archive or restore a person asked for from the CLI or chat. */
function manualMoveOptions(ctx: CommandContext) {
  return {
    home: ctx.home,
    config: ctx.config,
    library: ctx.library,
    // `user` from the CLI and chat, `web` from the console; the curator's own moves go through its run.
    actor: ctx.actor === "web" ? ("web" as const) : ("user" as const),
    now: ctx.now(),
    commandPrefix: ctx.commandPrefix,
    // A chat command's move names the event it answers, so an audit can tell one request from a replay.
    ...(ctx.operationId ? { evidence: { operation_id: ctx.operationId } } : {}),
  };
}

/** `curator archive`: move one skill out of the library by hand. */
export const archiveCommand: CommandSpec = {
  path: ["curator", "archive"],
  summary: t("cmd.summary.archive"),
  args: [{ name: "skill", description: t("cmd.arg.skillName"), required: true }],
  mutating: true,
  // Asked where answering takes one step (a button, a typed `y` in the terminal chat, a prompt on a
  // terminal, or `-y`); a script without a terminal archives at once, since restore undoes it.
  confirm: (ctx, input) =>
    ctx.answersInOneStep || (ctx.surface === "terminal" && ctx.interactive)
      ? t("cmd.archive.confirm", {
          name: input.args[0] ?? "",
          command: ctx.commandPrefix(["curator", "restore", input.args[0] ?? ""]),
        })
      : null,
  async run(ctx, input) {
    const name = input.args[0] ?? "";
    const result = await withRunLock(ctx.home, () => archiveSkill(name, manualMoveOptions(ctx)), ctx.runLock);
    const restore = ctx.commandPrefix(["curator", "restore", result.archivedAs]);
    const archived = textReply(
      t("cmd.archive.done", { name: result.name, archivedAs: result.archivedAs, command: restore }),
      {
        json: {
          ok: true,
          skill: result.name,
          from: result.from,
          archived_as: result.archivedAs,
          dest: result.dest,
        },
      },
    );
    return withButtons(archived, restoreRows([result.archivedAs]));
  },
};

/** `curator restore`: bring an archived skill back. */
export const restoreCommand: CommandSpec = {
  path: ["curator", "restore"],
  summary: t("cmd.summary.restore"),
  args: [{ name: "skill", description: t("cmd.arg.archivedName"), required: true }],
  mutating: true,
  confirm: (ctx, input) =>
    ctx.answersInOneStep ? t("cmd.restore.confirm", { name: input.args[0] ?? "" }) : null,
  async run(ctx, input) {
    const name = input.args[0] ?? "";
    const result = await withRunLock(ctx.home, () => restoreSkill(name, manualMoveOptions(ctx)), ctx.runLock);
    const pin = ctx.commandPrefix(["curator", "pin", result.name]);
    const done = t(result.flattened ? "cmd.restore.doneFlattened" : "cmd.restore.done", {
      name: result.name,
      restoredTo: result.restoredTo,
      command: pin,
    });
    return textReply(done, {
      json: {
        ok: true,
        skill: result.name,
        archived_as: result.archivedAs,
        restored_to: result.restoredTo,
        dest: result.dest,
        flattened: result.flattened,
      },
    });
  },
};

/** `curator list-archived`: the archive, newest first, paged. */
export const listArchivedCommand: CommandSpec = {
  path: ["curator", "list-archived"],
  summary: t("cmd.summary.listArchived"),
  mutating: false,
  async run(ctx, input) {
    const items = await listArchived(ctx.home);
    const json = {
      archived: items.map((item) => ({
        name: item.archivedAs,
        skill: item.skillName,
        restore_to: item.restoreTo,
        category: item.category,
      })),
    };
    if (items.length === 0) return textReply(t("cmd.archived.none"), { json });
    const width = Math.max(...items.map((item) => item.archivedAs.length));
    const rows = items.map((item) => {
      const row = `  ${item.archivedAs.padEnd(width)}  → skills/${item.restoreTo}`;
      return item.skillName !== item.restoreTo.split("/").pop()
        ? t("cmd.archived.rowNamed", { row, skill: item.skillName })
        : row;
    });
    const listed = reply(
      [
        { kind: "paragraph", text: t("cmd.archived.heading", { total: items.length }) },
        { kind: "code", text: lines(rows) },
        {
          kind: "paragraph",
          text: t("cmd.archived.hint", { command: ctx.commandPrefix(["curator", "restore", "<name>"]) }),
        },
      ],
      { json },
    );
    return paged(listed, 1, ["curator", "list-archived"], input);
  },
};

// ---------------------------------------------------------------- prune

const PRUNE_OPTIONS = [
  {
    name: "days",
    description: t("cmd.option.prune.days"),
    kind: "integer",
  },
  { name: "dry-run", description: t("cmd.option.prune.dryRun"), kind: "boolean" },
] as const satisfies readonly OptionSpec[];

function pruneDays(ctx: CommandContext, input: CommandInput<OptionValues<typeof PRUNE_OPTIONS>>): number {
  const value = input.options.days;
  const days = typeof value === "number" ? value : ctx.config.curator.archiveAfterDays;
  if (!Number.isInteger(days) || days < 1)
    throw new UsageError(t("cmd.prune.badDays", { days: String(days) }));
  return days;
}

/** `curator prune`: archive every skill idle longer than the threshold. */
export const pruneCommand = defineCommand({
  path: ["curator", "prune"],
  summary: t("cmd.summary.prune"),
  options: PRUNE_OPTIONS,
  mutating: true,
  async confirm(ctx, input) {
    const days = pruneDays(ctx, input);
    if (input.options["dry-run"]) return null;
    const { candidates } = await pruneCandidates(ops(ctx), days);
    if (candidates.length === 0) return null;
    const names = list([
      ...candidates.slice(0, 20).map((c) => c.name),
      ...(candidates.length > 20 ? ["…"] : []),
    ]);
    return t("cmd.prune.confirm", { count: candidates.length, days, names });
  },
  async run(ctx, input) {
    const days = pruneDays(ctx, input);
    const dryRun = input.options["dry-run"] === true;
    const work = async () => {
      const { candidates, warnings } = await pruneCandidates(ops(ctx), days);
      const done = dryRun || candidates.length === 0 ? null : await archiveCandidates(ops(ctx), candidates);
      return { candidates, warnings, done };
    };
    const { candidates, warnings, done } = dryRun
      ? await work()
      : await withRunLock(ctx.home, work, ctx.runLock);
    const warningBlocks: ReplyBlock[] = warnings.map((warning) => ({
      kind: "paragraph",
      text: t("cli.warning", { warning }),
    }));
    const listed = candidates.map((c) => ({ name: c.name, idle_days: c.idleDays }));
    if (candidates.length === 0) {
      return reply([{ kind: "paragraph", text: t("cmd.prune.nothing", { days }) }, ...warningBlocks], {
        json: { ok: true, days, candidates: [], archived: [], failures: [] },
      });
    }
    const blocks: ReplyBlock[] = [
      { kind: "paragraph", text: t("cmd.prune.heading", { count: candidates.length, days }) },
      {
        kind: "code",
        text: lines(candidates.map((c) => t("cmd.prune.row", { name: pad(c.name, 40), days: c.idleDays }))),
      },
    ];
    if (!done) {
      blocks.push({ kind: "paragraph", text: t("cmd.prune.dryRun") }, ...warningBlocks);
      return reply(blocks, { json: { ok: true, days, dry_run: true, candidates: listed } });
    }
    blocks.push({
      kind: "paragraph",
      text: t("cmd.prune.tally", { done: done.archived.length, total: candidates.length }),
    });
    if (done.failures.length > 0) {
      blocks.push(
        { kind: "paragraph", text: t("cmd.failures") },
        {
          kind: "list",
          items: done.failures.map((f) => t("cmd.prune.failure", { name: f.name, cause: f.text })),
        },
      );
    }
    blocks.push(...warningBlocks);
    const archivedNames = done.archived.map((item) => item.archivedAs);
    const result = reply(blocks, {
      exitCode: done.failures.length > 0 ? 1 : 0,
      json: {
        ok: done.failures.length === 0,
        days,
        candidates: listed,
        archived: done.archived.map((a) => a.name),
        failures: done.failures.map(({ name, error }) => ({ name, error })),
      },
    });
    return withButtons(result, restoreRows(archivedNames));
  },
});
