/**
 * The Redis connection of a coordinated gateway (`gateway.coordination.redis_url`; Redis ≥ 7 or Valkey,
 * one primary). Commands fail at once while the connection is down (no offline queue: a coordination
 * decision on stale state is worse than none) and the client reconnects by itself. At start an
 * unreachable or too old server is a clear error naming the URL and the fix, never a silent fall-back.
 */
import type * as NodeRedis from "@redis/client";
import { CoordinationError, errorCause } from "../../core/errors.js";
import { english, type Text, t } from "../../core/i18n/messages.js";
import type { Logger } from "../../core/logger.js";
import { redactUrl } from "../../core/redact-url.js";
import { requireVendored } from "../../core/vendored.js";

/**
 * node-redis's client, from the build's single-file copy when there is one (see `src/core/vendored.ts`):
 * `@redis/client` alone, without the `redis` package's RedisBloom, JSON, Search and TimeSeries command
 * sets, which every client it made carried.
 */
const { createClient } = requireVendored<typeof NodeRedis>("@redis/client");

/**
 * Every command's deadline (ms). A connection that stops answering without closing (a silent partition,
 * a frozen server) fails each call after this long instead of hanging it: the lease then fences itself
 * on time and intake answers 503. Below the lease's fence interval minus a renewal period, so one
 * renewal that timed out still leaves time for another before the fence. node-redis's own command
 * `timeout` only bounds the wait to be *written*, so every call is also raced against this deadline
 * (`withDeadlines`).
 */
export const REDIS_COMMAND_TIMEOUT_MS = 1_200;

/**
 * How often an idle connection is pinged (ms): a healthy one is never silent for `socketTimeout`, NATs
 * keep it open, and a connection whose handshake never got an answer is closed and made again.
 */
export const REDIS_PING_INTERVAL_MS = 1_000;

/**
 * A client with the options every coordinated gateway uses (see the file's comment). node-redis: a
 * command's `timeout` rejects it (the reply, if it ever comes, is dropped); `socketTimeout` closes a
 * socket that neither sent nor received for that long and reconnects; `pingInterval` keeps that from
 * happening on a healthy idle connection; `commandsQueueMaxLength` bounds what piles up meanwhile.
 */
function newClient(url: string, connectTimeoutMs: number) {
  return createClient({
    url,
    disableOfflineQueue: true,
    commandsQueueMaxLength: 10_000,
    pingInterval: REDIS_PING_INTERVAL_MS,
    commandOptions: { timeout: REDIS_COMMAND_TIMEOUT_MS },
    socket: {
      connectTimeout: connectTimeoutMs,
      socketTimeout: REDIS_PING_INTERVAL_MS * 4,
      keepAlive: true,
      keepAliveInitialDelay: 5_000,
      // Reconnect quickly while running (the lease needs Redis back within seconds), never give up.
      reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 1_000),
    },
  });
}

/** The connected client. */
export type RedisClient = ReturnType<typeof newClient>;

/** The oldest Redis major version the coordination commands are written for. */
export const MIN_REDIS_MAJOR = 7;

export { redactUrl };

/** Options of `connectRedis`. */
export interface ConnectOptions {
  logger?: Logger;
  /** How long the first connection may take (ms). */
  connectTimeoutMs?: number;
  /**
   * Return the client at once and let it connect in the background (retrying for ever); the caller
   * checks the server with `checkServer` once it answers.
   */
  background?: boolean;
  /** The home's key prefix, for the ACL check of key patterns (default `skillgate:`). */
  keyPrefix?: string;
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
  let client: RedisClient;
  try {
    client = withDeadlines(newClient(url, options.connectTimeoutMs ?? 3_000), REDIS_COMMAND_TIMEOUT_MS);
  } catch {
    // The parser's error carries the URL itself: never shown.
    throw new CoordinationError(
      "unreachable",
      t("coordination.unreachable", { url: shown, cause: t("coordination.badUrl") }),
    );
  }
  let connected = options.background === true;
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
  if (options.background) {
    client.connect().catch(() => undefined);
    return client;
  }
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
  try {
    for (const warning of await checkServer(client, url, options.keyPrefix))
      options.logger?.warn({ redis: shown }, `coordination: ${english(warning.text)}`);
  } catch (error) {
    client.destroy();
    throw error;
  }
  return client;
}

/**
 * Checks the server behind `client` before a replica relies on it. Throws `CoordinationError`:
 * `version` for a server older than Redis 7; `unsafe` for what breaks "applied once" whatever skillgate
 * does — an eviction policy other than `noeviction` (dedupe marks, effect records and the lease itself
 * could be evicted) or an ACL user that may not run the commands and scripts coordination uses. Returns
 * the warnings a replica logs at start and `doctor` shows: what a restart would lose (see
 * `persistenceWarnings`), and a user that may not watch the leader's connection (a crashed leader is
 * then replaced only when its lease lapses).
 */
export async function checkServer(
  client: RedisClient,
  url: string,
  keyPrefix = "skillgate:",
): Promise<ServerWarning[]> {
  const shown = redactUrl(url);
  const version = serverVersion(await client.info("server"));
  const major = Number(version?.split(".")[0]);
  if (!Number.isFinite(major) || major < MIN_REDIS_MAJOR)
    throw new CoordinationError(
      "version",
      version === undefined
        ? t("coordination.versionUnknown", { url: shown, min: String(MIN_REDIS_MAJOR) })
        : t("coordination.version", { url: shown, version, min: String(MIN_REDIS_MAJOR) }),
    );
  const policy = infoField(await client.info("memory"), "maxmemory_policy");
  // Valkey and Redis both report it; a server that hides it is taken at its word (noeviction default).
  if (policy !== undefined && policy !== "noeviction")
    throw new CoordinationError("unsafe", t("coordination.eviction", { url: shown, policy }));
  const denied = await deniedCommands(client, keyPrefix, NEEDED_COMMANDS);
  if (denied.length > 0)
    throw new CoordinationError("unsafe", t("coordination.acl", { url: shown, commands: denied.join(", ") }));
  const warnings = await persistenceWarnings(client, shown);
  const unwatched = await deniedCommands(client, keyPrefix, LEADER_WATCH_COMMANDS);
  if (unwatched.length > 0)
    warnings.push({
      text: t("coordination.leaderWatch", { url: shown, commands: unwatched.join(", ") }),
      fix: t("doctor.redis.leaderWatch.fix"),
    });
  return warnings;
}

/** A warning about the server: what it means, and what to do about it. */
export interface ServerWarning {
  text: Text;
  fix: Text;
}

/** A field of an `INFO` section (`name:value` lines). */
function infoField(info: string, name: string): string | undefined {
  return new RegExp(`^${name}:(\\S*)`, "m").exec(info)?.[1];
}

/**
 * Every command coordination sends, with arguments shaped like its own (keys under the home's prefix),
 * so an ACL that limits keys or subcommands is judged as it will be.
 */
const NEEDED_COMMANDS: string[][] = [
  ["GET", "k"],
  ["SET", "k", "v", "PX", "1000"],
  ["DEL", "k"],
  ["EXISTS", "k"],
  ["MGET", "k"],
  ["INCR", "k"],
  ["PEXPIRE", "k", "1000"],
  ["PTTL", "k"],
  ["RPUSH", "k", "v"],
  ["LRANGE", "k", "0", "-1"],
  ["LTRIM", "k", "0", "-1"],
  ["XADD", "k", "*", "m", "v"],
  ["XLEN", "k"],
  ["XACK", "k", "g", "0-1"],
  ["XDEL", "k", "0-1"],
  ["XGROUP", "CREATE", "k", "g", "0", "MKSTREAM"],
  ["XGROUP", "DELCONSUMER", "k", "g", "c"],
  ["XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "k", ">"],
  ["XAUTOCLAIM", "k", "g", "c", "0", "0-0"],
  ["XINFO", "CONSUMERS", "k", "g"],
  ["XPENDING", "k", "g"],
  ["MULTI"],
  ["EXEC"],
  ["INFO", "memory"],
];

/**
 * What a standby runs to see that a crashed leader's connection is gone, and the leader to record it
 * (see `lease.ts`); without them the lease passes on only when it lapses.
 */
const LEADER_WATCH_COMMANDS: string[][] = [
  ["CLIENT", "ID"],
  ["CLIENT", "LIST"],
  ["INFO", "server"],
];

// Returns the commands (by index into ARGV's JSON list) this connection's user may not run; every key
// argument `k` becomes KEYS[1]. `redis.acl_check_cmd` (Redis ≥ 7) judges without running anything.
const ACL_PROBE = `
local denied = {}
for index, command in ipairs(cjson.decode(ARGV[1])) do
  for position, value in ipairs(command) do
    if value == 'k' then command[position] = KEYS[1] end
  end
  local ok, allowed = pcall(redis.acl_check_cmd, unpack(command))
  if not ok or not allowed then table.insert(denied, index) end
end
return denied`;

/** Which of `commands` this connection's ACL user may not run (EVAL itself included). */
async function deniedCommands(
  client: RedisClient,
  keyPrefix: string,
  commands: string[][],
): Promise<string[]> {
  const name = (command: string[]) =>
    ["XGROUP", "XINFO", "INFO", "CLIENT"].includes(command[0] ?? "")
      ? command.slice(0, 2).join(" ")
      : command[0];
  try {
    const denied = (await client.eval(ACL_PROBE, {
      keys: [`${keyPrefix}acl-probe`],
      arguments: [JSON.stringify(commands)],
    })) as number[];
    return denied.map((index) => name(commands[index - 1] ?? []) ?? "?");
  } catch (error) {
    // Scripts themselves are refused: the inbox, the lease and the stores all run scripts.
    if (/NOPERM/i.test(String((error as Error).message))) return ["EVAL"];
    throw error;
  }
}

/**
 * What a restart of this Redis would lose, as warnings: none with AOF on; with RDB snapshots only, what
 * came since the last one; with neither, everything. Events the replicas acknowledged to a platform and
 * no leader answered yet live only there. A replica (`connected_slaves`) that a failover promotes keeps
 * them, so with one the warning is milder.
 */
async function persistenceWarnings(client: RedisClient, shown: string): Promise<ServerWarning[]> {
  const persistence = await client.info("persistence");
  if (infoField(persistence, "aof_enabled") === "1") return [];
  const fix = t("doctor.redis.persistence.fix");
  const replicas = Number(infoField(await client.info("replication"), "connected_slaves") ?? 0);
  if (replicas > 0) return [{ text: t("coordination.persistence.replicaOnly", { url: shown }), fix }];
  // The snapshot schedule is in CONFIG, which managed servers often refuse: unknown counts as none.
  const save = await client
    .configGet("save")
    .then((reply) => String((reply as Record<string, string>).save ?? ""))
    .catch(() => "");
  return [
    {
      text: save.trim()
        ? t("coordination.persistence.rdbOnly", { url: shown })
        : t("coordination.persistence.none", { url: shown }),
      fix,
    },
  ];
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
  "withCommandOptions",
  "ref",
  "unref",
]);

/** `promise`, or a rejection once `ms` passed without it settling (the call itself is left behind). */
export function withinDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/**
 * `client` with `around` wrapped about every command and script it runs, and about a `MULTI … EXEC`
 * batch's one `exec`. Other members (connection state, `duplicate`, events) pass through unchanged,
 * read on the client itself: its getters and methods may use private fields a proxy does not have.
 */
function aroundEveryCall(client: RedisClient, around: (call: () => unknown) => unknown): RedisClient {
  return new Proxy(client, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function" || typeof property !== "string" || NOT_COMMANDS.has(property))
        return typeof value === "function" ? value.bind(target) : value;
      if (property === "multi")
        return (...args: unknown[]) => {
          const batch = value.apply(target, args);
          const exec = batch.exec.bind(batch);
          batch.exec = (...execArgs: unknown[]) => around(() => exec(...execArgs));
          return batch;
        };
      return (...args: unknown[]) => around(() => value.apply(target, args));
    },
  });
}

/**
 * `client` with every command and script raced against `ms` (see `REDIS_COMMAND_TIMEOUT_MS`); a
 * `MULTI … EXEC` batch is one call. A duplicate is a plain client: its user sets its own deadlines.
 */
export function withDeadlines(client: RedisClient, ms: number): RedisClient {
  return aroundEveryCall(client, (call) => {
    const result = call();
    return result instanceof Promise ? withinDeadline(result, ms) : result;
  });
}

/**
 * `client` as seen by the event path, counting every round trip it makes into `trips`: a command or a
 * script is one, and a `MULTI … EXEC` batch is one (node-redis sends it in one write and waits once).
 * Lease renewals go through the uncounted client, so the count is what handling events costs.
 */
export function countRoundTrips(client: RedisClient, trips: RoundTrips): RedisClient {
  return aroundEveryCall(client, (call) => {
    trips.count += 1;
    return call();
  });
}
