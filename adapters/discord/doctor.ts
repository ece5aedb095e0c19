/**
 * `skillgate doctor` for Discord: logs in the way the gateway does (so a bad token or a disallowed intent
 * shows up with the same explanation), then checks where skillgate's slash commands are registered and
 * whether the Interactions Endpoint settings agree with the application's Interactions Endpoint URL.
 */
import { REST, Routes } from "discord.js";
import { type Check, failText, messageOf, okText, warnText } from "../../src/core/diagnostics.js";
import { type Text, t } from "../../src/core/i18n/messages.js";
import type { AdapterOptions } from "../../src/core/platforms.js";
import { type DiscordConfig, discordConfig } from "./config.js";
import { DISCORD_PUBLIC_KEY_SECRET } from "./endpoint.js";
import { createDiscordAdapter, DISCORD_TOKEN_SECRET } from "./index.js";
import { publicKeyFromHex } from "./signature.js";

const AREA = "discord";

/** Runs the Discord checks; never throws. */
export async function diagnoseDiscord(options: AdapterOptions): Promise<Check[]> {
  const token = options.secret(DISCORD_TOKEN_SECRET);
  if (!token) return [failText(AREA, t("pdoctor.dc.noToken"), t("pdoctor.dc.noToken.fix"))];
  const checks: Check[] = [];
  // The login only: the endpoint's port belongs to the running gateway.
  const adapter = createDiscordAdapter({
    ...options,
    config: withoutEndpoint(options.config),
    tuning: { readyTimeoutMs: 15_000 },
  });
  try {
    await adapter.start(async () => undefined);
    const detail = adapter.health().detail;
    checks.push(
      okText(AREA, t("pdoctor.dc.connected", { detail: detail ?? t("pdoctor.dc.connectedPlain") })),
    );
  } catch (error) {
    await adapter.stop().catch(() => undefined);
    return [
      failText(AREA, t("pdoctor.dc.loginFailed", { detail: messageOf(error) }), fixFor(messageOf(error))),
    ];
  }
  await adapter.stop().catch(() => undefined);
  const settings = discordConfig(options.config);
  const rest = new REST(settings.api ? { api: settings.api } : {}).setToken(token);
  try {
    const app = (await rest.get(Routes.currentApplication())) as {
      id: string;
      name?: string;
      interactions_endpoint_url?: string | null;
    };
    checks.push(endpointCheck(settings, app.interactions_endpoint_url ?? undefined, options));
    if (settings.applicationId && settings.applicationId !== app.id)
      checks.push(
        failText(
          AREA,
          t("pdoctor.dc.wrongApp", { configured: settings.applicationId, actual: app.id }),
          t("pdoctor.dc.wrongApp.fix"),
        ),
      );
    const guildId = settings.guildId;
    const route = guildId
      ? Routes.applicationGuildCommands(app.id, guildId)
      : Routes.applicationCommands(app.id);
    const commands = (await rest.get(route)) as { name: string }[];
    const where = guildId ? t("pdoctor.dc.inGuild", { guild: guildId }) : t("pdoctor.dc.globally");
    checks.push(
      commands.some((command) => command.name === "curator")
        ? okText(AREA, t("pdoctor.dc.commandsOk", { where, count: commands.length }))
        : warnText(AREA, t("pdoctor.dc.noCommands", { where }), t("pdoctor.dc.noCommands.fix")),
    );
  } catch (error) {
    const text = messageOf(error);
    checks.push(
      /Missing Access|50001/.test(text)
        ? failText(AREA, t("pdoctor.dc.noAccess", { detail: text }), t("pdoctor.dc.noAccess.fix"))
        : warnText(AREA, t("pdoctor.dc.commandsUnreadable", { detail: text }), t("pdoctor.retry")),
    );
  }
  return checks;
}

/** The config with the Interactions Endpoint left off. */
function withoutEndpoint(config: AdapterOptions["config"]): AdapterOptions["config"] {
  const section = discordConfig(config);
  const platforms = {
    ...config.gateway.platforms,
    discord: { ...section, interactions: { ...section.interactions, port: undefined } },
  };
  return { ...config, gateway: { ...config.gateway, platforms } };
}

/**
 * Whether interactions reach this gateway: with the endpoint configured the public key must be one and
 * the application's Interactions Endpoint URL set; without it, no URL may be set (Discord would send
 * the interactions there instead of over the gateway session).
 */
function endpointCheck(settings: DiscordConfig, url: string | undefined, options: AdapterOptions): Check {
  const { port, path, publicKey } = settings.interactions;
  if (port === undefined) {
    return url
      ? failText(AREA, t("pdoctor.dc.urlWithoutPort", { url }), t("pdoctor.dc.urlWithoutPort.fix"))
      : okText(AREA, t("pdoctor.dc.overGateway"));
  }
  const hex = publicKey ?? options.secret(DISCORD_PUBLIC_KEY_SECRET);
  if (!hex || !publicKeyFromHex(hex))
    return failText(AREA, t(hex ? "pdoctor.dc.badKey" : "pdoctor.dc.noKey"), t("pdoctor.dc.key.fix"));
  const listen = `127.0.0.1:${port}${path}`;
  return url
    ? okText(AREA, t("pdoctor.dc.endpointOk", { url, listen }))
    : warnText(AREA, t("pdoctor.dc.noEndpointUrl", { listen }), t("pdoctor.dc.noEndpointUrl.fix"));
}

function fixFor(message: string): Text {
  if (/4014/.test(message)) return t("pdoctor.dc.fix.intent");
  if (/DISCORD_BOT_TOKEN|4004|401/.test(message)) return t("pdoctor.dc.fix.token");
  return t("pdoctor.dc.fix.network");
}
