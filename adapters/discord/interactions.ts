/**
 * Discord inbound: gateway events into the gateway's sink, one after another in arrival order, replays
 * after a resume dropped. Text is read in DMs and when the bot is mentioned; a slash command is deferred
 * at once (Discord allows 3 s) or, from a stranger, answered privately; a button press is judged by the
 * gateway and then acknowledged with a deferred update (within 3 s at the latest); `/skill name`
 * autocompletes through the gateway's hooks within Discord's deadline. A "Set KEY" press and a submitted
 * modal go to the secret-input flow.
 */
import {
  type AutocompleteInteraction,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  Events,
  type Interaction,
  MessageFlags,
} from "discord.js";
import { trimOldest } from "../../src/core/bounded.js";
import type { InboundMessage } from "../../src/core/message.js";
import { type DiscordComponentJson, normalizeComponent } from "./actions.js";
import { SKILL_COMMAND } from "./commands.js";
import { type DiscordContext, EMPTY_REPLY, INTERACTION_TTL_MS, type PendingPress } from "./context.js";
import {
  type DiscordInteractionJson,
  type DiscordMessageJson,
  normalizeAutocomplete,
  normalizeInteraction,
  normalizeMessage,
} from "./normalize.js";
import { acknowledgePress } from "./outbound.js";
import { renderReply } from "./render.js";
import type { DiscordSecretFlow } from "./secret-flow.js";

/** Autocomplete answers at most 25 choices. */
const MAX_CHOICES = 25;
/** Recent event ids kept to drop gateway replays after a resume. */
const SEEN_IDS = 2000;
/** Interactions waiting for discord.js to hand them over, at most. */
const RAW_INTERACTIONS_MAX = 256;

/**
 * A component interaction must be acknowledged within 3 s; a press is acknowledged once the gateway
 * has judged it, or after this long at the latest.
 */
const PRESS_ACK_DEADLINE_MS = 2_000;

/** Hands one Discord adapter's events to the gateway. */
export class DiscordInteractions {
  /** Recent event ids, to drop gateway replays after a resume. */
  private readonly seen = new Set<string>();

  constructor(
    private readonly ctx: DiscordContext,
    private readonly secrets: DiscordSecretFlow,
  ) {}

  /** Subscribes to the raw gateway events and the interactions discord.js builds from them. */
  listen(): void {
    this.ctx.client.on(Events.Raw, (packet: { t?: string; d?: unknown }) => this.onRaw(packet));
    this.ctx.client.on(Events.InteractionCreate, (interaction) => void this.onInteraction(interaction));
  }

  private onRaw(packet: { t?: string; d?: unknown }): void {
    if (packet.t === "READY") {
      this.ctx.botUserId = (packet.d as { user?: { id?: string } }).user?.id ?? this.ctx.botUserId;
    } else if (packet.t === "INTERACTION_CREATE") {
      const data = packet.d as DiscordInteractionJson;
      // Only the kinds `onInteraction` consumes (slash command 2, button 3, autocomplete 4, modal submit
      // 5) wait here for it, and never more than a bounded number, so nothing piles up.
      if (data.type !== 2 && data.type !== 3 && data.type !== 4 && data.type !== 5) return;
      trimOldest(this.ctx.rawInteractions, RAW_INTERACTIONS_MAX - 1);
      this.ctx.rawInteractions.set(data.id, data);
    } else if (packet.t === "MESSAGE_CREATE") {
      this.onMessage(packet.d as DiscordMessageJson);
    }
  }

  private onMessage(data: DiscordMessageJson): void {
    if (!this.ctx.sink || !this.ctx.botUserId || !this.firstSight(data.id)) return;
    const message = normalizeMessage(data, this.ctx.botUserId, this.botRoleIds(data.guild_id));
    if (message) this.deliver(message);
  }

  private async onInteraction(interaction: Interaction): Promise<void> {
    const raw = this.ctx.rawInteractions.get(interaction.id);
    this.ctx.rawInteractions.delete(interaction.id);
    if (!raw || !this.ctx.sink) return;
    try {
      if (interaction.isAutocomplete()) await this.onAutocomplete(interaction, raw);
      else if (interaction.isChatInputCommand()) this.onCommand(interaction, raw);
      else if (interaction.isButton()) this.onButton(interaction, raw as DiscordComponentJson);
      else if (interaction.isModalSubmit()) await this.secrets.onModalSubmit(interaction);
    } catch (error) {
      this.ctx.log.warn({ err: error, interaction: interaction.id }, "discord interaction failed");
    }
  }

  private onCommand(interaction: ChatInputCommandInteraction, raw: DiscordInteractionJson): void {
    if (!this.firstSight(interaction.id)) return;
    const message = normalizeInteraction(raw, this.ctx.layout);
    if (!message) return;
    const admission = this.ctx.hooks?.admit(message);
    if (admission && !admission.admitted) {
      // The gateway answers strangers with silence, which would leave a slash command "thinking" for
      // 15 minutes; tell them privately instead, with the same text a DM stranger gets.
      const [content = EMPTY_REPLY] = renderReply(admission.notice);
      void interaction
        .reply({ content, flags: MessageFlags.Ephemeral, allowedMentions: { parse: [] } })
        .catch((error: unknown) => this.ctx.log.warn({ err: error }, "discord: answering a stranger failed"));
      return;
    }
    // Acknowledge first: the command may take longer than Discord's 3-second window.
    const deferred = interaction.deferReply().then(
      () => true,
      (error: unknown) => {
        this.ctx.log.warn({ err: error, interaction: interaction.id }, "discord deferReply failed");
        return false;
      },
    );
    this.prunePending();
    this.ctx.pending.set(interaction.id, { interaction, deferred, edited: false, createdAt: Date.now() });
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
    const secretInput = this.ctx.hooks?.secretInput;
    if (!secretInput) {
      this.deliverPress(interaction, message);
      return;
    }
    // A "Set KEY" button must be answered with its modal (a modal can only be an interaction's first
    // response), so the gateway is asked first whether this press is one.
    void this.secrets.openModal(interaction, message, secretInput).then(
      (handled) => {
        if (!handled) this.deliverPress(interaction, message);
      },
      (error: unknown) =>
        this.ctx.log.warn({ err: error, interaction: interaction.id }, "discord: opening a modal failed"),
    );
  }

  private deliverPress(interaction: ButtonInteraction, message: InboundMessage): void {
    const press: PendingPress = {
      interaction,
      acknowledged: undefined,
      edited: false,
      createdAt: Date.now(),
    };
    this.prunePending();
    this.ctx.presses.set(interaction.id, press);
    const timer = setTimeout(() => acknowledgePress(this.ctx, press), PRESS_ACK_DEADLINE_MS);
    const sink = this.ctx.sink;
    if (!sink) return;
    this.ctx.inbox = this.ctx.inbox
      .then(() => sink(message))
      .catch((error: unknown) =>
        this.ctx.log.error(
          { err: error, eventId: message.eventId },
          "gateway rejected a discord button press",
        ),
      )
      .finally(() => {
        clearTimeout(timer);
        acknowledgePress(this.ctx, press);
      });
  }

  private async onAutocomplete(
    interaction: AutocompleteInteraction,
    raw: DiscordInteractionJson,
  ): Promise<void> {
    const query = normalizeAutocomplete(raw);
    let names: string[] = [];
    if (query && query.path[0] === SKILL_COMMAND && query.option === "name" && this.ctx.hooks) {
      try {
        const found = await withDeadline(
          this.ctx.hooks.suggestSkills(query.senderId, query.prefix),
          this.ctx.tuning.autocompleteBudgetMs,
        );
        if (found === TIMED_OUT)
          this.ctx.log.warn(
            { budgetMs: this.ctx.tuning.autocompleteBudgetMs },
            "discord autocomplete: the skill lookup was too slow; answering with no choices",
          );
        else names = found;
      } catch (error) {
        // Fail closed: an error in visibility or authorisation offers nothing.
        this.ctx.log.warn({ err: error }, "discord autocomplete: suggestSkills failed");
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
    if (!guildId || !this.ctx.botUserId) return new Set();
    const role = this.ctx.client.guilds.cache.get(guildId)?.roles.botRoleFor(this.ctx.botUserId);
    return role ? new Set([role.id]) : new Set();
  }

  /** Hands messages to the gateway one after another, in arrival order. */
  private deliver(message: InboundMessage): void {
    const sink = this.ctx.sink;
    if (!sink) return;
    this.ctx.inbox = this.ctx.inbox
      .then(() => sink(message))
      .catch((error: unknown) =>
        this.ctx.log.error({ err: error, eventId: message.eventId }, "gateway rejected a discord message"),
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
    for (const [id, entry] of this.ctx.pending) if (entry.createdAt < cutoff) this.ctx.pending.delete(id);
    for (const [id, entry] of this.ctx.presses) if (entry.createdAt < cutoff) this.ctx.presses.delete(id);
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
