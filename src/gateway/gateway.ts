/**
 * The gateway core: adapters → access → dedupe → per-chat queue → router → reply funnel. Commands come
 * from the one registry (the same specs as the CLI); `/<skill>` loads skills; other text goes to the
 * agent when one is configured. Around it: the maintenance tick (curator when due and idle), `/healthz`,
 * native command menus kept in sync with the visible skills, and a graceful stop that drains in-flight
 * commands before stopping the adapters.
 */
import { findSkillByChatName, loadSkills } from "../../commands/chat.js";
import { chatContext, sessionKeyOf } from "../../commands/context.js";
import { registry as defaultRegistry } from "../../commands/index.js";
import { closest, resolveCommand } from "../../commands/parse.js";
import { isMutating, parseAndRun, runCommand } from "../../commands/runner.js";
import type { CommandContext, CommandSpec } from "../../commands/types.js";
import type { SkillgateConfig } from "../config/config.js";
import { AccessGate, admitSender, roleOf } from "../core/access.js";
import { applyBudget } from "../core/budget.js";
import { matchChatCommand } from "../core/command-text.js";
import { FileRefusedError, SkillgateError } from "../core/errors.js";
import { resolveText, t } from "../core/i18n/messages.js";
import { type Logger, silentLogger } from "../core/logger.js";
import type {
  Adapter,
  AdapterHooks,
  InboundMessage,
  OutboundTarget,
  ParsedCommand,
} from "../core/message.js";
import { errorReply, localizeReply, type Reply, replyToPlainText, textReply } from "../core/reply.js";
import type { CoordinationStores, RunLock } from "../core/stores.js";
import type { Consolidator } from "../curator/types.js";
import { type ManagedSkillLibrary, openLibrary } from "../skills/library.js";
import type { SkillLibrary } from "../skills/types.js";
import { ActionStore } from "./action-store.js";
import { ActionRouter, type PressVerdict } from "./actions.js";
import { buildCommandCatalog } from "./catalog.js";
import type { ConsoleServer } from "./console/server.js";
import { type HealthServer, healthReport, startHealthServer } from "./health.js";
import { forReader, readerLocale } from "./locale.js";
import { MaintenanceTicker, type TickOutcome } from "./maintenance.js";
import { ChatQueues } from "./queue.js";
import { OutboundScrubber } from "./scrub.js";
import { type SecretFormServer, startSecretFormServer } from "./secrets-entry/form-server.js";
import { SecretEntry, spokenOpening, spokenPrompt } from "./secrets-entry/service.js";
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
}

/** Default of `GatewayOptions.acknowledgeAfterMs`. */
const ACKNOWLEDGE_AFTER_MS = 2000;

/** Settles a race without caring how the work ended (its own await reports that). */
const done = (): "done" => "done";

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
  private actionStore: ActionStore | undefined;
  private health: HealthServer | undefined;
  private webConsole: ConsoleServer | undefined;
  private readonly secrets: SecretEntry;
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
    this.stores ??= await openFileStores(this.options.home, { now: this.now, onError });
    this.access = new AccessGate(this.options.config, this.now, this.stores.strangers);
    const { ttlHours, pageSize } = this.options.config.gateway.actions;
    this.actionStore = await ActionStore.open(this.options.home, {
      now: this.now,
      ttlMs: ttlHours * 3_600_000,
    });
    this.actions = new ActionRouter(this.actionStore, this.registry, pageSize);
    // /healthz is up before any platform connects, so a supervisor sees "connecting"/"failed" and why.
    const health = this.options.config.gateway.health;
    if (health.enabled) {
      try {
        this.health = await startHealthServer(health.port, () => healthReport(this.options.adapters));
        this.logger.info({ url: this.health.url }, "gateway: health endpoint listening");
      } catch (error) {
        // Chat keeps working; a supervisor probing /healthz will notice the missing endpoint.
        this.logger.error(
          { err: error, port: health.port },
          "gateway: /healthz could not listen (set gateway.health.port to a free port)",
        );
      }
    }
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
    if (!outcomes.includes(true) && this.options.adapters.length > 0) {
      await this.health?.close();
      this.health = undefined;
      throw new Error("No chat adapter could start; see the log lines above for each platform's reason.");
    }
    await this.syncCommandCatalogs();
    // Input may already have ended (a piped terminal chat): then stop() is running; start nothing more.
    if (this.state !== "running") return;
    await this.startConsole();
    await this.startSecretForm();
    this.maintenance.start(this.options.config.gateway.maintenance.checkMinutes * 60_000);
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
              this.outbound(
                adapter,
                await this.present(adapter, pending.chatId, localizeReply(done.reply, done.locale)),
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
        return admission.admitted
          ? admission
          : { ...admission, notice: this.forReader(adapter, admission.notice, message) };
      },
      ...(this.secrets.available(adapter.capabilities)
        ? { secretInput: this.secretInputHooks(adapter) }
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

  /**
   * Private secret entry for one adapter. `open` answers a press of a "Set KEY" button (a stored action
   * judged like any other: known id, this chat, not expired, the presser an admin) with a one-time input
   * bound to the presser; `submit` stores a value typed into it. Values are never logged.
   */
  private secretInputHooks(adapter: Adapter): NonNullable<AdapterHooks["secretInput"]> {
    const secrets = this.secrets;
    return {
      open: async (press) => {
        const actionId = press.press?.actionId;
        if (!this.actions || !actionId || !this.actions.isSecretAction(press, actionId)) return null;
        const locale = readerLocale(this.library.currentConfig(), adapter, press);
        const admission = admitSender(this.options.config, press);
        if (!admission.admitted) return { refused: resolveText(t("gateway.notAllowed"), locale) };
        const isAdmin =
          roleOf(this.options.config, adapter.platform, press.sender.id, press.chat.id) === "admin";
        const verdict = await this.actions.judgePress(press, actionId, () =>
          this.contextFor(adapter, press, isAdmin),
        );
        if (verdict.kind === "refused") return { refused: replyToPlainText(verdict.reply, locale) };
        if (verdict.kind !== "secret") return null;
        return spokenOpening(
          await secrets.open(adapter.capabilities, press, verdict.skill, verdict.key, locale),
          locale,
        );
      },
      describe: async (token, senderId) =>
        spokenPrompt(
          secrets.describe(token, adapter.platform, senderId),
          readerLocale(this.library.currentConfig(), adapter),
        ),
      submit: async (token, senderId, value) => {
        const done = await secrets.submit(token, adapter.platform, senderId, value);
        if (done.stored)
          this.logger.info(
            { platform: adapter.platform, key: done.stored.key, skill: done.stored.skill },
            "gateway: a secret was set through a private input",
          );
        return this.scrubber.reply(
          localizeReply(done.reply, done.locale ?? readerLocale(this.library.currentConfig(), adapter)),
        );
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
    const admission = access.admit(message);
    if (!admission.admit) {
      this.logger.info(
        { platform: message.platform, sender: message.sender.id, reason: admission.reason },
        "gateway: message not admitted",
      );
      if (admission.notice) await this.send(adapter, message, admission.notice);
      return;
    }
    // Only admitted messages are remembered, so a flood from strangers cannot push real event ids out of
    // the bounded store (a stranger's redelivery only meets the rate-limited notice again).
    if (stores.dedupe.checkAndMark(message.platform, message.eventId)) {
      this.logger.debug(
        { platform: message.platform, eventId: message.eventId },
        "gateway: duplicate event dropped",
      );
      return;
    }
    stores.activity.touch();
    const key = sessionKeyOf(message);
    if (message.press) {
      await this.acceptPress(adapter, message, message.press.actionId, admission.role === "admin");
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

  /**
   * A button press: judged at once for the presser (a refusal goes privately to them, before the
   * platform's acknowledgement), then, when accepted, run in the chat's queue like a typed command.
   */
  private async acceptPress(
    adapter: Adapter,
    message: InboundMessage,
    actionId: string,
    isAdmin: boolean,
  ): Promise<void> {
    if (!this.actions) return;
    const verdict = await this.actions.judgePress(message, actionId, () =>
      this.contextFor(adapter, message, isAdmin),
    );
    if (verdict.kind === "refused") {
      this.logger.info(
        { platform: message.platform, sender: message.sender.id },
        "gateway: button press refused",
      );
      await this.send(adapter, message, verdict.reply);
      return;
    }
    void this.queues
      .run(sessionKeyOf(message), () => this.processPress(adapter, message, verdict, isAdmin))
      .catch((error) =>
        this.logger.error({ err: error, platform: message.platform }, "gateway: handling a press failed"),
      );
  }

  private async processPress(
    adapter: Adapter,
    message: InboundMessage,
    verdict: Exclude<PressVerdict, { kind: "refused" }>,
    isAdmin: boolean,
  ): Promise<void> {
    const edit = verdict.action.placement === "replace" ? message.press?.messageId : undefined;
    if (verdict.kind === "cancel") {
      await this.send(adapter, message, textReply(t("runner.cancelled")), {
        editMessageId: edit,
      });
      return;
    }
    if (verdict.kind === "secret") {
      // The adapter opens the input itself (`hooks.secretInput.open`); a press that reaches here came
      // from a platform without one.
      await this.send(adapter, message, {
        ...textReply(t("gateway.noPrivateInput"), { exitCode: 1 }),
        private: true,
      });
      return;
    }
    const ctx = this.contextFor(adapter, message, isAdmin);
    const work = runCommand(verdict.spec, ctx, verdict.input, { onUnexpected: this.onUnexpected });
    const label = `/${verdict.spec.path.join(" ")}`;
    const { value: reply, editMessageId } = await this.acknowledgeIfSlow(adapter, message, work, label, edit);
    await this.send(adapter, message, reply, { editMessageId, page: verdict.page });
    this.stores?.activity.touch();
    if (reply.exitCode === 0 && (isMutating(verdict.spec, verdict.input) || this.configChanged()))
      await this.syncCommandCatalogs();
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
    } = await this.acknowledgeIfSlow(adapter, message, this.route(ctx, message, command), label);
    // A notice that was shown is always replaced, even by an empty result.
    const shown = reply.blocks.length > 0 || editMessageId === undefined ? reply : textReply(t("reply.done"));
    if (shown.blocks.length > 0) await this.send(adapter, message, shown, { editMessageId });
    this.stores?.activity.touch();
    if (mutated || this.configChanged()) await this.syncCommandCatalogs();
  }

  /**
   * Waits for `work`; when it is still running after `acknowledgeAfterMs`, the chat gets a "running…"
   * notice at once (through the adapter's `acknowledge`), and the message the result should replace is
   * returned with the value: the notice where the platform can edit, else `edit` (the pressed message).
   */
  private async acknowledgeIfSlow<T>(
    adapter: Adapter,
    message: InboundMessage,
    work: Promise<T>,
    label: string | undefined,
    edit?: string,
  ): Promise<{ value: T; editMessageId: string | undefined }> {
    if (!adapter.acknowledge) return { value: await work, editMessageId: edit };
    let timer: NodeJS.Timeout | undefined;
    const slow = new Promise<"slow">((resolve) => {
      timer = setTimeout(() => resolve("slow"), this.options.acknowledgeAfterMs ?? ACKNOWLEDGE_AFTER_MS);
    });
    const first = await Promise.race([work.then(done, done), slow]);
    clearTimeout(timer);
    if (first !== "slow") return { value: await work, editMessageId: edit };
    const text = label ? t("gateway.running", { command: label.slice(0, 80) }) : t("gateway.working");
    let notice: string | undefined;
    try {
      notice = await adapter.acknowledge(
        { chatId: message.chat.id, threadId: message.chat.threadId, editMessageId: edit },
        this.scrubber.reply(this.forReader(adapter, textReply(text), message)),
        message,
      );
    } catch (error) {
      this.logger.warn({ err: error, platform: adapter.platform }, "gateway: the running… notice failed");
    }
    return { value: await work, editMessageId: notice ?? edit };
  }

  /** config.yaml changed since the menus were synced (an edit from chat, the CLI or by hand). */
  private configChanged(): boolean {
    return this.library.currentConfig() !== this.syncedConfig;
  }

  /**
   * Everything a chat receives: scrubbed of secrets and server paths, then held to the reply budget.
   * `fallback` is the retry after the platform refused the file part: no files, and only the messages
   * of the budget that the refused attempt had not used yet.
   */
  private outbound(
    adapter: Adapter,
    reply: Reply,
    message?: InboundMessage,
    fallback?: { delivered: number },
  ): Reply {
    const command = message?.command;
    const known = command && this.registry.some((spec) => spec.path[0] === command.name);
    const cliCommand = command
      ? known
        ? `skillgate ${command.name} ${command.rawArgs}`.trim()
        : `skillgate skills view ${command.name}`
      : undefined;
    const fileName = command
      ? `${[command.name, ...command.args.filter((arg) => !arg.startsWith("-"))]
          .join("-")
          .replace(/[^\w.-]+/g, "_")
          .slice(0, 60)}.txt`
      : "reply.txt";
    const maxLength = adapter.capabilities.maxMessageLength;
    const maxMessages = this.options.config.gateway.maxReplyMessages - (fallback?.delivered ?? 0);
    return applyBudget(this.scrubber.reply(reply), {
      maxMessages: Math.max(1, maxMessages),
      measure: (value) => adapter.measure?.(value) ?? Math.ceil(replyToPlainText(value).length / maxLength),
      files: adapter.capabilities.files === true && fallback === undefined,
      cliCommand,
      fileName,
    });
  }

  private async send(
    adapter: Adapter,
    message: InboundMessage,
    reply: Reply,
    options: { editMessageId?: string; page?: number } = {},
  ): Promise<void> {
    try {
      // Resolved for the reader, buttons stored and a paged block cut to its page first: the budget then
      // sees one page of what the reader reads.
      const readers = this.forReader(adapter, reply, message);
      const shown = await this.present(adapter, message.chat.id, readers, options.page);
      await this.deliver(
        adapter,
        { chatId: message.chat.id, threadId: message.chat.threadId, editMessageId: options.editMessageId },
        shown,
        message,
      );
    } catch (error) {
      this.logger.error({ err: error, platform: adapter.platform }, "gateway: sending a reply failed");
    }
  }

  /**
   * Sends a reply through the budget. When the platform refuses its file part (too large for this
   * chat, say), the reply goes again cut to what is left of the budget, with the line that names the
   * terminal command showing all of it; the refusal is logged.
   */
  private async deliver(
    adapter: Adapter,
    target: OutboundTarget,
    shown: Reply,
    message?: InboundMessage,
  ): Promise<void> {
    try {
      await adapter.send(target, this.outbound(adapter, shown, message), message);
    } catch (error) {
      if (!(error instanceof FileRefusedError)) throw error;
      this.logger.warn(
        { err: error, platform: adapter.platform, file: error.fileName, delivered: error.delivered },
        "gateway: the platform refused the reply's file; sending the reply cut instead",
      );
      await adapter.send(
        target,
        this.outbound(adapter, shown, message, { delivered: error.delivered }),
        message,
      );
    }
  }

  /** `reply` in the language of the reader of `message` (or of the chat `chatId`) on `adapter`. */
  private forReader(adapter: Adapter, reply: Reply, message?: InboundMessage, chatId?: string): Reply {
    return forReader(this.library.currentConfig(), adapter, reply, message, chatId);
  }

  /** Stores a reply's buttons for an adapter that shows them; strips them for one that does not. */
  private async present(adapter: Adapter, chatId: string, reply: Reply, page?: number): Promise<Reply> {
    const buttons = adapter.capabilities.buttons === true;
    if (!this.actions) return buttons ? reply : { ...reply, actions: undefined, paging: undefined };
    return this.actions.present(reply, { platform: adapter.platform, chatId, buttons, page });
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
    const readers = this.forReader(adapter, reply, undefined, chatId);
    await this.deliver(adapter, { chatId, threadId }, await this.present(adapter, chatId, readers));
    return true;
  }
}

/** Creates a gateway over the given adapters. */
export function createGateway(options: GatewayOptions): Gateway {
  return new GatewayImpl(options);
}
