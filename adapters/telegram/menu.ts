/**
 * The Telegram command menu built from the command catalog, in one locale. Pure. Telegram accepts at
 * most 100 entries, names matching `[a-z0-9_]{1,32}` and descriptions of 1–256 characters; anything
 * else makes `setMyCommands` fail as a whole, so every entry is made valid here (descriptions measured
 * in the locale they are sent in). Registry commands come first, skills after, and on a name collision
 * the earlier entry wins. Names are the same in every locale.
 */
import { type Locale, type LocaleSetting, menuLocales } from "../../src/core/i18n/locale.js";
import { resolveText, t } from "../../src/core/i18n/messages.js";
import type { CommandCatalogEntry } from "../../src/core/message.js";

/** Most entries Telegram accepts in one menu. */
export const TELEGRAM_MENU_MAX = 100;

/** One menu entry as `setMyCommands` takes it. */
export interface MenuCommand {
  command: string;
  description: string;
}

/** A skill or command name as a Telegram command: lower case, `-` and other signs → `_`, ≤ 32 chars. */
export function telegramCommandName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, "_")
    .slice(0, 32);
}

function telegramDescription(entry: CommandCatalogEntry, locale: Locale): string {
  const text =
    resolveText(entry.description, locale).replace(/\s+/g, " ").trim() ||
    (entry.isSkill ? resolveText(t("menu.loadSkill", { name: entry.name }), locale) : entry.name);
  return text.length <= 256 ? text : `${text.slice(0, 255).replace(/[\uD800-\uDBFF]$/, "")}…`;
}

/** A built menu: its entries, of which the first `registryCount` are registry commands. */
export interface CommandMenu {
  commands: MenuCommand[];
  registryCount: number;
}

/**
 * The menu for `catalog` in `locale`: registry commands first, then skills, valid names only, deduped,
 * capped.
 */
export function buildCommandMenu(
  catalog: CommandCatalogEntry[],
  locale: Locale = "en",
  max = TELEGRAM_MENU_MAX,
): CommandMenu {
  const ordered = [...catalog.filter((entry) => !entry.isSkill), ...catalog.filter((entry) => entry.isSkill)];
  const commands: MenuCommand[] = [];
  const seen = new Set<string>();
  let registryCount = 0;
  for (const entry of ordered) {
    const command = telegramCommandName(entry.name);
    if (!/^[a-z0-9_]{1,32}$/.test(command) || /^_+$/.test(command) || seen.has(command)) continue;
    seen.add(command);
    commands.push({ command, description: telegramDescription(entry, locale) });
    if (!entry.isSkill) registryCount += 1;
    if (commands.length >= max) break;
  }
  return { commands, registryCount };
}

/** One `setMyCommands` call to make: the menu's locale and the `language_code` it is for ("" = default). */
export interface MenuLanguage {
  locale: Locale;
  languageCode: "" | "zh";
}

/**
 * The menus to register: the default one (every user without a menu of their language) and one for
 * `language_code: "zh"` (Bot API `setMyCommands`: "A two-letter ISO 639-1 language code. If empty,
 * commands will be applied to all users from the given scope, for whose language there are no dedicated
 * commands"). Both follow `gateway.telegram.locale` / `gateway.locale` when one is set.
 */
export function menuLanguages(settings: {
  platform?: LocaleSetting;
  gateway?: LocaleSetting;
}): MenuLanguage[] {
  const { fallback, chinese } = menuLocales({
    platformSetting: settings.platform,
    setting: settings.gateway,
  });
  return [
    { locale: fallback, languageCode: "" },
    { locale: chinese, languageCode: "zh" },
  ];
}

/**
 * Smaller menus to try when Telegram refuses one (the description payload has a budget well below
 * 100 entries): halve the skills each time, down to the registry commands alone. Never an empty menu.
 */
export function fallbackMenus(menu: CommandMenu): MenuCommand[][] {
  const { commands, registryCount } = menu;
  const attempts: MenuCommand[][] = [commands];
  let skills = commands.length - registryCount;
  while (skills > 0) {
    skills = Math.floor(skills / 2);
    attempts.push(commands.slice(0, registryCount + skills));
  }
  return attempts.filter((attempt) => attempt.length > 0);
}
