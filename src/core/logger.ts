/**
 * The structured logger (pino). Secrets never reach a log line: fields named like tokens, secrets, API
 * keys, passwords or authorization headers are censored at any of the first three levels, and string
 * messages and error texts are scrubbed of bot-token shapes, bearer tokens and any secret value the
 * caller registered. Logs go to stderr by default, so stdout stays for replies and JSON: one JSON
 * document a line for a supervisor or a log collector, or (`format: "human"`, for a person at a
 * terminal) one short line with the time, the level, the message with its fix and the error's text.
 */
import { writeSync } from "node:fs";
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
  /** `json` (default): pino's JSON lines. `human`: short readable lines (see `humanLogLine`). */
  format?: LogFormat;
  /** ANSI colour for the `human` format. */
  color?: boolean;
}

/** How log lines are written. */
export type LogFormat = "json" | "human";

/**
 * The format for a process whose log goes to `stderr`: `SKILLGATE_LOG_FORMAT` (`json` or `human`) when
 * set, else readable lines for a terminal and JSON for anything else (a pipe, a file, a supervisor).
 */
export function logFormatFor(stderr: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): LogFormat {
  const asked = env.SKILLGATE_LOG_FORMAT?.trim().toLowerCase();
  if (asked === "json" || asked === "human") return asked;
  return stderr.isTTY ? "human" : "json";
}

const LEVEL_NAMES: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO",
  40: "WARN",
  50: "ERROR",
  60: "FATAL",
};
const LEVEL_COLORS: Record<number, string> = { 10: "90", 20: "90", 30: "36", 40: "33", 50: "31", 60: "31" };
/** Fields of a pino line that the readable form shows in its own way or not at all. */
const SHOWN_APART = new Set(["level", "time", "msg", "err", "pid", "hostname", "v"]);

/** A field value as `key=value` text, or undefined for values too big for one short line. */
function fieldText(key: string, value: unknown): string | undefined {
  if (value === null || ["string", "number", "boolean"].includes(typeof value)) {
    const text = String(value);
    return text.length <= 80 ? `${key}=${/\s/.test(text) ? JSON.stringify(text) : text}` : undefined;
  }
  return undefined;
}

/**
 * One pino JSON line as a person reads it: `12:04:05 WARN  gateway: … (the fix) — the error's message
 * key=value…`. The stack is shown only when `stack` is set (debug logging): the message says what to do.
 */
export function humanLogLine(line: string, options: { color?: boolean; stack?: boolean } = {}): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith("\n") ? line : `${line}\n`;
  }
  const level = Number(record.level);
  const name = (LEVEL_NAMES[level] ?? String(record.level)).padEnd(5);
  const time = typeof record.time === "number" ? new Date(record.time).toTimeString().slice(0, 8) : "";
  const err = record.err as { message?: unknown; stack?: unknown } | undefined;
  const message = String(record.msg ?? "");
  const reason =
    typeof err?.message === "string" && !message.includes(err.message) ? ` — ${err.message}` : "";
  const fields = Object.entries(record)
    .filter(([key]) => !SHOWN_APART.has(key))
    .map(([key, value]) => fieldText(key, value))
    .filter((text): text is string => text !== undefined);
  const paint = (code: string, text: string) => (options.color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const head = `${paint("90", time)} ${paint(LEVEL_COLORS[level] ?? "0", name)} ${message}${reason}`;
  const tail = fields.length > 0 ? ` ${paint("90", fields.join(" "))}` : "";
  const stack =
    options.stack && typeof err?.stack === "string"
      ? `\n${err.stack
          .split("\n")
          .slice(1)
          .map((frame) => `    ${frame.trim()}`)
          .join("\n")}`
      : "";
  return `${head}${tail}${stack}\n`;
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
  const level = options.level ?? process.env.SKILLGATE_LOG_LEVEL ?? process.env.LOG_LEVEL ?? "info";
  let stream: pino.DestinationStream;
  if (options.format === "human") {
    const human = { color: options.color, stack: level === "debug" || level === "trace" };
    const write =
      typeof destination === "number"
        ? (text: string) => writeSync(destination, text)
        : (text: string) => destination.write(text);
    stream = { write: (line: string) => void write(humanLogLine(line, human)) };
  } else {
    stream =
      typeof destination === "number" ? pino.destination({ fd: destination, sync: true }) : destination;
  }
  return pino(
    {
      level,
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
