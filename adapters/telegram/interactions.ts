/**
 * Telegram inbound: every update (from polling or the webhook) goes through grammy's middleware to the
 * pure `normalizeUpdate` and into the gateway's sink, one at a time in order. A button press
 * (`callback_query`) is judged by the gateway before the sink resolves (a refusal is answered privately
 * by `send`); every callback query is then answered at once so the client stops its spinner. A "Set KEY"
 * press goes to the secret-input flow instead.
 */
import type { Context } from "grammy";
import type { TelegramContext } from "./context.js";
import { normalizeUpdate } from "./normalize.js";
import type { TelegramSecretFlow } from "./secret-flow.js";

/** Hands one Telegram adapter's updates to the gateway. */
export class TelegramInteractions {
  constructor(
    private readonly ctx: TelegramContext,
    private readonly secrets: TelegramSecretFlow,
  ) {}

  /** grammy's middleware: one update, normalized and handed over (see the module comment). */
  async onUpdate(incoming: Context): Promise<void> {
    const message = normalizeUpdate(incoming.update, incoming.me.username);
    if (message === null) {
      this.ctx.logger.debug({ update_id: incoming.update.update_id }, "telegram update ignored");
      // A callback query skillgate cannot map (no message, a channel post's button, no data) is still
      // answered: Telegram clients show a progress bar until answerCallbackQuery is called.
      const unmapped = incoming.update.callback_query?.id;
      if (unmapped !== undefined) {
        await this.ctx.bot.api.answerCallbackQuery(unmapped).catch((error: unknown) => {
          this.ctx.logger.warn({ err: error }, "telegram: answering an unmapped button press failed");
        });
      }
      return;
    }
    if (!message.press) {
      await this.ctx.sink?.(message);
      return;
    }
    // A press: the gateway judges it before the sink resolves (a refusal is answered privately in
    // `send`); every callback query is then answered at once so the client stops its spinner.
    const queryId = incoming.update.callback_query?.id ?? "";
    // A "Set KEY" button opens a one-time form link, sent to the presser's private chat.
    const opened = (await this.ctx.hooks?.secretInput?.open(message)) ?? null;
    if (opened !== null) {
      await this.secrets.sendLink(queryId, message, opened);
      return;
    }
    this.ctx.openQueries.add(queryId);
    try {
      await this.ctx.sink?.(message);
    } finally {
      if (this.ctx.openQueries.delete(queryId)) {
        await this.ctx.bot.api.answerCallbackQuery(queryId).catch((error: unknown) => {
          this.ctx.logger.warn({ err: error }, "telegram: answering a button press failed");
        });
      }
    }
  }
}
