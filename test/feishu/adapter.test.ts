import { readFileSync } from "node:fs";
import { Writable } from "node:stream";
import * as lark from "@larksuiteoapi/node-sdk";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFeishuAdapter, type FeishuAdapter, resolveDomain } from "../../adapters/feishu/index.js";
import { verifyWebhook } from "../../adapters/feishu/webhook.js";
import { parseConfig } from "../../src/config/config.js";
import type { InboundMessage } from "../../src/core/message.js";
import { textReply } from "../../src/core/reply.js";
import { LarkEmulator } from "../emulators/lark.js";

const TOKEN = "vtoken-test";
const ENCRYPT_KEY = "encrypt-key-test";

function captureLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: pino({ level: "debug" }, stream), lines };
}

interface Harness {
  emulator: LarkEmulator;
  adapter: FeishuAdapter;
  received: InboundMessage[];
  lines: string[];
}

async function boot(
  feishu: Record<string, unknown>,
  opts: { sink?: (m: InboundMessage) => Promise<void>; appSecret?: string } = {},
): Promise<Harness> {
  const emulator = new LarkEmulator();
  const domain = await emulator.listen();
  const config = parseConfig({ gateway: { feishu: { domain, ...feishu } } });
  const { logger, lines } = captureLogger();
  const secrets: Record<string, string> = {
    FEISHU_APP_ID: emulator.appId,
    FEISHU_APP_SECRET: opts.appSecret ?? emulator.appSecret,
  };
  const adapter = createFeishuAdapter({
    config,
    home: "/nonexistent",
    secret: (name) => secrets[name],
    logger,
  });
  const received: InboundMessage[] = [];
  const harness = { emulator, adapter, received, lines };
  running.push(harness);
  await adapter.start(opts.sink ?? (async (message) => void received.push(message)));
  return harness;
}

const running: Harness[] = [];

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

afterEach(async () => {
  for (const { adapter, emulator } of running.splice(0)) {
    await adapter.stop();
    await emulator.close();
  }
});

describe("feishu adapter over the long connection", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await boot({ mode: "websocket" });
  });

  it("connects, learns the bot's open_id and delivers a p2p command", async () => {
    expect(h.adapter.botOpenId).toBe(h.emulator.botOpenId);
    expect(h.adapter.health().state).toBe("connected");
    const event = h.emulator.messageEvent({ text: "/curator status", eventId: "ev-ws-1" });
    expect(await h.emulator.pushWsEvent(event)).toEqual({ code: 200 });
    await until(() => h.received.length === 1, "the message");
    expect(h.received[0]).toMatchObject({
      eventId: "ev-ws-1",
      chat: { kind: "dm", id: "oc_p2p_alice" },
      command: { name: "curator", args: ["status"] },
    });
  });

  it("acks and ignores a group message without a mention; answers one with @Bot/cmd", async () => {
    await h.emulator.pushWsEvent(h.emulator.messageEvent({ chatType: "group", text: "/curator status" }));
    await h.emulator.pushWsEvent(
      h.emulator.messageEvent({
        chatType: "group",
        text: "{bot}/curator status",
        mentionBot: true,
        eventId: "ev-g",
      }),
    );
    await until(() => h.received.length === 1, "the mentioned message");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(h.received.map((m) => m.eventId)).toEqual(["ev-g"]);
    expect(h.received[0]?.command?.name).toBe("curator");
  });

  it("drops a redelivered event id and acks it", async () => {
    const event = h.emulator.messageEvent({ text: "/help", eventId: "ev-dup" });
    await h.emulator.pushWsEvent(event);
    expect(await h.emulator.pushWsEvent(event)).toEqual({ code: 200 });
    await until(() => h.received.length >= 1, "the first delivery");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(h.received).toHaveLength(1);
  });

  it("acks at once even while the gateway's queue has not accepted the message", async () => {
    await h.adapter.stop();
    let accepted = 0;
    const slow = await boot(
      { mode: "websocket" },
      {
        sink: () =>
          new Promise(() => {
            accepted += 1;
          }),
      },
    );
    expect(await slow.emulator.pushWsEvent(slow.emulator.messageEvent({ text: "/help" }))).toEqual({
      code: 200,
    });
    expect(accepted).toBe(1);
  });

  it("replies to the triggering message as a post, chunked, and falls back to text when the post is refused", async () => {
    await h.emulator.pushWsEvent(h.emulator.messageEvent({ text: "/x", messageId: "om_trigger" }));
    await until(() => h.received.length === 1, "the message");
    const inbound = h.received[0]!;
    const long = `${Array.from({ length: 1300 }, (_, i) => `word${i}`).join(" ")} end`;
    h.emulator.rejectPosts(1);
    await h.adapter.send({ chatId: inbound.chat.id }, textReply(long), inbound);
    const sends = h.emulator.sends;
    expect(sends.length).toBeGreaterThanOrEqual(2);
    expect(sends[0]).toMatchObject({ kind: "reply", target: "om_trigger", msgType: "text" });
    expect(
      sends.slice(1).every((s) => s.kind === "create" && s.msgType === "post" && s.chatId === "oc_p2p_alice"),
    ).toBe(true);
    expect(sends.map((s) => s.text).join("")).toBe(long);
  });

  it("posts to the chat when the reply target was withdrawn, and to a chat by id for maintenance", async () => {
    await h.emulator.pushWsEvent(h.emulator.messageEvent({ text: "/x", messageId: "om_gone" }));
    await until(() => h.received.length === 1, "the message");
    h.emulator.withdraw("om_gone");
    await h.adapter.send({ chatId: "oc_p2p_alice" }, textReply("still here"), h.received[0]);
    await h.adapter.send({ chatId: "oc_home" }, textReply("maintenance"));
    expect(h.emulator.sends.map((s) => [s.kind, s.chatId, s.receiveIdType, s.text])).toEqual([
      ["create", "oc_p2p_alice", "chat_id", "still here"],
      ["create", "oc_home", "chat_id", "maintenance"],
    ]);
  });

  it("reports stopped after stop and delivers nothing more", async () => {
    await h.adapter.stop();
    expect(h.adapter.health().state).toBe("stopped");
    await until(() => h.emulator.wsConnections === 0, "the socket to close");
  });
});

describe("feishu adapter in webhook mode", () => {
  it("checks the verification token itself: wrong token 401 and not delivered, right token delivered", async () => {
    const h = await boot({
      mode: "webhook",
      verification_token: TOKEN,
      webhook: { port: 0, path: "/feishu/events" },
    });
    const url = h.adapter.webhookUrl!;
    const bad = await h.emulator.deliverWebhook(
      url,
      h.emulator.messageEvent({ text: "/curator status", token: "WRONG" }),
    );
    expect(bad.status).toBe(401);
    const good = await h.emulator.deliverWebhook(
      url,
      h.emulator.messageEvent({ text: "/curator status", token: TOKEN, eventId: "ev-ok" }),
    );
    expect(good.status).toBe(200);
    await until(() => h.received.length === 1, "the message");
    expect(h.received[0]?.eventId).toBe("ev-ok");
    expect((await fetch(`${url}x`, { method: "POST", body: "{}" })).status).toBe(404);
  });

  it("answers url_verification only with the right token", async () => {
    const h = await boot({ mode: "webhook", verification_token: TOKEN, webhook: { port: 0, path: "/hook" } });
    const ok = await h.emulator.urlVerification(h.adapter.webhookUrl!, { token: TOKEN, challenge: "abc123" });
    expect(ok).toEqual({ status: 200, body: JSON.stringify({ challenge: "abc123" }) });
    const bad = await h.emulator.urlVerification(h.adapter.webhookUrl!, {
      token: "nope",
      challenge: "abc123",
    });
    expect(bad.status).toBe(401);
    expect(bad.body).not.toContain("abc123");
  });

  it("accepts encrypted and signed events, rejects a bad signature, answers an encrypted challenge", async () => {
    const h = await boot({
      mode: "webhook",
      verification_token: TOKEN,
      encrypt_key: ENCRYPT_KEY,
      webhook: { port: 0, path: "/hook" },
    });
    const url = h.adapter.webhookUrl!;
    const forged = await h.emulator.deliverWebhook(
      url,
      h.emulator.messageEvent({ text: "/x", token: TOKEN, eventId: "ev-forged" }),
      { encryptKey: ENCRYPT_KEY, badSignature: true },
    );
    expect(forged.status).toBe(401);
    const plainWhenEncrypted = await h.emulator.deliverWebhook(
      url,
      h.emulator.messageEvent({ text: "/x", token: TOKEN, eventId: "ev-plain" }),
    );
    expect(plainWhenEncrypted.status).toBe(401);
    const ok = await h.emulator.deliverWebhook(
      url,
      h.emulator.messageEvent({ text: "/curator status", token: TOKEN, eventId: "ev-enc" }),
      { encryptKey: ENCRYPT_KEY },
    );
    expect(ok.status).toBe(200);
    const challenge = await h.emulator.urlVerification(url, {
      token: TOKEN,
      challenge: "enc-ch",
      encryptKey: ENCRYPT_KEY,
    });
    expect(challenge.body).toBe(JSON.stringify({ challenge: "enc-ch" }));
    await until(() => h.received.length === 1, "the encrypted message");
    expect(h.received.map((m) => m.eventId)).toEqual(["ev-enc"]);
  });

  it("refuses to start without a verification token or encrypt key", async () => {
    await expect(boot({ mode: "webhook", webhook: { port: 0 } })).rejects.toThrow(/verification_token/);
  });
});

describe("feishu adapter setup", () => {
  it("maps domain names to the SDK's domains and keeps URLs verbatim", () => {
    expect(resolveDomain("lark")).toBe(lark.Domain.Lark);
    expect(resolveDomain("feishu")).toBe(lark.Domain.Feishu);
    expect(resolveDomain(undefined)).toBe(lark.Domain.Feishu);
    expect(resolveDomain("http://127.0.0.1:9/")).toBe("http://127.0.0.1:9");
  });

  it("fails clearly with wrong credentials and never logs the secret", async () => {
    const secret = "super-secret-value-123";
    const error = await boot({ mode: "websocket" }, { appSecret: secret }).catch((e: unknown) => e);
    expect(String(error)).toMatch(/FEISHU_APP_ID, FEISHU_APP_SECRET/);
    expect(running.at(-1)!.lines.join("")).not.toContain(secret);
  });

  it("refuses to start without credentials", async () => {
    const config = parseConfig({});
    const adapter = createFeishuAdapter({
      config,
      home: "/x",
      secret: () => undefined,
      logger: pino({ level: "silent" }),
    });
    await expect(adapter.start(async () => {})).rejects.toThrow(/FEISHU_APP_ID and FEISHU_APP_SECRET/);
  });

  it("verifies the recorded encrypted webhook body", () => {
    const recorded = JSON.parse(
      readFileSync(new URL("../fixtures/feishu/encrypted-webhook.json", import.meta.url), "utf8"),
    ) as {
      encrypt_key: string;
      headers: Record<string, string>;
      body: Record<string, unknown>;
    };
    const raw = JSON.stringify(recorded.body);
    // The recorded request is judged at the moment it was signed.
    const signedAt = Number(recorded.headers["x-lark-request-timestamp"]) * 1000;
    const verdict = verifyWebhook(raw, recorded.headers, recorded.encrypt_key, "vtoken-fixture", signedAt);
    expect(verdict.ok).toBe(true);
    if (verdict.ok)
      expect((verdict.decrypted.header as { event_id: string }).event_id).toBe(
        "e1d2c3b4a5f60718293a4b5c6d7e8f9a",
      );
    expect(verifyWebhook(raw, recorded.headers, recorded.encrypt_key, "vtoken-fixture")).toMatchObject({
      ok: false,
      status: 401,
      reason: "request timestamp too old or too far ahead",
    });
    expect(verifyWebhook(raw, recorded.headers, recorded.encrypt_key, "other-token", signedAt)).toMatchObject(
      {
        ok: false,
        status: 401,
      },
    );
    expect(
      verifyWebhook(
        raw,
        { ...recorded.headers, "x-lark-request-nonce": "x" },
        recorded.encrypt_key,
        undefined,
      ),
    ).toMatchObject({ ok: false, status: 401 });
    // The signature is checked before anything is decrypted: another key fails it, nothing is decrypted.
    expect(verifyWebhook(raw, recorded.headers, "wrong-key", undefined, signedAt)).toMatchObject({
      ok: false,
      status: 401,
      reason: "bad signature",
    });
    expect(verifyWebhook("{oops", {}, undefined, undefined)).toMatchObject({ ok: false, status: 400 });
  });
});
