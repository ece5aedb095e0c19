/**
 * `skills list`, `skills view` and `skills usage`: the same specs answer `skillgate skills …` in a
 * terminal and `/skills …` in chat. `--json` prints exactly the reference's `skills_list` / `skill_view`
 * result objects; `--platform P` answers as the chat surface of P would (its disabled list applies, and
 * missing secrets give `gateway_setup_hint` instead of a prompt). What only `view` or only `usage` needs
 * (readiness, provenance) is loaded when it runs, so a listing loads neither.
 */
import path from "node:path";
import { provenanceWord, stateWord } from "../src/core/i18n/data-words.js";
import { displayTimeZone } from "../src/core/i18n/dates.js";
import { join, lines, list, type Text, t, when } from "../src/core/i18n/messages.js";
import { type Reply, type ReplyBlock, reply, withWarnings } from "../src/core/reply.js";
import type { EnvRequirement } from "../src/skills/readiness.js";
import type { SkillEntry, SkillViewResult } from "../src/skills/types.js";
import { UsageStore } from "../src/skills/usage.js";
import {
  activityCount,
  emptyRecord,
  lastActivityAt,
  parseTimestamp,
  type UsageRecord,
} from "../src/skills/usage-record.js";
import { viewTexts } from "../src/skills/view-texts.js";
import { effectivePlatform, type HiddenReason, hiddenReason } from "../src/skills/visibility.js";
import { paged, withButtons } from "./buttons.js";
import { closest } from "./parse.js";
import {
  type CommandContext,
  type CommandInput,
  type CommandSpec,
  defineCommand,
  type OptionSpec,
  type OptionValues,
} from "./types.js";

/** `--platform P` (or `HERMES_PLATFORM`): answer as that platform's chat surface would. */
export const PLATFORM_OPTION = {
  name: "platform",
  kind: "string",
  env: "HERMES_PLATFORM",
  description: t("cmd.option.skills.platform"),
} as const satisfies OptionSpec;

const LIST_OPTIONS = [
  { name: "category", kind: "string", description: t("cmd.option.skills.category") },
  PLATFORM_OPTION,
] as const satisfies readonly OptionSpec[];

const VIEW_OPTIONS = [PLATFORM_OPTION] as const satisfies readonly OptionSpec[];

const USAGE_OPTIONS = [
  {
    name: "sort",
    kind: "string",
    choices: ["activity", "recent", "name"],
    description: t("cmd.option.skills.sort"),
    choiceLabels: {
      activity: t("cmd.sort.activity"),
      recent: t("cmd.sort.recent"),
      name: t("cmd.sort.name"),
    },
  },
  PLATFORM_OPTION,
] as const satisfies readonly OptionSpec[];

function platformOf(ctx: CommandContext, input: CommandInput<{ readonly platform?: string }>): string | null {
  const option = input.options.platform?.trim();
  return option ? option.toLowerCase() : ctx.platform;
}

function shorten(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

async function listSkills(
  ctx: CommandContext,
  input: CommandInput<OptionValues<typeof LIST_OPTIONS>>,
): Promise<Reply> {
  const category = input.options.category;
  // On the command line a read-only look creates nothing (chat surfaces run in a home already made).
  const create = ctx.surface !== "terminal";
  const result = await ctx.library.list({ category, platform: platformOf(ctx, input), create });
  const skipped = (await ctx.library.skipped?.()) ?? [];
  const warnings = skipped.map((item) => t("cmd.skills.skipped", { folder: item.folder, reason: item.text }));
  // `--json` prints the result object alone (the warnings go to stderr): skip laying out a table.
  if (ctx.json) return withWarnings(reply([], { json: result }), warnings);
  const blocks: ReplyBlock[] = [];
  if (result.message) {
    blocks.push({ kind: "paragraph", text: viewTexts(result).message ?? result.message });
    return withWarnings(reply(blocks, { json: result }), warnings);
  }
  const skills = result.skills ?? [];
  blocks.push({
    kind: "heading",
    text: category
      ? t("cmd.skills.headingCategory", { category, total: skills.length })
      : t("cmd.skills.heading", { total: skills.length }),
  });
  if (skills.length === 0) {
    const known = result.categories ?? [];
    blocks.push({
      kind: "paragraph",
      text: t(known.length ? "cmd.skills.noCategory" : "cmd.skills.noCategoryListAll", {
        category: category ?? "",
      }),
    });
    return reply(blocks, { json: result });
  }
  blocks.push({
    kind: "table",
    headers: [t("cmd.col.name"), t("cmd.col.category"), t("cmd.col.description")],
    rows: skills.map((skill) => [skill.name, skill.category ?? "", shorten(skill.description, 80)]),
  });
  blocks.push({
    kind: "paragraph",
    text: t("cmd.skills.showOne", { command: `${ctx.commandPrefix(["skills", "view"])} <name>` }),
  });
  return withWarnings(
    paged(reply(blocks, { json: result }), blocks.length - 2, ["skills", "list"], input),
    warnings,
  );
}

/**
 * A failed view for a person: the error, the closest skill name as a command to run, and this
 * surface's own list command (the result's `hint` speaks to the agent, in tool names, and is not shown).
 */
async function failureBlocks(
  result: SkillViewResult,
  ctx: CommandContext,
  name: string,
  platform: string | null,
): Promise<ReplyBlock[]> {
  const view = ctx.commandPrefix(["skills", "view"]);
  const blocks: ReplyBlock[] = [
    {
      kind: "paragraph",
      text: viewTexts(result).error ?? (result.error ? String(result.error) : t("cmd.view.couldNotShow")),
    },
  ];
  const matches = result.matches as string[] | undefined;
  if (matches?.length) {
    blocks.push({ kind: "list", items: matches });
    blocks.push({
      kind: "paragraph",
      text: t("cmd.view.byPath", { command: `${view} ${matches[0]}` }),
    });
  }
  const available = result.available_skills as string[] | undefined;
  if (available !== undefined) {
    const names = ((await ctx.library.list({ platform })).skills ?? []).map((skill) => skill.name);
    const guess = closest(name, names);
    if (guess)
      blocks.push({ kind: "paragraph", text: t("cmd.view.didYouMean", { command: `${view} ${guess}` }) });
    else if (available.length > 0)
      blocks.push({ kind: "paragraph", text: t("cmd.view.someAvailable", { names: list(available) }) });
    blocks.push({
      kind: "paragraph",
      text: t("cmd.view.listsEvery", { command: ctx.commandPrefix(["skills", "list"]) }),
    });
  }
  const files = result.available_files as Record<string, string[]> | undefined;
  if (files && Object.keys(files).length > 0) {
    blocks.push({
      kind: "list",
      items: Object.entries(files).map(([group, names]) => join([group, list(names)], ": ")),
    });
  }
  return blocks;
}

function successBlocks(
  result: SkillViewResult,
  ctx: CommandContext,
  name: string,
  privateEntry: ReadonlySet<string>,
  { setupHint, setupTodo, viewSettings, settingLines }: typeof import("./readiness-view.js"),
): ReplyBlock[] {
  const blocks: ReplyBlock[] = [];
  const warnings: Text[] =
    viewTexts(result).securityWarnings ?? (result.security_warnings as string[] | undefined) ?? [];
  if (typeof result.file === "string") {
    blocks.push({ kind: "heading", text: `${result.name} — ${result.file}` });
    if (warnings.length)
      blocks.push(
        { kind: "paragraph", text: t("cmd.view.securityWarnings") },
        { kind: "list", items: warnings },
      );
    const lang = typeof result.file_type === "string" ? result.file_type.replace(/^\./, "") : undefined;
    blocks.push(
      result.is_binary
        ? { kind: "paragraph", text: String(result.content) }
        : { kind: "code", text: String(result.content), lang: lang || undefined },
    );
    return blocks;
  }
  blocks.push({ kind: "heading", text: `${result.name} (${result.path})` });
  if (result.description) blocks.push({ kind: "paragraph", text: String(result.description) });
  const tags = result.tags as string[];
  if (tags.length) blocks.push({ kind: "paragraph", text: t("cmd.view.tags", { tags: list(tags) }) });
  if (warnings.length)
    blocks.push(
      { kind: "paragraph", text: t("cmd.view.securityWarnings") },
      { kind: "list", items: warnings },
    );
  const missing = result.missing_required_environment_variables as string[];
  if (result.setup_needed) {
    const said: Text[] = [
      viewTexts(result).setupNote ??
        (typeof result.setup_note === "string" ? result.setup_note : t("cmd.view.setupNeeded")),
    ];
    if (missing.length)
      said.push(t("cmd.view.missingVariables", { names: list(missing.map((item) => `\`${item}\``)) }));
    const hint = setupHint(result, ctx, name, privateEntry);
    if (hint) said.push(hint);
    blocks.push({ kind: "paragraph", text: lines(said) });
  }
  const todo = setupTodo(result, ctx, privateEntry);
  if (todo.length > 0)
    blocks.push({ kind: "paragraph", text: t("cmd.view.toDo") }, { kind: "list", items: todo });
  const settings = viewSettings(result);
  if (settings.length > 0) {
    blocks.push(
      { kind: "paragraph", text: t("skill.settings") },
      { kind: "list", items: settingLines(settings) },
    );
  }
  blocks.push({ kind: "code", text: String(result.content), lang: "markdown" });
  const linked = result.linked_files as Record<string, string[]> | null;
  if (linked) {
    blocks.push({
      kind: "paragraph",
      text: t("cmd.view.linkedFiles", { command: `${ctx.commandPrefix(["skills", "view"])} ${name} <file>` }),
    });
    blocks.push({ kind: "list", items: Object.values(linked).flat() });
  }
  return blocks;
}

async function renderView(
  result: SkillViewResult,
  ctx: CommandContext,
  name: string,
  platform: string | null,
): Promise<Reply> {
  if (!result.success)
    return reply(await failureBlocks(result, ctx, name, platform), { json: result, exitCode: 1 });
  const readinessView = await import("./readiness-view.js");
  const buttons = result.file === undefined ? readinessView.secretButtons(result, ctx) : [];
  const privateEntry = readinessView.offeredKeys(buttons);
  const done = reply(successBlocks(result, ctx, name, privateEntry, readinessView), { json: result });
  return withButtons(done, [buttons]);
}

async function viewSkill(
  ctx: CommandContext,
  input: CommandInput<OptionValues<typeof VIEW_OPTIONS>>,
): Promise<Reply> {
  const [name = "", file] = input.args;
  const platform = platformOf(ctx, input);
  const options = { filePath: file, platform };
  const canPrompt =
    ctx.surface === "terminal" &&
    ctx.interactive &&
    !ctx.json &&
    ctx.prompt &&
    effectivePlatform(platform) === null;
  if (canPrompt && file === undefined && ctx.prompt) {
    const first = await ctx.library.view(name, options);
    const missing = new Set((first.missing_required_environment_variables as string[] | undefined) ?? []);
    if (first.success && missing.size > 0) {
      const requests = ((first.required_environment_variables as EnvRequirement[]) ?? []).filter((item) =>
        missing.has(item.name),
      );
      const { promptForMissingSecrets } = await import("../src/skills/readiness.js");
      const { skipped } = await promptForMissingSecrets(requests, ctx.home, ctx.prompt, ctx.config);
      const result = await ctx.library.view(name, options);
      if (skipped.length > 0 && result.success) result.setup_skipped = true;
      return renderView(result, ctx, name, platform);
    }
  }
  // A person looking at a skill (terminal, chat or console) is not the agent using it: Hermes counts a
  // view (and a use) when its agent's `skill_view` tool reads a skill, so only the tool handler and the
  // chat's `/skill <name>` invocation count; browsing never keeps a skill from going stale.
  return renderView(await ctx.library.view(name, options), ctx, name, platform);
}

/** One row of `skills usage`. */
export interface UsageRow {
  name: string;
  category: string | null;
  provenance: string;
  state: string;
  pinned: boolean;
  use_count: number;
  view_count: number;
  patch_count: number;
  activity_count: number;
  last_activity_at: string | null;
  created_at: string | null;
  on_disk: boolean;
  /** Why the skill is not shown here (OS, environment, a disabled list), or null when shown or not on disk. */
  hidden: HiddenReason | null;
}

const SORT_WORDS: Record<string, Text> = {
  activity: t("cmd.sort.activity"),
  recent: t("cmd.sort.recent"),
  name: t("cmd.sort.name"),
};

const HIDDEN_WORDS: Record<HiddenReason, Text> = {
  os: t("cmd.hidden.os"),
  environment: t("cmd.hidden.environment"),
  disabled: t("cmd.hidden.disabled"),
  platform_disabled: t("cmd.hidden.platformDisabled"),
};

/** A usage row's state as the reader reads it (the JSON keeps the stored word). */
function stateText(state: string): Text {
  return state === "active" || state === "stale" || state === "archived" ? stateWord(state) : state;
}

function sortRows(rows: UsageRow[], sort: string): UsageRow[] {
  const byName = (a: UsageRow, b: UsageRow) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const time = (row: UsageRow) =>
    row.last_activity_at ? (parseTimestamp(row.last_activity_at) ?? 0) : Number.NEGATIVE_INFINITY;
  if (sort === "name") return rows.sort(byName);
  if (sort === "recent") return rows.sort((a, b) => time(b) - time(a) || byName(a, b));
  return rows.sort((a, b) => b.activity_count - a.activity_count || time(b) - time(a) || byName(a, b));
}

async function usageReport(
  ctx: CommandContext,
  input: CommandInput<OptionValues<typeof USAGE_OPTIONS>>,
): Promise<Reply> {
  const sort = input.options.sort ?? "activity";
  const platform = platformOf(ctx, input);
  const store = new UsageStore(ctx.paths.skills);
  const records = await store.read();
  const all = await ctx.library.all();
  const { classify, loadProvenance, readCreatedByKeys } = await import("../src/curator/provenance.js");
  const provenance = await loadProvenance(ctx.home, all);
  const createdByKeys = await readCreatedByKeys(ctx.home);
  const present = new Set(all.map((entry) => entry.name));
  const row = (name: string, entry: SkillEntry | undefined, record: UsageRecord): UsageRow => ({
    name,
    category: entry?.category ?? null,
    provenance: classify(name, entry, records[name], createdByKeys.get(name) ?? false, provenance, ctx.config)
      .kind,
    state: record.state,
    pinned: record.pinned,
    use_count: record.use_count,
    view_count: record.view_count,
    patch_count: record.patch_count,
    activity_count: activityCount(record),
    last_activity_at: lastActivityAt(record),
    created_at: record.created_at,
    on_disk: entry !== undefined,
    hidden: entry ? hiddenReason(entry.name, entry.frontmatter, platform, ctx.config) : null,
  });
  // Every skill on disk, hidden ones included (flagged), then records whose skill is gone.
  const rows = all.map((entry) => row(entry.name, entry, records[entry.name] ?? emptyRecord()));
  for (const [name, record] of Object.entries(records)) {
    if (!present.has(name)) rows.push(row(name, undefined, record));
  }
  sortRows(rows, sort);
  const json = {
    success: true,
    sort,
    count: rows.length,
    skills: rows,
    warnings: [...store.warnings, ...provenance.warnings],
  };
  const blocks: ReplyBlock[] = [
    { kind: "heading", text: t("cmd.usage.heading", { total: rows.length, sort: SORT_WORDS[sort] ?? sort }) },
  ];
  for (const warning of [...store.warningTexts, ...provenance.warningTexts])
    blocks.push({ kind: "paragraph", text: t("reply.warning", { text: warning }) });
  if (rows.length === 0) {
    blocks.push({
      kind: "paragraph",
      text: t("cmd.usage.empty", { dir: path.join(ctx.home, "skills") }),
    });
    return reply(blocks, { json });
  }
  const zone = displayTimeZone(ctx.config.gateway.timezone);
  blocks.push({
    kind: "table",
    headers: [
      t("cmd.col.name"),
      t("cmd.col.provenance"),
      t("cmd.col.state"),
      t("cmd.col.use"),
      t("cmd.col.view"),
      t("cmd.col.patch"),
      t("cmd.col.activity"),
      t("cmd.col.lastActivity"),
    ],
    rows: rows.map((item) => [
      item.pinned ? t("cmd.usage.pinned", { name: item.name }) : item.name,
      provenanceWord(item.provenance),
      item.on_disk
        ? item.hidden
          ? t("cmd.usage.hidden", { state: stateText(item.state), reason: HIDDEN_WORDS[item.hidden] })
          : stateText(item.state)
        : t("cmd.usage.notOnDisk", { state: stateText(item.state) }),
      String(item.use_count),
      String(item.view_count),
      String(item.patch_count),
      String(item.activity_count),
      item.last_activity_at ? when(item.last_activity_at, zone, ctx.now()) : t("cmd.time.never"),
    ]),
  });
  return paged(reply(blocks, { json }), blocks.length - 1, ["skills", "usage"], input);
}

/** The `skills` command group. */
export const skillsCommands: CommandSpec[] = [
  defineCommand({
    path: ["skills", "list"],
    summary: t("cmd.summary.skillsList"),
    options: LIST_OPTIONS,
    mutating: false,
    run: listSkills,
  }),
  defineCommand({
    path: ["skills", "view"],
    summary: t("cmd.summary.skillsView"),
    args: [
      { name: "name", description: t("cmd.arg.skillOrPath"), required: true },
      { name: "file", description: t("skill.arg.file") },
    ],
    options: VIEW_OPTIONS,
    mutating: false,
    run: viewSkill,
  }),
  defineCommand({
    path: ["skills", "usage"],
    summary: t("cmd.summary.skillsUsage"),
    options: USAGE_OPTIONS,
    mutating: false,
    run: usageReport,
  }),
];
