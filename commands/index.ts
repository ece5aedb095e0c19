/**
 * The one command registry. The CLI (commander) and every chat surface are built from these specs, so
 * a command behaves the same in `skillgate curator pin x` and `/curator pin x`.
 */
import { createChatCommands } from "./chat.js";
import { curatorCommands } from "./curator.js";
import { safetyCommands } from "./curator-safety.js";
import { languageCommand } from "./language.js";
import { skillChangesCommand } from "./skill-versions.js";
import { skillsCommands } from "./skills.js";
import { skillsConfigCommands } from "./skills-config.js";
import { skillsHubCommands } from "./skills-hub.js";
import { skillsCompareCommand, skillsOverlapsCommand } from "./skills-overlaps.js";
import { skillsSearchCommand } from "./skills-search.js";
import type { CommandSpec } from "./types.js";

/**
 * Every command, in help order: skills, curator (lifecycle then safety net), a chat's language, then
 * help/whoami/skill.
 */
export const registry: readonly CommandSpec[] = [
  ...skillsCommands,
  skillsSearchCommand,
  skillsOverlapsCommand,
  skillsCompareCommand,
  skillChangesCommand,
  ...skillsConfigCommands,
  ...skillsHubCommands,
  ...curatorCommands,
  ...safetyCommands,
  languageCommand,
  ...createChatCommands(() => registry),
];
