/**
 * The message path, from the gateway's point of view a single call: a message (from an adapter, or an
 * inbox entry on the leader) is admitted (access), deduped, queued in its chat's queue, routed (command,
 * `/<skill>` or the agent, `router.ts`) and answered (`delivery.ts`). A button press leaves after dedupe
 * for the press path (`press.ts`). An inbox entry is settled once answered (`inbox-consumer.ts`).
 */
import { chatContext, sessionKeyOf } from "../../commands/context.js";
import type { CommandContext } from "../../commands/types.js";
import type { SkillgateConfig } from "../config/config.js";
import { type AccessGate, admitSender } from "../core/access.js";
import { resolveText, t } from "../core/i18n/messages.js";
import type { Logger } from "../core/logger.js";
import { type Adapter, type AdapterHooks, type InboundMessage, NOT_TAKEN_NOTICES } from "../core/message.js";
import { textReply } from "../core/reply.js";
import type { CoordinationStores, RunLock } from "../core/stores.js";
import type { ManagedSkillLibrary } from "../skills/library.js";
import type { Coordinator } from "./coordination/coordinator.js";
import type { InboxEntry } from "./coordination/inbox.js";
import type { ReplyDelivery } from "./delivery.js";
import type { InboxConsumer } from "./inbox-consumer.js";
import { readerLocale } from "./locale.js";
import type { CommandMenus } from "./menus.js";
import type { GatewayMetrics } from "./metrics.js";
import type { PressPath } from "./press.js";
import type { ChatQueues } from "./queue.js";
import type { ReaderLanguages } from "./reader-language.js";
import type { CommandRouter } from "./router.js";
import type { SecretEntry } from "./secrets-entry/service.js";

/** What the message path works with, lent by the gateway. */
export interface FunnelDeps {
  home: string;
  logger: Logger;
  now: () => number;
  library: ManagedSkillLibrary;
  queues: ChatQueues;
  router: CommandRouter;
  delivery: ReplyDelivery;
  presses: PressPath;
  secrets: SecretEntry;
  metrics: GatewayMetrics;
  runLock: RunLock;
  /** Aborted when the gateway stops: a curator run stops at its next safe point. */
  signal: AbortSignal;
  /** The gateway takes messages (running, or draining while it stops). */
  accepting: () => boolean;
  /** The stores and access gate once `start` opened them. */
  stores: () => CoordinationStores | undefined;
  access: () => AccessGate | undefined;
  config: SkillgateConfig;
  menus: CommandMenus;
  /** The replica's coordination once started (undefined for a single gateway). */
  coordination: () => Coordinator | undefined;
  /** Under coordination: the inbox consumer that settles entries. */
  inbox: () => InboxConsumer | undefined;
  /** config.yaml changed since the menus were synced. */
  configChanged: () => boolean;
  syncCommandCatalogs: () => Promise<void>;
  /** A command changed the library: chats that loaded a changed skill are told. */
  skillsMutated: () => void;
  /** Readers' last reported languages, for platforms that report them on some events only. */
  readerLanguages: ReaderLanguages;
}

/** The message path of one gateway (see the module comment). */
export class MessageFunnel {
  constructor(private readonly deps: FunnelDeps) {}

  /**
   * Where a message is taken: from an adapter (one gateway), or from the shared inbox on the leader
   * (`entry`, deduped at intake already and settled once answered). Resolves once the message is queued
   * (or dropped).
   */
  async accept(adapter: Adapter, message: InboundMessage, entry?: InboxEntry): Promise<void> {
    const { logger, metrics } = this.deps;
    // While draining, the adapters are still connected and have already acknowledged what they deliver:
    // queue it like any other message (the drain waits for it) rather than lose it.
    if (!this.deps.accepting()) {
      logger.info({ platform: message.platform }, "gateway: message dropped after stop");
      return;
    }
    const takenAt = performance.now();
    metrics.eventReceived(message.platform);
    const stores = this.deps.stores();
    const access = this.deps.access();
    if (!stores || !access) return;
    const inbox = this.deps.inbox();
    // A replica whose lease is not surely its own takes nothing: the entry stays for the next leader.
    if (this.deps.coordination()?.leading() === false) {
      logger.warn(
        { platform: message.platform, eventId: message.eventId },
        "gateway: event not taken (this replica does not lead now)",
      );
      if (entry) inbox?.release(entry);
      return;
    }
    // Settled once: right after the reply was sent (a crash after it replays the least), or on failure.
    let settled = false;
    const settle = async () => {
      if (settled || !entry) return;
      settled = true;
      await inbox?.settle(entry);
    };
    const admission = await access.admit(message);
    if (!admission.admit) {
      logger.info(
        { platform: message.platform, sender: message.sender.id, reason: admission.reason },
        "gateway: message not admitted",
      );
      if (admission.notice) await this.deps.delivery.send(adapter, message, admission.notice);
      await settle();
      return;
    }
    // Only admitted messages are remembered, so a flood from strangers cannot push real event ids out of
    // the bounded store (a stranger's redelivery only meets the rate-limited notice again). The shared
    // inbox deduped its entries at intake.
    if (!entry && (await stores.dedupe.checkAndMark(message.platform, message.eventId))) {
      logger.debug(
        { platform: message.platform, eventId: message.eventId },
        "gateway: duplicate event dropped",
      );
      return;
    }
    stores.activity.touch();
    const key = sessionKeyOf(message);
    const isAdmin = admission.role === "admin";
    const read = await this.deps.readerLanguages.complete(adapter, message);
    if (read.press) {
      await this.deps.presses.accept(adapter, read, read.press.actionId, isAdmin, () => void settle());
      return;
    }
    void this.deps.queues
      .run(key, async () => {
        // This replica stopped leading while the entry waited in its chat's queue: it is left pending
        // for the next leader, which claims it at take-over, rather than answered by both.
        const leave = () => {
          settled = true;
          if (entry) inbox?.release(entry);
        };
        if (!this.stillLeads(entry)) return leave();
        await this.process(adapter, read, isAdmin, entry, { settle, leave }, takenAt);
      })
      .catch((error) => {
        metrics.error("event");
        logger.error({ err: error, platform: message.platform }, "gateway: handling a message failed");
      })
      .finally(settle);
  }

  /** The hooks an adapter is started with: admission, shared ingress, secret input, suggestions. */
  hooksFor(adapter: Adapter): AdapterHooks {
    const coordination = this.deps.coordination();
    return {
      admit: (message) => {
        const admission = admitSender(this.deps.config, message);
        if (admission.admitted) return admission;
        return { ...admission, notice: this.deps.delivery.forReader(adapter, admission.notice, message) };
      },
      ...(coordination
        ? {
            sharedIngress: true,
            mayTakeEvents: () => coordination.leading(),
            sharedState: coordination.adapterState,
          }
        : {}),
      ...(this.deps.secrets.available(adapter.capabilities)
        ? { secretInput: this.deps.presses.secretInputHooks(adapter) }
        : {}),
      suggestSkills: (senderId, prefix) => this.deps.menus.suggestSkills(adapter.platform, senderId, prefix),
      notTakenNotice: (message, kind) =>
        resolveText(
          NOT_TAKEN_NOTICES[kind],
          readerLocale(this.deps.library.currentConfig(), adapter, message),
        ),
    };
  }

  /** The command context of one message, with the config as it is now on disk. */
  contextFor(adapter: Adapter, message: InboundMessage, isAdmin: boolean): CommandContext {
    const { library } = this.deps;
    // The config as it is now on disk (the library re-reads config.yaml when it changes), so an edit made
    // by `skills disable` — from any chat or the CLI — applies to the very next message.
    const ctx = chatContext({
      home: this.deps.home,
      config: library.currentConfig(),
      message,
      isAdmin,
      sessions: this.deps.stores()?.sessions,
      runLock: this.deps.runLock,
      now: () => new Date(this.deps.now()),
      library,
      answersInOneStep: adapter.capabilities.buttons === true || adapter.capabilities.typedAnswers === true,
      signal: this.deps.signal,
    });
    // "Set KEY" buttons are shown to admins where a press opens a private input.
    if (isAdmin && adapter.capabilities.buttons === true && this.deps.secrets.available(adapter.capabilities))
      ctx.secretInput = true;
    return ctx;
  }

  /**
   * Whether this replica may still answer `entry`: always for a message of one gateway, else only while
   * its lease is surely its own. Checked again right before anything reaches the chat, since a replica
   * that stalled after taking an entry may find the next leader has claimed and answered it meanwhile.
   */
  private stillLeads(entry: InboxEntry | undefined): boolean {
    return entry === undefined || this.deps.coordination()?.leading() !== false;
  }

  private async process(
    adapter: Adapter,
    message: InboundMessage,
    isAdmin: boolean,
    entry: InboxEntry | undefined,
    outcome: { settle: () => Promise<void>; leave: () => void },
    takenAt: number,
  ): Promise<void> {
    const { delivery } = this.deps;
    const ctx = this.contextFor(adapter, message, isAdmin);
    const inbox = this.deps.inbox();
    if (entry && inbox) ctx.effects = inbox.effectsOf(entry);
    // Each adapter decides what is a command for this bot (entities, mentions, `@bot` suffixes); a
    // message it delivered without one is text, however it starts.
    const command = message.command ?? null;
    const label = command ? `/${[command.name, ...command.args].join(" ")}` : undefined;
    const {
      value: { reply, mutated },
      editMessageId,
    } = await delivery.acknowledgeIfSlow(
      adapter,
      message,
      this.deps.router.route(ctx, message, command),
      label,
      undefined,
      () => this.stillLeads(entry),
    );
    // The lease lapsed while the command ran (its durable effects are in the effect log): the next
    // leader answers the entry, this replica stays silent.
    if (!this.stillLeads(entry)) {
      this.deps.logger.warn(
        { platform: message.platform, eventId: message.eventId },
        "gateway: answer withheld (this replica stopped leading while the command ran)",
      );
      return outcome.leave();
    }
    // A notice that was shown is always replaced, even by an empty result.
    const shown = reply.blocks.length > 0 || editMessageId === undefined ? reply : textReply(t("reply.done"));
    if (shown.blocks.length > 0) {
      await delivery.send(adapter, message, shown, { editMessageId });
      this.deps.metrics.eventAnswered(message.platform, (performance.now() - takenAt) / 1000);
    }
    await outcome.settle();
    this.deps.stores()?.activity.touch();
    if (mutated) this.deps.skillsMutated();
    if (mutated || this.deps.configChanged()) await this.deps.syncCommandCatalogs();
  }
}
