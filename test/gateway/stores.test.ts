import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ActivityStore } from "../../src/gateway/activity.js";
import { DEDUPE_TTL_MS, DedupeStore } from "../../src/gateway/dedupe.js";
import { ChatQueues } from "../../src/gateway/queue.js";
import { SessionStore } from "../../src/gateway/sessions.js";
import { Clock, freshHomeEachTest, HOUR } from "./helpers.js";

let home: string;
freshHomeEachTest((made) => {
  home = made;
});

describe("DedupeStore", () => {
  it("drops a redelivery after a restart (2 h later) and keeps entries at least 24 h", async () => {
    const clock = new Clock(Date.UTC(2026, 0, 1));
    const first = await DedupeStore.open(home, { now: clock.now });
    expect(await first.checkAndMark("feishu", "evt-1")).toBe(false);
    expect(await first.checkAndMark("feishu", "evt-1")).toBe(true);
    await first.flush();
    clock.advance(2 * HOUR);
    const restarted = await DedupeStore.open(home, { now: clock.now });
    expect(await restarted.checkAndMark("feishu", "evt-1")).toBe(true);
    expect(await restarted.checkAndMark("telegram", "evt-1")).toBe(false);
    clock.advance(24 * HOUR);
    expect(await restarted.checkAndMark("feishu", "evt-1")).toBe(true);
    expect(DEDUPE_TTL_MS).toBeGreaterThanOrEqual(24 * HOUR);
  });
  it("forgets entries after the TTL", async () => {
    const clock = new Clock(0);
    const store = await DedupeStore.open(home, { now: clock.now, ttlMs: 1000 });
    await store.checkAndMark("x", "1");
    clock.advance(1001);
    expect(await store.checkAndMark("x", "1")).toBe(false);
  });
  it("stays bounded, forgetting the oldest first", async () => {
    const clock = new Clock(0);
    const store = await DedupeStore.open(home, { now: clock.now, maxEntries: 3 });
    for (const id of ["a", "b", "c", "d"]) {
      clock.advance(1);
      await store.checkAndMark("x", id);
    }
    expect(store.size).toBe(3);
    expect(await store.checkAndMark("x", "d")).toBe(true);
    expect(await store.checkAndMark("x", "a")).toBe(false);
  });
  it("batches writes and merges what another process recorded", async () => {
    const clock = new Clock(Date.now());
    const one = await DedupeStore.open(home, { now: clock.now, flushDelayMs: 10_000 });
    const two = await DedupeStore.open(home, { now: clock.now, flushDelayMs: 10_000 });
    await one.checkAndMark("feishu", "a");
    await two.checkAndMark("feishu", "b");
    await expect(fs.access(one.file)).rejects.toThrow();
    await one.flush();
    await two.flush();
    const reopened = await DedupeStore.open(home, { now: clock.now });
    expect(await reopened.checkAndMark("feishu", "a")).toBe(true);
    expect(await reopened.checkAndMark("feishu", "b")).toBe(true);
    // A store whose last write was replaced by another process merges again before writing; one whose
    // own write is still there keeps what it merged.
    await one.checkAndMark("feishu", "c");
    await one.flush();
    await one.checkAndMark("feishu", "d");
    await one.flush();
    const last = await DedupeStore.open(home, { now: clock.now });
    for (const id of ["a", "b", "c", "d"]) expect(await last.checkAndMark("feishu", id)).toBe(true);
  });
  it("starts empty from a corrupt file and repairs it", async () => {
    await fs.mkdir(path.join(home, "gateway"), { recursive: true });
    await fs.writeFile(path.join(home, "gateway", "dedupe.json"), "{not json");
    const store = await DedupeStore.open(home);
    expect(await store.checkAndMark("x", "1")).toBe(false);
    await store.flush();
    expect(JSON.parse(await fs.readFile(store.file, "utf8")).entries).toHaveProperty("x:1");
  });
});

describe("DedupeStore journal", () => {
  const lines = async (file: string) =>
    (await fs.readFile(file, "utf8").catch(() => "")).split("\n").filter((line) => line !== "");

  it("appends new events to the journal and folds it into the snapshot once it outgrows the entries", async () => {
    const clock = new Clock(Date.UTC(2026, 0, 1));
    const store = await DedupeStore.open(home, { now: clock.now, flushDelayMs: 10_000, maxEntries: 500 });
    await store.checkAndMark("telegram", "1");
    await store.flush();
    // The first write creates the snapshot; later ones only append.
    expect(JSON.parse(await fs.readFile(store.file, "utf8")).entries).toEqual({ "telegram:1": clock.now() });
    const snapshot = await fs.stat(store.file);
    for (const id of ["2", "3"]) {
      clock.advance(1);
      await store.checkAndMark("telegram", id);
      await store.flush();
    }
    expect(await lines(store.journalFile)).toEqual([
      JSON.stringify(["telegram:2", clock.now() - 1]),
      JSON.stringify(["telegram:3", clock.now()]),
    ]);
    expect((await fs.stat(store.file)).ino).toBe(snapshot.ino);
    for (let id = 4; id <= 1100; id += 1) {
      clock.advance(1);
      await store.checkAndMark("telegram", String(id));
    }
    await store.flush();
    // 2 + 1,097 journal lines > max(1000, 500 entries): the write folded instead of appending.
    expect(await lines(store.journalFile)).toEqual([]);
    const kept = Object.keys(JSON.parse(await fs.readFile(store.file, "utf8")).entries);
    expect(kept).toHaveLength(500);
    expect(kept[0]).toBe("telegram:601");
    const reopened = await DedupeStore.open(home, { now: clock.now });
    expect(reopened.size).toBe(500);
    expect(await reopened.checkAndMark("telegram", "1100")).toBe(true);
    expect(await reopened.checkAndMark("telegram", "1")).toBe(false);
  });

  it("skips a line torn by a crash mid-append, then folds so the next line is not glued to it", async () => {
    const clock = new Clock(Date.UTC(2026, 0, 1));
    const store = await DedupeStore.open(home, { now: clock.now });
    await store.checkAndMark("feishu", "a");
    await store.flush();
    await store.checkAndMark("feishu", "b");
    await store.flush();
    await fs.appendFile(store.journalFile, '["feishu:c",17');
    const reopened = await DedupeStore.open(home, { now: clock.now });
    expect(reopened.size).toBe(2);
    expect(await reopened.checkAndMark("feishu", "b")).toBe(true);
    expect(await reopened.checkAndMark("feishu", "d")).toBe(false);
    await reopened.flush();
    expect(await lines(reopened.journalFile)).toEqual([]);
    const entries = JSON.parse(await fs.readFile(reopened.file, "utf8")).entries;
    expect(Object.keys(entries).sort()).toEqual(["feishu:a", "feishu:b", "feishu:d"]);
  });

  it("merges lines another process appended, and a fold by another process, before writing", async () => {
    const clock = new Clock(Date.UTC(2026, 0, 1));
    const one = await DedupeStore.open(home, { now: clock.now });
    const two = await DedupeStore.open(home, { now: clock.now });
    await one.checkAndMark("discord", "1");
    await one.flush();
    await two.checkAndMark("discord", "2");
    await two.flush();
    await one.checkAndMark("discord", "3");
    await one.flush();
    // `one` read `two`'s line before appending its own; a fresh store sees all three either way.
    expect(await one.checkAndMark("discord", "2")).toBe(true);
    const fresh = await DedupeStore.open(home, { now: clock.now });
    for (const id of ["1", "2", "3"]) expect(await fresh.checkAndMark("discord", id)).toBe(true);
    // Another process replaces the snapshot with an id of its own, without some of ours, and empties the
    // journal: the next write folds, so the files hold everything again.
    await fs.writeFile(
      one.file,
      JSON.stringify({ version: 1, entries: { "discord:9": clock.now(), "discord:1": clock.now() } }),
    );
    await fs.writeFile(one.journalFile, "");
    await one.checkAndMark("discord", "4");
    await one.flush();
    expect(await lines(one.journalFile)).toEqual([]);
    const last = await DedupeStore.open(home, { now: clock.now });
    for (const id of ["1", "2", "3", "4", "9"]) expect(await last.checkAndMark("discord", id), id).toBe(true);
  });
});

describe("ActivityStore", () => {
  it("persists the last activity so idle time survives a restart", async () => {
    const clock = new Clock(Date.UTC(2026, 0, 1));
    const store = await ActivityStore.open(home, { now: clock.now });
    // No activity recorded yet: idle counts from this process's start, never "forever".
    expect(await store.idleSeconds()).toBe(0);
    clock.advance(HOUR);
    expect(await store.idleSeconds()).toBe(3600);
    store.touch();
    await store.flush();
    clock.advance(3 * HOUR);
    const restarted = await ActivityStore.open(home, { now: clock.now });
    // A restart does not make the home look busy or idle beyond what the two times say: the later wins.
    expect(await restarted.idleSeconds()).toBe(0);
    clock.advance(HOUR);
    expect(await restarted.idleSeconds()).toBe(3600);
    const early = await ActivityStore.open(home, { now: () => Date.UTC(2026, 0, 1) });
    expect(await early.idleSeconds()).toBe(0);
  });
  it("takes the newest time recorded by any process on the home", async () => {
    const clock = new Clock(Date.UTC(2026, 0, 1));
    const one = await ActivityStore.open(home, { now: clock.now });
    const two = await ActivityStore.open(home, { now: clock.now });
    one.touch();
    await one.flush();
    clock.advance(HOUR);
    two.touch();
    await two.flush();
    clock.advance(HOUR);
    expect(await one.idleSeconds()).toBe(3600);
  });
});

describe("SessionStore", () => {
  it("keeps a chat's /language choice across a reload and forgets it on auto", async () => {
    const file = path.join(home, "gateway", "sessions.json");
    const store = new SessionStore(file);
    await store.setChatLanguage("telegram:-100", "zh-CN");
    await store.flush();
    const reloaded = new SessionStore(file);
    expect(await reloaded.chatLanguage("telegram:-100")).toBe("zh-CN");
    expect(await reloaded.chatLanguage("telegram:-200")).toBeUndefined();
    await reloaded.setChatLanguage("telegram:-100", undefined);
    await reloaded.flush();
    expect(await new SessionStore(file).chatLanguage("telegram:-100")).toBeUndefined();
  });

  it("remembers loaded skills and history per session across a reload", async () => {
    const file = path.join(home, "gateway", "sessions.json");
    const store = new SessionStore(file);
    await store.addLoadedSkills("telegram:1", ["pdf", "arxiv"]);
    await store.addLoadedSkills("telegram:1", ["pdf"]);
    await store.appendHistory("telegram:1", { role: "user", text: "hi", at: "2026-01-01T00:00:00Z" }, 2);
    await store.appendHistory(
      "telegram:1",
      { role: "assistant", text: "hello", at: "2026-01-01T00:00:01Z" },
      2,
    );
    await store.appendHistory("telegram:1", { role: "user", text: "again", at: "2026-01-01T00:00:02Z" }, 2);
    await store.flush();
    const reloaded = new SessionStore(file);
    expect(await reloaded.loadedSkills("telegram:1")).toEqual(["pdf", "arxiv"]);
    expect((await reloaded.history("telegram:1")).map((entry) => entry.text)).toEqual(["hello", "again"]);
    expect(await reloaded.loadedSkills("telegram:2")).toEqual([]);
  });
  it("shares one instance per home", async () => {
    expect(SessionStore.for(home)).toBe(SessionStore.for(`${home}/`));
  });
});

describe("ChatQueues", () => {
  it("keeps each chat's order and bounds the global concurrency", async () => {
    const queues = new ChatQueues(2);
    const order: string[] = [];
    let running = 0;
    let peak = 0;
    const task = (label: string, ms: number) => async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, ms));
      order.push(label);
      running--;
    };
    const all = [
      queues.run("a", task("a1", 30)),
      queues.run("a", task("a2", 1)),
      queues.run("b", task("b1", 5)),
      queues.run("c", task("c1", 5)),
      queues.run("d", task("d1", 5)),
    ];
    expect(queues.inFlight).toBe(5);
    await queues.idle();
    await Promise.all(all);
    expect(order.indexOf("a1")).toBeLessThan(order.indexOf("a2"));
    expect(peak).toBe(2);
    expect(queues.inFlight).toBe(0);
  });
  it("keeps going after a failing task", async () => {
    const queues = new ChatQueues(1);
    await expect(queues.run("a", async () => Promise.reject(new Error("x")))).rejects.toThrow("x");
    await expect(queues.run("a", async () => 5)).resolves.toBe(5);
  });
});
