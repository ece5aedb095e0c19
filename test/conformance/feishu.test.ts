/**
 * Feishu conformance: the adapter against the emulator's model of text-message mentions, request body
 * limits and frequency control, and app ids the SDK's long connection refuses.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createFeishuAdapter, type FeishuAdapter, type FeishuTuning } from "../../adapters/feishu/index.js";
import { parseConfig } from "../../src/config/config.js";
import { createLogger } from "../../src/core/logger.js";
import { reply, textReply } from "../../src/core/reply.js";
import { LarkEmulator } from "../emulators/lark.js";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function boot(
  options: { appId?: string; mode?: string; tuning?: Partial<FeishuTuning>; start?: boolean } = {},
): Promise<{ emulator: LarkEmulator; adapter: FeishuAdapter }> {
  const emulator = new LarkEmulator(options.appId ? { appId: options.appId } : {});
  const domain = await emulator.listen();
  cleanups.push(() => emulator.close());
  const adapter = createFeishuAdapter({
    config: parseConfig({
      gateway: {
        feishu: {
          domain,
          mode: options.mode ?? "webhook",
          verification_token: "vt",
          webhook: { port: 0, path: "/feishu" },
        },
      },
    }),
    home: "/nonexistent",
    secret: (name) => ({ FEISHU_APP_ID: emulator.appId, FEISHU_APP_SECRET: emulator.appSecret })[name],
    logger: createLogger({ level: "silent" }),
    tuning: { secondMs: 5, throttleBaseMs: 5, ...options.tuning },
  });
  if (options.start !== false) {
    await adapter.start(async () => undefined);
    cleanups.push(() => adapter.stop());
  }
  return { emulator, adapter };
}

describe("feishu emulator rules", () => {
  it('renders <at user_id="all"> in a text message as a mention of everyone, and not in a post', async () => {
    const { emulator, adapter } = await boot();
    emulator.rejectPosts(1);
    const loud = '<at user_id="all">all</at> read this';
    await adapter.send({ chatId: "oc_group" }, textReply("quiet"));
    expect(emulator.sends.at(-1)?.mentionsAll).toBe(false);
    const response = await fetch(`${emulator.url}/open-apis/auth/v3/tenant_access_token/internal`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ app_id: emulator.appId, app_secret: emulator.appSecret }),
    });
    const { tenant_access_token: token } = (await response.json()) as { tenant_access_token: string };
    const sent = await fetch(`${emulator.url}/open-apis/im/v1/messages?receive_id_type=chat_id`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({
        receive_id: "oc_group",
        msg_type: "text",
        content: JSON.stringify({ text: loud }),
      }),
    });
    expect(sent.status).toBe(200);
    expect(emulator.sends.at(-1)).toMatchObject({ mentionsAll: true, text: "@all read this" });
  });
});

describe("feishu adapter against the real rules", () => {
  it("never lets skill text mention everyone when a post is re-sent as text (finding 4)", async () => {
    const { emulator, adapter } = await boot();
    emulator.rejectPosts(1);
    await adapter.send(
      { chatId: "oc_group" },
      textReply('Step 1: <at user_id="all">everyone</at> and <at user_id="ou_boss">Boss</at>, look.'),
    );
    const last = emulator.sends.at(-1);
    expect(last?.msgType).toBe("text");
    expect(last?.mentionsAll).toBe(false);
    expect(last?.mentions).toEqual([]);
    expect(last?.text).toContain("everyone");
  });

  it("waits out frequency control so a multi-part reply arrives whole (finding 7)", async () => {
    const { emulator, adapter } = await boot();
    const long = Array.from({ length: 3 }, (_unused, part) => `part ${part} ${"x".repeat(7_900)}`);
    emulator.throttleNext(2, "gateway");
    emulator.throttleNext(1, "chat");
    await adapter.send(
      { chatId: "oc_group" },
      reply([...long.map((text) => ({ kind: "paragraph" as const, text }))]),
    );
    const texts = emulator.sends.map((send) => send.text).join("\n");
    for (let part = 0; part < 3; part += 1) expect(texts).toContain(`part ${part}`);
    expect(emulator.calls.filter((call) => call.status === 429)).toHaveLength(2);
  });

  it("gives up on frequency control after the attempts allowed, with the API's error", async () => {
    const { emulator, adapter } = await boot({ tuning: { maxThrottleAttempts: 2 } });
    emulator.throttleNext(5, "chat");
    await expect(adapter.send({ chatId: "oc_group" }, textReply("hello"))).rejects.toThrow(
      /230020|frequency/,
    );
  });

  it("counts the content as escaped inside the request body, so no post is refused for size (finding 7)", async () => {
    const { emulator, adapter } = await boot();
    // A skill file made of quotes: every quote costs 2 bytes in `content` and 4 in the request body.
    await adapter.send({ chatId: "oc_group" }, textReply('""'.repeat(3_950)));
    expect(emulator.calls.filter((call) => call.status === 400)).toEqual([]);
    expect(emulator.sends.every((send) => send.msgType === "post")).toBe(true);
    expect(emulator.sends.map((send) => send.text).join("")).toBe('""'.repeat(3_950));
  });

  it("accepts an app id of any shape in webhook mode, and explains a long-connection refusal (finding 7)", async () => {
    const ok = await boot({ appId: "cli_a1b2c3d4e5f6a7b8c9", mode: "webhook" });
    expect(ok.adapter.health().state).toBe("connected");
    const { adapter } = await boot({ appId: "cli_a1b2c3d4e5f6a7b8c9", mode: "websocket", start: false });
    const started = Date.now();
    const error = await adapter.start(async () => undefined).catch((caught: unknown) => caught as Error);
    cleanups.push(() => adapter.stop());
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/gateway\.feishu\.mode: webhook/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
