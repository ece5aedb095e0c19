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
  MessageFlags,
  type ModalSubmitInteraction,
  Partials,
  Routes,
} from "discord.js";
import { trimOldest } from "../../src/core/bounded.js";
import { AdapterError, FileRefusedError } from "../../src/core/errors.js";
import { atomicWriteFile, stableJson } from "../../src/core/fsutil.js";
import { menuLocales } from "../../src/core/i18n/locale.js";
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
  SecretInputHooks,
} from "../../src/core/message.js";
import type { AdapterOptions } from "../../src/core/platforms.js";
import type { Reply } from "../../src/core/reply.js";
import { connectWithRetries } from "../../src/core/startup.js";
import {
  type ActionRowJson,
  type DiscordComponentJson,
  type EmbedJson,
  normalizeComponent,
  renderComponents,
  renderEmbed,
} from "./actions.js";
import { buildApplicationCommands, buildInteractionLayout, SKILL_COMMAND } from "./commands.js";
import { discordConfig } from "./config.js";
import {
  type DiscordInteractionJson,
  type DiscordMessageJson,
  type InteractionLayout,
  normalizeAutocomplete,
  normalizeInteraction,
  normalizeMessage,
} from "./normalize.js";
import { DISCORD_MESSAGE_LIMIT, type DiscordAttachment, renderReply, splitFiles } from "./render.js";
import { SECRET_FIELD, secretModal, secretToken } from "./secret-input.js";

/** What the factory takes: the options every adapter receives, plus timings tests shorten. */
export interface DiscordAdapterOptions extends AdapterOptions {
  tuning?: Partial<DiscordTuning>;
}

/** Timings of the Discord adapter. */
export interface DiscordTuning {
  /** How long `start()` waits for READY and every guild (ms). */
  readyTimeoutMs: number;
  /**
   * Time given to the gateway's skill lookup for one autocomplete request (ms). Discord drops an
   * answer that comes more than 3 s after the request (error 10062), so whatever is known by then is
   * sent.
   */
  autocompleteBudgetMs: number;
}

const DEFAULT_TUNING: DiscordTuning = { readyTimeoutMs: 30_000, autocompleteBudgetMs: 2_000 };

/**
 * The gateway intents skillgate asks for. None is privileged: DMs and messages that mention the bot
 * carry their content without the Message Content intent, and those are the only messages read.
 */
export const DISCORD_INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.DirectMessages,
] as const;

/** Developer Portal switch of each privileged intent (Bot → Privileged Gateway Intents). */
const PRIVILEGED_SWITCHES: [GatewayIntentBits, string][] = [
  [GatewayIntentBits.MessageContent, "Message Content Intent"],
  [GatewayIntentBits.GuildMembers, "Server Members Intent"],
  [GatewayIntentBits.GuildPresences, "Presence Intent"],
];

/** Gateway close codes after which discord.js gives up, and what each means for the owner. */
const FATAL_CLOSE_CODES = new Set([4004, 4010, 4011, 4012, 4013, 4014]);

/** The secret holding the bot token. */
export const DISCORD_TOKEN_SECRET = "DISCORD_BOT_TOKEN";

/** Interaction tokens stay valid for 15 minutes; after that a reply must go to the channel. */
const INTERACTION_TTL_MS = 15 * 60 * 1000;
/** Autocomplete answers at most 25 choices. */
const MAX_CHOICES = 25;
/** Attempts of the first login before the adapter reports `failed`. */
const START_ATTEMPTS = 3;
/** Recent event ids kept to drop gateway replays after a resume. */
const SEEN_IDS = 2000;
/** Sent instead of an empty reply so a deferred “thinking…” never stays forever. */
const EMPTY_REPLY = "Done.";
/** Interactions waiting for discord.js to hand them over, at most. */
const RAW_INTERACTIONS_MAX = 256;
/** File under `<home>/gateway/` remembering where commands were registered last. */
const REGISTRATION_FILE = "discord-commands.json";

/**
 * A component interaction must be acknowledged within 3 s; a press is acknowledged once the gateway
 * has judged it, or after this long at the latest.
 */
const PRESS_ACK_DEADLINE_MS = 2_000;

/** One message's worth of REST payload: text or an embed, the buttons and the files on it. */
interface MessagePayload {
  content: string;
  embeds?: EmbedJson[];
  components?: ActionRowJson[];
  files?: DiscordAttachment[];
}

/** Messages of one reply that Discord accepted so far (a refused file says how many went before it). */
interface Progress {
  sent: number;
}

/** A button press waiting for (or receiving) its answer. */
interface PendingPress {
  interaction: ButtonInteraction;
  /** Set once acknowledged: resolves true when Discord accepted the acknowledgement. */
  acknowledged: Promise<boolean> | undefined;
  /** The message carrying the button was replaced with the first chunk. */
  edited: boolean;
  createdAt: number;
}

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
    buttons: true,
    files: true,
    privateInput: "modal",
  };

  private readonly opts: DiscordAdapterOptions;
  private readonly tuning: DiscordTuning;
  private readonly intents: readonly GatewayIntentBits[];
  private readonly log: Logger;
  private readonly token: string | undefined;
  private readonly client: Client;
  private readonly pending = new Map<string, PendingInteraction>();
  private readonly presses = new Map<string, PendingPress>();
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
    this.tuning = { ...DEFAULT_TUNING, ...opts.tuning };
    this.intents = DISCORD_INTENTS;
    this.log = opts.logger.child({ adapter: "discord" });
    this.token = opts.secret(DISCORD_TOKEN_SECRET);
    const api = discordConfig(opts.config).api;
    this.client = new Client({
      intents: [...this.intents],
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
    const readyTimeoutMs = this.tuning.readyTimeoutMs;
    const failure = (error: unknown) => loginFailure(error, this.intents, readyTimeoutMs);
    await connectWithRetries({
      platform: "discord",
      attempts: START_ATTEMPTS,
      baseDelayMs: 1_000,
      maxDelayMs: 30_000,
      logger: this.log,
      onState: (detail) => this.setState("starting", detail),
      // A fatal close (bad token, disallowed intents) is not worth another attempt.
      fatal: (error) =>
        error instanceof GatewayClosedError ||
        /TokenInvalid|invalid token|Authentication failed|401/i.test(describe(error)),
      attempt: async () => {
        const abort = new AbortController();
        const timer = setTimeout(() => abort.abort(), readyTimeoutMs);
        const ready = once(this.client, Events.ClientReady, { signal: abort.signal });
        // A fatal close means READY never comes: fail at once, saying why.
        let onClose: ((event: { code: number }) => void) | undefined;
        const closed = new Promise<never>((_resolve, reject) => {
          onClose = (event) => {
            if (FATAL_CLOSE_CODES.has(event.code)) reject(new GatewayClosedError(event.code));
          };
          this.client.on(Events.ShardDisconnect, onClose);
        });
        try {
          await Promise.race([this.client.login(token).then(() => ready), closed]);
        } catch (error) {
          ready.catch(() => undefined);
          await this.client.destroy().catch(() => undefined);
          throw error;
        } finally {
          clearTimeout(timer);
          abort.abort();
          if (onClose) this.client.off(Events.ShardDisconnect, onClose);
          closed.catch(() => undefined);
        }
      },
      wrap: (error) => {
        this.setState("failed", failure(error));
        return new AdapterError("discord", failure(error), {
          cause: error,
          code:
            error instanceof GatewayClosedError
              ? `adapter.discord.close_${error.code}`
              : "adapter.discord.login",
        });
      },
    });
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

  /** Messages a reply becomes here: its markdown chunks (or embed); files ride on the last one. */
  measure(reply: Reply): number {
    return messagePayloads(reply).length;
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
    const payloads = messagePayloads(reply);
    const pending = inReplyTo ? this.pending.get(inReplyTo.eventId) : undefined;
    const press = inReplyTo?.press ? this.presses.get(inReplyTo.eventId) : undefined;
    const progress: Progress = { sent: 0 };
    try {
      if (press && Date.now() - press.createdAt < INTERACTION_TTL_MS) {
        await this.answerPress(press, target, reply, payloads, progress);
        return;
      }
      const channelId = target.threadId ?? target.chatId;
      if (pending && (await pending.deferred) && Date.now() - pending.createdAt < INTERACTION_TTL_MS) {
        const rest = await this.answerInteraction(pending, payloads, progress);
        if (rest.length === 0) return;
        // The interaction token ran out (15 minutes): what is left goes to the channel.
        await this.postToChannel(channelId, rest, undefined, progress);
        return;
      }
      if (
        target.editMessageId &&
        (await this.editChannelMessage(channelId, target.editMessageId, payloads, progress))
      )
        return;
      const replyTo =
        target.replyTo ??
        (inReplyTo && !pending && !press && inReplyTo.chat.id === target.chatId
          ? inReplyTo.eventId
          : undefined);
      await this.postToChannel(channelId, payloads, replyTo, progress);
    } catch (error) {
      if (error instanceof AdapterError) throw error;
      const file = payloads[progress.sent]?.files?.[0];
      if (file && isUploadRefusal(error)) {
        throw new FileRefusedError(
          "discord",
          file.name,
          `Discord refused the attachment ${file.name} (${file.data.length.toLocaleString("en-US")} bytes) in channel ${target.chatId}: ${describe(error)}`,
          { cause: error, delivered: progress.sent },
        );
      }
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
   * The "running…" notice of slow work. A slash command was already acknowledged with a deferral
   * (Discord shows "thinking…" and the result edits the deferred reply), so nothing is sent for it. A
   * press was acknowledged with a deferred update (callback type 6 — Discord's interaction response
   * types: "ACK an interaction and edit the original message later; the user does not see a loading
   * state"), which shows nothing at all: the
   * pressed message itself becomes the notice, its buttons removed (so it cannot be pressed twice
   * meanwhile), and the result edits it again. A typed command gets the notice as a reply in the
   * channel; its id comes back so the result edits it (`PATCH /channels/{channel.id}/messages/{message.id}`
   * on the bot's own message).
   */
  async acknowledge(
    target: OutboundTarget,
    notice: Reply,
    inReplyTo?: InboundMessage,
  ): Promise<string | undefined> {
    const press = inReplyTo ? this.presses.get(inReplyTo.eventId) : undefined;
    if (press) {
      if (await this.acknowledgePress(press)) {
        const content = messagePayloads(notice)[0]?.content || EMPTY_REPLY;
        await press.interaction.editReply({
          content,
          embeds: [],
          components: [],
          allowedMentions: { parse: [] },
        });
      }
      return undefined;
    }
    if (inReplyTo && this.pending.has(inReplyTo.eventId)) return undefined;
    const [first] = messagePayloads(notice);
    if (!first) return undefined;
    const replyTo = target.replyTo ?? (inReplyTo?.chat.id === target.chatId ? inReplyTo.eventId : undefined);
    const reference = replyTo
      ? { message_reference: { message_id: replyTo, fail_if_not_exists: false } }
      : {};
    const sent = (await this.client.rest.post(Routes.channelMessages(target.threadId ?? target.chatId), {
      body: { ...first, allowed_mentions: { parse: [] }, ...reference },
    })) as { id?: string };
    return sent.id;
  }

  /**
   * Registers skillgate's slash commands with one bulk overwrite (registering twice leaves one set):
   * for `gateway.discord.guild_id` only when it is set, and then skillgate's global commands are removed;
   * globally otherwise, and then skillgate's commands left in a previously configured guild are removed.
   */
  async syncCommands(catalog: CommandCatalogEntry[]): Promise<void> {
    this.requireToken();
    this.layout = buildInteractionLayout(catalog);
    const { gateway } = this.opts.config;
    const locales = menuLocales({
      platformSetting: gateway.platforms.discord?.locale,
      setting: gateway.locale,
    });
    const body = buildApplicationCommands(catalog, locales);
    const names = body.map((command) => command.name);
    const guildId = discordConfig(this.opts.config).guildId ?? null;
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
    const message = normalizeMessage(data, this.botUserId, this.botRoleIds(data.guild_id));
    if (message) this.deliver(message);
  }

  private async onInteraction(interaction: Interaction): Promise<void> {
    const raw = this.rawInteractions.get(interaction.id);
    this.rawInteractions.delete(interaction.id);
    if (!raw || !this.sink) return;
    try {
      if (interaction.isAutocomplete()) await this.onAutocomplete(interaction, raw);
      else if (interaction.isChatInputCommand()) this.onCommand(interaction, raw);
      else if (interaction.isButton()) this.onButton(interaction, raw as DiscordComponentJson);
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

  /**
   * A button press: handed to the gateway, which judges it at once (a refusal is answered privately
   * through `send`); then acknowledged with a deferred update (callback type 6) so the result can edit
   * the message in place. Discord drops an interaction not acknowledged within 3 s, so the
   * acknowledgement goes out after `PRESS_ACK_DEADLINE_MS` at the latest.
   */
  private onButton(interaction: ButtonInteraction, raw: DiscordComponentJson): void {
    if (!this.firstSight(interaction.id)) return;
    const message = normalizeComponent(raw);
    if (!message) return;
    const secretInput = this.hooks?.secretInput;
    if (!secretInput) {
      this.deliverPress(interaction, message);
      return;
    }
    // A "Set KEY" button must be answered with its modal (a modal can only be an interaction's first
    // response), so the gateway is asked first whether this press is one.
    void this.openSecretModal(interaction, message, secretInput).then(
      (handled) => {
        if (!handled) this.deliverPress(interaction, message);
      },
      (error: unknown) =>
        this.log.warn({ err: error, interaction: interaction.id }, "discord: opening a modal failed"),
    );
  }

  /**
   * Opens the secret modal when the pressed button is a "Set KEY" action the presser may use; a refusal
   * is shown to them alone. False when the press is an ordinary button.
   */
  private async openSecretModal(
    interaction: ButtonInteraction,
    message: InboundMessage,
    hooks: SecretInputHooks,
  ): Promise<boolean> {
    const opened = await hooks.open(message);
    if (opened === null) return false;
    if ("refused" in opened) {
      await interaction.reply({
        content: opened.refused,
        flags: MessageFlags.Ephemeral,
        allowedMentions: { parse: [] },
      });
      return true;
    }
    await interaction.showModal(
      secretModal(opened.token, opened.key, opened.prompt) as unknown as Parameters<
        ButtonInteraction["showModal"]
      >[0],
    );
    return true;
  }

  private deliverPress(interaction: ButtonInteraction, message: InboundMessage): void {
    const press: PendingPress = {
      interaction,
      acknowledged: undefined,
      edited: false,
      createdAt: Date.now(),
    };
    this.prunePending();
    this.presses.set(interaction.id, press);
    const timer = setTimeout(() => this.acknowledgePress(press), PRESS_ACK_DEADLINE_MS);
    const sink = this.sink;
    if (!sink) return;
    this.inbox = this.inbox
      .then(() => sink(message))
      .catch((error: unknown) =>
        this.log.error({ err: error, eventId: message.eventId }, "gateway rejected a discord button press"),
      )
      .finally(() => {
        clearTimeout(timer);
        this.acknowledgePress(press);
      });
  }

  private acknowledgePress(press: PendingPress): Promise<boolean> {
    press.acknowledged ??= press.interaction.deferUpdate().then(
      () => true,
      (error: unknown) => {
        this.log.warn({ err: error, interaction: press.interaction.id }, "discord deferUpdate failed");
        return false;
      },
    );
    return press.acknowledged;
  }

  /**
   * Answers a press: a private reply as an ephemeral message (only the presser sees it); a result that
   * replaces the pressed message by editing it (`@original` of a component interaction is the message
   * the button is on); any other result as a new message in the channel.
   */
  private async answerPress(
    press: PendingPress,
    target: OutboundTarget,
    reply: Reply,
    payloads: MessagePayload[],
    progress: Progress,
  ): Promise<void> {
    const { interaction } = press;
    if (reply.private) {
      const content = payloads[0]?.content || EMPTY_REPLY;
      const ephemeral = { content, flags: MessageFlags.Ephemeral as const, allowedMentions: { parse: [] } };
      if (press.acknowledged === undefined) {
        press.acknowledged = interaction.reply(ephemeral).then(() => true);
        await press.acknowledged;
      } else if (await press.acknowledged) {
        await interaction.followUp(ephemeral);
      }
      return;
    }
    const acknowledged = await this.acknowledgePress(press);
    if (target.editMessageId && acknowledged) {
      for (const payload of payloads) {
        const body = {
          ...clientBody(payload),
          components: payload.components ?? [],
          allowedMentions: { parse: [] },
        };
        if (!press.edited) {
          await interaction.editReply({ ...body, embeds: payload.embeds ?? [] });
          press.edited = true;
        } else {
          await interaction.followUp(body);
        }
        progress.sent += 1;
      }
      return;
    }
    await this.postToChannel(target.threadId ?? target.chatId, payloads, undefined, progress);
  }

  private async onAutocomplete(
    interaction: AutocompleteInteraction,
    raw: DiscordInteractionJson,
  ): Promise<void> {
    const query = normalizeAutocomplete(raw);
    let names: string[] = [];
    if (query && query.path[0] === SKILL_COMMAND && query.option === "name" && this.hooks) {
      try {
        const found = await withDeadline(
          this.hooks.suggestSkills(query.senderId, query.prefix),
          this.tuning.autocompleteBudgetMs,
        );
        if (found === TIMED_OUT)
          this.log.warn(
            { budgetMs: this.tuning.autocompleteBudgetMs },
            "discord autocomplete: the skill lookup was too slow; answering with no choices",
          );
        else names = found;
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

  /** The bot's managed role in a guild (from the cached roles whose tags name the bot). */
  private botRoleIds(guildId: string | undefined): Set<string> {
    if (!guildId || !this.botUserId) return new Set();
    const role = this.client.guilds.cache.get(guildId)?.roles.botRoleFor(this.botUserId);
    return role ? new Set([role.id]) : new Set();
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
    for (const [id, entry] of this.presses) if (entry.createdAt < cutoff) this.presses.delete(id);
  }

  // ---- outbound ----------------------------------------------------------------------------------

  /**
   * Edits the deferred reply with the first payload and follows up with the rest. Returns the payloads
   * not sent because Discord no longer accepts the interaction's token (401 50027 after 15 minutes, or
   * an unknown webhook), so the caller can post them to the channel instead.
   */
  private async answerInteraction(
    pending: PendingInteraction,
    payloads: MessagePayload[],
    progress: Progress,
  ): Promise<MessagePayload[]> {
    for (const [index, payload] of payloads.entries()) {
      const body = { ...clientBody(payload), allowedMentions: { parse: [] } };
      try {
        if (!pending.edited) {
          await pending.interaction.editReply(body);
          pending.edited = true;
        } else {
          await pending.interaction.followUp(body);
        }
        progress.sent += 1;
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (code !== 50027 && code !== 10015) throw error;
        this.log.warn({ code }, "discord: the interaction token expired; posting the rest to the channel");
        return payloads.slice(index);
      }
    }
    return [];
  }

  private async postToChannel(
    channelId: string,
    payloads: MessagePayload[],
    replyTo: string | undefined,
    progress: Progress,
  ): Promise<void> {
    for (const [index, payload] of payloads.entries()) {
      const reference =
        index === 0 && replyTo
          ? { message_reference: { message_id: replyTo, fail_if_not_exists: false } }
          : {};
      const { body, files } = restBody(payload);
      await this.client.rest.post(Routes.channelMessages(channelId), {
        body: { ...body, allowed_mentions: { parse: [] }, ...reference },
        ...(files ? { files } : {}),
      });
      progress.sent += 1;
    }
  }

  /** Replaces a message the bot posted in a channel with the first payload; false when that fails. */
  private async editChannelMessage(
    channelId: string,
    messageId: string,
    payloads: MessagePayload[],
    progress: Progress,
  ): Promise<boolean> {
    const [first, ...rest] = payloads;
    if (!first) return true;
    const { body, files } = restBody(first);
    try {
      await this.client.rest.patch(Routes.channelMessage(channelId, messageId), {
        body: { embeds: [], components: [], ...body, allowed_mentions: { parse: [] } },
        ...(files ? { files } : {}),
      });
    } catch (error) {
      if (files && isUploadRefusal(error)) throw error;
      this.log.warn({ err: error, channel: channelId }, "discord: could not edit the message; sending anew");
      return false;
    }
    progress.sent += 1;
    await this.postToChannel(channelId, rest, undefined, progress);
    return true;
  }

  // ---- command registration ------------------------------------------------------------------------

  private async applicationId(): Promise<string> {
    const configured = discordConfig(this.opts.config).applicationId;
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

const TIMED_OUT = Symbol("timed out");

/** `promise`'s value, or `TIMED_OUT` when it takes longer than `ms`. */
async function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The gateway closed the connection with a code discord.js does not recover from. */
class GatewayClosedError extends Error {
  constructor(readonly code: number) {
    super(`Discord closed the gateway connection with code ${code}`);
    this.name = "GatewayClosedError";
  }
}

/** Tells the owner what a failed login means and what to change. */
export function loginFailure(
  error: unknown,
  intents: readonly GatewayIntentBits[] = DISCORD_INTENTS,
  readyTimeoutMs: number = DEFAULT_TUNING.readyTimeoutMs,
): string {
  if (error instanceof GatewayClosedError) return closeCodeAdvice(error.code, intents);
  const text = describe(error);
  if (/TokenInvalid|invalid token|Authentication failed|401/i.test(text)) {
    return `Discord rejected DISCORD_BOT_TOKEN (${text}). Copy the bot token again from the Developer Portal into <home>/.env.`;
  }
  if (error instanceof Error && error.name === "AbortError") {
    return `Discord did not become ready within ${readyTimeoutMs / 1000} s. Check gateway.discord.api and the network.`;
  }
  return `Could not connect to Discord: ${text}. Check the network and gateway.discord.api.`;
}

/**
 * A reply as REST message payloads: one embed for a card that fits, else markdown chunks of at most
 * 2000 characters; the buttons go on the last one. Never empty (an empty reply says "Done.").
 */
function messagePayloads(reply: Reply): MessagePayload[] {
  const { text, files } = splitFiles(reply);
  const attached = files.length > 0 ? { files } : {};
  const components = renderComponents(text);
  const buttons = components.length > 0 ? { components } : {};
  const embed = renderEmbed(text);
  if (embed) return [{ content: "", embeds: [embed], ...buttons, ...attached }];
  const chunks = renderReply(text);
  // A reply that is only a file goes as the file alone (Discord takes a message with files and no text).
  const texts = chunks.length > 0 ? chunks : [files.length > 0 ? "" : EMPTY_REPLY];
  return texts.map((content, index) =>
    index === texts.length - 1 ? { content, ...buttons, ...attached } : { content },
  );
}

/** A payload as discord.js message options: files as `{ attachment, name }`. */
function clientBody(payload: MessagePayload): Omit<MessagePayload, "files"> & {
  files?: { attachment: Buffer; name: string }[];
} {
  const { files, ...rest } = payload;
  if (!files || files.length === 0) return rest;
  return { ...rest, files: files.map((file) => ({ attachment: file.data, name: file.name })) };
}

/**
 * A payload as a raw REST request: the JSON body, and the files the REST client sends as `files[n]`
 * parts of a multipart body, each described in `attachments` by its index (Discord docs, Uploading Files).
 */
function restBody(payload: MessagePayload): {
  body: Omit<MessagePayload, "files"> & { attachments?: { id: number; filename: string }[] };
  files?: { name: string; data: Buffer; contentType: string }[];
} {
  const { files, ...rest } = payload;
  if (!files || files.length === 0) return { body: rest };
  return {
    body: { ...rest, attachments: files.map((file, id) => ({ id, filename: file.name })) },
    files: files.map((file) => ({
      name: file.name,
      data: file.data,
      contentType: "text/plain; charset=utf-8",
    })),
  };
}

/** Discord refused an upload: 413 "Request entity too large" (code 40005), over the upload limit. */
function isUploadRefusal(error: unknown): boolean {
  const { code, status } = error as { code?: unknown; status?: unknown };
  return code === 40005 || status === 413;
}

/** What a fatal gateway close code means for the owner (Discord's Gateway Close Event Codes). */
export function closeCodeAdvice(
  code: number,
  intents: readonly GatewayIntentBits[] = DISCORD_INTENTS,
): string {
  if (code === 4004)
    return "Discord closed the connection with 4004 (authentication failed): DISCORD_BOT_TOKEN is wrong or was reset. Copy the bot token again from the Developer Portal (Bot → Reset Token) into <home>/.env.";
  if (code === 4014) {
    const wanted = PRIVILEGED_SWITCHES.filter(([bit]) => intents.includes(bit)).map(([, name]) => name);
    const which = wanted.length > 0 ? wanted.join(", ") : "the privileged intents";
    return `Discord closed the connection with 4014 (disallowed intents): the bot asked for ${which}, which is not switched on for this application. Turn it on in the Developer Portal → your application → Bot → Privileged Gateway Intents, then restart.`;
  }
  if (code === 4013)
    return "Discord closed the connection with 4013 (invalid intents): report this as a skillgate bug.";
  return `Discord closed the connection with code ${code} and will not reconnect. Check DISCORD_BOT_TOKEN and gateway.discord.api.`;
}
