/**
 * The shared inbox on a real redis-server: intake dedupes and appends, the leader reads through the
 * consumer group, a new leader claims what a dead one left pending (and skips what it had finished), a
 * replay skips effects already recorded, and an unreachable Redis refuses intake. Then two gateways in
 * this process on one home: a message received by the standby is answered by the leader, a skill load
 * replayed after a crash counts once, and with Redis stopped the standby's intake refuses the message.
 */
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { createMockAdapter, type MockAdapter } from "../../adapters/mock/index.js";
import type { InboundMessage } from "../../src/core/message.js";
import { textReply } from "../../src/core/reply.js";
import { InboxFullError, SharedInbox } from "../../src/gateway/coordination/inbox.js";
import type { RedisClient } from "../../src/gateway/coordination/redis.js";
import { type ChatAgent, createGateway, type Gateway } from "../../src/gateway/gateway.js";
import { UsageStore } from "../../src/skills/usage.js";
import { gatewayDoc, makeHome, removeHome, writeConfig, writeSkill } from "../gateway/helpers.js";
import type { TestRedis } from "../support/redis.js";
import { redisForFile } from "../support/redis-for-file.js";

let redis: TestRedis;
let client: RedisClient;
redisForFile(1, (server, [connected]) => {
  redis = server;
  client = connected as RedisClient;
});
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function message(eventId: string, text = "/curator status"): InboundMessage {
  const [name = "", ...args] = text.slice(1).split(" ");
  return {
    command: { name, args, rawArgs: args.join(" ") },
    eventId,
    platform: "mock",
    chat: { kind: "dm", id: "c1" },
    sender: { id: "reader", isBot: false },
    text,
    receivedAt: 1_700_000_000_000,
  };
}

function inboxOf(prefix: string, consumer: string): SharedInbox {
  const inbox = new SharedInbox({ redis: client, prefix, consumer });
  cleanups.push(() => inbox.close());
  return inbox;
}

describe("the shared inbox", () => {
  it("appends an event once, however often it is received, and hands it to the leader in order", async () => {
    const prefix = `inbox:${randomUUID()}:`;
    const intake = inboxOf(prefix, "standby");
    const leader = inboxOf(prefix, "leader");
    expect(await intake.append(message("1"))).toBe(true);
    expect(await intake.append(message("2"))).toBe(true);
    // A platform's redelivery to another replica finds the event seen.
    expect(await leader.append(message("1"))).toBe(false);
    const read = await leader.read(100);
    expect(read.map((entry) => entry.message.eventId)).toEqual(["1", "2"]);
    expect(read.every((entry) => !entry.replayed)).toBe(true);
    expect(read[0]?.message).toEqual(message("1"));
    for (const entry of read) await leader.done(entry);
    expect(await leader.backlog()).toBe(0);
    // Handled: a late redelivery is still recognised and not appended again.
    expect(await intake.append(message("2"))).toBe(false);
    expect(await leader.read(50)).toEqual([]);
  });

  it("a new leader claims what a dead one left pending, oldest first, and skips what it had finished", async () => {
    const prefix = `inbox:${randomUUID()}:`;
    const dead = inboxOf(prefix, "dead");
    for (const id of ["a", "b", "c"]) await dead.append(message(id));
    const taken = await dead.read(100);
    expect(taken).toHaveLength(3);
    // The dead leader had answered `b` and marked it (its acknowledgement is what a crash may lose).
    await client.set(`${prefix}seen:mock:b`, "done");
    const next = inboxOf(prefix, "next");
    const claimed = await next.claimAbandoned();
    expect(claimed.map((entry) => entry.message.eventId)).toEqual(["a", "c"]);
    expect(claimed.every((entry) => entry.replayed)).toBe(true);
    // `b` was acknowledged and removed; nothing of it is left to read or claim.
    expect(await next.backlog()).toBe(2);
    for (const entry of claimed) await next.done(entry);
    expect(await next.claimAbandoned()).toEqual([]);
    expect(await next.backlog()).toBe(0);
  });

  it("records effects per event, so a replay can tell what was applied", async () => {
    const prefix = `inbox:${randomUUID()}:`;
    const inbox = inboxOf(prefix, "leader");
    const event = message("e1");
    expect(await inbox.effectRecorded(event, "use:arxiv")).toBe(false);
    await inbox.recordEffect(event, "use:arxiv");
    expect(await inbox.effectRecorded(event, "use:arxiv")).toBe(true);
    expect(await inbox.effectRecorded(event, "use:pdf")).toBe(false);
    expect(await inbox.effectRecorded(message("e2"), "use:arxiv")).toBe(false);
  });

  it("refuses intake at its bound instead of trimming entries no leader answered", async () => {
    const prefix = `inbox:${randomUUID()}:`;
    const small = new SharedInbox({ redis: client, prefix, consumer: "standby", maxEntries: 3 });
    for (const id of ["f1", "f2", "f3"]) expect(await small.append(message(id))).toBe(true);
    await expect(small.append(message("f4"))).rejects.toBeInstanceOf(InboxFullError);
    expect(await small.backlog()).toBe(3);
    // Not marked seen: the platform's redelivery is taken once there is room.
    const leader = inboxOf(prefix, "leader");
    const [first] = await leader.read(100, 1);
    if (first) await leader.done(first);
    expect(await small.append(message("f4"))).toBe(true);
  });

  it("a leader reclaims what another consumer left idle while it leads, and removes idle consumers", async () => {
    const prefix = `inbox:${randomUUID()}:`;
    const intake = inboxOf(prefix, "standby");
    const stale = inboxOf(prefix, "stale-leader");
    const leader = inboxOf(prefix, "leader");
    await leader.read(10);
    // A stale leader read two events after this one began leading, and never answered them.
    for (const id of ["s1", "s2"]) await intake.append(message(id));
    expect((await stale.read(100)).map((entry) => entry.message.eventId)).toEqual(["s1", "s2"]);
    expect(await leader.claimAbandoned(60_000)).toEqual([]);
    await sleep(150);
    const reclaimed = await leader.claimAbandoned(100);
    expect(reclaimed.map((entry) => [entry.message.eventId, entry.replayed])).toEqual([
      ["s1", true],
      ["s2", true],
    ]);
    for (const entry of reclaimed) await leader.done(entry);
    // The stale consumer holds nothing now: it goes once idle (intake alone never makes a consumer).
    await sleep(50);
    expect(await leader.removeIdleConsumers(10)).toBe(1);
    const names = (await client.xInfoConsumers(`${prefix}inbox`, "leaders")).map((consumer) => consumer.name);
    expect(names).toEqual(["leader"]);
  });

  it("counts a blocked read as a round trip only when it brought events", async () => {
    const prefix = `inbox:${randomUUID()}:`;
    const trips = { count: 0 };
    const leader = new SharedInbox({ redis: client, prefix, consumer: "leader", trips });
    cleanups.push(() => leader.close());
    expect(await leader.read(20)).toEqual([]);
    expect(await leader.read(20)).toEqual([]);
    expect(trips.count).toBe(0);
    await inboxOf(prefix, "standby").append(message("t1"));
    expect((await leader.read(100)).map((entry) => entry.message.eventId)).toEqual(["t1"]);
    expect(trips.count).toBe(1);
  });

  it("an entry that is not a message is dropped, not handed out", async () => {
    const prefix = `inbox:${randomUUID()}:`;
    const inbox = inboxOf(prefix, "leader");
    await inbox.read(10); // creates the group
    await client.xAdd(`${prefix}inbox`, "*", { m: "{not json" });
    await inbox.append(message("ok"));
    const read = await inbox.read(100);
    expect(read.map((entry) => entry.message.eventId)).toEqual(["ok"]);
    expect(await inbox.backlog()).toBe(1);
  });
});

describe("two gateways on one home", () => {
  let home: string;
  afterEach(async () => {
    if (home) await removeHome(home);
  });

  const timings = { ttlMs: 1_500, renewMs: 300, fenceAfterMs: 1_000 };

  async function replica(
    id: string,
    options: { eligible?: boolean; agent?: ChatAgent } = {},
  ): Promise<{ gateway: Gateway; mock: MockAdapter }> {
    const config = await writeConfig(home, {
      gateway: gatewayDoc({
        coordination: { redis_url: redis.url, replica_id: id, writer_eligible: options.eligible ?? true },
      }),
    });
    const mock = createMockAdapter();
    const gateway = createGateway({
      home,
      config,
      adapters: [mock],
      leaseTimings: timings,
      agent: options.agent,
    });
    await gateway.start();
    cleanups.push(() => gateway.stop());
    return { gateway, mock };
  }

  async function replyTo(mock: MockAdapter, eventId: string, ms = 10_000): Promise<string> {
    const deadline = Date.now() + ms;
    for (;;) {
      const sent = mock.sent.find((reply) => reply.inReplyTo?.eventId === eventId);
      if (sent) return sent.text;
      if (Date.now() > deadline) throw new Error(`no reply to ${eventId} within ${ms} ms`);
      await sleep(25);
    }
  }

  it("a message the standby received is answered by the leader, once", async () => {
    home = await makeHome();
    await writeSkill(home, { name: "arxiv", description: "search papers" });
    const leader = await replica("lead");
    await sleep(500);
    const standby = await replica("standby", { eligible: false });
    const sent = await standby.mock.inject("/skills", { user: "reader", eventId: "ev-1" });
    expect(await replyTo(leader.mock, "ev-1")).toContain("arxiv");
    // The leader had only the JSON form of what the standby received.
    expect(leader.mock.sent.find((reply) => reply.inReplyTo?.eventId === "ev-1")?.inReplyTo).toEqual(
      JSON.parse(JSON.stringify(sent)),
    );
    // The same event received again by the leader itself is not answered again.
    await leader.mock.inject("/skills", { user: "reader", eventId: "ev-1" });
    await sleep(300);
    expect(leader.mock.sent.filter((reply) => reply.inReplyTo?.eventId === "ev-1")).toHaveLength(1);
    expect(standby.mock.sent).toHaveLength(0);
  });

  it("a skill load a dead leader had applied is answered again on replay but counted once", async () => {
    home = await makeHome();
    await writeSkill(home, { name: "arxiv", description: "search papers" });
    // The home's prefix, as the gateway derives it.
    const { homeCoordinationId } = await import("../../src/gateway/coordination/coordinator.js");
    const prefix = `skillgate:${await homeCoordinationId(home)}:`;
    // A dead leader took three loads: it bumped and recorded the first, and died before answering any.
    const dead = inboxOf(prefix, "dead-leader");
    for (const id of ["l1", "l2", "l3"]) await dead.append(message(id, "/skill arxiv"));
    await dead.read(100);
    const first = (await dead.claimAbandoned()).find((entry) => entry.message.eventId === "l1");
    expect(first).toBeDefined();
    await new UsageStore(`${home}/skills`).bump("arxiv", "use");
    await dead.recordEffect(message("l1"), "use:arxiv");
    const before = (await new UsageStore(`${home}/skills`).readRecord("arxiv"))?.use_count ?? 0;
    expect(before).toBe(1);
    const leader = await replica("next");
    for (const id of ["l1", "l2", "l3"]) expect(await replyTo(leader.mock, id)).toContain("arxiv");
    await leader.gateway.whenIdle();
    // Three loads, one of them applied before the crash: three in all, not four.
    expect((await new UsageStore(`${home}/skills`).readRecord("arxiv"))?.use_count).toBe(3);
  });

  it("a standby suggests skills from the list the leader published, not from its own reading", async () => {
    home = await makeHome();
    await writeSkill(home, { name: "arxiv", description: "search papers" });
    await writeSkill(home, { name: "arxiv-tools", description: "more papers" });
    const leader = await replica("lead3");
    await sleep(500);
    const standby = await replica("standby3", { eligible: false });
    const { homeCoordinationId } = await import("../../src/gateway/coordination/coordinator.js");
    const key = `skillgate:${await homeCoordinationId(home)}:adapter:suggestions:mock`;
    const suggest = (mock: MockAdapter) => mock.hooks?.suggestSkills("reader", "arx") ?? Promise.resolve([]);
    expect(JSON.parse((await client.get(key)) ?? "[]")).toEqual(["arxiv", "arxiv-tools"]);
    expect(await suggest(standby.mock)).toEqual(["arxiv", "arxiv-tools"]);
    // A skill the leader has not published yet is suggested by the leader (it reads the library) and not
    // by the standby (it answers from the published list); a stranger gets nothing anywhere.
    await writeSkill(home, { name: "arxiv-new", description: "newest" });
    await sleep(2_100);
    expect(await suggest(leader.mock)).toContain("arxiv-new");
    expect(await suggest(standby.mock)).toEqual(["arxiv", "arxiv-tools"]);
    expect(await standby.mock.hooks?.suggestSkills("stranger", "arx")).toEqual([]);
    await leader.gateway.syncCommandCatalogs();
    await sleep(2_100);
    expect(await suggest(standby.mock)).toEqual(["arxiv", "arxiv-new", "arxiv-tools"]);
  });

  it("a message taken while no replica leads gets one queued notice in the reader's language, then its answer", async () => {
    home = await makeHome();
    const { homeCoordinationId } = await import("../../src/gateway/coordination/coordinator.js");
    const prefix = `skillgate:${await homeCoordinationId(home)}:`;
    // A leader that died: its lease is still in Redis, unrenewed, and lapses in 4 s.
    const lease = `${prefix}leader`;
    await client.set(lease, "dead-leader:0", { expiration: { type: "PX", value: 4_000 } });
    const standby = await replica("survivor");
    const ask = (eventId: string, chat: string) =>
      standby.mock.inject("/skills", {
        user: "reader",
        chat,
        eventId,
        platformMessageId: `m-${eventId}`,
        language: "zh-CN",
      });
    // While the dead lease still looks renewed, a message is only queued.
    expect(Number(await client.pTTL(lease))).toBeGreaterThan(timings.ttlMs);
    await ask("q0", "c0");
    while (Number(await client.pTTL(lease)) > 800) await sleep(50);
    await sleep(timings.renewMs + 50);
    // Unrenewed for more than two renewals now: the chat is told, once, that its messages wait.
    await ask("q1", "c1");
    await ask("q2", "c1");
    // An interaction (no message id) shows its own pending state.
    await standby.mock.inject("/skills", { user: "reader", chat: "c2", eventId: "q3" });
    for (const eventId of ["q0", "q1", "q2", "q3"]) await replyTo(standby.mock, eventId);
    const notices = standby.mock.sent.filter((reply) => reply.text.includes("排队"));
    expect(notices.map((reply) => reply.inReplyTo?.eventId)).toEqual(["q1"]);
    expect(notices[0]?.text).toContain("正在重新连接");
    // Each message was then answered by the replica that took the lead, after the notice.
    const order = standby.mock.sent.map((reply) => reply.inReplyTo?.eventId);
    expect(order.indexOf("q1")).toBeLessThan(order.lastIndexOf("q1"));
    expect(standby.mock.sent.filter((reply) => reply.inReplyTo?.eventId === "q2")).toHaveLength(1);
  });

  it("a leader that lost the lease answers nothing more, not even the command it was running; the next leader answers each once", async () => {
    home = await makeHome();
    const { homeCoordinationId } = await import("../../src/gateway/coordination/coordinator.js");
    const lease = `skillgate:${await homeCoordinationId(home)}:leader`;
    let started = 0;
    const slow: ChatAgent = {
      respond: async (message) => {
        started += 1;
        await sleep(1_500);
        return textReply(`heard ${message.text}`);
      },
    };
    const first = await replica("first", { agent: slow });
    await sleep(500);
    await first.mock.inject("hello", { user: "reader", chat: "c1", eventId: "w1", asText: true });
    await first.mock.inject("/skills", { user: "reader", chat: "c1", eventId: "w2" });
    while (started === 0) await sleep(20);
    await sleep(200);
    // Another replica takes the lease while w1 runs and w2 waits behind it in the chat's queue; the
    // next renewal finds it taken and the first replica steps down and stops.
    await client.set(lease, "another-replica:0", { expiration: { type: "PX", value: 1_500 } });
    await sleep(timings.renewMs * 2);
    await first.gateway.stop();
    // w1 was running when the lease went: its answer is withheld (the lease is checked again before
    // anything reaches the chat) and it stays pending beside w2, which had not started.
    expect(started).toBe(1);
    expect(first.mock.sent).toEqual([]);
    const next = await replica("next");
    await replyTo(next.mock, "w1");
    await replyTo(next.mock, "w2");
    await sleep(300);
    for (const eventId of ["w1", "w2"])
      expect(next.mock.sent.filter((reply) => reply.inReplyTo?.eventId === eventId)).toHaveLength(1);
    expect(first.mock.sent).toEqual([]);
  });

  it("with Redis stopped the standby's intake refuses the message, and takes it once Redis is back", async () => {
    home = await makeHome();
    const leader = await replica("lead2");
    await sleep(500);
    const standby = await replica("standby2", { eligible: false });
    await redis.stop();
    try {
      await expect(standby.mock.inject("/skills", { user: "reader", eventId: "down-1" })).rejects.toThrow();
    } finally {
      await redis.start();
    }
    // The platform delivers it again; Redis is back within the client's reconnect.
    let accepted = false;
    for (let attempt = 0; attempt < 60 && !accepted; attempt++) {
      accepted = await standby.mock
        .inject("/skills", { user: "reader", eventId: "down-1" })
        .then(() => true)
        .catch(() => false);
      if (!accepted) await sleep(100);
    }
    expect(accepted).toBe(true);
    expect(leader.gateway.healthUrl).toBeUndefined();
  });
});
