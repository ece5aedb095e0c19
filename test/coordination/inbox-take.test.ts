/**
 * The leader takes shared-inbox entries of different chats side by side while each chat keeps its
 * order, on a real redis-server: a press whose refusal is slow to send (a step before the chat's queue)
 * holds up the later message of its own chat, never a message of another chat.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createMockAdapter, type MockAdapter } from "../../adapters/mock/index.js";
import { silentLogger } from "../../src/core/logger.js";
import type { Adapter, InboundMessage, OutboundTarget } from "../../src/core/message.js";
import type { Reply } from "../../src/core/reply.js";
import type { Coordinator } from "../../src/gateway/coordination/coordinator.js";
import type { InboxEntry } from "../../src/gateway/coordination/inbox.js";
import { createGateway } from "../../src/gateway/gateway.js";
import { InboxConsumer } from "../../src/gateway/inbox-consumer.js";
import { gatewayDoc, makeHome, removeHome, writeConfig, writeSkill } from "../gateway/helpers.js";
import type { TestRedis } from "../support/redis.js";
import { redisForFile } from "../support/redis-for-file.js";
import { sleep, until } from "../support/until.js";

let redis: TestRedis;
redisForFile(0, (server) => {
  redis = server;
});

let home = "";
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  if (home) await removeHome(home);
});

/** A mock adapter whose reply to the event `press` waits until `open` is called. */
function gatedAdapter(): { mock: MockAdapter; reached: Promise<void>; open: () => void } {
  const mock = createMockAdapter();
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let reach = () => {};
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  const send = mock.send.bind(mock);
  mock.send = async (target: OutboundTarget, reply: Reply, inReplyTo?: InboundMessage) => {
    if (inReplyTo?.eventId === "press") {
      reach();
      await gate;
    }
    return send(target, reply, inReplyTo);
  };
  return { mock, reached, open };
}

/** Index in `mock.sent` of the first reply to `eventId` (-1 when none). */
const replyIndex = (mock: MockAdapter, eventId: string) =>
  mock.sent.findIndex((reply) => reply.inReplyTo?.eventId === eventId);

describe("the leader's intake of the shared inbox", () => {
  it("a slow step before one chat's queue holds up that chat only, and the chat keeps its order", async () => {
    home = await makeHome();
    await writeSkill(home, { name: "arxiv", description: "search papers" });
    const config = await writeConfig(home, {
      gateway: gatewayDoc({ coordination: { redis_url: redis.url, replica_id: "lead" } }),
    });
    const { mock, reached, open } = gatedAdapter();
    const gateway = createGateway({
      home,
      config,
      adapters: [mock],
      leaseTimings: { ttlMs: 1_500, renewMs: 300, fenceAfterMs: 1_000 },
    });
    await gateway.start();
    cleanups.push(() => gateway.stop());
    // Opened before the gateway stops, whatever failed.
    cleanups.push(async () => open());
    // Leading and consuming: a message of a third chat is answered.
    await until(
      "the leader answers",
      () => mock.request("/skills", { user: "reader", chat: "warm" }),
      15_000,
    );

    // Chat `slow`: a press of a button nobody stored is refused before it reaches the chat's queue, and
    // its refusal waits at the gate; then a message in the same chat and one in another chat.
    void mock.press("no-such-button", { user: "reader", chat: "slow", eventId: "press" });
    await reached;
    await mock.inject("/skills", { user: "reader", chat: "slow", eventId: "after-press" });
    await mock.inject("/skills", { user: "reader", chat: "other", eventId: "other-chat" });

    // The other chat is answered while the refusal still waits; the same chat's message is not.
    await until(
      "the other chat's answer",
      () => (replyIndex(mock, "other-chat") >= 0 ? true : undefined),
      10_000,
    );
    await sleep(300);
    expect(replyIndex(mock, "after-press")).toBe(-1);

    open();
    await until(
      "the slow chat's answer",
      () => (replyIndex(mock, "after-press") >= 0 ? true : undefined),
      10_000,
    );
    await gateway.whenIdle();
    const press = replyIndex(mock, "press");
    expect(press).toBeGreaterThanOrEqual(0);
    expect(press).toBeLessThan(replyIndex(mock, "after-press"));
    expect(replyIndex(mock, "other-chat")).toBeLessThan(press);
    // Each answered once.
    for (const eventId of ["press", "after-press", "other-chat"])
      expect(mock.sent.filter((reply) => reply.inReplyTo?.eventId === eventId)).toHaveLength(1);
  });
});

/**
 * The inbox as a leader sees it in the race a claim has with its own marks: a claim's batch is read
 * (the entry is still pending), the entry's answer and "done" mark land, then the batch is taken. The
 * scripted inbox hands the same entry back after it was marked, as that claim would.
 */
describe("an entry a stale claim returns after it was answered", () => {
  it("is marked handled again, not answered twice", async () => {
    const message = {
      eventId: "e-1",
      platform: "mock",
      chat: { id: "c-1", kind: "dm" },
      user: { id: "u-1" },
      text: "/skills",
    } as unknown as InboundMessage;
    const entry: InboxEntry = { entryId: "1-0", message, replayed: false };
    const marked: string[] = [];
    const answered: string[] = [];
    let leading = true;
    let handedBack = false;
    const coordination = {
      leading: () => leading,
      reclaimIdle: async () => undefined,
      inbox: {
        claimAbandoned: async () => [entry],
        // After the mark: the stale claim's copy of the entry, once.
        read: async () => {
          await sleep(10);
          if (marked.length === 0 || handedBack) return [];
          handedBack = true;
          return [{ ...entry, replayed: true }];
        },
        done: async (done: InboxEntry) => {
          marked.push(done.entryId);
        },
      },
    } as unknown as Coordinator;
    const consumer: InboxConsumer = new InboxConsumer({
      coordination,
      adapters: [{ platform: "mock" } as Adapter],
      logger: silentLogger(),
      running: () => true,
      stopped: () => false,
      notify: async () => {},
      accept: async (_adapter, _message, taken) => {
        answered.push(taken.entryId);
        await consumer.settle(taken);
      },
    });
    const loop = consumer.consume();
    await until(
      "the stale copy handed back",
      () => (handedBack && marked.length >= 2 ? true : undefined),
      5_000,
    );
    leading = false;
    await loop;
    expect(answered).toEqual(["1-0"]);
    expect(marked).toEqual(["1-0", "1-0"]);
  });
});
