/**
 * Buttons in the gateway core, over the mock adapter: the action store (opaque ids bound to a chat,
 * expiry, groups used up once, persistence across a restart, a corrupt file), the text fallback on a
 * surface without buttons, and the configurable lifetime.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { CommandContext } from "../../commands/types.js";
import { secretAction } from "../../src/core/actions.js";
import { english, resolveText } from "../../src/core/i18n/messages.js";
import type { InboundMessage } from "../../src/core/message.js";
import { reply } from "../../src/core/reply.js";
import { ActionStore, newActionId } from "../../src/gateway/action-store.js";
import { ActionRouter } from "../../src/gateway/actions.js";
import {
  Clock,
  gatewayDoc,
  HOUR,
  makeHome,
  removeHome,
  startGateway,
  writeConfig,
  writeSkill,
} from "./helpers.js";

const homes: string[] = [];
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  for (const home of homes.splice(0)) await removeHome(home);
});

async function home(): Promise<string> {
  const dir = await makeHome();
  homes.push(dir);
  await writeSkill(dir, { name: "pdf-tools", category: "documents" });
  return dir;
}

const skillFile = (dir: string) => path.join(dir, "skills", "documents", "pdf-tools", "SKILL.md");
const exists = (file: string) =>
  fs.access(file).then(
    () => true,
    () => false,
  );

describe("action store", () => {
  it("draws ids of 22 base64url characters that never repeat across the random pool's refills", () => {
    const ids = Array.from({ length: 1000 }, () => newActionId());
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("ids are opaque, bound to their chat, expire, and a group is used up once", async () => {
    const dir = await home();
    const clock = new Clock(1_000_000);
    const store = await ActionStore.open(dir, { now: clock.now, ttlMs: HOUR });
    const where = { platform: "telegram", chatId: "42" };
    const [confirm, cancel] = await store.add(
      [
        {
          intent: { kind: "run", invocation: { path: ["curator", "archive"], args: ["x"], options: {} } },
          placement: "replace",
          group: "g",
          once: true,
        },
        { intent: { kind: "cancel" }, placement: "replace", group: "g", once: true },
      ],
      where,
    );
    expect(confirm).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(confirm).not.toBe(cancel);
    expect((await store.lookup(confirm as string, where)).status).toBe("ok");
    expect((await store.lookup(confirm as string, { platform: "telegram", chatId: "43" })).status).toBe(
      "unknown",
    );
    expect((await store.lookup(confirm as string, { platform: "discord", chatId: "42" })).status).toBe(
      "unknown",
    );
    expect((await store.lookup("curator archive x -y", where)).status).toBe("unknown");
    expect(await store.consume(cancel as string, "telegram:1")).toBe(true);
    expect(await store.consume(confirm as string, "telegram:1")).toBe(false);
    expect((await store.lookup(confirm as string, where)).status).toBe("used");
    const [late] = await store.add(
      [{ intent: { kind: "cancel" }, placement: "replace", group: "h", once: true }],
      where,
    );
    clock.advance(HOUR);
    expect((await store.lookup(late as string, where)).status).toBe("expired");
  });

  it("survives a reopen; a corrupt file starts empty without throwing", async () => {
    const dir = await home();
    const where = { platform: "mock", chatId: "c" };
    const first = await ActionStore.open(dir);
    const [id] = await first.add(
      [{ intent: { kind: "cancel" }, placement: "replace", group: "g", once: true }],
      where,
    );
    const second = await ActionStore.open(dir);
    expect((await second.lookup(id as string, where)).status).toBe("ok");
    await fs.writeFile(path.join(dir, "gateway", "actions.json"), "{not json");
    await fs.writeFile(path.join(dir, "gateway", "actions.log"), '{"add": {"torn\n');
    const third = await ActionStore.open(dir);
    expect(third.size).toBe(0);
    expect((await third.lookup(id as string, where)).status).toBe("unknown");
  });
  it("syncs a press to the disk before it acts, and shown buttons just after their add resolves", async () => {
    const dir = await home();
    const store = await ActionStore.open(dir);
    const where = { platform: "mock", chatId: "c" };
    const events: string[] = [];
    const open = fs.open.bind(fs);
    const spy = vi.spyOn(fs, "open").mockImplementation(async (...args: Parameters<typeof fs.open>) => {
      const handle = await open(...args);
      if (String(args[0]).endsWith("actions.log")) {
        const datasync = handle.datasync.bind(handle);
        handle.datasync = async () => {
          await datasync();
          events.push("synced");
        };
      }
      return handle;
    });
    try {
      const [id] = await store.add(
        [{ intent: { kind: "cancel" }, placement: "replace", group: "g", once: true }],
        where,
      );
      events.push("add resolved");
      await store.flush();
      expect(events).toEqual(["add resolved", "synced"]);
      events.length = 0;
      expect(await store.consume(id as string, "mock:1")).toBe(true);
      events.push("consume resolved");
      expect(events).toEqual(["synced", "consume resolved"]);
      // Both lines are in the journal a restarted gateway reads.
      expect((await (await ActionStore.open(dir)).lookup(id as string, where)).status).toBe("used");
    } finally {
      spy.mockRestore();
    }
  });

  it("a burst of adds shares writes, yet each add resolves only once its own buttons are on disk", async () => {
    const dir = await home();
    const store = await ActionStore.open(dir);
    // What a restarted gateway would know: the snapshot with the journal replayed.
    const onDisk = async (id: string, chatId: string) =>
      (await (await ActionStore.open(dir)).lookup(id, { platform: "mock", chatId })).status;
    const seenAtResolve: string[] = [];
    const adds = Array.from({ length: 40 }, (_, index) =>
      store
        .add([{ intent: { kind: "cancel" }, placement: "replace", group: `g${index}`, once: true }], {
          platform: "mock",
          chatId: String(index),
        })
        .then(async (ids) => {
          seenAtResolve.push(await onDisk(ids[0] as string, String(index)));
          return ids[0] as string;
        }),
    );
    const ids = await Promise.all(adds);
    expect(seenAtResolve).toEqual(Array(40).fill("ok"));
    expect((await ActionStore.open(dir)).size).toBe(40);
    // Each add is one short journal line; the stored buttons are not rewritten per reply.
    const journal = await fs.readFile(path.join(dir, "gateway", "actions.log"), "utf8");
    expect(journal.split("\n").filter(Boolean).length).toBe(40);
    // A consume racing further adds is on disk when it returns, too.
    const more = store.add(
      [{ intent: { kind: "cancel" }, placement: "replace", group: "late", once: true }],
      { platform: "mock", chatId: "late" },
    );
    expect(await store.consume(ids[0] as string, "mock:1")).toBe(true);
    await more;
    const reopened = await ActionStore.open(dir);
    expect((await reopened.lookup(ids[0] as string, { platform: "mock", chatId: "0" })).status).toBe("used");
  });

  it("folds the journal into the snapshot, and a crash at any point of that loses nothing", async () => {
    const dir = await home();
    const clock = new Clock(1_000_000);
    const store = await ActionStore.open(dir, { now: clock.now, ttlMs: HOUR });
    const journal = path.join(dir, "gateway", "actions.log");
    const snapshot = path.join(dir, "gateway", "actions.json");
    const ids: string[] = [];
    for (let index = 0; index < 600; index += 1) {
      const [id] = await store.add(
        [{ intent: { kind: "cancel" }, placement: "replace", group: `g${index}`, once: true }],
        { platform: "mock", chatId: "c" },
      );
      ids.push(id as string);
    }
    expect(await store.consume(ids[3] as string, "mock:9")).toBe(true);
    // Past 500 lines the journal was folded into the snapshot and started again.
    const lines = (await fs.readFile(journal, "utf8")).split("\n").filter(Boolean);
    expect(lines.length).toBeLessThan(600);
    const snapshotIds = Object.keys(
      (JSON.parse(await fs.readFile(snapshot, "utf8")) as { actions: object }).actions,
    );
    expect(snapshotIds.length).toBeGreaterThanOrEqual(500);
    const check = async () => {
      const reopened = await ActionStore.open(dir, { now: clock.now, ttlMs: HOUR });
      expect(reopened.size).toBe(600);
      expect((await reopened.lookup(ids[3] as string, { platform: "mock", chatId: "c" })).status).toBe(
        "used",
      );
      expect((await reopened.lookup(ids[599] as string, { platform: "mock", chatId: "c" })).status).toBe(
        "ok",
      );
    };
    await check();
    // A crash after the new snapshot but before the journal was emptied: the old journal replays over it.
    const old = lines.join("\n");
    await fs.writeFile(journal, `${old}\n`);
    await check();
    // A crash mid-append leaves a torn last line: it is skipped, and the next write starts afresh.
    await fs.writeFile(journal, `${old}\n{"add": {"abc`);
    const torn = await ActionStore.open(dir, { now: clock.now, ttlMs: HOUR });
    const [later] = await torn.add(
      [{ intent: { kind: "cancel" }, placement: "replace", group: "later", once: true }],
      { platform: "mock", chatId: "c" },
    );
    const after = await ActionStore.open(dir, { now: clock.now, ttlMs: HOUR });
    expect((await after.lookup(later as string, { platform: "mock", chatId: "c" })).status).toBe("ok");
    expect(after.size).toBe(601);
  });
});

describe("buttons through the gateway", () => {
  it("a surface without buttons gets today's text and no actions", async () => {
    const dir = await home();
    const config = await writeConfig(dir, { gateway: gatewayDoc() });
    const { gateway, mock } = await startGateway({ home: dir, config });
    stops.push(() => gateway.stop());
    const sent = await mock.request("/curator purge", { user: "admin" });
    expect(sent?.reply.actions).toBeUndefined();
    // Archive asks nothing where no button can answer: it archives at once, as before.
    const archived = await mock.request("/curator archive pdf-tools", { user: "admin" });
    expect(archived?.text).toContain("archived 'pdf-tools'");
    expect(archived?.reply.actions).toBeUndefined();
  });

  it("a shown button still works after a gateway restart, and only once", async () => {
    const dir = await home();
    const config = await writeConfig(dir, { gateway: gatewayDoc() });
    const first = await startGateway({ home: dir, config, mock: { capabilities: { buttons: true } } });
    const question = await first.mock.request("/curator archive pdf-tools", { user: "admin" });
    const buttons = first.mock.buttonsOf(question);
    expect(Object.keys(buttons)).toEqual(["Confirm", "Cancel"]);
    expect(question?.text).not.toContain("-y");
    await first.gateway.stop();

    const second = await startGateway({ home: dir, config, mock: { capabilities: { buttons: true } } });
    stops.push(() => second.gateway.stop());
    const done = await second.mock.press(buttons.Confirm as string, { user: "admin", messageId: "m1" });
    expect(done?.text).toContain("archived 'pdf-tools'");
    expect(done?.target.editMessageId).toBe("m1");
    expect(await exists(skillFile(dir))).toBe(false);
    const again = await second.mock.press(buttons.Confirm as string, { user: "admin" });
    expect(again?.reply.private).toBe(true);
    expect(again?.text).toMatch(/already answered/);
  });

  it("gateway.actions.ttl_hours sets how long a button works", async () => {
    const dir = await home();
    const clock = new Clock(Date.now());
    const config = await writeConfig(dir, { gateway: gatewayDoc({ actions: { ttl_hours: 2 } }) });
    const { gateway, mock } = await startGateway({
      home: dir,
      config,
      now: clock.now,
      mock: { capabilities: { buttons: true } },
    });
    stops.push(() => gateway.stop());
    const question = await mock.request("/curator archive pdf-tools", { user: "admin" });
    clock.advance(2 * HOUR + 1);
    const late = await mock.press(mock.buttonsOf(question).Confirm as string, { user: "admin" });
    expect(late?.text).toMatch(/expired \(buttons work for 2 h\)/);
    expect(await exists(skillFile(dir))).toBe(true);
  });

  it("a read-only user cannot use a Restore button; the admin can, into the skill's category", async () => {
    const dir = await home();
    const config = await writeConfig(dir, { gateway: gatewayDoc() });
    const { gateway, mock } = await startGateway({
      home: dir,
      config,
      mock: { capabilities: { buttons: true } },
    });
    stops.push(() => gateway.stop());
    const question = await mock.request("/curator archive pdf-tools", {
      user: "admin",
      chat: "room",
      kind: "group",
    });
    const archived = await mock.press(mock.buttonsOf(question).Confirm as string, {
      user: "admin",
      chat: "room",
      kind: "group",
    });
    const restore = mock.buttonsOf(archived)["Restore pdf-tools"] as string;
    const refused = await mock.press(restore, { user: "reader", chat: "room", kind: "group" });
    expect(refused?.reply.private).toBe(true);
    expect(refused?.text).toMatch(/admins only/);
    expect(await exists(skillFile(dir))).toBe(false);
    const restored = await mock.press(restore, { user: "admin", chat: "room", kind: "group" });
    expect(restored?.text).toContain("restored 'pdf-tools' to skills/documents/pdf-tools");
    expect(restored?.target.editMessageId).toBeUndefined();
    expect(await exists(skillFile(dir))).toBe(true);
  });
});

describe("Set KEY buttons", () => {
  const press = (senderId: string, actionId: string): InboundMessage => ({
    eventId: `e-${senderId}-${Math.random()}`,
    platform: "telegram",
    chat: { kind: "group", id: "42" },
    sender: { id: senderId, isBot: false },
    text: "",
    receivedAt: 0,
    press: { actionId },
  });
  const contextOf = (isAdmin: boolean) => () =>
    ({ caller: { platform: "telegram", id: isAdmin ? "1" : "2", isAdmin } }) as unknown as CommandContext;

  it("are stored actions: opened again and again by an admin, refused to anyone else, kept across a reopen", async () => {
    const dir = await home();
    const store = await ActionStore.open(dir);
    const router = new ActionRouter(store, []);
    const shown = await router.present(
      {
        ...reply([{ kind: "paragraph", text: "card" }]),
        actions: { rows: [[secretAction("weather", "W_KEY")]] },
      },
      { platform: "telegram", chatId: "42", buttons: true },
    );
    const button = shown.actions?.rows[0]?.[0];
    expect(english(button?.label ?? "")).toBe("Set W_KEY");
    expect(resolveText(button?.label ?? "", "zh-CN")).toBe("设置 W_KEY");
    const id = button?.id as string;
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(id).not.toContain("W_KEY");
    expect(await router.isSecretAction(press("1", id), id)).toBe(true);

    const refused = await router.judgePress(press("2", id), id, contextOf(false));
    expect(refused.kind).toBe("refused");
    expect(refused.kind === "refused" && refused.reply.private).toBe(true);
    for (let time = 0; time < 2; time++) {
      const opened = await router.judgePress(press("1", id), id, contextOf(true));
      expect(opened).toMatchObject({ kind: "secret", skill: "weather", key: "W_KEY" });
    }
    const reopened = new ActionRouter(await ActionStore.open(dir), []);
    expect(await reopened.isSecretAction(press("1", id), id)).toBe(true);
    // Another chat does not know the id.
    const elsewhere = { ...press("1", id), chat: { kind: "group" as const, id: "43" } };
    expect(await reopened.isSecretAction(elsewhere, id)).toBe(false);
    expect((await reopened.judgePress(elsewhere, id, contextOf(true))).kind).toBe("refused");
  });
});
