/**
 * The structured logger (pino). Secrets never reach a log line: fields named like tokens, secrets, API
 * keys, passwords or authorization headers are censored at any of the first three levels, and string
 * messages and error texts are scrubbed of bot-token shapes, bearer tokens and any secret value the
 * caller registered. Logs go to stderr by default, so stdout stays for replies and JSON.
 */
import pino from "pino";

/** skillgate's logger type. */
export type Logger = pino.Logger;

const SECRET_KEYS = [
  "token",
  "botToken",
  "bot_token",
  "accessToken",
  "access_token",
  "secret",
  "appSecret",
  "app_secret",
  "clientSecret",
  "client_secret",
  "apiKey",
  "api_key",
  "apikey",
  "password",
  "authorization",
  "Authorization",
  "encryptKey",
  "encrypt_key",
  "verificationToken",
  "verification_token",
  "cookie",
];

/** Field paths censored in every log object. */
export const REDACT_PATHS: string[] = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((key) => `*.${key}`),
  ...SECRET_KEYS.map((key) => `*.*.${key}`),
  "headers.authorization",
  "req.headers.authorization",
  "req.headers.cookie",
  'headers["x-telegram-bot-api-secret-token"]',
];

const CENSOR = "[redacted]";

/** Options of `createLogger`. */
export interface LoggerOptions {
  /** pino level; default `info`, or env `SKILLGATE_LOG_LEVEL` / `LOG_LEVEL`. */
  level?: string;
  /** Where lines go: a pino destination stream, or a file descriptor (default 2, stderr). */
  destination?: pino.DestinationStream | number;
  /** Secret values (tokens from .env) that must never appear in any message. */
  secrets?: string[];
  /** Base bindings (e.g. `{component: "gateway"}`). */
  base?: Record<string, unknown>;
}

/** Replaces token-shaped substrings and registered secret values with a censor mark. */
export function scrubText(text: string, secrets: readonly string[] = []): string {
  let out = text
    .replace(/\d{6,12}:[A-Za-z0-9_-]{30,}/g, CENSOR)
    .replace(/\b(Bearer|Bot)\s+[A-Za-z0-9._~+/=-]{16,}/gi, `$1 ${CENSOR}`);
  for (const secret of secrets) if (secret.length >= 6) out = out.split(secret).join(CENSOR);
  return out;
}

/** Keys of HTTP client errors (axios, fetch) that carry request headers and bodies: never logged from an error. */
const DROPPED_ERROR_KEYS = new Set(["config", "request", "response", "headers", "socket", "agent"]);
/** How deep `scrubDeep` looks into nested errors and objects. */
const SCRUB_DEPTH = 6;

/**
 * A copy of `value` safe to log: every string scrubbed, nested errors serialized (their message and
 * stack too, e.g. a fetch error whose URL holds a bot token), HTTP request/response objects dropped.
 */
export function scrubDeep(
  value: unknown,
  secrets: readonly string[],
  depth = 0,
  seen = new WeakSet<object>(),
): unknown {
  if (typeof value === "string") return scrubText(value, secrets);
  if (value === null || typeof value !== "object") return value;
  if (depth > SCRUB_DEPTH || seen.has(value)) return "[…]";
  seen.add(value);
  const isError = value instanceof Error;
  const plain = isError ? pino.stdSerializers.err(value) : value;
  if (Array.isArray(plain)) return plain.map((item) => scrubDeep(item, secrets, depth + 1, seen));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(plain)) {
    if (isError && DROPPED_ERROR_KEYS.has(key)) continue;
    out[key] = scrubDeep(item, secrets, depth + 1, seen);
  }
  return out;
}

/**
 * A log call's object with its top-level strings scrubbed and any error under another key than `err`
 * (which has its serializer) made safe; cheap enough for every log line.
 */
function scrubFields(value: unknown, secrets: readonly string[]): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value) || value instanceof Error) {
    return value instanceof Error ? scrubDeep(value, secrets) : value;
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === "string") out[key] = scrubText(item, secrets);
    else if (item instanceof Error && key !== "err") out[key] = scrubDeep(item, secrets);
    else out[key] = item;
  }
  return out;
}

/** Creates the logger. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const secrets = [...(options.secrets ?? [])];
  const destination = options.destination ?? 2;
  const stream =
    typeof destination === "number" ? pino.destination({ fd: destination, sync: true }) : destination;
  return pino(
    {
      level: options.level ?? process.env.SKILLGATE_LOG_LEVEL ?? process.env.LOG_LEVEL ?? "info",
      base: options.base ?? {},
      redact: { paths: REDACT_PATHS, censor: CENSOR },
      serializers: {
        err: (error: unknown) => scrubDeep(error, secrets),
      },
      hooks: {
        logMethod(args, method) {
          const cleaned = args.map((arg) =>
            typeof arg === "string" ? scrubText(arg, secrets) : scrubFields(arg, secrets),
          );
          method.apply(this, cleaned as Parameters<typeof method>);
        },
      },
    },
    stream,
  );
}

/** A logger that drops everything (tests, and commands run without a gateway). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
