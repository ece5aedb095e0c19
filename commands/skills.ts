/**
 * `skills list`, `skills view` and `skills usage`: the same specs answer `skillgate skills …` in a
 * terminal and `/skills …` in chat. `--json` prints exactly the reference's `skills_list` / `skill_view`
 * result objects; `--platform P` answers as the chat surface of P would (its disabled list applies, and
 * missing secrets give `gateway_setup_hint` instead of a prompt).
 */
import path from "node:path";
import { type Reply, type ReplyBlock, reply, withWarnings } from "../src/core/reply.js";
import { classify, loadProvenance, readCreatedByKeys } from "../src/curator/provenance.js";
import { type EnvRequirement, promptForMissingSecrets } from "../src/skills/readiness.js";
import type { SkillEntry, SkillViewResult } from "../src/skills/types.js";
import {
  activityCount,
  emptyRecord,
  lastActivityAt,
  parseTimestamp,
  type UsageRecord,
  UsageStore,
} from "../src/skills/usage.js";
import { effectivePlatform, type HiddenReason, hiddenReason } from "../src/skills/visibility.js";
import { paged, withButtons } from "./buttons.js";
import { closest } from "./parse.js";
import {
  offeredKeys,
  secretButtons,
  settingLines,
  setupHint,
  setupTodo,
  viewSettings,
} from "./readiness-view.js";
import {
  type CommandContext,
  type CommandInput,
  type CommandSpec,
  defineCommand,
  type OptionSpec,
  type OptionValues,
} from "./types.js";

const PLATFORM_OPTION = {
  name: "platform",
  kind: "string",
  env: "HERMES_PLATFORM",
  description: "answer as the chat surface of this platform (telegram, feishu, discord, …) would",
} as const satisfies OptionSpec;

const LIST_OPTIONS = [
  { name: "category", kind: "string", description: "only skills in this category" },
  PLATFORM_OPTION,
] as const satisfies readonly OptionSpec[];

const VIEW_OPTIONS = [PLATFORM_OPTION] as const satisfies readonly OptionSpec[];

const USAGE_OPTIONS = [
  {
    name: "sort",
    kind: "string",
    choices: ["activity", "recent", "name"],
    description: "order: activity (default), recent or name",
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
  const result = await ctx.library.list({ category, platform: platformOf(ctx, input) });
  const skipped = (await ctx.library.skipped?.()) ?? [];
  const warnings = skipped.map((item) => `skipped ${item.folder}: ${item.reason}`);
  // `--json` prints the result object alone (the warnings go to stderr): skip laying out a table.
  if (ctx.json) return withWarnings(reply([], { json: result }), warnings);
  const blocks: ReplyBlock[] = [];
  if (result.message) {
    blocks.push({ kind: "paragraph", text: result.message });
    return withWarnings(reply(blocks, { json: result }), warnings);
  }
  const skills = result.skills ?? [];
  const scope = category ? ` in category \`${category}\`` : "";
  blocks.push({ kind: "heading", text: `Skills${scope} (${skills.length})` });
  if (skills.length === 0) {
    const known = result.categories ?? [];
    blocks.push({
      kind: "paragraph",
      text: `No skill has the category \`${category}\`.${known.length ? "" : " List all skills to see the categories in use."}`,
    });
    return reply(blocks, { json: result });
  }
  blocks.push({
    kind: "table",
    headers: ["name", "category", "description"],
    rows: skills.map((skill) => [skill.name, skill.category ?? "", shorten(skill.description, 80)]),
  });
  blocks.push({
    kind: "paragraph",
    text: `Show one with \`${ctx.commandPrefix(["skills", "view"])} <name>\`.`,
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
    { kind: "paragraph", text: String(result.error ?? "The skill could not be shown.") },
  ];
  const matches = result.matches as string[] | undefined;
  if (matches?.length) {
    blocks.push({ kind: "list", items: matches });
    blocks.push({
      kind: "paragraph",
      text: `Show one by its category path, e.g. \`${view} ${matches[0]}\`, or rename one so the names are unique.`,
    });
  }
  const available = result.available_skills as string[] | undefined;
  if (available !== undefined) {
    const names = ((await ctx.library.list({ platform })).skills ?? []).map((skill) => skill.name);
    const guess = closest(name, names);
    if (guess) blocks.push({ kind: "paragraph", text: `Did you mean \`${view} ${guess}\`?` });
    else if (available.length > 0)
      blocks.push({ kind: "paragraph", text: `Some available skills: ${available.join(", ")}` });
    blocks.push({
      kind: "paragraph",
      text: `\`${ctx.commandPrefix(["skills", "list"])}\` lists every skill.`,
    });
  }
  const files = result.available_files as Record<string, string[]> | undefined;
  if (files && Object.keys(files).length > 0) {
    blocks.push({
      kind: "list",
      items: Object.entries(files).map(([group, list]) => `${group}: ${list.join(", ")}`),
    });
  }
  return blocks;
}

function successBlocks(
  result: SkillViewResult,
  ctx: CommandContext,
  name: string,
  privateEntry: ReadonlySet<string>,
): ReplyBlock[] {
  const blocks: ReplyBlock[] = [];
  const warnings = (result.security_warnings as string[] | undefined) ?? [];
  if (typeof result.file === "string") {
    blocks.push({ kind: "heading", text: `${result.name} — ${result.file}` });
    if (warnings.length)
      blocks.push({ kind: "paragraph", text: "⚠ Security warnings:" }, { kind: "list", items: warnings });
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
  if (tags.length) blocks.push({ kind: "paragraph", text: `Tags: ${tags.join(", ")}` });
  if (warnings.length)
    blocks.push({ kind: "paragraph", text: "⚠ Security warnings:" }, { kind: "list", items: warnings });
  const missing = result.missing_required_environment_variables as string[];
  if (result.setup_needed) {
    const lines = [
      typeof result.setup_note === "string" ? result.setup_note : "Setup is needed before using this skill.",
    ];
    if (missing.length) lines.push(`Missing variables: ${missing.map((item) => `\`${item}\``).join(", ")}`);
    const hint = setupHint(result, ctx, name, privateEntry);
    if (hint) lines.push(hint);
    blocks.push({ kind: "paragraph", text: lines.join("\n") });
  }
  const todo = setupTodo(result, ctx, privateEntry);
  if (todo.length > 0) blocks.push({ kind: "paragraph", text: "To do:" }, { kind: "list", items: todo });
  const settings = viewSettings(result);
  if (settings.length > 0) {
    blocks.push(
      { kind: "paragraph", text: "Settings (skills.config in config.yaml):" },
      { kind: "list", items: settingLines(settings) },
    );
  }
  blocks.push({ kind: "code", text: String(result.content), lang: "markdown" });
  const linked = result.linked_files as Record<string, string[]> | null;
  if (linked) {
    blocks.push({
      kind: "paragraph",
      text: `Linked files (show one with \`${ctx.commandPrefix(["skills", "view"])} ${name} <file>\`):`,
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
  const buttons = result.file === undefined ? secretButtons(result, ctx) : [];
  const done = reply(successBlocks(result, ctx, name, offeredKeys(buttons)), { json: result });
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
      const { skipped } = await promptForMissingSecrets(requests, ctx.home, ctx.prompt);
      const result = await ctx.library.view(name, { ...options, bumpView: true });
      if (skipped.length > 0 && result.success) result.setup_skipped = true;
      return renderView(result, ctx, name, platform);
    }
  }
  return renderView(await ctx.library.view(name, { ...options, bumpView: true }), ctx, name, platform);
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
  const blocks: ReplyBlock[] = [{ kind: "heading", text: `Skill usage (${rows.length}, by ${sort})` }];
  for (const warning of json.warnings) blocks.push({ kind: "paragraph", text: `⚠ ${warning}` });
  if (rows.length === 0) {
    blocks.push({
      kind: "paragraph",
      text: `No skills and no usage recorded yet under ${path.join(ctx.home, "skills")}.`,
    });
    return reply(blocks, { json });
  }
  blocks.push({
    kind: "table",
    headers: ["name", "provenance", "state", "use", "view", "patch", "activity", "last activity"],
    rows: rows.map((item) => [
      `${item.name}${item.pinned ? " (pinned)" : ""}`,
      item.provenance,
      item.on_disk
        ? item.hidden
          ? `${item.state}, hidden: ${item.hidden}`
          : item.state
        : `${item.state}, not on disk`,
      String(item.use_count),
      String(item.view_count),
      String(item.patch_count),
      String(item.activity_count),
      item.last_activity_at ?? "never",
    ]),
  });
  return paged(reply(blocks, { json }), blocks.length - 1, ["skills", "usage"], input);
}

/** The `skills` command group. */
export const skillsCommands: CommandSpec[] = [
  defineCommand({
    path: ["skills", "list"],
    summary: "list the skills visible here, by category",
    options: LIST_OPTIONS,
    mutating: false,
    run: listSkills,
  }),
  defineCommand({
    path: ["skills", "view"],
    summary: "show a skill (or one of its files), its readiness and any security warnings",
    args: [
      { name: "name", description: "skill name or categorized path (category/name)", required: true },
      { name: "file", description: "a file inside the skill, e.g. references/api.md" },
    ],
    options: VIEW_OPTIONS,
    mutating: false,
    run: viewSkill,
  }),
  defineCommand({
    path: ["skills", "usage"],
    summary: "usage counters and lifecycle state of every skill",
    options: USAGE_OPTIONS,
    mutating: false,
    run: usageReport,
  }),
];
