/**
 * The gateway's Prometheus metrics, served as `/metrics` beside `/healthz`: events received and answered
 * per platform, how long commands take, errors, curator runs (their duration and the skills they moved),
 * the shared inbox's backlog, and the replica's role and lease epoch under coordination. Each gateway has
 * its own registry (several run in one test process).
 */
import type * as PromClient from "prom-client";
import { requireVendored } from "../core/vendored.js";
import type { CuratorRunResult } from "../curator/types.js";
import type { CoordinationHealth } from "./coordination/coordinator.js";

/** prom-client, from the build's single-file copy when there is one (see `src/core/vendored.ts`). */
const { Counter, Gauge, Histogram, Registry } = requireVendored<typeof PromClient>("prom-client");

/** What the metrics read at scrape time. */
export interface MetricsSources {
  /** The replica's role and epoch under coordination; undefined for a single gateway. */
  coordination?: () => CoordinationHealth | undefined;
  /** Entries in the shared inbox not yet handled; undefined for a single gateway. */
  inboxBacklog?: () => Promise<number | undefined>;
}

/** The gateway's metrics: counters it bumps as it works, and a text exposition for `/metrics`. */
export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly received = new Counter({
    name: "skillgate_events_received_total",
    help: "Chat events the gateway took from a platform (messages, commands, button presses).",
    labelNames: ["platform"] as const,
    registers: [this.registry],
  });
  private readonly answered = new Counter({
    name: "skillgate_events_answered_total",
    help: "Chat events the gateway sent a reply to.",
    labelNames: ["platform"] as const,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: "skillgate_command_duration_seconds",
    help: "Time from taking a chat event to its reply being sent.",
    labelNames: ["platform"] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  private readonly errors = new Counter({
    name: "skillgate_errors_total",
    help: "Failures while handling chat events or running maintenance.",
    labelNames: ["where"] as const,
    registers: [this.registry],
  });
  private readonly curatorRuns = new Counter({
    name: "skillgate_curator_runs_total",
    help: "Curator runs started by the gateway's maintenance, by whether they changed the library.",
    labelNames: ["changed"] as const,
    registers: [this.registry],
  });
  private readonly curatorDuration = new Histogram({
    name: "skillgate_curator_run_duration_seconds",
    help: "Duration of the curator runs started by the gateway's maintenance.",
    buckets: [1, 5, 15, 60, 300, 900, 3600],
    registers: [this.registry],
  });
  private readonly curatorMoves = new Counter({
    name: "skillgate_curator_moves_total",
    help: "Skills the curator moved: marked stale, archived, consolidated, pruned or added.",
    labelNames: ["kind"] as const,
    registers: [this.registry],
  });

  constructor(sources: MetricsSources = {}) {
    const { coordination, inboxBacklog } = sources;
    new Gauge({
      name: "skillgate_inbox_backlog",
      help: "Events in the shared inbox not yet handled (0 without coordination).",
      registers: [this.registry],
      async collect() {
        this.set((await inboxBacklog?.().catch(() => undefined)) ?? 0);
      },
    });
    new Gauge({
      name: "skillgate_coordination_role",
      help: "1 for this replica's role under coordination (leader or follower), 0 for the other.",
      labelNames: ["role"] as const,
      registers: [this.registry],
      collect() {
        const role = coordination?.()?.role;
        this.set({ role: "leader" }, role === undefined || role === "leader" ? 1 : 0);
        this.set({ role: "follower" }, role === "follower" ? 1 : 0);
      },
    });
    new Gauge({
      name: "skillgate_coordination_epoch",
      help: "The lease epoch this replica last held or saw (0 without coordination).",
      registers: [this.registry],
      collect() {
        this.set(coordination?.()?.epoch ?? 0);
      },
    });
  }

  /** A chat event was taken from `platform`. */
  eventReceived(platform: string): void {
    this.received.inc({ platform });
  }

  /** A reply to an event of `platform` was sent, `seconds` after it was taken. */
  eventAnswered(platform: string, seconds: number): void {
    this.answered.inc({ platform });
    this.latency.observe({ platform }, seconds);
  }

  /** Something failed `where` (`event`, `command`, `maintenance`). */
  error(where: string): void {
    this.errors.inc({ where });
  }

  /** A curator run of the maintenance ended. */
  curatorRun(result: CuratorRunResult): void {
    this.curatorRuns.inc({ changed: String(result.changed) });
    this.curatorDuration.observe(result.durationSeconds);
    const stale = result.stateTransitions.filter((move) => move.to === "stale").length;
    const moves: Record<string, number> = {
      stale,
      archived: result.archived.length,
      consolidated: result.consolidated.length,
      pruned: result.pruned.length,
      added: result.added.length,
    };
    for (const [kind, count] of Object.entries(moves)) this.curatorMoves.inc({ kind }, count);
  }

  /** The exposition in Prometheus' text format, and its content type. */
  async exposition(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
