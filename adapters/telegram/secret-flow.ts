/**
 * Telegram's private secret entry: a "Set KEY" press (opened by the gateway's `secretInput` hook) is
 * answered with a one-time form link, sent as a URL button to the presser's private chat, since a link
 * is a credential and must not sit in a group's history; the press itself gets a notice only the
 * presser sees. The form itself is served by the gateway (`gateway.public_url`).
 */
import { DEFAULT_LOCALE } from "../../src/core/i18n/locale.js";
import { type Message, resolveText, t } from "../../src/core/i18n/messages.js";
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
    const say = (text: Message) =>
      resolveText(text, ("locale" in opened ? opened.locale : undefined) ?? DEFAULT_LOCALE);
    if ("refused" in opened) notice = opened.refused;
    else if (!opened.url) notice = say(t("secret.unavailable"));
    else {
      try {
        await this.outbound.sendChunk(
          { chatId: press.sender.id },
          {
            text: say(
              t("secret.link.message", { key: escapeHtml(opened.key), skill: escapeHtml(opened.skill) }),
            ),
            parse_mode: "HTML",
          },
          undefined,
          {
            inline_keyboard: [
              [{ text: say(t("button.setKey", { key: opened.key })).slice(0, 64), url: opened.url }],
            ],
          },
        );
        notice = say(t("secret.link.sent"));
        alert = false;
      } catch {
        // Telegram refuses a private message to someone who never opened a chat with the bot.
        notice = say(t("secret.link.noPrivateChat"));
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
