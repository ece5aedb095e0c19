/**
 * The Discord Interactions Endpoint end to end: the real adapter (discord.js for the gateway session and
 * REST) listening on 127.0.0.1, and the emulator POSTing Ed25519-signed interactions to it as Discord
 * does once the application's Interactions Endpoint URL is set. The test plays the gateway through the
 * sink, the hooks and `send`; the replica split runs two adapters, the receiving one never logged in.
 */
import { promises as fs } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { diagnoseDiscord } from "../../adapters/discord/doctor.js";
import type { DiscordAdapter } from "../../adapters/discord/index.js";
import { publicKeyFromHex, verifyInteraction } from "../../adapters/discord/signature.js";
import { parseConfig } from "../../src/config/config.js";
import { createLogger } from "../../src/core/logger.js";
import type { AdapterHooks, InboundMessage, InboundSink } from "../../src/core/message.js";
import { type Reply, textReply } from "../../src/core/reply.js";
import { connectRedis, type RedisClient } from "../../src/gateway/coordination/redis.js";
import { RedisAdapterState } from "../../src/gateway/coordination/redis-state.js";
import { DiscordEmulator, type EmulatedInteraction, type EmulatorUser } from "../emulators/discord.js";
import { bareDiscordAdapter } from "../support/harness/discord.js";
import { startRedis, type TestRedis } from "../support/redis.js";
import { slowRequest } from "../support/slow-request.js";
import { arrived } from "../support/until.js";
import { autocompletePdf, sampleCatalog, suggestTestSkills } from "./catalog.js";

const GUILD = "910000000000000001";
const CHANNEL = "920000000000000001";
const alice: EmulatorUser = { id: "222333444555666777", username: "alice", global_name: "Alice" };
const mallory: EmulatorUser = { id: "777666555444333222", username: "mallory" };

/** What a person is told when no hook localizes it (a refusing sink, the shared inbox down). */
const UNAVAILABLE_NOTICE =
  "skillgate is briefly unavailable and did not take this. Please try again in a moment.";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function emulator(): Promise<DiscordEmulator> {
  const created = new DiscordEmulator();
  await created.listen();
  cleanups.push(() => created.close());
  return created;
}

interface Started {
  adapter: DiscordAdapter;
  inbox: InboundMessage[];
  /** `http://127.0.0.1:port/discord/interactions`. */
  url: string;
}

/**
 * Starts an adapter with the Interactions Endpoint on an ephemeral port, its REST calls named `client`
 * at the emulator; `sink` defaults to collecting into `inbox`.
 */
async function start(
  discord: DiscordEmulator,
  options: {
    client?: string;
    sink?: InboundSink;
    hooks?: Partial<AdapterHooks>;
    publicKey?: string;
    /** False: no Interactions Endpoint (interactions come over the gateway session). */
    endpoint?: boolean;
    /** The endpoint's port (default: any free one). */
    port?: number;
  } = {},
): Promise<Started> {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-discord-endpoint-"));
  cleanups.push(() => fs.rm(home, { recursive: true, force: true }));
  const { adapter, inbox } = await bareDiscordAdapter({
    home,
    admin: alice,
    section: {
      api: discord.apiBaseFor(options.client ?? "default"),
      ...(options.endpoint === false
        ? {}
        : { interactions: { port: options.port ?? 0, path: "/discord/interactions" } }),
    },
    secrets: {
      DISCORD_BOT_TOKEN: discord.token,
      DISCORD_PUBLIC_KEY: options.publicKey ?? discord.publicKeyHex,
    },
    sink: options.sink,
    hooks: { suggestSkills: suggestTestSkills, ...options.hooks },
  });
  cleanups.push(() => adapter.stop());
  return { adapter, inbox, url: `http://127.0.0.1:${adapter.interactionsPort}/discord/interactions` };
}

function pin(discord: DiscordEmulator, user: EmulatorUser = alice): EmulatedInteraction {
  return discord.interaction({
    user,
    guildId: GUILD,
    channelId: CHANNEL,
    name: "curator",
    subcommand: "pin",
    options: { skill: "pdf-tools" },
  });
}

/** A reply carrying one stored button (as the gateway's action store would have set its id). */
function question(actionId: string): Reply {
  return {
    ...textReply("Archive 'pdf-tools'?"),
    actions: { rows: [[{ label: "Confirm", intent: { kind: "cancel" }, id: actionId }]] },
  };
}

const types = (record: EmulatedInteraction) => record.callbacks.map((callback) => callback.type);

describe("discord interactions endpoint", () => {
  it("answers a signed PING, refuses a bad or missing signature with 401, and passes Discord's URL check", async () => {
    const discord = await emulator();
    const { url } = await start(discord);
    const ping = { id: "1", application_id: discord.applicationId, type: 1, token: "t", version: 1 };
    const pong = await discord.postSigned(url, ping);
    expect(pong.status).toBe(200);
    expect(pong.contentType).toMatch(/^application\/json/);
    expect(pong.json).toEqual({ type: 1 });
    expect((await discord.postSigned(url, ping, { badSignature: true })).status).toBe(401);
    expect((await discord.postSigned(url, ping, { unsigned: true })).status).toBe(401);
    // The body is part of what is signed: a body changed after signing is refused too.
    const tampered = await discord.postSigned(url, ping, {
      sentBody: JSON.stringify({ ...ping, type: 2 }),
    });
    expect(tampered.status).toBe(401);
    await discord.setInteractionsEndpoint(url);
  });

  it("refuses a signed interaction whose timestamp is old, in the future or not digits: a replay is 401", async () => {
    const discord = await emulator();
    const { url, inbox } = await start(discord);
    const ping = { id: "1", application_id: discord.applicationId, type: 1, token: "t", version: 1 };
    const now = Math.floor(Date.now() / 1000);
    // A captured interaction replayed after the dedupe window (48 h) keeps the timestamp it was signed with.
    for (const timestamp of [
      String(now - 49 * 3600),
      String(now - 301),
      String(now + 301),
      "1",
      "abc",
      "4102444800",
      `${now}.0`,
      ` ${now}`,
    ]) {
      expect((await discord.postSigned(url, ping, { timestamp })).status, timestamp).toBe(401);
    }
    const command = {
      id: "930000000000000001",
      application_id: discord.applicationId,
      type: 2,
      token: "itoken-replayed",
      version: 1,
      channel_id: CHANNEL,
      guild_id: GUILD,
      member: { user: alice, roles: [] },
      data: { id: "1", name: "curator", type: 1, options: [{ type: 1, name: "pin", options: [] }] },
    };
    expect((await discord.postSigned(url, command, { timestamp: String(now - 49 * 3600) })).status).toBe(401);
    expect(inbox).toHaveLength(0);
    // Within five minutes either way, it is taken.
    expect((await discord.postSigned(url, ping, { timestamp: String(now - 240) })).status).toBe(200);
    expect((await discord.postSigned(url, ping, { timestamp: String(now + 240) })).status).toBe(200);
  });

  it("a signed body that is not an interaction object is 400, not 500", async () => {
    const discord = await emulator();
    const { url } = await start(discord);
    for (const body of ["null", "12", "[]", '"x"']) {
      expect((await discord.postSigned(url, body, { sentBody: body })).status, body).toBe(400);
    }
  });

  it("refuses from the headers alone, before a body that never ends is read", async () => {
    const discord = await emulator();
    const { url } = await start(discord);
    // Headers and a first chunk; the rest never comes.
    const status = (headers: Record<string, string>) => slowRequest(url, headers);
    const stamp = String(Math.floor(Date.now() / 1000));
    const signature = "a".repeat(128);
    expect(await status({ "x-signature-ed25519": signature, "x-signature-timestamp": "1" })).toBe(401);
    expect(await status({ "x-signature-ed25519": "zz", "x-signature-timestamp": stamp })).toBe(401);
    expect(await status({ "x-signature-timestamp": stamp })).toBe(401);
    expect(
      await status({
        "x-signature-ed25519": signature,
        "x-signature-timestamp": stamp,
        "content-length": String(2 * 1024 * 1024),
      }),
    ).toBe(413);
  });

  it("refuses to start without a usable public key or on a port in use, saying what to set", async () => {
    const discord = await emulator();
    await expect(start(discord, { publicKey: "" })).rejects.toThrow(/DISCORD_PUBLIC_KEY/);
    await expect(start(discord, { publicKey: "not-hex" })).rejects.toThrow(/is not a public key/);
    const busy = http.createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise((resolve) => busy.close(() => resolve())));
    const port = (busy.address() as AddressInfo).port;
    await expect(start(discord, { port })).rejects.toThrow(
      new RegExp(`127\\.0\\.0\\.1:${port}.*gateway\\.discord\\.interactions\\.port`),
    );
  });

  it("the emulator refuses an endpoint URL that takes bad signatures, as Discord does", async () => {
    const discord = await emulator();
    const lax = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" }).end('{"type":1}');
    });
    await new Promise<void>((resolve) => lax.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise((resolve) => lax.close(() => resolve())));
    const url = `http://127.0.0.1:${(lax.address() as AddressInfo).port}/`;
    await expect(discord.setInteractionsEndpoint(url)).rejects.toThrow(/invalid signature/);
    // A wrong public key refuses Discord's own signature: the PING check fails.
    const other = new DiscordEmulator();
    const { url: misconfigured } = await start(discord, { publicKey: other.publicKeyHex });
    await expect(discord.setInteractionsEndpoint(misconfigured)).rejects.toThrow(/PING/);
  });

  it("the emulator fails an interaction whose endpoint does not answer within the deadline", async () => {
    const discord = new DiscordEmulator({ interactionDeadlineMs: 300 });
    await discord.listen();
    cleanups.push(() => discord.close());
    // An endpoint that verifies signatures and answers PINGs, but never answers an interaction.
    const key = publicKeyFromHex(discord.publicKeyHex);
    const silent = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const body = Buffer.concat(chunks);
        const signature = req.headers["x-signature-ed25519"] as string | undefined;
        const timestamp = req.headers["x-signature-timestamp"] as string | undefined;
        if (!key || !verifyInteraction(key, signature, timestamp, body)) res.writeHead(401).end();
        else if ((JSON.parse(body.toString()) as { type: number }).type === 1)
          res.writeHead(200, { "content-type": "application/json" }).end('{"type":1}');
      });
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    cleanups.push(
      () =>
        new Promise((resolve) => {
          silent.closeAllConnections();
          silent.close(() => resolve());
        }),
    );
    await discord.setInteractionsEndpoint(`http://127.0.0.1:${(silent.address() as AddressInfo).port}/`);
    const sent = pin(discord);
    await sent.delivered;
    expect(sent.failed).toMatch(/no response within 300 ms/);
    expect(sent.callbacks).toEqual([]);
  });

  it("a slash command by HTTP is delivered, deferred in the response, then the reply edits it", async () => {
    const discord = await emulator();
    const { adapter, inbox, url } = await start(discord);
    await adapter.syncCommands(sampleCatalog);
    await discord.setInteractionsEndpoint(url);
    const sent = pin(discord);
    await sent.delivered;
    expect(sent.via).toBe("http");
    expect(sent.failed).toBeUndefined();
    expect(types(sent)).toEqual([5]);
    // Not over the gateway, and not through the callback route: the HTTP response was the answer.
    expect(discord.calls.some((call) => call.path.startsWith("/interactions/"))).toBe(false);
    const message = await arrived(inbox, sent.id);
    expect(inbox).toHaveLength(1);
    expect(message.command).toEqual({
      name: "curator",
      args: ["pin", "pdf-tools"],
      rawArgs: "pin pdf-tools",
    });
    await adapter.send({ chatId: CHANNEL }, textReply("pinned 'pdf-tools'"), message);
    const [original] = discord.interactionMessages(sent.id);
    expect(original?.deferred).toBe(false);
    expect(original?.content).toBe("pinned 'pdf-tools'");
    expect(original?.allowedMentions).toEqual({ parse: [] });
  });

  it("a button press by HTTP gets a deferred update, and the result edits the pressed message", async () => {
    const discord = await emulator();
    const { adapter, inbox, url } = await start(discord);
    await adapter.send({ chatId: CHANNEL }, question("act-confirm-1"));
    const shown = await discord.waitForMessage((message) => message.components.length > 0);
    await discord.setInteractionsEndpoint(url);
    const press = discord.pressButton({ user: alice, messageId: shown.id, label: "Confirm" });
    await press.delivered;
    expect(press.via).toBe("http");
    expect(types(press)).toEqual([6]);
    const message = await arrived(inbox, press.id);
    expect(message.press).toEqual({ actionId: "act-confirm-1", messageId: shown.id });
    await adapter.send(
      { chatId: CHANNEL, editMessageId: shown.id },
      textReply("archived 'pdf-tools'"),
      message,
    );
    const edited = discord.messages.find((candidate) => candidate.id === shown.id);
    expect(edited?.content).toBe("archived 'pdf-tools'");
    expect(edited?.components).toEqual([]);
    // A refusal after the deferred update goes privately as a follow-up.
    await adapter.send({ chatId: CHANNEL }, { ...textReply("admins only"), private: true }, message);
    const refusal = discord.interactionMessages(press.id).find((candidate) => candidate.kind === "followup");
    expect(refusal?.ephemeral).toBe(true);
    expect(refusal?.content).toBe("admins only");
  });

  it("a refused press answers the HTTP request itself, privately, as over the gateway", async () => {
    const discord = await emulator();
    let adapter: DiscordAdapter | undefined;
    // The gateway judges a press inside the sink and sends a refusal at once.
    const started = await start(discord, {
      sink: async (message) => {
        await adapter?.send({ chatId: CHANNEL }, { ...textReply("admins only"), private: true }, message);
      },
    });
    adapter = started.adapter;
    await adapter.send({ chatId: CHANNEL }, question("act-confirm-2"));
    const shown = await discord.waitForMessage((message) => message.components.length > 0);
    await discord.setInteractionsEndpoint(started.url);
    const press = discord.pressButton({ user: alice, messageId: shown.id, label: "Confirm" });
    await press.delivered;
    expect(types(press)).toEqual([4]);
    const [answer] = discord.interactionMessages(press.id);
    expect(answer?.ephemeral).toBe(true);
    expect(answer?.content).toBe("admins only");
  });

  it("answers autocomplete in the response with the gateway's suggestions", async () => {
    const discord = await emulator();
    const { adapter, inbox, url } = await start(discord);
    await adapter.syncCommands(sampleCatalog);
    await discord.setInteractionsEndpoint(url);
    const choices = await autocompletePdf(discord, alice, { guildId: GUILD, channelId: CHANNEL });
    expect(choices).toEqual([
      { name: "pdf-tools", value: "pdf-tools" },
      { name: "pdf-forms", value: "pdf-forms" },
    ]);
    const record = [...discord.interactions.values()].find((candidate) => candidate.type === 4);
    expect(record?.via).toBe("http");
    expect(record && types(record)).toEqual([8]);
    expect(inbox).toHaveLength(0);
  });

  it("a stranger's command is answered privately and never delivered", async () => {
    const discord = await emulator();
    const { inbox, url } = await start(discord);
    await discord.setInteractionsEndpoint(url);
    const sent = pin(discord, mallory);
    await sent.delivered;
    expect(types(sent)).toEqual([4]);
    const [answer] = discord.interactionMessages(sent.id);
    expect(answer?.ephemeral).toBe(true);
    expect(answer?.content).toContain(`discord:${mallory.id}`);
    expect(inbox).toHaveLength(0);
  });

  it("when the sink refuses (shared inbox down), nothing is deferred: the user is told to try again", async () => {
    const discord = await emulator();
    const { adapter, url } = await start(discord, {
      sink: async () => {
        throw new Error("the shared inbox is unreachable");
      },
    });
    await adapter.send({ chatId: CHANNEL }, question("act-confirm-3"));
    const shown = await discord.waitForMessage((message) => message.components.length > 0);
    await discord.setInteractionsEndpoint(url);
    const sent = pin(discord);
    const press = discord.pressButton({ user: alice, messageId: shown.id, label: "Confirm" });
    await Promise.all([sent.delivered, press.delivered]);
    for (const record of [sent, press]) {
      expect(record.failed).toBeUndefined();
      expect(types(record)).toEqual([4]);
      const [answer] = discord.interactionMessages(record.id);
      expect(answer?.ephemeral).toBe(true);
      expect(answer?.content).toBe(UNAVAILABLE_NOTICE);
    }
    // The pressed message is untouched: no deferred update, no edit.
    expect(discord.messages.find((message) => message.id === shown.id)?.edits).toBe(0);
  });

  it("tells a refused person in their own language through the gateway's hook", async () => {
    const discord = await emulator();
    const asked: [string | undefined, string][] = [];
    const { url } = await start(discord, {
      sink: async () => {
        throw new Error("the shared inbox is unreachable");
      },
      hooks: {
        notTakenNotice: (message, kind) => {
          asked.push([message.language, kind]);
          return message.language === "zh-CN" ? "暂时不可用" : "unavailable";
        },
      },
    });
    await discord.setInteractionsEndpoint(url);
    const sent = pin(discord, { ...alice, locale: "zh-CN" });
    await sent.delivered;
    expect(discord.interactionMessages(sent.id)[0]?.content).toBe("暂时不可用");
    expect(asked).toEqual([["zh-CN", "interaction"]]);
  });

  it("a secret modal opens as the press's first answer and its value reaches only the hook", async () => {
    const discord = await emulator();
    const submitted: { token: string; sender: string; value: string }[] = [];
    const { adapter, inbox, url } = await start(discord, {
      hooks: {
        secretInput: {
          open: async () => ({
            token: "tok_0123456789abcdef",
            key: "PDF_API_KEY",
            skill: "pdf-tools",
            prompt: "PDF_API_KEY",
          }),
          describe: async () => ({ key: "PDF_API_KEY", prompt: "PDF_API_KEY" }),
          submit: async (token, sender, value) => {
            submitted.push({ token, sender, value });
            return textReply("`PDF_API_KEY` set ✓");
          },
        },
      },
    });
    await adapter.send({ chatId: CHANNEL }, question("act-secret-1"));
    const shown = await discord.waitForMessage((message) => message.components.length > 0);
    await discord.setInteractionsEndpoint(url);
    const press = discord.pressButton({ user: alice, messageId: shown.id, label: "Confirm" });
    await press.delivered;
    expect(types(press)).toEqual([9]);
    const modal = press.callbacks[0]?.data as { custom_id?: string };
    expect(modal.custom_id).toBe("sg:secret:tok_0123456789abcdef");
    const submit = discord.submitModal({
      user: alice,
      guildId: GUILD,
      channelId: CHANNEL,
      customId: String(modal.custom_id),
      values: { value: "s3cr3t-value" },
    });
    await submit.delivered;
    expect(submitted).toEqual([{ token: "tok_0123456789abcdef", sender: alice.id, value: "s3cr3t-value" }]);
    expect(types(submit)).toEqual([4]);
    expect(discord.interactionMessages(submit.id)[0]?.content).toBe("`PDF_API_KEY` set ✓");
    expect(inbox).toHaveLength(0);
  });
});

describe("discord replicas sharing the ingress", () => {
  it("replica A takes the interaction by HTTP without a gateway session; the leader B answers from the JSON alone", async () => {
    const discord = await emulator();
    const forwarded: InboundMessage[] = [];
    // B leads: it logs in and sends. A only runs its endpoint and appends to the "shared inbox".
    const leader = await start(discord, { client: "b", hooks: { sharedIngress: true } });
    await leader.adapter.lead();
    await leader.adapter.syncCommands(sampleCatalog);
    const receiver = await start(discord, {
      client: "a",
      hooks: { sharedIngress: true },
      sink: async (message) => {
        forwarded.push(JSON.parse(JSON.stringify(message)) as InboundMessage);
      },
    });
    expect(discord.identifies).toBe(1);
    expect(receiver.adapter.health().state).toBe("connected");
    await discord.setInteractionsEndpoint(receiver.url);

    const sent = pin(discord);
    await sent.delivered;
    expect(types(sent)).toEqual([5]);
    const command = await arrived(forwarded, sent.id);
    expect(command.command?.args).toEqual(["pin", "pdf-tools"]);
    await leader.adapter.send({ chatId: CHANNEL }, textReply("pinned 'pdf-tools'"), command);
    expect(discord.interactionMessages(sent.id)[0]?.content).toBe("pinned 'pdf-tools'");
    const edits = discord.calls.filter((call) => call.path.startsWith("/webhooks/"));
    expect(edits.length).toBeGreaterThan(0);
    expect(edits.every((call) => call.client === "b")).toBe(true);

    // A press: deferred by A's response, the pressed message edited by B.
    await leader.adapter.send({ chatId: CHANNEL }, question("act-confirm-4"));
    const shown = await discord.waitForMessage((message) => message.components.length > 0);
    const press = discord.pressButton({ user: alice, messageId: shown.id, label: "Confirm" });
    await press.delivered;
    expect(types(press)).toEqual([6]);
    const pressed = await arrived(forwarded, press.id);
    const acknowledged = await leader.adapter.acknowledge(
      { chatId: CHANNEL, editMessageId: shown.id },
      textReply("running…"),
      pressed,
    );
    expect(acknowledged).toBeUndefined();
    expect(discord.messages.find((message) => message.id === shown.id)?.content).toBe("running…");
    await leader.adapter.send(
      { chatId: CHANNEL, editMessageId: shown.id },
      textReply("archived 'pdf-tools'"),
      pressed,
    );
    expect(discord.messages.find((message) => message.id === shown.id)?.content).toBe("archived 'pdf-tools'");
    // Nothing was answered by A through REST, nothing delivered to the leader's own sink.
    expect(discord.calls.filter((call) => call.client === "a")).toEqual([]);
    expect(leader.inbox).toHaveLength(0);
  });

  it("without an endpoint, start opens no gateway session; lead() does, and an interaction the sink refuses is not deferred", async () => {
    const discord = await emulator();
    let inboxUp = false;
    const taken: InboundMessage[] = [];
    const { adapter } = await start(discord, {
      endpoint: false,
      hooks: { sharedIngress: true },
      sink: async (message) => {
        if (!inboxUp) throw new Error("the shared inbox is unreachable");
        taken.push(message);
      },
    });
    expect(discord.identifies).toBe(0);
    expect(adapter.interactionsPort).toBeUndefined();
    await adapter.lead();
    await adapter.lead();
    expect(discord.identifies).toBe(1);
    expect(adapter.health().state).toBe("connected");

    const refused = pin(discord);
    await discord.waitForAcknowledgement(refused);
    expect(refused.via).toBe("gateway");
    expect(types(refused)).toEqual([4]);
    expect(discord.interactionMessages(refused.id)[0]?.content).toBe(UNAVAILABLE_NOTICE);

    inboxUp = true;
    const accepted = pin(discord);
    await discord.waitForAcknowledgement(accepted);
    expect(types(accepted)).toEqual([5]);
    expect(taken.map((message) => message.eventId)).toEqual([accepted.id]);
  });

  describe("on a real redis-server", () => {
    let redis: TestRedis;
    let client: RedisClient;
    beforeAll(async () => {
      redis = await startRedis();
      client = await connectRedis(redis.url);
      await client.set("layout:leader-epoch", "1");
    });
    afterAll(async () => {
      client.destroy();
      await redis.dispose();
    });

    it("a replica that never registered commands reads the leader's option layout: a string flag stays a flag", async () => {
      const discord = await emulator();
      const state = (epoch: number | undefined) =>
        new RedisAdapterState({
          redis: client,
          prefix: "layout:",
          epochKey: "layout:leader-epoch",
          epoch: () => epoch,
        });
      const leader = await start(discord, {
        client: "b",
        hooks: { sharedIngress: true, sharedState: state(1) },
      });
      await leader.adapter.lead();
      await leader.adapter.syncCommands(sampleCatalog);
      const forwarded: InboundMessage[] = [];
      const receiver = await start(discord, {
        client: "a",
        hooks: { sharedIngress: true, sharedState: state(undefined) },
        sink: async (message) => {
          forwarded.push(JSON.parse(JSON.stringify(message)) as InboundMessage);
        },
      });
      await discord.setInteractionsEndpoint(receiver.url);
      const sent = discord.interaction({
        user: alice,
        guildId: GUILD,
        channelId: CHANNEL,
        name: "curator",
        subcommand: "backup",
        options: { reason: "before upgrade" },
      });
      await sent.delivered;
      const message = await arrived(forwarded, sent.id);
      // Without the leader's layout the string option would be read as two positional words.
      expect(message.command?.args).toEqual(["backup", "--reason", "before upgrade"]);
    });
  });
});

describe("discord doctor and the Interactions Endpoint", () => {
  it("says when Discord sends interactions to a URL this gateway does not serve, and never takes the running endpoint's port", async () => {
    const discord = await emulator();
    const { url, adapter } = await start(discord);
    await adapter.syncCommands(sampleCatalog);
    await discord.setInteractionsEndpoint(url);
    const diagnose = (interactions: Record<string, unknown> | undefined, publicKey?: string) =>
      diagnoseDiscord({
        config: parseConfig({
          gateway: { discord: { api: discord.apiBase, ...(interactions ? { interactions } : {}) } },
        }),
        home: os.tmpdir(),
        secret: (name) =>
          name === "DISCORD_BOT_TOKEN"
            ? discord.token
            : name === "DISCORD_PUBLIC_KEY"
              ? publicKey
              : undefined,
        logger: createLogger({ level: "silent" }),
      });
    const served = await diagnose({ port: adapter.interactionsPort }, discord.publicKeyHex);
    expect(served.filter((check) => check.status !== "ok")).toEqual([]);
    expect(served.map((check) => check.summary).join("\n")).toContain(`Discord POSTs to ${url}`);
    const unserved = await diagnose(undefined);
    const mismatch = unserved.find((check) => check.status === "fail");
    expect(mismatch?.summary).toContain(`Interactions Endpoint URL is ${url}`);
    const keyless = await diagnose({ port: adapter.interactionsPort });
    expect(keyless.find((check) => check.status === "fail")?.summary).toMatch(/DISCORD_PUBLIC_KEY is not/);
    // The running endpoint still answers: the doctor never bound its port.
    expect(
      (await discord.postSigned(url, { id: "1", application_id: discord.applicationId, type: 1, token: "t" }))
        .json,
    ).toEqual({ type: 1 });
  });
});
