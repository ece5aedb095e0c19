import { describe, expect, it } from "vitest";
import {
  buildApplicationCommands,
  buildInteractionLayout,
  commandCharacters,
  commandName,
  DISCORD_LIMITS,
  type DiscordCommandOptionJson,
} from "../../adapters/discord/commands.js";
import type { CommandCatalogEntry } from "../../src/core/message.js";
import { sampleCatalog } from "./catalog.js";

const NAME_RULE = /^[-_\p{L}\p{N}]{1,32}$/u;

function everyOption(options: DiscordCommandOptionJson[] | undefined): DiscordCommandOptionJson[] {
  return (options ?? []).flatMap((option) => [option, ...everyOption(option.options)]);
}

describe("buildApplicationCommands", () => {
  const commands = buildApplicationCommands(sampleCatalog);

  it("registers /curator and /skills with subcommands, plain commands, and /skill last; no per-skill commands", () => {
    expect(commands.map((command) => command.name)).toEqual(["curator", "skills", "help", "whoami", "skill"]);
    const curator = commands[0];
    expect(curator?.options?.every((option) => option.type === 1)).toBe(true);
    expect(curator?.options?.map((option) => option.name)).toContain("list-archived");
    const pin = curator?.options?.find((option) => option.name === "pin");
    expect(pin?.options).toEqual([{ type: 3, name: "skill", description: "the skill", required: true }]);
    const run = curator?.options?.find((option) => option.name === "run");
    expect(run?.options?.map((option) => [option.name, option.type])).toEqual([
      ["dry-run", 5],
      ["consolidate", 5],
      ["background", 5],
    ]);
    const prune = curator?.options?.find((option) => option.name === "prune");
    expect(prune?.options?.find((option) => option.name === "days")?.type).toBe(4);
  });

  it("gives /skill a required autocompleting name and an optional file", () => {
    const skill = commands.at(-1);
    expect(
      skill?.options?.map((option) => [option.name, option.required, option.autocomplete === true]),
    ).toEqual([
      ["name", true, true],
      ["file", false, false],
    ]);
  });

  it("allows every command in guilds and DMs", () => {
    for (const command of commands) expect(command.contexts).toEqual([0, 1]);
  });

  it("keeps required options before optional ones", () => {
    const catalog: CommandCatalogEntry[] = [
      {
        name: "x",
        description: "x",
        subcommands: [
          {
            name: "y",
            description: "y",
            options: [
              { name: "flag", description: "f", required: false, kind: "boolean" },
              { name: "must", description: "m", required: true, kind: "string" },
            ],
          },
        ],
      },
    ];
    const sub = buildApplicationCommands(catalog)[0]?.options?.[0];
    expect(sub?.options?.map((option) => option.name)).toEqual(["must", "flag"]);
  });

  it("keeps names, descriptions, counts and sizes within Discord's limits for a hostile catalog", () => {
    const long = "word ".repeat(80);
    const catalog: CommandCatalogEntry[] = [
      {
        name: "Curator Tools!!",
        description: long,
        subcommands: Array.from({ length: 40 }, (_unused, index) => ({
          name: `Sub Command Number ${index} With A Very Long Name Indeed`,
          description: long,
          options: Array.from({ length: 30 }, (_unused2, option) => ({
            name: `opt_${option}`,
            description: long,
            required: option % 2 === 0,
            kind: "string" as const,
          })),
        })),
      },
      ...Array.from({ length: 150 }, (_unused, index) => ({ name: `cmd${index}`, description: "" })),
      { name: "///", description: "nothing usable in the name" },
    ];
    const built = buildApplicationCommands(catalog);
    expect(built.length).toBeLessThanOrEqual(DISCORD_LIMITS.commands);
    expect(built.at(-1)?.name).toBe("skill");
    expect(new Set(built.map((command) => command.name)).size).toBe(built.length);
    for (const command of built) {
      expect(command.name).toMatch(NAME_RULE);
      expect(command.description.length).toBeGreaterThanOrEqual(1);
      expect(command.description.length).toBeLessThanOrEqual(100);
      expect(command.options?.length ?? 0).toBeLessThanOrEqual(25);
      expect(commandCharacters(command)).toBeLessThanOrEqual(DISCORD_LIMITS.commandCharacters);
      for (const option of everyOption(command.options)) {
        expect(option.name).toMatch(NAME_RULE);
        expect(option.description.length).toBeGreaterThanOrEqual(1);
        expect(option.description.length).toBeLessThanOrEqual(100);
        expect(option.options?.length ?? 0).toBeLessThanOrEqual(25);
      }
    }
  });

  it("is deterministic: the same catalog gives the same set", () => {
    expect(buildApplicationCommands(sampleCatalog)).toEqual(commands);
  });
});

describe("buildInteractionLayout", () => {
  it("lists positional options per subcommand path, honouring positional marks", () => {
    const layout = buildInteractionLayout(sampleCatalog);
    expect(layout.get("curator pin")).toEqual(["skill"]);
    expect(layout.get("curator backup")).toEqual([]);
    expect(layout.get("skills view")).toEqual(["name", "file"]);
    expect(layout.get("skills list")).toEqual([]);
    expect(layout.get("skill")).toEqual(["name", "file"]);
  });
});

describe("commandName", () => {
  it("lower-cases, replaces what Discord refuses, and caps at 32", () => {
    expect(commandName("List Archived")).toBe("list-archived");
    expect(commandName("a".repeat(40))).toHaveLength(32);
    expect(commandName("!!!")).toBeNull();
  });
});
