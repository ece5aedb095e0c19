/**
 * `skills overlaps`: pairs of active skills whose triggers overlap — similar names, tags and descriptions
 * (cosine similarity of their TF-IDF vectors, see `src/skills/search.ts`) or one naming the other in
 * `related_skills` — each with its score and reason, as candidates for the consolidation pass. In chat
 * the first pairs get "View" buttons for either skill and a "Compare" button (`skills compare a b`: the
 * two side by side — description, category, tags, related skills, version — and the diff of their
 * SKILL.md). `--json` prints `{ success, count, pairs: [{ a, b, score, shared_terms, related }] }`.
 */
import { invocation, type ReplyAction, runAction } from "../src/core/actions.js";
import { list, type Text, t } from "../src/core/i18n/messages.js";
import { lineDiff } from "../src/core/line-diff.js";
import { errorReply, type Reply, type ReplyBlock, reply } from "../src/core/reply.js";
import { findOverlaps, type OverlapPair } from "../src/skills/search-overlaps.js";
import { hermesList } from "../src/skills/search-text.js";
import type { SkillEntry } from "../src/skills/types.js";
import { withButtons } from "./buttons.js";
import { PLATFORM_OPTION } from "./skills.js";
import {
  type CommandContext,
  type CommandInput,
  defineCommand,
  type OptionSpec,
  type OptionValues,
} from "./types.js";

const OVERLAP_OPTIONS = [
  { name: "limit", kind: "integer", description: t("cmd.option.overlaps.limit") },
  PLATFORM_OPTION,
] as const satisfies readonly OptionSpec[];

/** Why two skills overlap, in words: the words they share and/or their `related_skills` link. */
export function overlapReason(pair: OverlapPair): Text {
  const shared = pair.shared.length > 0 ? t("overlaps.shared", { terms: list(pair.shared) }) : undefined;
  if (pair.related && shared) return t("overlaps.relatedAndShared", { shared });
  if (pair.related) return t("overlaps.related");
  return shared ?? "";
}

/** The `--json` shape of one pair. */
export function overlapJson(pair: OverlapPair) {
  return { a: pair.a, b: pair.b, score: pair.score, shared_terms: pair.shared, related: pair.related };
}

async function overlapsCommand(
  ctx: CommandContext,
  input: CommandInput<OptionValues<typeof OVERLAP_OPTIONS>>,
): Promise<Reply> {
  const option = input.options.platform?.trim();
  const platform = option ? option.toLowerCase() : ctx.platform;
  const limit = Math.min(Math.max(input.options.limit ?? 50, 1), 500);
  const pairs = await findOverlaps(ctx.library, { platform, limit });
  const json = { success: true, count: pairs.length, pairs: pairs.map(overlapJson) };
  if (ctx.json) return reply([], { json });
  if (pairs.length === 0) return reply([{ kind: "paragraph", text: t("overlaps.none") }], { json });
  const blocks: ReplyBlock[] = [
    { kind: "heading", text: t("overlaps.heading", { total: pairs.length }) },
    {
      kind: "table",
      headers: [t("overlaps.col.pair"), t("cmd.col.score"), t("overlaps.col.reason")],
      rows: pairs.map((pair) => [`${pair.a} ↔ ${pair.b}`, pair.score.toFixed(2), overlapReason(pair)]),
    },
    { kind: "paragraph", text: t("overlaps.hint") },
  ];
  return withButtons(reply(blocks, { json }), pairButtons(pairs));
}

/** Pairs given buttons in chat (one row each). */
const BUTTONED_PAIRS = 4;

/** "View a", "View b" and "Compare" for each of the first pairs. */
export function pairButtons(pairs: OverlapPair[]): ReplyAction[][] {
  return pairs.slice(0, BUTTONED_PAIRS).map(({ a, b }) => [
    runAction(t("button.viewSkill", { name: a }), invocation(["skills", "view"], [a]), {
      placement: "reply",
    }),
    runAction(t("button.viewSkill", { name: b }), invocation(["skills", "view"], [b]), {
      placement: "reply",
    }),
    runAction(t("button.compareSkills", { a, b }), invocation(["skills", "compare"], [a, b]), {
      style: "primary",
      placement: "reply",
    }),
  ]);
}

function versionOf(entry: SkillEntry): string {
  const version = entry.frontmatter.version;
  return typeof version === "string" || typeof version === "number" ? String(version) : "—";
}

/** The facts of a skill compared, one row each: label, then its value. */
function facts(entry: SkillEntry): [Text, string][] {
  const names = (key: string) => hermesList(entry.frontmatter, key).join(", ") || "—";
  return [
    [t("cmd.col.description"), entry.description],
    [t("cmd.col.category"), entry.category ?? "—"],
    [t("compare.tags"), names("tags")],
    [t("compare.related"), names("related_skills")],
    [t("compare.version"), versionOf(entry)],
  ];
}

async function compareCommand(ctx: CommandContext, input: CommandInput): Promise<Reply> {
  const [nameA = "", nameB = ""] = input.args;
  const [a, b] = await Promise.all([ctx.library.find(nameA), ctx.library.find(nameB)]);
  const missing = !a ? nameA : !b ? nameB : undefined;
  if (!a || !b)
    return errorReply(
      t("compare.noSkill", { name: missing ?? "", command: ctx.commandPrefix(["skills", "overlaps"]) }),
      1,
    );
  const [textA, textB] = await Promise.all(
    [a, b].map(async (entry) => {
      const view = await ctx.library.view(entry.name);
      return typeof view.content === "string" ? view.content : "";
    }),
  );
  const factsB = facts(b);
  const diff = lineDiff(textA ?? "", textB ?? "");
  return reply(
    [
      { kind: "heading", text: t("compare.heading", { a: a.name, b: b.name }) },
      {
        kind: "table",
        headers: ["", a.name, b.name],
        rows: facts(a).map(([label, value], index) => [label, value, factsB[index]?.[1] ?? ""]),
      },
      { kind: "paragraph", text: t("compare.diff", { a: a.name, b: b.name }) },
      { kind: "code", text: diff.join("\n"), lang: "diff" },
      { kind: "paragraph", text: t("overlaps.hint") },
    ],
    { json: { success: true, a: a.name, b: b.name, diff } },
  );
}

/** `skills compare <a> <b>`: two skills side by side (the overlap pairs' Compare button). */
export const skillsCompareCommand = defineCommand({
  path: ["skills", "compare"],
  summary: t("cmd.summary.skillsCompare"),
  args: [
    { name: "a", description: t("cmd.arg.skillName"), required: true },
    { name: "b", description: t("cmd.arg.skillName"), required: true },
  ],
  mutating: false,
  hidden: true,
  run: compareCommand,
});

/** The `skills overlaps` command (registered in `commands/index.ts`). */
export const skillsOverlapsCommand = defineCommand({
  path: ["skills", "overlaps"],
  summary: t("cmd.summary.skillsOverlaps"),
  options: OVERLAP_OPTIONS,
  mutating: false,
  run: overlapsCommand,
});
