/**
 * Runs one command of the registry on any surface: re-checks access in chat at execution time,
 * handles confirmations (terminal prompt, refusal without a terminal, "repeat with -y" in chat) and
 * turns every error into a `Reply` with the right exit code. Commands themselves never print.
 */

import { roleOf } from "../src/core/access.js";
import { cancelAction, invocation, runAction } from "../src/core/actions.js";
import { errorCause, SkillgateError } from "../src/core/errors.js";
import { english, type Text, t } from "../src/core/i18n/messages.js";
import { errorReply, type Reply, replyToPlainText, withWarnings } from "../src/core/reply.js";
import { takeUsageWarnings } from "../src/skills/usage.js";
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
  if (ctx.surface === "terminal") return null;
  const caller = ctx.caller;
  const command = ctx.commandPrefix(spec.path);
  if (!caller) return errorReply(t("access.needsSender", { command }));
  if (caller.isAdmin) return null;
  const who = `${caller.platform}:${caller.id}`;
  if (isMutating(spec, input)) {
    return errorReply(t("access.adminsOnly", { command, who }));
  }
  if (ALWAYS_OPEN.has(spec.path[0] ?? "")) return null;
  // A web console login was checked by the console itself; read-only logins may run read-only commands.
  if (ctx.surface === "web") return null;
  if (roleOf(ctx.config, caller.platform, caller.id, ctx.chatId) === "stranger") {
    return errorReply(t("access.notAllowed", { who }));
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
  const json = { ok: false, confirmation_required: true, question: english(question), command: again };
  if (ctx.surface === "web") return errorReply(question, 1, json);
  if (ctx.surface === "chat") {
    const asked = errorReply(t("runner.confirmInChat", { question, again }), 1, json);
    return { ...asked, actions: confirmButtons(spec, input, question) };
  }
  if (!ctx.interactive || !ctx.prompt) {
    return errorReply(t("runner.noTerminalToConfirm", { question, again }), 1, json);
  }
  const answer = await ctx.prompt(t("runner.confirmPrompt", { question }));
  if (/^\s*y(es)?\s*$/i.test(answer)) return null;
  return errorReply(t("runner.cancelled"), 1, { ok: false, cancelled: true });
}

/**
 * Confirm / Cancel buttons for a chat question. Confirm runs the same command with `-y` as whoever
 * presses it (access checked again then); with buttons shown, the "reply … -y" line is left out.
 */
function confirmButtons(spec: CommandSpec, input: CommandInput, question: Text): Reply["actions"] {
  const { yes: _yes, json: _json, ...options } = input.options;
  const run = invocation(spec.path, input.args, options);
  return {
    rows: [
      [
        runAction(t("button.confirm"), run, {
          confirmed: true,
          style: "danger",
          placement: "replace",
          group: "answer",
        }),
        cancelAction("answer"),
      ],
    ],
    blocksWithButtons: [{ kind: "paragraph", text: question }],
  };
}

/** The reply for an error thrown while running `spec`. */
export function errorToReply(
  error: unknown,
  spec: CommandSpec,
  ctx: CommandContext,
  options: RunOptions = {},
): Reply {
  if (error instanceof SkillgateError) {
    return errorReply(error.text, error.exitCode, { ok: false, error: error.message, code: error.code });
  }
  options.onUnexpected?.(error, spec);
  return errorReply(
    t("runner.unexpected", { command: ctx.commandPrefix(spec.path), detail: errorCause(error) }),
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
  let result: Reply;
  try {
    const refused = accessRefusal(spec, ctx, input);
    if (refused) return refused;
    const asked = await confirmation(spec, ctx, input);
    if (asked) return asked;
    result = await spec.run(ctx, input);
  } catch (error) {
    result = errorToReply(error, spec, ctx, options);
  }
  // A corrupt file moved aside while the command ran is told to the person, whatever the command
  // (the reply is laid out as text, to leave out what it already says, only when there is one).
  const pending = takeUsageWarnings(ctx.paths.skills);
  if (pending.length === 0) return result;
  const shown = replyToPlainText(result, "en");
  return withWarnings(
    result,
    pending.filter((warning) => !shown.includes(english(warning))),
  );
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
