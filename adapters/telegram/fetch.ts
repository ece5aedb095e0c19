/**
 * A small `fetch` for grammy's API client, given through its documented `client.fetch` option. grammy
 * calls `fetch(url, init)` with a POST, its headers, a body that is a JSON string or its multipart
 * stream, an abort signal and the keep-alive agent of its `baseFetchConfig`, and then reads only
 * `response.json()`. This does exactly that with one `http(s).request`: node-fetch's Request, Headers
 * and Body objects and its stream plumbing were about a quarter of the gateway's allocations per reply
 * under chat load. A network error, an abort or a body that is not JSON rejects, and grammy turns any
 * rejection into its `HttpError`, as it does with node-fetch's.
 */
import http from "node:http";
import https from "node:https";
import type { Readable } from "node:stream";

/** What grammy passes (`{ ...baseFetchConfig, signal, ...payload }`). */
export interface LeanFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array | Readable;
  signal?: AbortSignal;
  agent?: http.Agent;
}

/** The part of a `Response` grammy reads. */
export interface LeanFetchResponse {
  ok: boolean;
  status: number;
  json(): Promise<unknown>;
}

/** Largest answer read: Bot API answers are a few KB (a full getUpdates batch well under a MB). */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

function abortError(): Error {
  const error = new Error("The operation was aborted");
  error.name = "AbortError";
  return error;
}

/** Sends one request and resolves with its whole answer (see the module comment). */
export function leanFetch(url: string | URL, init: LeanFetchInit = {}): Promise<LeanFetchResponse> {
  return new Promise((resolve, reject) => {
    const { signal } = init;
    if (signal?.aborted) {
      reject(abortError());
      return;
    }
    const target = typeof url === "string" ? new URL(url) : url;
    const transport = target.protocol === "https:" ? https : http;
    const request = transport.request(target, {
      method: init.method ?? "GET",
      headers: init.headers,
      agent: init.agent,
    });
    const onAbort = () => request.destroy(abortError());
    signal?.addEventListener("abort", onAbort, { once: true });
    const settle = () => signal?.removeEventListener("abort", onAbort);
    request.once("error", (error) => {
      settle();
      reject(error);
    });
    request.once("response", (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) {
          request.destroy(new Error(`answer larger than ${MAX_RESPONSE_BYTES} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      response.once("error", (error) => {
        settle();
        reject(error);
      });
      // Closed without an end (a reset mid-answer): reject; after an end this changes nothing.
      response.once("close", () => {
        settle();
        reject(new Error("the connection closed before the answer was complete"));
      });
      response.once("end", () => {
        settle();
        if (!response.complete) {
          reject(new Error("the connection closed before the answer was complete"));
          return;
        }
        const text = (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString("utf8");
        const status = response.statusCode ?? 0;
        resolve({
          ok: status >= 200 && status < 300,
          status,
          json: async () => JSON.parse(text) as unknown,
        });
      });
    });
    const { body } = init;
    if (body === undefined || typeof body === "string" || body instanceof Uint8Array) {
      request.end(body);
      return;
    }
    body.once("error", (error) => request.destroy(error));
    body.pipe(request);
  });
}
