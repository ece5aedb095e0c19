/**
 * The console's HTML, rendered on the server with hono's `html` template tag: every interpolated value
 * is escaped, and the only unescaped HTML is the sanitised Markdown from `markdown.ts`. Pages carry no
 * inline script or style (the CSP forbids both); `/assets/app.js` adds confirmations, live updates and
 * the run progress. Action buttons are rendered for admin logins only.
 */
import { html, raw } from "hono/html";
import type { LedgerEntry } from "../../curator/ledger.js";
import type { ConsoleRole } from "./auth.js";
import type { ArchivedSkill, LibraryQuery, LibraryRow, PreviewRow, RunSummary } from "./data.js";
import { consolePlatforms } from "./data.js";

/** Rendered HTML. */
export type Html = ReturnType<typeof html>;

/** Per-request facts every page needs. */
export interface PageContext {
  role: ConsoleRole;
  csrf: string;
  /** Values scrubbed from every text shown. */
  scrub: (text: string) => string;
}

const NAV = [
  ["library", "/library", "Library"],
  ["curator", "/curator", "Curator"],
  ["ledger", "/ledger", "Ledger"],
  ["snapshots", "/snapshots", "Snapshots"],
  ["charts", "/charts", "Charts"],
] as const;

/** The page frame: header, navigation, the confirm dialog and the toast area. */
export function layout(
  page: string,
  title: string,
  ctx: PageContext,
  body: Html,
  scripts: string[] = [],
): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${ctx.csrf}">
<meta name="console-role" content="${ctx.role}">
<title>${title} · skillgate</title>
<link rel="stylesheet" href="/assets/app.css">
<script type="module" src="/assets/app.js"></script>
${scripts.map((src) => html`<script type="module" src="${src}"></script>`)}
</head>
<body data-page="${page}">
<header>
<strong class="brand">skillgate</strong>
<nav>${NAV.map(([id, href, label]) => html`<a href="${href}"${id === page ? raw(' aria-current="page"') : ""}>${label}</a>`)}</nav>
<span class="role" data-role="${ctx.role}">${ctx.role === "admin" ? "admin" : "read-only"}</span>
<span id="live" class="live" title="live updates">●</span>
<span class="sessions">${ctx.role === "admin" ? html`<button type="button" class="session" data-session="end-all">End all sessions</button>` : ""}<button type="button" class="session" data-session="logout">Log out</button></span>
</header>
<main id="main">${body}</main>
<dialog id="confirm-dialog">
<form method="dialog">
<p id="confirm-question" class="question"></p>
<div id="confirm-details"></div>
<menu><button value="cancel" id="confirm-cancel">Cancel</button><button value="ok" id="confirm-ok" class="primary">Confirm</button></menu>
</form>
</dialog>
<div id="toast" role="status" aria-live="polite"></div>
</body>
</html>`;
}

/** An action button (admins only): the command, its arguments and options travel as data attributes. */
export function actionButton(
  ctx: PageContext,
  label: string,
  command: string,
  args: string[] = [],
  options: Record<string, string | number | boolean> = {},
): Html | "" {
  if (ctx.role !== "admin") return "";
  return html`<button type="button" class="action" data-command="${command}" data-args="${JSON.stringify(args)}" data-options="${JSON.stringify(options)}">${label}</button>`;
}

function option(value: string, label: string, selected: string): Html {
  return html`<option value="${value}"${value === selected ? raw(" selected") : ""}>${label}</option>`;
}

function select(name: string, label: string, values: [string, string][], selected: string): Html {
  return html`<label>${label} <select name="${name}">${values.map(([value, text]) => option(value, text, selected))}</select></label>`;
}

function when(iso: string | null): string {
  return iso ? iso.replace("T", " ").replace(/\.\d+/, "").replace(/Z$/, " UTC") : "never";
}

/** What a skill still needs, one item each: missing variables and commands, unset settings. */
function readinessItems(row: LibraryRow): string[] {
  return [
    ...row.missingSecrets.map((name) => `variable ${name} missing`),
    ...row.missingCommands.map((name) => `command ${name} not on PATH`),
    ...row.unsetSettings.map((key) => `setting ${key} not set`),
  ];
}

/** How a platform is named on the pages: its own name, capitalised ("Telegram", "Feishu", "Terminal"). */
export function platformLabel(platform: string): string {
  return platform.charAt(0).toUpperCase() + platform.slice(1);
}

function visibilityCell(row: LibraryRow): Html {
  return html`<span class="vis-list">${row.visibility.map(
    (item) =>
      html`<span class="vis ${item.visible ? "on" : "off"}" title="${item.visible ? `visible on ${item.platform}` : `hidden on ${item.platform}: ${item.reason}`}">${platformLabel(item.platform)}</span>`,
  )}</span>`;
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
): Html {
  const sortLink = (key: LibraryQuery["sort"], label: string) => {
    const dir = query.sort === key && query.dir === "asc" ? "desc" : "asc";
    const mark = query.sort === key ? (query.dir === "asc" ? " ▲" : " ▼") : "";
    return html`<a href="${libraryHref(query, { sort: key, dir, page: 1 })}">${label}${mark}</a>`;
  };
  const body = html`<h1>Library</h1>
<form id="library-filter" class="filters" method="get" action="/library" data-autosubmit>
<label>Search <input type="search" name="q" value="${query.q}" placeholder="name or description" autocomplete="off"></label>
${select(
  "state",
  "State",
  [
    ["", "any"],
    ["active", "active"],
    ["stale", "stale"],
    ["archived", "archived"],
    ["pinned", "pinned"],
  ],
  query.state,
)}
${select("category", "Category", [["", "any"], ...facets.categories.map((c): [string, string] => [c, c])], query.category)}
${select("platform", "Visible on", [["", "any"], ["terminal", "terminal"], ...consolePlatforms().map((p): [string, string] => [p, p])], query.platform)}
${select("provenance", "Provenance", [["", "any"], ...facets.provenances.map((p): [string, string] => [p, p])], query.provenance)}
<input type="hidden" name="sort" value="${query.sort}"><input type="hidden" name="dir" value="${query.dir}">
<button type="submit">Apply</button>
</form>
<p class="count" id="library-count" data-total="${result.total}">${result.total} of ${facets.all} skills</p>
<div class="table-box"><table class="grid" id="library-table">
<thead><tr><th>${sortLink("name", "Name")}</th><th>${sortLink("category", "Category")}</th><th>${sortLink("state", "State")}</th><th>Provenance</th><th>${sortLink("idle", "Last activity")}</th><th>${sortLink("activity", "Use / view / patch")}</th><th>Ready</th><th>Visible</th></tr></thead>
<tbody>
${result.rows.map(
  (row) => html`<tr data-skill="${row.name}">
<td><a href="/skill/${encodeURIComponent(row.name)}">${row.name}</a>${row.pinned ? html` <span class="badge pin">pinned</span>` : ""}</td>
<td>${row.category ?? ""}</td>
<td><span class="state ${row.state}">${row.state}</span>${row.onDisk ? "" : html` <span class="muted">(not on disk)</span>`}</td>
<td>${row.provenance}</td>
<td title="${row.lastActivityAt ?? "never"}">${row.idleDays === null ? "never" : `${row.idleDays}d ago`}</td>
<td class="num">${row.useCount} / ${row.viewCount} / ${row.patchCount}</td>
<td>${readinessItems(row).length ? html`<span class="warn" title="${readinessItems(row).join("; ")}">needs ${readinessItems(row).length}</span>` : "ok"}</td>
<td>${visibilityCell(row)}</td>
</tr>`,
)}
</tbody>
</table></div>
<nav class="pager">
${result.page > 1 ? html`<a rel="prev" href="${libraryHref(query, { page: result.page - 1 })}">← previous</a>` : ""}
<span>page ${result.page} of ${result.pages}</span>
${result.page < result.pages ? html`<a rel="next" href="${libraryHref(query, { page: result.page + 1 })}">next →</a>` : ""}
</nav>`;
  return layout("library", "Library", ctx, body);
}

function ledgerTable(ctx: PageContext, entries: LedgerEntry[], withRollback: boolean): Html {
  if (entries.length === 0) return html`<p class="muted">No ledger entries.</p>`;
  return html`<div class="table-box"><table class="grid ledger"><thead><tr><th>When</th><th>Actor</th><th>Action</th><th>Skill</th><th>Entry</th>${withRollback && ctx.role === "admin" ? html`<th></th>` : ""}</tr></thead><tbody>
${entries.map(
  (entry) =>
    html`<tr data-entry="${entry.id}"><td>${when(entry.ts)}</td><td><span class="actor">${entry.actor}</span></td><td>${entry.action}</td><td><a href="/skill/${encodeURIComponent(entry.skill)}">${entry.skill}</a></td><td><code>${entry.id}</code></td>${
      withRollback && ctx.role === "admin"
        ? html`<td>${actionButton(ctx, "Roll back", "curator rollback", [entry.id])}</td>`
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
        ? actionButton(ctx, "Unpin", "curator unpin", [row.name])
        : actionButton(ctx, "Pin", "curator pin", [row.name]),
    );
    actions.push(actionButton(ctx, "Archive", "curator archive", [row.name]));
    if (row.provenance === "unmanaged") actions.push(actionButton(ctx, "Adopt", "curator adopt", [row.name]));
  } else if (view.archived) {
    actions.push(actionButton(ctx, "Restore", "curator restore", [row.name]));
  }
  const archived = view.archived;
  const state = archived && row.state !== "archived" ? "archived" : row.state;
  const category = row.category ?? archived?.category ?? null;
  const where = row.relPath
    ? `skills/${row.relPath}`
    : archived
      ? `skills/.archive/${archived.archivedAs} (restore puts it back in skills/${archived.restoreTo})`
      : "not on disk: neither in the library nor in its archive";
  const body = html`<h1 id="skill-name">${row.name}</h1>
<p class="description">${ctx.scrub(row.description)}</p>
<dl class="facts">
<dt>State</dt><dd><span class="state ${state}" id="skill-state">${state}</span>${row.pinned ? html` <span class="badge pin" id="skill-pinned">pinned</span>` : ""}</dd>
<dt>Category</dt><dd id="skill-category">${category ?? "—"}</dd>
<dt>Provenance</dt><dd>${row.provenance}</dd>
<dt>Where</dt><dd id="skill-where">${where}</dd>
<dt>Last activity</dt><dd>${when(row.lastActivityAt)}</dd>
<dt>Use / view / patch</dt><dd>${row.useCount} / ${row.viewCount} / ${row.patchCount}</dd>
<dt>Readiness</dt><dd id="skill-readiness">${readinessItems(row).length ? readinessItems(row).join("; ") : "ready"}</dd>
<dt>Visible</dt><dd>${row.visibility.map((item) => html`<span class="vis ${item.visible ? "on" : "off"}">${platformLabel(item.platform)}${item.visible ? "" : ` (${item.reason})`}</span> `)}</dd>
</dl>
${archived ? html`<p class="notice" id="skill-archived">Archived: no chat lists or loads it, and the curator leaves it alone. ${ctx.role === "admin" ? "Restore puts it back where it lived." : ""}</p>` : ""}
<div class="actions" id="skill-actions">${actions}</div>
${view.warnings.length ? html`<div class="warnings"><h2>Security warnings</h2><ul>${view.warnings.map((w) => html`<li>${ctx.scrub(w)}</li>`)}</ul></div>` : ""}
${view.frontmatter !== null ? html`<details><summary>Frontmatter</summary><pre>${ctx.scrub(view.frontmatter)}</pre></details>` : ""}
${archived && view.bodyHtml !== null ? html`<h2>SKILL.md (the archived copy)</h2>` : ""}
${view.bodyHtml !== null ? html`<article class="markdown" id="skill-body">${raw(view.bodyHtml)}</article>` : html`<p class="muted">${archived ? "The archived copy's SKILL.md cannot be shown." : "The skill is not on disk, so there is nothing to show."}</p>`}
${view.linkedFiles.length ? html`<h2>Linked files</h2><ul class="files">${view.linkedFiles.map((file) => html`<li><a href="/skill/${encodeURIComponent(row.name)}/file?path=${encodeURIComponent(file)}">${file}</a></li>`)}</ul>` : ""}
${archived?.files.length ? html`<h2>Archived files</h2><ul class="files" id="archived-files">${archived.files.map((file) => html`<li><code>${file}</code></li>`)}${archived.moreFiles ? html`<li class="muted">… and ${archived.moreFiles} more</li>` : ""}</ul>` : ""}
<h2>Ledger history</h2>
${ledgerTable(ctx, view.history, true)}`;
  return layout("library", row.name, ctx, body);
}

/** One linked file of a skill, shown as escaped text. */
export function filePage(ctx: PageContext, skill: string, file: string, text: string): Html {
  const body = html`<p><a href="/skill/${encodeURIComponent(skill)}">← ${skill}</a></p><h1>${file}</h1><pre class="file">${ctx.scrub(text)}</pre>`;
  return layout("library", `${skill} · ${file}`, ctx, body);
}

/** The curator page. */
export function curatorPage(
  ctx: PageContext,
  facts: Awaited<ReturnType<typeof import("./data.js").curatorFacts>>,
  preview: Awaited<ReturnType<typeof import("./data.js").curatorPreview>>,
  runs: RunSummary[],
): Html {
  const status = !facts.enabled ? "disabled" : facts.paused ? "paused" : "enabled";
  const body = html`<h1>Curator</h1>
<dl class="facts">
<dt>Status</dt><dd id="curator-status">${status}</dd>
<dt>Schedule</dt><dd>every ${facts.intervalHours % 24 === 0 ? `${facts.intervalHours / 24}d` : `${facts.intervalHours}h`}; stale after ${facts.staleAfterDays}d, archive after ${facts.archiveAfterDays}d unused</dd>
<dt>Last run</dt><dd>${when(facts.lastRunAt)} (<span id="curator-runs">${facts.runCount}</span> runs)</dd>
<dt>Next due</dt><dd>${facts.nextDue ? when(facts.nextDue) : "after the first check seeds the clock"} — now: ${facts.verdict}</dd>
<dt>Last summary</dt><dd><pre class="summary">${ctx.scrub(facts.lastSummary ?? "none")}</pre></dd>
</dl>
<div class="actions">
${actionButton(ctx, "Run now", "curator run")}
${facts.paused ? actionButton(ctx, "Resume", "curator resume") : actionButton(ctx, "Pause", "curator pause")}
${actionButton(ctx, "Take a snapshot", "curator backup")}
</div>
<pre id="progress" class="progress" hidden></pre>
<h2>What a run would do now</h2>
<p class="muted">checked ${preview.counts.checked ?? 0} curated skills; ${preview.skipped} left alone (pinned, cron, grace).</p>
${
  preview.rows.length === 0
    ? html`<p id="preview-empty">No state transitions are due.</p>`
    : html`<div class="table-box"><table class="grid" id="preview-table"><thead><tr><th>Skill</th><th>From</th><th>To</th><th>Idle days</th><th>Since</th></tr></thead><tbody>
${preview.rows.map((row: PreviewRow) => html`<tr><td>${row.name}</td><td>${row.from}</td><td>${row.to}</td><td class="num">${row.idleDays}</td><td>${when(row.anchor)}</td></tr>`)}
</tbody></table></div>`
}
${preview.warnings.map((warning) => html`<p class="warn">${ctx.scrub(warning)}</p>`)}
<h2>Past runs</h2>
${
  runs.length === 0
    ? html`<p class="muted">No runs yet.</p>`
    : html`<div class="table-box"><table class="grid" id="runs-table"><thead><tr><th>Started</th><th>Trigger</th><th>Stale</th><th>Archived</th><th>Reactivated</th><th>Summary</th></tr></thead><tbody>
${runs.map(
  (run) =>
    html`<tr><td><a href="/curator/report/${run.id}">${when(run.startedAt)}</a>${run.dryRun ? " (dry run)" : ""}</td><td>${run.trigger}</td><td class="num">${run.autoTransitions.marked_stale ?? 0}</td><td class="num">${run.autoTransitions.archived ?? 0}</td><td class="num">${run.autoTransitions.reactivated ?? 0}</td><td>${ctx.scrub(run.summary.split("\n")[0] ?? "")}</td></tr>`,
)}
</tbody></table></div>`
}`;
  return layout("curator", "Curator", ctx, body);
}

/** One run's REPORT.md, rendered. */
export function reportPage(ctx: PageContext, id: string, reportHtml: string): Html {
  const body = html`<p><a href="/curator">← Curator</a></p><h1>Run ${id}</h1><article class="markdown">${raw(reportHtml)}</article>`;
  return layout("curator", `Run ${id}`, ctx, body);
}

/** The ledger page. */
export function ledgerPage(
  ctx: PageContext,
  query: { skill: string; actor: string; action: string },
  entries: LedgerEntry[],
  facets: { actors: string[]; actions: string[] },
): Html {
  const body = html`<h1>Ledger</h1>
<form class="filters" method="get" action="/ledger" data-autosubmit>
<label>Skill <input type="search" name="skill" value="${query.skill}" autocomplete="off"></label>
${select("actor", "Actor", [["", "any"], ...facets.actors.map((a): [string, string] => [a, a])], query.actor)}
${select("action", "Action", [["", "any"], ...facets.actions.map((a): [string, string] => [a, a])], query.action)}
<button type="submit">Apply</button>
</form>
${ledgerTable(ctx, entries, true)}`;
  return layout("ledger", "Ledger", ctx, body);
}

function size(bytes: number | null): string {
  if (bytes === null) return "?";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The snapshots page. */
export function snapshotsPage(
  ctx: PageContext,
  items: Awaited<ReturnType<typeof import("./data.js").snapshots>>,
): Html {
  const body = html`<h1>Snapshots</h1>
<div class="actions">${actionButton(ctx, "Take a snapshot", "curator backup")}</div>
${
  items.length === 0
    ? html`<p class="muted">No snapshots yet.</p>`
    : html`<div class="table-box"><table class="grid" id="snapshots-table"><thead><tr><th>Id</th><th>Created</th><th>Reason</th><th>Files</th><th>Size</th>${ctx.role === "admin" ? html`<th></th>` : ""}</tr></thead><tbody>
${items.map(
  (item) =>
    html`<tr data-snapshot="${item.id}"><td><code>${item.id}</code></td><td>${when(item.createdAt)}</td><td>${item.reason}</td><td class="num">${item.skillFiles ?? "?"}</td><td class="num">${size(item.bytes)}</td>${
      ctx.role === "admin"
        ? html`<td>${actionButton(ctx, "Roll back", "curator rollback", [], { id: item.id })}</td>`
        : ""
    }</tr>`,
)}
</tbody></table></div>`
}`;
  return layout("snapshots", "Snapshots", ctx, body);
}

/** The charts page (drawn by `/assets/charts.js` from `/api/charts`). */
export function chartsPage(ctx: PageContext): Html {
  const body = html`<h1>Charts</h1>
<section class="chart"><h2>Library states over time (curator runs)</h2><canvas id="chart-runs" height="220"></canvas></section>
<section class="chart"><h2>Days since last activity</h2><canvas id="chart-idle" height="220"></canvas></section>
<section class="chart two"><div><h2>Most used</h2><canvas id="chart-most" height="260"></canvas></div><div><h2>Least used</h2><canvas id="chart-least" height="260"></canvas></div></section>`;
  return layout("charts", "Charts", ctx, body, ["/assets/charts.js"]);
}

/** A page for refusals and missing things (no session, bad link, unknown skill). */
export function messagePage(title: string, text: string): Html {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title} · skillgate</title><link rel="stylesheet" href="/assets/app.css"></head><body><main><h1>${title}</h1><p>${text}</p></main></body></html>`;
}
