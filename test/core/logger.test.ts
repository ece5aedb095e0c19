import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/core/logger.js";

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
