/**
 * Every replica takes traffic: three real gateway processes (`dist/src/cli/main.js serve`) on one home
 * and one real Redis, behind a round-robin balancer (`test/support/balancer.ts`) in front of their
 * webhook ports, under load while the leader is killed with SIGKILL twice (a supervisor starts each one
 * again under its replica id).
 *
 * Telegram posts webhook updates through the balancer (across chats at once, a chat's next only after
 * the previous was answered: the emulator follows the Bot API server), and a tenth of the updates is
 * delivered a second time, to whichever replica the balancer picks. Each command's reply echoes its
 * sequence number (`/probe<N>` is unknown and named in the reply; `/<skill> probe<N>` loads a skill and
 * repeats its instruction), so loss, order and duplicates are read off the emulator.
 *
 * Pass: nothing lost; no order inversion within a chat; no mutation applied twice (every skill's use
 * count equals its loads answered); duplicate replies only for events in flight at a kill; everything
 * answered within 30 s of the last heal. Failover times, Redis round trips per event and latency
 * percentiles against one gateway process are printed for the closing note, not asserted.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { connectRedis, type RedisClient } from "../../src/gateway/coordination/redis.js";
import { DiscordEmulator } from "../emulators/discord.js";
import { LarkEmulator } from "../emulators/lark.js";
import { TelegramEmulator } from "../emulators/telegram.js";
import { writeSkill } from "../gateway/helpers.js";
import { CLI } from "../safety/trials.js";
import { type Balancer, startBalancer } from "../support/balancer.js";
import { freePort, startRedis, type TestRedis } from "../support/redis.js";
import { spawnServe } from "../support/replica-process.js";
import { sleep, until } from "../support/until.js";

const root = path.resolve(import.meta.dirname, "../..");
const REPLICAS = ["r1", "r2", "r3"];
const CHATS = 20;
const COMMANDS_PER_CHAT = 40;
/** Per-chat spacing of commands: 20 chats × one command per this many ms ≈ 17 events/s per platform. */
const CHAT_INTERVAL_MS = 1_150;
const SKILLS = ["alpha", "bravo", "charlie"];
const SECRET = "load-test-secret_1";
const USER_BASE = 3000;

interface Replica {
  name: string;
  proc: ChildProcess;
  log: string[];
}

interface Health {
  coordination?: { role: string; redis_round_trips: number };
}

let redis: TestRedis;
/** The harness's own connection, to read which events the replicas marked handled. */
let redisClient: RedisClient;
let telegram: TelegramEmulator;
let lark: LarkEmulator;
let discord: DiscordEmulator;
/** The balancer in front of the replicas' Discord Interactions Endpoints. */
let discordBalancer: Balancer;
let balancer: Balancer;
let home: string;
const ports = new Map<string, { health: number; webhook: number; interactions: number }>();
const replicas = new Map<string, Replica>();
const allReplicas: Replica[] = [];
/** The last round-trip count each process reported (a killed one keeps its last). */
const tripsByPid = new Map<number, number>();

function spawnReplica(name: string): Replica {
  const port = ports.get(name) as { health: number; webhook: number; interactions: number };
  const { proc, log } = spawnServe({
    cli: CLI,
    cwd: root,
    home,
    replicaId: name,
    settings: {
      "gateway.health.port": port.health,
      "gateway.telegram.webhook.port": port.webhook,
      "gateway.discord.interactions.port": port.interactions,
    },
    env: {
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_WEBHOOK_SECRET: SECRET,
      FEISHU_APP_ID: lark.appId,
      FEISHU_APP_SECRET: lark.appSecret,
      DISCORD_BOT_TOKEN: discord.token,
      SKILLGATE_LOG_LEVEL: "info",
      NO_COLOR: "1",
    },
  });
  const replica = { name, proc, log };
  replicas.set(name, replica);
  allReplicas.push(replica);
  return replica;
}

async function health(replica: Replica): Promise<Health | undefined> {
  try {
    const port = ports.get(replica.name)?.health;
    const response = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1000) });
    const body = (await response.json()) as Health;
    if (replica.proc.pid && body.coordination)
      tripsByPid.set(replica.proc.pid, body.coordination.redis_round_trips);
    return body;
  } catch {
    return undefined;
  }
}

const alive = (replica: Replica) => replica.proc.exitCode === null && replica.proc.signalCode === null;

async function leader(ms = 30_000): Promise<Replica> {
  return until(
    "one leader",
    async () => {
      const leading: Replica[] = [];
      for (const replica of replicas.values())
        if (alive(replica) && (await health(replica))?.coordination?.role === "leader") leading.push(replica);
      return leading.length === 1 ? leading[0] : undefined;
    },
    ms,
  );
}

/**
 * The platforms under load: Telegram by webhook through the balancer, Feishu by a long connection per
 * replica, Discord by signed HTTP interactions through a balancer in front of the Interactions Endpoints.
 */
type LoadPlatform = "telegram" | "feishu" | "discord";
const PLATFORMS: LoadPlatform[] = ["telegram", "feishu", "discord"];
/** Discord: which interaction carried which sequence number (its replies edit that interaction). */
const discordSeqs = new Map<string, number>();
const discordUser = (chat: number) => ({
  id: `5000000000000${String(chat).padStart(4, "0")}`,
  username: `load${chat}`,
});

/** What was sent: sequence → platform, chat, time and event id; and what a kill had in flight. */
const sentAt = new Map<
  number,
  { platform: LoadPlatform; chat: number; at: number; load?: string; eventId?: string }
>();
const inFlightAtFault = new Set<number>();
/** Of those, the events no replica had appended to the inbox when the kill came. */
const outsideInboxAtFault = new Set<number>();

/** Every answer that names a sequence number, on any platform (edits of a "running" notice apart). */
function answers(): Map<number, number[]> {
  const seen = new Map<number, number[]>();
  const note = (text: string, at: number) => {
    const match = /probe(\d+)\b/.exec(text);
    if (!match) return;
    const seq = Number(match[1]);
    seen.set(seq, [...(seen.get(seq) ?? []), at]);
  };
  for (const message of telegram.sent) if (!message.edited) note(message.plain, message.at);
  for (const send of lark.sends)
    if (send.kind === "create" || send.kind === "reply") note(send.text, send.at);
  // A Discord reply edits the deferred original (once per answer) or follows up on it.
  for (const [interactionId, seq] of discordSeqs)
    for (const message of discord.interactionMessages(interactionId)) {
      if (message.shownAt === undefined) continue;
      const times =
        message.kind === "original" ? Array(message.edits).fill(message.shownAt) : [message.shownAt];
      seen.set(seq, [...(seen.get(seq) ?? []), ...times]);
    }
  return seen;
}

/** Every answer that names `seq`, with when and what it said: for the report of a command answered twice. */
function answerTexts(seq: number): { at: number; text: string }[] {
  const names = (text: string) => new RegExp(`probe${seq}\\b`).test(text);
  const found: { at: number; text: string }[] = [];
  for (const message of telegram.sent)
    if (names(message.plain))
      found.push({ at: message.at, text: `telegram${message.edited ? " (edit)" : ""}: ${message.plain}` });
  for (const send of lark.sends)
    if (names(send.text)) found.push({ at: send.at, text: `feishu ${send.kind}: ${send.text}` });
  for (const [interactionId, discordSeq] of discordSeqs)
    if (discordSeq === seq)
      for (const message of discord.interactionMessages(interactionId))
        found.push({
          at: message.shownAt ?? 0,
          text: `discord ${message.kind} (${message.edits} edits): ${message.content}`,
        });
  return found.map((item) => ({ ...item, text: item.text.slice(0, 160) }));
}

/** What the platform and Redis hold of a lost command: for the report of a failed run. */
async function lostTrace(seq: number): Promise<Record<string, unknown>> {
  const item = sentAt.get(seq);
  if (!item?.eventId) return {};
  const prefix = `skillgate:${(await fs.readFile(path.join(home, "gateway", "coordination-id"), "utf8")).trim()}:`;
  const seen = await redisClient.get(`${prefix}seen:${item.platform}:${item.eventId}`);
  if (item.platform !== "discord") return { seen };
  const record = discord.interactions.get(item.eventId);
  const token = record?.token ?? "";
  return {
    seen,
    callbacks: record?.callbacks.map((callback) => callback.type),
    failed: record?.failed,
    late: record?.late,
    webhook_calls: discord.calls
      .filter((call) => token !== "" && call.path.includes(token))
      .map((call) => `${call.method} ${call.path.replace(token, "<token>")} #${call.seq}`),
    messages: discord.interactionMessages(item.eventId).map((message) => ({
      kind: message.kind,
      edits: message.edits,
      shown: message.shownAt !== undefined,
      content: message.content.slice(0, 80),
    })),
  };
}

/**
 * Marks what is in flight now as allowed to be answered twice: sent and not yet handled to the
 * end, which the harness reads off the inbox's own record (an event is marked `done` in Redis only once
 * its reply was sent). An event answered but not yet marked may be answered again by the next leader.
 * An event no replica had put in the inbox yet may have gone to the replica about to die: the platform
 * delivers it again (Feishu re-pushes an unacknowledged event after 3 s, to any client), after the
 * chat's later commands, so only the platform's order holds for it. Returns the first sequence number
 * it did not see; `faultEnded` adds from there what was sent until the kill took effect.
 */
async function fault(): Promise<number> {
  const prefix = `skillgate:${(await fs.readFile(path.join(home, "gateway", "coordination-id"), "utf8")).trim()}:`;
  // What was sent so far, and the first sequence number after it, taken at the same moment: anything
  // sent while Redis answers below is left to `faultEnded`.
  const sent = [...sentAt.entries()];
  const firstUnread = nextSeq;
  const states = await redisClient.mGet(
    sent.map(([, item]) => `${prefix}seen:${item.platform}:${item.eventId}`),
  );
  for (const [index, [seq]] of sent.entries()) {
    if (states[index] === "done") continue;
    inFlightAtFault.add(seq);
    if (states[index] === null) outsideInboxAtFault.add(seq);
  }
  // A confirmation pressed and not yet shown as done may be lost or refused at the next leader.
  for (const chat of archivesPressed) if (!archiveShown(chat)) archivesInFlight.add(chat);
  return firstUnread;
}

/** What was sent between `fault()` and the end of the kill was in flight too, outside the inbox. */
function faultEnded(firstUnread: number): void {
  for (let seq = firstUnread; seq < nextSeq; seq++) {
    inFlightAtFault.add(seq);
    outsideInboxAtFault.add(seq);
  }
}

/** Telegram chats whose `/curator archive extra<chat>` was confirmed, and those a kill had in flight. */
const archivesPressed = new Set<number>();
const archivesInFlight = new Set<number>();
const ARCHIVING_CHATS = 10;

/** The confirmation message of the chat's archive shows it done. */
function archiveShown(chat: number): boolean {
  return telegram.sent.some(
    (message) =>
      message.chat_id === String(USER_BASE + chat) && message.plain.includes(`archived 'extra${chat}'`),
  );
}

/**
 * In Telegram chats below `ARCHIVING_CHATS`, after the fifth command (before the first kill):
 * `/curator archive extra<chat>`, then the Confirm
 * button of its question — a mutation with a ledger entry, named by the press's event id.
 */
async function archiveMidway(chat: number): Promise<void> {
  const userId = USER_BASE + chat;
  telegram.userSays({ text: `/curator archive extra${chat}`, userId, chatId: userId });
  const question = await until(
    `the archive question in chat ${chat}`,
    () =>
      telegram.sent.find(
        (message) => message.chat_id === String(userId) && message.plain.includes(`Archive 'extra${chat}'?`),
      ),
    30_000,
  );
  const confirm = question.reply_markup?.inline_keyboard[0]?.[0]?.callback_data;
  telegram.pressButton({ messageId: question.message_id, data: confirm, userId });
  archivesPressed.add(chat);
}

/** The ledger's entries that carry an operation id: how many per id, and the archives per skill. */
async function ledgerOperations(): Promise<{
  perOperation: Map<string, number>;
  archives: Map<string, number>;
}> {
  const text = await fs.readFile(path.join(home, "skills", ".curator_ledger.jsonl"), "utf8").catch(() => "");
  const perOperation = new Map<string, number>();
  const archives = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const entry = JSON.parse(line) as {
      action?: string;
      skill?: string;
      evidence?: { operation_id?: string };
    };
    const operation = entry.evidence?.operation_id;
    if (operation) perOperation.set(operation, (perOperation.get(operation) ?? 0) + 1);
    if (entry.action === "archive" && entry.skill)
      archives.set(entry.skill, (archives.get(entry.skill) ?? 0) + 1);
  }
  return { perOperation, archives };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

let nextSeq = 1;
/** Events delivered a second time. */
let redelivered = 0;

/** Says `text` in chat `chat` of `platform`; returns the event id and a redelivery of the same event. */
function say(
  platform: LoadPlatform,
  chat: number,
  text: string,
  seq: number,
  load: string | undefined,
): { eventId: string; again?: () => void } {
  if (platform === "discord") {
    // Slash commands are registered ones: a skill load, or a file of a skill that does not exist (the
    // refusal names it). Discord never delivers an interaction twice: no redelivery here.
    const record = discord.interaction({
      user: discordUser(chat),
      channelId: `6000000000000${String(chat).padStart(4, "0")}`,
      name: "skill",
      options: load ? { name: load } : { name: SKILLS[0] as string, file: `probe${seq}` },
    });
    discordSeqs.set(record.id, seq);
    return { eventId: record.id };
  }
  if (platform === "telegram") {
    const userId = USER_BASE + chat;
    const update = telegram.userSays({ text, userId, chatId: userId });
    return { eventId: String(update.update_id), again: () => telegram.redeliver({ ...update }) };
  }
  const envelope = lark.messageEvent({ text, chatId: `oc_load${chat}`, senderOpenId: `ou_load${chat}` });
  lark.publishWsEvent(envelope);
  const eventId = String((envelope.header as { event_id: string }).event_id);
  // Feishu pushes an event again to one of the connected clients, picked at random.
  return { eventId, again: () => void lark.publishWsEvent(envelope) };
}

/** One chat's commands, one every `CHAT_INTERVAL_MS`: three of four are probes, one a skill load. */
async function chatLoad(platform: LoadPlatform, chat: number, count: number): Promise<void> {
  await sleep(Math.floor((CHAT_INTERVAL_MS * chat) / CHATS));
  for (let index = 0; index < count; index++) {
    const seq = nextSeq++;
    const load = index % 4 === 3 ? SKILLS[(chat + index) % SKILLS.length] : undefined;
    const at = Date.now();
    const sent = say(platform, chat, load ? `/${load} probe${seq}` : `/probe${seq}`, seq, load);
    sentAt.set(seq, { platform, chat, at, load, eventId: sent.eventId });
    // A tenth is delivered again a moment later, to whichever replica the platform or balancer picks.
    if (seq % 10 === 0 && sent.again) {
      redelivered += 1;
      setTimeout(sent.again, 300).unref();
    }
    await sleep(CHAT_INTERVAL_MS);
    if (platform === "telegram" && chat < ARCHIVING_CHATS && index === 4) await archiveMidway(chat);
  }
}

async function useCounts(): Promise<Record<string, number>> {
  const text = await fs.readFile(path.join(home, "skills", ".usage.json"), "utf8").catch(() => "{}");
  const usage = JSON.parse(text) as Record<string, { use_count?: number }>;
  return Object.fromEntries(SKILLS.map((name) => [name, usage[name]?.use_count ?? 0]));
}

beforeAll(async () => {
  redis = await startRedis();
  redisClient = await connectRedis(redis.url);
  telegram = new TelegramEmulator();
  await telegram.listen();
  lark = new LarkEmulator({ seed: 42 });
  // Feishu's retry schedule shortened (15 s, 5 min, … after the 3 s without an ack) to fit the test.
  lark.redeliveryDelaysMs = [200, 1_000, 2_000, 4_000];
  await lark.listen();
  discord = new DiscordEmulator();
  await discord.listen();
  home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-load-"));
  await fs.mkdir(path.join(home, "skills"), { recursive: true });
  for (const name of SKILLS) await writeSkill(home, { name, description: `the ${name} skill` });
  for (let chat = 0; chat < ARCHIVING_CHATS; chat++)
    await writeSkill(home, { name: `extra${chat}`, description: `a skill chat ${chat} archives` });
  for (const name of REPLICAS)
    ports.set(name, { health: await freePort(), webhook: await freePort(), interactions: await freePort() });
  discordBalancer = await startBalancer(
    REPLICAS.map((name) => `http://127.0.0.1:${ports.get(name)?.interactions}`),
  );
  balancer = await startBalancer(REPLICAS.map((name) => `http://127.0.0.1:${ports.get(name)?.webhook}`));
  const users = Array.from({ length: CHATS }, (_, chat) => [
    `telegram:${USER_BASE + chat}`,
    `feishu:ou_load${chat}`,
    `discord:${discordUser(chat).id}`,
  ]).flat();
  await fs.writeFile(
    path.join(home, "config.yaml"),
    YAML.stringify({
      gateway: {
        admins: users,
        console: { enabled: false },
        health: { enabled: true },
        maintenance: { check_minutes: 60, first_check_seconds: 3600 },
        telegram: {
          enabled: true,
          api_root: telegram.apiRoot,
          mode: "webhook",
          webhook: { url: `${balancer.url}/tg`, path: "/tg" },
        },
        feishu: { enabled: true, domain: lark.url, mode: "websocket" },
        discord: {
          enabled: true,
          api: discord.apiBaseFor("replicas"),
          interactions: { path: "/discord/interactions", public_key: discord.publicKeyHex },
        },
        coordination: { redis_url: redis.url },
      },
    }),
  );
}, 60_000);

afterAll(async () => {
  const logs = path.join(os.tmpdir(), "skillgate-load-logs");
  await fs.mkdir(logs, { recursive: true });
  for (const replica of allReplicas) {
    await fs.writeFile(path.join(logs, `${replica.name}-${replica.proc.pid}.log`), replica.log.join(""));
    replica.proc.kill("SIGKILL");
  }
  redisClient?.destroy();
  await balancer?.close();
  await telegram?.close();
  await lark?.close();
  await discord?.close();
  await discordBalancer?.close();
  await redis?.dispose();
  if (home) await fs.rm(home, { recursive: true, force: true });
});

describe("three replicas behind a balancer, under load", () => {
  it("loses, reorders and applies twice nothing while the leader is killed twice", async () => {
    for (const name of REPLICAS) spawnReplica(name);
    await leader(60_000);
    await until("the leader's setWebhook", () => (telegram.webhook ? true : undefined), 30_000);
    for (const replica of replicas.values()) await until(`${replica.name} up`, () => health(replica), 30_000);

    await until(
      "every replica's long connection",
      () => (lark.wsConnections >= REPLICAS.length ? true : undefined),
      30_000,
    );
    await until(
      "the leader's slash commands",
      () => (discord.globalCommands().some((command) => command.name === "skill") ? true : undefined),
      30_000,
    );
    // Discord checks the URL (a PING, a forged signature) through the balancer before it uses it.
    await discord.setInteractionsEndpoint(`${discordBalancer.url}/discord/interactions`);
    const started = Date.now();
    const load = Promise.all(
      PLATFORMS.flatMap((platform) =>
        Array.from({ length: CHATS }, (_, chat) => chatLoad(platform, chat, COMMANDS_PER_CHAT)),
      ),
    );
    const failovers: number[] = [];
    /** From each kill to the first answer after it: events sent then wait for the next leader. */
    const leaderless: [number, number][] = [];
    let lastHeal = 0;
    for (const killAfterMs of [14_000, 30_000]) {
      await sleep(Math.max(0, started + killAfterMs - Date.now()));
      const current = await leader(30_000);
      await health(current);
      const firstUnread = await fault();
      const killedAt = Date.now();
      current.proc.kill("SIGKILL");
      await new Promise((resolve) => (alive(current) ? current.proc.once("exit", resolve) : resolve(null)));
      faultEnded(firstUnread);
      spawnReplica(current.name);
      const next = await leader(30_000);
      lastHeal = Date.now();
      const failover = await until(
        "an answer after the kill",
        () => {
          const after = [...answers().values()].flat().filter((time) => time > killedAt);
          return after.length > 0 ? Math.min(...after) - killedAt : undefined;
        },
        30_000,
      );
      failovers.push(failover);
      leaderless.push([killedAt, killedAt + failover]);
      expect(next.name).not.toBe(undefined);
    }
    await load;
    const lastSent = nextSeq - 1;
    await until(
      "every command answered",
      () => {
        const answered = answers();
        for (let seq = 1; seq <= lastSent; seq++) if (!answered.has(seq)) return undefined;
        return true;
      },
      Math.max(5_000, lastHeal + 30_000 - Date.now()),
    ).catch(() => undefined);
    // A moment more for second answers of in-flight commands (allowed), so the count below sees them.
    await sleep(2_000);
    for (const replica of replicas.values()) await health(replica);

    const answered = answers();
    const lost: number[] = [];
    const doubled: number[] = [];
    const inversions: number[] = [];
    const latencies: number[] = [];
    const steadyLatencies: number[] = [];
    /** The commands behind the p99 with a leader, for a reader of the figures. */
    const steadySlowest: { seq: number; latency: number; platform: LoadPlatform; at: number }[] = [];
    /** Each chat's answered commands so far: sequence and first answer. */
    const answeredOfChat = new Map<string, { seq: number; first: number }[]>();
    /** For each inversion, the earlier commands of its chat answered after it. */
    const overtakenBy = new Map<number, object[]>();
    /** Commands answered after a later one of their chat because the platform delivered them again. */
    const platformReorders: { seq: number; after: number; platform: LoadPlatform; why: string }[] = [];
    // Feishu events the platform pushed again because a push went unanswered (no ack within 3 s): a
    // replica that died or stalled with it. The harness's own second pushes are new publishes (attempt 1).
    const repushed = new Set(lark.deliveries.filter((d) => d.attempt > 1).map((d) => d.eventId));
    /** Why the platform, not the inbox, decided when `seq` arrived; undefined when the inbox did. */
    const platformPlaced = (seq: number): string | undefined => {
      if (outsideInboxAtFault.has(seq)) return "on its way to the killed replica";
      const item = sentAt.get(seq);
      if (item?.platform === "feishu" && item.eventId && repushed.has(item.eventId))
        return "pushed again by Feishu after an unanswered push";
      return undefined;
    };
    for (let seq = 1; seq <= lastSent; seq++) {
      const sent = sentAt.get(seq);
      const times = answered.get(seq) ?? [];
      if (!sent) continue;
      // Nothing is lost, not even what a kill had in flight: the platforms deliver it again, or the
      // next leader claims it from the inbox.
      if (times.length === 0) {
        lost.push(seq);
        continue;
      }
      if (times.length > 1 && !inFlightAtFault.has(seq)) doubled.push(seq);
      const first = Math.min(...times);
      const chatKey = `${sent.platform}:${sent.chat}`;
      // An inversion: an earlier command of the chat answered after this one. Exempt only an earlier
      // command whose arrival the platform decided: one on its way to the killed replica, outside the
      // inbox, or one Feishu pushed again after an unanswered push. One the inbox held keeps its place.
      const earlier = answeredOfChat.get(chatKey) ?? [];
      const overtaken = earlier.filter((item) => item.first > first);
      if (overtaken.some((item) => platformPlaced(item.seq) === undefined)) {
        inversions.push(seq);
        overtakenBy.set(
          seq,
          overtaken.map((item) => ({ seq: item.seq, first: item.first, ...sentAt.get(item.seq) })),
        );
      } else
        for (const item of overtaken)
          platformReorders.push({
            seq,
            after: item.seq,
            platform: sent.platform,
            why: platformPlaced(item.seq) ?? "",
          });
      earlier.push({ seq, first });
      answeredOfChat.set(chatKey, earlier);
      if (!inFlightAtFault.has(seq)) latencies.push(first - sent.at);
      if (!leaderless.some(([from, to]) => sent.at >= from - 1_000 && sent.at <= to)) {
        steadyLatencies.push(first - sent.at);
        steadySlowest.push({ seq, latency: first - sent.at, platform: sent.platform, at: sent.at });
      }
    }
    // Every skill's use count equals its loads answered (at least once each): nothing counted twice.
    const loadsAnswered: Record<string, number> = Object.fromEntries(SKILLS.map((name) => [name, 0]));
    for (const [seq, sent] of sentAt)
      if (sent.load && answered.has(seq)) loadsAnswered[sent.load] = (loadsAnswered[sent.load] ?? 0) + 1;
    const counts = await useCounts();
    const events = lastSent + redelivered;
    const trips = [...tripsByPid.values()].reduce((sum, value) => sum + value, 0);
    const byBackend = REPLICAS.map((_, index) => balancer.requests.filter((r) => r.backend === index).length);
    const discordByBackend = REPLICAS.map(
      (_, index) => discordBalancer.requests.filter((r) => r.backend === index).length,
    );
    const feishuByClient: Record<string, number> = {};
    for (const delivery of lark.deliveries)
      feishuByClient[delivery.clientId] = (feishuByClient[delivery.clientId] ?? 0) + 1;
    const failedInteractions = [...discordSeqs.keys()].filter((id) => discord.interactions.get(id)?.failed);
    latencies.sort((a, b) => a - b);
    steadyLatencies.sort((a, b) => a - b);
    console.log(
      JSON.stringify({
        commands: lastSent,
        deliveries: events,
        in_flight_at_kills: inFlightAtFault.size,
        lost: lost.length,
        doubled: doubled.length,
        inversions: inversions.length,
        inversion_details: inversions.map((seq) => ({
          seq,
          ...sentAt.get(seq),
          overtaken: overtakenBy.get(seq),
        })),
        doubled_details: doubled.map((seq) => ({ seq, ...sentAt.get(seq), answers: answerTexts(seq) })),
        lost_details: await Promise.all(
          lost.map(async (seq) => ({
            seq,
            ...sentAt.get(seq),
            in_flight: inFlightAtFault.has(seq),
            outside_inbox: outsideInboxAtFault.has(seq),
            ...(await lostTrace(seq)),
          })),
        ),
        reordered_by_platform_redelivery: platformReorders,
        failover_ms: failovers,
        redis_round_trips_per_event: Number((trips / events).toFixed(2)),
        latency_p50_ms: percentile(latencies, 50),
        latency_p99_ms: percentile(latencies, 99),
        latency_p50_with_a_leader_ms: percentile(steadyLatencies, 50),
        latency_p99_with_a_leader_ms: percentile(steadyLatencies, 99),
        slowest_with_a_leader: steadySlowest
          .sort((a, b) => b.latency - a.latency)
          .slice(0, Math.max(1, Math.ceil(steadySlowest.length / 100)))
          .map(({ seq, latency, platform, at }) => ({
            seq,
            latency,
            platform,
            // Sent this long after the nearest kill's first answer (negative: before the kill).
            after_failover_ms: Math.min(
              ...leaderless.map(([from, to]) => (at >= from ? at - to : at - from)).map(Math.abs),
            ),
          })),
        webhook_requests_by_replica: byBackend,
        webhook_non_2xx: balancer.requests.filter((r) => r.status >= 300).length,
        discord_interactions_by_replica: discordByBackend,
        discord_failed_interactions: failedInteractions.length,
        feishu_pushes_by_client: feishuByClient,
        use_counts: counts,
        loads_answered: loadsAnswered,
        archives_confirmed: archivesPressed.size,
        archives_in_flight_at_kills: archivesInFlight.size,
      }),
    );
    expect({ lost, doubled, inversions }).toEqual({ lost: [], doubled: [], inversions: [] });
    expect(counts).toEqual(loadsAnswered);
    // Every replica took traffic, and only a leader registered the webhook (once per leadership).
    expect(byBackend.every((count) => count > 0)).toBe(true);
    expect(discordByBackend.every((count) => count > 0)).toBe(true);
    expect(Object.keys(feishuByClient).length).toBeGreaterThan(1);
    expect(failedInteractions).toEqual([]);
    // No mutation twice: at most one ledger entry per event id, each confirmed archive done once.
    const { perOperation, archives } = await ledgerOperations();
    expect([...perOperation.values()].filter((count) => count > 1)).toEqual([]);
    for (let chat = 0; chat < ARCHIVING_CHATS; chat++) {
      const count = archives.get(`extra${chat}`) ?? 0;
      expect(count).toBeLessThanOrEqual(1);
      if (!archivesInFlight.has(chat)) expect({ chat, count }).toEqual({ chat, count: 1 });
    }
    expect(perOperation.size).toBeGreaterThanOrEqual(ARCHIVING_CHATS - archivesInFlight.size);
    expect(telegram.callsOf("setWebhook").length).toBeLessThanOrEqual(3);
  }, 240_000);

  it("with Redis away the webhooks answer 503 and nothing is handled; service resumes once it is back", async () => {
    await leader(30_000);
    const before = answers().size;
    const deliveriesBefore = telegram.webhookDeliveries.length;
    await redis.stop();
    const stoppedAt = Date.now();
    const during: number[] = [];
    for (let chat = 0; chat < 5; chat++) {
      const seq = nextSeq++;
      during.push(seq);
      const at = Date.now();
      const update = telegram.userSays({
        text: `/probe${seq}`,
        userId: USER_BASE + chat,
        chatId: USER_BASE + chat,
      });
      sentAt.set(seq, { platform: "telegram", chat, at, eventId: String(update.update_id) });
    }
    // Telegram retries what was not answered with 2xx: the replicas answer 503 while Redis is away.
    await until(
      "a 503 from a replica",
      () =>
        telegram.webhookDeliveries.slice(deliveriesBefore).some((d) => d.status === 503) ? true : undefined,
      10_000,
    );
    const unavailable = await until(
      "a replica reporting coordination unavailable",
      async () => {
        for (const replica of replicas.values()) {
          const body = (await health(replica)) as { coordination?: { redis?: string } } | undefined;
          if (body?.coordination?.redis === "unavailable") return true;
        }
        return undefined;
      },
      10_000,
    );
    expect(unavailable).toBe(true);
    await sleep(Math.max(0, stoppedAt + 8_000 - Date.now()));
    // Nothing was handled around the inbox while it was away.
    const answeredDuring = during.filter((seq) => answers().has(seq));
    expect(answeredDuring).toEqual([]);
    await redis.start();
    const backAt = Date.now();
    await until(
      "the commands sent during the outage answered",
      () => {
        const answered = answers();
        return during.every((seq) => answered.has(seq)) ? true : undefined;
      },
      60_000,
    );
    const resumedMs = Date.now() - backAt;
    const doubled = during.filter((seq) => (answers().get(seq)?.length ?? 0) > 1);
    console.log(
      JSON.stringify({ redis_outage_ms: backAt - stoppedAt, resumed_after_ms: resumedMs, doubled }),
    );
    expect(doubled).toEqual([]);
    expect(answers().size).toBe(before + during.length);
  }, 120_000);
});

describe("the same load on one gateway process, for comparison", () => {
  it("answers every command once; its latency is the baseline the closing note compares with", async () => {
    const single = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-load-single-"));
    const port = await freePort();
    const emulator = new TelegramEmulator();
    await emulator.listen();
    try {
      await fs.mkdir(path.join(single, "skills"), { recursive: true });
      for (const name of SKILLS) await writeSkill(single, { name, description: `the ${name} skill` });
      const users = Array.from({ length: CHATS }, (_, chat) => `telegram:${USER_BASE + chat}`);
      await fs.writeFile(
        path.join(single, "config.yaml"),
        YAML.stringify({
          gateway: {
            admins: users,
            console: { enabled: false },
            health: { enabled: false },
            maintenance: { check_minutes: 60, first_check_seconds: 3600 },
            telegram: {
              enabled: true,
              api_root: emulator.apiRoot,
              mode: "webhook",
              webhook: { url: `http://127.0.0.1:${port}/tg`, path: "/tg", port },
            },
          },
        }),
      );
      const proc = spawn(process.execPath, [CLI, "--home", single, "serve"], {
        cwd: root,
        env: {
          ...process.env,
          TELEGRAM_BOT_TOKEN: emulator.token,
          TELEGRAM_WEBHOOK_SECRET: SECRET,
          NO_COLOR: "1",
        },
        stdio: ["ignore", "ignore", "ignore"],
      });
      try {
        await until("the webhook registered", () => (emulator.webhook ? true : undefined), 30_000);
        const sent = new Map<number, number>();
        let seq = 100_000;
        await Promise.all(
          Array.from({ length: CHATS }, async (_, chat) => {
            await sleep(Math.floor((CHAT_INTERVAL_MS * chat) / CHATS));
            for (let index = 0; index < 10; index++) {
              const own = seq++;
              sent.set(own, Date.now());
              emulator.userSays({ text: `/probe${own}`, userId: USER_BASE + chat, chatId: USER_BASE + chat });
              await sleep(CHAT_INTERVAL_MS);
            }
          }),
        );
        const answeredAt = () => {
          const first = new Map<number, number>();
          for (const message of emulator.sent) {
            const match = /probe(\d+)\b/.exec(message.plain);
            if (match && !first.has(Number(match[1]))) first.set(Number(match[1]), message.at);
          }
          return first;
        };
        await until(
          "every command answered",
          () => (answeredAt().size === sent.size ? true : undefined),
          30_000,
        );
        const latencies = [...sent]
          .map(([own, at]) => (answeredAt().get(own) ?? at) - at)
          .sort((a, b) => a - b);
        console.log(
          JSON.stringify({
            single_process_commands: sent.size,
            single_latency_p50_ms: percentile(latencies, 50),
            single_latency_p99_ms: percentile(latencies, 99),
          }),
        );
        expect(answeredAt().size).toBe(sent.size);
      } finally {
        proc.kill("SIGKILL");
      }
    } finally {
      await emulator.close();
      await fs.rm(single, { recursive: true, force: true });
    }
  }, 90_000);
});
