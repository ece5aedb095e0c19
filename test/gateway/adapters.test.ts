import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { ConsoleAdapter } from "../../adapters/console/index.js";
import { configuredPlatforms, createAdapters } from "../../adapters/index.js";
import { parseConfig } from "../../src/config/config.js";
import { createLogger, scrubText, silentLogger } from "../../src/core/logger.js";
import type { InboundMessage } from "../../src/core/message.js";
import { textReply } from "../../src/core/reply.js";
import { freshHomeEachTest, gatewayDoc, startGateway, writeConfig } from "./helpers.js";

let home: string;
freshHomeEachTest((made) => {
  home = made;
});

describe("createAdapters", () => {
  it("starts a platform only when enabled and every secret is present", () => {
    const config = parseConfig({ gateway: { discord: { enabled: false } } });
    const secrets: Record<string, string> = {
      TELEGRAM_BOT_TOKEN: "t",
      FEISHU_APP_ID: "id",
      DISCORD_BOT_TOKEN: "d",
    };
    expect(configuredPlatforms({ config, secret: (name) => secrets[name] })).toEqual(["telegram"]);
    secrets.FEISHU_APP_SECRET = "s";
    expect(configuredPlatforms({ config, secret: (name) => secrets[name] })).toEqual(["telegram", "feishu"]);
  });
  it("falls back to the terminal chat when nothing is configured, or with --console", async () => {
    const config = parseConfig({});
    const none = await createAdapters({ config, home, secret: () => undefined, logger: silentLogger() });
    expect(none.map((adapter) => adapter.platform)).toEqual(["console"]);
    const forced = await createAdapters({
      config,
      home,
      secret: () => "x",
      logger: silentLogger(),
      console: true,
    });
    expect(forced.map((adapter) => adapter.platform)).toEqual(["console"]);
  });
});

describe("console adapter", () => {
  it("turns lines into messages from the local owner and prints replies; calls onEnd after the last line", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = "";
    output.on("data", (chunk) => {
      printed += chunk;
    });
    let ended = false;
    const adapter = new ConsoleAdapter({ input, output, onEnd: () => (ended = true) });
    const received: InboundMessage[] = [];
    await adapter.start(async (message) => {
      received.push(message);
    });
    expect(adapter.health().state).toBe("connected");
    input.end("/help\n\n  /whoami  \n");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(received.map((message) => message.text)).toEqual(["/help", "/whoami"]);
    expect(received[0]).toMatchObject({
      platform: "console",
      chat: { kind: "dm", id: "local" },
      sender: { id: "local", isBot: false },
    });
    expect(received[0]?.eventId).not.toBe(received[1]?.eventId);
    expect(ended).toBe(true);
    await adapter.send({ chatId: "local" }, textReply("hello `there`"));
    expect(printed).toBe("hello `there`\n");
    await adapter.stop();
    expect(adapter.health().state).toBe("stopped");
  });

  it("runs commands end to end inside a gateway as the owner", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = "";
    output.on("data", (chunk) => {
      printed += chunk;
    });
    let gatewayStop: () => Promise<void> = async () => undefined;
    const ended = new Promise<void>((resolve) => {
      const adapter = new ConsoleAdapter({ input, output, onEnd: () => void gatewayStop().then(resolve) });
      void startGateway({ home, config, adapters: [adapter] }).then(({ gateway }) => {
        gatewayStop = () => gateway.stop();
        input.end("/curator pause\n/curator status\n");
      });
    });
    await ended;
    expect(printed).toContain("paused");
    expect(printed).toContain("PAUSED");
  });
});

describe("logger", () => {
  it("censors secret fields and token-shaped text", () => {
    const lines: string[] = [];
    const destination = { write: (line: string) => lines.push(line) };
    const logger = createLogger({ destination, secrets: ["super-secret-value"], level: "info" });
    logger.info(
      { token: "abc", config: { apiKey: "k1", nested: { authorization: "Bearer zzz" } }, user: "ok" },
      "started",
    );
    logger.info(
      "calling https://api.telegram.org/bot123456789:AAAbbbCCCdddEEEfffGGGhhhIIIjjjKKK/getMe with super-secret-value",
    );
    logger.error({ err: new Error("failed for super-secret-value") }, "boom");
    const all = lines.join("\n");
    expect(all).not.toContain('abc"');
    expect(all).not.toContain("k1");
    expect(all).not.toContain("Bearer zzz");
    expect(all).not.toContain("AAAbbbCCC");
    expect(all).not.toContain("super-secret-value");
    expect(all).toContain('"user":"ok"');
    expect(JSON.parse(lines[0] ?? "{}").token).toBe("[redacted]");
  });
  it("scrubs bearer tokens", () => {
    expect(scrubText("Authorization: Bearer abcdefghijklmnopqrstuvwxyz")).toBe(
      "Authorization: Bearer [redacted]",
    );
  });
});
