/** What every console route reads off a request: its locale, bounded query values, and refusals in its language. */
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { browserLocale, LANGUAGE_COOKIE, type Locale } from "../../core/i18n/locale.js";
import { type MessageKey, resolveText } from "../../core/i18n/messages.js";
import type { ConsoleSession } from "./auth.js";
import type { LibraryQuery } from "./data.js";

/** A query or form value, cut to `max` characters ("" when absent). */
export function text(value: string | undefined, max = 200): string {
  return (value ?? "").slice(0, max);
}

/** The library page's filters, sort and page from the query string. */
export function libraryQuery(c: Context): LibraryQuery {
  const sorts = ["name", "activity", "idle", "category", "state"] as const;
  const sort = sorts.find((item) => item === c.req.query("sort")) ?? "name";
  const page = Number.parseInt(c.req.query("page") ?? "1", 10);
  return {
    q: text(c.req.query("q")),
    state: text(c.req.query("state"), 20),
    category: text(c.req.query("category")),
    platform: text(c.req.query("platform"), 20),
    provenance: text(c.req.query("provenance"), 20),
    sort,
    dir: c.req.query("dir") === "desc" ? "desc" : "asc",
    page: Number.isFinite(page) ? page : 1,
  };
}

/** What a request carries once the session check let it through. */
export type ConsoleEnv = { Variables: { session: ConsoleSession } };

/** The reader's locale of one request: the language switch's cookie, else `Accept-Language`. */
export function requestLocale(c: Context): Locale {
  return browserLocale(getCookie(c, LANGUAGE_COOKIE), c.req.header("accept-language"));
}

/** A catalog text in the request's locale. */
export function say(c: Context, key: MessageKey, params?: Record<string, string | number>): string {
  return resolveText(params ? { key, params } : { key }, requestLocale(c));
}

/** A JSON refusal `{ ok: false, error }` with its text in the request's locale. */
export function refuse(c: Context, key: MessageKey, status: 400 | 401 | 403 | 413 | 500) {
  return c.json({ ok: false, error: say(c, key) }, status);
}
