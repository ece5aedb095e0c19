/**
 * `skillgate doctor` for Discord: logs in the way the gateway does (so a bad token or a disallowed intent
 * shows up with the same explanation), then checks where skillgate's slash commands are registered and
 * whether the Interactions Endpoint settings agree with the application's Interactions Endpoint URL.
 */
import { REST, Routes } from "discord.js";
import { type Check, failed, messageOf, ok, warn } from "../../src/core/diagnostics.js";
import type { AdapterOptions } from "../../src/core/platforms.js";
import { type DiscordConfig, discordConfig } from "./config.js";
import { DISCORD_PUBLIC_KEY_SECRET } from "./endpoint.js";
import { createDiscordAdapter, DISCORD_TOKEN_SECRET } from "./index.js";
import { publicKeyFromHex } from "./signature.js";

const AREA = "discord";

/** Runs the Discord checks; never throws. */
export async function diagnoseDiscord(options: AdapterOptions): Promise<Check[]> {
  const token = options.secret(DISCORD_TOKEN_SECRET);
  if (!token)
    return [
      failed(
        AREA,
        "DISCORD_BOT_TOKEN is not set.",
        "Developer Portal → your application → Bot → Reset Token; put DISCORD_BOT_TOKEN=… in <home>/.env, or set gateway.discord.enabled: false.",
      ),
    ];
  const checks: Check[] = [];
  // The login only: the endpoint's port belongs to the running gateway.
  const adapter = createDiscordAdapter({
    ...options,
    config: withoutEndpoint(options.config),
    tuning: { readyTimeoutMs: 15_000 },
  });
  try {
    await adapter.start(async () => undefined);
    checks.push(ok(AREA, `Gateway connection works: ${adapter.health().detail ?? "connected"}.`));
  } catch (error) {
    await adapter.stop().catch(() => undefined);
    return [failed(AREA, messageOf(error), fixFor(messageOf(error)))];
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
        failed(
          AREA,
          `gateway.discord.application_id is ${settings.applicationId} but the token belongs to application ${app.id}.`,
          "Copy the Application ID from the Developer Portal's General Information page, or remove the setting.",
        ),
      );
    const guildId = settings.guildId;
    const route = guildId
      ? Routes.applicationGuildCommands(app.id, guildId)
      : Routes.applicationCommands(app.id);
    const commands = (await rest.get(route)) as { name: string }[];
    const where = guildId ? `in guild ${guildId}` : "globally";
    checks.push(
      commands.some((command) => command.name === "curator")
        ? ok(AREA, `Slash commands registered ${where} (${commands.length}).`)
        : warn(
            AREA,
            `No skillgate slash commands are registered ${where}.`,
            "Start `skillgate serve` once: it registers them.",
          ),
    );
  } catch (error) {
    const text = messageOf(error);
    checks.push(
      /Missing Access|50001/.test(text)
        ? failed(
            AREA,
            `Discord refused access to the command list (${text}).`,
            "Invite the bot to the server with the scopes `bot applications.commands` (OAuth2 → URL Generator), and check gateway.discord.guild_id.",
          )
        : warn(AREA, `Could not read the registered commands: ${text}.`, "Retry; check the network."),
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
      ? failed(
          AREA,
          `The application's Interactions Endpoint URL is ${url}, so Discord sends slash commands and buttons there, not over the gateway, but gateway.discord.interactions.port is not set.`,
          "Set gateway.discord.interactions.port (and DISCORD_PUBLIC_KEY) on every replica behind that URL, or clear the URL in the Developer Portal → General Information.",
        )
      : ok(AREA, "Interactions come over the gateway session (no Interactions Endpoint URL).");
  }
  const hex = publicKey ?? options.secret(DISCORD_PUBLIC_KEY_SECRET);
  if (!hex || !publicKeyFromHex(hex))
    return failed(
      AREA,
      hex
        ? "gateway.discord.interactions.public_key (or DISCORD_PUBLIC_KEY) is not a public key."
        : "gateway.discord.interactions.port is set but DISCORD_PUBLIC_KEY is not.",
      "Copy PUBLIC KEY (64 hex digits) from the Developer Portal → General Information into <home>/.env as DISCORD_PUBLIC_KEY.",
    );
  return url
    ? ok(
        AREA,
        `Interactions Endpoint: Discord POSTs to ${url}; skillgate listens on 127.0.0.1:${port}${path}.`,
      )
    : warn(
        AREA,
        `skillgate listens for interactions on 127.0.0.1:${port}${path}, but the application has no Interactions Endpoint URL, so interactions still come over the gateway session (to the leading replica only).`,
        "Put the public https:// address of that path into the Developer Portal → General Information → Interactions Endpoint URL.",
      );
}

function fixFor(message: string): string {
  if (/4014/.test(message))
    return "Developer Portal → Bot → Privileged Gateway Intents: switch on the intent named above.";
  if (/DISCORD_BOT_TOKEN|4004|401/.test(message))
    return "Developer Portal → Bot → Reset Token, and put the new token in <home>/.env.";
  return "Check the network and gateway.discord.api.";
}
