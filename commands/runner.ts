/**
 * Runs one command of the registry on any surface: re-checks access in chat at execution time,
 * handles confirmations (terminal prompt, refusal without a terminal, "repeat with -y" in chat) and
 * turns every error into a `Reply` with the right exit code. Commands themselves never print.
 */

import { roleOf } from "../src/core/access.js";
import { SkillgateError } from "../src/core/errors.js";
import { errorReply, type Reply } from "../src/core/reply.js";
import { formatCommandLine, parseCommandInput } from "./parse.js";
import type { CommandContext, CommandInput, CommandSpec } from "./types.js";

/** Commands every admitted chat member may run, whatever the access lists say. */
const ALWAYS_OPEN = new Set(["help", "whoami"]);

/** Options of `runCommand`. */
export interface RunOptions {
  /** Called with an unexpected (non-skillgate) error before it becomes a short reply; log its stack here. */
  onUnexpected?: (error: unknown, spec: CommandSpec) => void;
}

/** Whether running `spec` with `input` changes anything (unknown input: the spec's static flag). */
export function isMutating(spec: CommandSpec, input?: CommandInput): boolean {
  return input && spec.mutatesFor ? spec.mutatesFor(input) : spec.mutating;
}

/** A refusal when the chat caller may not run `spec`; null when allowed (terminal callers always are). */
export function accessRefusal(spec: CommandSpec, ctx: CommandContext, input?: CommandInput): Reply | null {
  if (ctx.surface !== "chat") return null;
  const caller = ctx.caller;
  const command = ctx.commandPrefix(spec.path);
  if (!caller) return errorReply(`⛔ \`${command}\` needs a known sender; this message had none.`);
  if (caller.isAdmin) return null;
  const who = `${caller.platform}:${caller.id}`;
  if (isMutating(spec, input)) {
    return errorReply(
      `⛔ \`${command}\` changes the skill library, so it is for admins only. Your id is \`${who}\`; ask the owner to add it to gateway.admins if you should have this right.`,
    );
  }
  if (ALWAYS_OPEN.has(spec.path[0] ?? "")) return null;
  if (roleOf(ctx.config, caller.platform, caller.id, ctx.chatId) === "stranger") {
    return errorReply(
      `⛔ You are not on this gateway's allowed list. Your id is \`${who}\`; ask the owner to add it to gateway.allowed_users.`,
    );
  }
  return null;
}

async function confirmation(
  spec: CommandSpec,
  ctx: CommandContext,
  input: CommandInput,
): Promise<Reply | null> {
  if (!spec.confirm || input.options.yes === true) return null;
  const question = await spec.confirm(ctx, input);
  if (!question) return null;
  const again = formatCommandLine(spec, input, ctx.commandPrefix, ["-y"]);
  const json = { ok: false, confirmation_required: true, question, command: again };
  if (ctx.surface === "chat") {
    return errorReply(`${question}\nReply \`${again}\` to confirm.`, 1, json);
  }
  if (!ctx.interactive || !ctx.prompt) {
    return errorReply(
      `${question}\nThere is no terminal to confirm on, so nothing was changed. Re-run with -y to proceed: ${again}`,
      1,
      json,
    );
  }
  const answer = await ctx.prompt(`${question} [y/N] `);
  if (/^\s*y(es)?\s*$/i.test(answer)) return null;
  return errorReply("Cancelled; nothing was changed.", 1, { ok: false, cancelled: true });
}

/** The reply for an error thrown while running `spec`. */
export function errorToReply(
  error: unknown,
  spec: CommandSpec,
  ctx: CommandContext,
  options: RunOptions = {},
): Reply {
  if (error instanceof SkillgateError) {
    return errorReply(error.message, error.exitCode, { ok: false, error: error.message, code: error.code });
  }
  options.onUnexpected?.(error, spec);
  const detail = error instanceof Error ? error.message : String(error);
  return errorReply(
    `\`${ctx.commandPrefix(spec.path)}\` failed unexpectedly: ${detail}. Nothing more is known here; check the logs and try again.`,
    1,
  );
}

/**
 * Runs `spec` with parsed `input`: access check (chat), confirmation, then `spec.run`. Never throws:
 * skillgate errors become replies with their exit code, anything else a short exit-1 reply.
 */
export async function runCommand(
  spec: CommandSpec,
  ctx: CommandContext,
  input: CommandInput,
  options: RunOptions = {},
): Promise<Reply> {
  try {
    const refused = accessRefusal(spec, ctx, input);
    if (refused) return refused;
    const asked = await confirmation(spec, ctx, input);
    if (asked) return asked;
    return await spec.run(ctx, input);
  } catch (error) {
    return errorToReply(error, spec, ctx, options);
  }
}

/** Parses `words` against `spec` (bad usage → exit-2 reply with the usage line) and runs it. */
export async function parseAndRun(
  spec: CommandSpec,
  ctx: CommandContext,
  words: string[],
  options: RunOptions = {},
): Promise<Reply> {
  const refused = accessRefusal(spec, ctx);
  if (refused) return refused;
  let input: CommandInput;
  try {
    input = parseCommandInput(spec, words, ctx.commandPrefix);
  } catch (error) {
    return errorToReply(error, spec, ctx, options);
  }
  return runCommand(spec, { ...ctx, json: ctx.json || input.options.json === true }, input, options);
}
