/**
 * The gateway core decides when things happen: connecting the platforms (`lifecycle.ts`), the servers
 * beside the chat (`services.ts`), native menus (`menus.ts`), the maintenance tick, the lead and its
 * hand-over under coordination (`leadership.ts`), and a graceful stop that drains in-flight commands
 * before stopping the adapters.
 * A message takes the funnel (`funnel.ts`: access → dedupe → per-chat queue → router → delivery); a
 * button press leaves it after dedupe for the press path (`press.ts`); under coordination every replica's
 * intake goes to the shared inbox and the leader consumes it (`inbox-consumer.ts`).
 */

import { chatKeyOf } from "../../commands/context.js";
import { registry as defaultRegistry } from "../../commands/index.js";
import type { CommandSpec } from "../../commands/types.js";
import { AccessGate } from "../core/access.js";
import { type Logger, silentLogger } from "../core/logger.js";
import type { Reply } from "../core/reply.js";
import type { CoordinationStores, RunLock } from "../core/stores.js";
import { type ManagedSkillLibrary, openLibrary } from "../skills/library.js";
import { ActionStore, type ButtonStore } from "./action-store.js";
import { ActionRouter } from "./actions.js";
import type { ConsoleServer } from "./console/server.js";
import type { Coordinator } from "./coordination/coordinator.js";
import { ReplyDelivery } from "./delivery.js";
import { MessageFunnel } from "./funnel.js";
import type { HealthServer } from "./health.js";
import { InboxConsumer } from "./inbox-consumer.js";
import { Leadership } from "./leadership.js";
import { connectAdapters, disconnectAdapters, drainWork, noAdapterStarted } from "./lifecycle.js";
import { type ChatTarget, LoadedSkillNotices } from "./loaded-skill-notices.js";
import { MaintenanceTicker, type TickOutcome } from "./maintenance.js";
import { CommandMenus } from "./menus.js";
import { GatewayMetrics } from "./metrics.js";
import type { Gateway, GatewayOptions, StopOptions } from "./options.js";
import { PressPath } from "./press.js";
import { ChatQueues } from "./queue.js";
import { ReaderLanguages } from "./reader-language.js";
import { CommandRouter } from "./router.js";
import { OutboundScrubber } from "./scrub.js";
import type { SecretFormServer } from "./secrets-entry/form-server.js";
import { SecretEntry } from "./secrets-entry/service.js";
import { startConsole, startHealth, startSecretForm } from "./services.js";
import { openFileStores } from "./stores.js";

export type { Gateway, GatewayOptions, StopOptions } from "./options.js";
export { type ChatAgent, NO_AGENT_REPLY } from "./router.js";

class GatewayImpl implements Gateway {
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly library: ManagedSkillLibrary;
  private readonly registry: readonly CommandSpec[];
  private access: AccessGate | undefined;
  private readonly queues: ChatQueues;
  private readonly maintenance: MaintenanceTicker;
  /** Chats told of changes to the skills they loaded as they happen. */
  private readonly skillNotices: LoadedSkillNotices;
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
  /** Under coordination: the standby's scans, the lead and the hand-over. */
  private leadership: Leadership | undefined;
  /** Under coordination: intake into the shared inbox, and the leader's consumer of it. */
  private inbox: InboxConsumer | undefined;
  /** The message path: access, dedupe, the chat's queue, routing and the answer. */
  private readonly funnel: MessageFunnel;

  constructor(private readonly options: GatewayOptions) {
    this.logger = options.logger ?? silentLogger();
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
      contextFor: (adapter, message, isAdmin) => this.funnel.contextFor(adapter, message, isAdmin),
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
    this.funnel = new MessageFunnel({
      home: options.home,
      logger: this.logger,
      now: this.now,
      library: this.library,
      queues: this.queues,
      router: this.router,
      delivery: this.delivery,
      presses: this.presses,
      secrets: this.secrets,
      metrics: this.metrics,
      runLock: this.runLock,
      signal: this.stopController.signal,
      accepting: () => this.state === "running" || this.state === "stopping",
      stores: () => this.stores,
      access: () => this.access,
      coordination: () => this.coordination,
      menus: this.menus,
      config: options.config,
      inbox: () => this.inbox,
      configChanged: () => this.menus.configChanged(),
      syncCommandCatalogs: () => this.syncCommandCatalogs(),
      skillsMutated: () => void this.skillNotices.check(),
      readerLanguages: new ReaderLanguages(() => this.stores?.sessions, this.logger),
    });
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
      changed: async () => {
        void this.skillNotices.check();
        await this.syncCommandCatalogs();
      },
      ran: (result) => this.metrics.curatorRun(result),
      consolidator: options.consolidator,
      runLock: this.runLock,
      signal: this.stopController.signal,
    });
    this.skillNotices = new LoadedSkillNotices({
      home: options.home,
      library: this.library,
      sessions: () => this.stores?.sessions,
      leading: () => this.coordination?.leading() ?? true,
      post: (target, reply) => this.postTo(target, reply),
      logger: this.logger,
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
      this.inbox = new InboxConsumer({
        coordination: this.coordination,
        adapters: this.options.adapters,
        logger: this.logger,
        running: () => this.state === "running",
        stopped: () => this.state === "stopped",
        accept: (adapter, message, entry) => this.funnel.accept(adapter, message, entry),
        notify: (adapter, message, reply) => this.delivery.send(adapter, message, reply),
      });
      this.leadership = new Leadership({
        coordination: this.coordination,
        inbox: this.inbox,
        adapters: this.options.adapters,
        library: this.library,
        logger: this.logger,
        running: () => this.state === "running",
        syncCommandCatalogs: () => this.syncCommandCatalogs(),
        startSecretForm: () => this.startSecretForm(),
        startMaintenance: () => this.startMaintenance(),
        stop: () => this.stop(),
        onLeadershipLost: this.options.onLeadershipLost,
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
    if (this.coordination && this.leadership) {
      // Every replica takes traffic: its adapters' ingress appends what arrives to the shared inbox.
      // The leader alone consumes it, polls, registers menus, runs maintenance and writes the library.
      if (!(await this.startAdapters())) {
        await this.health?.close();
        this.health = undefined;
        await this.coordination.close();
        throw noAdapterStarted(this.startFailures);
      }
      await this.startConsole();
      this.leadership.start();
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
      (adapter, message) =>
        this.inbox ? this.inbox.intake(adapter, message) : this.funnel.accept(adapter, message),
      (adapter) => this.funnel.hooksFor(adapter),
      this.logger,
      this.startFailures,
    );
  }

  private startMaintenance(): void {
    const { checkMinutes, firstCheckSeconds } = this.options.config.gateway.maintenance;
    this.maintenance.start(checkMinutes * 60_000, firstCheckSeconds * 1000);
    void this.skillNotices.start(this.options.loadedSkillPollMs);
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
    this.leadership?.stopScanning();
    this.maintenance.stop();
    this.skillNotices.stop();
    // A curator run (the tick's or a chat command's) stops at its next safe point and records what it did.
    if (!finishWork) this.stopController.abort();
    const waitMs = finishWork
      ? Number.POSITIVE_INFINITY
      : (this.options.drainTimeoutMs ?? this.options.config.gateway.stopTimeoutSeconds * 1000);
    const { queues, maintenance } = this;
    // The inbox loop ends at once (state is no longer running); entries it did not take stay pending.
    await this.leadership?.consumed();
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

  private onUnexpected = (error: unknown, spec: CommandSpec) => {
    this.metrics.error("command");
    this.logger.error({ err: error, command: spec.path.join(" ") }, "gateway: command failed unexpectedly");
  };

  private async postHome(reply: Reply): Promise<boolean> {
    const home = this.options.config.gateway.homeChannel;
    if (!home) return false;
    const [platform = "", chatId = "", threadId] = home.split(":");
    if (await this.postTo({ platform, chatId, threadId }, reply)) return true;
    this.logger.warn(
      { homeChannel: home },
      "gateway: the home channel's platform is not running; summary not posted",
    );
    return false;
  }

  /** Posts `reply` to a chat in its language; false when the chat's platform is not running here. */
  private async postTo({ platform, chatId, threadId }: ChatTarget, reply: Reply): Promise<boolean> {
    const adapter = this.options.adapters.find((candidate) => candidate.platform === platform);
    if (!adapter || !chatId) return false;
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

/** Creates a gateway over the given adapters. */
export function createGateway(options: GatewayOptions): Gateway {
  return new GatewayImpl(options);
}
