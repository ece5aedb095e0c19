/**
 * The local web console's HTTP server (hono on Node's http). Served by `skillgate serve` (unless
 * `gateway.console.enabled: false`) and by `skillgate console` alone, on 127.0.0.1 unless
 * `gateway.console.bind` says otherwise.
 *
 * Every request: the Host header must name this server when it listens on loopback (DNS rebinding), and
 * responses carry a strict CSP (scripts and styles from this origin only, nothing inline), no framing,
 * no referrer. Everything but `/login` and `/assets` needs a session cookie. Every POST also needs an
 * admin session, an `Origin` equal to this server's, `Sec-Fetch-Site: same-origin` when the browser sends
 * it, the session's CSRF token in `X-CSRF-Token`, and a body under 64 KB. Actions then run through the
 * command registry (`actions.ts`). Every page and JSON answer is scrubbed of the known secrets on its way
 * out, and the library search matches scrubbed text only (a secret cannot be found one prefix at a time).
 * `POST /api/logout` ends this session (any login); `POST /api/sessions/end-all` ends every session
 * (admins).
 *
 * Every page and every text the browser shows is in the reader's language: the `skillgate_lang` cookie
 * the header's switch sets, else the browser's `Accept-Language`, else English (`browserLocale`).
 */
import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createAdaptorServer } from "@hono/node-server";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { streamSSE } from "hono/streaming";
import type { CommandSpec } from "../../../commands/types.js";
import type { SkillgateConfig } from "../../config/config.js";
import { readDotenv } from "../../config/dotenv.js";
import { homePaths } from "../../config/home.js";
import { SkillgateError } from "../../core/errors.js";
import { displayTimeZone } from "../../core/i18n/dates.js";
import { LOCALES } from "../../core/i18n/locale.js";
import { english, isCatalogLoaded, resolveText, t } from "../../core/i18n/messages.js";
import { type Logger, scrubText, silentLogger } from "../../core/logger.js";
import type { SkillLibrary } from "../../skills/types.js";
import { OutboundScrubber } from "../scrub.js";
import { type ActionEnv, handleAction, parseActionRequest } from "./actions.js";
import {
  ConsoleAuth,
  ConsoleRevocations,
  type ConsoleRole,
  consoleSessionsPath,
  loadConsoleSecret,
  SESSION_COOKIE,
  type SharedRedemption,
} from "./auth.js";
import { type ConsoleData, type LibraryRow, libraryRows } from "./data.js";
import { ConsoleEvents } from "./events.js";
import { messagePage, type PageContext } from "./page-frame.js";
import { registerPageRoutes } from "./page-routes.js";
import { type ConsoleEnv, refuse, requestLocale, say, text } from "./request.js";

/** Largest request body accepted. */
export const MAX_BODY_BYTES = 64 * 1024;

/** The Content-Security-Policy of every response. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

/** Options of `startConsoleServer`. */
export interface ConsoleServerOptions {
  home: string;
  config: SkillgateConfig;
  library: SkillLibrary;
  /** The command registry actions run through. */
  registry: readonly CommandSpec[];
  logger?: Logger;
  /** Port (0 = any free one); default `gateway.console.port`. */
  port?: number;
  /** Address; default `gateway.console.bind`. */
  bind?: string;
  env?: NodeJS.ProcessEnv;
  now?: () => Date;
  /** Seconds the home has been idle (for the curator's "next due" verdict); default Infinity. */
  idleSeconds?: () => number | Promise<number>;
  /** Called after an action changed the library (the gateway resyncs its command menus). */
  onMutated?: () => void | Promise<void>;
  /** Where login redemptions are shared with the other replicas (the coordination store), if any. */
  sharedRedemption?: SharedRedemption;
}

/** A listening console. */
export interface ConsoleServer {
  /** `http://host:port`. */
  readonly url: string;
  /** True when it listens on a loopback address. */
  readonly loopback: boolean;
  /** A fresh one-time login link. */
  loginUrl(role?: ConsoleRole): string;
  close(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** True for a loopback bind address. */
export function isLoopback(bind: string): boolean {
  return LOOPBACK.has(bind) || bind.startsWith("127.");
}

/** The folder of the built front-end (`dist/console`), found from this module's location. */
export function assetsDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth++) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: string };
      if (pkg.name === "skillgate") return path.join(dir, "dist", "console");
    } catch {
      // not the package root yet
    }
    dir = path.dirname(dir);
  }
  return path.join(process.cwd(), "dist", "console");
}

const ASSET_TYPES: Record<string, string> = {
  "app.js": "text/javascript; charset=utf-8",
  "charts.js": "text/javascript; charset=utf-8",
  "app.css": "text/css; charset=utf-8",
};

function loadAssets(): Map<string, string> {
  const dir = assetsDir();
  const out = new Map<string, string>();
  for (const name of Object.keys(ASSET_TYPES)) {
    try {
      out.set(name, readFileSync(path.join(dir, name), "utf8"));
    } catch {
      // Reported per request: the page says to run the build.
    }
  }
  return out;
}

/** Variants of a secret as a page or a JSON answer may spell it (HTML-escaped, JSON-escaped). */
function spellings(secret: string): string[] {
  const html = secret
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
  const json = JSON.stringify(secret).slice(1, -1);
  return [...new Set([secret, html, json])];
}

/** Replaces known secrets in an HTML or JSON response body (streams such as `/events` are left alone). */
async function scrubResponse(c: Context, known: readonly string[]): Promise<void> {
  const type = c.res.headers.get("content-type") ?? "";
  if (known.length === 0 || !/^(text\/html|application\/json)/.test(type)) return;
  const body = await c.res.text();
  const scrubbed = scrubText(body, known.flatMap(spellings));
  if (scrubbed === body) {
    c.res = new Response(body, c.res);
    return;
  }
  const headers = new Headers(c.res.headers);
  headers.delete("content-length");
  c.res = new Response(scrubbed, { status: c.res.status, headers });
}

/** Starts the console; rejects when the port cannot be bound. */
export async function startConsoleServer(options: ConsoleServerOptions): Promise<ConsoleServer> {
  const logger = options.logger ?? silentLogger();
  const bind = options.bind ?? options.config.gateway.console.bind;
  const port = options.port ?? options.config.gateway.console.port;
  const env = options.env ?? process.env;
  const now = options.now ?? (() => new Date());
  const auth = new ConsoleAuth(
    loadConsoleSecret(options.home),
    () => now().getTime(),
    options.sharedRedemption,
  );
  const revocations = new ConsoleRevocations(consoleSessionsPath(options.home), () => now().getTime());
  const library = options.library;
  const events = new ConsoleEvents(options.home, library);
  const assets = loadAssets();
  const config = () => options.config;
  const outbound = new OutboundScrubber(options.home, options.config, env);
  // Every .env value long enough to be one, and the credentials the chat scrubber knows (platform tokens
  // in the environment, secrets config.yaml holds); longest first, so one inside another goes whole.
  const secrets = () =>
    [
      ...new Set([
        ...[...readDotenv(homePaths(options.home).env).values()].filter((value) => value.length >= 6),
        ...outbound.knownSecrets(),
      ]),
    ].sort((a, b) => b.length - a.length);
  const scrub = (value: string) => scrubText(value, secrets());
  const data: ConsoleData = { home: options.home, config, library, env, now };
  let rowsCache: { key: string; rows: LibraryRow[] } | undefined;
  const rows = async () => {
    const key = await events.fingerprint();
    if (rowsCache?.key !== key) rowsCache = { key, rows: await libraryRows(data) };
    return rowsCache.rows;
  };
  const actionEnv: ActionEnv = {
    home: options.home,
    config,
    library,
    registry: options.registry,
    now,
    secrets,
    // Every viewer of the event stream gets the line in each locale and shows its page's own (a
    // Traditional one once a page was shown in it, so no event loads the converter for nobody).
    progress: (line) =>
      events.emit({
        type: "progress",
        data: {
          line: scrub(english(line)),
          lines: Object.fromEntries(
            LOCALES.filter(isCatalogLoaded).map((locale) => [locale, scrub(resolveText(line, locale))]),
          ),
        },
      }),
  };
  const loopback = isLoopback(bind);
  let allowedHosts = new Set<string>();

  const app = new Hono<ConsoleEnv>();

  app.use("*", async (c, next) => {
    const host = c.req.header("host") ?? "";
    if (loopback && !allowedHosts.has(host.toLowerCase())) {
      return c.text(say(c, "console.error.host"), 421);
    }
    await next();
    if (!c.res.headers.get("Content-Language")) c.header("Content-Language", requestLocale(c));
    c.header("Vary", "Accept-Language, Cookie");
    await scrubResponse(c, secrets());
    c.header("Content-Security-Policy", CONSOLE_CSP);
    c.header("X-Content-Type-Options", "nosniff");
    c.header("X-Frame-Options", "DENY");
    c.header("Referrer-Policy", "no-referrer");
    c.header("Cross-Origin-Opener-Policy", "same-origin");
    c.header("Cross-Origin-Resource-Policy", "same-origin");
    if (!c.res.headers.get("Cache-Control")) c.header("Cache-Control", "no-store");
  });

  app.get("/assets/:name", (c) => {
    const name = c.req.param("name");
    const type = ASSET_TYPES[name];
    const body = type ? assets.get(name) : undefined;
    if (!type || body === undefined) return c.text(say(c, "console.error.noAssets"), 404);
    return c.body(body, 200, { "Content-Type": type, "Cache-Control": "no-cache" });
  });

  app.get("/login", async (c) => {
    const role = await auth.redeemLoginToken(text(c.req.query("token"), 1000));
    if (!role) {
      return c.html(
        messagePage(requestLocale(c), t("console.error.loginInvalid"), t("console.error.loginInvalidText")),
        403,
      );
    }
    const { cookie } = auth.newSession(role);
    setCookie(c, SESSION_COOKIE, cookie, { httpOnly: true, sameSite: "Strict", path: "/" });
    return c.redirect("/library", 303);
  });

  app.get("/logged-out", (c) =>
    c.html(messagePage(requestLocale(c), t("console.error.loggedOut"), t("console.error.loggedOutText"))),
  );

  app.use("*", async (c, next) => {
    const session = auth.readSession(getCookie(c, SESSION_COOKIE), revocations);
    if (!session) {
      if (c.req.method === "GET" && !c.req.path.startsWith("/api/") && c.req.path !== "/events") {
        return c.html(
          messagePage(requestLocale(c), t("console.error.logIn"), t("console.error.logInText")),
          401,
        );
      }
      return refuse(c, "console.api.notLoggedIn", 401);
    }
    c.set("session", session);
    await next();
  });

  app.use("*", async (c, next) => {
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    const session = c.get("session");
    const origin = c.req.header("origin");
    const expected = `http://${c.req.header("host") ?? ""}`;
    if (!origin || origin !== expected) return refuse(c, "console.api.crossOrigin", 403);
    const site = c.req.header("sec-fetch-site");
    if (site !== undefined && site !== "same-origin") return refuse(c, "console.api.crossSite", 403);
    if (!auth.checkCsrf(session, c.req.header("x-csrf-token"))) return refuse(c, "console.api.csrf", 403);
    // Any login may log itself out.
    if (c.req.path === "/api/logout") return next();
    if (session.role !== "admin") return refuse(c, "console.api.readOnly", 403);
    return next();
  });

  const page = (c: Context<ConsoleEnv>): PageContext => {
    const session = c.get("session");
    return {
      role: session.role,
      csrf: auth.csrfToken(session),
      scrub,
      locale: requestLocale(c),
      timeZone: displayTimeZone(config().gateway.timezone),
    };
  };

  registerPageRoutes(app, {
    home: options.home,
    library,
    data,
    secrets,
    scrub,
    rows,
    page,
    idleSeconds: options.idleSeconds,
  });

  app.get("/events", (c) =>
    streamSSE(c, async (stream) => {
      const queue: { event: string; data: string }[] = [];
      let wake: (() => void) | undefined;
      const unsubscribe = events.subscribe((event) => {
        queue.push({ event: event.type, data: JSON.stringify(event.data) });
        wake?.();
      });
      let open = true;
      stream.onAbort(() => {
        open = false;
        unsubscribe();
        wake?.();
      });
      await stream.writeSSE({ event: "hello", data: "{}" });
      while (open) {
        const next = queue.shift();
        if (next) {
          await stream.writeSSE(next);
          continue;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 25_000).unref();
        });
        wake = undefined;
        if (open && queue.length === 0) await stream.write(": keep-alive\n\n");
      }
    }),
  );

  app.post(
    "/api/action",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) =>
        c.json({ ok: false, error: say(c, "console.api.tooLarge", { bytes: MAX_BODY_BYTES }) }, 413),
    }),
    async (c) => {
      let body: unknown;
      try {
        body = await c.req.json();
      } catch {
        return refuse(c, "console.api.notJson", 400);
      }
      try {
        const request = parseActionRequest(body);
        const result = await handleAction(actionEnv, c.get("session"), request, requestLocale(c));
        if (result.kind === "done") {
          rowsCache = undefined;
          events.emit({ type: "run-finished", data: { command: request.command, ok: result.ok } });
          if (result.ok) await Promise.resolve(options.onMutated?.()).catch(() => undefined);
          logger.info({ command: request.command, ok: result.ok }, "console: action");
        }
        return c.json(result, result.kind === "done" && !result.ok ? 422 : 200);
      } catch (error) {
        if (error instanceof SkillgateError) return c.json({ ok: false, error: error.message }, 400);
        logger.error({ err: error }, "console: action failed unexpectedly");
        return refuse(c, "console.api.unexpected", 500);
      }
    },
  );

  app.post("/api/logout", (c) => {
    revocations.revoke(c.get("session"));
    deleteCookie(c, SESSION_COOKIE, { path: "/" });
    logger.info("console: logged out");
    return c.json({ ok: true, text: say(c, "console.api.loggedOut") });
  });

  app.post("/api/sessions/end-all", (c) => {
    revocations.endAll();
    deleteCookie(c, SESSION_COOKIE, { path: "/" });
    logger.info("console: every session ended");
    return c.json({ ok: true, text: say(c, "console.api.endedAll") });
  });

  app.notFound((c) =>
    c.html(messagePage(requestLocale(c), t("console.error.notFound"), t("console.error.notFoundText")), 404),
  );
  app.onError((error, c) => {
    logger.error({ err: error }, "console: request failed");
    return c.text(say(c, "console.error.failed"), 500);
  });

  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, bind, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostPart = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${hostPart}:${address.port}`;
  allowedHosts = new Set(
    [`${hostPart}:${address.port}`, `localhost:${address.port}`].map((h) => h.toLowerCase()),
  );
  if (!loopback) {
    logger.warn(
      { bind, url },
      "console: LISTENING BEYOND THIS MACHINE — gateway.console.bind is not a loopback address; anyone who can reach it can try to log in",
    );
  }
  return {
    url,
    loopback,
    loginUrl: (role: ConsoleRole = "admin") => `${url}/login?token=${auth.mintLoginToken(role)}`,
    close: async () => {
      events.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      });
    },
  };
}
