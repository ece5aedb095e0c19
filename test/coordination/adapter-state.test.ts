/**
 * What a platform's next leader needs is in Redis, written only under the current epoch (on a real
 * redis-server, with the real adapters against their emulators): the adapter state refuses a stale
 * epoch's write and never moves a forward-only value back; a Telegram leader's update offset is stored
 * there (not in the home's file) and the next leader polls from it; a Discord leader's registered command
 * set is remembered there, so a failover does not send the bulk overwrite again.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createDiscordAdapter } from "../../adapters/discord/index.js";
import { parseConfig } from "../../src/config/config.js";
import { admitSender } from "../../src/core/access.js";
import { createLogger } from "../../src/core/logger.js";
import type { AdapterHooks, AdapterState } from "../../src/core/message.js";
import type { RedisClient } from "../../src/gateway/coordination/redis.js";
import { RedisAdapterState } from "../../src/gateway/coordination/redis-state.js";
import { sampleCatalog } from "../discord/catalog.js";
import { DiscordEmulator } from "../emulators/discord.js";
import type { TestRedis } from "../support/redis.js";
import { redisForFile } from "../support/redis-for-file.js";
import { adapterFor, emulatorWithHome } from "../telegram/helpers.js";

let _redis: TestRedis;
let client: RedisClient;
let homes = 0;
redisForFile(1, (server, [connected]) => {
  _redis = server;
  client = connected as RedisClient;
});
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

/** The adapter state of one replica of a home whose lease's epoch key says `current`. */
function replicaState(prefix: string, writerEpoch: () => number | undefined): RedisAdapterState {
  return new RedisAdapterState({
    redis: client,
    prefix,
    epochKey: `${prefix}leader-epoch`,
    epoch: writerEpoch,
  });
}

async function newHomePrefix(currentEpoch: number): Promise<string> {
  const prefix = `state:${homes++}:`;
  await client.set(`${prefix}leader-epoch`, String(currentEpoch));
  return prefix;
}

/** The hooks a coordinated gateway gives an adapter, with this replica's shared state. */
function hooksWith(sharedState: AdapterState): AdapterHooks {
  const config = parseConfig({});
  return {
    admit: (message) => admitSender(config, message),
    suggestSkills: async () => [],
    mayTakeEvents: () => true,
    sharedState,
  };
}

describe("adapter state on Redis", () => {
  it("is written under the current epoch only, forward-only values never go back, and it expires", async () => {
    const prefix = await newHomePrefix(5);
    const leader = replicaState(prefix, () => 5);
    const stale = replicaState(prefix, () => 4);
    const standby = replicaState(prefix, () => undefined);
    expect(await leader.set("offset", "100", { ttlMs: 60_000, forwardOnly: true })).toBe(true);
    expect(await stale.set("offset", "200", { ttlMs: 60_000, forwardOnly: true })).toBe(false);
    expect(await standby.set("offset", "300", { ttlMs: 60_000 })).toBe(false);
    expect(await leader.get("offset")).toBe("100");
    // Forward only: an older value is not stored, and the answer says the stored one is beyond it.
    expect(await leader.set("offset", "90", { ttlMs: 60_000, forwardOnly: true })).toBe(true);
    expect(await standby.get("offset")).toBe("100");
    // Not forward only: replaced.
    expect(await leader.set("fingerprint", "b", { ttlMs: 60_000 })).toBe(true);
    expect(await leader.set("fingerprint", "a", { ttlMs: 60_000 })).toBe(true);
    expect(await standby.get("fingerprint")).toBe("a");
    const ttl = await client.pTTL(`${prefix}adapter:offset`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
    // The lease lapsed (its epoch key expired with it): even the last leader's write is refused.
    await client.del(`${prefix}leader-epoch`);
    expect(await leader.set("offset", "150", { ttlMs: 60_000, forwardOnly: true })).toBe(false);
    expect(await standby.get("offset")).toBe("100");
  });

  it("keeps a Telegram leader's update offset in Redis, and the next leader polls from it", async () => {
    const { emulator, home } = await emulatorWithHome(cleanups as (() => Promise<void>)[]);
    const prefix = await newHomePrefix(1);
    const first = adapterFor(emulator, home);
    await first.adapter.start(first.sink, hooksWith(replicaState(prefix, () => 1)));
    const handled = [
      emulator.userSays({ userId: 41, text: "/curator status" }),
      emulator.userSays({ userId: 41, text: "/skills" }),
    ];
    await first.waitInbox(2);
    await first.adapter.stop();
    const next = String((handled[1]?.update_id ?? 0) + 1);
    expect(await client.get(`${prefix}adapter:telegram:${emulator.token.split(":")[0]}:offset`)).toBe(next);
    // The home's own offset file is not written by a coordinated replica.
    await expect(fs.access(path.join(home, "gateway", "telegram-offset.json"))).rejects.toThrow();

    // The next leader (epoch 2) has no offset file to go by: its first poll asks from Redis's offset.
    const fresh = emulator.userSays({ userId: 41, text: "/curator resume" });
    await client.set(`${prefix}leader-epoch`, "2");
    const pollsBefore = emulator.callsOf("getUpdates").length;
    const second = adapterFor(emulator, home);
    cleanups.push(() => second.adapter.stop());
    await second.adapter.start(second.sink, hooksWith(replicaState(prefix, () => 2)));
    await second.waitInbox(1);
    expect(Number(emulator.callsOf("getUpdates")[pollsBefore]?.params.offset)).toBe(Number(next));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(second.inbox.map((message) => message.eventId)).toEqual([String(fresh.update_id)]);
    // Its own offset reaches Redis too (saved after each batch, at most every `offsetFlushMs`).
    await second.adapter.stop();
    expect(Number(await client.get(`${prefix}adapter:telegram:${emulator.token.split(":")[0]}:offset`))).toBe(
      fresh.update_id + 1,
    );
  });

  it("remembers a Discord leader's registered commands, so the next leader sends no second bulk overwrite", async () => {
    const emulator = new DiscordEmulator();
    await emulator.listen();
    cleanups.push(() => emulator.close());
    const prefix = await newHomePrefix(1);
    const boot = async (epoch: number) => {
      const home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-discord-state-"));
      cleanups.push(() => fs.rm(home, { recursive: true, force: true }));
      const config = parseConfig({ gateway: { discord: { enabled: true, api: emulator.apiBase } } });
      const adapter = createDiscordAdapter({
        config,
        home,
        secret: (name) => (name === "DISCORD_BOT_TOKEN" ? emulator.token : undefined),
        logger: createLogger({ level: "silent" }),
      });
      await adapter.start(async () => undefined, hooksWith(replicaState(prefix, () => epoch)));
      cleanups.push(() => adapter.stop());
      return adapter;
    };
    const puts = () =>
      emulator.calls.filter((call) => call.method === "PUT" && call.path.endsWith("/commands"));
    const leader = await boot(1);
    await leader.syncCommands?.(sampleCatalog);
    expect(puts()).toHaveLength(1);
    await leader.stop();

    // A failover: a new process (a fresh adapter, another mount of the home) leads under epoch 2.
    await client.set(`${prefix}leader-epoch`, "2");
    const next = await boot(2);
    await next.syncCommands?.(sampleCatalog);
    expect(puts()).toHaveLength(1);
    // A changed command set is sent.
    await next.syncCommands?.(sampleCatalog.slice(0, 2));
    expect(puts()).toHaveLength(2);
  });
});
