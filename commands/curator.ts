/**
 * The curator lifecycle commands: `curator status | run | pause | resume | pin | unpin | adopt |
 * list-unmanaged | archive | restore | list-archived | prune`. One implementation for the terminal and
 * every chat; the surface's `commandPrefix` spells command hints (`skillgate curator …` or `/curator …`).
 */
import { spawn } from "node:child_process";
import { invocation, runAction } from "../src/core/actions.js";
import { CuratorError, UsageError } from "../src/core/errors.js";
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
} from "../src/curator/operations.js";
import { runJsonSummary, summaryButtons, summaryReply } from "../src/curator/report.js";
import { runCurator } from "../src/curator/run.js";
import { describeInterval } from "../src/curator/schedule.js";
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

/** `never`, `42s ago`, `5m ago`, `3h ago`, `12d ago`; an unparseable value is shown as it is. */
export function ago(value: string | null, now: Date): string {
  if (value === null) return "never";
  const ms = parseTimestamp(value);
  if (ms === undefined) return value;
  const seconds = Math.max(0, Math.floor((now.getTime() - ms) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86_400)}d ago`;
}

function pad3(n: number): string {
  return String(n).padStart(3);
}

function rankingBlock(title: string, rows: ActivityRow[], now: Date): ReplyBlock[] {
  if (rows.length === 0) return [];
  const lines = rows.map(
    (row) =>
      `  ${row.name.padEnd(40)}  activity=${pad3(row.activity)}  use=${pad3(row.use)}  view=${pad3(row.view)}  patches=${pad3(row.patches)}  last_activity=${ago(row.last_activity_at, now)}`,
  );
  return [
    { kind: "paragraph", text: title },
    { kind: "code", text: lines.join("\n") },
  ];
}

function headerText(status: CuratorStatus, now: Date): string {
  const summary = (status.last_run_summary ?? "none").split("\n");
  const report = status.last_report_path
    ? `${status.last_report_path}${status.last_report_missing ? " (missing)" : ""}`
    : "none";
  return [
    `curator: ${status.state.toUpperCase()}`,
    `  runs:           ${status.run_count}`,
    `  last run:       ${ago(status.last_run_at, now)}`,
    `  last summary:   ${summary[0] ?? ""}`,
    ...summary.slice(1).map((line) => `${" ".repeat(18)}${line}`),
    `  last report:    ${report}`,
    `  interval:       ${describeInterval(status.interval_hours)}`,
    `  stale after:    ${status.stale_after_days}d unused`,
    `  archive after:  ${status.archive_after_days}d unused`,
    `  consolidate:    ${status.consolidate ? "on" : "off (prune-only; LLM merge pass opt-in)"}`,
  ].join("\n");
}

function unmanagedText(status: CuratorStatus, ctx: CommandContext): string | null {
  const u = status.unmanaged;
  if (u.total === 0) return null;
  return [
    `unmanaged (no provenance marker): ${u.total} total`,
    `  pre-dates marker    ${u.pre_dates_marker}`,
    `  foreground-created  ${u.foreground_created}`,
    `  never auto-staled or archived — \`${ctx.commandPrefix(["curator", "adopt", "<name>"])}\` hands one over`,
  ].join("\n");
}

/**
 * Characters of pinned names a chat's status shows inline. A large library can pin hundreds of skills
 * (427 at 10k in the bench library, about 11,000 characters): listed whole, the status became three or
 * four chat messages that were mostly names. The terminal, JSON and the web console keep the whole list.
 */
export const CHAT_PINNED_CHARS = 400;

/** `pinned (N): a, b`; in chat, names up to `CHAT_PINNED_CHARS` and a count of the rest. */
function pinnedLine(pinned: string[], ctx: CommandContext): string {
  const head = `pinned (${pinned.length}): `;
  if (ctx.surface !== "chat") return `${head}${pinned.join(", ")}`;
  let shown = 0;
  let length = 0;
  while (shown < pinned.length && length + (pinned[shown]?.length ?? 0) + 2 <= CHAT_PINNED_CHARS) {
    length += (pinned[shown]?.length ?? 0) + 2;
    shown += 1;
  }
  if (shown === pinned.length) return `${head}${pinned.join(", ")}`;
  const all = ctx.commandPrefix(["curator", "list-pinned"]);
  return `${head}${pinned.slice(0, shown).join(", ")} … and ${pinned.length - shown} more (\`${all}\` lists them all)`;
}

/** The status reply: header, managed counts, pins, the unmanaged block, then the activity rankings. */
export function statusReply(status: CuratorStatus, ctx: CommandContext): Reply {
  const now = ctx.now();
  const m = status.managed;
  const blocks: ReplyBlock[] = [{ kind: "paragraph", text: headerText(status, now) }];
  const unmanaged = unmanagedText(status, ctx);
  if (m.total === 0) {
    blocks.push({ kind: "paragraph", text: "no curator-managed skills" });
    if (unmanaged) blocks.push({ kind: "paragraph", text: unmanaged });
  } else {
    blocks.push({
      kind: "paragraph",
      text: [
        `curator-managed skills: ${m.total} total  (agent-created=${m.agent_created}  bundled=${m.bundled})`,
        `  active     ${m.active}`,
        `  stale      ${m.stale}`,
        `  archived   ${m.archived}`,
      ].join("\n"),
    });
    if (status.pinned.length > 0) blocks.push({ kind: "paragraph", text: pinnedLine(status.pinned, ctx) });
    if (unmanaged) blocks.push({ kind: "paragraph", text: unmanaged });
    blocks.push(
      ...rankingBlock("least recently active (top 5):", status.rankings.least_recently_active, now),
    );
    blocks.push(...rankingBlock("most active (top 5):", status.rankings.most_active, now));
    blocks.push(...rankingBlock("least active (top 5):", status.rankings.least_active, now));
  }
  for (const warning of status.warnings) blocks.push({ kind: "paragraph", text: `warning: ${warning}` });
  const next = [
    runAction("Dry run", invocation(["curator", "run"], [], { "dry-run": true }), { placement: "reply" }),
    status.state === "paused"
      ? runAction("Resume", invocation(["curator", "resume"]), { style: "primary", placement: "reply" })
      : runAction("Pause", invocation(["curator", "pause"]), { placement: "reply" }),
    runAction("Archived skills", invocation(["curator", "list-archived"]), { placement: "reply" }),
    ...(status.pinned.length > 0
      ? [runAction("Pinned skills", invocation(["curator", "list-pinned"]), { placement: "reply" })]
      : []),
  ];
  return { ...reply(blocks, { json: status }), layout: "card", actions: { rows: [next] } };
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
  summary: "last run, managed and unmanaged counts, pins, least recently active skills",
  mutating: false,
  async run(ctx) {
    return statusReply(await sharedStatus(ctx), ctx);
  },
};

const listPinnedCommand: CommandSpec = {
  path: ["curator", "list-pinned"],
  summary: "pinned skills (auto-transitions leave them alone)",
  mutating: false,
  async run(ctx, input) {
    const { pinned } = await sharedStatus(ctx);
    const json = { pinned };
    if (pinned.length === 0) return textReply("curator: no pinned skills", { json });
    const listed = reply(
      [
        { kind: "paragraph", text: `pinned skills (${pinned.length}):` },
        { kind: "code", text: pinned.map((name) => `  ${name}`).join("\n") },
        {
          kind: "paragraph",
          text: `unpin one with \`${ctx.commandPrefix(["curator", "unpin", "<name>"])}\``,
        },
      ],
      { json },
    );
    return paged(listed, 1, ["curator", "list-pinned"], input);
  },
};

// ---------------------------------------------------------------- run

const RUN_OPTIONS = [
  { name: "dry-run", description: "preview only: write the report, change nothing", kind: "boolean" },
  { name: "consolidate", description: "force the LLM consolidation pass on for this run", kind: "boolean" },
  {
    name: "background",
    description: "start the run in a detached process and return at once",
    kind: "boolean",
  },
] as const satisfies readonly OptionSpec[];

/** Parsed input of `curator run`. */
export type RunInput = CommandInput<OptionValues<typeof RUN_OPTIONS>>;

/** The argv of a detached `curator run` child for `--background`. */
export function backgroundArgv(home: string, input: RunInput): string[] {
  const script = process.argv[1];
  if (!script)
    throw new CuratorError(
      "run",
      "cannot start a background run: the skillgate entry script is unknown; run without --background.",
    );
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
  return textReply(
    `curator: run started in the background (pid ${child.pid ?? "?"}) — check \`${status}\` later`,
    {
      json: { ok: true, background: true, pid: child.pid ?? null },
    },
  );
}

function runTextBlocks(result: CuratorRunResult, consolidating: boolean, ctx: CommandContext): ReplyBlock[] {
  const blocks: ReplyBlock[] = [];
  if (!consolidating) {
    blocks.push({
      kind: "paragraph",
      text: `prune-only pass (LLM consolidation is off; \`${ctx.commandPrefix(["curator", "run"])} --consolidate\` turns it on for one run)`,
    });
  }
  blocks.push(...summaryReply(result, ctx.commandPrefix).blocks);
  const a = result.autoTransitions;
  if (result.dryRun) {
    blocks.push({
      kind: "paragraph",
      text: `auto (preview): ${a.checked} candidate skill(s) — no transitions applied in dry-run`,
    });
    const planned = result.stateTransitions.map((t) => `${t.name}: ${t.from} → ${t.to}`);
    if (planned.length > 0)
      blocks.push({ kind: "paragraph", text: "a real run would do:" }, { kind: "list", items: planned });
    blocks.push({
      kind: "paragraph",
      text: `dry-run: no changes applied; report: ${result.reportPath ?? "(not written)"}`,
    });
  } else {
    blocks.push({
      kind: "paragraph",
      text: `auto: checked=${a.checked} stale=${a.marked_stale} archived=${a.archived} reactivated=${a.reactivated}`,
    });
    if (result.reportPath) blocks.push({ kind: "paragraph", text: `report: ${result.reportPath}` });
  }
  for (const warning of result.warnings) blocks.push({ kind: "paragraph", text: `warning: ${warning}` });
  return blocks;
}

const runCommand = defineCommand({
  path: ["curator", "run"],
  summary: "run the curator now (prune-only unless consolidation is on)",
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
      return errorReply("curator: disabled via config; enable it with `curator.enabled: true`");
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
    summary: paused ? "stop automatic curator runs until resumed" : "let automatic curator runs happen again",
    mutating: true,
    async run(ctx) {
      await setPaused(ctx.home, paused);
      const text = paused
        ? `curator: paused — automatic runs stop until \`${ctx.commandPrefix(["curator", "resume"])}\``
        : "curator: resumed";
      return textReply(text, { json: { ok: true, paused } });
    },
  };
}

// ---------------------------------------------------------------- pin / unpin

function pinCommand(value: boolean): CommandSpec {
  return {
    path: ["curator", value ? "pin" : "unpin"],
    summary: value
      ? "keep a skill out of every automatic transition"
      : "let automatic transitions consider a skill again",
    args: [{ name: "skill", description: "skill name", required: true }],
    mutating: true,
    async run(ctx, input) {
      const name = input.args[0] ?? "";
      const result = await setPinned(ops(ctx), name, value);
      const text = `curator: ${result.message}`;
      return result.ok
        ? textReply(text, { json: { ok: true, skill: name, pinned: value, message: result.message } })
        : errorReply(text, 1, { ok: false, skill: name, error: result.message });
    },
  };
}

// ---------------------------------------------------------------- adopt / list-unmanaged

const ADOPT_OPTIONS = [
  { name: "all-unmanaged", description: "adopt every unmanaged skill", kind: "boolean" },
  { name: "dry-run", description: "show what would be adopted", kind: "boolean" },
] as const satisfies readonly OptionSpec[];

async function adoptTargets(
  ctx: CommandContext,
  input: CommandInput<OptionValues<typeof ADOPT_OPTIONS>>,
): Promise<string[]> {
  if (input.args.length > 0 && input.options["all-unmanaged"]) {
    throw new CuratorError("adopt", "pass either skill names or --all-unmanaged, not both", {
      code: "curator.bad_args",
    });
  }
  if (input.options["all-unmanaged"]) return (await listUnmanaged(ops(ctx))).map((item) => item.name);
  if (input.args.length === 0) {
    throw new CuratorError(
      "adopt",
      `name the skills to adopt, or pass --all-unmanaged (\`${ctx.commandPrefix(["curator", "list-unmanaged"])}\` lists them)`,
      {
        code: "curator.bad_args",
      },
    );
  }
  return input.args;
}

const adoptCommand = defineCommand({
  path: ["curator", "adopt"],
  summary: "hand unmanaged skills over to the curator (their inactivity clock is kept)",
  args: [{ name: "skill", description: "skill names", variadic: true }],
  options: ADOPT_OPTIONS,
  mutating: true,
  async confirm(ctx, input) {
    if (!input.options["all-unmanaged"] || input.options["dry-run"] || input.args.length > 0) return null;
    const names = await adoptTargets(ctx, input);
    if (names.length === 0) return null;
    const shown =
      names.slice(0, 20).join(", ") + (names.length > 20 ? `, … and ${names.length - 20} more` : "");
    return `Adopt ${names.length} unmanaged skill(s) into curator management (${shown})? Unused ones may then be marked stale or archived.`;
  },
  async run(ctx, input) {
    const names = await adoptTargets(ctx, input);
    if (names.length === 0)
      return textReply("curator: no unmanaged skills to adopt", {
        json: { ok: true, adopted: [], failed: [] },
      });
    if (input.options["dry-run"]) {
      return reply(
        [
          { kind: "paragraph", text: `would adopt ${names.length} skill(s) (dry run):` },
          { kind: "code", text: names.map((name) => `  + ${name}`).join("\n") },
        ],
        { json: { ok: true, dry_run: true, would_adopt: names } },
      );
    }
    const lines: string[] = [];
    const adopted: string[] = [];
    const failed: { name: string; error: string }[] = [];
    for (const name of names) {
      const result = await adoptSkill(ops(ctx), name);
      lines.push(`curator: ${result.message}`);
      if (result.ok) adopted.push(name);
      else failed.push({ name, error: result.message });
    }
    if (names.length > 1) lines.push(`adopted ${adopted.length}/${names.length}`);
    return reply([{ kind: "paragraph", text: lines.join("\n") }], {
      exitCode: failed.length > 0 ? 1 : 0,
      json: { ok: failed.length === 0, adopted, failed },
    });
  },
});

const listUnmanagedCommand: CommandSpec = {
  path: ["curator", "list-unmanaged"],
  summary: "skills the curator does not manage, with the reason",
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
    if (items.length === 0)
      return textReply("curator: no unmanaged skills — every eligible skill is managed", { json });
    const now = ctx.now();
    const rows = items.map((item) => {
      const marker = item.created_by === undefined ? "no marker" : `created_by:${item.created_by ?? "null"}`;
      return `  ${item.name.padEnd(44)} activity=${String(item.activity).padStart(4)} last_activity=${ago(item.last_activity_at, now).padEnd(14)}  (${marker})`;
    });
    const listed = reply(
      [
        { kind: "paragraph", text: `unmanaged skills (${items.length}):` },
        { kind: "code", text: rows.join("\n") },
        {
          kind: "paragraph",
          text: `hand one over with \`${ctx.commandPrefix(["curator", "adopt", "<name>"])}\`, or all of them with \`${ctx.commandPrefix(["curator", "adopt"])} --all-unmanaged\``,
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
  };
}

const archiveCommand: CommandSpec = {
  path: ["curator", "archive"],
  summary: "archive one skill now (recoverable with restore)",
  args: [{ name: "skill", description: "skill name", required: true }],
  mutating: true,
  // Asked where answering takes one step (a button, a typed `y` in the terminal chat, a prompt on a
  // terminal, or `-y`); a script without a terminal archives at once, since restore undoes it.
  confirm: (ctx, input) =>
    ctx.answersInOneStep || (ctx.surface === "terminal" && ctx.interactive)
      ? `Archive '${input.args[0] ?? ""}'? It can be restored later with \`${ctx.commandPrefix(["curator", "restore", input.args[0] ?? ""])}\`.`
      : null,
  async run(ctx, input) {
    const name = input.args[0] ?? "";
    const result = await withRunLock(ctx.home, () => archiveSkill(name, manualMoveOptions(ctx)), ctx.runLock);
    const restore = ctx.commandPrefix(["curator", "restore", result.archivedAs]);
    const archived = textReply(
      `curator: archived '${result.name}' to .archive/${result.archivedAs} — \`${restore}\` brings it back`,
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
  summary: "move an archived skill back to where it lived",
  args: [{ name: "skill", description: "a name from list-archived, or the skill's name", required: true }],
  mutating: true,
  confirm: (ctx, input) =>
    ctx.answersInOneStep ? `Restore '${input.args[0] ?? ""}' from the archive into the library?` : null,
  async run(ctx, input) {
    const name = input.args[0] ?? "";
    const result = await withRunLock(ctx.home, () => restoreSkill(name, manualMoveOptions(ctx)), ctx.runLock);
    const note = result.flattened ? " (its original place was taken, so it went to the top level)" : "";
    const pin = ctx.commandPrefix(["curator", "pin", result.name]);
    const hint = `\nIts inactivity clock is unchanged, so a later run may archive it again; \`${pin}\` keeps it.`;
    return textReply(`curator: restored '${result.name}' to skills/${result.restoredTo}${note}${hint}`, {
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
  summary: "archived skills, by the name restore takes",
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
    if (items.length === 0) return textReply("curator: no archived skills", { json });
    const width = Math.max(...items.map((item) => item.archivedAs.length));
    const rows = items.map((item) => {
      const skill = item.skillName !== item.restoreTo.split("/").pop() ? `  (skill '${item.skillName}')` : "";
      return `  ${item.archivedAs.padEnd(width)}  → skills/${item.restoreTo}${skill}`;
    });
    const listed = reply(
      [
        { kind: "paragraph", text: `archived skills (${items.length}):` },
        { kind: "code", text: rows.join("\n") },
        {
          kind: "paragraph",
          text: `restore one with \`${ctx.commandPrefix(["curator", "restore", "<name>"])}\` using a name from the left column`,
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
    description: "idle threshold in days (default curator.archive_after_days)",
    kind: "integer",
  },
  { name: "dry-run", description: "list the candidates, change nothing", kind: "boolean" },
] as const satisfies readonly OptionSpec[];

function pruneDays(ctx: CommandContext, input: CommandInput<OptionValues<typeof PRUNE_OPTIONS>>): number {
  const value = input.options.days;
  const days = typeof value === "number" ? value : ctx.config.curator.archiveAfterDays;
  if (!Number.isInteger(days) || days < 1) throw new UsageError(`curator: --days must be >= 1 (got ${days})`);
  return days;
}

const pruneCommand = defineCommand({
  path: ["curator", "prune"],
  summary:
    "archive curated skills idle for N days (pinned, cron-referenced and young never-used skills are kept)",
  options: PRUNE_OPTIONS,
  mutating: true,
  async confirm(ctx, input) {
    const days = pruneDays(ctx, input);
    if (input.options["dry-run"]) return null;
    const { candidates } = await pruneCandidates(ops(ctx), days);
    if (candidates.length === 0) return null;
    const names =
      candidates
        .slice(0, 20)
        .map((c) => c.name)
        .join(", ") + (candidates.length > 20 ? ", …" : "");
    return `Archive ${candidates.length} skill(s) idle >= ${days}d (${names})?`;
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
      text: `warning: ${warning}`,
    }));
    const listed = candidates.map((c) => ({ name: c.name, idle_days: c.idleDays }));
    if (candidates.length === 0) {
      return reply(
        [
          { kind: "paragraph", text: `curator: nothing to prune (no unpinned skills idle >= ${days}d)` },
          ...warningBlocks,
        ],
        {
          json: { ok: true, days, candidates: [], archived: [], failures: [] },
        },
      );
    }
    const blocks: ReplyBlock[] = [
      { kind: "paragraph", text: `${candidates.length} skill(s) idle >= ${days}d:` },
      { kind: "code", text: candidates.map((c) => `  ${c.name.padEnd(40)} idle ${c.idleDays}d`).join("\n") },
    ];
    if (!done) {
      blocks.push({ kind: "paragraph", text: "(dry run — no changes made)" }, ...warningBlocks);
      return reply(blocks, { json: { ok: true, days, dry_run: true, candidates: listed } });
    }
    blocks.push({ kind: "paragraph", text: `archived ${done.archived.length}/${candidates.length}` });
    if (done.failures.length > 0) {
      blocks.push(
        { kind: "paragraph", text: "failures:" },
        { kind: "list", items: done.failures.map((f) => `${f.name}: ${f.error}`) },
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
        failures: done.failures,
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
