import { describe, expect, it } from "vitest";
import { createLogger, logFormatFor } from "../../src/core/logger.js";

function capture(secrets: string[]) {
  const lines: string[] = [];
  const logger = createLogger({
    destination: { write: (line: string) => lines.push(line) },
    secrets,
    level: "info",
  });
  return { logger, text: () => lines.join("\n") };
}

describe("logger keeps secrets out of nested errors", () => {
  it("scrubs a token in a wrapped fetch error's message and stack", () => {
    const { logger, text } = capture([]);
    const inner = new Error(
      "request to http://127.0.0.1:9/bot123456789:AAAbbbCCCdddEEEfffGGGhhhIIIjjjKKK/sendMessage failed",
    );
    const outer = Object.assign(new Error("Network request for 'sendMessage' failed!"), { error: inner });
    logger.error({ err: outer }, "send failed");
    expect(text()).toContain("send failed");
    expect(text()).not.toContain("AAAbbbCCC");
  });

  it("drops an HTTP client error's request config (Authorization header) and scrubs registered values", () => {
    const { logger, text } = capture(["t-g1044ghJ9KeyMaterial"]);
    const axiosLike = Object.assign(
      new Error("Request failed with status code 400 for t-g1044ghJ9KeyMaterial"),
      {
        isAxiosError: true,
        config: {
          headers: { Authorization: "Bearer t-g1044ghJ9KeyMaterial" },
          url: "/open-apis/im/v1/messages",
        },
        response: { status: 400, data: { code: 230002 } },
      },
    );
    logger.error({ err: axiosLike, chat: "oc_1" }, "reply failed");
    const printed = JSON.parse(text());
    expect(printed.chat).toBe("oc_1");
    expect(printed.err.message).toContain("status code 400");
    expect(printed.err.config).toBeUndefined();
    expect(text()).not.toContain("t-g1044ghJ9KeyMaterial");
  });

  it("keeps ordinary objects named config intact outside errors", () => {
    const { logger, text } = capture([]);
    logger.info({ config: { mode: "polling" } }, "telegram adapter");
    expect(JSON.parse(text()).config).toEqual({ mode: "polling" });
  });
});

describe("readable log lines for a terminal", () => {
  /** A human-format logger whose lines are collected in `lines`. */
  function humanLogger(options: { level: "info" | "debug"; secrets?: string[] }) {
    const lines: string[] = [];
    const logger = createLogger({
      destination: { write: (line: string) => lines.push(line) },
      format: "human",
      ...options,
    });
    return { lines, logger };
  }

  it("gives the level, the message with its fix and the error's text on one line, no stack or JSON", () => {
    const { lines, logger } = humanLogger({ level: "info", secrets: ["hunter2-secret"] });
    const clash = Object.assign(new Error("listen EADDRINUSE: address already in use 127.0.0.1:8788"), {
      code: "EADDRINUSE",
    });
    logger.error(
      { err: clash, port: 8788 },
      "gateway: the web console could not start (set gateway.console.port to a free port)",
    );
    logger.info({ token: "hunter2-secret", platform: "telegram" }, "telegram: connected with hunter2-secret");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^\d\d:\d\d:\d\d ERROR gateway: the web console could not start \(set gateway\.console\.port to a free port\) — listen EADDRINUSE: address already in use 127\.0\.0\.1:8788 port=8788\n$/,
    );
    expect(lines[0]).not.toContain("{");
    expect(lines[0]).not.toContain("    at ");
    expect(lines[1]).toMatch(
      / INFO {2}telegram: connected with \[redacted\] token=\[redacted\] platform=telegram\n$/,
    );
  });

  it("shows the stack only when logging at debug", () => {
    const { lines, logger } = humanLogger({ level: "debug" });
    logger.error({ err: new Error("boom") }, "gateway: command failed unexpectedly");
    expect(lines[0]).toMatch(/ERROR gateway: command failed unexpectedly — boom\n {4}at /);
  });

  it("is chosen for a terminal, JSON otherwise, and SKILLGATE_LOG_FORMAT decides when set", () => {
    expect(logFormatFor({ isTTY: true }, {})).toBe("human");
    expect(logFormatFor({ isTTY: false }, {})).toBe("json");
    expect(logFormatFor({}, {})).toBe("json");
    expect(logFormatFor({ isTTY: true }, { SKILLGATE_LOG_FORMAT: "json" })).toBe("json");
    expect(logFormatFor({ isTTY: false }, { SKILLGATE_LOG_FORMAT: "human" })).toBe("human");
  });
});
