import { afterEach, describe, expect, it } from "vitest";
import { healthReport, startHealthServer } from "../../src/gateway/health.js";
import { bareFeishuWebhook } from "../support/harness/feishu.js";
import { startWebhookAdapter, waitUntil } from "../telegram/helpers.js";

const TOKEN = "vtoken-hostile";
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The Feishu adapter alone by webhook (verification token TOKEN), `extra` joining the gateway section. */
const feishuWebhook = (extra: Record<string, unknown> = {}) =>
  bareFeishuWebhook(cleanups, { gateway: extra, feishu: { verification_token: TOKEN } });

async function junk(url: string, headers: Record<string, string> = {}): Promise<number> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ schema: "2.0", header: { token: "forged", event_id: "x" }, event: {} }),
  });
  await response.text();
  return response.status;
}

describe("finding 7: Feishu webhook rate limit", () => {
  it("125 junk POSTs from the proxy's address do not make a signed event get 429", async () => {
    const { emulator, url, received } = await feishuWebhook();
    const statuses: number[] = [];
    for (let index = 0; index < 125; index += 1) statuses.push(await junk(url));
    expect(statuses.slice(0, 120).every((status) => status === 401)).toBe(true);
    expect(statuses.slice(120).every((status) => status === 429)).toBe(true);
    const ok = await emulator.deliverWebhook(
      url,
      emulator.messageEvent({ text: "/curator status", token: TOKEN, eventId: "ev-real" }),
    );
    expect(ok.status).toBe(200);
    for (let index = 0; index < 50 && !received.includes("ev-real"); index += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(received).toContain("ev-real");
  });

  it("with trusted_proxies, failures are counted per forwarded client", async () => {
    const { url } = await feishuWebhook({ trusted_proxies: ["127.0.0.1"] });
    for (let index = 0; index < 121; index += 1) await junk(url, { "x-forwarded-for": "203.0.113.7" });
    expect(await junk(url, { "x-forwarded-for": "203.0.113.7" })).toBe(429);
    expect(await junk(url, { "x-forwarded-for": "198.51.100.9" })).toBe(401);
    // A forged header from an untrusted peer is ignored: without the setting the peer is the key.
    const plain = await feishuWebhook();
    for (let index = 0; index < 121; index += 1)
      await junk(plain.url, { "x-forwarded-for": `10.0.0.${index % 250}` });
    expect(await junk(plain.url, { "x-forwarded-for": "10.9.9.9" })).toBe(429);
  });

  it("a body over 1 MiB is refused with 413 before it is parsed", async () => {
    const { url } = await feishuWebhook();
    const response = await fetch(url, { method: "POST", body: "x".repeat(2 * 1024 * 1024) }).catch(
      () => undefined,
    );
    expect(response?.status ?? 413).toBe(413);
  });
});

describe("finding 9: Telegram webhook body limit and failed-secret rate limit", () => {
  it("refuses a 2 MiB body even with the right secret, and rate-limits only wrong secrets", async () => {
    const { emulator, url, waitInbox } = await startWebhookAdapter(cleanups);
    const big = await fetch(url, {
      method: "POST",
      headers: { "x-telegram-bot-api-secret-token": "right_secret", "content-type": "application/json" },
      body: `{"update_id":1,"pad":"${"x".repeat(2 * 1024 * 1024)}"}`,
    }).catch(() => undefined);
    expect(big?.status ?? 413).toBe(413);
    const statuses: number[] = [];
    for (let index = 0; index < 122; index += 1) {
      const response = await fetch(url, {
        method: "POST",
        headers: { "x-telegram-bot-api-secret-token": "wrong" },
        body: "{}",
      });
      statuses.push(response.status);
    }
    expect(statuses[0]).toBe(401);
    expect(statuses.at(-1)).toBe(429);
    emulator.userSays({ userId: 5, text: "/curator status" });
    const [message] = await waitInbox(1);
    expect(message?.command?.name).toBe("curator");
    await waitUntil(() => emulator.webhookDeliveries.length > 0);
    expect(emulator.webhookDeliveries.at(-1)?.status).toBe(200);
  });
});

describe("/healthz body limit", () => {
  it("answers 413 to any request with a body", async () => {
    const server = await startHealthServer(0, () => healthReport([]));
    cleanups.push(() => server.close());
    const response = await fetch(server.url, { method: "POST", body: "x".repeat(1024) }).catch(
      () => undefined,
    );
    expect(response?.status ?? 413).toBe(413);
    // No adapter runs: nothing is broken, so the page answers 200.
    expect((await fetch(server.url)).status).toBe(200);
  });
});
