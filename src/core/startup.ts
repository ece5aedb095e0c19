/**
 * The first connection of a platform adapter: bounded attempts with exponential backoff, one log line
 * per failure naming the cause, and the state shown on `/healthz` while it tries ("connecting: attempt 2
 * of 5 failed: ECONNREFUSED …"). An error the caller marks fatal (a refused token) ends it at once. SDKs
 * that would retry forever by themselves are called so they do not.
 */
import type { Logger } from "./logger.js";

/** Options of `connectWithRetries`. */
export interface ConnectOptions<T> {
  platform: string;
  /** One attempt to connect. */
  attempt: () => Promise<T>;
  /** Attempts before giving up (at least 1). */
  attempts: number;
  /** Delay after the first failure (ms); doubles each time up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
  logger: Logger;
  /** Stops the waiting and the attempts (the adapter is being stopped). */
  signal?: AbortSignal;
  /** Called with a line for `/healthz` before each retry. */
  onState?: (detail: string) => void;
  /** Errors not worth retrying (bad credentials, bad configuration). */
  fatal?: (error: unknown) => boolean;
  /** Turns the last error into the one thrown (a clear `AdapterError`). */
  wrap?: (error: unknown) => Error;
}

/** The cause of an error in a few words: its code and message, and its cause's. */
export function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  // `cause`, or `error` where an SDK keeps the underlying failure (grammy's HttpError).
  const inner = (error as { cause?: unknown }).cause ?? (error as { error?: unknown }).error;
  const own = `${code && !error.message.includes(code) ? `${code}: ` : ""}${error.message}`;
  return inner instanceof Error && !own.includes(inner.message) ? `${own} (${describeCause(inner)})` : own;
}

/** Runs `attempt` until it succeeds, up to `attempts` times; throws the (wrapped) last error. */
export async function connectWithRetries<T>(options: ConnectOptions<T>): Promise<T> {
  const total = Math.max(1, options.attempts);
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await options.attempt();
    } catch (error) {
      const cause = describeCause(error);
      if (options.signal?.aborted || options.fatal?.(error) || attempt >= total) {
        options.logger.error(
          { platform: options.platform, attempt, attempts: total },
          `${options.platform}: could not connect (attempt ${attempt} of ${total}): ${cause}; giving up`,
        );
        throw options.wrap ? options.wrap(error) : error;
      }
      const delay = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
      options.logger.warn(
        { platform: options.platform, attempt, attempts: total, delayMs: delay },
        `${options.platform}: could not connect (attempt ${attempt} of ${total}): ${cause}; retrying in ${Math.max(1, Math.round(delay / 1000))} s`,
      );
      options.onState?.(`connecting: attempt ${attempt} of ${total} failed: ${cause}`);
      await sleep(delay, options.signal);
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
