/**
 * Several replicas of one home taking Feishu traffic (`AdapterHooks.sharedIngress`): real adapters (the
 * official SDK) on one Lark emulator, each with its own long connection (or webhook listener). The sink
 * stands for the gateway's shared inbox as the adapter contract describes it — it resolves once the
 * event is appended (or already there) and rejects while the inbox is unreachable — and records which
 * replica handed over what, so the tests read delivery, acks and re-pushes off both sides.
 */
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createFeishuAdapter, type FeishuAdapter } from "../../adapters/feishu/index.js";
import { parseConfig } from "../../src/config/config.js";
import type { AdapterHooks, InboundMessage } from "../../src/core/message.js";
import { type Reply, textReply } from "../../src/core/reply.js";
import { LARK_MAX_WS_CONNECTIONS, LarkEmulator, type LarkSend } from "../emulators/lark.js";

const TOKEN = "vtoken-cluster";
/** A replica that receives by webhook (its own listener on an ephemeral port), not a long connection. */
const WEBHOOK = { mode: "webhook", verification_token: TOKEN, webhook: { port: 0 } };

/** The inbox every replica appends to: one entry per event id, and every hand-over as it came. */
class SharedInbox {
  readonly entries = new Map<string, InboundMessage>();
  readonly handOvers: { replica: string; eventId: string; taken: boolean }[] = [];
  /** While true every append fails, as with Redis down. */
  down = false;
  /** Appends of one replica wait this long first (ms), as a slow inbox would. */
  readonly delays = new Map<string, number>();

  sink(replica: string): (message: InboundMessage) => Promise<void> {
    return async (message) => {
      const delay = this.delays.get(replica);
      if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
      if (this.down) {
        this.handOvers.push({ replica, eventId: message.eventId, taken: false });
        throw new Error("shared inbox unreachable");
      }
      this.handOvers.push({ replica, eventId: message.eventId, taken: true });
      // The JSON form is what the leader reads back from the inbox.
      if (!this.entries.has(message.eventId))
        this.entries.set(message.eventId, JSON.parse(JSON.stringify(message)) as InboundMessage);
    };
  }

  /** The replicas that handed `eventId` over, in order (taken or not). */
  replicasOf(eventId: string): string[] {
    return this.handOvers.filter((entry) => entry.eventId === eventId).map((entry) => entry.replica);
  }
}

interface Replica {
  name: string;
  adapter: FeishuAdapter;
  /** The emulator's id of its long connection. */
  clientId: string;
}

/** The hooks of a replica of a home that several replicas serve: every sender admitted. */
const SHARED_HOOKS: AdapterHooks = {
  admit: () => ({ admitted: true }),
  suggestSkills: async () => [],
  sharedIngress: true,
};

let emulator: LarkEmulator;
const replicas: FeishuAdapter[] = [];

afterEach(async () => {
  await Promise.all(replicas.splice(0).map((adapter) => adapter.stop()));
  await emulator?.close();
});

async function bootEmulator(seed = 11): Promise<void> {
  emulator = new LarkEmulator({ seed });
  await emulator.listen();
  emulator.redeliveryDelaysMs = [100, 100, 100, 100];
}

/** Starts one replica's adapter with `sharedIngress`; its long connection is the newest one. */
async function startReplica(
  name: string,
  inbox: SharedInbox,
  feishu: Record<string, unknown> = { mode: "websocket" },
  tuning: Record<string, number> = {},
  hooks: AdapterHooks = SHARED_HOOKS,
): Promise<Replica> {
  const secrets: Record<string, string> = {
    FEISHU_APP_ID: emulator.appId,
    FEISHU_APP_SECRET: emulator.appSecret,
  };
  const adapter = createFeishuAdapter({
    config: parseConfig({ gateway: { feishu: { domain: emulator.url, ...feishu } } }),
    home: "/nonexistent",
    secret: (key) => secrets[key],
    logger: pino({ level: "silent" }),
    tuning,
  });
  replicas.push(adapter);
  const before = emulator.wsClientIds;
  await adapter.start(inbox.sink(name), hooks);
  let clientId = "";
  if (feishu.mode !== "webhook") {
    await until(() => emulator.wsClientIds.length > before.length, `${name}'s long connection`);
    clientId = emulator.wsClientIds.find((id) => !before.includes(id)) ?? "";
  }
  return { name, adapter, clientId };
}

/** Posts a card with one "Pin" button through `replica` and returns it as the emulator got it. */
async function pinCard(replica: Replica): Promise<LarkSend> {
  await replica.adapter.send(
    { chatId: "oc_group_ops" },
    {
      ...textReply("Pin it?"),
      actions: { rows: [[{ label: "Pin", intent: { kind: "cancel" }, id: "act-pin" }]] },
    },
  );
  return emulator.sends.at(-1) as LarkSend;
}

/** Starts replicas one after another (so each one's long connection is known). */
async function startReplicas(
  names: string[],
  inbox: SharedInbox,
  feishu?: Record<string, unknown>,
): Promise<Replica[]> {
  const group: Replica[] = [];
  for (const name of names) group.push(await startReplica(name, inbox, feishu));
  return group;
}

async function until(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  for (const start = Date.now(); Date.now() - start < timeoutMs; ) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function nameOf(group: Replica[], clientId: string): string | undefined {
  return group.find((replica) => replica.clientId === clientId)?.name;
}

describe("Feishu with several replicas on the long connection", () => {
  it("every replica keeps a connection; Feishu spreads the events over them, each taken once", async () => {
    await bootEmulator();
    const inbox = new SharedInbox();
    const group = await startReplicas(["a", "b", "c"], inbox);
    expect(emulator.wsConnections).toBe(3);
    for (const replica of group) expect(replica.adapter.health().state).toBe("connected");
    const ids = Array.from({ length: 24 }, (_, index) => `ev-spread-${index}`);
    for (const eventId of ids) {
      const ack = await emulator.pushWsEvent(emulator.messageEvent({ text: "/curator status", eventId }));
      // The ack goes out only after the inbox took the event.
      expect(ack.code).toBe(200);
      expect(inbox.entries.has(eventId)).toBe(true);
    }
    expect([...inbox.entries.keys()].sort()).toEqual([...ids].sort());
    for (const eventId of ids) {
      const [delivery] = emulator.deliveriesOf(eventId);
      expect(emulator.deliveriesOf(eventId)).toHaveLength(1);
      expect(inbox.replicasOf(eventId)).toEqual([nameOf(group, delivery!.clientId)]);
    }
    const busy = new Set(inbox.handOvers.map((entry) => entry.replica));
    expect(busy.size).toBeGreaterThan(1);
  });

  it("an event whose ack is late (a slow inbox) is pushed again and taken; the inbox holds it once", async () => {
    await bootEmulator();
    const inbox = new SharedInbox();
    const group = await startReplicas(["a", "b"], inbox);
    // Both appends are slow the first time round: whichever replica gets the push acks after 3 s.
    inbox.delays.set("a", 3_300);
    inbox.delays.set("b", 3_300);
    emulator.publishWsEvent(emulator.messageEvent({ text: "/help", eventId: "ev-late" }));
    await until(() => emulator.deliveriesOf("ev-late")[0]?.outcome === "timeout", "the 3 s deadline", 5_000);
    inbox.delays.clear();
    const acked = await emulator.waitForAcked("ev-late", 8_000);
    expect(acked.attempt).toBeGreaterThanOrEqual(2);
    const [first] = emulator.deliveriesOf("ev-late");
    // The re-push reached a sink again, or (same replica, first append still running) waited for it.
    expect(nameOf(group, acked.clientId)).toBeDefined();
    await until(() => first?.ack !== undefined, "the late ack");
    expect(first?.ack?.code).toBe(200);
    expect(inbox.entries.size).toBe(1);
    expect(inbox.handOvers.every((entry) => entry.taken && entry.eventId === "ev-late")).toBe(true);
  }, 20_000);

  it("with the inbox down the handler throws (ack 500), Feishu pushes again, and the event is taken once it is back", async () => {
    await bootEmulator();
    const inbox = new SharedInbox();
    const group = await startReplicas(["a", "b", "c"], inbox);
    inbox.down = true;
    emulator.redeliveryDelaysMs = [150, 150, 150, 150];
    const ack = await emulator.pushWsEvent(emulator.messageEvent({ text: "/help", eventId: "ev-down" }));
    expect(ack.code).toBe(500);
    expect(inbox.entries.size).toBe(0);
    await until(() => emulator.deliveriesOf("ev-down").length >= 2, "a re-push");
    await until(() => emulator.deliveriesOf("ev-down")[1]?.outcome === "failed", "the second refusal");
    inbox.down = false;
    const acked = await emulator.waitForAcked("ev-down");
    expect(acked.attempt).toBeGreaterThanOrEqual(3);
    expect(inbox.entries.has("ev-down")).toBe(true);
    // Every push reached the replica's sink: a refused event is never remembered as seen.
    const pushedTo = emulator
      .deliveriesOf("ev-down")
      .filter((delivery) => delivery.attempt <= acked.attempt)
      .map((delivery) => nameOf(group, delivery.clientId));
    expect(inbox.replicasOf("ev-down")).toEqual(pushedTo);
  });

  it("one replica: the re-push of an event its inbox refused reaches the sink again; a taken one is dropped", async () => {
    await bootEmulator();
    const inbox = new SharedInbox();
    await startReplica("a", inbox);
    inbox.down = true;
    const event = emulator.messageEvent({ text: "/help", eventId: "ev-again", messageId: "om_again" });
    expect((await emulator.pushWsEvent(event)).code).toBe(500);
    inbox.down = false;
    await emulator.waitForAcked("ev-again");
    expect(inbox.handOvers).toEqual([
      { replica: "a", eventId: "ev-again", taken: false },
      { replica: "a", eventId: "ev-again", taken: true },
    ]);
    // Taken now: a later duplicate is acked from the local memory without another append.
    expect((await emulator.pushWsEvent(event)).code).toBe(200);
    expect(inbox.handOvers).toHaveLength(2);
  });

  it("a re-push that arrives while the first append still runs waits for it, and gets its verdict", async () => {
    await bootEmulator();
    const inbox = new SharedInbox();
    await startReplica("a", inbox);
    inbox.delays.set("a", 3_400);
    inbox.down = true;
    const first = emulator.publishWsEvent(emulator.messageEvent({ text: "/help", eventId: "ev-join" }));
    emulator.redeliveryDelaysMs = [0, 5_000];
    // At 3 s the emulator pushes again to the same replica; the first append fails at 3.4 s.
    await until(() => emulator.deliveriesOf("ev-join").length === 2, "the re-push", 5_000);
    await until(() => emulator.deliveriesOf("ev-join")[1]?.ack !== undefined, "the re-push's ack", 5_000);
    expect(first.ack?.code).toBe(500);
    expect(emulator.deliveriesOf("ev-join")[1]?.ack?.code).toBe(500);
    // One append was tried for both pushes.
    expect(inbox.handOvers).toEqual([{ replica: "a", eventId: "ev-join", taken: false }]);
  }, 15_000);

  it(`the ${LARK_MAX_WS_CONNECTIONS + 1}st replica's connection is refused and its start fails clearly; the others keep taking events`, async () => {
    await bootEmulator();
    const inbox = new SharedInbox();
    const group: Replica[] = [];
    for (let index = 0; index < LARK_MAX_WS_CONNECTIONS; index += 1)
      group.push(await startReplica(`r${index}`, inbox));
    expect(emulator.wsConnections).toBe(LARK_MAX_WS_CONNECTIONS);
    const refused = await startReplica(
      "extra",
      inbox,
      { mode: "websocket" },
      { connectTimeoutMs: 1_500 },
    ).catch((error: unknown) => error);
    expect(String(refused)).toMatch(/did not open within 1\.5 s/);
    expect(String(refused)).toMatch(/more than 50 long connections per app/);
    expect(emulator.refusedHandshakes.length).toBeGreaterThanOrEqual(1);
    expect(emulator.wsConnections).toBe(LARK_MAX_WS_CONNECTIONS);
    expect(
      (await emulator.pushWsEvent(emulator.messageEvent({ text: "/help", eventId: "ev-cap" }))).code,
    ).toBe(200);
    expect(inbox.replicasOf("ev-cap")).toHaveLength(1);
    expect(inbox.replicasOf("ev-cap")[0]).not.toBe("extra");
  }, 60_000);
});

describe("Feishu replies from the leader for an event another replica received", () => {
  it("replica B answers, from the inbox's JSON form, a message replica A received: reply, notice and its update", async () => {
    await bootEmulator();
    const inbox = new SharedInbox();
    const a = await startReplica("a", inbox);
    const b = await startReplica("b", inbox, WEBHOOK);
    const event = emulator.messageEvent({
      text: "/curator status",
      eventId: "ev-json",
      messageId: "om_json",
    });
    expect((await emulator.pushWsEvent(event)).code).toBe(200);
    expect(inbox.replicasOf("ev-json")).toEqual([a.name]);
    const stored = inbox.entries.get("ev-json")!;
    expect(typeof stored.raw).toBe("object");
    const notice = await b.adapter.acknowledge({ chatId: stored.chat.id }, textReply("⏳ Running…"), stored);
    expect(notice).toMatch(/^om_sent_/);
    await b.adapter.send(
      { chatId: stored.chat.id, editMessageId: notice },
      textReply("status: fine"),
      stored,
    );
    await b.adapter.send({ chatId: stored.chat.id }, textReply("and one more thing"), stored);
    expect(emulator.sends.map((send) => [send.kind, send.target, send.chatId])).toEqual([
      ["reply", "om_json", "oc_p2p_alice"],
      ["patch", notice, "oc_p2p_alice"],
      ["reply", "om_json", "oc_p2p_alice"],
    ]);
    expect(emulator.sends[1]?.text).toContain("status: fine");
  });

  it("a card press is answered by the replica that received it; the leader then updates the card", async () => {
    await bootEmulator();
    const inbox = new SharedInbox();
    const a = await startReplica("a", inbox);
    const leader = await startReplica("b", inbox, WEBHOOK);
    const question: Reply = {
      ...textReply("Archive 3 stale skills?"),
      actions: {
        rows: [
          [
            { label: "Confirm", intent: { kind: "cancel" }, id: "act-confirm" },
            { label: "Cancel", intent: { kind: "cancel" }, id: "act-cancel" },
          ],
        ],
      },
    };
    await leader.adapter.send({ chatId: "oc_group_ops" }, question);
    const card = emulator.sends.at(-1)!;
    expect(card.buttons.map((button) => button.label)).toEqual(["Confirm", "Cancel"]);
    const answer = await emulator.pushWsEvent(
      emulator.cardActionEvent({ messageId: card.messageId, label: "Confirm", eventId: "ev-press" }),
    );
    // Replica A took the press into the inbox and answered the callback itself, within 3 s.
    expect(answer).toEqual({ code: 200, data: {} });
    expect(inbox.replicasOf("ev-press")).toEqual([a.name]);
    const press = inbox.entries.get("ev-press")!;
    expect(press.press).toEqual({ actionId: "act-confirm", messageId: card.messageId });
    await leader.adapter.send(
      { chatId: press.chat.id, editMessageId: press.press?.messageId },
      textReply("Archived 3 skills."),
      press,
    );
    expect(emulator.sends.at(-1)).toMatchObject({ kind: "patch", target: card.messageId });
    expect(emulator.sends.at(-1)?.text).toContain("Archived 3 skills.");
  });

  it("a press the inbox refuses is answered with a toast asking to press again; nothing is queued", async () => {
    await bootEmulator();
    const inbox = new SharedInbox();
    const a = await startReplica("a", inbox);
    const card = await pinCard(a);
    inbox.down = true;
    const refused = await emulator.pushWsEvent(
      emulator.cardActionEvent({ messageId: card.messageId, label: "Pin", eventId: "ev-pin" }),
    );
    expect(refused).toMatchObject({ code: 200, data: { toast: { type: "error" } } });
    expect(JSON.stringify(refused.data)).toMatch(/press the button again/);
    inbox.down = false;
    // The press was not remembered as seen: pressing again is taken.
    const again = await emulator.pushWsEvent(
      emulator.cardActionEvent({ messageId: card.messageId, label: "Pin", eventId: "ev-pin" }),
    );
    expect(again).toEqual({ code: 200, data: {} });
    expect(inbox.entries.has("ev-pin")).toBe(true);
  });

  it("the toast for a refused press is the gateway's notice in the presser's language", async () => {
    await bootEmulator();
    const inbox = new SharedInbox();
    const kinds: string[] = [];
    const a = await startReplica(
      "a",
      inbox,
      { mode: "websocket" },
      {},
      {
        ...SHARED_HOOKS,
        notTakenNotice: (_message, kind) => {
          kinds.push(kind);
          return "这次点击暂时无法收下";
        },
      },
    );
    const card = await pinCard(a);
    inbox.down = true;
    const refused = await emulator.pushWsEvent(
      emulator.cardActionEvent({ messageId: card.messageId, label: "Pin", eventId: "ev-pin-zh" }),
    );
    expect(refused).toMatchObject({
      code: 200,
      data: { toast: { type: "error", content: "这次点击暂时无法收下" } },
    });
    expect(kinds).toEqual(["press"]);
  });
});

describe("Feishu with several replicas behind a balancer (webhook)", () => {
  it("every replica serves the webhook: 503 while the inbox is down (Feishu retries), 200 once it took the event", async () => {
    await bootEmulator();
    const inbox = new SharedInbox();
    const group = await startReplicas(["a", "b"], inbox, WEBHOOK);
    const urls = group.map((replica) => replica.adapter.webhookUrl!);
    expect(new Set(urls).size).toBe(2);
    const event = emulator.messageEvent({ text: "/help", eventId: "ev-hook", token: TOKEN });
    inbox.down = true;
    const refused = await emulator.deliverWebhook(urls[0]!, event);
    expect(refused.status).toBe(503);
    inbox.down = false;
    // Feishu's retry may land on the other replica: it takes the event there.
    expect((await emulator.deliverWebhook(urls[1]!, event)).status).toBe(200);
    expect(inbox.replicasOf("ev-hook")).toEqual(["a", "b"]);
    expect(inbox.entries.has("ev-hook")).toBe(true);
    // A forged event is still refused everywhere before any append.
    const forged = await emulator.deliverWebhook(
      urls[0]!,
      emulator.messageEvent({ text: "/help", eventId: "ev-forged", token: "WRONG" }),
    );
    expect(forged.status).toBe(401);
    expect(inbox.replicasOf("ev-forged")).toEqual([]);
  });
});
