/**
 * A round-robin HTTP load balancer on 127.0.0.1 for the tests of replicas that all take traffic: each
 * request goes to the next backend in turn; a backend that refuses the connection (a killed replica) is
 * skipped for the next one, as nginx's `proxy_next_upstream error` does, and only when none answers does
 * the client get 502. A backend's own answer (a 503 included) is passed through unchanged. Every
 * request is recorded with the backend that answered it.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

/** One proxied request. */
export interface BalancedRequest {
  path: string;
  /** Index of the backend that answered, or -1 when none did. */
  backend: number;
  status: number;
  at: number;
}

/** A running balancer. */
export interface Balancer {
  readonly url: string;
  readonly requests: BalancedRequest[];
  close(): Promise<void>;
}

/** Starts a balancer over `backends` (`http://127.0.0.1:<port>` each). */
export async function startBalancer(backends: readonly string[]): Promise<Balancer> {
  let next = 0;
  const requests: BalancedRequest[] = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const forward = (
    target: string,
    req: http.IncomingMessage,
    body: Buffer,
  ): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer } | undefined> =>
    new Promise((resolve) => {
      const url = new URL(req.url ?? "/", target);
      const outgoing = http.request(
        url,
        { method: req.method, headers: { ...req.headers, host: url.host }, agent, timeout: 15_000 },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }),
          );
          res.on("error", () => resolve(undefined));
        },
      );
      // A refused or reset connection, or no answer in time: try the next backend.
      outgoing.on("error", () => resolve(undefined));
      outgoing.on("timeout", () => outgoing.destroy());
      outgoing.end(body);
    });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const body = Buffer.concat(chunks);
      const first = next++ % backends.length;
      for (let attempt = 0; attempt < backends.length; attempt++) {
        const index = (first + attempt) % backends.length;
        const answer = await forward(backends[index] as string, req, body);
        if (!answer) continue;
        requests.push({ path: req.url ?? "/", backend: index, status: answer.status, at: Date.now() });
        const headers = { ...answer.headers };
        delete headers["transfer-encoding"];
        headers["content-length"] = String(answer.body.length);
        res.writeHead(answer.status, headers).end(answer.body);
        return;
      }
      requests.push({ path: req.url ?? "/", backend: -1, status: 502, at: Date.now() });
      res.writeHead(502).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
