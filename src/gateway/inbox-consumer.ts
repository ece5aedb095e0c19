/**
 * The shared inbox as the gateway sees it under `gateway.coordination`, beside the message path in
 * gateway.ts: every replica's adapters hand what they receive to `intake` (appended to the inbox before
 * the platform is answered); the leader alone runs `consume`, which feeds the entries into the funnel in
 * stream order, and each entry is settled (marked handled, acknowledged) once it was answered, refused or
 * dropped. A replayed entry carries an effect log, so what an earlier leader made durable is not done
 * twice.
 */
import type { EffectLog } from "../../commands/types.js";
import { t } from "../core/i18n/messages.js";
import type { Logger } from "../core/logger.js";
import type { Adapter, InboundMessage } from "../core/message.js";
import { type Reply, textReply } from "../core/reply.js";
import type { Coordinator } from "./coordination/coordinator.js";
import type { InboxEntry } from "./coordination/inbox.js";

/** What the inbox consumer works with, lent by the gateway. */
export interface InboxConsumerDeps {
  coordination: Coordinator;
  adapters: readonly Adapter[];
  logger: Logger;
  /** The gateway is running (neither stopping nor stopped). */
  running: () => boolean;
  /** The gateway has stopped: intake refuses. */
  stopped: () => boolean;
  /** Sends a reply to a message's chat (the "your message is queued" notice). */
  notify: (adapter: Adapter, message: InboundMessage, reply: Reply) => Promise<void>;
  /** Takes one entry into the funnel; resolves once it is queued (or dropped). */
  accept: (adapter: Adapter, message: InboundMessage, entry: InboxEntry) => Promise<void>;
}

/** The gateway's side of the shared inbox (see the module comment). */
export class InboxConsumer {
  /** Inbox entries taken and not yet settled (by entry id). */
  private readonly inFlight = new Set<string>();

  constructor(private readonly deps: InboxConsumerDeps) {}

  /**
   * The sink of every replica's adapters under coordination: the event is appended to the shared inbox
   * (or found there already) before the adapter answers its platform. Throws when Redis cannot take it,
   * so the platform delivers it again.
   */
  async intake(adapter: Adapter, message: InboundMessage): Promise<void> {
    const { coordination, logger } = this.deps;
    if (this.deps.stopped())
      throw new Error("This gateway has stopped; the event is left for the platform to deliver again.");
    // Refused at once without a connection: the platform's retry goes elsewhere. A connection whose
    // last lease call went unanswered (a stall on a busy host, or a replica just started) still gets the
    // append, bounded by its own deadline: an event the platform never delivers again (a Discord
    // interaction) would otherwise be refused while Redis answers.
    if (!coordination.connected())
      throw new Error(
        "Redis does not answer this replica; the event is left for the platform to deliver again.",
      );
    if (!(await coordination.inbox.append(message))) {
      logger.debug(
        { platform: message.platform, eventId: message.eventId },
        "gateway: event already in the shared inbox",
      );
      return;
    }
    // A chat message (not a press or an interaction, which show their own pending state) taken while
    // no replica leads: its chat is told once that it waits, without holding up the platform's answer.
    if (message.messageId !== undefined && !message.press && coordination.leaderAway())
      void this.tellQueued(adapter, message);
  }

  /** The chat's one "reconnecting, your message is queued" notice of this failover. */
  private async tellQueued(adapter: Adapter, message: InboundMessage): Promise<void> {
    try {
      if (!(await this.deps.coordination.inbox.firstQueuedNotice(message))) return;
      await this.deps.notify(adapter, message, textReply(t("gateway.queued")));
      this.deps.logger.info(
        { platform: message.platform, eventId: message.eventId },
        "gateway: no replica leads now; told the chat its message is queued",
      );
    } catch (error) {
      this.deps.logger.warn({ err: error }, "gateway: the queued notice could not be sent");
    }
  }

  /**
   * The leader's loop over the shared inbox: entries an earlier leader left pending first, then new
   * ones, each into `accept` in stream order (the per-chat queues keep a chat's order). It ends as soon
   * as this replica stops leading; what it did not take stays pending for the next leader.
   */
  async consume(): Promise<void> {
    const { coordination, logger } = this.deps;
    const leading = () => this.deps.running() && coordination.leading();
    let claim = true;
    while (leading()) {
      try {
        // Every few seconds, besides at take-over: what another consumer left idle (a stale leader that
        // read after this one began, entries from before a wipe) is answered without a new take-over.
        const reclaimed = claim ? undefined : await coordination.reclaimIdle();
        const entries = claim
          ? await coordination.inbox.claimAbandoned()
          : (reclaimed ?? (await coordination.inbox.read(1_000)));
        if ((claim || reclaimed) && entries.length > 0)
          logger.info({ entries: entries.length }, "gateway: taking over events an earlier leader left");
        claim = false;
        for (const entry of entries) {
          if (!leading()) break;
          await this.take(entry);
        }
      } catch (error) {
        if (!leading()) break;
        logger.warn({ err: error }, `gateway: reading the shared inbox failed: ${(error as Error).message}`);
        // The group is gone while this replica led: Redis lost its data, nothing believed holds.
        if (/NOGROUP/.test(String((error as Error).message))) {
          await coordination.loseLead("the inbox's consumer group is gone (Redis lost its data)");
          break;
        }
        claim = true;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }

  /** One entry into the funnel, unless this process handles it already. */
  private async take(entry: InboxEntry): Promise<void> {
    // A claim after an error finds entries this process is still handling: they run once.
    if (this.inFlight.has(entry.entryId)) return;
    this.inFlight.add(entry.entryId);
    const adapter = this.deps.adapters.find((candidate) => candidate.platform === entry.message.platform);
    if (!adapter) {
      this.deps.logger.warn(
        { platform: entry.message.platform },
        "gateway: an inbox event for a platform this replica does not run; dropped",
      );
      await this.settle(entry);
      return;
    }
    await this.deps.accept(adapter, entry.message, entry);
  }

  /** An entry taken but left for the next leader (this replica stopped leading): not settled. */
  release(entry: InboxEntry): void {
    this.inFlight.delete(entry.entryId);
  }

  /** Marks an inbox entry handled once its reply was sent (or it was refused or dropped). */
  async settle(entry: InboxEntry): Promise<void> {
    try {
      await this.deps.coordination.inbox.done(entry);
    } catch (error) {
      // Left pending: the next leader answers it again (at least once).
      this.deps.logger.warn(
        { err: error, eventId: entry.message.eventId },
        "gateway: marking an event handled failed",
      );
    } finally {
      this.inFlight.delete(entry.entryId);
    }
  }

  /** The effect log of an inbox entry: a replayed one skips effects recorded by the leader before. */
  effectsOf(entry: InboxEntry): EffectLog {
    const { inbox } = this.deps.coordination;
    return {
      once: async (effect, apply) => {
        if (entry.replayed && (await inbox.effectRecorded(entry.message, effect))) return;
        await apply();
        await inbox
          .recordEffect(entry.message, effect)
          .catch((error) =>
            this.deps.logger.warn({ err: error, effect }, "gateway: recording an effect failed"),
          );
      },
    };
  }
}
