/**
 * The native command catalog (Telegram menu, Discord slash commands): one entry per top-level command
 * of the registry, with its subcommands and options, plus one entry per skill visible on the platform.
 */
import { effectiveOptions } from "../../commands/parse.js";
import type { CommandSpec } from "../../commands/types.js";
import { list, type Text, t } from "../core/i18n/messages.js";
import type { CommandCatalogEntry } from "../core/message.js";
import { compareNames } from "../core/name-order.js";
import type { SkillEntry } from "../skills/types.js";

const GROUP_SUMMARIES: Record<string, Text> = {
  curator: t("catalog.group.curator"),
  skills: t("catalog.group.skills"),
};

function optionsOf(spec: CommandSpec) {
  const args = (spec.args ?? []).map((arg) => ({
    name: arg.name,
    description: arg.description,
    required: arg.required === true,
    kind: "string" as const,
    // Read by the Discord builder: args are positional, options are flags even when string-valued.
    positional: true,
  }));
  const options = effectiveOptions(spec)
    .filter((option) => option.name !== "json")
    .map((option) => ({
      name: option.name,
      description: option.description,
      required: false,
      kind: option.kind,
      positional: false,
      ...(option.choices
        ? {
            choices: option.choices.map((value) => ({ value, name: option.choiceLabels?.[value] ?? value })),
          }
        : {}),
    }));
  return [...args, ...options];
}

/** Builds the catalog from the registry and the skills visible on one platform. */
export function buildCommandCatalog(
  registry: readonly CommandSpec[],
  skills: readonly SkillEntry[],
): CommandCatalogEntry[] {
  const entries: CommandCatalogEntry[] = [];
  const groups = new Map<string, CommandSpec[]>();
  for (const spec of registry) {
    if (spec.hidden) continue;
    const name = spec.path[0] ?? "";
    groups.set(name, [...(groups.get(name) ?? []), spec]);
  }
  for (const [name, specs] of groups) {
    const single = specs.find((spec) => spec.path.length === 1);
    if (single) {
      entries.push({ name, description: single.summary });
      continue;
    }
    entries.push({
      name,
      description:
        GROUP_SUMMARIES[name] ??
        t("catalog.group.other", { name, subcommands: list(specs.map((spec) => spec.path[1] ?? "")) }),
      subcommands: specs.map((spec) => ({
        name: spec.path[1] ?? "",
        description: spec.summary,
        options: optionsOf(spec),
      })),
    });
  }
  const taken = new Set(entries.map((entry) => entry.name));
  for (const skill of [...skills].sort((a, b) => compareNames(a.name, b.name))) {
    if (taken.has(skill.name)) continue;
    taken.add(skill.name);
    entries.push({
      name: skill.name,
      description: skill.description.replace(/\s+/g, " ").trim().slice(0, 100) || skill.name,
      isSkill: true,
    });
  }
  return entries;
}
