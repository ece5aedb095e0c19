import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  createGuardedServer,
  LISTENER_LIMITS,
  readBodyLimited,
  refuseBody,
} from "../../src/core/http-guard.js";
import { healthReport } from "../../src/gateway/health.js";
import { encryptPayload } from "../emulators/lark.js";
import type { TelegramEmulator } from "../emulators/telegram.js";
import { bareFeishuWebhook } from "../support/harness/feishu.js";
import { slowRequest } from "../support/slow-request.js";
import { startWebhookAdapter, waitUntil } from "../telegram/helpers.js";

const TOKEN = "vtoken-listeners";
const ENCRYPT_KEY = "encrypt-key-listeners";
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("the listener guard", () => {
  async function guarded(limits: Partial<typeof LISTENER_LIMITS>): Promise<string> {
    const server = createGuardedServer(
      (req, res) => {
        void readBodyLimited(req, 1024 * 1024).then((body) => {
          if (typeof body === "string") return refuseBody(req, res, body, 1024 * 1024);
          res.end(`read ${body.length}`);
        });
      },
      [],
      { ...LISTENER_LIMITS, ...limits },
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  }

  it("a body that does not arrive in time is answered 408 and its connection closed", async () => {
    const url = await guarded({ bodyDeadlineMs: 200 });
    expect(await slowRequest(url, { "content-type": "application/json" })).toBe(408);
  });

  it("bodies held at once share one budget: past it, a request is answered 503 instead of held", async () => {
    const url = await guarded({ bodyBudgetBytes: 64 * 1024 });
    const pending = [1, 2].map(() => slowRequest(url, {}, "x".repeat(40 * 1024)));
    expect(
      await Promise.race([...pending, new Promise((resolve) => setTimeout(() => resolve("held"), 3_000))]),
    ).toBe(503);
  });

  it("connections from one address beyond the cap are closed as they arrive", async () => {
    const url = await guarded({ maxConnectionsPerAddress: 2, bodyDeadlineMs: 5_000 });
    const first = slowRequest(url, {});
    const second = slowRequest(url, {});
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await slowRequest(url, {})).toBe(0);
    void first;
    void second;
  });
});

/** The Feishu adapter alone by webhook, with these `gateway.feishu` settings. */
const feishuWebhook = (feishu: Record<string, unknown>) => bareFeishuWebhook(cleanups, { feishu });

async function post(url: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
  return { status: response.status, text: await response.text() };
}

describe("Feishu webhook: verify, then read; verify, then decrypt", () => {
  it('`{"encrypt":123}` is 400, not 500, with or without an encrypt key', async () => {
    const plain = await feishuWebhook({ verification_token: TOKEN });
    expect((await post(plain.url, JSON.stringify({ encrypt: 123, token: TOKEN }))).status).toBe(400);
    const encrypted = await feishuWebhook({ verification_token: TOKEN, encrypt_key: ENCRYPT_KEY });
    expect((await post(encrypted.url, JSON.stringify({ encrypt: 123, token: TOKEN }))).status).toBe(400);
  });

  it("an unsigned request is refused alike whether or not its ciphertext decrypts (no decrypt oracle)", async () => {
    const { url } = await feishuWebhook({ verification_token: TOKEN, encrypt_key: ENCRYPT_KEY });
    const garbage = await post(url, JSON.stringify({ encrypt: "bm90IGEgY2lwaGVydGV4dCBhdCBhbGw=" }));
    const decryptable = await post(
      url,
      JSON.stringify({
        encrypt: encryptPayload(JSON.stringify({ schema: "2.0", header: { token: TOKEN } }), ENCRYPT_KEY),
      }),
    );
    expect(garbage.status).toBe(401);
    expect(decryptable).toEqual(garbage);
  });

  it("signature headers that cannot pass are refused before a body that never ends is read", async () => {
    const { url } = await feishuWebhook({ verification_token: TOKEN, encrypt_key: ENCRYPT_KEY });
    const now = String(Math.floor(Date.now() / 1000));
    const signature = "a".repeat(64);
    const headers = (timestamp: string, sig = signature) => ({
      "x-lark-request-timestamp": timestamp,
      "x-lark-request-nonce": "n",
      "x-lark-signature": sig,
    });
    expect(await slowRequest(url, headers(String(Number(now) - 3600)))).toBe(401);
    expect(await slowRequest(url, headers(String(Number(now) + 3600)))).toBe(401);
    expect(await slowRequest(url, headers("abc"))).toBe(401);
    expect(await slowRequest(url, headers(now, "zz"))).toBe(401);
    expect(await slowRequest(url, { "x-lark-request-timestamp": now })).toBe(401);
  });
});

describe("Telegram webhook, one gateway: one failure is one failure", () => {
  const throwing = (emulator: TelegramEmulator) =>
    emulator.pushUpdate({
      message: {
        message_id: 900,
        from: { id: 5, is_bot: false, first_name: "M" },
        chat: { id: 5, type: "private", first_name: "M" },
        date: Math.floor(Date.now() / 1000),
        text: 12345,
      },
    });

  it("an update whose handling throws, then a good one: the good one is handled", async () => {
    const { emulator, adapter, waitInbox } = await startWebhookAdapter(cleanups);
    const bad = throwing(emulator);
    await waitUntil(() =>
      emulator.webhookDeliveries.some((delivery) => delivery.update_id === bad.update_id),
    );
    emulator.userSays({ userId: 5, text: "/curator status" });
    const [message] = await waitInbox(1);
    expect(message?.command?.name).toBe("curator");
    emulator.userSays({ userId: 5, text: "/skills" });
    await waitInbox(2);
    expect(adapter.health().state).toBe("connected");
  });

  it("/healthz says degraded while updates keep failing", async () => {
    const { emulator, adapter } = await startWebhookAdapter(cleanups);
    for (let index = 0; index < 3; index += 1) throwing(emulator);
    await waitUntil(() => emulator.webhookDeliveries.length >= 3);
    expect(adapter.health().state).toBe("degraded");
    const report = healthReport([adapter]);
    expect(report.status).toBe("degraded");
  });
});
