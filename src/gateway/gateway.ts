/**
 * The gateway core, the message path: adapters → access → dedupe → per-chat queue → router → reply.
 * Commands come from the one registry (the same specs as the CLI); `/<skill>` loads skills; other text
 * goes to the agent when one is configured. A button press leaves the funnel after dedupe for the press
 * path (`press.ts`), and every reply of both paths goes out through `delivery.ts`. Around it: the
 * maintenance tick (curator when due and idle), `/healthz`, native command menus kept in sync with the
 * visible skills, and a graceful stop that drains in-flight commands before stopping the adapters.
 */
import { findSkillByChatName, loadSkills } from "../../commands/chat.js";
import { chatContext, sessionKeyOf } from "../../commands/context.js";
import { registry as defaultRegistry } from "../../commands/index.js";
import { closest, resolveCommand } from "../../commands/parse.js";
import { parseAndRun, runCommand } from "../../commands/runner.js";
import type { CommandContext, CommandSpec } from "../../commands/types.js";
import type { SkillgateConfig } from "../config/config.js";
import { AccessGate, admitSender, roleOf } from "../core/access.js";
import { matchChatCommand } from "../core/command-text.js";
import { SkillgateError } from "../core/errors.js";
import { t } from "../core/i18n/messages.js";
import { type Logger, silentLogger } from "../core/logger.js";
import type { Adapter, AdapterHooks, InboundMessage, ParsedCommand } from "../core/message.js";
import { errorReply, localizeReply, type Reply, textReply } from "../core/reply.js";
import type { CoordinationStores, RunLock } from "../core/stores.js";
import type { Consolidator } from "../curator/types.js";
import { type ManagedSkillLibrary, openLibrary } from "../skills/library.js";
import type { SkillLibrary } from "../skills/types.js";
import { ActionStore, type ButtonStore } from "./action-store.js";
import { ActionRouter } from "./actions.js";
import { buildCommandCatalog } from "./catalog.js";
import type { ConsoleServer } from "./console/server.js";
import { Coordinator } from "./coordination/coordinator.js";
import type { LeaseTimings } from "./coordination/lease.js";
import { ReplyDelivery } from "./delivery.js";
import { type HealthServer, healthReport, startHealthServer, withCoordination } from "./health.js";
import { MaintenanceTicker, type TickOutcome } from "./maintenance.js";
import { PressPath } from "./press.js";
import { ChatQueues } from "./queue.js";
import { OutboundScrubber } from "./scrub.js";
import { type SecretFormServer, startSecretFormServer } from "./secrets-entry/form-server.js";
import { SecretEntry } from "./secrets-entry/service.js";
import { openFileStores } from "./stores.js";

/** Answers non-command chat text (the LLM agent). */
export interface ChatAgent {
  respond(message: InboundMessage, ctx: CommandContext): Promise<Reply>;
}

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
  console?: { announce?: (line: string) => void; printLink?: boolean };
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
  /** Lease timings with `gateway.coordination` (tests shorten them); default TTL 10 s, renew every 3 s. */
  leaseTimings?: LeaseTimings;
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

/** The reply to chat text when no agent is configured. */
export const NO_AGENT_REPLY = t("gateway.noAgent");

/** Splits `/a /b do X` (after the first name) into the extra skill names and the instruction. */
function stackedNames(rawArgs: string): { names: string[]; instruction: string } {
  const names: string[] = [];
  let rest = rawArgs;
  for (;;) {
    const match = /^\s*(\/\S+)(?:\s+|$)/.exec(rest);
    const parsed = match ? matchChatCommand(match[1] ?? "") : null;
    if (!match || !parsed) break;
    names.push(parsed.name);
    rest = rest.slice(match[0].length);
  }
  return { names, instruction: rest.trim() };
}

class GatewayImpl implements Gateway {
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly library: ManagedSkillLibrary;
  /** The config in force when the menus were last synced; a newer one (an edit) triggers a resync. */
  private syncedConfig: SkillgateConfig | undefined;
  private readonly registry: readonly CommandSpec[];
  private access: AccessGate | undefined;
  private readonly queues: ChatQueues;
  private readonly maintenance: MaintenanceTicker;
  private readonly catalogs = new Map<Adapter, string>();
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

  constructor(private readonly options: GatewayOptions) {
    this.logger = options.logger ?? silentLogger();
    this.now = options.now ?? Date.now;
    this.library = openLibrary(options.home, options.config);
    this.registry = options.registry ?? defaultRegistry;
    this.scrubber = new OutboundScrubber(options.home, options.config);
    this.queues = new ChatQueues(options.config.gateway.concurrency);
    this.secrets = new SecretEntry({
      home: options.home,
      library: this.library,
      now: this.now,
      publicUrl: options.config.gateway.publicUrl,
    });
    this.delivery = new ReplyDelivery({
      config: options.config,
      registry: this.registry,
      scrubber: this.scrubber,
      logger: this.logger,
      acknowledgeAfterMs: options.acknowledgeAfterMs,
      actions: () => this.actions,
      currentConfig: () => this.library.currentConfig(),
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
      configChanged: () => this.configChanged(),
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
    if (coordination && !this.options.stores)
      this.coordination = await Coordinator.open({
        home: this.options.home,
        config: coordination,
        logger: this.logger,
        buttonTtlMs: ttlHours * 3_600_000,
        now: this.now,
        timings: this.options.leaseTimings,
      });
    this.stores ??=
      this.coordination?.stores ?? (await openFileStores(this.options.home, { now: this.now, onError }));
    this.access = new AccessGate(this.options.config, this.now, this.stores.strangers);
    this.actionStore =
      this.coordination?.buttons ??
      (await ActionStore.open(this.options.home, { now: this.now, ttlMs: ttlHours * 3_600_000 }));
    this.actions = new ActionRouter(this.actionStore, this.registry, pageSize);
    // /healthz is up before any platform connects, so a supervisor sees "connecting"/"failed" and why.
    const health = this.options.config.gateway.health;
    if (health.enabled) {
      try {
        this.health = await startHealthServer(health.port, () =>
          withCoordination(healthReport(this.options.adapters), this.coordination?.health()),
        );
        this.logger.info({ url: this.health.url }, "gateway: health endpoint listening");
      } catch (error) {
        // Chat keeps working; a supervisor probing /healthz will notice the missing endpoint.
        this.logger.error(
          { err: error, port: health.port },
          "gateway: /healthz could not listen (set gateway.health.port to a free port)",
        );
      }
    }
    if (this.coordination) {
      // Every replica serves the console; the platforms, menus, secret form and maintenance follow the lead.
      await this.startConsole();
      this.coordination.start({ lead: () => this.lead(), follow: (reason) => this.follow(reason) });
      return;
    }
    if (!(await this.startAdapters())) {
      await this.health?.close();
      this.health = undefined;
      throw new Error("No chat adapter could start; see the log lines above for each platform's reason.");
    }
    await this.syncCommandCatalogs();
    // Input may already have ended (a piped terminal chat): then stop() is running; start nothing more.
    if (this.state !== "running") return;
    await this.startConsole();
    await this.startSecretForm();
    this.startMaintenance();
  }

  /** Connects every platform side by side; false when none could (with adapters configured). */
  private async startAdapters(): Promise<boolean> {
    // Platforms connect side by side: one that never comes up does not hold the others back.
    const outcomes = await Promise.all(
      this.options.adapters.map(async (adapter) => {
        try {
          await adapter.start((message) => this.accept(adapter, message), this.hooksFor(adapter));
          this.logger.info({ platform: adapter.platform }, "gateway: adapter started");
          return true;
        } catch (error) {
          this.logger.error(
            { err: error, platform: adapter.platform },
            `gateway: ${adapter.platform} failed to start: ${(error as Error).message}`,
          );
          return false;
        }
      }),
    );
    return outcomes.includes(true) || this.options.adapters.length === 0;
  }

  private startMaintenance(): void {
    const { checkMinutes, firstCheckSeconds } = this.options.config.gateway.maintenance;
    this.maintenance.start(checkMinutes * 60_000, firstCheckSeconds * 1000);
  }

  /** This replica leads the home now: it connects the platforms and takes the leader's duties. */
  private async lead(): Promise<void> {
    if (this.state !== "running") return;
    if (!(await this.startAdapters())) {
      this.logger.error("gateway: leading, but no chat adapter could start; giving the lead up");
      // Another replica may connect where this one could not: it stands back before contending again.
      this.follow("no chat adapter could start", ADAPTER_FAILURE_STANDBY_MS);
      return;
    }
    await this.syncCommandCatalogs();
    await this.startSecretForm();
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

  /** The one-time secret form, when `gateway.public_url` is set and a platform gets links. */
  private async startSecretForm(): Promise<void> {
    const gateway = this.options.config.gateway;
    if (!gateway.publicUrl) return;
    if (!this.options.adapters.some((adapter) => adapter.capabilities.privateInput === "link")) return;
    try {
      this.secretForm = await startSecretFormServer(
        gateway.secretForm.port,
        this.secrets,
        async (pending, done) => {
          const adapter = this.options.adapters.find((candidate) => candidate.platform === pending.platform);
          if (!adapter) return;
          await adapter
            .send(
              { chatId: pending.chatId, threadId: pending.threadId },
              this.delivery.outbound(
                adapter,
                await this.delivery.present(adapter, pending.chatId, localizeReply(done.reply, done.locale)),
              ),
            )
            .catch((error) =>
              this.logger.warn({ err: error }, "gateway: posting a secret confirmation failed"),
            );
        },
      );
      this.logger.info({ port: this.secretForm.port }, "gateway: one-time secret form listening");
    } catch (error) {
      this.logger.error(
        { err: error, port: gateway.secretForm.port },
        "gateway: the secret form could not listen (set gateway.secret_form.port to a free port); secrets are not offered by link",
      );
    }
  }

  private async startConsole(): Promise<void> {
    if (!this.options.console || !this.options.config.gateway.console.enabled) return;
    try {
      const { launchConsole } = await import("./console/launch.js");
      this.webConsole = await launchConsole({
        home: this.options.home,
        config: this.options.config,
        logger: this.logger,
        library: this.library,
        registry: this.registry,
        announce: this.options.console.announce,
        printLink: this.options.console.printLink,
        idleSeconds: () => (this.stores ? this.stores.activity.idleSeconds() : Number.POSITIVE_INFINITY),
        onMutated: () => this.syncCommandCatalogs(),
      });
    } catch (error) {
      // Chat keeps working without the console.
      this.logger.error(
        { err: error, port: this.options.config.gateway.console.port },
        "gateway: the web console could not start (set gateway.console.port to a free port, or gateway.console.enabled: false)",
      );
    }
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
    const drained = Promise.all([this.queues.idle(), this.maintenance.settled()]).then(() => true);
    const timeout = new Promise<boolean>((resolve) => {
      if (Number.isFinite(waitMs)) setTimeout(() => resolve(false), waitMs).unref();
    });
    if (this.queues.inFlight > 0 || this.maintenance.running)
      this.logger.info(
        { inFlight: this.queues.inFlight, waitMs },
        `gateway: waiting up to ${Math.round(waitMs / 1000)} s for running commands to finish or reach a safe point`,
      );
    if (!(await Promise.race([drained, timeout]))) {
      this.logger.warn(
        { inFlight: this.queues.inFlight },
        "gateway: stopping with commands still running (raise gateway.stop_timeout_seconds to wait longer; the next start recovers what they left)",
      );
    }
    await Promise.allSettled(
      this.options.adapters.map((adapter) =>
        adapter
          .stop()
          .catch((error) =>
            this.logger.warn({ err: error, platform: adapter.platform }, "gateway: adapter stop failed"),
          ),
      ),
    );
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

  async syncCommandCatalogs(): Promise<void> {
    this.syncedConfig = this.library.currentConfig();
    for (const adapter of this.options.adapters) {
      if (!adapter.syncCommands) continue;
      let skills: Awaited<ReturnType<SkillLibrary["visible"]>> = [];
      try {
        skills = await this.library.visible(adapter.platform);
      } catch (error) {
        // Fail closed: a broken visibility config hides every skill from the menus.
        this.logger.warn({ err: error, platform: adapter.platform }, "gateway: skills hidden from the menu");
      }
      const catalog = this.scrubber.catalog(buildCommandCatalog(this.registry, skills));
      const fingerprint = JSON.stringify(catalog);
      if (this.catalogs.get(adapter) === fingerprint) continue;
      try {
        await adapter.syncCommands(catalog);
        this.catalogs.set(adapter, fingerprint);
      } catch (error) {
        this.logger.warn({ err: error, platform: adapter.platform }, "gateway: command menu sync failed");
      }
    }
  }

  private hooksFor(adapter: Adapter): AdapterHooks {
    return {
      admit: (message) => {
        const admission = admitSender(this.options.config, message);
        if (admission.admitted) return admission;
        return { ...admission, notice: this.delivery.forReader(adapter, admission.notice, message) };
      },
      ...(this.coordination ? { mayTakeEvents: () => this.coordination?.leading() === true } : {}),
      ...(this.secrets.available(adapter.capabilities)
        ? { secretInput: this.presses.secretInputHooks(adapter) }
        : {}),
      suggestSkills: async (senderId, prefix) => {
        if (roleOf(this.options.config, adapter.platform, senderId) === "stranger") return [];
        let skills: Awaited<ReturnType<SkillLibrary["visible"]>>;
        try {
          skills = await this.library.visible(adapter.platform);
        } catch {
          return [];
        }
        const wanted = prefix.toLowerCase().replace(/_/g, "-");
        return skills
          .map((skill) => skill.name)
          .filter((name) => !this.scrubber.holdsSecret(name))
          .filter((name) => name.toLowerCase().replace(/_/g, "-").startsWith(wanted))
          .sort()
          .slice(0, 25);
      },
    };
  }

  /** The sink each adapter delivers to: resolves once the message is queued (or dropped). */
  private async accept(adapter: Adapter, message: InboundMessage): Promise<void> {
    // While draining, the adapters are still connected and have already acknowledged what they deliver:
    // queue it like any other message (the drain waits for it) rather than lose it.
    if (this.state !== "running" && this.state !== "stopping") {
      this.logger.info({ platform: message.platform }, "gateway: message dropped after stop");
      return;
    }
    const stores = this.stores;
    const access = this.access;
    if (!stores || !access) return;
    // A replica whose lease is not surely its own takes nothing: the next leader gets it from the platform.
    if (this.coordination?.leading() === false) {
      this.logger.warn(
        { platform: message.platform, eventId: message.eventId },
        "gateway: event not taken (this replica does not lead now)",
      );
      return;
    }
    const admission = await access.admit(message);
    if (!admission.admit) {
      this.logger.info(
        { platform: message.platform, sender: message.sender.id, reason: admission.reason },
        "gateway: message not admitted",
      );
      if (admission.notice) await this.delivery.send(adapter, message, admission.notice);
      return;
    }
    // Only admitted messages are remembered, so a flood from strangers cannot push real event ids out of
    // the bounded store (a stranger's redelivery only meets the rate-limited notice again).
    if (await stores.dedupe.checkAndMark(message.platform, message.eventId)) {
      this.logger.debug(
        { platform: message.platform, eventId: message.eventId },
        "gateway: duplicate event dropped",
      );
      return;
    }
    stores.activity.touch();
    const key = sessionKeyOf(message);
    if (message.press) {
      await this.presses.accept(adapter, message, message.press.actionId, admission.role === "admin");
      return;
    }
    void this.queues
      .run(key, () => this.process(adapter, message, admission.role === "admin"))
      .catch((error) =>
        this.logger.error({ err: error, platform: message.platform }, "gateway: handling a message failed"),
      );
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

  private async process(adapter: Adapter, message: InboundMessage, isAdmin: boolean): Promise<void> {
    const ctx = this.contextFor(adapter, message, isAdmin);
    // Each adapter decides what is a command for this bot (entities, mentions, `@bot` suffixes); a
    // message it delivered without one is text, however it starts.
    const command = message.command ?? null;
    const label = command ? `/${[command.name, ...command.args].join(" ")}` : undefined;
    const {
      value: { reply, mutated },
      editMessageId,
    } = await this.delivery.acknowledgeIfSlow(adapter, message, this.route(ctx, message, command), label);
    // A notice that was shown is always replaced, even by an empty result.
    const shown = reply.blocks.length > 0 || editMessageId === undefined ? reply : textReply(t("reply.done"));
    if (shown.blocks.length > 0) await this.delivery.send(adapter, message, shown, { editMessageId });
    this.stores?.activity.touch();
    if (mutated || this.configChanged()) await this.syncCommandCatalogs();
  }

  /** config.yaml changed since the menus were synced (an edit from chat, the CLI or by hand). */
  private configChanged(): boolean {
    return this.library.currentConfig() !== this.syncedConfig;
  }

  private onUnexpected = (error: unknown, spec: CommandSpec) => {
    this.logger.error({ err: error, command: spec.path.join(" ") }, "gateway: command failed unexpectedly");
  };

  private async route(
    ctx: CommandContext,
    message: InboundMessage,
    command: ParsedCommand | null,
  ): Promise<{ reply: Reply; mutated: boolean }> {
    if (!command) return { reply: await this.respondToText(ctx, message), mutated: false };
    let resolved: ReturnType<typeof resolveCommand>;
    try {
      resolved = resolveCommand(this.registry, command.name, command.args, ctx.commandPrefix);
    } catch (error) {
      // Only a bad subcommand lands here (a UsageError with the list of existing ones).
      return {
        reply:
          error instanceof SkillgateError
            ? errorReply(error.text, error.exitCode)
            : errorReply((error as Error).message),
        mutated: false,
      };
    }
    if (resolved) {
      const reply = await parseAndRun(resolved.spec, ctx, resolved.rest, { onUnexpected: this.onUnexpected });
      return { reply, mutated: resolved.spec.mutating && reply.exitCode === 0 };
    }
    const skill = await findSkillByChatName(ctx, command.name).catch(() => undefined);
    if (!skill) {
      const names = [
        ...new Set(this.registry.filter((spec) => !spec.hidden).map((spec) => spec.path[0] ?? "")),
      ];
      const guess = closest(command.name.toLowerCase(), names);
      const unknown = guess
        ? t("gateway.unknownCommand.guess", {
            command: `/${command.name}`,
            guess: ctx.commandPrefix([guess]),
          })
        : t("gateway.unknownCommand", { command: `/${command.name}` });
      return { reply: errorReply(unknown, 2), mutated: false };
    }
    return { reply: await this.invokeSkills(ctx, message, skill.name, command.rawArgs), mutated: false };
  }

  private invokeSkills(
    ctx: CommandContext,
    message: InboundMessage,
    first: string,
    rawArgs: string,
  ): Promise<Reply> {
    const { names, instruction } = stackedNames(rawArgs);
    const agent = this.options.agent;
    const spec: CommandSpec = {
      path: [first],
      summary: t("gateway.loadSkill", { name: first }),
      mutating: false,
      run: async (runCtx) => {
        const loaded = await loadSkills(runCtx, [first, ...names], instruction);
        if (!agent || !instruction || loaded.reply.exitCode !== 0) return loaded.reply;
        const answer = await agent.respond({ ...message, text: instruction, command: undefined }, runCtx);
        // "Set KEY" buttons of the loaded skills stay with the combined answer.
        return {
          ...answer,
          blocks: [...loaded.reply.blocks, ...answer.blocks],
          actions: answer.actions ?? loaded.reply.actions,
        };
      },
    };
    return runCommand(spec, ctx, { args: [], options: {} }, { onUnexpected: this.onUnexpected });
  }

  private async respondToText(ctx: CommandContext, message: InboundMessage): Promise<Reply> {
    const agent = this.options.agent;
    if (!agent) return textReply(NO_AGENT_REPLY);
    try {
      return await agent.respond(message, ctx);
    } catch (error) {
      this.logger.error({ err: error }, "gateway: the agent failed");
      return errorReply(t("gateway.agentFailed", { detail: (error as Error).message }));
    }
  }

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
        this.delivery.forReader(adapter, reply, undefined, chatId),
      ),
    );
    return true;
  }
}

/** Creates a gateway over the given adapters. */
export function createGateway(options: GatewayOptions): Gateway {
  return new GatewayImpl(options);
}
