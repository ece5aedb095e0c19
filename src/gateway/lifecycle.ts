/**
 * Connecting and stopping the platforms, and the bounded wait for running work when the gateway
 * stops. The gateway decides when; these say how, and log each platform's outcome.
 */
import { AdapterError, ConfigError, SkillgateError } from "../core/errors.js";
import { t } from "../core/i18n/messages.js";
import type { Logger } from "../core/logger.js";
import type { Adapter, AdapterHooks, InboundMessage } from "../core/message.js";

/**
 * Starts every adapter side by side (one that never comes up does not hold the others back); true
 * when at least one started, or none is configured.
 */
export async function connectAdapters(
  adapters: readonly Adapter[],
  sink: (adapter: Adapter, message: InboundMessage) => Promise<void>,
  hooksFor: (adapter: Adapter) => AdapterHooks,
  logger: Logger,
  failures: unknown[] = [],
): Promise<boolean> {
  const outcomes = await Promise.all(
    adapters.map(async (adapter) => {
      try {
        await adapter.start((message) => sink(adapter, message), hooksFor(adapter));
        logger.info({ platform: adapter.platform }, "gateway: adapter started");
        return true;
      } catch (error) {
        failures.push(error);
        logger.error(
          { err: error, platform: adapter.platform },
          `gateway: ${adapter.platform} failed to start: ${(error as Error).message}`,
        );
        return false;
      }
    }),
  );
  return outcomes.includes(true) || adapters.length === 0;
}

/** Stops every adapter; a failing stop is logged, never thrown. */
export async function disconnectAdapters(adapters: readonly Adapter[], logger: Logger): Promise<void> {
  await Promise.allSettled(
    adapters.map((adapter) =>
      adapter
        .stop()
        .catch((error) =>
          logger.warn({ err: error, platform: adapter.platform }, "gateway: adapter stop failed"),
        ),
    ),
  );
}

/** What is still running when the gateway stops. */
export interface RunningWork {
  /** Commands queued or running now. */
  inFlight(): number;
  /** A maintenance tick is in progress now. */
  maintaining(): boolean;
  /** Resolves once all of it has finished (or reached its safe point). */
  settled(): Promise<unknown>;
}

/** Waits for `work` up to `waitMs` (infinite: as long as it takes); false when the wait ran out. */
export async function drainWork(work: RunningWork, waitMs: number, logger: Logger): Promise<boolean> {
  const drained = work.settled().then(() => true);
  const timeout = new Promise<boolean>((resolve) => {
    if (Number.isFinite(waitMs)) setTimeout(() => resolve(false), waitMs).unref();
  });
  if (work.inFlight() > 0 || work.maintaining())
    logger.info(
      { inFlight: work.inFlight(), waitMs },
      `gateway: waiting up to ${Math.round(waitMs / 1000)} s for running commands to finish or reach a safe point`,
    );
  const finished = await Promise.race([drained, timeout]);
  if (!finished)
    logger.warn(
      { inFlight: work.inFlight() },
      "gateway: stopping with commands still running (raise gateway.stop_timeout_seconds to wait longer; the next start recovers what they left)",
    );
  return finished;
}

/**
 * Why no platform started: a `ConfigError` (exit 78: a supervisor stops restarting) when every platform
 * refused its credentials or settings, since only fixing them helps; else a plain error.
 */
export function noAdapterStarted(failures: readonly unknown[]): Error {
  const refused = failures.filter(
    (failure): failure is AdapterError => failure instanceof AdapterError && failure.refused,
  );
  const [first] = refused;
  if (first && refused.length === failures.length) return new ConfigError(first.adapter, first.text);
  return new SkillgateError("gateway.no_adapter", t("gateway.noAdapterStarted"));
}
