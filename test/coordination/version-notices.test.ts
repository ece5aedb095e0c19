/**
 * Versions a chat notices, under several replicas: what a chat loaded is recorded where the rest of the
 * shared state lives (Redis), so a skill loaded while one replica led and changed on disk after another
 * took the lead is still told at the chat's next message — once, and only to that chat. (One replica runs
 * at a time here: the write fence is kept per home and process, so two in one process would fence each
 * other's usage writes.)
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMockAdapter, type MockAdapter } from "../../adapters/mock/index.js";
import { createGateway, type Gateway } from "../../src/gateway/gateway.js";
import { gatewayDoc, makeHome, removeHome, writeConfig, writeSkill } from "../gateway/helpers.js";
import type { TestRedis } from "../support/redis.js";
import { redisForFile } from "../support/redis-for-file.js";

let redis: TestRedis;
redisForFile(0, (server) => {
  redis = server;
});

const timings = { ttlMs: 1_500, renewMs: 300, fenceAfterMs: 1_000 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let home = "";
const running: Gateway[] = [];
afterEach(async () => {
  for (const gateway of running.splice(0).reverse()) await gateway.stop().catch(() => undefined);
  if (home) await removeHome(home);
});

async function replica(id: string): Promise<{ gateway: Gateway; mock: MockAdapter }> {
  const config = await writeConfig(home, {
    gateway: gatewayDoc({ coordination: { redis_url: redis.url, replica_id: id } }),
  });
  const mock = createMockAdapter();
  const gateway = createGateway({ home, config, adapters: [mock], leaseTimings: timings });
  await gateway.start();
  running.push(gateway);
  return { gateway, mock };
}

/** The text of the answer to `eventId` among every replica's sent messages. */
async function answer(mocks: MockAdapter[], eventId: string, ms = 10_000): Promise<string> {
  const deadline = Date.now() + ms;
  for (;;) {
    const sent = mocks.flatMap((mock) => mock.sent).filter((reply) => reply.inReplyTo?.eventId === eventId);
    if (sent.length > 0) return sent.map((reply) => reply.text).join("\n");
    if (Date.now() > deadline) throw new Error(`no answer to ${eventId} within ${ms} ms`);
    await sleep(25);
  }
}

describe("versions a chat notices, under several replicas", () => {
  it("a skill loaded under one leader and changed under the next is told at the chat's next message, once", async () => {
    home = await makeHome();
    const dir = await writeSkill(home, {
      name: "cloud-deploy",
      category: "devops",
      frontmatter: { version: "1.0.0" },
    });
    const first = await replica("first");
    await sleep(500);
    await first.mock.inject("/skill cloud-deploy", { user: "reader", chat: "c1", eventId: "load" });
    expect(await answer([first.mock], "load")).toContain("cloud-deploy");
    await first.gateway.whenIdle();

    // The leader that saw the load goes; the next one never had it in memory.
    await first.gateway.stop();
    running.splice(running.indexOf(first.gateway), 1);
    const next = await replica("next");
    const file = path.join(dir, "SKILL.md");
    await fs.writeFile(
      file,
      (await fs.readFile(file, "utf8"))
        .replace("version: 1.0.0", "version: 1.1.0")
        .replace("Body", "New body"),
    );
    const mocks = [next.mock];
    await sleep(500);

    // The chat's next message is answered by the new leader with the notice.
    await next.mock.inject("/whoami", { user: "reader", chat: "c1", eventId: "after" });
    const told = await answer(mocks, "after");
    expect(told).toContain("cloud-deploy");
    expect(told).toContain("1.0.0 → 1.1.0");
    // Once: the message after it carries no notice; a chat that never loaded it hears nothing.
    await next.mock.inject("/whoami", { user: "reader", chat: "c1", eventId: "again" });
    expect(await answer(mocks, "again")).not.toContain("1.1.0");
    await next.mock.inject("/whoami", { user: "reader", chat: "c2", eventId: "other" });
    expect(await answer(mocks, "other")).not.toContain("cloud-deploy");
  });
});
