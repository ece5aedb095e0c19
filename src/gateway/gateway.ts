/**
 * The gateway core, the message funnel: adapters → access → dedupe → per-chat queue → router
 * (`router.ts`: command, `/<skill>` or the agent) → delivery (`delivery.ts`). A button press leaves the
 * funnel after dedupe for the press path (`press.ts`). The gateway also decides when things happen:
 * connecting the platforms (`lifecycle.ts`), the servers beside the chat (`services.ts`), native menus
 * (`menus.ts`), the maintenance tick, the leader's duties under coordination, and a graceful stop that
 * drains in-flight commands before stopping the adapters.
 */

import { chatContext, chatKeyOf, sessionKeyOf } from "../../commands/context.js";
import { registry as defaultRegistry } from "../../commands/index.js";
import type { CommandContext, CommandSpec, EffectLog } from "../../commands/types.js";
import type { SkillgateConfig } from "../config/config.js";
import { AccessGate, admitSender } from "../core/access.js";
import { AdapterError, ConfigError, SkillgateError } from "../core/errors.js";
import type { Locale } from "../core/i18n/locale.js";
import { resolveText, t } from "../core/i18n/messages.js";
import { type Logger, silentLogger } from "../core/logger.js";
import { type Adapter, type AdapterHooks, type InboundMessage, NOT_TAKEN_NOTICES } from "../core/message.js";
import { type Reply, textReply } from "../core/reply.js";
import type { CoordinationStores, RunLock } from "../core/stores.js";
import type { Consolidator } from "../curator/types.js";
import { type ManagedSkillLibrary, openLibrary } from "../skills/library.js";
import { ActionStore, type ButtonStore } from "./action-store.js";
import { ActionRouter } from "./actions.js";
import type { ConsoleServer } from "./console/server.js";
import type { Coordinator } from "./coordination/coordinator.js";
import type { InboxEntry } from "./coordination/inbox.js";
import type { LeaseTimings } from "./coordination/lease.js";
import { ReplyDelivery } from "./delivery.js";
import type { HealthServer } from "./health.js";
import { connectAdapters, disconnectAdapters, drainWork } from "./lifecycle.js";
import { readerLocale } from "./locale.js";
import { MaintenanceTicker, type TickOutcome } from "./maintenance.js";
import { CommandMenus } from "./menus.js";
import { GatewayMetrics } from "./metrics.js";
import { PressPath } from "./press.js";
import { ChatQueues } from "./queue.js";
import { ReaderLanguages } from "./reader-language.js";
import { type ChatAgent, CommandRouter } from "./router.js";
import { OutboundScrubber } from "./scrub.js";
import type { SecretFormServer } from "./secrets-entry/form-server.js";
import { SecretEntry } from "./secrets-entry/service.js";
import { startConsole, startHealth, startSecretForm } from "./services.js";
import { openFileStores } from "./stores.js";

export { type ChatAgent, NO_AGENT_REPLY } from "./router.js";

/** Options of `createGateway`. */
export interface GatewayOptions {
  home: string;
  config: SkillgateConfig;
  adapters: Adapter[];
  logger?: Logger;
  /** Clock in ms since epoch (tests pass a controlled one). */
  now?: () => number;
  agent?: ChatAgent;
  /** The command registry; defaults to the shared one (tests may pass their own specs). */
  registry?: readonly CommandSpec[];
  /** The curator's LLM consolidation pass for maintenance runs (tests pass a fake); default the real one. */
  consolidator?: Consolidator;
  /**
   * How long `stop` waits for in-flight commands and a curator run to reach a safe point before stopping
   * adapters anyway (ms). Default `gateway.stop_timeout_seconds`.
   */
  drainTimeoutMs?: number;
  /**
   * The stores that coordinate gateway processes (sessions, dedupe, last activity, stranger notices,
   * the curator run lock); default the file implementations under the home (`openFileStores`).
   */
  stores?: CoordinationStores;
  /**
   * Serve the web console too (when `gateway.console.enabled`); `skillgate serve` sets it. Its URL and
   * login link go to `announce` (the terminal; the link only with `printLink`), the URL to the log.
   */
  console?: { announce?: (line: string) => void; printLink?: boolean; locale?: Locale };
  /**
   * Work still running after this long (ms) is acknowledged in the chat ("running…") and the notice is
   * then replaced by the result where the platform can edit messages. Default 2000.
   */
  acknowledgeAfterMs?: number;
  /**
   * With `gateway.coordination`: called when this replica stopped leading (it fenced itself, or another
   * took the lease) and the gateway is stopping; `skillgate serve` then starts a fresh one that rejoins
   * as a standby. Without it the process just stops serving.
   */
  onLeadershipLost?: (reason: string, options: { retryAfterMs: number }) => void;
  /** Lease timings with `gateway.coordination` (tests shorten them); default `LEASE_TIMINGS`. */
  leaseTimings?: LeaseTimings;
  /**
   * With `gateway.coordination`, a standby rejoining after a lost lead: it starts even while Redis does
   * not answer (`/healthz` says so, intake answers 503) and contends once it does.
   */
  waitForRedis?: boolean;
}

/** Options of `Gateway.stop`. */
export interface StopOptions {
  /**
   * Let running commands finish, however long they take (the terminal chat's input ended: the person
   * asked for them). Otherwise a curator run stops at its next safe point and the wait is bounded by
   * `gateway.stop_timeout_seconds`.
   */
  finishWork?: boolean;
}

/** A running (or startable) gateway. */
export interface Gateway {
  start(): Promise<void>;
  /**
   * Stops taking messages, asks running work to stop at its next safe point and waits for it (see
   * `StopOptions`), then stops adapters and the tick and flushes state.
   */
  stop(options?: StopOptions): Promise<void>;
  /** One maintenance tick now (the timer calls the same). */
  runMaintenanceTick(): Promise<TickOutcome>;
  /** Resolves once every queued and running command has finished. */
  whenIdle(): Promise<void>;
  /** Rebuilds each adapter's native command catalog and syncs it when it changed. */
  syncCommandCatalogs(): Promise<void>;
  /** Commands queued or running. */
  readonly inFlight: number;
  /** `/healthz` URL once started (undefined when disabled). */
  readonly healthUrl: string | undefined;
  /** The web console's URL once started (undefined when not served). */
  readonly consoleUrl: string | undefined;
  /** Port of the one-time secret form server, once started (`gateway.public_url` set). */
  readonly secretFormPort: number | undefined;
}

/** How long a replica that led but could connect no platform waits before contending again. */
const ADAPTER_FAILURE_STANDBY_MS = 15_000;

class GatewayImpl implements Gateway {
  private readonly logger: Logger;
  /** Readers' last reported languages, for platforms that report them on some events only. */
  private readonly readerLanguages: ReaderLanguages;
  private readonly now: () => number;
  private readonly library: ManagedSkillLibrary;
  private readonly registry: readonly CommandSpec[];
  private access: AccessGate | undefined;
  private readonly queues: ChatQueues;
  private readonly maintenance: MaintenanceTicker;
  /** What `/metrics` serves beside `/healthz`. */
  private readonly metrics = new GatewayMetrics({
    coordination: () => this.coordination?.health(),
    inboxBacklog: async () => this.coordination?.inbox.backlog(),
  });
  /** Native command menus and skill suggestions. */
  private readonly menus: CommandMenus;
  /** Where a queued message goes: command, skill or agent. */
  private readonly router: CommandRouter;
  private stores: CoordinationStores | undefined;
  /** The run lock of the stores once opened; the maintenance ticker and chat commands take it. */
  private readonly runLock: RunLock;
  /** Every outbound message, menu and suggestion passes through it (secrets, server paths). */
  private readonly scrubber: OutboundScrubber;
  private actions: ActionRouter | undefined;
  private actionStore: ButtonStore | undefined;
  /** Several replicas on one home (`gateway.coordination`): the lease, Redis stores and write fence. */
  private coordination: Coordinator | undefined;
  private health: HealthServer | undefined;
  /** Why each platform that failed to start failed, from the last start. */
  private startFailures: unknown[] = [];
  private webConsole: ConsoleServer | undefined;
  private readonly secrets: SecretEntry;
  /** The way out: presenting, scrubbing, budgeting and sending every reply. */
  private readonly delivery: ReplyDelivery;
  /** The press path: button presses, judged, consumed, run and shown in place. */
  private readonly presses: PressPath;
  private secretForm: SecretFormServer | undefined;
  private state: "new" | "running" | "stopping" | "stopped" = "new";
  private stopping: Promise<void> | undefined;
  /** Aborted when the gateway stops: a curator run in progress stops at its next safe point. */
  private readonly stopController = new AbortController();
  /** The leader's loop over the shared inbox, while it runs. */
  private consuming: Promise<void> | undefined;
  /** Inbox entries taken and not yet settled (by entry id). */
  private readonly inboxInFlight = new Set<string>();

  constructor(private readonly options: GatewayOptions) {
    this.logger = options.logger ?? silentLogger();
    this.readerLanguages = new ReaderLanguages(() => this.stores?.sessions, this.logger);
    this.now = options.now ?? Date.now;
    this.library = openLibrary(options.home, options.config);
    this.registry = options.registry ?? defaultRegistry;
    this.scrubber = new OutboundScrubber(options.home, options.config);
    this.queues = new ChatQueues(options.config.gateway.concurrency);
    this.menus = new CommandMenus({
      config: options.config,
      adapters: options.adapters,
      library: this.library,
      registry: this.registry,
      scrubber: this.scrubber,
      logger: this.logger,
      shared: {
        // Read only under coordination (opened by start()); alone there is nothing to share.
        state: {
          get: async (key) => this.coordination?.adapterState.get(key),
          set: async (key, value, options) =>
            (await this.coordination?.adapterState.set(key, value, options)) ?? false,
        },
        leading: () => this.coordination?.leading() ?? true,
      },
    });
    this.router = new CommandRouter({
      registry: this.registry,
      logger: this.logger,
      agent: options.agent,
      onUnexpected: (error, spec) => this.onUnexpected(error, spec),
    });
    this.secrets = new SecretEntry({
      home: options.home,
      library: this.library,
      now: this.now,
      publicUrl: options.config.gateway.publicUrl,
      config: options.config,
    });
    this.delivery = new ReplyDelivery({
      config: options.config,
      registry: this.registry,
      scrubber: this.scrubber,
      logger: this.logger,
      acknowledgeAfterMs: options.acknowledgeAfterMs,
      actions: () => this.actions,
      currentConfig: () => this.library.currentConfig(),
      chatLanguage: async (platform, chatId) =>
        this.stores?.sessions.chatLanguage(chatKeyOf(platform, chatId)),
    });
    this.presses = new PressPath({
      config: options.config,
      logger: this.logger,
      queues: this.queues,
      delivery: this.delivery,
      secrets: this.secrets,
      scrubber: this.scrubber,
      actions: () => this.actions,
      contextFor: (adapter, message, isAdmin) => this.contextFor(adapter, message, isAdmin),
      onUnexpected: (error, spec) => this.onUnexpected(error, spec),
      touch: () => this.stores?.activity.touch(),
      configChanged: () => this.menus.configChanged(),
      syncCommandCatalogs: () => this.syncCommandCatalogs(),
      currentConfig: () => this.library.currentConfig(),
    });
    this.stores = options.stores;
    this.runLock = {
      acquire: () => {
        if (!this.stores) throw new Error("The gateway's stores are opened by start(); start it first.");
        return this.stores.runLock.acquire();
      },
    };
    this.maintenance = new MaintenanceTicker({
      home: options.home,
      config: options.config,
      library: this.library,
      logger: this.logger,
      now: this.now,
      busy: () => this.queues.inFlight > 0,
      // Before start() opened the activity store nothing has run yet: not idle at all.
      idleSeconds: async () => (this.stores ? this.stores.activity.idleSeconds() : 0),
      post: (reply) => this.postHome(reply),
      changed: () => this.syncCommandCatalogs(),
      ran: (result) => this.metrics.curatorRun(result),
      consolidator: options.consolidator,
      runLock: this.runLock,
      signal: this.stopController.signal,
    });
  }

  get inFlight(): number {
    return this.queues.inFlight;
  }

  get healthUrl(): string | undefined {
    return this.health?.url;
  }

  get consoleUrl(): string | undefined {
    return this.webConsole?.url;
  }

  get secretFormPort(): number | undefined {
    return this.secretForm?.port;
  }

  async start(): Promise<void> {
    if (this.state !== "new") throw new Error("This gateway was already started; create a new one.");
    this.state = "running";
    const onError = (error: unknown) => this.logger.error({ err: error }, "gateway: writing state failed");
    const { ttlHours, pageSize } = this.options.config.gateway.actions;
    const coordination = this.options.config.gateway.coordination;
    // Coordinated replicas share Redis; an unreachable one stops the start here (no fall-back to files).
    if (coordination && !this.options.stores) {
      // Loaded only here: a single gateway never pays for the Redis client (about 20 MB of heap).
      const { Coordinator } = await import("./coordination/coordinator.js");
      this.coordination = await Coordinator.open({
        home: this.options.home,
        config: coordination,
        logger: this.logger,
        buttonTtlMs: ttlHours * 3_600_000,
        now: this.now,
        timings: this.options.leaseTimings,
        waitForRedis: this.options.waitForRedis,
      });
    }
    this.stores ??=
      this.coordination?.stores ?? (await openFileStores(this.options.home, { now: this.now, onError }));
    this.access = new AccessGate(this.options.config, this.now, this.stores.strangers);
    this.actionStore =
      this.coordination?.buttons ??
      (await ActionStore.open(this.options.home, { now: this.now, ttlMs: ttlHours * 3_600_000 }));
    this.actions = new ActionRouter(this.actionStore, this.registry, pageSize);
    // /healthz is up before any platform connects, so a supervisor sees "connecting"/"failed" and why.
    this.health = await startHealth(
      this.options.config,
      this.options.adapters,
      this.coordination,
      this.logger,
      () => this.metrics.exposition(),
    );
    if (this.coordination) {
      // Every replica takes traffic: its adapters' ingress appends what arrives to the shared inbox.
      // The leader alone consumes it, polls, registers menus, runs maintenance and writes the library.
      if (!(await this.startAdapters())) {
        await this.health?.close();
        this.health = undefined;
        await this.coordination.close();
        throw noAdapterStarted(this.startFailures);
      }
      await this.startConsole();
      this.coordination.start({ lead: () => this.lead(), follow: (reason) => this.follow(reason) });
      return;
    }
    if (!(await this.startAdapters())) {
      await this.health?.close();
      this.health = undefined;
      throw noAdapterStarted(this.startFailures);
    }
    await this.syncCommandCatalogs();
    // Input may already have ended (a piped terminal chat): then stop() is running; start nothing more.
    if (this.state !== "running") return;
    await this.startConsole();
    await this.startSecretForm();
    this.startMaintenance();
  }

  /**
   * Connects every platform; false when none could (with adapters configured). Under coordination what
   * they receive goes to the shared inbox, else straight to `accept`.
   */
  private startAdapters(): Promise<boolean> {
    const { adapters } = this.options;
    this.startFailures = [];
    return connectAdapters(
      adapters,
      (adapter, message) => (this.coordination ? this.intake(message) : this.accept(adapter, message)),
      (adapter) => this.hooksFor(adapter),
      this.logger,
      this.startFailures,
    );
  }

  /**
   * The sink of every replica's adapters under coordination: the event is appended to the shared inbox
   * (or found there already) before the adapter answers its platform. Throws when Redis cannot take it,
   * so the platform delivers it again.
   */
  private async intake(message: InboundMessage): Promise<void> {
    const coordination = this.coordination;
    if (!coordination || this.state === "stopped")
      throw new Error("This gateway has stopped; the event is left for the platform to deliver again.");
    // Refused at once while Redis does not answer this replica: the platform's retry goes elsewhere.
    if (!coordination.reachable())
      throw new Error(
        "Redis does not answer this replica; the event is left for the platform to deliver again.",
      );
    if (!(await coordination.inbox.append(message)))
      this.logger.debug(
        { platform: message.platform, eventId: message.eventId },
        "gateway: event already in the shared inbox",
      );
  }

  /**
   * The leader's loop over the shared inbox: entries an earlier leader left pending first, then new
   * ones, each into `accept` in stream order (the per-chat queues keep a chat's order). It ends as soon
   * as this replica stops leading; what it did not take stays pending for the next leader.
   */
  private async consumeInbox(): Promise<void> {
    const coordination = this.coordination;
    if (!coordination) return;
    const leading = () => this.state === "running" && coordination.leading();
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
          this.logger.info({ entries: entries.length }, "gateway: taking over events an earlier leader left");
        claim = false;
        for (const entry of entries) {
          if (!leading()) break;
          // A claim after an error finds entries this process is still handling: they run once.
          if (this.inboxInFlight.has(entry.entryId)) continue;
          this.inboxInFlight.add(entry.entryId);
          const adapter = this.options.adapters.find(
            (candidate) => candidate.platform === entry.message.platform,
          );
          if (!adapter) {
            this.logger.warn(
              { platform: entry.message.platform },
              "gateway: an inbox event for a platform this replica does not run; dropped",
            );
            await this.settleEntry(entry);
            continue;
          }
          await this.accept(adapter, entry.message, entry);
        }
      } catch (error) {
        if (!leading()) break;
        this.logger.warn(
          { err: error },
          `gateway: reading the shared inbox failed: ${(error as Error).message}`,
        );
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

  /** Marks an inbox entry handled once its reply was sent (or it was refused or dropped). */
  private async settleEntry(entry: InboxEntry): Promise<void> {
    try {
      await this.coordination?.inbox.done(entry);
    } catch (error) {
      // Left pending: the next leader answers it again (at least once).
      this.logger.warn(
        { err: error, eventId: entry.message.eventId },
        "gateway: marking an event handled failed",
      );
    } finally {
      this.inboxInFlight.delete(entry.entryId);
    }
  }

  /** The effect log of an inbox entry: a replayed one skips effects recorded by the leader before. */
  private effectsOf(entry: InboxEntry): EffectLog {
    const inbox = this.coordination?.inbox;
    return {
      once: async (effect, apply) => {
        if (!inbox) return apply();
        if (entry.replayed && (await inbox.effectRecorded(entry.message, effect))) return;
        await apply();
        await inbox
          .recordEffect(entry.message, effect)
          .catch((error) => this.logger.warn({ err: error, effect }, "gateway: recording an effect failed"));
      },
    };
  }

  private startMaintenance(): void {
    const { checkMinutes, firstCheckSeconds } = this.options.config.gateway.maintenance;
    this.maintenance.start(checkMinutes * 60_000, firstCheckSeconds * 1000);
  }

  /**
   * This replica leads the home now: its adapters start what only one replica runs (polling, the
   * Discord gateway session, the webhook registration), it consumes the shared inbox and takes the
   * leader's duties.
   */
  private async lead(): Promise<void> {
    if (this.state !== "running") return;
    const led = await Promise.all(
      this.options.adapters.map(async (adapter) => {
        try {
          await adapter.lead?.();
          return true;
        } catch (error) {
          this.logger.error(
            { err: error, platform: adapter.platform },
            `gateway: ${adapter.platform} could not take the lead: ${(error as Error).message}`,
          );
          return false;
        }
      }),
    );
    if (!led.includes(true) && this.options.adapters.length > 0) {
      this.logger.error("gateway: leading, but no chat adapter could take the lead; giving it up");
      // Another replica may connect where this one could not: it stands back before contending again.
      this.follow("no chat adapter could start", ADAPTER_FAILURE_STANDBY_MS);
      return;
    }
    this.consuming = this.consumeInbox();
    await this.syncCommandCatalogs();
    // The lead may have been lost while the duties started (the fence fires on its own timer): a
    // stopping gateway starts nothing more.
    if (this.state !== "running" || this.coordination?.leading() === false) return;
    await this.startSecretForm();
    if (this.state !== "running") return;
    this.startMaintenance();
  }

  /**
   * This replica stopped leading: it stops taking events at once (`accept` refuses them already, the
   * fence refuses writes) and stops; `onLeadershipLost` starts a fresh standby. Never awaits the stop:
   * the lease waits for this call, and the stop waits for the lease.
   */
  private follow(reason: string, retryAfterMs = 0): Promise<void> {
    if (this.state !== "running") return Promise.resolve();
    this.logger.warn({ reason }, `gateway: stopped leading (${reason}); handing over`);
    void this.stop().then(() => this.options.onLeadershipLost?.(reason, { retryAfterMs }));
    return Promise.resolve();
  }

  private async startSecretForm(): Promise<void> {
    const { config, adapters } = this.options;
    this.secretForm = await startSecretForm({
      config,
      adapters,
      secrets: this.secrets,
      delivery: this.delivery,
      logger: this.logger,
    });
  }

  private async startConsole(): Promise<void> {
    if (!this.options.console) return;
    this.webConsole = await startConsole({
      home: this.options.home,
      config: this.options.config,
      logger: this.logger,
      library: this.library,
      registry: this.registry,
      announce: this.options.console.announce,
      locale: this.options.console.locale,
      printLink: this.options.console.printLink,
      idleSeconds: () => (this.stores ? this.stores.activity.idleSeconds() : Number.POSITIVE_INFINITY),
      onMutated: () => this.syncCommandCatalogs(),
      // A login link works once across every replica: its nonce is marked in the shared dedupe store.
      sharedRedemption: (nonce) =>
        this.stores ? this.stores.dedupe.checkAndMark("console-login", nonce) : Promise.resolve(false),
    });
  }

  stop(options: StopOptions = {}): Promise<void> {
    this.stopping ??= this.shutdown(options.finishWork === true);
    return this.stopping;
  }

  private async shutdown(finishWork: boolean): Promise<void> {
    this.state = "stopping";
    this.maintenance.stop();
    // A curator run (the tick's or a chat command's) stops at its next safe point and records what it did.
    if (!finishWork) this.stopController.abort();
    const waitMs = finishWork
      ? Number.POSITIVE_INFINITY
      : (this.options.drainTimeoutMs ?? this.options.config.gateway.stopTimeoutSeconds * 1000);
    const { queues, maintenance } = this;
    // The inbox loop ends at once (state is no longer running); entries it did not take stay pending.
    await this.consuming;
    await drainWork(
      {
        inFlight: () => queues.inFlight,
        maintaining: () => maintenance.running,
        settled: () => Promise.all([queues.idle(), maintenance.settled()]),
      },
      waitMs,
      this.logger,
    );
    await disconnectAdapters(this.options.adapters, this.logger);
    await Promise.allSettled([
      this.stores?.dedupe.flush(),
      this.stores?.activity.flush(),
      this.stores?.sessions.flush(),
      this.actionStore?.flush(),
      this.health?.close(),
      this.webConsole?.close(),
      this.secretForm?.close(),
    ]);
    // Last: the lease is given up once nothing more is written under it, so the next leader starts at once.
    await this.coordination
      ?.close()
      .catch((error) => this.logger.warn({ err: error }, "gateway: leaving coordination failed"));
    (this.library as { close?: () => void }).close?.();
    this.state = "stopped";
    this.logger.info("gateway: stopped");
  }

  runMaintenanceTick(): Promise<TickOutcome> {
    return this.maintenance.tick().finally(() => this.syncCommandCatalogs());
  }

  whenIdle(): Promise<void> {
    return this.queues.idle();
  }

  syncCommandCatalogs(): Promise<void> {
    return this.menus.sync();
  }

  private hooksFor(adapter: Adapter): AdapterHooks {
    return {
      admit: (message) => {
        const admission = admitSender(this.options.config, message);
        if (admission.admitted) return admission;
        return { ...admission, notice: this.delivery.forReader(adapter, admission.notice, message) };
      },
      ...(this.coordination
        ? {
            sharedIngress: true,
            mayTakeEvents: () => this.coordination?.leading() === true,
            sharedState: this.coordination.adapterState,
          }
        : {}),
      ...(this.secrets.available(adapter.capabilities)
        ? { secretInput: this.presses.secretInputHooks(adapter) }
        : {}),
      suggestSkills: (senderId, prefix) => this.menus.suggestSkills(adapter.platform, senderId, prefix),
      notTakenNotice: (message, kind) =>
        resolveText(NOT_TAKEN_NOTICES[kind], readerLocale(this.library.currentConfig(), adapter, message)),
    };
  }

  /**
   * Where a message is taken: from an adapter (one gateway), or from the shared inbox on the leader
   * (`entry`, deduped at intake already and settled once answered). Resolves once the message is queued
   * (or dropped).
   */
  private async accept(adapter: Adapter, message: InboundMessage, entry?: InboxEntry): Promise<void> {
    // While draining, the adapters are still connected and have already acknowledged what they deliver:
    // queue it like any other message (the drain waits for it) rather than lose it.
    if (this.state !== "running" && this.state !== "stopping") {
      this.logger.info({ platform: message.platform }, "gateway: message dropped after stop");
      return;
    }
    const takenAt = performance.now();
    this.metrics.eventReceived(message.platform);
    const stores = this.stores;
    const access = this.access;
    if (!stores || !access) return;
    // A replica whose lease is not surely its own takes nothing: the entry stays for the next leader.
    if (this.coordination?.leading() === false) {
      this.logger.warn(
        { platform: message.platform, eventId: message.eventId },
        "gateway: event not taken (this replica does not lead now)",
      );
      if (entry) this.inboxInFlight.delete(entry.entryId);
      return;
    }
    // Settled once: right after the reply was sent (a crash after it replays the least), or on failure.
    let settled = false;
    const settle = async () => {
      if (settled || !entry) return;
      settled = true;
      await this.settleEntry(entry);
    };
    const admission = await access.admit(message);
    if (!admission.admit) {
      this.logger.info(
        { platform: message.platform, sender: message.sender.id, reason: admission.reason },
        "gateway: message not admitted",
      );
      if (admission.notice) await this.delivery.send(adapter, message, admission.notice);
      await settle();
      return;
    }
    // Only admitted messages are remembered, so a flood from strangers cannot push real event ids out of
    // the bounded store (a stranger's redelivery only meets the rate-limited notice again). The shared
    // inbox deduped its entries at intake.
    if (!entry && (await stores.dedupe.checkAndMark(message.platform, message.eventId))) {
      this.logger.debug(
        { platform: message.platform, eventId: message.eventId },
        "gateway: duplicate event dropped",
      );
      return;
    }
    stores.activity.touch();
    const key = sessionKeyOf(message);
    const isAdmin = admission.role === "admin";
    const read = await this.readerLanguages.complete(adapter, message);
    if (read.press) {
      await this.presses.accept(adapter, read, read.press.actionId, isAdmin, () => void settle());
      return;
    }
    void this.queues
      .run(key, () => this.process(adapter, read, isAdmin, entry, settle, takenAt))
      .catch((error) => {
        this.metrics.error("event");
        this.logger.error({ err: error, platform: message.platform }, "gateway: handling a message failed");
      })
      .finally(settle);
  }

  private contextFor(adapter: Adapter, message: InboundMessage, isAdmin: boolean): CommandContext {
    // The config as it is now on disk (the library re-reads config.yaml when it changes), so an edit made
    // by `skills disable` — from any chat or the CLI — applies to the very next message.
    const ctx = chatContext({
      home: this.options.home,
      config: this.library.currentConfig(),
      message,
      isAdmin,
      sessions: this.stores?.sessions,
      runLock: this.runLock,
      now: () => new Date(this.now()),
      library: this.library,
      answersInOneStep: adapter.capabilities.buttons === true || adapter.capabilities.typedAnswers === true,
      signal: this.stopController.signal,
    });
    // "Set KEY" buttons are shown to admins where a press opens a private input.
    if (isAdmin && adapter.capabilities.buttons === true && this.secrets.available(adapter.capabilities))
      ctx.secretInput = true;
    return ctx;
  }

  private async process(
    adapter: Adapter,
    message: InboundMessage,
    isAdmin: boolean,
    entry?: InboxEntry,
    settle: () => Promise<void> = async () => undefined,
    takenAt = performance.now(),
  ): Promise<void> {
    const ctx = this.contextFor(adapter, message, isAdmin);
    if (entry) ctx.effects = this.effectsOf(entry);
    // Each adapter decides what is a command for this bot (entities, mentions, `@bot` suffixes); a
    // message it delivered without one is text, however it starts.
    const command = message.command ?? null;
    const label = command ? `/${[command.name, ...command.args].join(" ")}` : undefined;
    const {
      value: { reply, mutated },
      editMessageId,
    } = await this.delivery.acknowledgeIfSlow(
      adapter,
      message,
      this.router.route(ctx, message, command),
      label,
    );
    // A notice that was shown is always replaced, even by an empty result.
    const shown = reply.blocks.length > 0 || editMessageId === undefined ? reply : textReply(t("reply.done"));
    if (shown.blocks.length > 0) {
      await this.delivery.send(adapter, message, shown, { editMessageId });
      this.metrics.eventAnswered(message.platform, (performance.now() - takenAt) / 1000);
    }
    await settle();
    this.stores?.activity.touch();
    if (mutated || this.menus.configChanged()) await this.syncCommandCatalogs();
  }

  private onUnexpected = (error: unknown, spec: CommandSpec) => {
    this.metrics.error("command");
    this.logger.error({ err: error, command: spec.path.join(" ") }, "gateway: command failed unexpectedly");
  };

  private async postHome(reply: Reply): Promise<boolean> {
    const home = this.options.config.gateway.homeChannel;
    if (!home) return false;
    const [platform, chatId, threadId] = home.split(":");
    const adapter = this.options.adapters.find((candidate) => candidate.platform === platform);
    if (!adapter || !chatId) {
      this.logger.warn(
        { homeChannel: home },
        "gateway: the home channel's platform is not running; summary not posted",
      );
      return false;
    }
    await this.delivery.deliver(
      adapter,
      { chatId, threadId },
      await this.delivery.present(
        adapter,
        chatId,
        await this.delivery.forChat(adapter, reply, undefined, chatId),
      ),
    );
    return true;
  }
}

/**
 * Why no platform started: a `ConfigError` (exit 78: a supervisor stops restarting) when every platform
 * refused its credentials or settings, since only fixing them helps; else a plain error.
 */
function noAdapterStarted(failures: readonly unknown[]): Error {
  const refused = failures.filter(
    (failure): failure is AdapterError => failure instanceof AdapterError && failure.refused,
  );
  const [first] = refused;
  if (first && refused.length === failures.length) return new ConfigError(first.adapter, first.text);
  return new SkillgateError("gateway.no_adapter", t("gateway.noAdapterStarted"));
}

/** Creates a gateway over the given adapters. */
export function createGateway(options: GatewayOptions): Gateway {
  return new GatewayImpl(options);
}
