/**
 * What each platform offers as commands: the native command menus, rebuilt from the registry and the
 * skills visible on that platform and synced only when they changed, and the skill names suggested while
 * a person types (autocomplete). Both pass through the scrubber and fail closed: a broken visibility
 * config hides every skill rather than showing all.
 */
import type { CommandSpec } from "../../commands/types.js";
import type { SkillgateConfig } from "../config/config.js";
import { roleOf } from "../core/access.js";
import type { Logger } from "../core/logger.js";
import type { Adapter } from "../core/message.js";
import type { ManagedSkillLibrary } from "../skills/library.js";
import type { SkillEntry } from "../skills/types.js";
import { buildCommandCatalog } from "./catalog.js";
import type { OutboundScrubber } from "./scrub.js";

/** At most this many skill names are suggested (Discord's autocomplete limit, the smallest). */
const SUGGESTION_LIMIT = 25;

/** What the menus need from the gateway. */
export interface CommandMenusOptions {
  config: SkillgateConfig;
  adapters: readonly Adapter[];
  library: ManagedSkillLibrary;
  registry: readonly CommandSpec[];
  scrubber: OutboundScrubber;
  logger: Logger;
}

/** The native command menus of every adapter, and the skill suggestions while typing. */
export class CommandMenus {
  /** Per adapter, the catalog it was last synced with (as JSON): an unchanged one is not sent again. */
  private readonly synced = new Map<Adapter, string>();
  /** The config in force when the menus were last synced; a newer one (an edit) triggers a resync. */
  private syncedConfig: SkillgateConfig | undefined;

  constructor(private readonly options: CommandMenusOptions) {}

  /** Rebuilds each adapter's native command catalog and syncs it when it changed. */
  async sync(): Promise<void> {
    const { adapters, library, registry, scrubber, logger } = this.options;
    this.syncedConfig = library.currentConfig();
    for (const adapter of adapters) {
      if (!adapter.syncCommands) continue;
      const catalog = scrubber.catalog(buildCommandCatalog(registry, await this.visibleOn(adapter.platform)));
      const fingerprint = JSON.stringify(catalog);
      if (this.synced.get(adapter) === fingerprint) continue;
      try {
        await adapter.syncCommands(catalog);
        this.synced.set(adapter, fingerprint);
      } catch (error) {
        logger.warn({ err: error, platform: adapter.platform }, "gateway: command menu sync failed");
      }
    }
  }

  /** config.yaml changed since the menus were synced (an edit from chat, the CLI or by hand). */
  configChanged(): boolean {
    return this.options.library.currentConfig() !== this.syncedConfig;
  }

  /** Visible skill names on `platform` starting with `prefix` (`_` and `-` alike); none for strangers. */
  async suggestSkills(platform: string, senderId: string, prefix: string): Promise<string[]> {
    const { config, library, scrubber } = this.options;
    if (roleOf(config, platform, senderId) === "stranger") return [];
    let skills: SkillEntry[];
    try {
      skills = await library.visible(platform);
    } catch {
      return [];
    }
    const wanted = prefix.toLowerCase().replace(/_/g, "-");
    return skills
      .map((skill) => skill.name)
      .filter((name) => !scrubber.holdsSecret(name))
      .filter((name) => name.toLowerCase().replace(/_/g, "-").startsWith(wanted))
      .sort()
      .slice(0, SUGGESTION_LIMIT);
  }

  private async visibleOn(platform: string): Promise<SkillEntry[]> {
    try {
      return await this.options.library.visible(platform);
    } catch (error) {
      // Fail closed: a broken visibility config hides every skill from the menus.
      this.options.logger.warn({ err: error, platform }, "gateway: skills hidden from the menu");
      return [];
    }
  }
}
