/**
 * Discord inbound: gateway events into the gateway's sink, one after another in arrival order, replays
 * after a resume dropped. Text is read in DMs and when the bot is mentioned. Interactions come over the
 * gateway session or through the Interactions Endpoint (`endpoint.ts`), and are taken the same way
 * here: a slash command from a stranger is answered privately; any other is delivered and deferred
 * (Discord allows 3 s for the first answer; one gateway defers before delivering, as its queue always
 * takes the command); a button press is delivered, then acknowledged with a deferred update (at the
 * latest after `ACK_DEADLINE_MS`); `/skill name` autocompletes through the gateway's hooks within
 * Discord's deadline. A "Set KEY" press and a submitted modal go to the secret-input flow. With several
 * replicas the sink appends to the shared inbox and may refuse (Redis unreachable): the interaction is
 * then not acknowledged as taken but answered privately that the bot is briefly unavailable, because
 * Discord never delivers an interaction twice ("If the 3 second deadline is exceeded, the token will be
 * invalidated", Discord docs, Receiving and Responding), so a refusal (an error status) would only show
 * "This interaction failed" without a word about trying again.
 */
import {
  type AutocompleteInteraction,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  Events,
  type Interaction,
  type InteractionEditReplyOptions,
  type InteractionReplyOptions,
  MessageFlags,
  type ModalSubmitInteraction,
} from "discord.js";
import { trimOldest } from "../../src/core/bounded.js";
import { type InboundMessage, notTakenNotice } from "../../src/core/message.js";
import { type DiscordComponentJson, normalizeComponent } from "./actions.js";
import type { AnswerableInteraction, AnswerOptions, Choice } from "./answer.js";
import { SKILL_COMMAND } from "./commands.js";
import {
  type DiscordContext,
  EMPTY_REPLY,
  INTERACTION_TTL_MS,
  type PendingInteraction,
  type PendingPress,
} from "./context.js";
import { readSharedLayout } from "./layout.js";
import {
  type DiscordInteractionJson,
  type DiscordMessageJson,
  type InteractionLayout,
  normalizeAutocomplete,
  normalizeInteraction,
  normalizeMessage,
} from "./normalize.js";
import { acknowledgePress, deferCommand } from "./outbound.js";
import { renderReply } from "./render.js";
import type { DiscordSecretFlow, ModalOpener } from "./secret-flow.js";
import { modalSubmission, SECRET_FIELD } from "./secret-input.js";

/** Autocomplete answers at most 25 choices. */
const MAX_CHOICES = 25;
/** Recent event ids kept to drop gateway replays after a resume. */
const SEEN_IDS = 2000;
/** Interactions waiting for discord.js to hand them over, at most. */
const RAW_INTERACTIONS_MAX = 256;

/**
 * An interaction must get its first answer within 3 s of Discord sending it; one being delivered is
 * acknowledged once the gateway took it, or after this long at the latest. Our clock starts only once the
 * request reached us (after the network, a reverse proxy, reading the body and checking its signature),
 * and a busy host answers late, so a third of the window is ours to wait and the rest is margin.
 */
const ACK_DEADLINE_MS = 1_000;

/** How an interaction arrived: over the gateway session, or by HTTP to the Interactions Endpoint. */
export type Arrival = "gateway" | "endpoint";

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
    if (message) void this.deliver(message);
  }

  private async onInteraction(interaction: Interaction): Promise<void> {
    const raw = this.ctx.rawInteractions.get(interaction.id);
    this.ctx.rawInteractions.delete(interaction.id);
    if (!raw || !this.ctx.sink) return;
    try {
      if (interaction.isAutocomplete()) await this.onAutocomplete(interaction, raw);
      else if (interaction.isChatInputCommand()) await this.takeCommand(live(interaction), raw, "gateway");
      else if (interaction.isButton())
        await this.takePress(live(interaction), raw as DiscordComponentJson, "gateway", (modal) =>
          interaction.showModal(modal as unknown as Parameters<ButtonInteraction["showModal"]>[0]),
        );
      else if (interaction.isModalSubmit()) await this.onModalSubmit(interaction);
    } catch (error) {
      this.ctx.log.warn({ err: error, interaction: interaction.id }, "discord interaction failed");
    }
  }

  /**
   * A slash command: a stranger is answered privately; any other command is delivered and deferred. It
   * resolves once the first answer was given; false when the command was not taken (a replay, or not a
   * chat-input command), so the endpoint can say so.
   */
  async takeCommand(
    interaction: AnswerableInteraction,
    raw: DiscordInteractionJson,
    arrival: Arrival,
  ): Promise<boolean> {
    if (!this.firstSight(interaction.id)) return false;
    const message = normalizeInteraction(raw, await this.layout());
    if (!message) return false;
    const admission = this.ctx.hooks?.admit(message);
    if (admission && !admission.admitted) {
      // The gateway answers strangers with silence, which would leave a slash command "thinking" for
      // 15 minutes; tell them privately instead, with the same text a DM stranger gets.
      const [content = EMPTY_REPLY] = renderReply(admission.notice);
      await interaction
        .reply(privately(content))
        .catch((error: unknown) => this.ctx.log.warn({ err: error }, "discord: answering a stranger failed"));
      return true;
    }
    const pending: PendingInteraction = {
      interaction,
      deferred: undefined,
      edited: false,
      createdAt: Date.now(),
    };
    this.prunePending();
    this.ctx.pending.set(interaction.id, pending);
    // One gateway acknowledges first (its queue always takes the command, which may take longer than
    // Discord's 3-second window); where the sink may refuse, the deferral waits for it to take it.
    const deferFirst = arrival === "gateway" && !this.ctx.hooks?.sharedIngress;
    if (deferFirst) void deferCommand(this.ctx, pending);
    const taken = this.deliver(message);
    const unavailable = notTakenNotice(this.ctx.hooks, message, "interaction");
    if (deferFirst) return true;
    await this.answerTaken(
      taken,
      () => deferCommand(this.ctx, pending),
      async () => {
        this.ctx.pending.delete(interaction.id);
        if (pending.deferred === undefined) {
          pending.deferred = Promise.resolve(false);
          await interaction.reply(privately(unavailable));
        } else if (await pending.deferred) {
          await interaction.editReply({ content: unavailable, allowedMentions: { parse: [] } });
        }
      },
    );
    return true;
  }

  /**
   * A button press: a "Set KEY" button the presser may use opens its modal (a modal can only be an
   * interaction's first response, so the gateway is asked first whether this press is one); any other
   * press is handed to the gateway, which judges it at once (a refusal is answered privately through
   * `send`), and then acknowledged with a deferred update (callback type 6) so the result can edit the
   * message in place — after `ACK_DEADLINE_MS` at the latest. False when the press was not taken.
   */
  async takePress(
    interaction: AnswerableInteraction,
    raw: DiscordComponentJson,
    arrival: Arrival,
    openModal: ModalOpener,
  ): Promise<boolean> {
    if (!this.firstSight(interaction.id)) return false;
    const message = normalizeComponent(raw);
    if (!message) return false;
    const secretInput = this.ctx.hooks?.secretInput;
    if (secretInput && (await this.secrets.openModal(interaction, openModal, message, secretInput)))
      return true;
    const press: PendingPress = {
      interaction,
      acknowledged: undefined,
      edited: false,
      createdAt: Date.now(),
    };
    this.prunePending();
    this.ctx.presses.set(interaction.id, press);
    const taken = this.deliver(message);
    const unavailable = notTakenNotice(this.ctx.hooks, message, "interaction");
    // One gateway acknowledges even a press its sink failed on (as it always did); several replicas
    // tell the presser it was not taken.
    const mayRefuse = arrival === "endpoint" || this.ctx.hooks?.sharedIngress === true;
    await this.answerTaken(
      mayRefuse ? taken : taken.then(() => true),
      () => acknowledgePress(this.ctx, press),
      async () => {
        this.ctx.presses.delete(interaction.id);
        if (press.acknowledged === undefined) {
          press.acknowledged = Promise.resolve(false);
          await interaction.reply(privately(unavailable));
        } else if (await press.acknowledged) {
          await interaction.followUp(privately(unavailable));
        }
      },
    );
    return true;
  }

  /**
   * Waits until the gateway took (or refused) an interaction, acknowledging it after `ACK_DEADLINE_MS`
   * meanwhile so Discord's 3-second window is never missed; then acknowledges it, or tells the person it
   * was not taken.
   */
  private async answerTaken(
    taken: Promise<boolean>,
    acknowledge: () => Promise<boolean>,
    refused: () => Promise<void>,
  ): Promise<void> {
    const timer = setTimeout(() => void acknowledge(), ACK_DEADLINE_MS);
    const ok = await taken;
    clearTimeout(timer);
    if (ok) await acknowledge();
    else await refused();
  }

  private async onAutocomplete(
    interaction: AutocompleteInteraction,
    raw: DiscordInteractionJson,
  ): Promise<void> {
    await interaction.respond(await this.suggest(raw));
  }

  /**
   * The choices for an autocomplete request: for `/skill name`, the skills the sender may load that
   * start with what they typed, as far as the gateway finds them within the budget; else none.
   */
  async suggest(raw: DiscordInteractionJson): Promise<Choice[]> {
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
    return names
      .filter((name) => name.length > 0 && name.length <= 100)
      .slice(0, MAX_CHOICES)
      .map((name) => ({ name, value: name }));
  }

  private async onModalSubmit(interaction: ModalSubmitInteraction): Promise<void> {
    let value = "";
    try {
      value = interaction.fields.getTextInputValue(SECRET_FIELD);
    } catch {
      value = "";
    }
    await this.secrets.onModalSubmit(live(interaction), interaction.customId, interaction.user.id, value);
  }

  /** A submitted modal that came by HTTP (its JSON): handed to the secret-input flow. */
  async takeModalSubmit(interaction: AnswerableInteraction, raw: DiscordInteractionJson): Promise<boolean> {
    const submission = modalSubmission(raw);
    if (!submission) return false;
    return this.secrets.onModalSubmit(interaction, submission.customId, submission.userId, submission.value);
  }

  /**
   * The layout that maps slash-command options back to command lines: this process's own registration,
   * else (a replica that does not lead) the one the leader shared.
   */
  private async layout(): Promise<InteractionLayout> {
    if (this.ctx.layoutRegistered || !this.ctx.hooks?.sharedState) return this.ctx.layout;
    return readSharedLayout(this.ctx);
  }

  /** The bot's managed role in a guild (from the cached roles whose tags name the bot). */
  private botRoleIds(guildId: string | undefined): Set<string> {
    if (!guildId || !this.ctx.botUserId) return new Set();
    const role = this.ctx.client.guilds.cache.get(guildId)?.roles.botRoleFor(this.ctx.botUserId);
    return role ? new Set([role.id]) : new Set();
  }

  /**
   * Hands messages to the gateway one after another, in arrival order. Resolves true once the sink took
   * this one, false when it refused it (logged).
   */
  private deliver(message: InboundMessage): Promise<boolean> {
    const sink = this.ctx.sink;
    if (!sink) return Promise.resolve(false);
    const taken = this.ctx.inbox
      .then(() => sink(message))
      .then(
        () => true,
        (error: unknown) => {
          this.ctx.log.error({ err: error, eventId: message.eventId }, "gateway rejected a discord event");
          return false;
        },
      );
    this.ctx.inbox = taken.then(() => undefined);
    return taken;
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

/** An ephemeral message without pings. */
function privately(content: string): AnswerOptions {
  return { content, flags: MessageFlags.Ephemeral, allowedMentions: { parse: [] } };
}

/** A discord.js interaction as the answering interface (the same methods, discord.js's own options). */
function live(
  interaction: ChatInputCommandInteraction | ButtonInteraction | ModalSubmitInteraction,
): AnswerableInteraction {
  // The three share discord.js's interaction-response methods; only a component takes a deferred update.
  const answers = interaction as ButtonInteraction;
  return {
    id: interaction.id,
    deferReply: () => answers.deferReply(),
    deferUpdate: () =>
      interaction.isButton()
        ? interaction.deferUpdate()
        : Promise.reject(new Error("only a component interaction takes a deferred update")),
    reply: (options) => answers.reply(options as InteractionReplyOptions),
    editReply: (options) => answers.editReply(options as InteractionEditReplyOptions),
    followUp: (options) => answers.followUp(options as InteractionReplyOptions),
  };
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
