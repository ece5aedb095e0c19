/**
 * Finding 8: `serve` with an unreachable Telegram API says what is wrong. The first connection makes a
 * bounded number of attempts, each failure logged with its cause; `/healthz` is up from the start and
 * reports telegram as connecting, then failed, with the reason; and the other platform answers all along.
 */
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createMockAdapter } from "../../adapters/mock/index.js";
import { createTelegramAdapter } from "../../adapters/telegram/index.js";
import { parseConfig } from "../../src/config/config.js";
import { createGateway } from "../../src/gateway/gateway.js";
import { makeHome, removeHome } from "../gateway/helpers.js";
import { capturingLogger, waitUntil } from "../telegram/helpers.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A port nothing listens on (bound, then closed). */
async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("finding 8: start-up with an unreachable Telegram API", () => {
  it("logs each failure with its cause, /healthz reports connecting then failed, discord keeps working", async () => {
    const home = await makeHome();
    cleanups.push(() => removeHome(home));
    const port = await deadPort();
    const config = parseConfig({
      gateway: {
        admins: ["discord:admin"],
        health: { port: 0 },
        telegram: { enabled: true, api_root: `http://127.0.0.1:${port}` },
      },
    });
    const { logger, lines } = capturingLogger();
    const telegram = createTelegramAdapter({
      config,
      home,
      secret: (name) => (name === "TELEGRAM_BOT_TOKEN" ? "123:abc" : undefined),
      logger,
      tuning: { startAttempts: 3, networkBaseMs: 300, maxBackoffMs: 600, connectTimeoutMs: 2000 },
    });
    const discord = createMockAdapter({ platform: "discord" });
    const gateway = createGateway({ home, config, adapters: [telegram, discord], logger });
    cleanups.push(() => gateway.stop());
    const started = gateway.start();
    await waitUntil(() => gateway.healthUrl !== undefined, 5000);
    await waitUntil(() => telegram.health().detail?.includes("attempt 1 of 3") === true, 5000);
    const early = await fetch(gateway.healthUrl as string);
    expect(early.status).toBe(503);
    const report = (await early.json()) as { adapters: Record<string, { state: string; detail?: string }> };
    expect(report.adapters.telegram?.state).toBe("starting");
    expect(report.adapters.telegram?.detail).toMatch(/connecting: attempt 1 of 3 failed: .*ECONNREFUSED/);
    // The other platform answers while Telegram is still trying.
    await discord.shouldReply("/whoami", "discord", { user: "admin" });
    await started;
    expect(telegram.health().state).toBe("failed");
    expect(telegram.health().detail).toMatch(/Cannot reach the Telegram Bot API/);
    const late = (await (await fetch(gateway.healthUrl as string)).json()) as typeof report;
    expect(late.adapters.telegram?.state).toBe("failed");
    const failures = lines.filter((line) =>
      /telegram: could not connect \(attempt \d of 3\)/.test(String(line.msg)),
    );
    expect(failures).toHaveLength(3);
    for (const line of failures) expect(String(line.msg)).toMatch(/ECONNREFUSED|fetch failed|connect/i);
  }, 20_000);
});
