/**
 * The console's HTML, rendered on the server with hono's `html` template tag: every interpolated value
 * is escaped, and the only unescaped HTML is the sanitised Markdown from `markdown.ts`. Pages carry no
 * inline script or style (the CSP forbids both); `/assets/app.js` adds confirmations, live updates and
 * the run progress. Action buttons are rendered for admin logins only.
 *
 * Every text is resolved for the page's locale (`PageContext.locale`) from the catalog; values that are
 * data (skill names, ids, paths, descriptions, stored summaries) are marked `translate="no"`. The texts
 * the browser script shows (dialogs, toasts, chart labels) travel in the page as JSON in its
 * `console-texts` meta element, so the browser holds no catalog of its own. The header's language switch sets
 * the `skillgate_lang` cookie from `/assets/app.js`. The frame the pages share (header, navigation,
 * texts, controls) is `page-frame.ts`; the search and overlaps pages are `search-pages.ts`.
 */
import { html, raw } from "hono/html";
import { snapshotReasonWord } from "../../core/i18n/data-words.js";
import { displayTimeZone } from "../../core/i18n/dates.js";
import { isChinese } from "../../core/i18n/locale.js";
import { dayOf, type MessageKey, resolveText, type Text } from "../../core/i18n/messages.js";
import type { LedgerEntry } from "../../curator/ledger.js";
import { storedSummaryLines } from "../../curator/summary-text.js";
import type { curatorFacts, curatorPreview, PreviewRow, RunSummary, snapshots } from "./curator-data.js";
import type { ArchivedSkill, HubSkillRow, hubSkills, LibraryQuery, LibraryRow } from "./data.js";
import { consolePlatforms } from "./data.js";

import {
  actionButton,
  type Html,
  layout,
  named,
  type PageContext,
  platformLabel,
  searchBox,
  select,
  tr,
  when,
} from "./page-frame.js";

/** A stored run summary's lines in the reader's language (the stored English is read back into its parts). */
function summaryLines(ctx: PageContext, summary: string): string[] {
  return storedSummaryLines(summary).map((line) => ctx.scrub(resolveText(line, ctx.locale)));
}

/** What a skill still needs, one item each: missing variables and commands, unset settings. */
function readinessItems(ctx: PageContext, row: LibraryRow): string[] {
  return [
    ...row.missingSecrets.map((name) => tr(ctx, "console.ready.variable", { name })),
    ...row.missingCommands.map((name) => tr(ctx, "console.ready.command", { name })),
    ...row.unsetSettings.map((name) => tr(ctx, "console.ready.setting", { name })),
  ];
}

/** The readiness items as one line (`; ` between them, `；` in Chinese). */
function readinessLine(ctx: PageContext, row: LibraryRow): string {
  return readinessItems(ctx, row).join(isChinese(ctx.locale) ? "；" : "; ");
}

function reason(ctx: PageContext, text: Text): string {
  return resolveText(text, ctx.locale);
}

function visibilityCell(ctx: PageContext, row: LibraryRow): Html {
  return html`<span class="vis-list">${row.visibility.map((item) => {
    const platform = platformLabel(item.platform, ctx.locale);
    const title = item.visible
      ? tr(ctx, "console.visible.on", { platform })
      : tr(ctx, "console.visible.off", { platform, reason: reason(ctx, item.reason) });
    return html`<span class="vis ${item.visible ? "on" : "off"}" title="${title}">${platform}</span>`;
  })}</span>`;
}

function libraryHref(query: LibraryQuery, patch: Partial<LibraryQuery>): string {
  const merged = { ...query, ...patch };
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(merged)) {
    if (value !== "" && !(key === "page" && value === 1)) params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `/library?${text}` : "/library";
}

/** The library page. */
export function libraryPage(
  ctx: PageContext,
  query: LibraryQuery,
  result: { rows: LibraryRow[]; total: number; pages: number; page: number },
  facets: { categories: string[]; provenances: string[]; all: number },
  hub?: Awaited<ReturnType<typeof hubSkills>>,
): Html {
  const sortLink = (key: LibraryQuery["sort"], label: string) => {
    const dir = query.sort === key && query.dir === "asc" ? "desc" : "asc";
    const mark = query.sort === key ? (query.dir === "asc" ? " ▲" : " ▼") : "";
    return html`<a href="${libraryHref(query, { sort: key, dir, page: 1 })}">${label}${mark}</a>`;
  };
  const any = tr(ctx, "console.any");
  const state = (value: string) => named(ctx, "console.state", value);
  const body = html`<h1>${tr(ctx, "console.page.library")}</h1>
${searchBox(ctx)}
<form id="library-filter" class="filters" method="get" action="/library" data-autosubmit>
<label>${tr(ctx, "console.library.search")} <input type="search" name="q" value="${query.q}" placeholder="${tr(ctx, "console.library.searchHint")}" autocomplete="off"></label>
${select(
  "state",
  tr(ctx, "console.library.state"),
  [
    ["", any],
    ...(["active", "stale", "archived", "pinned"] as const).map((s): [string, string] => [s, state(s)]),
  ],
  query.state,
)}
${select("category", tr(ctx, "console.library.category"), [["", any], ...facets.categories.map((c): [string, string] => [c, c])], query.category)}
${select("platform", tr(ctx, "console.library.visibleOn"), [["", any], ["terminal", named(ctx, "console.platform", "terminal")], ...consolePlatforms().map((p): [string, string] => [p, p])], query.platform)}
${select("provenance", tr(ctx, "console.library.provenance"), [["", any], ...facets.provenances.map((p): [string, string] => [p, named(ctx, "console.provenance", p)])], query.provenance)}
<input type="hidden" name="sort" value="${query.sort}"><input type="hidden" name="dir" value="${query.dir}">
<button type="submit">${tr(ctx, "console.apply")}</button>
</form>
<p class="count" id="library-count" data-total="${result.total}">${tr(ctx, "console.library.count", { shown: result.total, all: facets.all })}</p>
<div class="table-box"><table class="grid" id="library-table">
<thead><tr><th>${sortLink("name", tr(ctx, "console.col.name"))}</th><th>${sortLink("category", tr(ctx, "console.col.category"))}</th><th>${sortLink("state", tr(ctx, "console.col.state"))}</th><th>${tr(ctx, "console.col.provenance")}</th><th>${sortLink("idle", tr(ctx, "console.col.lastActivity"))}</th><th>${sortLink("activity", tr(ctx, "console.col.activity"))}</th><th>${tr(ctx, "console.col.ready")}</th><th>${tr(ctx, "console.col.visible")}</th></tr></thead>
<tbody>
${result.rows.map(
  (row) => html`<tr data-skill="${row.name}">
<td><a href="/skill/${encodeURIComponent(row.name)}" translate="no">${row.name}</a>${row.pinned ? html` <span class="badge pin">${state("pinned")}</span>` : ""}</td>
<td translate="no">${row.category ?? ""}</td>
<td><span class="state ${row.state}">${state(row.state)}</span>${row.onDisk ? "" : html` <span class="muted">${tr(ctx, "console.library.notOnDisk")}</span>`}</td>
<td>${named(ctx, "console.provenance", row.provenance)}</td>
<td title="${row.lastActivityAt ? when(ctx, row.lastActivityAt) : tr(ctx, "console.never")}">${row.lastActivityAt ? resolveText(dayOf(row.lastActivityAt, ctx.timeZone ?? displayTimeZone()), ctx.locale) : tr(ctx, "console.never")}</td>
<td class="num">${row.useCount} / ${row.viewCount} / ${row.patchCount}</td>
<td>${readinessItems(ctx, row).length ? html`<span class="warn" title="${readinessLine(ctx, row)}">${tr(ctx, "console.library.needs", { count: readinessItems(ctx, row).length })}</span>` : tr(ctx, "console.library.ok")}</td>
<td>${visibilityCell(ctx, row)}</td>
</tr>`,
)}
</tbody>
</table></div>
<nav class="pager">
${result.page > 1 ? html`<a rel="prev" href="${libraryHref(query, { page: result.page - 1 })}">${tr(ctx, "console.library.previous")}</a>` : ""}
<span>${tr(ctx, "console.library.page", { page: result.page, pages: result.pages })}</span>
${result.page < result.pages ? html`<a rel="next" href="${libraryHref(query, { page: result.page + 1 })}">${tr(ctx, "console.library.next")}</a>` : ""}
</nav>
${hub ? hubSection(ctx, hub) : ""}`;
  return layout("library", tr(ctx, "console.page.library"), ctx, body);
}

/**
 * The library page's section of hub-installed skills (from `skills/.hub/lock.json`): source, identifier,
 * version, trust, scan verdict and install time; nothing when there are none, a notice when the lock
 * cannot be read.
 */
function hubSection(ctx: PageContext, hub: Awaited<ReturnType<typeof hubSkills>>): Html | string {
  if (!hub.ok)
    return html`<section id="hub-skills"><h2>${tr(ctx, "hub.console.heading")}</h2><p class="warn">${tr(ctx, "hub.console.unreadable", { file: hub.file, reason: ctx.scrub(hub.reason) })}</p></section>`;
  if (hub.rows.length === 0) return "";
  const installed = (row: HubSkillRow) =>
    html`<span title="${row.updatedAt ?? ""}">${when(ctx, row.installedAt)}</span>`;
  return html`<section id="hub-skills"><h2>${tr(ctx, "hub.console.heading")}</h2>
<div class="table-box"><table class="grid" id="hub-table"><thead><tr><th>${tr(ctx, "hub.col.name")}</th><th>${tr(ctx, "hub.col.source")}</th><th>${tr(ctx, "hub.console.identifier")}</th><th>${tr(ctx, "hub.col.version")}</th><th>${tr(ctx, "hub.col.trust")}</th><th>${tr(ctx, "hub.col.verdict")}</th><th>${tr(ctx, "hub.console.installed")}</th></tr></thead><tbody>
${hub.rows.map(
  (row) =>
    html`<tr data-hub-skill="${row.name}"><td><a href="/skill/${encodeURIComponent(row.name)}" translate="no">${row.name}</a></td><td translate="no">${row.source}</td><td><code translate="no">${ctx.scrub(row.identifier)}</code></td><td translate="no">${row.version ?? "-"}</td><td translate="no">${row.trust}</td><td><span class="verdict" data-verdict="${row.verdict}" translate="no">${row.verdict}</span></td><td>${installed(row)}</td></tr>`,
)}
</tbody></table></div></section>`;
}

function ledgerTable(ctx: PageContext, entries: LedgerEntry[], withRollback: boolean): Html {
  if (entries.length === 0) return html`<p class="muted">${tr(ctx, "console.ledger.empty")}</p>`;
  return html`<div class="table-box"><table class="grid ledger"><thead><tr><th>${tr(ctx, "console.col.when")}</th><th>${tr(ctx, "console.col.actor")}</th><th>${tr(ctx, "console.col.action")}</th><th>${tr(ctx, "console.col.skill")}</th><th>${tr(ctx, "console.col.entry")}</th>${withRollback && ctx.role === "admin" ? html`<th></th>` : ""}</tr></thead><tbody>
${entries.map(
  (entry) =>
    html`<tr data-entry="${entry.id}"><td>${when(ctx, entry.ts)}</td><td><span class="actor">${named(ctx, "console.actor", entry.actor)}</span></td><td>${named(ctx, "console.ledgerAction", entry.action)}</td><td><a href="/skill/${encodeURIComponent(entry.skill)}" translate="no">${entry.skill}</a></td><td><code translate="no">${entry.id}</code></td>${
      withRollback && ctx.role === "admin"
        ? html`<td>${actionButton(ctx, tr(ctx, "console.button.rollBack"), "curator rollback", [entry.id])}</td>`
        : ""
    }</tr>`,
)}
</tbody></table></div>`;
}

/** What the skill page shows. */
export interface SkillView {
  row: LibraryRow;
  frontmatter: string | null;
  bodyHtml: string | null;
  linkedFiles: string[];
  warnings: string[];
  history: LedgerEntry[];
  /** The archived copy of a skill that is not in the library (null: none). */
  archived: ArchivedSkill | null;
}

/** The skill page. */
export function skillPage(ctx: PageContext, view: SkillView): Html {
  const { row } = view;
  const actions: (Html | "")[] = [];
  if (row.onDisk) {
    actions.push(
      row.pinned
        ? actionButton(ctx, tr(ctx, "console.button.unpin"), "curator unpin", [row.name])
        : actionButton(ctx, tr(ctx, "console.button.pin"), "curator pin", [row.name]),
    );
    actions.push(actionButton(ctx, tr(ctx, "console.button.archive"), "curator archive", [row.name]));
    if (row.provenance === "unmanaged")
      actions.push(actionButton(ctx, tr(ctx, "console.button.adopt"), "curator adopt", [row.name]));
  } else if (view.archived) {
    actions.push(actionButton(ctx, tr(ctx, "console.button.restore"), "curator restore", [row.name]));
  }
  const archived = view.archived;
  const state = archived && row.state !== "archived" ? "archived" : row.state;
  const category = row.category ?? archived?.category ?? null;
  const where = row.relPath
    ? `skills/${row.relPath}`
    : archived
      ? tr(ctx, "console.skill.archivedAt", {
          archivedAs: archived.archivedAs,
          restoreTo: archived.restoreTo,
        })
      : tr(ctx, "console.skill.nowhere");
  const col = (key: MessageKey) => tr(ctx, key);
  const body = html`<h1 id="skill-name" translate="no">${row.name}</h1>
<p class="description" translate="no">${ctx.scrub(row.description)}</p>
<dl class="facts">
<dt>${col("console.col.state")}</dt><dd><span class="state ${state}" id="skill-state">${named(ctx, "console.state", state)}</span>${row.pinned ? html` <span class="badge pin" id="skill-pinned">${named(ctx, "console.state", "pinned")}</span>` : ""}</dd>
<dt>${col("console.col.category")}</dt><dd id="skill-category" translate="no">${category ?? "—"}</dd>
<dt>${col("console.col.provenance")}</dt><dd>${named(ctx, "console.provenance", row.provenance)}</dd>
<dt>${col("console.skill.where")}</dt><dd id="skill-where">${where}</dd>
<dt>${col("console.col.lastActivity")}</dt><dd>${when(ctx, row.lastActivityAt)}</dd>
<dt>${col("console.col.activity")}</dt><dd>${row.useCount} / ${row.viewCount} / ${row.patchCount}</dd>
<dt>${col("console.skill.readiness")}</dt><dd id="skill-readiness">${readinessItems(ctx, row).length ? readinessLine(ctx, row) : tr(ctx, "console.skill.ready")}</dd>
<dt>${col("console.col.visible")}</dt><dd>${row.visibility.map((item) => html`<span class="vis ${item.visible ? "on" : "off"}">${platformLabel(item.platform, ctx.locale)}${item.visible ? "" : isChinese(ctx.locale) ? `（${reason(ctx, item.reason)}）` : ` (${reason(ctx, item.reason)})`}</span> `)}</dd>
</dl>
${archived ? html`<p class="notice" id="skill-archived">${tr(ctx, "console.skill.archivedNotice")} ${ctx.role === "admin" ? tr(ctx, "console.skill.archivedRestore") : ""}</p>` : ""}
<div class="actions" id="skill-actions">${actions}</div>
${view.warnings.length ? html`<div class="warnings"><h2>${col("console.skill.warnings")}</h2><ul>${view.warnings.map((w) => html`<li>${ctx.scrub(w)}</li>`)}</ul></div>` : ""}
${view.frontmatter !== null ? html`<details><summary>${col("console.skill.frontmatter")}</summary><pre translate="no">${ctx.scrub(view.frontmatter)}</pre></details>` : ""}
${archived && view.bodyHtml !== null ? html`<h2>${col("console.skill.archivedCopy")}</h2>` : ""}
${view.bodyHtml !== null ? html`<article class="markdown" id="skill-body" translate="no">${raw(view.bodyHtml)}</article>` : html`<p class="muted">${archived ? col("console.skill.archivedUnreadable") : col("console.skill.nothingToShow")}</p>`}
${view.linkedFiles.length ? html`<h2>${col("console.skill.linkedFiles")}</h2><ul class="files" translate="no">${view.linkedFiles.map((file) => html`<li><a href="/skill/${encodeURIComponent(row.name)}/file?path=${encodeURIComponent(file)}">${file}</a></li>`)}</ul>` : ""}
${archived?.files.length ? html`<h2>${col("console.skill.archivedFiles")}</h2><ul class="files" id="archived-files">${archived.files.map((file) => html`<li><code translate="no">${file}</code></li>`)}${archived.moreFiles ? html`<li class="muted">${tr(ctx, "console.skill.moreFiles", { count: archived.moreFiles })}</li>` : ""}</ul>` : ""}
<h2>${col("console.skill.history")}</h2>
<p><a id="skill-versions" href="/skill/${encodeURIComponent(row.name)}/versions">${col("console.versions.link")}</a></p>
${ledgerTable(ctx, view.history, true)}`;
  return layout("library", row.name, ctx, body);
}

/** One linked file of a skill, shown as escaped text. */
export function filePage(ctx: PageContext, skill: string, file: string, text: string): Html {
  const body = html`<p><a href="/skill/${encodeURIComponent(skill)}" translate="no">← ${skill}</a></p><h1 translate="no">${file}</h1><pre class="file" translate="no">${ctx.scrub(text)}</pre>`;
  return layout("library", `${skill} · ${file}`, ctx, body);
}

/** The curator page. */
export function curatorPage(
  ctx: PageContext,
  facts: Awaited<ReturnType<typeof curatorFacts>>,
  preview: Awaited<ReturnType<typeof curatorPreview>>,
  runs: RunSummary[],
): Html {
  const status = !facts.enabled ? "disabled" : facts.paused ? "paused" : "enabled";
  const interval =
    facts.intervalHours % 24 === 0
      ? tr(ctx, "console.curator.days", { days: facts.intervalHours / 24 })
      : tr(ctx, "console.curator.hours", { hours: facts.intervalHours });
  const runCount = `\uE000`;
  const [runsBefore, runsAfter] = tr(ctx, "console.curator.lastRunText", {
    when: when(ctx, facts.lastRunAt),
    runs: runCount,
  }).split(runCount);
  const col = (key: MessageKey) => tr(ctx, key);
  const body = html`<h1>${col("console.page.curator")}</h1>
<dl class="facts">
<dt>${col("console.curator.status")}</dt><dd id="curator-status">${named(ctx, "console.curator", status)}</dd>
<dt>${col("console.curator.schedule")}</dt><dd>${tr(ctx, "console.curator.scheduleText", { interval, stale: facts.staleAfterDays, archive: facts.archiveAfterDays })}</dd>
<dt>${col("console.curator.lastRun")}</dt><dd>${runsBefore}<span id="curator-runs">${facts.runCount}</span>${runsAfter}</dd>
<dt>${col("console.curator.nextDue")}</dt><dd>${tr(ctx, "console.curator.nextDueText", { when: facts.nextDue ? when(ctx, facts.nextDue) : col("console.curator.firstCheck"), verdict: verdictText(ctx, facts.verdict) })}</dd>
<dt>${col("console.curator.lastSummary")}</dt><dd><pre class="summary">${facts.lastSummary === null ? col("console.none") : summaryLines(ctx, facts.lastSummary).join("\n")}</pre></dd>
</dl>
<div class="actions">
${actionButton(ctx, col("console.button.runNow"), "curator run")}
${facts.paused ? actionButton(ctx, col("console.button.resume"), "curator resume") : actionButton(ctx, col("console.button.pause"), "curator pause")}
${actionButton(ctx, col("console.button.snapshot"), "curator backup")}
</div>
<pre id="progress" class="progress" hidden translate="no"></pre>
<h2>${col("console.curator.preview")}</h2>
<p class="muted">${tr(ctx, "console.curator.previewCounts", { checked: preview.counts.checked ?? 0, skipped: preview.skipped })}</p>
${
  preview.rows.length === 0
    ? html`<p id="preview-empty">${col("console.curator.previewEmpty")}</p>`
    : html`<div class="table-box"><table class="grid" id="preview-table"><thead><tr><th>${col("console.col.skill")}</th><th>${col("console.col.from")}</th><th>${col("console.col.to")}</th><th>${col("console.col.idleDays")}</th><th>${col("console.col.since")}</th></tr></thead><tbody>
${preview.rows.map((row: PreviewRow) => html`<tr><td translate="no">${row.name}</td><td>${named(ctx, "console.state", row.from)}</td><td>${named(ctx, "console.state", row.to)}</td><td class="num">${row.idleDays}</td><td>${when(ctx, row.anchor)}</td></tr>`)}
</tbody></table></div>`
}
${preview.warnings.map((warning) => html`<p class="warn" translate="no">${ctx.scrub(warning)}</p>`)}
<h2>${col("console.curator.pastRuns")}</h2>
${
  runs.length === 0
    ? html`<p class="muted">${col("console.curator.noRuns")}</p>`
    : html`<div class="table-box"><table class="grid" id="runs-table"><thead><tr><th>${col("console.col.started")}</th><th>${col("console.col.trigger")}</th><th>${col("console.col.stale")}</th><th>${col("console.col.archived")}</th><th>${col("console.col.reactivated")}</th><th>${col("console.col.summary")}</th></tr></thead><tbody>
${runs.map(
  (run) =>
    html`<tr><td><a href="/curator/report/${run.id}">${when(ctx, run.startedAt)}</a>${run.dryRun ? col("console.curator.dryRun") : ""}</td><td>${named(ctx, "console.trigger", run.trigger)}</td><td class="num">${run.autoTransitions.marked_stale ?? 0}</td><td class="num">${run.autoTransitions.archived ?? 0}</td><td class="num">${run.autoTransitions.reactivated ?? 0}</td><td>${summaryLines(ctx, run.summary.split("\n")[0] ?? "")[0] ?? ""}</td></tr>`,
)}
</tbody></table></div>`
}`;
  return layout("curator", col("console.page.curator"), ctx, body);
}

const VERDICTS: Record<string, MessageKey> = {
  due: "console.verdict.due",
  disabled: "console.verdict.disabled",
  paused: "console.verdict.paused",
  "first run deferred": "console.verdict.firstRunDeferred",
  "not due": "console.verdict.notDue",
  "not idle": "console.verdict.notIdle",
};

/** The schedule's verdict (`not due`, `paused` …) in the reader's words. */
function verdictText(ctx: PageContext, verdict: string): string {
  const key = VERDICTS[verdict];
  return key ? tr(ctx, key) : verdict;
}

/** One run's REPORT.md, rendered. */
export function reportPage(ctx: PageContext, id: string, reportHtml: string): Html {
  const title = tr(ctx, "console.report.title", { id });
  const body = html`<p><a href="/curator">${tr(ctx, "console.report.back")}</a></p><h1>${title}</h1><article class="markdown" translate="no">${raw(reportHtml)}</article>`;
  return layout("curator", title, ctx, body);
}

/** The ledger page. */
export function ledgerPage(
  ctx: PageContext,
  query: { skill: string; actor: string; action: string },
  entries: LedgerEntry[],
  facets: { actors: string[]; actions: string[] },
): Html {
  const any = tr(ctx, "console.any");
  const body = html`<h1>${tr(ctx, "console.page.ledger")}</h1>
<form class="filters" method="get" action="/ledger" data-autosubmit>
<label>${tr(ctx, "console.col.skill")} <input type="search" name="skill" value="${query.skill}" autocomplete="off"></label>
${select("actor", tr(ctx, "console.col.actor"), [["", any], ...facets.actors.map((a): [string, string] => [a, named(ctx, "console.actor", a)])], query.actor)}
${select("action", tr(ctx, "console.col.action"), [["", any], ...facets.actions.map((a): [string, string] => [a, named(ctx, "console.ledgerAction", a)])], query.action)}
<button type="submit">${tr(ctx, "console.apply")}</button>
</form>
${ledgerTable(ctx, entries, true)}`;
  return layout("ledger", tr(ctx, "console.page.ledger"), ctx, body);
}

function size(bytes: number | null): string {
  if (bytes === null) return "?";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The snapshots page. */
export function snapshotsPage(ctx: PageContext, items: Awaited<ReturnType<typeof snapshots>>): Html {
  const col = (key: MessageKey) => tr(ctx, key);
  const body = html`<h1>${col("console.page.snapshots")}</h1>
<div class="actions">${actionButton(ctx, col("console.button.snapshot"), "curator backup")}</div>
${
  items.length === 0
    ? html`<p class="muted">${col("console.snapshots.empty")}</p>`
    : html`<div class="table-box"><table class="grid" id="snapshots-table"><thead><tr><th>${col("console.col.id")}</th><th>${col("console.col.created")}</th><th>${col("console.col.reason")}</th><th>${col("console.col.files")}</th><th>${col("console.col.size")}</th>${ctx.role === "admin" ? html`<th></th>` : ""}</tr></thead><tbody>
${items.map(
  (item) =>
    html`<tr data-snapshot="${item.id}"><td><code translate="no">${item.id}</code></td><td>${when(ctx, item.createdAt)}</td><td>${resolveText(snapshotReasonWord(item.reason), ctx.locale)}</td><td class="num">${item.skillFiles ?? "?"}</td><td class="num">${size(item.bytes)}</td>${
      ctx.role === "admin"
        ? html`<td>${actionButton(ctx, col("console.button.rollBack"), "curator rollback", [], { id: item.id })}</td>`
        : ""
    }</tr>`,
)}
</tbody></table></div>`
}`;
  return layout("snapshots", col("console.page.snapshots"), ctx, body);
}

/** The charts page (drawn by `/assets/charts.js` from `/api/charts`). */
export function chartsPage(ctx: PageContext): Html {
  const col = (key: MessageKey) => tr(ctx, key);
  const body = html`<h1>${col("console.page.charts")}</h1>
<section class="chart"><h2>${col("console.charts.runs")}</h2><canvas id="chart-runs" height="220"></canvas></section>
<section class="chart"><h2>${col("console.charts.idle")}</h2><canvas id="chart-idle" height="220"></canvas></section>
<section class="chart two"><div><h2>${col("console.charts.most")}</h2><canvas id="chart-most" height="260"></canvas></div><div><h2>${col("console.charts.least")}</h2><canvas id="chart-least" height="260"></canvas></div></section>`;
  return layout("charts", col("console.page.charts"), ctx, body, ["/assets/charts.js"]);
}
