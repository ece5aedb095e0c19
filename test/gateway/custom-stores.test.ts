/**
 * The gateway takes its coordination stores as one option: with stores handed in, dedupe, activity,
 * stranger notices, sessions and the curator run lock all go through them and nothing is written under
 * `<home>/gateway/` (so another backend can replace the files without touching the callers).
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RecentStrangerNotices } from "../../src/core/access.js";
import type { CoordinationStores, HistoryEntry } from "../../src/core/stores.js";
import { freshHomeEachTest, gatewayDoc, startGateway, writeConfig, writeSkill } from "./helpers.js";

/** Stores kept in memory, counting what the gateway asks of them. */
function memoryStores() {
  const seen = new Set<string>();
  const loaded = new Map<string, string[]>();
  const history = new Map<string, HistoryEntry[]>();
  const calls = { dedupe: 0, touch: 0, lockTaken: 0, lockReleased: 0, flushed: 0 };
  const strangers = new RecentStrangerNotices();
  const stores: CoordinationStores = {
    dedupe: {
      async checkAndMark(platform, eventId) {
        calls.dedupe++;
        const key = `${platform}:${eventId}`;
        if (seen.has(key)) return true;
        seen.add(key);
        return false;
      },
      flush: async () => {
        calls.flushed++;
      },
    },
    activity: {
      touch: () => {
        calls.touch++;
      },
      lastActivity: async () => undefined,
      idleSeconds: async () => Number.POSITIVE_INFINITY,
      flush: async () => {},
    },
    strangers,
    sessions: {
      loadedSkills: async (key) => [...(loaded.get(key) ?? [])],
      addLoadedSkills: async (key, names) => {
        const list = loaded.get(key) ?? [];
        for (const name of names) if (!list.includes(name)) list.push(name);
        loaded.set(key, list);
      },
      clearLoadedSkills: async (key) => void loaded.delete(key),
      history: async (key) => [...(history.get(key) ?? [])],
      appendHistory: async (key, entry) => void history.set(key, [...(history.get(key) ?? []), entry]),
      clearHistory: async (key) => void history.delete(key),
      chatLanguage: async () => undefined,
      setChatLanguage: async () => {},
      flush: async () => {},
    },
    runLock: {
      acquire: async () => {
        calls.lockTaken++;
        return {
          release: async () => {
            calls.lockReleased++;
          },
        };
      },
    },
  };
  return { stores, calls, loaded, strangers };
}

let home: string;
freshHomeEachTest((made) => {
  home = made;
});

describe("gateway stores option", () => {
  it("routes dedupe, activity, stranger notices, sessions and the run lock through the stores it is given", async () => {
    await writeSkill(home, { name: "pdf-tools" });
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    const memory = memoryStores();
    const { gateway, mock } = await startGateway({ home, config, stores: memory.stores });
    try {
      await mock.shouldReply("/help", "/skills", { user: "admin", eventId: "e1" });
      await mock.shouldNotReply("/help", { user: "admin", eventId: "e1" });
      expect(memory.calls.dedupe).toBe(2);
      expect(memory.calls.touch).toBeGreaterThan(0);

      await mock.shouldReply("/pdf-tools", "pdf-tools", { user: "admin" });
      expect(memory.loaded.get("mock:admin")).toEqual(["pdf-tools"]);

      await mock.shouldReply("hello", "I don't know you yet", { user: "stranger" });
      expect(await memory.strangers.lastNoticed("mock:stranger")).toBeTypeOf("number");

      await mock.shouldReply("/curator archive pdf-tools", "archived 'pdf-tools'", { user: "admin" });
      expect(memory.calls.lockTaken).toBe(1);
      expect(memory.calls.lockReleased).toBe(1);
    } finally {
      await gateway.stop();
    }
    expect(memory.calls.flushed).toBe(1);
    const written = await fs.readdir(path.join(home, "gateway")).catch(() => []);
    expect(written).toEqual([]);
    await expect(fs.access(path.join(home, "skills", ".locks", "curator-run"))).rejects.toThrow();
  });
});
