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
import { resolveCommand } from "../../commands/parse.js";
import { parseAndRun, runCommand } from "../../commands/runner.js";
import type { CommandContext, CommandSpec } from "../../commands/types.js";
import type { SkillgateConfig } from "../config/config.js";
import { AccessGate, admitSender, roleOf } from "../core/access.js";
import { matchChatCommand } from "../core/command-text.js";
import { SkillgateError } from "../core/errors.js";
import { type Logger, silentLogger } from "../core/logger.js";
import type { Adapter, AdapterHooks, InboundMessage, ParsedCommand } from "../core/message.js";
import { errorReply, type Reply, textReply } from "../core/reply.js";
import type { Consolidator } from "../curator/types.js";
import { type ManagedSkillLibrary, openLibrary } from "../skills/library.js";
import type { SkillLibrary } from "../skills/types.js";
import { ActivityStore } from "./activity.js";
import { buildCommandCatalog } from "./catalog.js";
import { DedupeStore } from "./dedupe.js";
import { type HealthServer, healthReport, startHealthServer } from "./health.js";
import { MaintenanceTicker, type TickOutcome } from "./maintenance.js";
import { ChatQueues } from "./queue.js";
import { type SecretFormServer, startSecretFormServer } from "./secrets-entry/form-server.js";
import { SecretEntry } from "./secrets-entry/service.js";
import { SessionStore } from "./sessions.js";

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
  /** How long `stop` waits for in-flight commands before stopping adapters anyway (ms). Default 8000. */
  drainTimeoutMs?: number;
}

/** A running (or startable) gateway. */
export interface Gateway {
  start(): Promise<void>;
  /** Drains in-flight commands, stops adapters and the tick, flushes state; resolves within ~10 s. */
  stop(): Promise<void>;
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
  /** Port of the one-time secret form server, once started (`gateway.public_url` set). */
  readonly secretFormPort: number | undefined;
}

const UNKNOWN_HINT =
  "Type /help to see what is available, or resend without the leading slash to send it as a normal message.";

/** The reply to chat text when no agent is configured. */
export const NO_AGENT_REPLY =
  "I only understand commands here: no language model is configured. To chat, set `gateway.agent.enabled: true` and a `model` (or `auxiliary`) section in config.yaml. Type /help for the commands.";

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
  private readonly access: AccessGate;
  private readonly queues: ChatQueues;
  private readonly maintenance: MaintenanceTicker;
  private readonly catalogs = new Map<Adapter, string>();
  private dedupe: DedupeStore | undefined;
  private activity: ActivityStore | undefined;
  private health: HealthServer | undefined;
  private readonly secrets: SecretEntry;
  private secretForm: SecretFormServer | undefined;
  private state: "new" | "running" | "stopping" | "stopped" = "new";
  private stopping: Promise<void> | undefined;

  constructor(private readonly options: GatewayOptions) {
    this.logger = options.logger ?? silentLogger();
    this.now = options.now ?? Date.now;
    this.library = openLibrary(options.home, options.config);
    this.registry = options.registry ?? defaultRegistry;
    this.access = new AccessGate(options.config, this.now);
    this.queues = new ChatQueues(options.config.gateway.concurrency);
    this.secrets = new SecretEntry({
      home: options.home,
      library: this.library,
      now: this.now,
      publicUrl: options.config.gateway.publicUrl,
    });
    this.maintenance = new MaintenanceTicker({
      home: options.home,
      config: options.config,
      library: this.library,
      logger: this.logger,
      now: this.now,
      busy: () => this.queues.inFlight > 0,
      idleSeconds: async () => (this.activity ? this.activity.idleSeconds() : Number.POSITIVE_INFINITY),
      post: (reply) => this.postHome(reply),
      changed: () => this.syncCommandCatalogs(),
      consolidator: options.consolidator,
    });
  }

  get inFlight(): number {
    return this.queues.inFlight;
  }

  get healthUrl(): string | undefined {
    return this.health?.url;
  }

  async start(): Promise<void> {
    if (this.state !== "new") throw new Error("This gateway was already started; create a new one.");
    this.state = "running";
    const onError = (error: unknown) => this.logger.error({ err: error }, "gateway: writing state failed");
    this.dedupe = await DedupeStore.open(this.options.home, { now: this.now, onError });
    this.activity = await ActivityStore.open(this.options.home, { now: this.now, onError });
    const started: Adapter[] = [];
    for (const adapter of this.options.adapters) {
      try {
        await adapter.start((message) => this.accept(adapter, message), this.hooksFor(adapter));
        started.push(adapter);
        this.logger.info({ platform: adapter.platform }, "gateway: adapter started");
      } catch (error) {
        this.logger.error({ err: error, platform: adapter.platform }, "gateway: adapter failed to start");
      }
    }
    if (started.length === 0 && this.options.adapters.length > 0) {
      throw new Error("No chat adapter could start; see the log lines above for each platform's reason.");
    }
    await this.syncCommandCatalogs();
    // Input may already have ended (a piped terminal chat): then stop() is running; start nothing more.
    if (this.state !== "running") return;
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
            .send({ chatId: pending.chatId, threadId: pending.threadId }, done.reply)
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

  /** Port of the one-time secret form server, once started. */
  get secretFormPort(): number | undefined {
    return this.secretForm?.port;
  }

  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    this.state = "stopping";
    this.maintenance.stop();
    const drained = Promise.all([this.queues.idle(), this.maintenance.settled()]).then(() => true);
    const timeout = new Promise<boolean>((resolve) =>
      setTimeout(() => resolve(false), this.options.drainTimeoutMs ?? 8000).unref(),
    );
    if (!(await Promise.race([drained, timeout]))) {
      this.logger.warn({ inFlight: this.queues.inFlight }, "gateway: stopping with commands still running");
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
      this.dedupe?.flush(),
      this.activity?.flush(),
      SessionStore.for(this.options.home).flush(),
      this.health?.close(),
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
      const catalog = buildCommandCatalog(this.registry, skills);
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
    const secrets = this.secrets;
    return {
      admit: (message) => admitSender(this.options.config, message),
      ...(adapter.capabilities.privateInput === "modal" || adapter.capabilities.privateInput === "form"
        ? {
            secretInput: {
              describe: async (token, senderId) => secrets.describe(token, adapter.platform, senderId),
              submit: async (token, senderId, value) => {
                const done = await secrets.submit(token, adapter.platform, senderId, value);
                if (done.stored)
                  this.logger.info(
                    { platform: adapter.platform, key: done.stored.key, skill: done.stored.skill },
                    "gateway: a secret was set through a private input",
                  );
                return done.reply;
              },
            },
          }
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
    const admission = this.access.admit(message);
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
    if (this.dedupe?.checkAndMark(message.platform, message.eventId)) {
      this.logger.debug(
        { platform: message.platform, eventId: message.eventId },
        "gateway: duplicate event dropped",
      );
      return;
    }
    this.activity?.touch();
    const key = sessionKeyOf(message);
    void this.queues
      .run(key, () => this.process(adapter, message, admission.role === "admin"))
      .catch((error) =>
        this.logger.error({ err: error, platform: message.platform }, "gateway: handling a message failed"),
      );
  }

  private async process(adapter: Adapter, message: InboundMessage, isAdmin: boolean): Promise<void> {
    // The config as it is now on disk (the library re-reads config.yaml when it changes), so an edit made
    // by `skills disable` — from any chat or the CLI — applies to the very next message.
    const config = this.library.currentConfig();
    const ctx = chatContext({
      home: this.options.home,
      config,
      message,
      isAdmin,
      sessions: SessionStore.for(this.options.home),
      now: () => new Date(this.now()),
      library: this.library,
    });
    ctx.offerSecretInputs = this.secrets.offerFor(adapter.capabilities, message, isAdmin);
    // Each adapter decides what is a command for this bot (entities, mentions, `@bot` suffixes); a
    // message it delivered without one is text, however it starts.
    const command = message.command ?? null;
    const { reply, mutated } = await this.route(ctx, message, command);
    if (reply.blocks.length > 0) await this.send(adapter, message, reply);
    this.activity?.touch();
    if (mutated || this.library.currentConfig() !== this.syncedConfig) await this.syncCommandCatalogs();
  }

  private async send(adapter: Adapter, message: InboundMessage, reply: Reply): Promise<void> {
    try {
      await adapter.send({ chatId: message.chat.id, threadId: message.chat.threadId }, reply, message);
    } catch (error) {
      this.logger.error({ err: error, platform: adapter.platform }, "gateway: sending a reply failed");
    }
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
        reply: errorReply((error as Error).message, error instanceof SkillgateError ? error.exitCode : 1),
        mutated: false,
      };
    }
    if (resolved) {
      const reply = await parseAndRun(resolved.spec, ctx, resolved.rest, { onUnexpected: this.onUnexpected });
      return { reply, mutated: resolved.spec.mutating && reply.exitCode === 0 };
    }
    const skill = await findSkillByChatName(ctx, command.name).catch(() => undefined);
    if (!skill) {
      return {
        reply: errorReply(`Unknown command \`/${command.name}\`. ${UNKNOWN_HINT}`, 2),
        mutated: false,
      };
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
      summary: `load the ${first} skill`,
      mutating: false,
      run: async (runCtx) => {
        const loaded = await loadSkills(runCtx, [first, ...names], instruction);
        if (!agent || !instruction || loaded.reply.exitCode !== 0) return loaded.reply;
        const answer = await agent.respond({ ...message, text: instruction, command: undefined }, runCtx);
        return {
          ...answer,
          blocks: [...loaded.reply.blocks, ...answer.blocks],
          secretInputs: loaded.reply.secretInputs,
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
      return errorReply(
        `The agent could not answer: ${(error as Error).message}. Commands still work; type /help.`,
      );
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
    await adapter.send({ chatId, threadId }, reply);
    return true;
  }
}

/** Creates a gateway over the given adapters. */
export function createGateway(options: GatewayOptions): Gateway {
  return new GatewayImpl(options);
}
