/**
 * The one network client every hub access goes through. Per request: a deadline over the whole exchange
 * (every redirect hop included), a size limit enforced while reading (a declared `Content-Length` over it
 * is refused before a byte is read), at most five redirects, each hop checked again as if it were the
 * first; private, loopback, link-local and other non-public addresses refused unless their `host:port` is
 * listed in `skills.hub.allowed_hosts` — checked on the addresses DNS gives at connect time, so a name that
 * resolves to `127.0.0.1` is refused like the literal; plain `http:` only to a listed host; and credentials
 * (an `Authorization` header, a token) sent only to the origin they were given for, never after a redirect
 * to another one. Hermes' hub does the same with `_guarded_http_get` / `_guarded_http_stream`
 * (`tools/skills_hub.py`), `is_safe_url` and an SSRF-safe client (`tools/url_safety.py`).
 */
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import net, { type LookupFunction } from "node:net";
import { SkillgateError } from "../../core/errors.js";
import { type Text, t } from "../../core/i18n/messages.js";

/** Most redirects followed for one request (Hermes' limit). */
export const MAX_REDIRECTS = 5;
/** Default deadline of one request, redirects included. */
export const DEFAULT_TIMEOUT_MS = 20_000;
/** Default size limit of one response body. */
export const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;

/** A hub request that was refused or failed; the message says which host and why. */
export class HubFetchError extends SkillgateError {
  constructor(code: "refused" | "failed" | "too_large" | "timeout" | "status", message: Text) {
    super(`hub.fetch_${code}`, message);
  }
}

/** How one request is made. */
export interface HubRequestOptions {
  /** `skills.hub.allowed_hosts`: `host:port` entries that may be private or plain http. */
  allowedHosts: readonly string[];
  timeoutMs?: number;
  maxBytes?: number;
  /** Headers sent on every hop (no credentials here). */
  headers?: Record<string, string>;
  /** Headers sent only while the request stays on the first URL's origin (e.g. `Authorization`). */
  credentialHeaders?: Record<string, string>;
  /** Aborts the request (a stopping process). */
  signal?: AbortSignal;
}

/** A response read whole. */
export interface HubResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The URL that answered (after redirects). */
  url: string;
}

const blocked = buildBlockList();

function buildBlockList(): net.BlockList {
  const list = new net.BlockList();
  const v4: Array<[string, number]> = [
    ["0.0.0.0", 8],
    ["10.0.0.0", 8],
    ["100.64.0.0", 10],
    ["127.0.0.0", 8],
    ["169.254.0.0", 16],
    ["172.16.0.0", 12],
    ["192.0.0.0", 24],
    ["192.0.2.0", 24],
    ["192.168.0.0", 16],
    ["198.18.0.0", 15],
    ["198.51.100.0", 24],
    ["203.0.113.0", 24],
    ["224.0.0.0", 4],
    ["240.0.0.0", 4],
  ];
  for (const [address, prefix] of v4) list.addSubnet(address, prefix, "ipv4");
  const v6: Array<[string, number]> = [
    ["::", 128],
    ["::1", 128],
    ["fc00::", 7],
    ["fe80::", 10],
    ["ff00::", 8],
    ["64:ff9b::", 96],
    ["2001:db8::", 32],
  ];
  for (const [address, prefix] of v6) list.addSubnet(address, prefix, "ipv6");
  return list;
}

/** True when `address` (an IP literal) is not a public address. */
export function isNonPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return true;
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1] as string, "ipv4");
    return blocked.check(address, "ipv6");
  }
  return blocked.check(address, "ipv4");
}

/** `host:port` of a URL, lowercased, with the scheme's default port filled in. */
export function hostPortOf(url: URL): string {
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return `${url.hostname.toLowerCase()}:${port}`;
}

/** Fetches `url` through the guard and reads the body whole (see the file's comment). */
export async function hubGet(url: string, options: HubRequestOptions): Promise<HubResponse> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  let current = parseUrl(url);
  const origin = current.origin;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    checkUrl(current, options.allowedHosts);
    const sameOrigin = current.origin === origin;
    const headers = { ...(options.headers ?? {}), ...(sameOrigin ? (options.credentialHeaders ?? {}) : {}) };
    const response = await requestOnce(current, headers, options.allowedHosts, signal, maxBytes, timeoutMs);
    if ([301, 302, 303, 307, 308].includes(response.status)) {
      const location = response.headers.location;
      if (!location)
        throw new HubFetchError("failed", t("hub.net.redirectNoLocation", { url: current.href }));
      current = parseUrl(new URL(location, current).href);
      continue;
    }
    return { ...response, url: current.href };
  }
  throw new HubFetchError("refused", t("hub.net.tooManyRedirects", { url, max: String(MAX_REDIRECTS) }));
}

/** Fetches JSON through the guard; a status other than 200 or a body that is not JSON is an error. */
export async function hubGetJson(url: string, options: HubRequestOptions): Promise<unknown> {
  const response = await hubGet(url, {
    ...options,
    headers: { accept: "application/json", ...options.headers },
  });
  if (response.status !== 200)
    throw new HubFetchError(
      "status",
      t("hub.net.status", { url: response.url, status: String(response.status) }),
    );
  try {
    return JSON.parse(response.body.toString("utf8"));
  } catch {
    throw new HubFetchError("failed", t("hub.net.notJson", { url: response.url }));
  }
}

function parseUrl(value: string): URL {
  try {
    return new URL(value);
  } catch {
    throw new HubFetchError("refused", t("hub.net.badUrl", { url: value }));
  }
}

/** Refuses a URL the guard never fetches: a scheme other than http(s), credentials in it, a non-public literal. */
function checkUrl(url: URL, allowedHosts: readonly string[]): void {
  const hostPort = hostPortOf(url);
  const listed = allowedHosts.includes(hostPort);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && listed))
    throw new HubFetchError("refused", t("hub.net.scheme", { url: url.href, hostPort }));
  if (url.username || url.password) throw new HubFetchError("refused", t("hub.net.userinfo", { hostPort }));
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  if (net.isIP(literal) && isNonPublicAddress(literal) && !listed)
    throw new HubFetchError("refused", t("hub.net.private", { hostPort, address: literal }));
}

/** A DNS lookup that refuses non-public answers for a host not listed. */
function guardedLookup(hostPort: string, listed: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 4);
      const list = addresses as dns.LookupAddress[];
      const bad = list.find((entry) => isNonPublicAddress(entry.address));
      if (bad && !listed) {
        const refusal = new HubFetchError(
          "refused",
          t("hub.net.private", { hostPort, address: bad.address }),
        );
        return callback(refusal as unknown as NodeJS.ErrnoException, "", 4);
      }
      if ((options as dns.LookupOptions).all) return callback(null, list as never);
      const first = list[0];
      if (!first) return callback(new Error(`no address for ${hostname}`) as NodeJS.ErrnoException, "", 4);
      callback(null, first.address, first.family);
    });
  };
}

function requestOnce(
  url: URL,
  headers: Record<string, string>,
  allowedHosts: readonly string[],
  signal: AbortSignal,
  maxBytes: number,
  timeoutMs: number,
): Promise<Omit<HubResponse, "url">> {
  const hostPort = hostPortOf(url);
  const listed = allowedHosts.includes(hostPort);
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const fail = (error: unknown) => {
      if (error instanceof HubFetchError) return reject(error);
      if (signal.aborted)
        return reject(
          new HubFetchError(
            "timeout",
            t("hub.net.timeout", { hostPort, seconds: String(Math.ceil(timeoutMs / 1000)) }),
          ),
        );
      reject(new HubFetchError("failed", t("hub.net.failed", { hostPort, cause: (error as Error).message })));
    };
    const request = client.request(
      url,
      {
        method: "GET",
        headers: { "user-agent": "skillgate-hub", ...headers },
        lookup: guardedLookup(hostPort, listed),
        signal,
        agent: false,
      },
      (response) => {
        const declared = Number(response.headers["content-length"]);
        if (Number.isFinite(declared) && declared > maxBytes) {
          response.destroy();
          return reject(
            new HubFetchError("too_large", t("hub.net.tooLarge", { hostPort, limit: String(maxBytes) })),
          );
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            response.destroy();
            reject(
              new HubFetchError("too_large", t("hub.net.tooLarge", { hostPort, limit: String(maxBytes) })),
            );
            return;
          }
          chunks.push(chunk);
        });
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
          }),
        );
        response.on("error", fail);
      },
    );
    request.on("error", fail);
    request.end();
  });
}
