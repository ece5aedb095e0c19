/**
 * `skills search <query>`: the skills ranked by relevance to a few words (English or Chinese), among the
 * ones visible here (see `src/skills/search.ts`). In chat each of the first hits gets "View" and "Load"
 * buttons; when the first hits score the same, the reply says so and the person chooses with them.
 * `--json` prints `{ success, query, count, results: [{ name, description, category, score, tags,
 * related_skills }] }`. `--hub` searches the configured hubs instead (`commands/skills-hub.ts`).
 */
import { invocation, type ReplyAction, runAction } from "../src/core/actions.js";
import { list, type Text, t } from "../src/core/i18n/messages.js";
import { type Reply, type ReplyBlock, reply } from "../src/core/reply.js";
import { type SearchHit, searchSkills } from "../src/skills/search.js";
import { withButtons } from "./buttons.js";
import { PLATFORM_OPTION } from "./skills.js";
import {
  type CommandContext,
  type CommandInput,
  defineCommand,
  type OptionSpec,
  type OptionValues,
} from "./types.js";

const SEARCH_OPTIONS = [
  { name: "limit", kind: "integer", description: t("cmd.option.search.limit") },
  { name: "hub", kind: "boolean", description: t("hub.opt.hub") },
  PLATFORM_OPTION,
] as const satisfies readonly OptionSpec[];

/** Hits given buttons in chat (two per hit). */
const BUTTONED_HITS = 4;
/** Hits scoring within this share of the best one tie with it. */
const TIE_SHARE = 0.97;

function shorten(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The first hits that score (almost) the same as the best one: more than one means a tie to choose. */
export function tiedHits(hits: SearchHit[]): SearchHit[] {
  const best = hits[0]?.score ?? 0;
  if (best <= 0) return [];
  const tied = hits.filter((hit) => hit.score >= best * TIE_SHARE);
  return tied.length > 1 ? tied : [];
}

/** "View X" and "Load X" buttons for each hit, one row per hit. */
export function hitButtons(names: string[]): ReplyAction[][] {
  return names.slice(0, BUTTONED_HITS).map((name) => [
    runAction(t("button.viewSkill", { name }), invocation(["skills", "view"], [name]), {
      placement: "reply",
    }),
    runAction(t("button.loadSkill", { name }), invocation(["skill"], [name]), {
      style: "primary",
      placement: "reply",
    }),
  ]);
}

/** A hit's description, with its related skills beside it when it names any. */
function describeHit(hit: SearchHit): Text {
  const description = shorten(hit.description, 90);
  if (hit.related.length === 0) return description;
  return t("search.describedRelated", {
    description,
    related: t("search.related", { names: list(hit.related) }),
  });
}

async function searchCommand(
  ctx: CommandContext,
  input: CommandInput<OptionValues<typeof SEARCH_OPTIONS>>,
): Promise<Reply> {
  const query = input.args.join(" ").trim();
  if (query === "")
    return reply([{ kind: "paragraph", text: t("search.emptyQuery", { example: "`deploy nginx`" }) }], {
      json: { success: false, error: "empty query" },
      exitCode: 2,
    });
  // `--hub` searches the taps and the registry instead (loaded only then: the library search stays light).
  if (input.options.hub)
    return (await import("./skills-hub.js")).runHubSearch(ctx, query, input.options.limit ?? 20);
  const option = input.options.platform?.trim();
  const platform = option ? option.toLowerCase() : ctx.platform;
  const limit = Math.min(Math.max(input.options.limit ?? 10, 1), 100);
  const hits = await searchSkills(ctx.library, query, { platform, limit });
  const json = {
    success: true,
    query,
    count: hits.length,
    results: hits.map((hit) => ({
      name: hit.name,
      description: hit.description,
      category: hit.category,
      score: hit.score,
      tags: hit.tags,
      related_skills: hit.related,
    })),
  };
  if (ctx.json) return reply([], { json });
  if (hits.length === 0)
    return reply(
      [
        {
          kind: "paragraph",
          text: t("search.none", { query, list: ctx.commandPrefix(["skills", "list"]) }),
        },
      ],
      { json },
    );
  const blocks: ReplyBlock[] = [
    { kind: "heading", text: t("search.heading", { query, total: hits.length }) },
  ];
  blocks.push({
    kind: "table",
    headers: [t("cmd.col.name"), t("cmd.col.category"), t("cmd.col.description")],
    rows: hits.map((hit) => [hit.name, hit.category ?? "", describeHit(hit)]),
  });
  const tied = tiedHits(hits);
  if (tied.length > 0 && ctx.surface !== "terminal")
    blocks.push({ kind: "paragraph", text: t("search.tie") });
  else
    blocks.push({
      kind: "paragraph",
      text: t("search.showOne", { command: `${ctx.commandPrefix(["skills", "view"])} <name>` }),
    });
  const buttoned = tied.length > 0 ? tied.map((hit) => hit.name) : hits.map((hit) => hit.name);
  return withButtons(reply(blocks, { json }), hitButtons(buttoned));
}

/** The `skills search` command (registered in `commands/index.ts`). */
export const skillsSearchCommand = defineCommand({
  path: ["skills", "search"],
  summary: t("cmd.summary.skillsSearch"),
  args: [{ name: "query", description: t("cmd.arg.searchQuery"), required: true, variadic: true }],
  options: SEARCH_OPTIONS,
  mutating: false,
  run: searchCommand,
});
