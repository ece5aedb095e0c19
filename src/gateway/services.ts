/**
 * The servers beside the chat: `/healthz`, the one-time secret form and the web console. Each starts
 * or logs why it could not (a port in use, …) and leaves chat working either way; each returns its
 * handle, or undefined when it is off or failed.
 */
import type { SkillgateConfig } from "../config/config.js";
import type { Logger } from "../core/logger.js";
import type { Adapter } from "../core/message.js";
import { localizeReply } from "../core/reply.js";
import type { LaunchOptions } from "./console/launch.js";
import type { ConsoleServer } from "./console/server.js";
import type { Coordinator } from "./coordination/coordinator.js";
import type { ReplyDelivery } from "./delivery.js";
import {
  type HealthServer,
  healthReport,
  type MetricsExposition,
  startHealthServer,
  withCoordination,
} from "./health.js";
import { type SecretFormServer, startSecretFormServer } from "./secrets-entry/form-server.js";
import type { SecretEntry } from "./secrets-entry/service.js";

/** `/healthz` over the adapters' states (and the replica's role under coordination), when enabled. */
export async function startHealth(
  config: SkillgateConfig,
  adapters: readonly Adapter[],
  coordination: Coordinator | undefined,
  logger: Logger,
  metrics?: MetricsExposition,
): Promise<HealthServer | undefined> {
  const health = config.gateway.health;
  if (!health.enabled) return undefined;
  try {
    const server = await startHealthServer(
      health.port,
      () => withCoordination(healthReport([...adapters]), coordination?.health()),
      metrics,
    );
    logger.info({ url: server.url }, "gateway: health endpoint listening");
    return server;
  } catch (error) {
    // Chat keeps working; a supervisor probing /healthz will notice the missing endpoint.
    logger.error(
      { err: error, port: health.port },
      "gateway: /healthz could not listen (set gateway.health.port to a free port)",
    );
    return undefined;
  }
}

/** What the secret form needs: where secrets go and how a confirmation reaches the chat. */
export interface SecretFormOptions {
  config: SkillgateConfig;
  adapters: readonly Adapter[];
  secrets: SecretEntry;
  delivery: ReplyDelivery;
  logger: Logger;
}

/**
 * The one-time secret form, when `gateway.public_url` is set and a platform gets links; a submitted
 * secret is confirmed in the chat it was asked from, in the asker's language.
 */
export async function startSecretForm(options: SecretFormOptions): Promise<SecretFormServer | undefined> {
  const { config, adapters, secrets, delivery, logger } = options;
  const gateway = config.gateway;
  if (!gateway.publicUrl) return undefined;
  if (!adapters.some((adapter) => adapter.capabilities.privateInput === "link")) return undefined;
  try {
    const server = await startSecretFormServer(gateway.secretForm.port, secrets, async (pending, done) => {
      const adapter = adapters.find((candidate) => candidate.platform === pending.platform);
      if (!adapter) return;
      const shown = await delivery.present(adapter, pending.chatId, localizeReply(done.reply, done.locale));
      await adapter
        .send({ chatId: pending.chatId, threadId: pending.threadId }, delivery.outbound(adapter, shown))
        .catch((error) => logger.warn({ err: error }, "gateway: posting a secret confirmation failed"));
    });
    logger.info({ port: server.port }, "gateway: one-time secret form listening");
    return server;
  } catch (error) {
    logger.error(
      { err: error, port: gateway.secretForm.port },
      "gateway: the secret form could not listen (set gateway.secret_form.port to a free port); secrets are not offered by link",
    );
    return undefined;
  }
}

/** The web console, when `gateway.console.enabled`; loaded on demand (a chat-only gateway never needs it). */
export async function startConsole(
  options: LaunchOptions & { logger: Logger },
): Promise<ConsoleServer | undefined> {
  if (!options.config.gateway.console.enabled) return undefined;
  try {
    const { launchConsole } = await import("./console/launch.js");
    return await launchConsole(options);
  } catch (error) {
    // Chat keeps working without the console.
    options.logger.error(
      { err: error, port: options.config.gateway.console.port },
      "gateway: the web console could not start (set gateway.console.port to a free port, or gateway.console.enabled: false)",
    );
    return undefined;
  }
}
