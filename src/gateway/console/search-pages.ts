/**
 * The console's relevance search (`/search?q=`) and overlapping-skills (`/overlaps`) pages, over the same
 * index as `skills search` and `skills overlaps` (`src/skills/search.ts`). Every value goes through hono's
 * escaping `html` tag; skill names and descriptions are data, marked `translate="no"`.
 */
import { html } from "hono/html";
import { type MessageKey, type ParamValue, resolveText } from "../../core/i18n/messages.js";
import type { SearchHit } from "../../skills/search.js";
import type { OverlapPair } from "../../skills/search-overlaps.js";
import { type Html, layout, type PageContext, searchBox } from "./page-frame.js";

function tr(ctx: PageContext, key: MessageKey, params?: Readonly<Record<string, ParamValue>>): string {
  return resolveText(params ? { key, params } : { key }, ctx.locale);
}

function skillLink(name: string): Html {
  return html`<a href="/skill/${encodeURIComponent(name)}" translate="no">${name}</a>`;
}

/** The hits of a relevance search, best first. */
export function searchPage(ctx: PageContext, query: string, hits: SearchHit[]): Html {
  const results =
    query.trim() === ""
      ? ""
      : hits.length === 0
        ? html`<p class="count">${tr(ctx, "console.search.none", { query })}</p>`
        : html`<p class="count">${tr(ctx, "search.heading", { query, total: hits.length })}</p>
<div class="table-box"><table class="grid" id="search-table">
<thead><tr><th>${tr(ctx, "console.col.name")}</th><th>${tr(ctx, "console.col.category")}</th><th>${tr(ctx, "cmd.col.description")}</th><th>${tr(ctx, "cmd.col.score")}</th></tr></thead>
<tbody>
${hits.map(
  (hit) =>
    html`<tr data-skill="${hit.name}"><td>${skillLink(hit.name)}</td><td translate="no">${hit.category ?? ""}</td><td translate="no">${ctx.scrub(hit.description)}${hit.related.length ? html` <span class="muted">(${tr(ctx, "search.related", { names: hit.related.join(", ") })})</span>` : ""}</td><td class="num">${hit.score.toFixed(2)}</td></tr>`,
)}
</tbody></table></div>`;
  const body = html`<h1>${tr(ctx, "console.page.search")}</h1>
${searchBox(ctx, query)}
${results}`;
  return layout("library", tr(ctx, "console.page.search"), ctx, body);
}

/** The pairs of active skills whose triggers overlap, with score and reason. */
export function overlapsPage(ctx: PageContext, pairs: OverlapPair[]): Html {
  const reason = (pair: OverlapPair) => {
    const parts: string[] = [];
    if (pair.related) parts.push(tr(ctx, "overlaps.related"));
    if (pair.shared.length) parts.push(tr(ctx, "overlaps.shared", { terms: pair.shared.join(", ") }));
    return parts.join(" · ");
  };
  const body = html`<h1>${tr(ctx, "console.page.overlaps")}</h1>
<p>${tr(ctx, "overlaps.hint")}</p>
${
  pairs.length === 0
    ? html`<p class="count">${tr(ctx, "overlaps.none")}</p>`
    : html`<div class="table-box"><table class="grid" id="overlaps-table">
<thead><tr><th>${tr(ctx, "overlaps.col.pair")}</th><th>${tr(ctx, "cmd.col.score")}</th><th>${tr(ctx, "overlaps.col.reason")}</th></tr></thead>
<tbody>
${pairs.map(
  (pair) =>
    html`<tr data-pair="${pair.a} ${pair.b}"><td>${skillLink(pair.a)} ↔ ${skillLink(pair.b)}</td><td class="num">${pair.score.toFixed(2)}</td><td translate="no">${reason(pair)}</td></tr>`,
)}
</tbody></table></div>`
}`;
  return layout("library", tr(ctx, "console.page.overlaps"), ctx, body);
}
