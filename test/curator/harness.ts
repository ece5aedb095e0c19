/** Library-backed fixtures for the curator tests: a fresh library per home and a CLI-style command runner. */
import { terminalContext } from "../../commands/context.js";
import { curatorCommands } from "../../commands/curator.js";
import { parseAndRun } from "../../commands/runner.js";
import type { CommandContext } from "../../commands/types.js";
import type { SkillgateConfig } from "../../src/config/config.js";
import { type Reply, replyToPlainText } from "../../src/core/reply.js";
import { openLibrary } from "../../src/skills/library.js";
import type { SkillLibrary } from "../../src/skills/types.js";

/** A fresh library for `home` (no cache carried between homes). */
export function libraryFor(home: string, config: SkillgateConfig): SkillLibrary {
  const library = openLibrary(home, config, { watch: false });
  library.invalidate();
  return library;
}

/** Runs `skillgate curator <words…>` against `home` the way the CLI does; returns the reply and its text. */
export async function runCli(
  home: string,
  config: SkillgateConfig,
  words: string[],
  options: {
    now?: Date;
    answer?: string;
    library?: SkillLibrary;
    chat?: boolean;
    /** Answer as this surface (default the terminal). */
    surface?: CommandContext["surface"];
  } = {},
): Promise<{ reply: Reply; text: string }> {
  const [sub, ...rest] = words;
  const spec = curatorCommands.find((candidate) => candidate.path[1] === sub);
  if (!spec) throw new Error(`no curator command ${sub}`);
  const base = terminalContext({
    home,
    config,
    library: options.library ?? libraryFor(home, config),
    now: () => options.now ?? new Date(),
    interactive: options.answer !== undefined,
    prompt: options.answer !== undefined ? async () => options.answer ?? "" : undefined,
  });
  const spelled: CommandContext = options.chat ? { ...base, commandPrefix: (p) => `/${p.join(" ")}` } : base;
  // Another surface answers a known, allowed sender (an admin), as the gateway's context would carry.
  const ctx: CommandContext = options.surface
    ? {
        ...spelled,
        surface: options.surface,
        caller: { platform: "telegram", id: "1", name: "admin", isAdmin: true },
      }
    : spelled;
  const reply = await parseAndRun(spec, ctx, rest);
  return { reply, text: replyToPlainText(reply) };
}
