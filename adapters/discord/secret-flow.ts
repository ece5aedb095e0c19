/**
 * Discord's private secret entry: a "Set KEY" press the presser may use is answered with its modal (a
 * modal can only be an interaction's first response, so the gateway is asked before the press is
 * delivered); a refusal is shown to the presser alone. A submitted modal's value goes to the gateway's
 * hook only, never to a log line or the channel's history. The payloads are in `secret-input.ts`.
 */
import { MessageFlags } from "discord.js";
import type { InboundMessage, SecretInputHooks } from "../../src/core/message.js";
import type { AnswerableInteraction } from "./answer.js";
import { type DiscordContext, EMPTY_REPLY } from "./context.js";
import { renderReply } from "./render.js";
import { secretModal, secretToken } from "./secret-input.js";

/** Answers an interaction with a modal (its first response): discord.js's `showModal`, or by HTTP. */
export type ModalOpener = (modal: Record<string, unknown>) => Promise<unknown>;

/** The secret-input flow of one Discord adapter. */
export class DiscordSecretFlow {
  constructor(private readonly ctx: DiscordContext) {}

  /**
   * Opens the secret modal when the pressed button is a "Set KEY" action the presser may use; a refusal
   * is shown to them alone. False when the press is an ordinary button.
   */
  async openModal(
    interaction: AnswerableInteraction,
    open: ModalOpener,
    message: InboundMessage,
    hooks: SecretInputHooks,
  ): Promise<boolean> {
    const opened = await hooks.open(message);
    if (opened === null) return false;
    if ("refused" in opened) {
      await interaction.reply({
        content: opened.refused,
        flags: MessageFlags.Ephemeral,
        allowedMentions: { parse: [] },
      });
      return true;
    }
    await open(secretModal(opened.token, opened.key, opened.prompt, opened.locale));
    return true;
  }

  /**
   * A submitted secret modal: the value goes to the gateway's hook only (never logged here); the channel
   * sees the hook's answer ("`KEY` set ✓" and the readiness), a refusal only the submitter sees. False
   * when the modal is not one of skillgate's secret modals (or no secret input is offered).
   */
  async onModalSubmit(
    interaction: AnswerableInteraction,
    customId: string,
    userId: string,
    value: string,
  ): Promise<boolean> {
    const token = secretToken(customId);
    const hooks = this.ctx.hooks?.secretInput;
    if (!token || !hooks) return false;
    const answer = await hooks.submit(token, userId, value);
    const [content = EMPTY_REPLY] = renderReply(answer);
    await interaction.reply({
      content,
      allowedMentions: { parse: [] },
      ...(answer.exitCode === 0 ? {} : { flags: MessageFlags.Ephemeral }),
    });
    return true;
  }
}
