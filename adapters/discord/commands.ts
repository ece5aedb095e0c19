/**
 * Pure builder of skillgate's Discord application commands from the registry catalog: one slash command
 * per chat command (`/curator`, `/skills` with their subcommands and options) plus `/skill`, whose `name`
 * option autocompletes over the skills the caller may see. Names, descriptions and counts are kept within
 * Discord's limits, so a bulk overwrite never fails on validation.
 *
 * Descriptions are written in the default locale with `description_localizations` for `zh-CN` and
 * `zh-TW`, and choices carry `name_localizations` for both (Discord "Localization": the client shows the
 * entry of its own language, the interaction still names the default). The `zh-TW` texts come converted
 * ahead of time (`src/core/i18n/generated/menu.zh-TW.ts`), so registering never starts the converter.
 * Command and option names stay ASCII in every locale, so `/curator status` is typed the same everywhere.
 */
import type { Locale } from "../../src/core/i18n/locale.js";
import { resolveText, type Text, t } from "../../src/core/i18n/messages.js";
import type { CommandCatalogEntry } from "../../src/core/message.js";
import type { InteractionLayout } from "./normalize.js";

/** Discord's limits for application commands. */
export const DISCORD_LIMITS = {
  commands: 100,
  nameLength: 32,
  descriptionLength: 100,
  subcommands: 25,
  options: 25,
  /** Total characters of names, descriptions and choices in one command. */
  commandCharacters: 4000,
} as const;

/** The command that loads a skill; its `name` option autocompletes. */
export const SKILL_COMMAND = "skill";

/** A localization dictionary: Discord locale → text (only locales whose text differs from the default). */
export type LocalizationMap = Partial<Record<string, string>>;

/** One choice of a string option, as the Discord API takes it. */
export interface DiscordChoiceJson {
  name: string;
  name_localizations?: LocalizationMap;
  value: string;
}

/** Application command option, as the Discord API takes it. */
export interface DiscordCommandOptionJson {
  type: number;
  name: string;
  description: string;
  description_localizations?: LocalizationMap;
  required?: boolean;
  autocomplete?: boolean;
  choices?: DiscordChoiceJson[];
  options?: DiscordCommandOptionJson[];
}

/** Application command (CHAT_INPUT), as the Discord API takes it. */
export interface DiscordCommandJson {
  type: 1;
  name: string;
  description: string;
  description_localizations?: LocalizationMap;
  options?: DiscordCommandOptionJson[];
  /** Usable in guilds (0) and in DMs with the bot (1). */
  contexts: number[];
  /** Installed to guilds (0). */
  integration_types: number[];
}

const OPTION_TYPE = { subcommand: 1, string: 3, integer: 4, boolean: 5 } as const;
type CatalogOption = NonNullable<CommandCatalogEntry["subcommands"]>[number]["options"][number];

/**
 * The Discord locale skillgate's Simplified Chinese texts are registered under (Discord Reference,
 * "Locales", https://discord.com/developers/docs/reference#locales: `zh-CN`, "Chinese, China").
 */
export const DISCORD_CHINESE_LOCALE = "zh-CN";

/** The Discord locale of the Traditional Chinese texts (same list: `zh-TW`, "Chinese, Taiwan"). */
export const DISCORD_TRADITIONAL_LOCALE = "zh-TW";

/** The locales commands are written in: the default texts, and the `zh-CN` and `zh-TW` localizations. */
export interface CommandLocales {
  fallback: Locale;
  chinese: Locale;
  traditional: Locale;
}

const DEFAULT_LOCALES: CommandLocales = { fallback: "en", chinese: "zh-CN", traditional: "zh-TW" };

/** The descriptions of `/skill` and its options when the registry has no `skill` command. */
export const SKILL_COMMAND_TEXTS = {
  command: t("discord.skillCommand"),
  name: t("discord.skillCommand.name"),
  file: t("discord.skillCommand.file"),
} as const;

/**
 * A text in the default locale and its `zh-CN` and `zh-TW` localizations, each made valid by `clip`
 * (trimmed to the limit); a localization is left out when it equals the default (Discord ignores those
 * anyway).
 */
function localized(
  text: Text,
  locales: CommandLocales,
  clip: (value: string) => string,
): { text: string; localizations?: LocalizationMap } {
  const base = clip(resolveText(text, locales.fallback));
  const localizations: LocalizationMap = {};
  for (const [discordLocale, locale] of [
    [DISCORD_CHINESE_LOCALE, locales.chinese],
    [DISCORD_TRADITIONAL_LOCALE, locales.traditional],
  ] as const) {
    const translated = clip(resolveText(text, locale));
    if (translated !== base) localizations[discordLocale] = translated;
  }
  return Object.keys(localizations).length === 0 ? { text: base } : { text: base, localizations };
}

/** Builds the full command set for a bulk overwrite: registry commands first, `/skill` always last. */
export function buildApplicationCommands(
  catalog: CommandCatalogEntry[],
  locales: CommandLocales = DEFAULT_LOCALES,
): DiscordCommandJson[] {
  const commands: DiscordCommandJson[] = [];
  const seen = new Set<string>([SKILL_COMMAND]);
  for (const entry of catalog) {
    if (entry.isSkill) continue;
    const name = commandName(entry.name);
    if (!name || seen.has(name) || commands.length >= DISCORD_LIMITS.commands - 1) continue;
    seen.add(name);
    commands.push(fitCommand(commandFromEntry(name, entry, locales)));
  }
  const skillEntry = catalog.find((entry) => !entry.isSkill && entry.name === SKILL_COMMAND);
  commands.push(skillCommand(skillEntry?.description, locales));
  return commands;
}

/**
 * The positional options of each command path, in order, for `normalizeInteraction`. A catalog option
 * is positional when it says so (`positional: true`); without that mark, string options are positional
 * and boolean/integer options are flags.
 */
export function buildInteractionLayout(catalog: CommandCatalogEntry[]): InteractionLayout {
  const layout = new Map<string, string[]>([[SKILL_COMMAND, ["name", "file"]]]);
  for (const entry of catalog) {
    const name = commandName(entry.name);
    if (!name || entry.isSkill || name === SKILL_COMMAND) continue;
    for (const sub of entry.subcommands ?? []) {
      const subName = commandName(sub.name);
      if (!subName) continue;
      const positionals = sub.options.filter(isPositional).map((option) => commandName(option.name));
      layout.set(
        `${name} ${subName}`,
        positionals.filter((option): option is string => option !== null),
      );
    }
  }
  return layout;
}

/** Lower-cases and replaces what Discord does not accept in a name; null when nothing is left. */
export function commandName(raw: string): string | null {
  const name = raw
    .toLowerCase()
    .replace(/[^-_\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, DISCORD_LIMITS.nameLength);
  return name.length > 0 ? name : null;
}

/**
 * Trims a description to Discord's 1–100 characters, never empty. Discord shows a command's and an
 * option's description as plain text (no markdown: a code span's backticks would show literally), so
 * backticks are dropped.
 */
export function commandDescription(
  raw: string,
  fallback: string,
  max: number = DISCORD_LIMITS.descriptionLength,
): string {
  const text = raw.replaceAll("`", "").replace(/\s+/g, " ").trim() || fallback;
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

/**
 * Characters Discord counts against the per-command budget: names, descriptions and choices, each field
 * by its longest text among the default and its localizations (Discord: "only the longest localization
 * for each field (including the default value) is counted towards the size limit").
 */
export function commandCharacters(command: {
  name: string;
  description: string;
  description_localizations?: LocalizationMap;
  choices?: DiscordChoiceJson[];
  options?: DiscordCommandOptionJson[];
}): number {
  let total = command.name.length + longest(command.description, command.description_localizations);
  for (const choice of command.choices ?? [])
    total += longest(choice.name, choice.name_localizations) + choice.value.length;
  for (const option of command.options ?? []) total += commandCharacters(option);
  return total;
}

function longest(base: string, localizations: LocalizationMap | undefined): number {
  return Math.max(base.length, ...Object.values(localizations ?? {}).map((text) => text?.length ?? 0));
}

function isPositional(option: CatalogOption): boolean {
  const mark = (option as { positional?: unknown }).positional;
  return typeof mark === "boolean" ? mark : option.kind === "string";
}

/** `description` and `description_localizations` of a text, each within Discord's 1–100 characters. */
function describe(
  text: Text,
  fallback: string,
  locales: CommandLocales,
  max: number = DISCORD_LIMITS.descriptionLength,
): { description: string; description_localizations?: LocalizationMap } {
  const { text: description, localizations } = localized(text, locales, (value) =>
    commandDescription(value, fallback, max),
  );
  return localizations ? { description, description_localizations: localizations } : { description };
}

function commandFromEntry(
  name: string,
  entry: CommandCatalogEntry,
  locales: CommandLocales,
): DiscordCommandJson {
  const command: DiscordCommandJson = {
    type: 1,
    name,
    ...describe(entry.description, name, locales),
    contexts: [0, 1],
    integration_types: [0],
  };
  const subcommands = subcommandOptions(entry, locales);
  if (subcommands.length > 0) command.options = subcommands;
  return command;
}

function subcommandOptions(entry: CommandCatalogEntry, locales: CommandLocales): DiscordCommandOptionJson[] {
  const result: DiscordCommandOptionJson[] = [];
  const seen = new Set<string>();
  for (const sub of entry.subcommands ?? []) {
    const name = commandName(sub.name);
    if (!name || seen.has(name) || result.length >= DISCORD_LIMITS.subcommands) continue;
    seen.add(name);
    const options = leafOptions(sub.options, locales);
    result.push({
      type: OPTION_TYPE.subcommand,
      name,
      ...describe(sub.description, name, locales),
      ...(options.length > 0 ? { options } : {}),
    });
  }
  return result;
}

/** Leaf options, required ones first (Discord rejects a required option after an optional one). */
function leafOptions(options: CatalogOption[], locales: CommandLocales): DiscordCommandOptionJson[] {
  const result: DiscordCommandOptionJson[] = [];
  const seen = new Set<string>();
  for (const option of options) {
    const name = commandName(option.name);
    if (!name || seen.has(name) || result.length >= DISCORD_LIMITS.options) continue;
    seen.add(name);
    const choices = option.kind === "string" ? optionChoices(option, locales) : [];
    result.push({
      type: OPTION_TYPE[option.kind],
      name,
      ...describe(option.description, name, locales),
      required: option.required,
      ...(choices.length > 0 ? { choices } : {}),
    });
  }
  return [...result.filter((option) => option.required), ...result.filter((option) => !option.required)];
}

/** Choices of a string option (at most 25, each name 1–100 characters, values as the command takes them). */
function optionChoices(option: CatalogOption, locales: CommandLocales): DiscordChoiceJson[] {
  return (option.choices ?? []).slice(0, DISCORD_LIMITS.options).map((choice) => {
    const { text, localizations } = localized(choice.name, locales, (value) =>
      commandDescription(value, choice.value),
    );
    return localizations
      ? { name: text, name_localizations: localizations, value: choice.value }
      : { name: text, value: choice.value };
  });
}

function skillCommand(description: Text | undefined, locales: CommandLocales): DiscordCommandJson {
  return {
    type: 1,
    name: SKILL_COMMAND,
    ...describe(description ?? SKILL_COMMAND_TEXTS.command, SKILL_COMMAND, locales),
    contexts: [0, 1],
    integration_types: [0],
    options: [
      {
        type: OPTION_TYPE.string,
        name: "name",
        ...describe(SKILL_COMMAND_TEXTS.name, "name", locales),
        required: true,
        autocomplete: true,
      },
      {
        type: OPTION_TYPE.string,
        name: "file",
        ...describe(SKILL_COMMAND_TEXTS.file, "file", locales),
        required: false,
      },
    ],
  };
}

/**
 * Shortens nested descriptions until the command fits Discord's per-command character budget; when
 * even one-character descriptions are too much, the last subcommands are left out.
 */
function fitCommand(command: DiscordCommandJson): DiscordCommandJson {
  const fits = (): boolean => commandCharacters(command) <= DISCORD_LIMITS.commandCharacters;
  for (const max of [60, 40, 20, 1]) {
    if (fits()) return command;
    command.options = command.options?.map((option) => shorten(option, max));
  }
  while (!fits() && command.options && command.options.length > 0)
    command.options = command.options.slice(0, -1);
  return command;
}

function shorten(option: DiscordCommandOptionJson, max: number): DiscordCommandOptionJson {
  const localizations = option.description_localizations;
  return {
    ...option,
    description: commandDescription(option.description, option.name, max),
    ...(localizations
      ? {
          description_localizations: Object.fromEntries(
            Object.entries(localizations).map(([locale, text]) => [
              locale,
              commandDescription(text ?? "", option.name, max),
            ]),
          ),
        }
      : {}),
    ...(option.options ? { options: option.options.map((child) => shorten(child, max)) } : {}),
  };
}
