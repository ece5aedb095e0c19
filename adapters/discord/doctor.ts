/**
 * `skillgate doctor` for Discord: logs in the way the gateway does (so a bad token or a disallowed intent
 * shows up with the same explanation), then checks where skillgate's slash commands are registered.
 */
import { REST, Routes } from "discord.js";
import { type Check, failed, messageOf, ok, warn } from "../../src/core/diagnostics.js";
import type { AdapterOptions } from "../../src/core/platforms.js";
import { discordConfig } from "./config.js";
import { createDiscordAdapter, DISCORD_TOKEN_SECRET } from "./index.js";

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
  const adapter = createDiscordAdapter({ ...options, tuning: { readyTimeoutMs: 15_000 } });
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
    const app = (await rest.get(Routes.currentApplication())) as { id: string; name?: string };
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

function fixFor(message: string): string {
  if (/4014/.test(message))
    return "Developer Portal → Bot → Privileged Gateway Intents: switch on the intent named above.";
  if (/DISCORD_BOT_TOKEN|4004|401/.test(message))
    return "Developer Portal → Bot → Reset Token, and put the new token in <home>/.env.";
  return "Check the network and gateway.discord.api.";
}
