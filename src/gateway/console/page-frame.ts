/**
 * The frame every console page shares, rendered on the server with hono's `html` template tag (every
 * interpolated value escaped): the page context, the reader's texts, the header with its navigation and
 * language switch, the browser's texts (JSON in the `console-texts` meta element), form controls, action
 * buttons (admin logins only), dates, and the bare page for refusals.
 */
import { html, raw } from "hono/html";
import { displayTimeZone } from "../../core/i18n/dates.js";
import { LANGUAGE_NAMES, LOCALES, type Locale } from "../../core/i18n/locale.js";
import {
  isMessageKey,
  type MessageKey,
  type ParamValue,
  resolveText,
  type Text,
  when as whenText,
} from "../../core/i18n/messages.js";
import type { ConsoleRole } from "./auth.js";

/** Rendered HTML. */
export type Html = ReturnType<typeof html>;

/** Per-request facts every page needs. */
export interface PageContext {
  role: ConsoleRole;
  csrf: string;
  /** Values scrubbed from every text shown. */
  scrub: (text: string) => string;
  /** The reader's language (the `skillgate_lang` cookie, else `Accept-Language`). */
  locale: Locale;
  /** The zone dates are shown in (`gateway.timezone`, else `TZ`, else UTC); default the process's. */
  timeZone?: string;
}

/** The text of `key` in `locale`. */
export function say(locale: Locale, key: MessageKey, params?: Readonly<Record<string, ParamValue>>): string {
  return resolveText(params ? { key, params } : { key }, locale);
}

/** The text of `key` for this page's reader. */
export function tr(ctx: PageContext, key: MessageKey, params?: Readonly<Record<string, ParamValue>>): string {
  return say(ctx.locale, key, params);
}

/** A value the catalog names (`console.state.active`), or the value itself when it has no entry. */
export function named(ctx: PageContext, prefix: string, value: string): string {
  const key = `${prefix}.${value}`;
  return isMessageKey(key) ? tr(ctx, key) : value;
}

export const NAV = [
  ["library", "/library", "console.page.library"],
  ["curator", "/curator", "console.page.curator"],
  ["ledger", "/ledger", "console.page.ledger"],
  ["snapshots", "/snapshots", "console.page.snapshots"],
  ["charts", "/charts", "console.page.charts"],
] as const;

/** The catalog texts `/assets/app.js` and `/assets/charts.js` show, by the name the scripts use. */
export const BROWSER_TEXTS = {
  putBack: "console.dialog.putBack",
  removed: "console.dialog.removed",
  proceed: "console.dialog.proceed",
  endAll: "console.dialog.endAll",
  cancelled: "runner.cancelled",
  refused: "console.toast.refused",
  http: "console.toast.http",
  failed: "console.toast.failed",
  sessionNotEnded: "console.toast.sessionNotEnded",
  noRuns: "console.charts.noRuns",
  noSkills: "console.charts.noSkills",
  noUse: "console.charts.noUse",
  markedStale: "console.charts.markedStale",
  archived: "console.charts.archived",
  reactivated: "console.charts.reactivated",
  curatedAfter: "console.charts.curatedAfter",
  skills: "console.charts.skills",
  skill: "console.charts.skill",
  activity: "console.charts.activity",
  run: "console.charts.run",
  idleAxis: "console.charts.idleAxis",
} as const satisfies Record<string, MessageKey>;

/**
 * The browser's texts as JSON, for the page's `console-texts` meta element (escaped as an attribute
 * like every value; nothing inline runs, as the CSP wants). Templates keep their `{status}`/`{detail}`
 * parameters for the script to fill.
 */
export function browserTexts(locale: Locale): string {
  return JSON.stringify(
    Object.fromEntries(Object.entries(BROWSER_TEXTS).map(([name, key]) => [name, say(locale, key)])),
  );
}

/** The language switch: a link per locale, the current one marked; `/assets/app.js` remembers the choice. */
export function languageSwitch(locale: Locale): Html {
  return html`<span class="lang" role="group" aria-label="${say(locale, "console.language")}">${LOCALES.map(
    (item) =>
      html`<a href="#" data-lang="${item}" lang="${item}" hreflang="${item}"${item === locale ? raw(' aria-current="true"') : ""}>${LANGUAGE_NAMES[item]}</a>`,
  )}</span>`;
}

/** The page frame: header, navigation, the confirm dialog and the toast area. */
export function layout(
  page: string,
  title: string,
  ctx: PageContext,
  body: Html,
  scripts: string[] = [],
): Html {
  return html`<!doctype html>
<html lang="${ctx.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${ctx.csrf}">
<meta name="console-role" content="${ctx.role}">
<title>${title} · skillgate</title>
<link rel="stylesheet" href="/assets/app.css">
<meta name="console-texts" content="${browserTexts(ctx.locale)}">
<script type="module" src="/assets/app.js"></script>
${scripts.map((src) => html`<script type="module" src="${src}"></script>`)}
</head>
<body data-page="${page}">
<header>
<strong class="brand">skillgate</strong>
<nav>${NAV.map(([id, href, label]) => html`<a href="${href}"${id === page ? raw(' aria-current="page"') : ""}>${tr(ctx, label)}</a>`)}</nav>
<span class="role" data-role="${ctx.role}">${tr(ctx, ctx.role === "admin" ? "console.role.admin" : "console.role.readOnly")}</span>
<span id="live" class="live" title="${tr(ctx, "console.live")}">●</span>
${languageSwitch(ctx.locale)}
<span class="sessions">${ctx.role === "admin" ? html`<button type="button" class="session" data-session="end-all">${tr(ctx, "console.session.endAll")}</button>` : ""}<button type="button" class="session" data-session="logout">${tr(ctx, "console.session.logout")}</button></span>
</header>
<main id="main">${body}</main>
<dialog id="confirm-dialog">
<form method="dialog">
<p id="confirm-question" class="question"></p>
<div id="confirm-details"></div>
<menu><button value="cancel" id="confirm-cancel">${tr(ctx, "button.cancel")}</button><button value="ok" id="confirm-ok" class="primary">${tr(ctx, "button.confirm")}</button></menu>
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

export function option(value: string, label: string, selected: string): Html {
  return html`<option value="${value}"${value === selected ? raw(" selected") : ""}>${label}</option>`;
}

export function select(name: string, label: string, values: [string, string][], selected: string): Html {
  return html`<label>${label} <select name="${name}">${values.map(([value, text]) => option(value, text, selected))}</select></label>`;
}

/** The relevance search box (shown on the library page and the search page). */
export function searchBox(ctx: PageContext, query = ""): Html {
  return html`<form id="skill-search" class="filters" method="get" action="/search" role="search">
<label>${tr(ctx, "console.search.label")} <input type="search" name="q" value="${query}" placeholder="${tr(ctx, "console.search.hint")}" autocomplete="off"></label>
<button type="submit">${tr(ctx, "console.search.submit")}</button>
<a href="/overlaps">${tr(ctx, "console.page.overlaps")}</a>
</form>`;
}

/** A timestamp in the display zone with the zone named (`dates.ts`), or "never". */
export function when(ctx: PageContext, iso: string | null): string {
  if (!iso) return tr(ctx, "console.never");
  return resolveText(whenText(iso, ctx.timeZone ?? displayTimeZone()), ctx.locale);
}

/**
 * How a platform is named on the pages: its own name, capitalised ("Telegram", "Feishu", "Terminal");
 * the terminal, which is not a product name, in the reader's words.
 */
export function platformLabel(platform: string, locale: Locale = "en"): string {
  if (platform === "terminal" && locale !== "en") return say(locale, "console.platform.terminal");
  return platform.charAt(0).toUpperCase() + platform.slice(1);
}

/**
 * A page for refusals and missing things (no session, bad link, unknown skill), in `locale`, with the
 * language switch (and `/assets/app.js`, which makes it work).
 */
export function messagePage(locale: Locale, title: Text, text: Text): Html {
  const heading = resolveText(title, locale);
  return html`<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${heading} · skillgate</title><link rel="stylesheet" href="/assets/app.css"><script type="module" src="/assets/app.js"></script></head><body class="message"><header><strong class="brand">skillgate</strong>${languageSwitch(locale)}</header><main><h1>${heading}</h1><p>${resolveText(text, locale)}</p></main></body></html>`;
}
