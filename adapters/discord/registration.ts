/**
 * Discord's slash commands: registered with one bulk overwrite, either for `gateway.discord.guild_id` or
 * globally, never both; skillgate's commands left in the other place (or in a previously configured
 * guild, remembered in `<home>/gateway/discord-commands.json`) are removed, other bots' stay. An
 * identical command set is not uploaded again.
 */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { Routes } from "discord.js";
import { AdapterError } from "../../src/core/errors.js";
import { atomicWriteFile, stableJson } from "../../src/core/fsutil.js";
import { menuLocales } from "../../src/core/i18n/locale.js";
import type { CommandCatalogEntry } from "../../src/core/message.js";
import { buildApplicationCommands, buildInteractionLayout } from "./commands.js";
import { discordConfig } from "./config.js";
import { type DiscordContext, describe } from "./context.js";
import { shareLayout } from "./layout.js";

/** File under `<home>/gateway/` remembering where commands were registered last. */
const REGISTRATION_FILE = "discord-commands.json";

/** Where skillgate's commands were registered last. */
interface RegistrationState {
  applicationId: string;
  guildId: string | null;
  names: string[];
}

/** The shared-state key of the registered command set's digest (several replicas of a home). */
const SHARED_KEY = "discord:commands";
/** How long the shared digest is kept after the last registration (ms): 30 days. */
const SHARED_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** The slash-command registration of one Discord adapter. */
export class DiscordRegistration {
  /** Fingerprint of the last command set registered by this adapter. */
  private registered: string | null = null;

  constructor(private readonly ctx: DiscordContext) {}

  /**
   * Registers skillgate's slash commands with one bulk overwrite (registering twice leaves one set):
   * for `gateway.discord.guild_id` only when it is set, and then skillgate's global commands are removed;
   * globally otherwise, and then skillgate's commands left in a previously configured guild are removed.
   */
  async syncCommands(catalog: CommandCatalogEntry[]): Promise<void> {
    this.ctx.requireToken();
    this.ctx.layout = buildInteractionLayout(catalog);
    this.ctx.layoutRegistered = true;
    await shareLayout(this.ctx);
    const { gateway } = this.ctx.opts.config;
    const locales = menuLocales({
      platformSetting: gateway.platforms.discord?.locale,
      setting: gateway.locale,
    });
    const body = buildApplicationCommands(catalog, locales);
    const names = body.map((command) => command.name);
    const guildId = discordConfig(this.ctx.opts.config).guildId ?? null;
    const fingerprint = JSON.stringify({ guildId, body });
    // Skill changes re-sync the catalog, but Discord's set only names commands: skip identical uploads.
    if (fingerprint === this.registered) return;
    // A replica taking the lead over finds what the previous leader registered: no second bulk overwrite.
    const digest = createHash("sha256").update(fingerprint).digest("hex");
    const shared = this.ctx.hooks?.sharedState;
    if (shared && (await shared.get(SHARED_KEY).catch(() => undefined)) === digest) {
      this.registered = fingerprint;
      this.ctx.log.info("discord commands already registered by the previous leader; not sent again");
      return;
    }
    const rest = this.ctx.client.rest;
    try {
      const applicationId = await this.applicationId();
      const previous = await this.readRegistration();
      if (guildId) {
        await rest.put(Routes.applicationGuildCommands(applicationId, guildId), { body });
        await this.removeCommands(
          Routes.applicationCommands(applicationId),
          (id) => Routes.applicationCommand(applicationId, id),
          [...names, ...(previous?.names ?? [])],
        );
      } else {
        await rest.put(Routes.applicationCommands(applicationId), { body });
      }
      if (previous?.guildId && previous.guildId !== guildId && previous.applicationId === applicationId) {
        const old = previous.guildId;
        await this.removeCommands(
          Routes.applicationGuildCommands(applicationId, old),
          (id) => Routes.applicationGuildCommand(applicationId, old, id),
          [...names, ...previous.names],
        );
      }
      await this.writeRegistration({ applicationId, guildId, names });
      this.registered = fingerprint;
      await shared
        ?.set(SHARED_KEY, digest, { ttlMs: SHARED_TTL_MS })
        .catch((error: unknown) =>
          this.ctx.log.warn({ err: error }, "discord: cannot share the command fingerprint"),
        );
      this.ctx.log.info(
        { count: body.length, scope: guildId ? `guild ${guildId}` : "global" },
        "discord commands registered",
      );
    } catch (error) {
      throw new AdapterError(
        "discord",
        `Registering Discord slash commands failed: ${describe(error)}. Check DISCORD_BOT_TOKEN, gateway.discord.application_id and that the bot was invited with the applications.commands scope.`,
        { cause: error, code: "adapter.discord.commands" },
      );
    }
  }

  private async applicationId(): Promise<string> {
    const configured = discordConfig(this.ctx.opts.config).applicationId;
    if (configured) return configured;
    const known = this.ctx.client.application?.id;
    if (known) return known;
    const app = (await this.ctx.client.rest.get(Routes.currentApplication())) as { id?: string };
    if (!app.id)
      throw new AdapterError(
        "discord",
        "Discord did not say the application id; set gateway.discord.application_id.",
      );
    return app.id;
  }

  /** Deletes the commands at `list` whose names skillgate registers (other bots' commands stay). */
  private async removeCommands(
    list: `/${string}`,
    item: (id: string) => `/${string}`,
    names: string[],
  ): Promise<void> {
    const ours = new Set(names);
    const existing = (await this.ctx.client.rest.get(list)) as { id: string; name: string }[];
    for (const command of existing) {
      if (ours.has(command.name)) await this.ctx.client.rest.delete(item(command.id));
    }
  }

  private registrationFile(): string {
    return path.join(this.ctx.opts.home, "gateway", REGISTRATION_FILE);
  }

  private async readRegistration(): Promise<RegistrationState | null> {
    try {
      const parsed = JSON.parse(
        await fs.readFile(this.registrationFile(), "utf8"),
      ) as Partial<RegistrationState>;
      if (typeof parsed.applicationId !== "string" || !Array.isArray(parsed.names)) return null;
      return {
        applicationId: parsed.applicationId,
        guildId: typeof parsed.guildId === "string" ? parsed.guildId : null,
        names: parsed.names.filter((name): name is string => typeof name === "string"),
      };
    } catch {
      return null;
    }
  }

  private async writeRegistration(state: RegistrationState): Promise<void> {
    await fs.mkdir(path.dirname(this.registrationFile()), { recursive: true });
    await atomicWriteFile(this.registrationFile(), stableJson(state));
  }
}
