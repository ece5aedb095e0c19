/**
 * `skills overlaps`: pairs of active skills whose triggers overlap — similar names, tags and descriptions
 * (cosine similarity of their TF-IDF vectors, see `src/skills/search.ts`) or one naming the other in
 * `related_skills` — each with its score and reason, as candidates for the consolidation pass. `--json`
 * prints `{ success, count, pairs: [{ a, b, score, shared_terms, related }] }`.
 */
import { list, type Text, t } from "../src/core/i18n/messages.js";
import { type Reply, type ReplyBlock, reply } from "../src/core/reply.js";
import { findOverlaps, type OverlapPair } from "../src/skills/search.js";
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
  return reply(blocks, { json });
}

/** The `skills overlaps` command (registered in `commands/index.ts`). */
export const skillsOverlapsCommand = defineCommand({
  path: ["skills", "overlaps"],
  summary: t("cmd.summary.skillsOverlaps"),
  options: OVERLAP_OPTIONS,
  mutating: false,
  run: overlapsCommand,
});
