/**
 * The one-time secret form for platforms without a native private input (Telegram): a tiny HTTP server
 * on 127.0.0.1, published through `gateway.public_url` by a reverse proxy (HTTPS expected). `GET
 * /secret/<token>` shows a form with one password field; `POST` stores the value through
 * `SecretEntry.submitLink` and the chat that asked is told "`KEY` set ✓". Nothing here logs or echoes
 * a request body, and every page forbids caching, framing, referrers and scripts.
 */

import type http from "node:http";
import type { AddressInfo } from "node:net";
import { createGuardedServer, readBodyLimited, refuseBody } from "../../core/http-guard.js";
import { type Locale, negotiateLocale } from "../../core/i18n/locale.js";
import { resolveHtml, resolveText, type Text, t } from "../../core/i18n/messages.js";
import { replyToPlainText } from "../../core/reply.js";
import type { SecretEntry, SecretSubmission } from "./service.js";
import type { PendingSecret } from "./tokens.js";

/** Largest form body read (bytes); anything bigger is refused unread. */
const MAX_BODY_BYTES = 16 * 1024;

/** A running form server. */
export interface SecretFormServer {
  readonly port: number;
  close(): Promise<void>;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function page(title: string, body: string, locale: Locale = "en"): string {
  return `<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>body{font:16px system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem}input,button{font:inherit;padding:.5rem;width:100%;box-sizing:border-box;margin:.25rem 0}</style></head><body>${body}</body></html>`;
}

/** A page of one title and one paragraph, both escaped, in `locale`. */
function formPage(locale: Locale, title: Text, text: Text): string {
  return page(resolveText(title, locale), `<p>${escapeHtml(resolveText(text, locale))}</p>`, locale);
}

const HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
};

/**
 * Starts the form server on 127.0.0.1:`port`. `notify` posts the confirmation to the chat that asked
 * (it never contains the value).
 */
export async function startSecretFormServer(
  port: number,
  entry: SecretEntry,
  notify: (pending: PendingSecret, submission: SecretSubmission) => Promise<void>,
): Promise<SecretFormServer> {
  const server = createGuardedServer((request, response) => {
    const locale = negotiateLocale(request.headers["accept-language"]) ?? "en";
    void handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500, HEADERS);
      response.end(formPage(locale, t("form.error.title"), t("form.error.text")));
    });
  });
  async function handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    // The page speaks the language of the admin who asked for it, else the browser's.
    const browser = negotiateLocale(request.headers["accept-language"]) ?? "en";
    const match = /^\/secret\/([A-Za-z0-9_-]{16,64})$/.exec((request.url ?? "/").split("?")[0] ?? "");
    if (!match) {
      response
        .writeHead(404, HEADERS)
        .end(formPage(browser, t("form.notFound.title"), t("form.notFound.text")));
      return;
    }
    const token = match[1] as string;
    const prompt = entry.describeLink(token);
    const locale = ("locale" in prompt ? prompt.locale : undefined) ?? browser;
    const say = (text: Text) => escapeHtml(resolveText(text, locale));
    if (request.method === "GET") {
      if ("refused" in prompt) {
        response.writeHead(410, HEADERS).end(formPage(locale, t("form.closed.title"), prompt.refused));
        return;
      }
      const key = `<code>${escapeHtml(prompt.key)}</code>`;
      const skill = `<b>${escapeHtml(prompt.skill)}</b>`;
      response
        .writeHead(200, HEADERS)
        .end(
          page(
            resolveText(t("form.set.title", { key: prompt.key }), locale),
            `<h1>${resolveHtml(t("form.set.heading", { key: "" }), locale, escapeHtml, { key })}</h1><p>${resolveHtml(t("form.set.intro", { skill: "" }), locale, escapeHtml, { skill })}</p><form method="post" autocomplete="off"><label>${say(prompt.prompt)}<input type="password" name="value" required maxlength="4096" autocomplete="off"></label><button type="submit">${say(t("form.set.store"))}</button></form><p>${say(t("form.set.once"))}</p>`,
            locale,
          ),
        );
      return;
    }
    if (request.method !== "POST") {
      response
        .writeHead(405, { ...HEADERS, allow: "GET, POST" })
        .end(formPage(locale, t("form.notAllowed.title"), t("form.notAllowed.text")));
      return;
    }
    const body = await readBodyLimited(request, MAX_BODY_BYTES);
    if (body === "aborted" || body === "too-slow" || body === "busy") {
      refuseBody(request, response, body, MAX_BODY_BYTES);
      return;
    }
    if (body === "too-large") {
      // Closing the connection cuts off a client still sending the rest of a huge body.
      response
        .writeHead(413, { ...HEADERS, connection: "close" })
        .end(formPage(locale, t("form.tooLarge.title"), t("form.tooLarge.text")), () =>
          request.socket.destroy(),
        );
      return;
    }
    const value = new URLSearchParams(body.toString("utf8")).get("value") ?? "";
    const submission = await entry.submitLink(token, value);
    if (!submission.stored) {
      const text = replyToPlainText(submission.reply, locale).replace(/\n+/g, " ");
      response
        .writeHead(submission.reply.exitCode === 0 ? 200 : 410, HEADERS)
        .end(formPage(locale, t("form.notStored.title"), text));
      return;
    }
    const stored = resolveHtml(t("form.stored.text", { key: "" }), locale, escapeHtml, {
      key: `<code>${escapeHtml(submission.stored.key)}</code>`,
    });
    response
      .writeHead(200, HEADERS)
      .end(page(resolveText(t("form.stored.title"), locale), `<p>${stored}</p>`, locale));
    await notify(submission.stored, submission);
  }
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
