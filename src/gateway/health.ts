/**
 * `/healthz` on 127.0.0.1: a JSON document with each adapter's state; HTTP 200 when every adapter is
 * connected (or none runs), 503 otherwise (starting, degraded or stopped). The status is `degraded` when
 * every adapter is up but one is not well — its connection is struggling, or its intake failed repeatedly
 * of late (see `src/core/intake-failures.ts`). `/metrics` beside it: the gateway's Prometheus metrics.
 * Port 0 picks an ephemeral port (tests).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { refuseTooLarge } from "../core/http-guard.js";
import type { AdapterHealth } from "../core/message.js";
import type { CoordinationHealth } from "./coordination/coordinator.js";

/** What `/healthz` reports. */
export interface HealthReport {
  status: "ok" | "degraded" | "unavailable";
  adapters: Record<string, AdapterHealth>;
  /** With `gateway.coordination`: this replica's role, epoch, Redis and lease age. */
  coordination?: CoordinationHealth;
}

/** Builds the report from the adapters' states. */
export function healthReport(adapters: { platform: string; health(): AdapterHealth }[]): HealthReport {
  const states: Record<string, AdapterHealth> = {};
  for (const adapter of adapters) states[adapter.platform] = adapter.health();
  const all = Object.values(states);
  // With no platform to run (none configured, or each one's bot held by Hermes' gateway) the gateway
  // serves what it can (the console, this page) and is healthy: nothing it runs is broken.
  const up = all.every((state) => state.state === "connected" || state.state === "degraded");
  const ok = up && all.every((state) => state.state === "connected");
  return { status: ok ? "ok" : up ? "degraded" : "unavailable", adapters: states };
}

/**
 * Adds a coordinated replica's state. A standby has no platform connected and is healthy while Redis
 * answers (it is ready to take over); a leader is healthy when its platforms are.
 */
export function withCoordination(
  report: HealthReport,
  coordination: CoordinationHealth | undefined,
): HealthReport {
  if (!coordination) return report;
  const status =
    coordination.redis !== "ok" ? "unavailable" : coordination.role === "follower" ? "ok" : report.status;
  return { ...report, status, coordination };
}

/** A running health server. */
export interface HealthServer {
  /** `http://127.0.0.1:<port>/healthz`. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** A Prometheus exposition: the body and its content type. */
export type MetricsExposition = () => Promise<{ body: string; contentType: string }>;

/** Starts the health server on 127.0.0.1:`port`; with `metrics`, `/metrics` is served beside `/healthz`. */
export async function startHealthServer(
  port: number,
  report: () => HealthReport,
  metrics?: MetricsExposition,
): Promise<HealthServer> {
  const server = http.createServer((request, response) => {
    const url = (request.url ?? "/").split("?")[0];
    // The body limit of /healthz is zero: nothing it serves takes one, so none is ever read.
    if (Number(request.headers["content-length"] ?? 0) > 0 || request.headers["transfer-encoding"]) {
      refuseTooLarge(request, response, 0);
      return;
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    if (url === "/metrics" && metrics) {
      metrics().then(
        ({ body, contentType }) =>
          response
            .writeHead(200, { "content-type": contentType, "cache-control": "no-store" })
            .end(request.method === "HEAD" ? undefined : body),
        () => response.writeHead(500).end(),
      );
      return;
    }
    if (url !== "/healthz") {
      response
        .writeHead(404, { "content-type": "application/json" })
        .end('{"error":"not found; try /healthz"}\n');
      return;
    }
    const body = report();
    response
      .writeHead(body.status === "ok" ? 200 : 503, {
        "content-type": "application/json",
        "cache-control": "no-store",
      })
      .end(request.method === "HEAD" ? undefined : `${JSON.stringify(body)}\n`);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}/healthz`,
    port: actual,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
