/**
 * The shared inbox as the gateway sees it under `gateway.coordination`, beside the message path in
 * gateway.ts: every replica's adapters hand what they receive to `intake` (appended to the inbox before
 * the platform is answered); the leader alone runs `consume`, which feeds the entries into the funnel in
 * stream order, and each entry is settled (marked handled, acknowledged) once it was answered, refused or
 * dropped. A replayed entry carries an effect log, so what an earlier leader made durable is not done
 * twice.
 */
import { sessionKeyOf } from "../../commands/context.js";
import type { EffectLog } from "../../commands/types.js";
import { t } from "../core/i18n/messages.js";
import type { Logger } from "../core/logger.js";
import type { Adapter, InboundMessage } from "../core/message.js";
import { type Reply, textReply } from "../core/reply.js";
import type { Coordinator } from "./coordination/coordinator.js";
import type { InboxEntry } from "./coordination/inbox.js";

/**
 * Entries of different chats in their pre-queue steps (admission, the reader's language, a press's
 * verdict) at once. Those steps are a few Redis round trips or a refusal sent; the per-chat queues and
 * `gateway.concurrency` bound what runs after them.
 */
const TAKE_CONCURRENCY = 16;

/**
 * Entry ids this process settled lately, remembered against a claim read before their mark landed
 * (a claim's batch is read, then its entries are taken): that copy is marked done again, not answered.
 */
const SETTLED_MEMORY = 4_096;

/** Entries taken and waiting for their turn at most: beyond it the loop reads no more until one is queued. */
const MAX_TAKING = 500;

/** Runs tasks with at most `limit` of them at once, in the order they asked. */
class Slots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

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
  /** Entries settled lately, oldest first (see `SETTLED_MEMORY`). */
  private readonly settled = new Set<string>();
  /** Per chat (session key): settles once the chat's last taken entry is queued. */
  private readonly chatTurns = new Map<string, Promise<void>>();
  /** Bounds the entries of different chats in their pre-queue steps at once. */
  private readonly slots = new Slots(TAKE_CONCURRENCY);

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
   * ones, each into `accept` in stream order within its chat, chats side by side (see `take`). It ends
   * as soon as this replica stops leading; what it did not take stays pending for the next leader.
   */
  async consume(): Promise<void> {
    const { coordination, logger } = this.deps;
    const leading = () => this.deps.running() && coordination.leading();
    let claim = true;
    /** Entries taken and not yet queued (waiting for their chat's turn or a slot). */
    const taking = new Set<Promise<void>>();
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
        // Each entry's place in its chat is fixed here, in stream order, before anything is awaited;
        // the chats' entries then go into the funnel side by side, and the loop reads on meanwhile.
        for (const entry of entries) {
          if (!leading()) break;
          const taken: Promise<void> = this.take(entry, leading)
            .catch((error) =>
              logger.warn(
                { err: error, platform: entry.message.platform, eventId: entry.message.eventId },
                `gateway: taking an event from the shared inbox failed: ${(error as Error).message}`,
              ),
            )
            .finally(() => taking.delete(taken));
          taking.add(taken);
        }
        while (taking.size >= MAX_TAKING) await Promise.race(taking);
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
    // The gateway's stop drains the queues once this loop ended: what was taken is queued (or left) first.
    await Promise.all(taking);
  }

  /**
   * One entry into the funnel, unless this process handles it already. It waits for the earlier entries
   * of its chat to be queued (the chat's turn is taken now, synchronously, so a later entry whose
   * pre-queue steps finish sooner cannot overtake it) and for one of `TAKE_CONCURRENCY` slots shared by
   * all chats. Resolves once it is queued (or dropped, or left for the next leader).
   */
  private take(entry: InboxEntry, leading: () => boolean): Promise<void> {
    // A claim after an error finds entries this process is still handling: they run once.
    if (this.inFlight.has(entry.entryId)) return Promise.resolve();
    // A claim read just before this process marked the entry handled returns it once more.
    if (this.settled.has(entry.entryId)) return this.settle(entry);
    this.inFlight.add(entry.entryId);
    const key = sessionKeyOf(entry.message);
    const turn = (this.chatTurns.get(key) ?? Promise.resolve()).then(() =>
      this.slots.run(() => this.hand(entry, leading)),
    );
    // The chat's next entry follows this one however it ends; the map forgets a chat once it is idle.
    const after = turn.catch(() => undefined);
    this.chatTurns.set(key, after);
    void after.then(() => {
      if (this.chatTurns.get(key) === after) this.chatTurns.delete(key);
    });
    return turn;
  }

  /** Hands a taken entry to `accept`, unless this replica stopped leading while it waited for its turn. */
  private async hand(entry: InboxEntry, leading: () => boolean): Promise<void> {
    if (!leading()) return this.release(entry);
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
      // Left pending: a later claim of this process marks it again; another leader answers it again.
      this.deps.logger.warn(
        { err: error, eventId: entry.message.eventId },
        "gateway: marking an event handled failed",
      );
    } finally {
      this.inFlight.delete(entry.entryId);
      this.settled.delete(entry.entryId);
      this.settled.add(entry.entryId);
      if (this.settled.size > SETTLED_MEMORY)
        this.settled.delete(this.settled.values().next().value as string);
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
