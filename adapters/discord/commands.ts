/**
 * Pure builder of skillgate's Discord application commands from the registry catalog: one slash command
 * per chat command (`/curator`, `/skills` with their subcommands and options) plus `/skill`, whose `name`
 * option autocompletes over the skills the caller may see. Names, descriptions and counts are kept within
 * Discord's limits, so a bulk overwrite never fails on validation.
 */
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

/** Application command option, as the Discord API takes it. */
export interface DiscordCommandOptionJson {
  type: number;
  name: string;
  description: string;
  required?: boolean;
  autocomplete?: boolean;
  options?: DiscordCommandOptionJson[];
}

/** Application command (CHAT_INPUT), as the Discord API takes it. */
export interface DiscordCommandJson {
  type: 1;
  name: string;
  description: string;
  options?: DiscordCommandOptionJson[];
  /** Usable in guilds (0) and in DMs with the bot (1). */
  contexts: number[];
  /** Installed to guilds (0). */
  integration_types: number[];
}

const OPTION_TYPE = { subcommand: 1, string: 3, integer: 4, boolean: 5 } as const;
type CatalogOption = NonNullable<CommandCatalogEntry["subcommands"]>[number]["options"][number];

/** Builds the full command set for a bulk overwrite: registry commands first, `/skill` always last. */
export function buildApplicationCommands(catalog: CommandCatalogEntry[]): DiscordCommandJson[] {
  const commands: DiscordCommandJson[] = [];
  const seen = new Set<string>([SKILL_COMMAND]);
  for (const entry of catalog) {
    if (entry.isSkill) continue;
    const name = commandName(entry.name);
    if (!name || seen.has(name) || commands.length >= DISCORD_LIMITS.commands - 1) continue;
    seen.add(name);
    commands.push(fitCommand(commandFromEntry(name, entry)));
  }
  const skillEntry = catalog.find((entry) => !entry.isSkill && entry.name === SKILL_COMMAND);
  commands.push(skillCommand(skillEntry?.description));
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

/** Trims a description to Discord's 1–100 characters, never empty. */
export function commandDescription(
  raw: string,
  fallback: string,
  max: number = DISCORD_LIMITS.descriptionLength,
): string {
  const text = raw.replace(/\s+/g, " ").trim() || fallback;
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

/** Characters Discord counts against the per-command budget. */
export function commandCharacters(command: {
  name: string;
  description: string;
  options?: DiscordCommandOptionJson[];
}): number {
  let total = command.name.length + command.description.length;
  for (const option of command.options ?? []) total += commandCharacters(option);
  return total;
}

function isPositional(option: CatalogOption): boolean {
  const mark = (option as { positional?: unknown }).positional;
  return typeof mark === "boolean" ? mark : option.kind === "string";
}

function commandFromEntry(name: string, entry: CommandCatalogEntry): DiscordCommandJson {
  const command: DiscordCommandJson = {
    type: 1,
    name,
    description: commandDescription(entry.description, name),
    contexts: [0, 1],
    integration_types: [0],
  };
  const subcommands = subcommandOptions(entry);
  if (subcommands.length > 0) command.options = subcommands;
  return command;
}

function subcommandOptions(entry: CommandCatalogEntry): DiscordCommandOptionJson[] {
  const result: DiscordCommandOptionJson[] = [];
  const seen = new Set<string>();
  for (const sub of entry.subcommands ?? []) {
    const name = commandName(sub.name);
    if (!name || seen.has(name) || result.length >= DISCORD_LIMITS.subcommands) continue;
    seen.add(name);
    const options = leafOptions(sub.options);
    result.push({
      type: OPTION_TYPE.subcommand,
      name,
      description: commandDescription(sub.description, name),
      ...(options.length > 0 ? { options } : {}),
    });
  }
  return result;
}

/** Leaf options, required ones first (Discord rejects a required option after an optional one). */
function leafOptions(options: CatalogOption[]): DiscordCommandOptionJson[] {
  const result: DiscordCommandOptionJson[] = [];
  const seen = new Set<string>();
  for (const option of options) {
    const name = commandName(option.name);
    if (!name || seen.has(name) || result.length >= DISCORD_LIMITS.options) continue;
    seen.add(name);
    result.push({
      type: OPTION_TYPE[option.kind],
      name,
      description: commandDescription(option.description, name),
      required: option.required,
    });
  }
  return [...result.filter((option) => option.required), ...result.filter((option) => !option.required)];
}

function skillCommand(description: string | undefined): DiscordCommandJson {
  return {
    type: 1,
    name: SKILL_COMMAND,
    description: commandDescription(description ?? "", "Load a skill, or show one of its files"),
    contexts: [0, 1],
    integration_types: [0],
    options: [
      {
        type: OPTION_TYPE.string,
        name: "name",
        description: "Skill name",
        required: true,
        autocomplete: true,
      },
      {
        type: OPTION_TYPE.string,
        name: "file",
        description: "A file inside the skill (optional)",
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
  return {
    ...option,
    description: commandDescription(option.description, option.name, max),
    ...(option.options ? { options: option.options.map((child) => shorten(child, max)) } : {}),
  };
}
