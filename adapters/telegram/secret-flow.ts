/**
 * Telegram's private secret entry: a "Set KEY" press (opened by the gateway's `secretInput` hook) is
 * answered with a one-time form link, sent as a URL button to the presser's private chat, since a link
 * is a credential and must not sit in a group's history; the press itself gets a notice only the
 * presser sees. The form itself is served by the gateway (`gateway.public_url`).
 */
import type { InboundMessage, SecretInputOpening } from "../../src/core/message.js";
import { callbackNotice } from "./actions.js";
import type { TelegramContext } from "./context.js";
import type { TelegramOutbound } from "./outbound.js";

/** The secret-input flow of one Telegram adapter. */
export class TelegramSecretFlow {
  constructor(
    private readonly ctx: TelegramContext,
    private readonly outbound: TelegramOutbound,
  ) {}

  /**
   * Answers a "Set KEY" press: the one-time form link goes as a URL button to the presser's private
   * chat (a link is a credential and must not sit in a group's history); the press itself is answered
   * with a notice only the presser sees. A refusal is that notice alone.
   */
  async sendLink(
    queryId: string,
    press: InboundMessage,
    opened: SecretInputOpening | { refused: string },
  ): Promise<void> {
    let notice: string;
    let alert = true;
    if ("refused" in opened) notice = opened.refused;
    else if (!opened.url) notice = "Private secret entry is not available here.";
    else {
      try {
        await this.outbound.sendChunk(
          { chatId: press.sender.id },
          {
            text: `Set <code>${escapeHtml(opened.key)}</code> for ${escapeHtml(opened.skill)} with this one-time form (it works once, for 10 minutes, and only for you):`,
            parse_mode: "HTML",
          },
          undefined,
          { inline_keyboard: [[{ text: `Set ${opened.key}`.slice(0, 64), url: opened.url }]] },
        );
        notice = "I sent you a one-time link to set it in our private chat.";
        alert = false;
      } catch {
        // Telegram refuses a private message to someone who never opened a chat with the bot.
        notice =
          "I could not message you privately: open a private chat with me, send /start, then press the button again.";
      }
    }
    await this.ctx.bot.api
      .answerCallbackQuery(queryId, { text: callbackNotice(notice), show_alert: alert })
      .catch((error: unknown) =>
        this.ctx.logger.warn({ err: error }, "telegram: answering a button press failed"),
      );
  }
}

/** Escapes text for Telegram's HTML parse mode. */
function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
