/** A catalog shaped like the registry's, for the Discord unit tests (positional marks included). */
import type { CommandCatalogEntry } from "../../src/core/message.js";
import type { DiscordEmulator, EmulatorUser } from "../emulators/discord.js";

type Option = {
  name: string;
  description: string;
  required: boolean;
  kind: "string" | "boolean" | "integer";
  positional?: boolean;
};
const arg = (name: string, required = true): Option => ({
  name,
  description: `the ${name}`,
  required,
  kind: "string",
  positional: true,
});
const flag = (name: string, kind: Option["kind"] = "boolean"): Option => ({
  name,
  description: `--${name}`,
  required: false,
  kind,
  positional: false,
});

/** `/curator`, `/skills`, `/help`, `/whoami` and two skills. */
export const sampleCatalog: CommandCatalogEntry[] = [
  {
    name: "curator",
    description: "Skill curator: status, runs, pins, archive and restore",
    subcommands: [
      { name: "status", description: "Show the curator's state", options: [] },
      {
        name: "run",
        description: "Run the curator now",
        options: [flag("dry-run"), flag("consolidate"), flag("background")],
      },
      { name: "pause", description: "Pause automatic runs", options: [] },
      { name: "pin", description: "Pin a skill", options: [arg("skill")] },
      { name: "unpin", description: "Unpin a skill", options: [arg("skill")] },
      {
        name: "adopt",
        description: "Adopt unmanaged skills",
        options: [arg("skill", false), flag("all-unmanaged"), flag("dry-run"), flag("yes")],
      },
      {
        name: "prune",
        description: "Prune archived skills",
        options: [flag("days", "integer"), flag("dry-run"), flag("yes")],
      },
      { name: "backup", description: "Take a snapshot", options: [flag("reason", "string")] },
      { name: "list-archived", description: "List archived skills", options: [] },
    ],
  },
  {
    name: "skills",
    description: "List and view skills",
    subcommands: [
      {
        name: "list",
        description: "List skills",
        options: [flag("category", "string"), flag("platform", "string")],
      },
      { name: "view", description: "Show a skill", options: [arg("name"), arg("file", false)] },
    ],
  },
  { name: "help", description: "Show the commands" },
  { name: "whoami", description: "Show who you are and what you may run" },
  { name: "pdf-tools", description: "PDF tools", isSkill: true },
  { name: "arxiv", description: "Search arXiv", isSkill: true },
];

/** The gateway's skill suggestions as the adapter tests fake them: the test skills starting with `prefix`. */
export async function suggestTestSkills(_sender: string, prefix: string): Promise<string[]> {
  return ["pdf-tools", "pdf-forms", "arxiv"].filter((name) => name.startsWith(prefix));
}

/** `user` types "pdf" into `/skill`'s name in a guild channel; resolves with the choices Discord shows. */
export function autocompletePdf(
  emulator: DiscordEmulator,
  user: EmulatorUser,
  where: { guildId: string; channelId: string },
) {
  return emulator.autocomplete({ user, ...where, name: "skill", options: { name: "pdf" }, focused: "name" });
}
