/**
 * Where a queued chat message goes: a registry command (the same specs as the CLI), `/<skill>` (one or
 * several stacked skills, with an instruction for the agent), or plain text for the agent. The router
 * answers with a neutral `Reply` and whether the library changed; it never sends anything itself.
 */
import { findSkillByChatName, loadSkills } from "../../commands/chat.js";
import { closest, resolveCommand } from "../../commands/parse.js";
import { parseAndRun, runCommand } from "../../commands/runner.js";
import { detectSkillChanges, withChangeNotices } from "../../commands/skill-versions.js";
import type { CommandContext, CommandSpec } from "../../commands/types.js";
import { matchChatCommand } from "../core/command-text.js";
import { SkillgateError } from "../core/errors.js";
import { t } from "../core/i18n/messages.js";
import type { Logger } from "../core/logger.js";
import type { InboundMessage, ParsedCommand } from "../core/message.js";
import { errorReply, type Reply, textReply } from "../core/reply.js";

/** Answers non-command chat text (the LLM agent). */
export interface ChatAgent {
  respond(message: InboundMessage, ctx: CommandContext): Promise<Reply>;
}

/** The reply to chat text when no agent is configured. */
export const NO_AGENT_REPLY = t("gateway.noAgent");

/** What routing a message produced: the reply, and whether a mutating command succeeded. */
export interface Routed {
  reply: Reply;
  mutated: boolean;
}

/** What the router needs from the gateway. */
export interface RouterOptions {
  registry: readonly CommandSpec[];
  logger: Logger;
  agent?: ChatAgent;
  /** Called when a command throws something that is not a coded error (the runner turns it into a reply). */
  onUnexpected: (error: unknown, spec: CommandSpec) => void;
}

/** Splits `/a /b do X` (after the first name) into the extra skill names and the instruction. */
function stackedNames(rawArgs: string): { names: string[]; instruction: string } {
  const names: string[] = [];
  let rest = rawArgs;
  for (;;) {
    const match = /^\s*(\/\S+)(?:\s+|$)/.exec(rest);
    const parsed = match ? matchChatCommand(match[1] ?? "") : null;
    if (!match || !parsed) break;
    names.push(parsed.name);
    rest = rest.slice(match[0].length);
  }
  return { names, instruction: rest.trim() };
}

/** Routes one message (its adapter-parsed command, or none for text) to the command, skill or agent. */
export class CommandRouter {
  constructor(private readonly options: RouterOptions) {}

  /** The reply to `message`; `command` is what its adapter recognised as a command for this bot. */
  async route(ctx: CommandContext, message: InboundMessage, command: ParsedCommand | null): Promise<Routed> {
    // A loaded skill that changed since is told first, before any command or model call sees it.
    const changes = await detectSkillChanges(ctx).catch((error: unknown) => {
      this.options.logger.warn({ err: error }, "gateway: checking loaded skills for changes failed");
      return [];
    });
    const routed = await this.routeMessage(ctx, message, command);
    return { ...routed, reply: withChangeNotices(routed.reply, changes) };
  }

  private async routeMessage(
    ctx: CommandContext,
    message: InboundMessage,
    command: ParsedCommand | null,
  ): Promise<Routed> {
    if (!command) return { reply: await this.respondToText(ctx, message), mutated: false };
    const { registry, onUnexpected } = this.options;
    let resolved: ReturnType<typeof resolveCommand>;
    try {
      resolved = resolveCommand(registry, command.name, command.args, ctx.commandPrefix);
    } catch (error) {
      // Only a bad subcommand lands here (a UsageError with the list of existing ones).
      return {
        reply:
          error instanceof SkillgateError
            ? errorReply(error.text, error.exitCode)
            : errorReply((error as Error).message),
        mutated: false,
      };
    }
    if (resolved) {
      const reply = await parseAndRun(resolved.spec, ctx, resolved.rest, { onUnexpected });
      return { reply, mutated: resolved.spec.mutating && reply.exitCode === 0 };
    }
    const skill = await findSkillByChatName(ctx, command.name).catch(() => undefined);
    if (!skill) return { reply: errorReply(this.unknownCommand(ctx, command.name), 2), mutated: false };
    return { reply: await this.invokeSkills(ctx, message, skill.name, command.rawArgs), mutated: false };
  }

  /** "Unknown command", with the closest visible command as a suggestion when one is near. */
  private unknownCommand(ctx: CommandContext, name: string) {
    const names = [
      ...new Set(this.options.registry.filter((spec) => !spec.hidden).map((spec) => spec.path[0] ?? "")),
    ];
    const guess = closest(name.toLowerCase(), names);
    return guess
      ? t("gateway.unknownCommand.guess", { command: `/${name}`, guess: ctx.commandPrefix([guess]) })
      : t("gateway.unknownCommand", { command: `/${name}` });
  }

  /** Loads `/first` and any stacked `/names`; an instruction after them goes to the agent with them. */
  private invokeSkills(
    ctx: CommandContext,
    message: InboundMessage,
    first: string,
    rawArgs: string,
  ): Promise<Reply> {
    const { names, instruction } = stackedNames(rawArgs);
    const agent = this.options.agent;
    const spec: CommandSpec = {
      path: [first],
      summary: t("gateway.loadSkill", { name: first }),
      mutating: false,
      run: async (runCtx) => {
        const loaded = await loadSkills(runCtx, [first, ...names], instruction);
        if (!agent || !instruction || loaded.reply.exitCode !== 0) return loaded.reply;
        const answer = await agent.respond({ ...message, text: instruction, command: undefined }, runCtx);
        // "Set KEY" buttons of the loaded skills stay with the combined answer.
        return {
          ...answer,
          blocks: [...loaded.reply.blocks, ...answer.blocks],
          actions: answer.actions ?? loaded.reply.actions,
        };
      },
    };
    return runCommand(spec, ctx, { args: [], options: {} }, { onUnexpected: this.options.onUnexpected });
  }

  /** Plain text: the agent's answer, or a note that none is configured. */
  private async respondToText(ctx: CommandContext, message: InboundMessage): Promise<Reply> {
    const agent = this.options.agent;
    if (!agent) return textReply(NO_AGENT_REPLY);
    try {
      return await agent.respond(message, ctx);
    } catch (error) {
      this.options.logger.error({ err: error }, "gateway: the agent failed");
      return errorReply(t("gateway.agentFailed", { detail: (error as Error).message }));
    }
  }
}
