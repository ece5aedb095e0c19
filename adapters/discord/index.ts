/**
 * The Discord adapter: a thin discord.js shell around the pure `normalize`, `commands` and `render`
 * modules. Slash commands are deferred at once (Discord allows 3 s) and answered by editing the deferred
 * reply, with further chunks as follow-ups; `/skill name` autocompletes through the gateway's hooks;
 * plain-text commands work in DMs and when the bot is mentioned. Commands are registered with one bulk
 * overwrite, either globally or for the configured guild, never both.
 */

import { once } from "node:events";
import { promises as fs } from "node:fs";
import path from "node:path";
import {
  type AutocompleteInteraction,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  Client,
  Events,
  GatewayIntentBits,
  type Interaction,
  type InteractionEditReplyOptions,
  type InteractionReplyOptions,
  MessageFlags,
  type ModalSubmitInteraction,
  Partials,
  Routes,
} from "discord.js";
import { trimOldest } from "../../src/core/bounded.js";
import { AdapterError } from "../../src/core/errors.js";
import { atomicWriteFile, stableJson } from "../../src/core/fsutil.js";
import type { Logger } from "../../src/core/logger.js";
import type {
  Adapter,
  AdapterCapabilities,
  AdapterHealth,
  AdapterHooks,
  CommandCatalogEntry,
  InboundMessage,
  InboundSink,
  OutboundTarget,
} from "../../src/core/message.js";
import type { Reply } from "../../src/core/reply.js";
import type { AdapterOptions } from "../types.js";
import { buildApplicationCommands, buildInteractionLayout, SKILL_COMMAND } from "./commands.js";
import {
  type DiscordInteractionJson,
  type DiscordMessageJson,
  type InteractionLayout,
  normalizeAutocomplete,
  normalizeInteraction,
  normalizeMessage,
} from "./normalize.js";
import { DISCORD_MESSAGE_LIMIT, renderReply } from "./render.js";
import { SECRET_FIELD, secretButtonRows, secretModal, secretToken } from "./secret-input.js";

/** What the factory takes: the options every adapter receives. */
export type DiscordAdapterOptions = AdapterOptions;

/** The secret holding the bot token. */
export const DISCORD_TOKEN_SECRET = "DISCORD_BOT_TOKEN";

/** Interaction tokens stay valid for 15 minutes; after that a reply must go to the channel. */
const INTERACTION_TTL_MS = 15 * 60 * 1000;
/** Autocomplete answers at most 25 choices. */
const MAX_CHOICES = 25;
/** How long `start()` waits for the gateway's READY and every guild. */
const READY_TIMEOUT_MS = 30_000;
/** Recent event ids kept to drop gateway replays after a resume. */
const SEEN_IDS = 2000;
/** Sent instead of an empty reply so a deferred “thinking…” never stays forever. */
const EMPTY_REPLY = "Done.";
/** Interactions waiting for discord.js to hand them over, at most. */
const RAW_INTERACTIONS_MAX = 256;
/** File under `<home>/gateway/` remembering where commands were registered last. */
const REGISTRATION_FILE = "discord-commands.json";

/** A slash command waiting for (or receiving) its reply. */
interface PendingInteraction {
  interaction: ChatInputCommandInteraction;
  /** Resolves true once the deferral was accepted. */
  deferred: Promise<boolean>;
  /** The deferred reply has been replaced with the first chunk. */
  edited: boolean;
  createdAt: number;
}

/** Where skillgate's commands were registered last. */
interface RegistrationState {
  applicationId: string;
  guildId: string | null;
  names: string[];
}

/** Builds the Discord adapter from the gateway config and the bot token secret. */
export function createDiscordAdapter(opts: DiscordAdapterOptions): DiscordAdapter {
  return new DiscordAdapter(opts);
}

/** The Discord adapter (see the module comment). */
export class DiscordAdapter implements Adapter {
  readonly platform = "discord" as const;
  readonly capabilities: AdapterCapabilities = {
    maxMessageLength: DISCORD_MESSAGE_LIMIT,
    nativeCommands: true,
    edit: true,
    threads: true,
    privateInput: "modal",
  };

  private readonly opts: DiscordAdapterOptions;
  private readonly log: Logger;
  private readonly token: string | undefined;
  private readonly client: Client;
  private readonly pending = new Map<string, PendingInteraction>();
  private readonly rawInteractions = new Map<string, DiscordInteractionJson>();
  private readonly seen = new Set<string>();
  private layout: InteractionLayout = buildInteractionLayout([]);
  private state: AdapterHealth = { state: "stopped", detail: "not started" };
  private sink: InboundSink | null = null;
  private hooks: AdapterHooks | undefined;
  private inbox: Promise<void> = Promise.resolve();
  private botUserId: string | null = null;
  private stopped = false;
  /** Fingerprint of the last command set registered by this adapter. */
  private registered: string | null = null;

  constructor(opts: DiscordAdapterOptions) {
    this.opts = opts;
    this.log = opts.logger.child({ adapter: "discord" });
    this.token = opts.secret(DISCORD_TOKEN_SECRET);
    const api = opts.config.gateway.discord.api;
    this.client = new Client({
      intents: [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        GatewayIntentBits.DirectMessages,
        GatewayIntentBits.MessageContent,
      ],
      partials: [Partials.Channel],
      rest: api ? { api } : {},
    });
    if (this.token) this.client.rest.setToken(this.token);
    this.client.on(Events.Raw, (packet: { t?: string; d?: unknown }) => this.onRaw(packet));
    this.client.on(Events.InteractionCreate, (interaction) => void this.onInteraction(interaction));
    this.client.on(Events.ShardDisconnect, () => this.setState("degraded", "gateway connection closed"));
    this.client.on(Events.ShardReconnecting, () => this.setState("degraded", "reconnecting to the gateway"));
    this.client.on(Events.ShardResume, () => this.setState("connected", this.connectedDetail()));
    this.client.on(Events.ShardReady, () => this.setState("connected", this.connectedDetail()));
    this.client.on(Events.Error, (error) => this.log.error({ err: error }, "discord client error"));
  }

  /** Logs in, waits until the gateway is ready (every guild received), then delivers events to `sink`. */
  async start(sink: InboundSink, hooks?: AdapterHooks): Promise<void> {
    const token = this.requireToken();
    this.sink = sink;
    this.hooks = hooks;
    this.stopped = false;
    this.setState("starting", "logging in");
    const ready = once(this.client, Events.ClientReady, { signal: AbortSignal.timeout(READY_TIMEOUT_MS) });
    try {
      await this.client.login(token);
      await ready;
    } catch (error) {
      ready.catch(() => undefined);
      this.setState("degraded", "login failed");
      await this.client.destroy().catch(() => undefined);
      throw new AdapterError("discord", loginFailure(error), { cause: error, code: "adapter.discord.login" });
    }
    this.botUserId = this.client.user?.id ?? this.botUserId;
    this.setState("connected", this.connectedDetail());
    this.log.info({ user: this.client.user?.tag }, "discord connected");
  }

  /** Disconnects; no event is delivered afterwards. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.sink = null;
    this.pending.clear();
    this.rawInteractions.clear();
    await this.client.destroy();
    await this.inbox.catch(() => undefined);
    this.state = { state: "stopped", detail: "stopped" };
  }

  /** Current connection state, as `/healthz` shows it. */
  health(): AdapterHealth {
    return { ...this.state };
  }

  /**
   * Sends a reply in chunks of at most 2000 characters. A reply to a slash command edits its deferred
   * reply and follows up with the rest; anything else is posted to the channel (the first chunk as a
   * reply to the user's message when there is one).
   */
  async send(target: OutboundTarget, reply: Reply, inReplyTo?: InboundMessage): Promise<void> {
    const chunks = renderReply(reply);
    // "Set KEY" buttons for private secret entry ride on the last chunk.
    const components = reply.secretInputs?.length ? secretButtonRows(reply.secretInputs) : undefined;
    const pending = inReplyTo ? this.pending.get(inReplyTo.eventId) : undefined;
    try {
      if (pending && (await pending.deferred) && Date.now() - pending.createdAt < INTERACTION_TTL_MS) {
        await this.answerInteraction(pending, chunks.length > 0 ? chunks : [EMPTY_REPLY], components);
        return;
      }
      const replyTo =
        target.replyTo ??
        (inReplyTo && !pending && inReplyTo.chat.id === target.chatId ? inReplyTo.eventId : undefined);
      await this.postToChannel(target.threadId ?? target.chatId, chunks, replyTo, components);
    } catch (error) {
      if (error instanceof AdapterError) throw error;
      throw new AdapterError(
        "discord",
        `Could not send a Discord message to channel ${target.chatId}: ${describe(error)}`,
        {
          cause: error,
          code: "adapter.discord.send",
        },
      );
    }
  }

  /**
   * Registers skillgate's slash commands with one bulk overwrite (registering twice leaves one set):
   * for `gateway.discord.guild_id` only when it is set, and then skillgate's global commands are removed;
   * globally otherwise, and then skillgate's commands left in a previously configured guild are removed.
   */
  async syncCommands(catalog: CommandCatalogEntry[]): Promise<void> {
    this.requireToken();
    this.layout = buildInteractionLayout(catalog);
    const body = buildApplicationCommands(catalog);
    const names = body.map((command) => command.name);
    const guildId = this.opts.config.gateway.discord.guildId ?? null;
    const fingerprint = JSON.stringify({ guildId, body });
    // Skill changes re-sync the catalog, but Discord's set only names commands: skip identical uploads.
    if (fingerprint === this.registered) return;
    const rest = this.client.rest;
    try {
      const applicationId = await this.applicationId();
      const previous = await this.readRegistration();
      if (guildId) {
        await rest.put(Routes.applicationGuildCommands(applicationId, guildId), { body });
        await this.removeCommands(
          Routes.applicationCommands(applicationId),
          (id) => Routes.applicationCommand(applicationId, id),
          [...names, ...(previous?.names ?? [])],
        );
      } else {
        await rest.put(Routes.applicationCommands(applicationId), { body });
      }
      if (previous?.guildId && previous.guildId !== guildId && previous.applicationId === applicationId) {
        const old = previous.guildId;
        await this.removeCommands(
          Routes.applicationGuildCommands(applicationId, old),
          (id) => Routes.applicationGuildCommand(applicationId, old, id),
          [...names, ...previous.names],
        );
      }
      await this.writeRegistration({ applicationId, guildId, names });
      this.registered = fingerprint;
      this.log.info(
        { count: body.length, scope: guildId ? `guild ${guildId}` : "global" },
        "discord commands registered",
      );
    } catch (error) {
      throw new AdapterError(
        "discord",
        `Registering Discord slash commands failed: ${describe(error)}. Check DISCORD_BOT_TOKEN, gateway.discord.application_id and that the bot was invited with the applications.commands scope.`,
        { cause: error, code: "adapter.discord.commands" },
      );
    }
  }

  // ---- inbound -----------------------------------------------------------------------------------

  private onRaw(packet: { t?: string; d?: unknown }): void {
    if (packet.t === "READY") {
      this.botUserId = (packet.d as { user?: { id?: string } }).user?.id ?? this.botUserId;
    } else if (packet.t === "INTERACTION_CREATE") {
      const data = packet.d as DiscordInteractionJson;
      // Only the kinds `onInteraction` consumes (slash command 2, button 3, autocomplete 4, modal submit
      // 5) wait here for it, and never more than a bounded number, so nothing piles up.
      if (data.type !== 2 && data.type !== 3 && data.type !== 4 && data.type !== 5) return;
      trimOldest(this.rawInteractions, RAW_INTERACTIONS_MAX - 1);
      this.rawInteractions.set(data.id, data);
    } else if (packet.t === "MESSAGE_CREATE") {
      this.onMessage(packet.d as DiscordMessageJson);
    }
  }

  private onMessage(data: DiscordMessageJson): void {
    if (!this.sink || !this.botUserId || !this.firstSight(data.id)) return;
    const message = normalizeMessage(data, this.botUserId);
    if (message) this.deliver(message);
  }

  private async onInteraction(interaction: Interaction): Promise<void> {
    const raw = this.rawInteractions.get(interaction.id);
    this.rawInteractions.delete(interaction.id);
    if (!raw || !this.sink) return;
    try {
      if (interaction.isAutocomplete()) await this.onAutocomplete(interaction, raw);
      else if (interaction.isChatInputCommand()) this.onCommand(interaction, raw);
      else if (interaction.isButton()) await this.onSecretButton(interaction);
      else if (interaction.isModalSubmit()) await this.onSecretModal(interaction);
    } catch (error) {
      this.log.warn({ err: error, interaction: interaction.id }, "discord interaction failed");
    }
  }

  private onCommand(interaction: ChatInputCommandInteraction, raw: DiscordInteractionJson): void {
    if (!this.firstSight(interaction.id)) return;
    const message = normalizeInteraction(raw, this.layout);
    if (!message) return;
    const admission = this.hooks?.admit(message);
    if (admission && !admission.admitted) {
      // The gateway answers strangers with silence, which would leave a slash command "thinking" for
      // 15 minutes; tell them privately instead, with the same text a DM stranger gets.
      const [content = EMPTY_REPLY] = renderReply(admission.notice);
      void interaction
        .reply({ content, flags: MessageFlags.Ephemeral, allowedMentions: { parse: [] } })
        .catch((error: unknown) => this.log.warn({ err: error }, "discord: answering a stranger failed"));
      return;
    }
    // Acknowledge first: the command may take longer than Discord's 3-second window.
    const deferred = interaction.deferReply().then(
      () => true,
      (error: unknown) => {
        this.log.warn({ err: error, interaction: interaction.id }, "discord deferReply failed");
        return false;
      },
    );
    this.prunePending();
    this.pending.set(interaction.id, { interaction, deferred, edited: false, createdAt: Date.now() });
    this.deliver(message);
  }

  private async onAutocomplete(
    interaction: AutocompleteInteraction,
    raw: DiscordInteractionJson,
  ): Promise<void> {
    const query = normalizeAutocomplete(raw);
    let names: string[] = [];
    if (query && query.path[0] === SKILL_COMMAND && query.option === "name" && this.hooks) {
      try {
        names = await this.hooks.suggestSkills(query.senderId, query.prefix);
      } catch (error) {
        // Fail closed: an error in visibility or authorisation offers nothing.
        this.log.warn({ err: error }, "discord autocomplete: suggestSkills failed");
      }
    }
    const choices = names
      .filter((name) => name.length > 0 && name.length <= 100)
      .slice(0, MAX_CHOICES)
      .map((name) => ({ name, value: name }));
    await interaction.respond(choices);
  }

  /** A "Set KEY" button: opens the modal for the admin the token belongs to, or says why not (privately). */
  private async onSecretButton(interaction: ButtonInteraction): Promise<void> {
    const token = secretToken(interaction.customId);
    if (!token) return;
    const hooks = this.hooks?.secretInput;
    const asked = hooks
      ? await hooks.describe(token, interaction.user.id)
      : { refused: "Private secret entry is not available here." };
    if ("refused" in asked) {
      await interaction.reply({ content: `⛔ ${asked.refused}`, flags: MessageFlags.Ephemeral });
      return;
    }
    await interaction.showModal(
      secretModal(token, asked.key, asked.prompt) as unknown as Parameters<ButtonInteraction["showModal"]>[0],
    );
  }

  /**
   * A submitted secret modal: the value goes to the gateway's hook only (never logged here); the channel
   * sees the hook's answer ("`KEY` set ✓" and the readiness), a refusal only the submitter sees.
   */
  private async onSecretModal(interaction: ModalSubmitInteraction): Promise<void> {
    const token = secretToken(interaction.customId);
    const hooks = this.hooks?.secretInput;
    if (!token || !hooks) return;
    let value = "";
    try {
      value = interaction.fields.getTextInputValue(SECRET_FIELD);
    } catch {
      value = "";
    }
    const answer = await hooks.submit(token, interaction.user.id, value);
    const [content = EMPTY_REPLY] = renderReply(answer);
    await interaction.reply({
      content,
      allowedMentions: { parse: [] },
      ...(answer.exitCode === 0 ? {} : { flags: MessageFlags.Ephemeral }),
    });
  }

  /** Hands messages to the gateway one after another, in arrival order. */
  private deliver(message: InboundMessage): void {
    const sink = this.sink;
    if (!sink) return;
    this.inbox = this.inbox
      .then(() => sink(message))
      .catch((error: unknown) =>
        this.log.error({ err: error, eventId: message.eventId }, "gateway rejected a discord message"),
      );
  }

  /** True the first time an event id is seen (gateway replays after a resume are dropped). */
  private firstSight(id: string): boolean {
    if (this.seen.has(id)) return false;
    this.seen.add(id);
    trimOldest(this.seen, SEEN_IDS);
    return true;
  }

  private prunePending(): void {
    const cutoff = Date.now() - INTERACTION_TTL_MS;
    for (const [id, entry] of this.pending) if (entry.createdAt < cutoff) this.pending.delete(id);
  }

  // ---- outbound ----------------------------------------------------------------------------------

  private async answerInteraction(
    pending: PendingInteraction,
    chunks: string[],
    components?: Record<string, unknown>[],
  ): Promise<void> {
    for (const [index, content] of chunks.entries()) {
      const last = index === chunks.length - 1 && components ? { components } : {};
      // Components are passed as raw API JSON (discord.js sends them as given).
      const payload = {
        content,
        allowedMentions: { parse: [] as [] },
        ...last,
      } as unknown as InteractionReplyOptions;
      if (!pending.edited) {
        await pending.interaction.editReply(payload as InteractionEditReplyOptions);
        pending.edited = true;
      } else {
        await pending.interaction.followUp(payload);
      }
    }
  }

  private async postToChannel(
    channelId: string,
    chunks: string[],
    replyTo: string | undefined,
    components?: Record<string, unknown>[],
  ): Promise<void> {
    for (const [index, content] of chunks.entries()) {
      const reference =
        index === 0 && replyTo
          ? { message_reference: { message_id: replyTo, fail_if_not_exists: false } }
          : {};
      const last = index === chunks.length - 1 && components ? { components } : {};
      await this.client.rest.post(Routes.channelMessages(channelId), {
        body: { content, allowed_mentions: { parse: [] }, ...reference, ...last },
      });
    }
  }

  // ---- command registration ------------------------------------------------------------------------

  private async applicationId(): Promise<string> {
    const configured = this.opts.config.gateway.discord.applicationId;
    if (configured) return configured;
    const known = this.client.application?.id;
    if (known) return known;
    const app = (await this.client.rest.get(Routes.currentApplication())) as { id?: string };
    if (!app.id)
      throw new AdapterError(
        "discord",
        "Discord did not say the application id; set gateway.discord.application_id.",
      );
    return app.id;
  }

  /** Deletes the commands at `list` whose names skillgate registers (other bots' commands stay). */
  private async removeCommands(
    list: `/${string}`,
    item: (id: string) => `/${string}`,
    names: string[],
  ): Promise<void> {
    const ours = new Set(names);
    const existing = (await this.client.rest.get(list)) as { id: string; name: string }[];
    for (const command of existing) {
      if (ours.has(command.name)) await this.client.rest.delete(item(command.id));
    }
  }

  private registrationFile(): string {
    return path.join(this.opts.home, "gateway", REGISTRATION_FILE);
  }

  private async readRegistration(): Promise<RegistrationState | null> {
    try {
      const parsed = JSON.parse(
        await fs.readFile(this.registrationFile(), "utf8"),
      ) as Partial<RegistrationState>;
      if (typeof parsed.applicationId !== "string" || !Array.isArray(parsed.names)) return null;
      return {
        applicationId: parsed.applicationId,
        guildId: typeof parsed.guildId === "string" ? parsed.guildId : null,
        names: parsed.names.filter((name): name is string => typeof name === "string"),
      };
    } catch {
      return null;
    }
  }

  private async writeRegistration(state: RegistrationState): Promise<void> {
    await fs.mkdir(path.dirname(this.registrationFile()), { recursive: true });
    await atomicWriteFile(this.registrationFile(), stableJson(state));
  }

  // ---- helpers -----------------------------------------------------------------------------------

  private requireToken(): string {
    if (!this.token) {
      throw new AdapterError(
        "discord",
        `Discord is enabled but ${DISCORD_TOKEN_SECRET} is not set. Put it in <home>/.env or the environment, or set gateway.discord.enabled: false.`,
        { code: "adapter.discord.token" },
      );
    }
    return this.token;
  }

  /** Records the connection state; shard events arriving after `stop()` do not revive it. */
  private setState(state: AdapterHealth["state"], detail: string): void {
    if (this.stopped && state !== "stopped") return;
    this.state = { state, detail };
  }

  private connectedDetail(): string {
    const user = this.client.user;
    return user ? `logged in as ${user.tag}, ${this.client.guilds.cache.size} guild(s)` : "connected";
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function loginFailure(error: unknown): string {
  const text = describe(error);
  if (/TokenInvalid|invalid token|Authentication failed|401/i.test(text)) {
    return `Discord rejected DISCORD_BOT_TOKEN (${text}). Copy the bot token again from the Developer Portal into <home>/.env.`;
  }
  if (error instanceof Error && error.name === "AbortError") {
    return `Discord did not become ready within ${READY_TIMEOUT_MS / 1000} s. Check gateway.discord.api and the network.`;
  }
  return `Could not connect to Discord: ${text}. Check the network and gateway.discord.api.`;
}
