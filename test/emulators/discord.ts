/**
 * A loopback Discord emulator for end-to-end tests with the real discord.js: the REST API (v10) the
 * client and skillgate call, and the gateway WebSocket (Hello, Identify → READY, GUILD_CREATE for every
 * guild, heartbeat acks, resume). Tests inject slash commands, autocomplete requests and messages, and
 * read what the bot posted, edited and registered. It enforces the limits that matter (2000-character
 * messages, command name/description rules, one response per interaction) so a client bug fails loudly.
 *
 * Rules the real service applies and the emulator models (each cites where it is documented):
 * - privileged intents requested in Identify but not switched on in the Developer Portal close the
 *   connection with 4014;
 * - without the Message Content intent, guild message content arrives empty unless the bot is mentioned;
 * - an interaction (slash command or autocomplete) must get its first response within 3 s, and its
 *   token works for follow-ups and edits for 15 minutes;
 * - the bot has a managed role, and a message that mentions it lists it in `mention_roles`;
 * - `@everyone`/`@here` and user mentions in bot messages ping only as `allowed_mentions` permits;
 * - files come as multipart/form-data: the message JSON in a `payload_json` part and each file in a
 *   part named `files[n]` with a filename, at most 10 per message, each within the upload limit (see
 *   `DEFAULT_ATTACHMENT_LIMIT`); a message with a file may have empty content;
 * - with an Interactions Endpoint URL set (`setInteractionsEndpoint`), interactions are POSTed there,
 *   signed with the application's Ed25519 key, and no longer sent over the gateway; the URL is accepted
 *   only after a PING is answered with a PONG and a request with a bad signature is refused with 401.
 *
 * Each REST call records which client made it: a client pointed at `apiBaseFor(name)` is `name`.
 */
import { generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { EventEmitter } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocket, WebSocketServer } from "ws";
import { type FormPart, multipartBoundary, parseFormData } from "./multipart.js";

/** A Discord user as the emulator sends it. */
export interface EmulatorUser {
  id: string;
  username: string;
  global_name?: string | null;
  bot?: boolean;
  /**
   * The client language the user chose; Discord sends it as every interaction's `locale` ("Selected
   * language of the invoking user", Interaction Object). Default `en-US`.
   */
  locale?: string;
}

/** A guild with its text channels. */
export interface EmulatorGuild {
  id: string;
  name: string;
  channels: { id: string; name: string; type?: number }[];
  /**
   * The guild's `preferred_locale`: "the preferred locale of a Community guild; used in server
   * discovery and notices from Discord, and sent in interactions; defaults to \"en-US\"" (Discord docs,
   * Guild Resource → Guild Object). Sent in GUILD_CREATE and GUILD_UPDATE, and as `guild_locale` in
   * every interaction from the guild. Default "en-US".
   */
  preferredLocale?: string;
}

/** Emulator setup; everything has a usable default. */
export interface DiscordEmulatorOptions {
  token?: string;
  applicationId?: string;
  bot?: EmulatorUser;
  guilds?: EmulatorGuild[];
  /** Heartbeat interval sent in Hello (ms). */
  heartbeatIntervalMs?: number;
  /**
   * Privileged intents switched on in the Developer Portal. All off by default, as for a new
   * application: the Message Content intent must be toggled on by hand.
   */
  privilegedIntents?: { messageContent?: boolean; guildMembers?: boolean; guildPresences?: boolean };
  /** Time allowed for the first interaction response (ms); Discord's is 3 s. */
  interactionDeadlineMs?: number;
  /** How long an interaction token stays valid for edits and follow-ups (ms); Discord's is 15 min. */
  interactionTokenLifetimeMs?: number;
  /** Id of the bot's managed role in every guild. */
  botRoleId?: string;
  /** Largest file accepted per attachment (bytes); default `DEFAULT_ATTACHMENT_LIMIT`. */
  attachmentSizeLimit?: number;
  /**
   * How many servers the bot is in on Discord's side (default: the emulated guilds). Only the emulated
   * ones are sent; the count decides the recommended shards and whether a session is refused (4011).
   */
  memberOfGuilds?: number;
}

/**
 * The default upload limit per attachment for a bot in a server without boosts: 10 MiB. Discord docs,
 * Reference → Uploading Files ("the default file upload limit is 10 MiB"; raised with the server's
 * boost level); the change log of 2024-12 ("Default File Upload Limit", discord/discord-api-docs#7312)
 * moved it from 25 MiB to 10 MiB (bots first, webhooks and interaction responses from 2025-01-16), and
 * since 2025-04 the limit is checked per attachment rather than per message ("Per-Attachment File Upload
 * Behavior for Apps", discord-api-docs#7451). An upload over it is answered 413 with code 40005
 * "Request entity too large". (A docs change of 2026-09, discord-api-docs#8578, speaks of 20 MiB while
 * bots were still refused above 10 MiB, discord-api-docs#8572; the emulator keeps the stricter figure.)
 */
export const DEFAULT_ATTACHMENT_LIMIT = 10 * 1024 * 1024;

/** "Up to 10 files" per message (Discord docs, Create Message → `files[n]`; Message → attachments). */
const MAX_ATTACHMENTS = 10;

/** A file the bot attached to a message. */
export interface EmulatedAttachment {
  id: string;
  filename: string;
  size: number;
  /** The bytes as uploaded. */
  data: Buffer;
}

/**
 * Gateway intent bits that are privileged (Discord docs, Gateway → Privileged Intents):
 * GUILD_MEMBERS (1 << 1), GUILD_PRESENCES (1 << 8), MESSAGE_CONTENT (1 << 15).
 */
export const PRIVILEGED_INTENTS = { guildMembers: 1 << 1, guildPresences: 1 << 8, messageContent: 1 << 15 };

/** One REST request the emulator received. */
export interface EmulatorCall {
  seq: number;
  method: string;
  /** Path after `/api/v10`, URL-decoded (`/webhooks/app/token/messages/@original`). */
  path: string;
  query: Record<string, string>;
  body: unknown;
  /** The request carried `Authorization: Bot <the right token>`. */
  authorized: boolean;
  /** The `files[n]` parts of a multipart request, in order. */
  files: FormPart[];
  /** The client that made it: the name in `apiBaseFor(name)`, or `default` for `apiBase`. */
  client: string;
}

/** A message the bot created (in a channel, as an interaction response, or as a follow-up). */
export interface EmulatedMessage {
  id: string;
  channelId: string;
  content: string;
  kind: "channel" | "original" | "followup";
  interactionId?: string;
  /** `message_reference.message_id` of a channel reply. */
  replyTo?: string;
  /** The original response is a deferral (“thinking…”) that has not been edited yet. */
  deferred: boolean;
  /** How many times it was edited. */
  edits: number;
  /**
   * When its content first reached the user (ms since epoch): at creation, or for a deferred original
   * at its first edit.
   */
  shownAt?: number;
  /** Sequence number of the REST call that created it. */
  createdSeq: number;
  /** Sequence number of the latest REST call that changed it. */
  updatedSeq: number;
  allowedMentions?: unknown;
  /** Action rows of buttons on the message (as the bot sent them). */
  components: ComponentRow[];
  /** Embeds on the message. */
  embeds: Record<string, unknown>[];
  /** Sent with the EPHEMERAL flag (64): only the interacting user sees it. */
  ephemeral?: boolean;
  /** The message pinged @everyone/@here (its text has one and `allowed_mentions` did not stop it). */
  mentionsEveryone: boolean;
  /** Files attached to the message. */
  attachments: EmulatedAttachment[];
}

/** What a person reads in a message: its content and the title and description of its embeds. */
export function visibleText(message: EmulatedMessage): string {
  const embeds = message.embeds.map((embed) =>
    [embed.title, embed.description].filter((part) => typeof part === "string").join("\n"),
  );
  return [message.content, ...embeds].filter((part) => part.length > 0).join("\n");
}

/** One action row of the message components the emulator understands (buttons). */
export interface ComponentRow {
  type: 1;
  components: { type: 2; style: number; label?: string; custom_id?: string }[];
}

/** A registered application command (whatever the client sent, plus ids). */
export interface RegisteredCommand {
  id: string;
  application_id: string;
  guild_id?: string;
  name: string;
  description: string;
  type?: number;
  options?: unknown[];
  [key: string]: unknown;
}

/** An interaction the emulator dispatched. */
export interface EmulatedInteraction {
  id: string;
  token: string;
  type: number;
  payload: Record<string, unknown>;
  /** Callback types received, in order (5 defer, 4 reply, 6 deferred update, 7 update, 8 autocomplete result). */
  callbacks: { type: number; data: unknown; seq: number }[];
  /** When it was dispatched (ms since epoch): the 3-second and 15-minute clocks start here. */
  createdAt: number;
  /** Callbacks refused because they came after the 3-second deadline. */
  late: number;
  /** How it was delivered: over the gateway session, or POSTed to the Interactions Endpoint URL. */
  via: "gateway" | "http";
  /**
   * Delivered by HTTP: settles once the endpoint answered (or did not in time); `failed` then says why
   * the user saw "This interaction failed".
   */
  delivered: Promise<void>;
  /** Why the interaction failed for the user (HTTP: no valid initial response within 3 s). */
  failed?: string;
}

/** What `interaction()` takes. Options are a map (types inferred) or raw option objects. */
export interface InteractionInput {
  user: EmulatorUser;
  channelId: string;
  /** Omit for a DM. */
  guildId?: string;
  name: string;
  subcommand?: string;
  options?: Record<string, string | number | boolean> | Record<string, unknown>[];
  /** For autocomplete: the option being typed. */
  focused?: string;
  kind?: "command" | "autocomplete";
}

/** What `userMessage()` takes. */
export interface MessageInput {
  user: EmulatorUser;
  channelId: string;
  /** Omit for a DM. */
  guildId?: string;
  content: string;
  /** Extra users mentioned; the bot is added automatically when the content contains `<@botId>`. */
  mentions?: EmulatorUser[];
  /** Discord channel type; defaults to 1 (DM) without a guild, else the guild channel's type. */
  channelType?: number;
  /** Reuse this message id (a replay of the same message, as after a resume). */
  id?: string;
  /** Send as MESSAGE_UPDATE: the user edited message `id`. */
  edit?: boolean;
}

const DISCORD_EPOCH = 1_420_070_400_000n;
/**
 * A command's or option's name, localized or not (Application Commands, "Application Command Naming",
 * https://discord.com/developers/docs/interactions/application-commands#application-command-object-application-command-naming):
 * `^[-_\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$`, lower-case where a letter has a lower-case form.
 */
const NAME_RULE = /^[-_\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;
const WRONG_TOKEN_CLOSE = 4004;
/**
 * "4014 Disallowed intent(s): You sent a disallowed intent for a Gateway Intent. You may have tried to
 * specify an intent that you have not enabled or are not approved for." (Discord docs, Opcodes and
 * Status Codes → Gateway Close Event Codes; not reconnectable).
 */
const DISALLOWED_INTENTS_CLOSE = 4014;
/**
 * "4011 Sharding required: The session would have handled too many guilds - you are required to shard
 * your connection in order to connect" (Discord docs, Opcodes and Status Codes → Gateway Close Event
 * Codes; not reconnectable). Topics → Gateway → Sharding: "each shard can only support a maximum of
 * 2500 guilds"; a bot in more must identify with `shard: [id, count]` so that no shard holds more.
 */
const SHARDING_REQUIRED_CLOSE = 4011;
/** The most guilds one gateway session (shard) may hold. */
const MAX_GUILDS_PER_SHARD = 2_500;
/** Get Gateway Bot's `shards` is "the recommended number of shards": one per 1,000 guilds. */
const GUILDS_PER_RECOMMENDED_SHARD = 1_000;
/** "You must send an initial response within 3 seconds of receiving the event" (Receiving and Responding). */
const INTERACTION_DEADLINE_MS = 3_000;
/** "Interaction tokens are valid for 15 minutes" (Receiving and Responding → Followup Messages). */
const INTERACTION_TOKEN_LIFETIME_MS = 15 * 60 * 1000;

/** The emulator. `listen()` first; `close()` at the end. */
export class DiscordEmulator {
  readonly token: string;
  readonly applicationId: string;
  readonly bot: EmulatorUser;
  readonly guilds: EmulatorGuild[];
  /** Servers the bot is in on Discord's side (`DiscordEmulatorOptions.memberOfGuilds`). */
  readonly memberOfGuilds: number;
  /** Every REST call, in order. */
  readonly calls: EmulatorCall[] = [];
  /** Every message the bot created. */
  readonly messages: EmulatedMessage[] = [];
  /** Interactions dispatched, by id. */
  readonly interactions = new Map<string, EmulatedInteraction>();
  /** Number of successful Identify handshakes. */
  identifies = 0;
  /** Heartbeats received (each answered with op 11). */
  heartbeats = 0;
  /** Intents of the last Identify. */
  lastIntents: number | undefined;
  /** Close codes the emulator sent, in order. */
  readonly closeCodes: number[] = [];
  /** The bot's managed role id (the same in every guild). */
  readonly botRoleId: string;
  /** Privileged intents switched on in the "Developer Portal" (tests may flip them). */
  privileged: { messageContent: boolean; guildMembers: boolean; guildPresences: boolean };
  interactionDeadlineMs: number;
  interactionTokenLifetimeMs: number;
  /** Largest file accepted per attachment (bytes); tests may lower it to see an upload refused. */
  attachmentSizeLimit: number;

  private readonly heartbeatIntervalMs: number;
  private readonly server = http.createServer((req, res) => void this.onRequest(req, res));
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sessions = new Map<WebSocket, { seq: number; sessionId: string | null }>();
  private readonly global: RegisteredCommand[] = [];
  private readonly guildCommandSets = new Map<string, RegisteredCommand[]>();
  private readonly events = new EventEmitter();
  private seq = 0;
  private forcedClose: number | undefined;
  private idCounter = 0n;
  /**
   * The application's Ed25519 key pair; the Developer Portal shows the public half as PUBLIC KEY (64
   * hex digits), which the bot verifies every HTTP interaction with.
   */
  private readonly keys = generateKeyPairSync("ed25519");
  /** The Interactions Endpoint URL once accepted; interactions then go there, not over the gateway. */
  private endpointUrl: string | undefined;
  /** Component interaction id → the message whose button was pressed (its `@original`). */
  private readonly componentMessages = new Map<string, string>();
  private port = 0;

  constructor(options: DiscordEmulatorOptions = {}) {
    this.token = options.token ?? "emulator-bot-token";
    this.applicationId = options.applicationId ?? "900000000000000001";
    this.bot = options.bot ?? { id: this.applicationId, username: "skillgate", bot: true };
    this.guilds = options.guilds ?? [
      {
        id: "910000000000000001",
        name: "Test Guild",
        channels: [{ id: "920000000000000001", name: "general" }],
      },
    ];
    this.memberOfGuilds = options.memberOfGuilds ?? this.guilds.length;
    this.heartbeatIntervalMs = options.heartbeatIntervalMs ?? 41_250;
    this.privileged = {
      messageContent: options.privilegedIntents?.messageContent ?? false,
      guildMembers: options.privilegedIntents?.guildMembers ?? false,
      guildPresences: options.privilegedIntents?.guildPresences ?? false,
    };
    this.interactionDeadlineMs = options.interactionDeadlineMs ?? INTERACTION_DEADLINE_MS;
    this.interactionTokenLifetimeMs = options.interactionTokenLifetimeMs ?? INTERACTION_TOKEN_LIFETIME_MS;
    this.botRoleId = options.botRoleId ?? "940000000000000001";
    this.attachmentSizeLimit = options.attachmentSizeLimit ?? DEFAULT_ATTACHMENT_LIMIT;
    this.events.setMaxListeners(0);
    this.server.on("upgrade", (req, socket, head) => {
      if (!req.url?.startsWith("/gateway")) {
        socket.destroy();
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => this.onSocket(ws));
    });
  }

  /** Starts listening on 127.0.0.1 (ephemeral port); returns the REST base for `rest.api`. */
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this.apiBase;
  }

  /** `http://127.0.0.1:PORT/api`: what discord.js takes as `rest.api`. */
  get apiBase(): string {
    return `http://127.0.0.1:${this.port}/api`;
  }

  /**
   * The REST base for one named client (`http://127.0.0.1:PORT/client/<name>/api`): its calls record
   * `client: name`, so a test tells which process made each call.
   */
  apiBaseFor(name: string): string {
    return `http://127.0.0.1:${this.port}/client/${encodeURIComponent(name)}/api`;
  }

  /** The application's public key as the Developer Portal shows it: 64 hex digits. */
  get publicKeyHex(): string {
    // An Ed25519 SPKI is a 12-byte header and the 32 key bytes.
    return this.keys.publicKey.export({ format: "der", type: "spki" }).subarray(12).toString("hex");
  }

  /**
   * Sets the application's Interactions Endpoint URL as the Developer Portal does: Discord first sends
   * a PING, which must be answered 200 with a PONG (`{"type":1}`) and a JSON Content-Type, and checks
   * that a request with an invalid signature is refused with 401 (Discord docs, Interactions → Overview
   * → Setting Up an Endpoint: "If either of these are not complete, your Interactions Endpoint URL will
   * not be validated"; it also sends invalid signatures on purpose). Throws, keeping the previous
   * setting, when the endpoint fails either check; once set, interactions go there and no longer over
   * the gateway (Receiving and Responding → Receiving an Interaction: the two are "mutually exclusive").
   * `undefined` removes the URL.
   */
  async setInteractionsEndpoint(url: string | undefined): Promise<void> {
    if (url === undefined) {
      this.endpointUrl = undefined;
      return;
    }
    const ping = await this.postSigned(url, {
      id: this.nextId(),
      application_id: this.applicationId,
      type: 1,
      token: `itoken-ping-${this.nextId()}`,
      version: 1,
    });
    const pong = ping.json as { type?: unknown } | undefined;
    if (ping.status !== 200 || !/^application\/json/.test(ping.contentType) || pong?.type !== 1)
      throw new Error(
        `discord emulator: the interactions endpoint did not acknowledge the PING (HTTP ${ping.status}, ${ping.contentType || "no content type"}, ${ping.text.slice(0, 80)})`,
      );
    const forged = await this.postSigned(
      url,
      { id: this.nextId(), application_id: this.applicationId, type: 1, token: "itoken-forged", version: 1 },
      { badSignature: true },
    );
    if (forged.status !== 401)
      throw new Error(
        `discord emulator: the interactions endpoint answered a request with an invalid signature with ${forged.status}, not 401`,
      );
    this.endpointUrl = url;
  }

  /**
   * POSTs an interaction body to an endpoint as Discord does: `X-Signature-Ed25519` (hex) over
   * `X-Signature-Timestamp` + the body, signed with the application's key (or, `badSignature`, with
   * another key; `unsigned`: without the headers; `sentBody`: another body than the one signed;
   * `timestamp`: the `X-Signature-Timestamp` signed and sent instead of now's Unix seconds — a replay of
   * a request captured earlier keeps the timestamp it was signed with). Gives up after `timeoutMs`
   * (status 0). Discord docs, Interactions → Overview → "Validating Security Request Headers": the
   * signature is Ed25519 over `X-Signature-Timestamp` + the raw body.
   */
  async postSigned(
    url: string,
    body: unknown,
    options: {
      badSignature?: boolean;
      unsigned?: boolean;
      sentBody?: string;
      timeoutMs?: number;
      timestamp?: string;
    } = {},
  ): Promise<{ status: number; contentType: string; text: string; json?: unknown }> {
    const text = typeof body === "string" ? body : JSON.stringify(body);
    const timestamp = options.timestamp ?? String(Math.floor(Date.now() / 1000));
    const key: KeyObject = options.badSignature
      ? generateKeyPairSync("ed25519").privateKey
      : this.keys.privateKey;
    const signature = sign(null, Buffer.from(timestamp + text, "utf8"), key).toString("hex");
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (!options.unsigned) {
      headers["x-signature-ed25519"] = signature;
      headers["x-signature-timestamp"] = timestamp;
    }
    try {
      const response = await fetch(url, {
        method: "POST",
        headers,
        body: options.sentBody ?? text,
        signal: AbortSignal.timeout(options.timeoutMs ?? this.interactionDeadlineMs),
      });
      const answer = await response.text();
      let json: unknown;
      try {
        json = answer.length > 0 ? JSON.parse(answer) : undefined;
      } catch {
        json = undefined;
      }
      return {
        status: response.status,
        contentType: response.headers.get("content-type") ?? "",
        text: answer,
        json,
      };
    } catch (error) {
      return { status: 0, contentType: "", text: String(error) };
    }
  }

  /**
   * Sends an interaction the way the application is set up: over the gateway session, or — with an
   * Interactions Endpoint URL — as a signed POST whose response body is the initial response. Discord
   * waits 3 s for it ("you must send an initial response within 3 seconds of receiving the event",
   * Receiving and Responding); a missing, late or invalid one fails the interaction (the token is then
   * invalidated, and Discord does not send it again).
   */
  private deliverInteraction(record: EmulatedInteraction): void {
    const url = this.endpointUrl;
    if (!url) {
      this.dispatch("INTERACTION_CREATE", record.payload);
      return;
    }
    record.via = "http";
    record.delivered = this.postSigned(url, record.payload).then((response) => {
      if (response.status === 0) {
        record.failed = `no response within ${this.interactionDeadlineMs} ms`;
      } else if (response.status === 202 && record.callbacks.length > 0) {
        // Answered through the callback route instead: "respond to the original HTTP request with a 202
        // and no body" (Receiving and Responding → Create Interaction Response).
      } else if (response.status !== 200 || !/^application\/json/.test(response.contentType)) {
        record.failed = `HTTP ${response.status}`;
      } else {
        const answer = this.respond(record, response.json, ++this.seq);
        if (answer.status >= 400) record.failed = `invalid response: ${JSON.stringify(answer.json)}`;
      }
      this.events.emit("call");
    });
  }

  /** Closes every socket and the server. */
  async close(): Promise<void> {
    for (const ws of this.sessions.keys()) ws.terminate();
    this.sessions.clear();
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Commands registered globally. */
  globalCommands(): RegisteredCommand[] {
    return [...this.global];
  }

  /** Commands registered in one guild. */
  guildCommands(guildId: string): RegisteredCommand[] {
    return [...(this.guildCommandSets.get(guildId) ?? [])];
  }

  /** Connected, identified gateway clients. */
  get connectedClients(): number {
    return [...this.sessions.values()].filter((session) => session.sessionId !== null).length;
  }

  /**
   * A user presses a button on a message the bot sent: dispatches a MESSAGE_COMPONENT interaction
   * (type 3) with `data.custom_id` (the button's, or `customId` to forge one) and the message itself,
   * as Discord does. The bot must acknowledge it within 3 s (callback 4, 5, 6 or 7).
   */
  pressButton(input: {
    user: EmulatorUser;
    messageId: string;
    label?: string;
    customId?: string;
  }): EmulatedInteraction {
    const message = this.messages.find((candidate) => candidate.id === input.messageId);
    if (!message) throw new Error(`DiscordEmulator: no message ${input.messageId}`);
    const button = message.components
      .flatMap((row) => row.components)
      .find((candidate) => input.label !== undefined && candidate.label === input.label);
    const customId = input.customId ?? button?.custom_id;
    if (customId === undefined) throw new Error(`DiscordEmulator: no button ${input.label ?? "?"}`);
    const id = this.nextId();
    const token = `itoken-${id}`;
    const user = publicUser(input.user);
    const guild = this.guilds.find((candidate) =>
      candidate.channels.some((channel) => channel.id === message.channelId),
    );
    const channel = interactionChannel(guild, message.channelId, user);
    const payload: Record<string, unknown> = {
      id,
      application_id: this.applicationId,
      type: 3,
      token,
      version: 1,
      channel_id: message.channelId,
      channel,
      message: this.messageJson(message),
      data: { custom_id: customId, component_type: 2 },
      app_permissions: "2248473465835073",
      locale: input.user.locale ?? "en-US",
      entitlements: [],
      authorizing_integration_owners: guild ? { "0": guild.id } : { "1": input.user.id },
      context: guild ? 0 : 1,
      ...whereFields(guild, user),
    };
    this.componentMessages.set(id, message.id);
    return this.recordInteraction(id, token, 3, payload);
  }

  /** Resolves once the interaction got its callback (its acknowledgement). */
  async waitForAcknowledgement(record: EmulatedInteraction, timeoutMs = 5_000): Promise<void> {
    await this.waitFor(
      "call",
      () => (record.callbacks.length > 0 || record.failed !== undefined ? true : undefined),
      timeoutMs,
      "interaction response",
    );
  }

  /** Dispatches a slash command (or an autocomplete request) and returns its record. */
  interaction(input: InteractionInput): EmulatedInteraction {
    const leaves = toOptions(input.options ?? {}, input.focused);
    const options = input.subcommand ? [{ type: 1, name: input.subcommand, options: leaves }] : leaves;
    return this.dispatchInteraction(
      input.kind === "autocomplete" ? 4 : 2,
      input.user,
      input.channelId,
      { id: this.commandIdFor(input.name, input.guildId), name: input.name, type: 1, options },
      {},
      input.guildId,
      input.user.locale ?? "en-US",
    );
  }

  /** Sends an autocomplete request and resolves with the choices the bot answers. */
  async autocomplete(
    input: Omit<InteractionInput, "kind"> & { focused: string },
    timeoutMs = 5_000,
  ): Promise<{ name: string; value: string | number }[]> {
    const record = this.interaction({ ...input, kind: "autocomplete" });
    await this.waitForAcknowledgement(record, timeoutMs);
    const answer = record.callbacks[0];
    if (!answer) throw new Error(`discord emulator: the autocomplete request failed (${record.failed})`);
    return ((answer.data as { choices?: { name: string; value: string | number }[] } | undefined)?.choices ??
      []) as { name: string; value: string | number }[];
  }

  /**
   * Dispatches a modal submission (MODAL_SUBMIT, type 5) as Discord sends it: label components holding
   * the submitted text inputs. The values travel only in this interaction, never in a message.
   */
  submitModal(input: {
    user: EmulatorUser;
    channelId: string;
    guildId?: string;
    customId: string;
    values: Record<string, string>;
  }): EmulatedInteraction {
    const components = Object.entries(input.values).map(([customId, value], index) => ({
      type: 18,
      id: index * 2 + 1,
      component: { type: 4, id: index * 2 + 2, custom_id: customId, value },
    }));
    return this.dispatchInteraction(
      5,
      input.user,
      input.channelId,
      { custom_id: input.customId, components },
      {},
      input.guildId,
    );
  }

  /**
   * Builds an interaction of `type` as Discord sends it (slash command, autocomplete, button press, modal
   * submission), records it and delivers it to the bot over the gateway or the endpoint.
   */
  private dispatchInteraction(
    type: number,
    user: EmulatorUser,
    channelId: string,
    data: Record<string, unknown>,
    extra: Record<string, unknown>,
    guildId?: string,
    locale = "en-US",
  ): EmulatedInteraction {
    const id = this.nextId();
    const token = `itoken-${id}`;
    const guild = guildId ? this.guilds.find((candidate) => candidate.id === guildId) : undefined;
    const author = publicUser(user);
    const payload: Record<string, unknown> = {
      id,
      application_id: this.applicationId,
      type,
      token,
      version: 1,
      channel_id: channelId,
      channel: interactionChannel(guild, channelId, author),
      data,
      app_permissions: "2248473465835073",
      locale,
      entitlements: [],
      authorizing_integration_owners: guildId ? { "0": guildId } : { "1": user.id },
      context: guildId ? 0 : 1,
      attachment_size_limit: 10_485_760,
      ...extra,
      ...whereFields(guild, author),
    };
    return this.recordInteraction(id, token, type, payload);
  }

  /** Records a new interaction and delivers it to the bot (over the gateway, or the endpoint when set). */
  private recordInteraction(
    id: string,
    token: string,
    type: number,
    payload: Record<string, unknown>,
  ): EmulatedInteraction {
    const record: EmulatedInteraction = {
      id,
      token,
      type,
      payload,
      callbacks: [],
      createdAt: Date.now(),
      late: 0,
      via: "gateway",
      delivered: Promise.resolve(),
    };
    this.interactions.set(id, record);
    this.deliverInteraction(record);
    return record;
  }

  /** Dispatches MESSAGE_CREATE from a user; returns the message id. */
  userMessage(input: MessageInput): string {
    const id = input.id ?? this.nextId();
    const mentions = [...(input.mentions ?? [])];
    if (input.content.includes(`<@${this.bot.id}>`) || input.content.includes(`<@!${this.bot.id}>`)) {
      mentions.push(this.bot);
    }
    // Role mentions `<@&id>` are listed in `mention_roles` (Discord docs, Message object).
    const mentionRoles = input.guildId
      ? [...input.content.matchAll(/<@&(\d+)>/g)].map((match) => match[1] as string)
      : [];
    const addressed =
      mentions.some((user) => user.id === this.bot.id) || mentionRoles.includes(this.botRoleId);
    // "Apps without the intent will receive empty values in fields that contain user-inputted content",
    // except in DMs and messages in which the app is mentioned (Discord docs, Gateway → Message
    // Content Intent). A mention of the app's managed role is taken as a mention of the app.
    const contentVisible =
      !input.guildId || addressed || ((this.lastIntents ?? 0) & PRIVILEGED_INTENTS.messageContent) !== 0;
    const guild = input.guildId ? this.guilds.find((candidate) => candidate.id === input.guildId) : undefined;
    const channelType =
      input.channelType ??
      (guild ? (guild.channels.find((candidate) => candidate.id === input.channelId)?.type ?? 0) : 1);
    const payload: Record<string, unknown> = {
      id,
      channel_id: input.channelId,
      channel_type: channelType,
      author: publicUser(input.user),
      content: contentVisible ? input.content : "",
      timestamp: new Date().toISOString(),
      edited_timestamp: input.edit ? new Date().toISOString() : null,
      tts: false,
      mention_everyone: false,
      mentions: mentions.map(publicUser),
      mention_roles: mentionRoles,
      attachments: [],
      embeds: [],
      pinned: false,
      type: 0,
      flags: 0,
      components: [],
      nonce: id,
      ...(input.guildId
        ? {
            guild_id: input.guildId,
            member: { roles: [], joined_at: new Date().toISOString(), deaf: false, mute: false, flags: 0 },
          }
        : {}),
    };
    this.dispatch(input.edit ? "MESSAGE_UPDATE" : "MESSAGE_CREATE", payload);
    return id;
  }

  /** Sends any dispatch event to every identified client. */
  dispatch(event: string, data: unknown): void {
    for (const [ws, session] of this.sessions) {
      if (session.sessionId === null || ws.readyState !== WebSocket.OPEN) continue;
      session.seq += 1;
      ws.send(JSON.stringify({ op: 0, t: event, s: session.seq, d: data }));
    }
  }

  /** Resolves with the first bot message (created or edited) that matches; rejects after the timeout. */
  waitForMessage(
    predicate: (message: EmulatedMessage) => boolean,
    timeoutMs = 5_000,
  ): Promise<EmulatedMessage> {
    return this.waitFor("message", () => this.messages.find(predicate), timeoutMs, "bot message");
  }

  /** Resolves with the first REST call that matches; rejects after the timeout. */
  waitForCall(predicate: (call: EmulatorCall) => boolean, timeoutMs = 5_000): Promise<EmulatorCall> {
    return this.waitFor("call", () => this.calls.find(predicate), timeoutMs, "REST call");
  }

  /** Resolves once `count` clients have identified. */
  waitForIdentify(count = 1, timeoutMs = 5_000): Promise<number> {
    return this.waitFor(
      "identify",
      () => (this.identifies >= count ? this.identifies : undefined),
      timeoutMs,
      "identify",
    );
  }

  /** Resolves once `count` heartbeats have been answered. */
  waitForHeartbeats(count: number, timeoutMs = 5_000): Promise<number> {
    return this.waitFor(
      "heartbeat",
      () => (this.heartbeats >= count ? this.heartbeats : undefined),
      timeoutMs,
      "heartbeat",
    );
  }

  /** Messages of one interaction (original first, then follow-ups), in creation order. */
  interactionMessages(interactionId: string): EmulatedMessage[] {
    return this.messages.filter((message) => message.interactionId === interactionId);
  }

  private waitFor<T>(event: string, probe: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    const found = probe();
    if (found !== undefined) return Promise.resolve(found);
    return new Promise<T>((resolve, reject) => {
      const check = (): void => {
        const value = probe();
        if (value === undefined) return;
        clearTimeout(timer);
        this.events.off(event, check);
        resolve(value);
      };
      const timer = setTimeout(() => {
        this.events.off(event, check);
        reject(new Error(`discord emulator: no matching ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.events.on(event, check);
    });
  }

  private nextId(): string {
    this.idCounter += 1n;
    return String(((BigInt(Date.now()) - DISCORD_EPOCH) << 22n) | (this.idCounter & 0xfffn));
  }

  private commandIdFor(name: string, guildId: string | undefined): string {
    const set = guildId ? (this.guildCommandSets.get(guildId) ?? []) : [];
    return (
      set.find((command) => command.name === name)?.id ??
      this.global.find((command) => command.name === name)?.id ??
      this.nextId()
    );
  }

  // ---- gateway WebSocket -------------------------------------------------------------------------

  private onSocket(ws: WebSocket): void {
    const session = { seq: 0, sessionId: null as string | null };
    this.sessions.set(ws, session);
    ws.send(
      JSON.stringify({ op: 10, d: { heartbeat_interval: this.heartbeatIntervalMs }, s: null, t: null }),
    );
    ws.on("message", (data) => {
      let frame: { op?: number; d?: Record<string, unknown> };
      try {
        frame = JSON.parse(String(data));
      } catch {
        ws.close(4002, "Decode error");
        return;
      }
      this.onFrame(ws, session, frame);
    });
    ws.on("close", () => this.sessions.delete(ws));
  }

  private onFrame(
    ws: WebSocket,
    session: { seq: number; sessionId: string | null },
    frame: { op?: number; d?: Record<string, unknown> },
  ): void {
    switch (frame.op) {
      case 1:
        this.heartbeats += 1;
        ws.send(JSON.stringify({ op: 11, d: null, s: null, t: null }));
        this.events.emit("heartbeat");
        return;
      case 2: {
        if (frame.d?.token !== this.token) {
          this.closeCodes.push(WRONG_TOKEN_CLOSE);
          ws.close(WRONG_TOKEN_CLOSE, "Authentication failed.");
          return;
        }
        const intents = Number(frame.d?.intents ?? 0);
        this.lastIntents = intents;
        // Identify's `shard` is [shard_id, num_shards]; without it the session is the only shard.
        const shard = Array.isArray(frame.d?.shard) ? (frame.d.shard as number[]) : [0, 1];
        const shardCount = Math.max(1, Number(shard[1] ?? 1));
        if (Math.ceil(this.memberOfGuilds / shardCount) > MAX_GUILDS_PER_SHARD) {
          this.closeCodes.push(SHARDING_REQUIRED_CLOSE);
          ws.close(SHARDING_REQUIRED_CLOSE, "Sharding required.");
          this.events.emit("identify");
          return;
        }
        if (this.forcedClose !== undefined) {
          const code = this.forcedClose;
          this.forcedClose = undefined;
          this.closeCodes.push(code);
          ws.close(code, code === DISALLOWED_INTENTS_CLOSE ? "Disallowed intent(s)." : "Closed by the test.");
          this.events.emit("identify");
          return;
        }
        const disallowed = (Object.keys(PRIVILEGED_INTENTS) as (keyof typeof PRIVILEGED_INTENTS)[]).filter(
          (name) => (intents & PRIVILEGED_INTENTS[name]) !== 0 && !this.privileged[name],
        );
        if (disallowed.length > 0) {
          this.closeCodes.push(DISALLOWED_INTENTS_CLOSE);
          ws.close(DISALLOWED_INTENTS_CLOSE, "Disallowed intent(s).");
          this.events.emit("identify");
          return;
        }
        session.sessionId = `session-${this.nextId()}`;
        this.identifies += 1;
        const send = (t: string, d: unknown): void => {
          session.seq += 1;
          ws.send(JSON.stringify({ op: 0, t, s: session.seq, d }));
        };
        send("READY", {
          v: 10,
          user: { ...publicUser(this.bot), bot: true, verified: true, flags: 0, mfa_enabled: false },
          guilds: this.guilds.map((guild) => ({ id: guild.id, unavailable: true })),
          session_id: session.sessionId,
          resume_gateway_url: `ws://127.0.0.1:${this.port}/gateway`,
          shard: [0, 1],
          application: { id: this.applicationId, flags: 0 },
          private_channels: [],
          presences: [],
          relationships: [],
          user_settings: {},
        });
        for (const guild of this.guilds) send("GUILD_CREATE", this.guildPayload(guild));
        this.events.emit("identify");
        return;
      }
      case 6: {
        if (frame.d?.token !== this.token) {
          ws.close(WRONG_TOKEN_CLOSE, "Authentication failed.");
          return;
        }
        session.sessionId = String(frame.d?.session_id ?? "");
        session.seq = Number(frame.d?.seq ?? 0);
        session.seq += 1;
        ws.send(JSON.stringify({ op: 0, t: "RESUMED", s: session.seq, d: {} }));
        return;
      }
      default:
        return;
    }
  }

  /**
   * Sets a guild's preferred locale, as a server admin does in Server Settings → Community → Overview,
   * and tells connected clients with GUILD_UPDATE (Discord docs, Gateway Events → Guild Update: "Sent
   * when a guild is updated. The inner payload is a guild object"). The locale must be one of
   * Discord's (Reference → Locales).
   */
  setGuildLocale(guildId: string, locale: string): void {
    const guild = this.guilds.find((candidate) => candidate.id === guildId);
    if (!guild) throw new Error(`no guild ${guildId}`);
    if (!DISCORD_LOCALES.has(locale)) throw new Error(`${locale} is not one of Discord's locales`);
    guild.preferredLocale = locale;
    this.dispatch("GUILD_UPDATE", this.guildPayload(guild));
  }

  private guildPayload(guild: EmulatorGuild): Record<string, unknown> {
    return {
      id: guild.id,
      name: guild.name,
      icon: null,
      owner_id: "1",
      afk_timeout: 300,
      verification_level: 0,
      default_message_notifications: 0,
      explicit_content_filter: 0,
      roles: [
        {
          id: guild.id,
          name: "@everyone",
          permissions: "2248473465835073",
          position: 0,
          color: 0,
          hoist: false,
          managed: false,
          mentionable: false,
          flags: 0,
        },
        {
          // Every bot gets a managed role named after it when invited with permissions; its tags name
          // the bot (Discord docs, Permissions → Role Tags: `bot_id`).
          id: this.botRoleId,
          name: this.bot.username,
          permissions: "2248473465835073",
          position: 1,
          color: 0,
          hoist: false,
          managed: true,
          mentionable: false,
          flags: 0,
          tags: { bot_id: this.bot.id },
        },
      ],
      emojis: [],
      stickers: [],
      features: [],
      mfa_level: 0,
      system_channel_flags: 0,
      premium_tier: 0,
      preferred_locale: guild.preferredLocale ?? "en-US",
      nsfw_level: 0,
      premium_progress_bar_enabled: false,
      unavailable: false,
      member_count: 2,
      large: false,
      joined_at: new Date().toISOString(),
      members: [
        {
          user: { ...publicUser(this.bot), bot: true },
          roles: [this.botRoleId],
          joined_at: new Date().toISOString(),
          deaf: false,
          mute: false,
          flags: 0,
        },
      ],
      channels: guild.channels.map((channel, position) => ({
        id: channel.id,
        type: channel.type ?? 0,
        guild_id: guild.id,
        name: channel.name,
        position,
        permission_overwrites: [],
        nsfw: false,
        parent_id: null,
        topic: null,
        last_message_id: null,
        rate_limit_per_user: 0,
      })),
      threads: [],
      presences: [],
      voice_states: [],
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
    };
  }

  // ---- REST --------------------------------------------------------------------------------------

  private async onRequest(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const bytes = await readBody(req);
    const boundary = multipartBoundary(req);
    const parts = boundary ? parseFormData(bytes, boundary) : [];
    // With files, the JSON body travels in the `payload_json` part (Discord docs, Uploading Files).
    const raw = boundary
      ? (parts.find((part) => part.name === "payload_json")?.data.toString("utf8") ?? "")
      : bytes.toString("utf8");
    let body: unknown = null;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
    }
    const named = /^\/client\/([^/]+)(\/.*)$/.exec(url.pathname);
    const client = named ? decodeURIComponent(named[1] ?? "") : "default";
    const pathname = named ? (named[2] ?? "/") : url.pathname;
    const segments = pathname
      .replace(/^\/api(\/v\d+)?/, "")
      .split("/")
      .filter(Boolean)
      .map((segment) => decodeURIComponent(segment));
    const call: EmulatorCall = {
      seq: ++this.seq,
      method: req.method ?? "GET",
      path: `/${segments.join("/")}`,
      query: Object.fromEntries(url.searchParams),
      body,
      authorized: req.headers.authorization === `Bot ${this.token}`,
      files: parts.filter((part) => part.filename !== undefined),
      client,
    };
    this.calls.push(call);
    let answer: { status: number; json?: unknown };
    try {
      answer = this.uploadProblem(parts) ?? this.route(call, segments);
    } catch (error) {
      answer = { status: 500, json: { message: String(error), code: 0 } };
    }
    this.events.emit("call");
    if (answer.json === undefined) {
      res.writeHead(answer.status);
      res.end();
      return;
    }
    const text = JSON.stringify(answer.json);
    res.writeHead(answer.status, { "content-type": "application/json" });
    res.end(text);
  }

  /**
   * Discord's rules for the file parts of a request (Reference → Uploading Files): every file part is
   * named `files[n]` and has a filename; at most 10 files; each within `attachmentSizeLimit`, else 413
   * with code 40005.
   */
  private uploadProblem(parts: FormPart[]): { status: number; json: unknown } | undefined {
    const files = parts.filter((part) => part.filename !== undefined || /^files\[/.test(part.name));
    for (const file of files) {
      if (!/^files\[\d+\]$/.test(file.name) || !file.filename)
        return invalidForm(`files: part ${file.name} must be named files[n] and carry a filename`);
      if (file.data.length > this.attachmentSizeLimit)
        return { status: 413, json: { message: "Request entity too large", code: 40005 } };
    }
    if (files.length > MAX_ATTACHMENTS) return invalidForm(`files: at most ${MAX_ATTACHMENTS} files`);
    return undefined;
  }

  /** Every file the bot attached, with the message it is on. */
  get attachments(): (EmulatedAttachment & { messageId: string; channelId: string })[] {
    return this.messages.flatMap((message) =>
      message.attachments.map((file) => ({ ...file, messageId: message.id, channelId: message.channelId })),
    );
  }

  private route(call: EmulatorCall, s: string[]): { status: number; json?: unknown } {
    const { method } = call;
    const key = `${method} ${s.map((part, index) => (index === 0 || /^(@me|@original|commands|guilds|messages|callback|bot|channels)$/.test(part) ? part : ":")).join("/")}`;
    // Interaction callbacks and webhook routes authenticate with the token in the URL, not a header.
    const tokenRoute = s[0] === "interactions" || s[0] === "webhooks";
    if (!tokenRoute && !call.authorized)
      return { status: 401, json: { message: "401: Unauthorized", code: 0 } };
    switch (key) {
      case "GET gateway/bot":
        return {
          status: 200,
          json: {
            url: `ws://127.0.0.1:${this.port}/gateway`,
            shards: Math.max(1, Math.ceil(this.memberOfGuilds / GUILDS_PER_RECOMMENDED_SHARD)),
            session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 },
          },
        };
      case "GET gateway":
        return { status: 200, json: { url: `ws://127.0.0.1:${this.port}/gateway` } };
      case "GET users/@me":
        return { status: 200, json: { ...publicUser(this.bot), bot: true } };
      case "GET users/@me/guilds":
        return {
          status: 200,
          json: this.guilds.map((guild) => ({ id: guild.id, name: guild.name, icon: null })),
        };
      case "GET applications/@me":
        return {
          status: 200,
          json: {
            id: this.applicationId,
            name: this.bot.username,
            bot: publicUser(this.bot),
            flags: 0,
            // Application Object: "interactions_endpoint_url? ?string" (Discord docs, Application).
            interactions_endpoint_url: this.endpointUrl ?? null,
          },
        };
      case "GET applications/:/commands":
        return this.ownApp(s[1]) ?? { status: 200, json: this.global };
      case "PUT applications/:/commands":
        return this.ownApp(s[1]) ?? this.overwrite(this.global, call.body, undefined);
      case "POST applications/:/commands":
        return this.ownApp(s[1]) ?? this.upsert(this.global, call.body, undefined);
      case "DELETE applications/:/commands/:":
        return this.ownApp(s[1]) ?? removeCommand(this.global, s[3] ?? "");
      case "GET applications/:/guilds/:/commands":
        return this.ownApp(s[1]) ?? this.knownGuild(s[3]) ?? { status: 200, json: this.guildSet(s[3] ?? "") };
      case "PUT applications/:/guilds/:/commands":
        return (
          this.ownApp(s[1]) ??
          this.knownGuild(s[3]) ??
          this.overwrite(this.guildSet(s[3] ?? ""), call.body, s[3])
        );
      case "POST applications/:/guilds/:/commands":
        return (
          this.ownApp(s[1]) ??
          this.knownGuild(s[3]) ??
          this.upsert(this.guildSet(s[3] ?? ""), call.body, s[3])
        );
      case "DELETE applications/:/guilds/:/commands/:":
        return (
          this.ownApp(s[1]) ?? this.knownGuild(s[3]) ?? removeCommand(this.guildSet(s[3] ?? ""), s[5] ?? "")
        );
      case "POST interactions/:/:/callback":
        return this.callback(call, s[1] ?? "", s[2] ?? "");
      case "GET webhooks/:/:/messages/@original":
      case "PATCH webhooks/:/:/messages/@original":
      case "DELETE webhooks/:/:/messages/@original":
      case "PATCH webhooks/:/:/messages/:":
        return this.webhookMessage(call, s[1] ?? "", s[2] ?? "", s[4] ?? "");
      case "POST webhooks/:/:":
        return this.followUp(call, s[1] ?? "", s[2] ?? "");
      case "POST channels/:/messages":
        return this.createChannelMessage(call, s[1] ?? "");
      case "PATCH channels/:/messages/:":
        return this.editChannelMessage(call, s[1] ?? "", s[3] ?? "");
      case "GET channels/:":
        return this.channel(s[1] ?? "");
      case "POST users/@me/channels":
        return {
          status: 200,
          json: {
            id: this.nextId(),
            type: 1,
            recipients: [
              { id: String((call.body as { recipient_id?: string })?.recipient_id), username: "user" },
            ],
          },
        };
      default:
        return { status: 404, json: { message: "404: Not Found", code: 0 } };
    }
  }

  private ownApp(id: string | undefined): { status: number; json: unknown } | undefined {
    return id === this.applicationId
      ? undefined
      : { status: 403, json: { message: "Missing Access", code: 50001 } };
  }

  private knownGuild(id: string | undefined): { status: number; json: unknown } | undefined {
    return this.guilds.some((guild) => guild.id === id)
      ? undefined
      : { status: 403, json: { message: "Missing Access", code: 50001 } };
  }

  private guildSet(guildId: string): RegisteredCommand[] {
    let set = this.guildCommandSets.get(guildId);
    if (!set) {
      set = [];
      this.guildCommandSets.set(guildId, set);
    }
    return set;
  }

  private overwrite(
    set: RegisteredCommand[],
    body: unknown,
    guildId: string | undefined,
  ): { status: number; json: unknown } {
    if (!Array.isArray(body)) return invalidForm("body must be an array of commands");
    if (body.length > 100)
      return {
        status: 400,
        json: { message: "Maximum number of application commands reached (100)", code: 30032 },
      };
    const names = new Set<string>();
    for (const command of body as Record<string, unknown>[]) {
      const problem = validateCommand(command);
      if (problem) return invalidForm(problem);
      if (names.has(String(command.name)))
        return invalidForm(`duplicate command name ${String(command.name)}`);
      names.add(String(command.name));
    }
    const previous = [...set];
    set.length = 0;
    for (const command of body as Record<string, unknown>[]) {
      const kept = previous.find((old) => old.name === command.name);
      set.push(this.stored(command, kept?.id, guildId));
    }
    return { status: 200, json: set };
  }

  private upsert(
    set: RegisteredCommand[],
    body: unknown,
    guildId: string | undefined,
  ): { status: number; json: unknown } {
    const command = body as Record<string, unknown>;
    const problem = validateCommand(command);
    if (problem) return invalidForm(problem);
    const index = set.findIndex((old) => old.name === command.name);
    const stored = this.stored(command, index >= 0 ? set[index]?.id : undefined, guildId);
    if (index >= 0) set[index] = stored;
    else set.push(stored);
    return { status: index >= 0 ? 200 : 201, json: stored };
  }

  private stored(
    command: Record<string, unknown>,
    id: string | undefined,
    guildId: string | undefined,
  ): RegisteredCommand {
    return {
      ...command,
      id: id ?? this.nextId(),
      application_id: this.applicationId,
      ...(guildId ? { guild_id: guildId } : {}),
      version: this.nextId(),
      name: String(command.name),
      description: String(command.description ?? ""),
    };
  }

  /**
   * Applies an initial response (an interaction response object, `{type, data}`), from the callback
   * route or an Interactions Endpoint's HTTP response, with Discord's rules; an error answer when it
   * breaks one.
   */
  private respond(
    interaction: EmulatedInteraction,
    response: unknown,
    seq: number,
  ): { status: number; json?: unknown } {
    const id = interaction.id;
    if (interaction.callbacks.length > 0) {
      return { status: 400, json: { message: "Interaction has already been acknowledged.", code: 40060 } };
    }
    // Past the 3-second window the token is invalidated and Discord answers 10062 Unknown interaction
    // (Discord docs, Receiving and Responding → Responding to an Interaction).
    if (Date.now() - interaction.createdAt > this.interactionDeadlineMs) {
      interaction.late += 1;
      return { status: 404, json: { message: "Unknown interaction", code: 10062 } };
    }
    const { type, data } = (response ?? {}) as { type?: number; data?: Record<string, unknown> };
    if (type === 9) {
      // A modal can answer a command or a component, never a modal submit or a ping (interaction
      // response types table: MODAL "Not available for MODAL_SUBMIT and PING interactions").
      if (interaction.type === 5 || interaction.type === 1)
        return { status: 400, json: { message: "Invalid interaction response type", code: 50035 } };
      const problem = modalProblem(data);
      if (problem) return invalidForm(problem);
    }
    // Discord: DEFERRED_UPDATE_MESSAGE (6) and UPDATE_MESSAGE (7) are only valid for component-based
    // interactions (interaction response types, "Only valid for component-based interactions").
    if ((type === 6 || type === 7) && interaction.type !== 3) {
      return invalidForm(`interaction response type ${type} is only valid for component interactions`);
    }
    // A modal's components are its inputs (checked above); message components are buttons.
    const componentProblem = type === 9 ? undefined : checkComponents(data?.components);
    if (componentProblem) return componentProblem;
    interaction.callbacks.push({ type: type ?? 0, data, seq });
    if (type === 7) {
      const pressed = this.messages.find((candidate) => candidate.id === this.componentMessages.get(id));
      if (pressed) this.updateMessage(pressed, data ?? {}, seq);
    }
    if (type === 4 || type === 5) {
      const content = type === 4 ? String(data?.content ?? "") : "";
      if (type === 4) {
        const problem = contentProblem(data);
        if (problem) return problem;
      }
      this.addMessage({
        channelId: String(interaction.payload.channel_id),
        content,
        kind: "original",
        interactionId: id,
        deferred: type === 5,
        seq,
        allowedMentions: data?.allowed_mentions,
        components: data?.components,
        embeds: data?.embeds,
        ephemeral: (Number(data?.flags ?? 0) & 64) === 64,
      });
    }
    return { status: 204 };
  }

  private callback(call: EmulatorCall, id: string, token: string): { status: number; json?: unknown } {
    const interaction = this.interactions.get(id);
    if (!interaction || interaction.token !== token)
      return { status: 404, json: { message: "Unknown interaction", code: 10062 } };
    const answer = this.respond(interaction, call.body, call.seq);
    if (answer.status >= 400) return answer;
    if (call.query.with_response === "true") {
      const { type } = (call.body ?? {}) as { type?: number };
      return { status: 200, json: { interaction: { id, type: interaction.type }, resource: { type } } };
    }
    return { status: 204 };
  }

  /**
   * The interaction behind a webhook token, while the token lives: edits and follow-ups work for 15
   * minutes after the interaction, then Discord answers 401 "Invalid Webhook Token" (50027).
   */
  private interactionByToken(appId: string, token: string): EmulatedInteraction | "expired" | undefined {
    if (appId !== this.applicationId) return undefined;
    const found = [...this.interactions.values()].find((interaction) => interaction.token === token);
    if (found && Date.now() - found.createdAt > this.interactionTokenLifetimeMs) return "expired";
    return found;
  }

  /** The next Identify is answered by closing the socket with `code` (e.g. 4014, 4004). */
  closeNextIdentify(code: number): void {
    this.forcedClose = code;
  }

  /** Ages an interaction as if it had been created `ms` earlier (for token-lifetime tests). */
  age(interactionId: string, ms: number): void {
    const interaction = this.interactions.get(interactionId);
    if (interaction) interaction.createdAt -= ms;
  }

  private webhookMessage(
    call: EmulatorCall,
    appId: string,
    token: string,
    messageId: string,
  ): { status: number; json?: unknown } {
    const interaction = this.interactionByToken(appId, token);
    if (interaction === "expired") return EXPIRED_TOKEN;
    if (!interaction) return { status: 404, json: { message: "Unknown Webhook", code: 10015 } };
    // For a component interaction, `@original` is the message the pressed component is attached to
    // (after a DEFERRED_UPDATE_MESSAGE the edit replaces that message).
    const componentMessage = this.componentMessages.get(interaction.id);
    const message =
      messageId === "@original"
        ? componentMessage !== undefined &&
          !this.messages.some(
            (candidate) => candidate.interactionId === interaction.id && candidate.kind === "original",
          )
          ? this.messages.find((candidate) => candidate.id === componentMessage)
          : this.messages.find(
              (candidate) => candidate.interactionId === interaction.id && candidate.kind === "original",
            )
        : this.messages.find(
            (candidate) => candidate.interactionId === interaction.id && candidate.id === messageId,
          );
    if (!message) return { status: 404, json: { message: "Unknown Message", code: 10008 } };
    if (call.method === "GET") return { status: 200, json: this.messageJson(message) };
    if (call.method === "DELETE") {
      this.messages.splice(this.messages.indexOf(message), 1);
      return { status: 204 };
    }
    const data = (call.body ?? {}) as Record<string, unknown>;
    const problem = contentProblem(data, call.files) ?? checkComponents(data.components);
    if (problem) return problem;
    this.updateMessage(message, data, call.seq, call.files);
    return { status: 200, json: this.messageJson(message) };
  }

  private followUp(call: EmulatorCall, appId: string, token: string): { status: number; json?: unknown } {
    const interaction = this.interactionByToken(appId, token);
    if (interaction === "expired") return EXPIRED_TOKEN;
    if (!interaction) return { status: 404, json: { message: "Unknown Webhook", code: 10015 } };
    if (interaction.callbacks.length === 0)
      return { status: 404, json: { message: "Unknown Webhook", code: 10015 } };
    const data = (call.body ?? {}) as Record<string, unknown>;
    const problem = contentProblem(data, call.files) ?? checkComponents(data.components);
    if (problem) return problem;
    const message = this.addMessage({
      attachments: this.attachmentsOf(call.files, data),
      channelId: String(interaction.payload.channel_id),
      content: String(data.content ?? ""),
      kind: "followup",
      interactionId: interaction.id,
      deferred: false,
      seq: call.seq,
      allowedMentions: data.allowed_mentions,
      components: data.components,
      embeds: data.embeds,
      ephemeral: (Number(data.flags ?? 0) & 64) === 64,
    });
    return { status: 200, json: this.messageJson(message) };
  }

  private createChannelMessage(call: EmulatorCall, channelId: string): { status: number; json?: unknown } {
    if (!this.channelExists(channelId))
      return { status: 404, json: { message: "Unknown Channel", code: 10003 } };
    const data = (call.body ?? {}) as Record<string, unknown>;
    const problem = contentProblem(data, call.files) ?? checkComponents(data.components);
    if (problem) return problem;
    const reference = data.message_reference as { message_id?: string } | undefined;
    const message = this.addMessage({
      attachments: this.attachmentsOf(call.files, data),
      channelId,
      content: String(data.content ?? ""),
      kind: "channel",
      deferred: false,
      seq: call.seq,
      replyTo: reference?.message_id,
      allowedMentions: data.allowed_mentions,
      components: data.components,
      embeds: data.embeds,
    });
    return { status: 200, json: this.messageJson(message) };
  }

  private editChannelMessage(
    call: EmulatorCall,
    channelId: string,
    messageId: string,
  ): { status: number; json?: unknown } {
    const message = this.messages.find(
      (candidate) => candidate.channelId === channelId && candidate.id === messageId,
    );
    if (!message) return { status: 404, json: { message: "Unknown Message", code: 10008 } };
    const data = (call.body ?? {}) as Record<string, unknown>;
    const problem = contentProblem(data, call.files) ?? checkComponents(data.components);
    if (problem) return problem;
    this.updateMessage(message, data, call.seq, call.files);
    return { status: 200, json: this.messageJson(message) };
  }

  /** Guild channels exist when configured; any other id is taken as a DM channel. */
  private channelExists(channelId: string): boolean {
    return /^\d+$/.test(channelId);
  }

  private channel(channelId: string): { status: number; json: unknown } {
    for (const guild of this.guilds) {
      const channel = guild.channels.find((candidate) => candidate.id === channelId);
      if (channel)
        return {
          status: 200,
          json: { id: channel.id, type: channel.type ?? 0, guild_id: guild.id, name: channel.name },
        };
    }
    return { status: 200, json: { id: channelId, type: 1, recipients: [] } };
  }

  private addMessage(input: {
    channelId: string;
    content: string;
    kind: EmulatedMessage["kind"];
    interactionId?: string;
    deferred: boolean;
    seq: number;
    replyTo?: string;
    allowedMentions?: unknown;
    components?: unknown;
    embeds?: unknown;
    ephemeral?: boolean;
    attachments?: EmulatedAttachment[];
  }): EmulatedMessage {
    const message: EmulatedMessage = {
      id: this.nextId(),
      channelId: input.channelId,
      content: input.content,
      kind: input.kind,
      deferred: input.deferred,
      edits: 0,
      ...(input.deferred ? {} : { shownAt: Date.now() }),
      components: (input.components as ComponentRow[] | undefined) ?? [],
      embeds: (input.embeds as Record<string, unknown>[] | undefined) ?? [],
      ...(input.ephemeral ? { ephemeral: true } : {}),
      createdSeq: input.seq,
      updatedSeq: input.seq,
      ...(input.interactionId ? { interactionId: input.interactionId } : {}),
      ...(input.replyTo ? { replyTo: input.replyTo } : {}),
      ...(input.allowedMentions !== undefined ? { allowedMentions: input.allowedMentions } : {}),
      mentionsEveryone: pingsEveryone(input.content, input.allowedMentions),
      attachments: input.attachments ?? [],
    };
    this.messages.push(message);
    this.events.emit("message");
    return message;
  }

  /**
   * The attachments a request adds: one per `files[n]` part, named by the `attachments` entry whose id
   * is `n` when there is one, else by the part's filename (Discord docs, Uploading Files).
   */
  private attachmentsOf(files: FormPart[], data: Record<string, unknown>): EmulatedAttachment[] {
    const described = Array.isArray(data.attachments)
      ? (data.attachments as { id?: unknown; filename?: unknown }[])
      : [];
    return files.map((file) => {
      const index = /\d+/.exec(file.name)?.[0];
      const entry = described.find((candidate) => String(candidate.id) === index);
      const filename = typeof entry?.filename === "string" ? entry.filename : (file.filename ?? "");
      return { id: this.nextId(), filename, size: file.data.length, data: file.data };
    });
  }

  private updateMessage(
    message: EmulatedMessage,
    data: Record<string, unknown>,
    seq: number,
    files: FormPart[] = [],
  ): void {
    // An edit changes only the fields it names (Discord's PATCH semantics). `attachments`, when given,
    // lists the existing files to keep (by id) beside the new `files[n]` parts.
    if (Array.isArray(data.attachments)) {
      const kept = new Set((data.attachments as { id?: unknown }[]).map((entry) => String(entry.id)));
      message.attachments = message.attachments.filter((file) => kept.has(file.id));
    }
    message.attachments.push(...this.attachmentsOf(files, data));
    if (data.content !== undefined) message.content = String(data.content ?? "");
    if (data.components !== undefined) message.components = data.components as ComponentRow[];
    if (data.embeds !== undefined) message.embeds = data.embeds as Record<string, unknown>[];
    if (data.allowed_mentions !== undefined) message.allowedMentions = data.allowed_mentions;
    message.mentionsEveryone ||= pingsEveryone(message.content, message.allowedMentions);
    message.deferred = false;
    message.shownAt ??= Date.now();
    message.edits += 1;
    message.updatedSeq = seq;
    this.events.emit("message");
  }

  private messageJson(message: EmulatedMessage): Record<string, unknown> {
    return {
      id: message.id,
      channel_id: message.channelId,
      author: { ...publicUser(this.bot), bot: true },
      content: message.content,
      timestamp: new Date().toISOString(),
      edited_timestamp: message.edits > 0 ? new Date().toISOString() : null,
      tts: false,
      mention_everyone: false,
      mentions: [],
      mention_roles: [],
      attachments: message.attachments.map((file) => ({
        id: file.id,
        filename: file.filename,
        size: file.size,
        url: `http://127.0.0.1:${this.port}/attachments/${message.channelId}/${file.id}/${file.filename}`,
        proxy_url: `http://127.0.0.1:${this.port}/attachments/${message.channelId}/${file.id}/${file.filename}`,
        content_type: "text/plain; charset=utf-8",
      })),
      embeds: message.embeds,
      pinned: false,
      type: message.kind === "channel" ? (message.replyTo ? 19 : 0) : 20,
      flags: (message.deferred ? 128 : 0) | (message.ephemeral ? 64 : 0),
      components: message.components,
      ...(message.interactionId
        ? { webhook_id: this.applicationId, application_id: this.applicationId }
        : {}),
      ...(message.replyTo
        ? { message_reference: { message_id: message.replyTo, channel_id: message.channelId } }
        : {}),
    };
  }
}

const EXPIRED_TOKEN = { status: 401, json: { message: "Invalid Webhook Token", code: 50027 } };

/**
 * Whether a bot message pings everyone: its content has `@everyone` or `@here` and `allowed_mentions`
 * does not leave "everyone" out (Discord docs, Message → Allowed Mentions Object: without the field,
 * mentions are parsed from the content).
 */
function pingsEveryone(content: string, allowed: unknown): boolean {
  if (!/@(everyone|here)\b/.test(content)) return false;
  if (allowed === undefined || allowed === null) return true;
  const parse = (allowed as { parse?: unknown }).parse;
  return Array.isArray(parse) && parse.includes("everyone");
}

function publicUser(user: EmulatorUser): Record<string, unknown> {
  return {
    id: user.id,
    username: user.username,
    discriminator: "0",
    global_name: user.global_name ?? null,
    avatar: null,
    ...(user.bot ? { bot: true } : {}),
  };
}

function toOptions(
  options: Record<string, string | number | boolean> | Record<string, unknown>[],
  focused: string | undefined,
): Record<string, unknown>[] {
  if (Array.isArray(options)) return options;
  return Object.entries(options).map(([name, value]) => ({
    name,
    type: typeof value === "boolean" ? 5 : typeof value === "number" ? 4 : 3,
    value,
    ...(name === focused ? { focused: true } : {}),
  }));
}

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function invalidForm(reason: string): { status: number; json: unknown } {
  return { status: 400, json: { message: "Invalid Form Body", code: 50035, errors: { reason } } };
}

/** Discord's message content rules: at most 2000 characters, never empty (without embeds or files). */
function contentProblem(
  data: Record<string, unknown> | undefined,
  files: FormPart[] = [],
): { status: number; json: unknown } | undefined {
  const content = data?.content;
  if (typeof content === "string" && content.length > 2000) {
    return invalidForm(`content: Must be 2000 or fewer in length (got ${content.length})`);
  }
  if (content === undefined || content === "") {
    const embeds = data?.embeds as unknown[] | undefined;
    if ((!embeds || embeds.length === 0) && files.length === 0)
      return { status: 400, json: { message: "Cannot send an empty message", code: 50006 } };
  }
  return undefined;
}

/**
 * Discord's component rules for buttons: at most 5 action rows (type 1) of at most 5 buttons (type 2);
 * a non-link button needs a `custom_id` of 1–100 characters; a label is at most 80 characters.
 */
function checkComponents(value: unknown): { status: number; json: unknown } | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length > 5) return invalidForm("components: at most 5 action rows");
  const ids = new Set<string>();
  for (const row of value as { type?: number; components?: unknown }[]) {
    if (
      row.type !== 1 ||
      !Array.isArray(row.components) ||
      row.components.length < 1 ||
      row.components.length > 5
    )
      return invalidForm("components: an action row holds 1 to 5 buttons");
    for (const button of row.components as { type?: number; custom_id?: unknown; label?: unknown }[]) {
      if (button.type !== 2) return invalidForm("components: only buttons are emulated");
      const id = button.custom_id;
      if (typeof id !== "string" || id.length < 1 || id.length > 100)
        return invalidForm("components: custom_id must be 1-100 characters");
      if (ids.has(id)) return invalidForm("components: custom_id must be unique per message");
      ids.add(id);
      if (typeof button.label === "string" && button.label.length > 80)
        return invalidForm("components: label must be at most 80 characters");
    }
  }
  return undefined;
}

/**
 * Modal rules (discord.com/developers/docs/interactions/receiving-and-responding, "Modal" response;
 * components/reference "Label", "Text Input"): custom_id 1–100, title 1–45, 1–5 components; each a label
 * (type 18, label 1–45) holding one text input (type 4) with a custom_id, or a legacy action row of one.
 */
function modalProblem(data: Record<string, unknown> | undefined): string | null {
  const id = data?.custom_id;
  if (typeof id !== "string" || id.length < 1 || id.length > 100)
    return "data.custom_id: Must be between 1 and 100 in length";
  const title = data?.title;
  if (typeof title !== "string" || title.length < 1 || title.length > 45)
    return "data.title: Must be between 1 and 45 in length";
  const components = data?.components;
  if (!Array.isArray(components) || components.length < 1 || components.length > 5)
    return "data.components: Must be between 1 and 5 in length";
  for (const item of components as Record<string, unknown>[]) {
    const input =
      item?.type === 18
        ? (item.component as Record<string, unknown> | undefined)
        : item?.type === 1 && Array.isArray(item.components)
          ? (item.components[0] as Record<string, unknown> | undefined)
          : undefined;
    if (
      item?.type === 18 &&
      (typeof item.label !== "string" || item.label.length < 1 || item.label.length > 45)
    )
      return "data.components.label: Must be between 1 and 45 in length";
    if (input?.type !== 4 || typeof input.custom_id !== "string")
      return "data.components: expected a text input";
  }
  return null;
}

function removeCommand(set: RegisteredCommand[], id: string): { status: number; json?: unknown } {
  const index = set.findIndex((command) => command.id === id);
  if (index < 0) return { status: 404, json: { message: "Unknown application command", code: 10063 } };
  set.splice(index, 1);
  return { status: 204 };
}

/**
 * Discord's locales (Reference, "Locales", https://discord.com/developers/docs/reference#locales; the
 * same list as discord-api-types' `Locale`): the only keys a `name_localizations` or
 * `description_localizations` map may have. Chinese has two, `zh-CN` and `zh-TW`.
 */
const DISCORD_LOCALES = new Set(
  "id da de en-GB en-US es-ES es-419 fr hr it lt hu nl no pl pt-BR ro fi sv-SE vi tr cs el bg ru uk hi th zh-CN ja zh-TW ko".split(
    " ",
  ),
);

/**
 * A command's or option's localizations (Application Commands, "Localization"): keys are Discord
 * locales; "localized names are subject to the same constraints as non-localized" ones (lower-case,
 * the name pattern, 1-32) and localized descriptions the same 1-100 characters.
 */
function validateLocalizations(
  where: string,
  entry: Record<string, unknown>,
  isChoice = false,
): string | null {
  for (const field of ["name_localizations", "description_localizations"] as const) {
    const map = entry[field];
    if (map === undefined || map === null) continue;
    if (typeof map !== "object" || Array.isArray(map)) return `${where}: ${field} must be an object`;
    for (const [locale, value] of Object.entries(map as Record<string, unknown>)) {
      if (!DISCORD_LOCALES.has(locale)) return `${where}: ${field} has an invalid locale ${locale}`;
      if (typeof value !== "string") return `${where}: ${field}.${locale} must be a string`;
      if (field === "description_localizations" && (value.length < 1 || value.length > 100))
        return `${where}: ${field}.${locale} must be 1-100 characters`;
      if (field === "name_localizations") {
        const valid = isChoice
          ? value.length >= 1 && value.length <= 100
          : NAME_RULE.test(value) && value === value.toLowerCase();
        if (!valid) return `${where}: ${field}.${locale} is not a valid name`;
      }
    }
  }
  return null;
}

/**
 * The characters a field counts against a command's 4000 (Application Commands, "Localization": "only
 * the longest localization for each field (including the default value) is counted towards the size
 * limit").
 */
function longestText(base: string, localizations: unknown): number {
  const texts =
    typeof localizations === "object" && localizations !== null ? Object.values(localizations) : [];
  return Math.max(base.length, ...texts.map((text) => (typeof text === "string" ? text.length : 0)));
}

/** Checks one command against Discord's validation rules; returns the problem or null. */
function validateCommand(command: Record<string, unknown>): string | null {
  const name = command.name;
  if (typeof name !== "string" || !NAME_RULE.test(name) || name !== name.toLowerCase())
    return `invalid command name ${String(name)}`;
  const description = command.description;
  if (typeof description !== "string" || description.length < 1 || description.length > 100) {
    return `command ${name}: description must be 1-100 characters`;
  }
  const localized = validateLocalizations(`command ${name}`, command);
  if (localized) return localized;
  let total = name.length + longestText(description, command.description_localizations);
  const problem = validateOptions(name, command.options, 0, (count) => {
    total += count;
  });
  if (problem) return problem;
  if (total > 4000) return `command ${name}: more than 4000 characters in names and descriptions`;
  return null;
}

function validateOptions(
  where: string,
  options: unknown,
  depth: number,
  count: (n: number) => void,
): string | null {
  if (options === undefined) return null;
  if (!Array.isArray(options)) return `${where}: options must be an array`;
  if (options.length > 25) return `${where}: more than 25 options`;
  const names = new Set<string>();
  let optionalSeen = false;
  for (const option of options as Record<string, unknown>[]) {
    const name = option.name;
    if (typeof name !== "string" || !NAME_RULE.test(name) || name !== name.toLowerCase())
      return `${where}: invalid option name ${String(name)}`;
    if (names.has(name)) return `${where}: duplicate option ${name}`;
    names.add(name);
    const description = option.description;
    if (typeof description !== "string" || description.length < 1 || description.length > 100) {
      return `${where} ${name}: description must be 1-100 characters`;
    }
    count(name.length + longestText(description, option.description_localizations));
    const localized = validateLocalizations(`${where} ${name}`, option);
    if (localized) return localized;
    if (Array.isArray(option.choices)) {
      for (const choice of option.choices as Record<string, unknown>[]) {
        const problem = validateLocalizations(`${where} ${name} choice`, choice, true);
        if (problem) return problem;
        count(
          longestText(String(choice.name ?? ""), choice.name_localizations) +
            String(choice.value ?? "").length,
        );
      }
    }
    const type = Number(option.type);
    if (type === 1 || type === 2) {
      if (depth > 1) return `${where} ${name}: subcommands nested too deep`;
      const nested = validateOptions(`${where} ${name}`, option.options, depth + 1, count);
      if (nested) return nested;
      continue;
    }
    if (option.required === true && optionalSeen)
      return `${where}: required option ${name} after an optional one`;
    if (option.required !== true) optionalSeen = true;
    if (option.autocomplete === true && ![3, 4, 10].includes(type))
      return `${where} ${name}: autocomplete on a non-text option`;
  }
  return null;
}

/**
 * The partial channel an interaction carries (Discord docs, Interaction Object `channel`): a guild
 * channel with its type, name and the bot's permissions there, or a DM channel with its recipient.
 */
function interactionChannel(
  guild: EmulatorGuild | undefined,
  channelId: string,
  user: Record<string, unknown>,
): Record<string, unknown> {
  if (!guild) return { id: channelId, type: 1, recipients: [user] };
  const known = guild.channels.find((candidate) => candidate.id === channelId);
  return {
    id: channelId,
    type: known?.type ?? 0,
    guild_id: guild.id,
    name: known?.name ?? "channel",
    permissions: "2248473465835073",
  };
}

/**
 * Where an interaction happened, as Discord's payload says it: in a guild the user comes inside a
 * `member` object with the guild's id; in a DM it comes as `user` (Discord docs, Interaction Object).
 */
function whereFields(
  guild: EmulatorGuild | undefined,
  user: Record<string, unknown>,
): Record<string, unknown> {
  if (!guild) return { user };
  return {
    guild_id: guild.id,
    // "Guild's preferred locale, if invoked in a guild" (Discord docs, Interaction Object).
    guild_locale: guild.preferredLocale ?? "en-US",
    member: {
      user,
      roles: [],
      joined_at: new Date().toISOString(),
      permissions: "2248473465835073",
      deaf: false,
      mute: false,
      flags: 0,
      pending: false,
      nick: null,
      avatar: null,
    },
  };
}
