/**
 * Buttons on Telegram: a reply's stored actions become an inline keyboard. Pure. Each button's
 * `callback_data` is the gateway's opaque action id (Bot API `InlineKeyboardButton`: `callback_data`
 * is 1–64 bytes); a press comes back as a `callback_query` (see `normalize.ts`).
 */
import type { InlineKeyboardButton, InlineKeyboardMarkup } from "grammy/types";
import { resolveText } from "../../src/core/i18n/messages.js";
import type { Reply } from "../../src/core/reply.js";

/** Longest `callback_data` Telegram accepts, in bytes. */
export const CALLBACK_DATA_MAX_BYTES = 64;

/** Longest text of an `answerCallbackQuery` notice (Bot API: 0–200 characters). */
export const CALLBACK_ANSWER_MAX = 200;

/**
 * The inline keyboard of a reply, labels in the reply's locale; undefined when it carries no stored
 * (id-bearing) action.
 */
export function inlineKeyboard(reply: Reply): InlineKeyboardMarkup | undefined {
  const rows: InlineKeyboardButton[][] = [];
  for (const row of reply.actions?.rows ?? []) {
    const buttons = row
      .filter(
        (action): action is typeof action & { id: string } =>
          typeof action.id === "string" && Buffer.byteLength(action.id) <= CALLBACK_DATA_MAX_BYTES,
      )
      .map((action) => ({ text: resolveText(action.label, reply.locale), callback_data: action.id }));
    if (buttons.length > 0) rows.push(buttons);
  }
  return rows.length > 0 ? { inline_keyboard: rows } : undefined;
}

/** A notice cut to what `answerCallbackQuery` shows. */
export function callbackNotice(text: string): string {
  const line = text.replace(/`/g, "").trim();
  return line.length > CALLBACK_ANSWER_MAX ? `${line.slice(0, CALLBACK_ANSWER_MAX - 1)}…` : line;
}
