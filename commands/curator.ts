/**
 * The curator lifecycle commands: `curator status | run | pause | resume | pin | unpin | adopt |
 * list-unmanaged | archive | restore | list-archived | prune`. One implementation for the terminal and
 * every chat; the surface's `commandPrefix` spells command hints (`skillgate curator …` or `/curator …`).
 */
import { spawn } from "node:child_process";
import { invocation, runAction } from "../src/core/actions.js";
import { CuratorError, UsageError } from "../src/core/errors.js";
import { stateWord } from "../src/core/i18n/data-words.js";
import {
  ago as agoText,
  join,
  lines,
  list,
  type ParamValue,
  pad,
  type Text,
  t,
} from "../src/core/i18n/messages.js";
import { errorReply, type Reply, type ReplyBlock, reply, textReply } from "../src/core/reply.js";
import { archiveSkill, listArchived, restoreSkill } from "../src/curator/archive.js";
import { consolidationPreview, consolidator } from "../src/curator/consolidate.js";
import { withRunLock } from "../src/curator/lock.js";
import {
  type ActivityRow,
  adoptSkill,
  archiveCandidates,
  type CuratorStatus,
  curatorStatus,
  listUnmanaged,
  type OpsContext,
  pruneCandidates,
  setPaused,
  setPinned,
  statusJson,
} from "../src/curator/operations.js";
import { runJsonSummary, summaryButtons, summaryReply } from "../src/curator/report.js";
import { runCurator } from "../src/curator/run.js";
import { storedSummaryLines } from "../src/curator/summary-text.js";
import type { CuratorRunResult } from "../src/curator/types.js";
import { parseTimestamp } from "../src/skills/usage.js";
import { paged, restoreRows, withButtons } from "./buttons.js";
import { CoalescedWork } from "./coalesce.js";
import {
  type CommandContext,
  type CommandInput,
  type CommandSpec,
  defineCommand,
  type OptionSpec,
  type OptionValues,
} from "./types.js";

function ops(ctx: CommandContext): OpsContext {
  return {
    home: ctx.home,
    config: ctx.config,
    library: ctx.library,
    now: ctx.now(),
    commandPrefix: ctx.commandPrefix,
    meter: ctx.meter,
  };
}

/** `never`, `42s ago` … `12d ago` in the reader's locale; an unparseable value is shown as it is. */
function since(value: string | null, now: Date): Text {
  if (value === null) return t("cmd.time.never");
  const ms = parseTimestamp(value);
  if (ms === undefined) return value;
  return agoText((now.getTime() - ms) / 1000);
}

/** A count right-aligned in `width` columns (written as digits, never grouped). */
function padNumber(n: number, width = 3): Text {
  return pad(String(n), width, "start");
}

function rankingBlock(title: Text, rows: ActivityRow[], now: Date): ReplyBlock[] {
  if (rows.length === 0) return [];
  const items = rows.map((row) =>
    t("cmd.status.rankingRow", {
      name: pad(row.name, 40),
      activity: padNumber(row.activity),
      use: padNumber(row.use),
      view: padNumber(row.view),
      patches: padNumber(row.patches),
      last: since(row.last_activity_at, now),
    }),
  );
  return [
    { kind: "paragraph", text: title },
    { kind: "code", text: lines(items) },
  ];
}

/** One `  label:   value` line of the status header (labels padded to one column). */
function field(label: Text, value: ParamValue): Text {
  return join(["  ", pad(label, 16), value], "");
}

const STATE_LABELS = {
  enabled: t("cmd.status.state.enabled"),
  paused: t("cmd.status.state.paused"),
  disabled: t("cmd.status.state.disabled"),
} as const;

function headerText(status: CuratorStatus, now: Date): Text {
  // The stored English, read back into its record and shown in the reader's language.
  const summary = status.last_run_summary === null ? null : storedSummaryLines(status.last_run_summary);
  const none = t("cmd.status.none");
  const report = status.last_report_path
    ? status.last_report_missing
      ? t("cmd.status.reportMissing", { path: status.last_report_path })
      : status.last_report_path
    : none;
  return lines([
    t("cmd.status.state", { state: STATE_LABELS[status.state] }),
    field(t("cmd.status.runs"), String(status.run_count)),
    field(t("cmd.status.lastRun"), since(status.last_run_at, now)),
    field(t("cmd.status.lastSummary"), summary ? (summary[0] ?? "") : none),
    ...(summary ?? []).slice(1).map((line) => join([" ".repeat(18), line], "")),
    field(t("cmd.status.lastReport"), report),
    field(t("cmd.status.interval"), intervalText(status.interval_hours)),
    field(t("cmd.status.staleAfter"), t("cmd.status.daysUnused", { days: status.stale_after_days })),
    field(t("cmd.status.archiveAfter"), t("cmd.status.daysUnused", { days: status.archive_after_days })),
    field(
      t("cmd.status.consolidate"),
      status.consolidate ? t("cmd.status.consolidateOn") : t("cmd.status.consolidateOff"),
    ),
  ]);
}

/** `every 7d` / `every 12h`, as `describeInterval` writes it in English. */
function intervalText(hours: number): Text {
  return hours % 24 === 0
    ? t("cmd.status.everyDays", { days: hours / 24 })
    : t("cmd.status.everyHours", { hours });
}

function unmanagedText(status: CuratorStatus, ctx: CommandContext): Text | null {
  const u = status.unmanaged;
  if (u.total === 0) return null;
  const row = (label: Text, value: number) => join(["  ", pad(label, 20), String(value)], "");
  return lines([
    t("cmd.status.unmanaged", { total: u.total }),
    row(t("cmd.status.preDatesMarker"), u.pre_dates_marker),
    row(t("cmd.status.foregroundCreated"), u.foreground_created),
    t("cmd.status.unmanagedHint", { command: ctx.commandPrefix(["curator", "adopt", "<name>"]) }),
  ]);
}

/**
 * Characters of pinned names a chat's status shows inline. A large library can pin hundreds of skills
 * (427 at 10k in the bench library, about 11,000 characters): listed whole, the status became three or
 * four chat messages that were mostly names. The terminal, JSON and the web console keep the whole list.
 */
export const CHAT_PINNED_CHARS = 400;

/** `pinned (N): a, b`; in chat, names up to `CHAT_PINNED_CHARS` and a count of the rest. */
function pinnedLine(pinned: string[], ctx: CommandContext): Text {
  const all = t("cmd.status.pinned", { total: pinned.length, names: list(pinned) });
  if (ctx.surface !== "chat") return all;
  let shown = 0;
  let length = 0;
  while (shown < pinned.length && length + (pinned[shown]?.length ?? 0) + 2 <= CHAT_PINNED_CHARS) {
    length += (pinned[shown]?.length ?? 0) + 2;
    shown += 1;
  }
  if (shown === pinned.length) return all;
  return t("cmd.status.pinnedSome", {
    total: pinned.length,
    names: list(pinned.slice(0, shown)),
    count: pinned.length - shown,
    command: ctx.commandPrefix(["curator", "list-pinned"]),
  });
}

/** The status reply: header, managed counts, pins, the unmanaged block, then the activity rankings. */
export function statusReply(status: CuratorStatus, ctx: CommandContext): Reply {
  const now = ctx.now();
  const m = status.managed;
  const blocks: ReplyBlock[] = [{ kind: "paragraph", text: headerText(status, now) }];
  const unmanaged = unmanagedText(status, ctx);
  if (m.total === 0) {
    blocks.push({ kind: "paragraph", text: t("cmd.status.noManaged") });
    if (unmanaged) blocks.push({ kind: "paragraph", text: unmanaged });
  } else {
    blocks.push({
      kind: "paragraph",
      text: lines([
        t("cmd.status.managed", { total: m.total, agentCreated: m.agent_created, bundled: m.bundled }),
        ...(
          [
            [t("cmd.status.active"), m.active],
            [t("cmd.status.stale"), m.stale],
            [t("cmd.status.archived"), m.archived],
          ] as const
        ).map(([label, value]) => join(["  ", pad(label, 11), String(value)], "")),
      ]),
    });
    if (status.pinned.length > 0) blocks.push({ kind: "paragraph", text: pinnedLine(status.pinned, ctx) });
    if (unmanaged) blocks.push({ kind: "paragraph", text: unmanaged });
    blocks.push(
      ...rankingBlock(t("cmd.status.leastRecentlyActive"), status.rankings.least_recently_active, now),
    );
    blocks.push(...rankingBlock(t("cmd.status.mostActive"), status.rankings.most_active, now));
    blocks.push(...rankingBlock(t("cmd.status.leastActive"), status.rankings.least_active, now));
  }
  for (const warning of status.warnings)
    blocks.push({ kind: "paragraph", text: t("cli.warning", { warning }) });
  const next = [
    runAction(t("cmd.button.dryRun"), invocation(["curator", "run"], [], { "dry-run": true }), {
      placement: "reply",
    }),
    status.state === "paused"
      ? runAction(t("cmd.button.resume"), invocation(["curator", "resume"]), {
          style: "primary",
          placement: "reply",
        })
      : runAction(t("cmd.button.pause"), invocation(["curator", "pause"]), { placement: "reply" }),
    runAction(t("cmd.button.archived"), invocation(["curator", "list-archived"]), { placement: "reply" }),
    ...(status.pinned.length > 0
      ? [runAction(t("cmd.button.pinned"), invocation(["curator", "list-pinned"]), { placement: "reply" })]
      : []),
  ];
  return { ...reply(blocks, { json: statusJson(status) }), layout: "card", actions: { rows: [next] } };
}

// ---------------------------------------------------------------- status

/**
 * Status computations per library and config in force: chats asking at once share one read of the
 * library that started after they asked (the figures depend on neither the chat nor the clock).
 */
const statusWork = new WeakMap<CommandContext["library"], CoalescedWork<object, CuratorStatus>>();

function sharedStatus(ctx: CommandContext): Promise<CuratorStatus> {
  let work = statusWork.get(ctx.library);
  if (!work) {
    work = new CoalescedWork();
    statusWork.set(ctx.library, work);
  }
  return work.run(ctx.config, () => curatorStatus(ops(ctx)));
}

const statusCommand: CommandSpec = {
  path: ["curator", "status"],
  summary: t("cmd.summary.status"),
  mutating: false,
  async run(ctx) {
    return statusReply(await sharedStatus(ctx), ctx);
  },
};

const listPinnedCommand: CommandSpec = {
  path: ["curator", "list-pinned"],
  summary: t("cmd.summary.listPinned"),
  mutating: false,
  async run(ctx, input) {
    const { pinned } = await sharedStatus(ctx);
    const json = { pinned };
    if (pinned.length === 0) return textReply(t("cmd.pinned.none"), { json });
    const listed = reply(
      [
        { kind: "paragraph", text: t("cmd.pinned.heading", { total: pinned.length }) },
        { kind: "code", text: pinned.map((name) => `  ${name}`).join("\n") },
        {
          kind: "paragraph",
          text: t("cmd.pinned.unpinHint", { command: ctx.commandPrefix(["curator", "unpin", "<name>"]) }),
        },
      ],
      { json },
    );
    return paged(listed, 1, ["curator", "list-pinned"], input);
  },
};

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

const runCommand = defineCommand({
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

function pauseCommand(paused: boolean): CommandSpec {
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

// ---------------------------------------------------------------- pin / unpin

function pinCommand(value: boolean): CommandSpec {
  return {
    path: ["curator", value ? "pin" : "unpin"],
    summary: value ? t("cmd.summary.pin") : t("cmd.summary.unpin"),
    args: [{ name: "skill", description: t("cmd.arg.skillName"), required: true }],
    mutating: true,
    async run(ctx, input) {
      const name = input.args[0] ?? "";
      const result = await setPinned(ops(ctx), name, value);
      const text = t("cmd.curatorSays", { text: result.text });
      return result.ok
        ? textReply(text, { json: { ok: true, skill: name, pinned: value, message: result.message } })
        : errorReply(text, 1, { ok: false, skill: name, error: result.message });
    },
  };
}

// ---------------------------------------------------------------- adopt / list-unmanaged

const ADOPT_OPTIONS = [
  { name: "all-unmanaged", description: t("cmd.option.adopt.all"), kind: "boolean" },
  { name: "dry-run", description: t("cmd.option.adopt.dryRun"), kind: "boolean" },
] as const satisfies readonly OptionSpec[];

async function adoptTargets(
  ctx: CommandContext,
  input: CommandInput<OptionValues<typeof ADOPT_OPTIONS>>,
): Promise<string[]> {
  if (input.args.length > 0 && input.options["all-unmanaged"]) {
    throw new CuratorError("adopt", t("cmd.adopt.both"), { code: "curator.bad_args" });
  }
  if (input.options["all-unmanaged"]) return (await listUnmanaged(ops(ctx))).map((item) => item.name);
  if (input.args.length === 0) {
    throw new CuratorError(
      "adopt",
      t("cmd.adopt.nameThem", { command: ctx.commandPrefix(["curator", "list-unmanaged"]) }),
      { code: "curator.bad_args" },
    );
  }
  return input.args;
}

const adoptCommand = defineCommand({
  path: ["curator", "adopt"],
  summary: t("cmd.summary.adopt"),
  args: [{ name: "skill", description: t("cmd.arg.skillNames"), variadic: true }],
  options: ADOPT_OPTIONS,
  mutating: true,
  async confirm(ctx, input) {
    if (!input.options["all-unmanaged"] || input.options["dry-run"] || input.args.length > 0) return null;
    const names = await adoptTargets(ctx, input);
    if (names.length === 0) return null;
    const shown =
      names.length > 20
        ? t("cmd.adopt.someNames", { names: list(names.slice(0, 20)), count: names.length - 20 })
        : list(names);
    return t("cmd.adopt.confirm", { count: names.length, names: shown });
  },
  async run(ctx, input) {
    const names = await adoptTargets(ctx, input);
    if (names.length === 0)
      return textReply(t("cmd.adopt.none"), {
        json: { ok: true, adopted: [], failed: [] },
      });
    if (input.options["dry-run"]) {
      return reply(
        [
          { kind: "paragraph", text: t("cmd.adopt.wouldAdopt", { count: names.length }) },
          { kind: "code", text: names.map((name) => `  + ${name}`).join("\n") },
        ],
        { json: { ok: true, dry_run: true, would_adopt: names } },
      );
    }
    const said: Text[] = [];
    const adopted: string[] = [];
    const failed: { name: string; error: string }[] = [];
    for (const name of names) {
      const result = await adoptSkill(ops(ctx), name);
      said.push(t("cmd.curatorSays", { text: result.text }));
      if (result.ok) adopted.push(name);
      else failed.push({ name, error: result.message });
    }
    if (names.length > 1) said.push(t("cmd.adopt.tally", { done: adopted.length, total: names.length }));
    return reply([{ kind: "paragraph", text: lines(said) }], {
      exitCode: failed.length > 0 ? 1 : 0,
      json: { ok: failed.length === 0, adopted, failed },
    });
  },
});

const listUnmanagedCommand: CommandSpec = {
  path: ["curator", "list-unmanaged"],
  summary: t("cmd.summary.listUnmanaged"),
  mutating: false,
  async run(ctx, input) {
    const items = await listUnmanaged(ops(ctx));
    const json = {
      unmanaged: items.map((item) => ({
        ...item,
        created_by: item.created_by ?? null,
        has_provenance_key: item.created_by !== undefined,
      })),
    };
    if (items.length === 0) return textReply(t("cmd.unmanaged.none"), { json });
    const now = ctx.now();
    const rows = items.map((item) =>
      t("cmd.unmanaged.row", {
        name: pad(item.name, 44),
        activity: padNumber(item.activity, 4),
        last: pad(since(item.last_activity_at, now), 14),
        marker:
          item.created_by === undefined
            ? t("cmd.unmanaged.noMarker")
            : `created_by:${item.created_by ?? "null"}`,
      }),
    );
    const listed = reply(
      [
        { kind: "paragraph", text: t("cmd.unmanaged.heading", { total: items.length }) },
        { kind: "code", text: lines(rows) },
        {
          kind: "paragraph",
          text: t("cmd.unmanaged.hint", {
            one: ctx.commandPrefix(["curator", "adopt", "<name>"]),
            all: `${ctx.commandPrefix(["curator", "adopt"])} --all-unmanaged`,
          }),
        },
      ],
      { json },
    );
    return paged(listed, 1, ["curator", "list-unmanaged"], input);
  },
};

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

const archiveCommand: CommandSpec = {
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

const restoreCommand: CommandSpec = {
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

const listArchivedCommand: CommandSpec = {
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

const pruneCommand = defineCommand({
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

/** Every curator lifecycle command, in help order. */
export const curatorCommands: CommandSpec[] = [
  statusCommand,
  runCommand,
  pauseCommand(true),
  pauseCommand(false),
  pinCommand(true),
  pinCommand(false),
  adoptCommand,
  listPinnedCommand,
  listUnmanagedCommand,
  archiveCommand,
  restoreCommand,
  listArchivedCommand,
  pruneCommand,
];
