/**
 * The Lark SDK's logger, bridged to pino with secrets masked.
 */
import type * as lark from "@larksuiteoapi/node-sdk";
import type { Logger } from "../../src/core/logger.js";

/**
 * A Lark SDK logger that writes to pino. The SDK logs whole request configs (including the app
 * secret of a failed token request), so only messages, statuses and API codes are kept, and any
 * secret value left in them is masked.
 */
export function sdkLoggerFor(log: Logger, secrets: (string | undefined)[]): lark.Logger {
  const masked = secrets.filter((value): value is string => typeof value === "string" && value.length >= 4);
  const text = (args: unknown[]) => {
    let line = args.map(summarize).filter(Boolean).join(" ");
    for (const secret of masked) line = line.split(secret).join("[redacted]");
    return line;
  };
  return {
    error: (...args: unknown[]) => log.error({ sdk: "lark" }, text(args)),
    warn: (...args: unknown[]) => log.warn({ sdk: "lark" }, text(args)),
    info: (...args: unknown[]) => log.info({ sdk: "lark" }, text(args)),
    debug: (...args: unknown[]) => log.debug({ sdk: "lark" }, text(args)),
    trace: (...args: unknown[]) => log.trace({ sdk: "lark" }, text(args)),
  };
}

function summarize(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value instanceof Error) return value.message;
  if (Array.isArray(value)) return value.map(summarize).filter(Boolean).join(" ");
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    const response = record.response as
      | { status?: unknown; data?: { code?: unknown; msg?: unknown } }
      | undefined;
    const parts = [
      typeof record.message === "string" ? record.message : "",
      response?.status !== undefined ? `HTTP ${String(response.status)}` : "",
      record.code !== undefined ? `code ${String(record.code)}` : "",
      typeof record.msg === "string" ? record.msg : "",
      response?.data?.code !== undefined ? `code ${String(response.data.code)}` : "",
      typeof response?.data?.msg === "string" ? response.data.msg : "",
    ];
    return parts.filter(Boolean).join(", ");
  }
  return "";
}
