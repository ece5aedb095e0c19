/**
 * The Redis stores on a real redis-server, seen from two replicas (two connections): an event is
 * handled once whichever replica marks it first, even when both race; last activity never goes back;
 * loaded skills and history are shared and bounded; a stranger notice is shared; a button press is
 * single-use across replicas, a group is used up together, and a late press reads "expired". The file
 * button store answers the same questions the same way (one contract for both).
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ActionIntent } from "../../src/core/actions.js";
import { ActionStore, type ButtonStore } from "../../src/gateway/action-store.js";
import { countRoundTrips, type RedisClient, type RoundTrips } from "../../src/gateway/coordination/redis.js";
import { RedisButtonStore } from "../../src/gateway/coordination/redis-buttons.js";
import { redisStores } from "../../src/gateway/coordination/redis-stores.js";
import type { TestRedis } from "../support/redis.js";
import { redisForFile } from "../support/redis-for-file.js";

let _redis: TestRedis;
let one: RedisClient;
let two: RedisClient;
let keys = 0;
redisForFile(2, (server, [first, second]) => {
  _redis = server;
  one = first as RedisClient;
  two = second as RedisClient;
});

const lock = { acquire: async () => ({ release: async () => undefined }) };

/** Resolves once `probe` holds (polled; fails after 10 s). */
async function eventually(probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error("condition not met within 10 s");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function pair(now: () => number = Date.now) {
  const prefix = `stores:${keys++}:`;
  return [
    redisStores({ redis: one, prefix, runLock: lock, now }),
    redisStores({ redis: two, prefix, runLock: lock, now }),
  ];
}

describe("the Redis coordination stores", () => {
  it("one of two replicas handles an event, even when both mark it at once", async () => {
    const [a, b] = pair();
    for (let i = 0; i < 50; i++) {
      const results = await Promise.all([
        a?.dedupe.checkAndMark("telegram", `u${i}`),
        b?.dedupe.checkAndMark("telegram", `u${i}`),
      ]);
      expect(results.filter((seen) => seen === false)).toHaveLength(1);
    }
    expect(await a?.dedupe.checkAndMark("feishu", "u1")).toBe(false);
  });

  it("remembers an event as seen for the configured retention, 48 h unless set", async () => {
    const prefix = `stores:${keys++}:`;
    const hours = 3;
    const kept = redisStores({ redis: one, prefix, runLock: lock, retentionMs: hours * 3_600_000 });
    expect(await kept.dedupe.checkAndMark("telegram", "r1")).toBe(false);
    const ttl = Number(await two.pTTL(`${prefix}dedupe:telegram:r1`));
    expect(ttl).toBeGreaterThan(hours * 3_600_000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(hours * 3_600_000);
    const plain = redisStores({ redis: one, prefix, runLock: lock });
    expect(await plain.dedupe.checkAndMark("telegram", "r2")).toBe(false);
    expect(Number(await two.pTTL(`${prefix}dedupe:telegram:r2`))).toBeGreaterThan(47 * 3_600_000);
  });

  it("last activity is the latest either replica saw", async () => {
    let clock = 1_000_000;
    const [a, b] = pair(() => clock);
    a?.activity.touch(5_000);
    b?.activity.touch(9_000);
    a?.activity.touch(7_000);
    await a?.activity.flush();
    await b?.activity.flush();
    expect(await a?.activity.lastActivity()).toBe(9_000);
    clock = 19_000;
    expect(await b?.activity.idleSeconds()).toBe(10);
  });

  it("writes last activity at most once a second: a burst of touches costs two round trips, none is lost", async () => {
    const trips: RoundTrips = { count: 0 };
    const prefix = `stores:${keys++}:`;
    const counted = redisStores({ redis: countRoundTrips(one, trips), prefix, runLock: lock });
    const other = redisStores({ redis: two, prefix, runLock: lock });
    for (let at = 1_000; at <= 100_000; at += 1_000) counted.activity.touch(at);
    // The first touch is written at once; the burst's latest waits for the interval's end.
    await eventually(async () => (await other.activity.lastActivity()) === 1_000);
    expect(trips.count).toBe(1);
    // Its own replica already counts the latest touch.
    trips.count = 0;
    expect(await counted.activity.lastActivity()).toBe(100_000);
    expect(trips.count).toBe(1);
    trips.count = 0;
    await eventually(async () => (await other.activity.lastActivity()) === 100_000);
    expect(trips.count).toBe(1);
    // A touch then a stop: flush writes it at once.
    counted.activity.touch(200_000);
    counted.activity.touch(300_000);
    await counted.activity.flush();
    expect(await other.activity.lastActivity()).toBe(300_000);
  });

  it("counts a command, a script and a MULTI batch as one round trip each, and listeners as none", async () => {
    const trips: RoundTrips = { count: 0 };
    const counted = countRoundTrips(one, trips);
    const key = `trips:${keys++}`;
    await counted.set(key, "1");
    await counted.eval("return redis.call('GET', KEYS[1])", { keys: [key], arguments: [] });
    await counted.multi().incr(key).incr(key).pExpire(key, 60_000).exec();
    const onError = () => undefined;
    counted.on("error", onError);
    counted.off("error", onError);
    // Reading the client's state through the counted view works and sends nothing.
    expect(counted.isReady).toBe(true);
    expect(trips.count).toBe(3);
    expect(await one.get(key)).toBe("3");
  });

  it("loaded skills and history are shared, unique and bounded", async () => {
    const [a, b] = pair();
    await a?.sessions.addLoadedSkills("telegram:1", ["pdf", "arxiv"]);
    await b?.sessions.addLoadedSkills("telegram:1", ["arxiv", "maps"]);
    expect(await a?.sessions.loadedSkills("telegram:1")).toEqual(["pdf", "arxiv", "maps"]);
    for (const text of ["one", "two", "three"])
      await b?.sessions.appendHistory("telegram:1", { role: "user", text, at: "2026-01-01T00:00:00Z" }, 2);
    expect((await a?.sessions.history("telegram:1"))?.map((entry) => entry.text)).toEqual(["two", "three"]);
    await a?.sessions.clearLoadedSkills("telegram:1");
    expect(await b?.sessions.loadedSkills("telegram:1")).toEqual([]);
  });

  it("a loaded skill's version record written by one replica is read by the other, and cleared with it", async () => {
    const [a, b] = pair();
    const record = { version: "1.0.0", digest: "d1", stamp: "SKILL.md:1:2", text: "# pdf\n" };
    await a?.sessions.setSkillVersions?.("telegram:1", { pdf: record });
    expect(await b?.sessions.skillVersions?.("telegram:1")).toEqual({ pdf: record });
    const changed = {
      ...record,
      version: "1.1.0",
      digest: "d2",
      previous: { version: "1.0.0", text: "# pdf\n" },
    };
    await b?.sessions.setSkillVersions?.("telegram:1", { pdf: changed });
    expect((await a?.sessions.skillVersions?.("telegram:1"))?.pdf).toEqual(changed);
    await a?.sessions.clearLoadedSkills("telegram:1");
    expect(await b?.sessions.skillVersions?.("telegram:1")).toEqual({});
  });

  it("either replica lists the sessions holding version records (threads included), and not a cleared one", async () => {
    const [a, b] = pair();
    const record = { version: null, digest: "d1", stamp: "SKILL.md:1:2", text: "# pdf\n" };
    await a?.sessions.setSkillVersions?.("telegram:1", { pdf: record });
    await a?.sessions.setSkillVersions?.("discord:2:77", { pdf: record });
    await a?.sessions.addLoadedSkills("feishu:3", ["pdf"]);
    expect((await b?.sessions.sessionsWithSkillVersions?.())?.sort()).toEqual(["discord:2:77", "telegram:1"]);
    await b?.sessions.clearLoadedSkills("telegram:1");
    expect(await a?.sessions.sessionsWithSkillVersions?.()).toEqual(["discord:2:77"]);
  });

  it("a chat's /language choice set on one replica is read by the other, and auto forgets it", async () => {
    const [a, b] = pair();
    expect(await b?.sessions.chatLanguage("telegram:-100")).toBeUndefined();
    await a?.sessions.setChatLanguage("telegram:-100", "zh-CN");
    expect(await b?.sessions.chatLanguage("telegram:-100")).toBe("zh-CN");
    expect(await b?.sessions.chatLanguage("telegram:-200")).toBeUndefined();
    await b?.sessions.setChatLanguage("telegram:-100", undefined);
    expect(await a?.sessions.chatLanguage("telegram:-100")).toBeUndefined();
  });

  it("a reader's last reported language written by one replica is read by the other, with an expiry", async () => {
    const prefix = `stores:${keys}:`;
    const [a, b] = pair();
    expect(await b?.sessions.readerLanguage?.("discord:42")).toBeUndefined();
    await a?.sessions.setReaderLanguage?.("discord:42", "zh-CN");
    expect(await b?.sessions.readerLanguage?.("discord:42")).toBe("zh-CN");
    await b?.sessions.setReaderLanguage?.("discord:42", "en-US");
    expect(await a?.sessions.readerLanguage?.("discord:42")).toBe("en-US");
    // Not a language tag: not stored.
    await a?.sessions.setReaderLanguage?.("discord:42", "x y");
    expect(await b?.sessions.readerLanguage?.("discord:42")).toBe("en-US");
    const ttl = await one.pTTL(`${prefix}reader:discord:42:language`);
    expect(ttl).toBeGreaterThan(0);
  });

  it("a stranger notice given by one replica is known to the other", async () => {
    const [a, b] = pair();
    expect(await b?.strangers.lastNoticed("telegram:9")).toBeUndefined();
    await a?.strangers.noticed("telegram:9", 1234);
    expect(await b?.strangers.lastNoticed("telegram:9")).toBe(1234);
  });
});

const confirm: ActionIntent = {
  kind: "run",
  invocation: { path: ["curator", "pin"], args: ["x"], options: {} },
};
const where = { platform: "telegram", chatId: "42" };

async function contract(name: string, open: (now: () => number) => Promise<[ButtonStore, ButtonStore]>) {
  describe(`${name}: one contract for shown buttons`, () => {
    it("a press is single-use across replicas; its group goes with it; another chat cannot press", async () => {
      const [a, b] = await open(Date.now);
      const [yes, no] = await a.add(
        [
          { intent: confirm, placement: "replace", group: "g1", once: true },
          { intent: { kind: "cancel" }, placement: "replace", group: "g1", once: true },
        ],
        where,
      );
      expect((await b.lookup(yes as string, where)).status).toBe("ok");
      expect((await b.lookup(yes as string, { platform: "telegram", chatId: "43" })).status).toBe("unknown");
      expect((await b.lookup("not an id", where)).status).toBe("unknown");
      const both = await Promise.all([a.consume(yes as string, "u1"), b.consume(yes as string, "u2")]);
      expect(both.filter(Boolean)).toHaveLength(1);
      const used = await a.lookup(no as string, where);
      expect(used.status).toBe("used");
      expect(await b.consume(no as string, "u3")).toBe(false);
    });

    it("a press after the lifetime reads expired", async () => {
      let clock = 1_000;
      const [a, b] = await open(() => clock);
      const [id] = await a.add([{ intent: confirm, placement: "replace", group: "g2", once: true }], where);
      clock += a.ttlMs + 1;
      expect((await b.lookup(id as string, where)).status).toBe("expired");
    });
  });
}

await contract("Redis", async (now) => {
  const prefix = `buttons:${keys++}:`;
  return [
    new RedisButtonStore({ redis: one, prefix, now }),
    new RedisButtonStore({ redis: two, prefix, now }),
  ];
});

await contract("file (one gateway)", async (now) => {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-buttons-"));
  const store = await ActionStore.open(home, { now });
  return [store, store];
});
