/**
 * Feishu's private secret entry: a "Set KEY" press posts a card form for the presser (a refusal is the
 * press's toast); the submitted value goes from the form to the gateway's hook only, never to a log line
 * or a message, and the chat then gets the hook's answer while the form card closes. The cards are
 * built in `secret-input.ts`.
 */
import { DEFAULT_LOCALE } from "../../src/core/i18n/locale.js";
import { english, type Message, resolveText, t } from "../../src/core/i18n/messages.js";
import type { InboundMessage, SecretInputOpening } from "../../src/core/message.js";
import { describeError } from "./api-errors.js";
import type { FeishuContext } from "./context.js";
import type { FeishuOutbound } from "./outbound.js";
import { type SecretFormSubmit, secretCard, secretCardResponse } from "./secret-input.js";

/** The secret-input flow of one Feishu adapter. */
export class FeishuSecretFlow {
  constructor(
    private readonly ctx: FeishuContext,
    private readonly outbound: FeishuOutbound,
  ) {}

  /** Posts the card form a "Set KEY" press opened (or answers the presser's refusal with a toast). */
  async postForm(
    press: InboundMessage,
    opened: SecretInputOpening | { refused: string },
  ): Promise<Record<string, unknown>> {
    if ("refused" in opened) return { toast: { type: "error", content: opened.refused.slice(0, 200) } };
    const say = (text: Message) => resolveText(text, opened.locale ?? DEFAULT_LOCALE);
    try {
      await this.outbound.sendPayload(
        { chatId: press.chat.id, threadId: press.chat.threadId },
        secretCard(opened),
        undefined,
        Boolean(press.chat.threadId),
      );
    } catch (error) {
      this.ctx.log.warn({ err: describeError(error) }, "feishu: posting a secret form failed");
      return { toast: { type: "error", content: say(t("secret.input.postFailed")) } };
    }
    return { toast: { type: "info", content: say(t("secret.input.posted", { key: opened.key })) } };
  }

  /**
   * A submitted secret form: the value goes to the gateway's hook only (never logged here); the chat
   * then gets the hook's answer ("`KEY` set ✓" and the readiness) and the form card closes.
   */
  async onSubmit(submit: SecretFormSubmit): Promise<Record<string, unknown>> {
    const hooks = this.ctx.hooks?.secretInput;
    if (!hooks) return secretCardResponse(false, english(t("secret.unavailable")));
    const answer = await hooks.submit(submit.token, submit.operatorOpenId, submit.value);
    const text = answer.blocks
      .map((block) => ("text" in block ? block.text : ""))
      .join("\n")
      .replace(/`/g, "");
    if (answer.exitCode === 0 && submit.chatId) {
      await this.outbound
        .send({ chatId: submit.chatId }, answer)
        .catch((error: unknown) =>
          this.ctx.log.warn({ err: describeError(error) }, "feishu: posting a secret confirmation failed"),
        );
    }
    return secretCardResponse(answer.exitCode === 0, text, answer.locale);
  }
}
