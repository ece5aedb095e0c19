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
        err: (error: unknown) => {
          const serialized = pino.stdSerializers.err(error as Error);
          return {
            ...serialized,
            message: scrubText(String(serialized.message ?? ""), secrets),
            stack: scrubText(String(serialized.stack ?? ""), secrets),
          };
        },
      },
      hooks: {
        logMethod(args, method) {
          const cleaned = args.map((arg) => (typeof arg === "string" ? scrubText(arg, secrets) : arg));
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
