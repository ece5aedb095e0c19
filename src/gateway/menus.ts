/**
 * What each platform offers as commands: the native command menus, rebuilt from the registry and the
 * skills visible on that platform and synced only when they changed, and the skill names suggested while
 * a person types (autocomplete). Both pass through the scrubber and fail closed: a broken visibility
 * config hides every skill rather than showing all.
 *
 * With several replicas the leader publishes each platform's suggestible names to the shared state when
 * it syncs the menus, and a replica that does not lead answers autocomplete from there (a Discord
 * interaction may reach any replica and must be answered within 3 s).
 */
import { createHash } from "node:crypto";
import type { CommandSpec } from "../../commands/types.js";
import type { SkillgateConfig } from "../config/config.js";
import { roleOf } from "../core/access.js";
import type { Logger } from "../core/logger.js";
import type { Adapter, AdapterState } from "../core/message.js";
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
  /** Several replicas: where the leader publishes the suggestible names, and whether this one leads. */
  shared?: { state: AdapterState; leading: () => boolean };
}

/** How long a published suggestion list is kept (ms); every menu sync of the leader refreshes it. */
const PUBLISHED_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** How long a replica reuses the published list it read (ms). */
const PUBLISHED_CACHE_MS = 2_000;

/** The native command menus of every adapter, and the skill suggestions while typing. */
export class CommandMenus {
  /**
   * Per adapter, a digest of the catalog it was last synced with: an unchanged one is not sent again.
   * A digest, not the catalog's JSON, which at 10k skills is ~1 MB per adapter kept for good.
   */
  private readonly synced = new Map<Adapter, string>();
  /** The config in force when the menus were last synced; a newer one (an edit) triggers a resync. */
  private syncedConfig: SkillgateConfig | undefined;

  /** The published lists read lately (replicas that do not lead), per platform. */
  private readonly published = new Map<string, { names: string[]; at: number }>();

  constructor(private readonly options: CommandMenusOptions) {}

  /** Rebuilds each adapter's native command catalog and syncs it when it changed. */
  async sync(): Promise<void> {
    const { adapters, library, registry, scrubber, logger } = this.options;
    this.syncedConfig = library.currentConfig();
    for (const adapter of adapters) {
      const visible = await this.visibleOn(adapter.platform);
      await this.publish(adapter.platform, visible);
      if (!adapter.syncCommands) continue;
      const catalog = scrubber.catalog(buildCommandCatalog(registry, visible));
      const fingerprint = createHash("sha256").update(JSON.stringify(catalog)).digest("base64");
      if (this.synced.get(adapter) === fingerprint) continue;
      try {
        await adapter.syncCommands(catalog);
        this.synced.set(adapter, fingerprint);
      } catch (error) {
        logger.warn({ err: error, platform: adapter.platform }, "gateway: command menu sync failed");
      }
    }
  }

  /** The leader of several replicas publishes the names suggestible on `platform`. */
  private async publish(platform: string, visible: SkillEntry[]): Promise<void> {
    const shared = this.options.shared;
    if (!shared?.leading()) return;
    const names = this.suggestible(visible);
    try {
      await shared.state.set(`suggestions:${platform}`, JSON.stringify(names), { ttlMs: PUBLISHED_TTL_MS });
    } catch (error) {
      this.options.logger.warn({ err: error, platform }, "gateway: publishing the skill suggestions failed");
    }
  }

  /** The names published by the leader for `platform`, or undefined when none could be read. */
  private async readPublished(platform: string): Promise<string[] | undefined> {
    const cached = this.published.get(platform);
    if (cached && Date.now() - cached.at < PUBLISHED_CACHE_MS) return cached.names;
    try {
      const text = await this.options.shared?.state.get(`suggestions:${platform}`);
      if (text === undefined) return undefined;
      const names = JSON.parse(text) as unknown;
      if (!Array.isArray(names) || !names.every((name) => typeof name === "string")) return undefined;
      this.published.set(platform, { names, at: Date.now() });
      return names;
    } catch {
      return undefined;
    }
  }

  /** Names of `skills` that may be suggested (never one that holds a secret), sorted. */
  private suggestible(skills: SkillEntry[]): string[] {
    return skills
      .map((skill) => skill.name)
      .filter((name) => !this.options.scrubber.holdsSecret(name))
      .sort();
  }

  /** config.yaml changed since the menus were synced (an edit from chat, the CLI or by hand). */
  configChanged(): boolean {
    return this.options.library.currentConfig() !== this.syncedConfig;
  }

  /** Visible skill names on `platform` starting with `prefix` (`_` and `-` alike); none for strangers. */
  async suggestSkills(platform: string, senderId: string, prefix: string): Promise<string[]> {
    const { config, library, shared } = this.options;
    if (roleOf(config, platform, senderId) === "stranger") return [];
    let names: string[] | undefined;
    // A replica that does not lead answers from the leader's list, read from the shared state.
    if (shared && !shared.leading()) names = await this.readPublished(platform);
    if (names === undefined) {
      try {
        names = this.suggestible(await library.visible(platform));
      } catch {
        return [];
      }
    }
    const wanted = prefix.toLowerCase().replace(/_/g, "-");
    return names
      .filter((name) => name.toLowerCase().replace(/_/g, "-").startsWith(wanted))
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
