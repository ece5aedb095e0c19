/** The small `fetch` the Telegram adapter gives grammy: answers, bodies, aborts and broken connections. */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { leanFetch, MAX_RESPONSE_BYTES } from "../../adapters/telegram/fetch.js";

let server: http.Server;
let base: string;
let handler: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

beforeEach(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => handler(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("leanFetch", () => {
  it("posts a JSON string with its headers over the given agent and parses the answer", async () => {
    const agent = new http.Agent({ keepAlive: true });
    let seen: { method?: string; type?: string; body: string } | undefined;
    handler = (req, res, body) => {
      seen = { method: req.method, type: req.headers["content-type"], body };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: true, result: { message_id: 7, text: "héllo ✓" } }));
    };
    const response = await leanFetch(`${base}/bot123/sendMessage`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ chat_id: 1, text: "hi" }),
      agent,
    });
    expect(response.ok).toBe(true);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, result: { message_id: 7, text: "héllo ✓" } });
    expect(seen).toEqual({ method: "POST", type: "application/json", body: '{"chat_id":1,"text":"hi"}' });
    // The keep-alive agent kept the socket for the next call.
    expect(Object.keys(agent.freeSockets)).toHaveLength(1);
    agent.destroy();
  });

  it("streams a multipart body and reports an error status as not ok, with its JSON", async () => {
    handler = (_req, res, body) => {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: false, description: `got ${body.length} bytes` }));
    };
    const parts = ["--b\r\n", "x".repeat(100_000), "\r\n--b--\r\n"];
    const response = await leanFetch(`${base}/bot1/sendDocument`, {
      method: "POST",
      body: Readable.from(parts, { objectMode: false }),
    });
    expect(response.ok).toBe(false);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ ok: false, description: "got 100014 bytes" });
  });

  it("rejects an answer that is not JSON when it is read", async () => {
    handler = (_req, res) => res.end("<html>bad gateway</html>");
    const response = await leanFetch(`${base}/x`, { method: "POST", body: "{}" });
    await expect(response.json()).rejects.toThrow(SyntaxError);
  });

  it("rejects with an AbortError when aborted before sending or while waiting", async () => {
    handler = () => undefined; // never answers
    const early = new AbortController();
    early.abort();
    await expect(leanFetch(`${base}/x`, { signal: early.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
    const late = new AbortController();
    const pending = leanFetch(`${base}/getUpdates`, { method: "POST", body: "{}", signal: late.signal });
    setTimeout(() => late.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
  });

  it("rejects when the connection is cut mid-answer or the server is not there", async () => {
    handler = (_req, res) => {
      res.writeHead(200, { "content-length": "1000" });
      res.write('{"ok":true,');
      setTimeout(() => res.socket?.destroy(), 20);
    };
    await expect(leanFetch(`${base}/x`, { method: "POST", body: "{}" })).rejects.toThrow();
    const closed = `http://127.0.0.1:${(server.address() as AddressInfo).port + 1}`;
    await expect(leanFetch(`${closed}/x`)).rejects.toThrow();
  });

  it("refuses an answer larger than its limit instead of buffering it", async () => {
    handler = (_req, res) => {
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent <= MAX_RESPONSE_BYTES && res.write(chunk)) sent += chunk.length;
        if (sent <= MAX_RESPONSE_BYTES) res.once("drain", pump);
        else res.end();
      };
      res.on("error", () => undefined);
      pump();
    };
    await expect(leanFetch(`${base}/x`)).rejects.toThrow(/larger than/);
  });
});
