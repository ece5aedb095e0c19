/**
 * The curator's state, read-only: `curator status` and `curator list-pinned`, and the lifecycle word of a
 * skill's state other listings reuse.
 */
import { invocation, runAction } from "../src/core/actions.js";
import { join, lines, list, type ParamValue, pad, type Text, t } from "../src/core/i18n/messages.js";
import { type Reply, type ReplyBlock, reply, textReply } from "../src/core/reply.js";
import {
  type ActivityRow,
  type CuratorStatus,
  curatorStatus,
  statusJson,
} from "../src/curator/operations.js";
import { storedSummaryLines } from "../src/curator/summary-text.js";
import { paged } from "./buttons.js";
import { CoalescedWork } from "./coalesce.js";
import { ops, padNumber, since } from "./curator-common.js";
import type { CommandContext, CommandSpec } from "./types.js";

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

/** `curator status`: the header, counts, pins, unmanaged skills and the activity rankings. */
export const statusCommand: CommandSpec = {
  path: ["curator", "status"],
  summary: t("cmd.summary.status"),
  mutating: false,
  async run(ctx) {
    return statusReply(await sharedStatus(ctx), ctx);
  },
};

/** `curator list-pinned`: the pinned skills, paged. */
export const listPinnedCommand: CommandSpec = {
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
