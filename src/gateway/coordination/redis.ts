/**
 * The Redis connection of a coordinated gateway (`gateway.coordination.redis_url`; Redis ≥ 7 or Valkey,
 * one primary). Commands fail at once while the connection is down (no offline queue: a coordination
 * decision on stale state is worse than none) and the client reconnects by itself. At start an
 * unreachable or too old server is a clear error naming the URL and the fix, never a silent fall-back.
 */
import { createClient } from "redis";
import { CoordinationError, errorCause } from "../../core/errors.js";
import { english, type Text, t } from "../../core/i18n/messages.js";
import type { Logger } from "../../core/logger.js";

/** A client with the options every coordinated gateway uses (see the file's comment). */
function newClient(url: string, connectTimeoutMs: number) {
  return createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: connectTimeoutMs,
      // Reconnect quickly while running (the lease needs Redis back within seconds), never give up.
      reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 1_000),
    },
  });
}

/** The connected client. */
export type RedisClient = ReturnType<typeof newClient>;

/** The oldest Redis major version the coordination commands are written for. */
export const MIN_REDIS_MAJOR = 7;

/** `url` with any password replaced, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, "//***@");
  }
}

/** Options of `connectRedis`. */
export interface ConnectOptions {
  logger?: Logger;
  /** How long the first connection may take (ms). */
  connectTimeoutMs?: number;
}

/** The server's version from `INFO server` (`redis_version`; Valkey reports the Redis version it matches). */
export function serverVersion(info: string): string | undefined {
  return /^redis_version:(\S+)/m.exec(info)?.[1];
}

/**
 * Connects to `url` and checks the server's version. Throws `CoordinationError` (`unreachable`,
 * `version`) naming the URL and the fix.
 */
export async function connectRedis(url: string, options: ConnectOptions = {}): Promise<RedisClient> {
  const shown = redactUrl(url);
  let lastError = "";
  // Why the last attempt failed, for the reader (the system error's code in their words).
  let lastCause: Text = "";
  const client = newClient(url, options.connectTimeoutMs ?? 3_000);
  let connected = false;
  client.on("error", (error: Error) => {
    const message = error.message || String(error);
    if (message === lastError) return;
    lastError = message;
    lastCause = error.message ? errorCause(error) : message;
    if (connected)
      options.logger?.warn({ redis: shown, err: error }, `coordination: Redis at ${shown}: ${message}`);
  });
  client.on("ready", () => {
    if (connected && lastError)
      options.logger?.info({ redis: shown }, `coordination: Redis at ${shown} is back`);
    lastError = "";
  });
  const timeoutMs = (options.connectTimeoutMs ?? 3_000) + 500;
  // Set when the wait ran out: the last attempt's failure, or that nothing answered at all.
  let timeoutCause: Text | undefined;
  try {
    await Promise.race([
      client.connect(),
      new Promise((_, reject) =>
        setTimeout(() => {
          timeoutCause = lastError ? lastCause : t("coordination.noAnswer", { ms: timeoutMs });
          reject(new Error(english(timeoutCause)));
        }, timeoutMs).unref(),
      ),
    ]);
  } catch (error) {
    client.destroy();
    const why: Text = timeoutCause ?? ((error as Error).message ? errorCause(error) : lastCause);
    throw new CoordinationError("unreachable", t("coordination.unreachable", { url: shown, cause: why }), {
      cause: error,
    });
  }
  connected = true;
  const version = serverVersion(await client.info("server"));
  const major = Number(version?.split(".")[0]);
  if (!Number.isFinite(major) || major < MIN_REDIS_MAJOR) {
    client.destroy();
    throw new CoordinationError(
      "version",
      version === undefined
        ? t("coordination.versionUnknown", { url: shown, min: String(MIN_REDIS_MAJOR) })
        : t("coordination.version", { url: shown, version, min: String(MIN_REDIS_MAJOR) }),
    );
  }
  return client;
}

/** Round trips made through a counted client (see `countRoundTrips`). */
export interface RoundTrips {
  count: number;
}

/** Client members that are not commands: calling them sends nothing to Redis. */
const NOT_COMMANDS = new Set([
  "on",
  "once",
  "off",
  "removeListener",
  "emit",
  "connect",
  "destroy",
  "close",
  "duplicate",
]);

/**
 * `client` as seen by the event path, counting every round trip it makes into `trips`: a command or a
 * script is one, and a `MULTI … EXEC` batch is one (node-redis sends it in one write and waits once).
 * Lease renewals go through the uncounted client, so the count is what handling events costs.
 */
export function countRoundTrips(client: RedisClient, trips: RoundTrips): RedisClient {
  return new Proxy(client, {
    get(target, property) {
      // Read on the client itself: its getters and methods may use private fields a proxy does not have.
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function" || typeof property !== "string" || NOT_COMMANDS.has(property))
        return typeof value === "function" ? value.bind(target) : value;
      if (property === "multi")
        return (...args: unknown[]) => {
          const batch = value.apply(target, args);
          const exec = batch.exec.bind(batch);
          batch.exec = (...execArgs: unknown[]) => {
            trips.count += 1;
            return exec(...execArgs);
          };
          return batch;
        };
      return (...args: unknown[]) => {
        trips.count += 1;
        return value.apply(target, args);
      };
    },
  });
}
