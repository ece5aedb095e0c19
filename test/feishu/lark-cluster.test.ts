/**
 * The Lark emulator's long connection with several clients of one app, driven by the real SDK's
 * `WSClient`: each push goes to one client picked by the seeded generator, an event not acked with 200
 * within 3 s is pushed again (same `event_id`), and the 51st connection is refused at the handshake.
 */
import * as lark from "@larksuiteoapi/node-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { LARK_MAX_WS_CONNECTIONS, LarkEmulator } from "../emulators/lark.js";

/** What one SDK client's handler saw: the event ids, in order. */
interface Client {
  ws: lark.WSClient;
  id: string;
  seen: string[];
}

const quiet: lark.Logger = {
  error: () => {},
  warn: () => {},
  info: () => {},
  debug: () => {},
  trace: () => {},
};

let emulator: LarkEmulator;
const clients: lark.WSClient[] = [];

afterEach(async () => {
  for (const ws of clients.splice(0)) ws.close({ force: true });
  await emulator?.close();
});

async function boot(seed?: number): Promise<void> {
  emulator = new LarkEmulator(seed === undefined ? {} : { seed });
  await emulator.listen();
  emulator.redeliveryDelaysMs = [50, 50, 50, 50];
}

/** Connects one SDK client whose handler runs `handle` (default: returns at once, so the ack is 200). */
async function connect(handle: (eventId: string) => Promise<void> = async () => {}): Promise<Client> {
  const seen: string[] = [];
  const before = emulator.wsConnections;
  const ws = new lark.WSClient({
    appId: emulator.appId,
    appSecret: emulator.appSecret,
    domain: emulator.url,
    logger: quiet,
    loggerLevel: lark.LoggerLevel.error,
  });
  clients.push(ws);
  const dispatcher = new lark.EventDispatcher({
    logger: quiet,
    loggerLevel: lark.LoggerLevel.error,
  }).register({
    "im.message.receive_v1": async (data: Record<string, unknown>) => {
      const eventId = String(data.event_id);
      seen.push(eventId);
      await handle(eventId);
    },
  });
  await ws.start({ eventDispatcher: dispatcher });
  for (let i = 0; i < 500 && emulator.wsConnections === before; i += 1)
    await new Promise((resolve) => setTimeout(resolve, 10));
  const id = emulator.wsClientIds.at(-1);
  if (emulator.wsConnections === before || !id) throw new Error("the client did not connect");
  return { ws, id, seen };
}

describe("the Lark emulator's long connection in cluster mode", () => {
  it("gives each event to one client, picked by the seeded generator, the same way every run", async () => {
    const spreads: string[][] = [];
    for (let run = 0; run < 2; run += 1) {
      await boot(7);
      const group = [await connect(), await connect(), await connect()];
      for (let index = 0; index < 30; index += 1) {
        const ack = await emulator.pushWsEvent(emulator.messageEvent({ text: "hi", eventId: `ev-${index}` }));
        expect(ack.code).toBe(200);
      }
      // Exactly one client handled each event, and the one the emulator recorded.
      const handled = group.flatMap((client) => client.seen);
      expect(handled.sort()).toEqual(Array.from({ length: 30 }, (_, i) => `ev-${i}`).sort());
      for (const delivery of emulator.deliveries) {
        const owner = group.find((client) => client.id === delivery.clientId);
        expect(owner?.seen).toContain(delivery.eventId);
        expect(delivery).toMatchObject({ attempt: 1, outcome: "acked" });
      }
      expect(group.filter((client) => client.seen.length > 0).length).toBeGreaterThan(1);
      spreads.push(emulator.deliveries.map((delivery) => delivery.clientId));
      for (const ws of clients.splice(0)) ws.close({ force: true });
      await emulator.close();
    }
    expect(spreads[1]).toEqual(spreads[0]);
  });

  it("always picks the only client when one is connected", async () => {
    await boot();
    const only = await connect();
    for (let index = 0; index < 5; index += 1)
      await emulator.pushWsEvent(emulator.messageEvent({ text: "hi", eventId: `solo-${index}` }));
    expect(new Set(emulator.deliveries.map((delivery) => delivery.clientId))).toEqual(new Set([only.id]));
  });

  it("pushes an event again, same event_id, when the handler threw (the SDK acks 500)", async () => {
    await boot();
    let failures = 1;
    const client = await connect(async () => {
      if (failures > 0) {
        failures -= 1;
        throw new Error("not taken");
      }
    });
    expect(
      (await emulator.pushWsEvent(emulator.messageEvent({ text: "hi", eventId: "ev-retry" }))).code,
    ).toBe(500);
    const acked = await emulator.waitForAcked("ev-retry");
    expect(acked.attempt).toBe(2);
    expect(emulator.deliveriesOf("ev-retry").map((delivery) => delivery.outcome)).toEqual([
      "failed",
      "acked",
    ]);
    expect(client.seen).toEqual(["ev-retry", "ev-retry"]);
  });

  it("pushes an event again when the ack takes longer than 3 s, and stops after an ack in time", async () => {
    await boot();
    // Whichever client gets the first push takes 3.3 s over it; the re-push is handled at once.
    let slow = true;
    const handle = async () => {
      if (!slow) return;
      slow = false;
      await new Promise((resolve) => setTimeout(resolve, 3_300));
    };
    await connect(handle);
    await connect(handle);
    emulator.publishWsEvent(emulator.messageEvent({ text: "hi", eventId: "ev-slow" }));
    const acked = await emulator.waitForAcked("ev-slow", 8_000);
    expect(acked.attempt).toBe(2);
    const [late] = emulator.deliveriesOf("ev-slow");
    for (let i = 0; i < 200 && late?.ack === undefined; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(late).toMatchObject({ outcome: "timeout", ack: { code: 200 } });
    expect((late?.ackedAt ?? 0) - (late?.sentAt ?? 0)).toBeGreaterThanOrEqual(3_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(emulator.deliveriesOf("ev-slow")).toHaveLength(2);
  }, 15_000);

  it("gives up after Feishu's four retries", async () => {
    await boot();
    const client = await connect(async () => {
      throw new Error("never taken");
    });
    emulator.publishWsEvent(emulator.messageEvent({ text: "hi", eventId: "ev-doomed" }));
    for (let i = 0; i < 300 && client.seen.length < 5; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(emulator.deliveriesOf("ev-doomed").map((delivery) => delivery.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(client.seen).toHaveLength(5);
  });

  it(`refuses the handshake of connection ${LARK_MAX_WS_CONNECTIONS + 1} and keeps serving the others`, async () => {
    await boot();
    const group: Client[] = [];
    for (let index = 0; index < LARK_MAX_WS_CONNECTIONS; index += 1) group.push(await connect());
    expect(emulator.wsConnections).toBe(LARK_MAX_WS_CONNECTIONS);
    let ready = false;
    const extra = new lark.WSClient({
      appId: emulator.appId,
      appSecret: emulator.appSecret,
      domain: emulator.url,
      logger: quiet,
      loggerLevel: lark.LoggerLevel.error,
      onReady: () => {
        ready = true;
      },
    });
    clients.push(extra);
    void extra.start({ eventDispatcher: new lark.EventDispatcher({ logger: quiet }) });
    for (let i = 0; i < 300 && emulator.refusedHandshakes.length === 0; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(emulator.refusedHandshakes).toEqual([{ at: expect.any(Number), open: LARK_MAX_WS_CONNECTIONS }]);
    expect(ready).toBe(false);
    expect(emulator.wsConnections).toBe(LARK_MAX_WS_CONNECTIONS);
    expect((await emulator.pushWsEvent(emulator.messageEvent({ text: "hi", eventId: "ev-cap" }))).code).toBe(
      200,
    );
    expect(group.some((client) => client.seen.includes("ev-cap"))).toBe(true);
  }, 30_000);
});
