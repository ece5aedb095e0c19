/**
 * Telegram outbound: a reply as HTML chunks of ≤ 4096 UTF-16 units (a chunk Telegram cannot parse is
 * re-sent as plain text), its buttons under the last chunk, file parts as documents; a pressed button's
 * result edits the message it was on, a private reply is the press's alert. Every call waits out a 429
 * `retry_after` and retries network errors (`callWithRetries`); replies in a forum topic carry
 * `message_thread_id`.
 */

import type { InlineKeyboardMarkup, Update } from "grammy/types";
import { AdapterError, FileRefusedError } from "../../src/core/errors.js";
import type { InboundMessage, OutboundTarget } from "../../src/core/message.js";
import type { Reply, ReplyBlock } from "../../src/core/reply.js";
import { callbackNotice, inlineKeyboard } from "./actions.js";
import type { TelegramContext } from "./context.js";
import { GrammyError, HttpError, InputFile } from "./grammy.js";
import { htmlToPlain, renderReply, type TelegramChunk } from "./render.js";

/**
 * The HTML chunks of a reply's text blocks (none when it only carries files), kept per blocks array
 * while that array lives: the gateway measures a reply against its budget and then sends the same
 * reply, and rendering a long one twice was a tenth of the gateway's CPU per command. A blocks array is
 * not changed once a reply is built; the length check guards against one that is.
 */
const renderedText = new WeakMap<ReplyBlock[], { length: number; chunks: readonly TelegramChunk[] }>();

function textChunks(reply: Reply): readonly TelegramChunk[] {
  const cached = renderedText.get(reply.blocks);
  if (cached && cached.length === reply.blocks.length) return cached.chunks;
  const text = reply.blocks.filter((block) => block.kind !== "file");
  const files = reply.blocks.length - text.length;
  const chunks = text.length > 0 || files === 0 ? renderReply({ ...reply, blocks: text }) : [];
  renderedText.set(reply.blocks, { length: reply.blocks.length, chunks });
  return chunks;
}

/** Sends, edits and acknowledges for one Telegram adapter. */
export class TelegramOutbound {
  constructor(private readonly ctx: TelegramContext) {}

  /**
   * Sends a reply in chunks; the reply's buttons go under the last one, a pressed button's result may
   * replace the message it was on, and file blocks follow as documents.
   */
  async send(target: OutboundTarget, reply: Reply, inReplyTo?: InboundMessage): Promise<void> {
    if (reply.private && (await this.answerPrivately(reply, inReplyTo))) return;
    const files = reply.blocks.filter((block) => block.kind === "file");
    const chunks = textChunks(reply);
    const keyboard = inlineKeyboard(reply);
    const replyTo = target.replyTo ?? replyAnchor(inReplyTo);
    let first = 0;
    if (target.editMessageId !== undefined && chunks[0]) {
      const edited = await this.editChunk(
        target,
        target.editMessageId,
        chunks[0],
        chunks.length === 1 ? keyboard : undefined,
      );
      if (edited) first = 1;
    }
    for (let index = first; index < chunks.length; index += 1) {
      const chunk = chunks[index] as TelegramChunk;
      const markup = index === chunks.length - 1 ? keyboard : undefined;
      await this.sendChunk(target, chunk, index === 0 ? replyTo : undefined, markup);
    }
    // A reply over the budget carries its whole text as a file part: it goes as one document.
    for (const file of files) await this.sendFile(target, file.name, file.text, chunks.length);
  }

  /**
   * The "running…" notice of slow work: it replaces the pressed message (dropping its keyboard, so the
   * button cannot be pressed twice meanwhile) or goes as a reply to the command; its id comes back so
   * the result can edit it (Bot API `editMessageText`, which works on the bot's own text messages).
   */
  async acknowledge(
    target: OutboundTarget,
    notice: Reply,
    inReplyTo?: InboundMessage,
  ): Promise<string | undefined> {
    const [chunk] = renderReply(notice);
    if (!chunk) return undefined;
    if (target.editMessageId !== undefined)
      return (await this.editChunk(target, target.editMessageId, chunk, undefined))
        ? target.editMessageId
        : undefined;
    return this.sendChunk(target, chunk, target.replyTo ?? replyAnchor(inReplyTo));
  }

  /**
   * A reply meant only for whoever pressed a button: the callback query's answer, shown as an alert to
   * that user alone (Bot API `answerCallbackQuery`, `show_alert`). False when there is no open query.
   */
  private async answerPrivately(reply: Reply, inReplyTo: InboundMessage | undefined): Promise<boolean> {
    const queryId = (inReplyTo?.raw as Update | undefined)?.callback_query?.id;
    if (!inReplyTo?.press || queryId === undefined || !this.ctx.openQueries.delete(queryId)) return false;
    const text = callbackNotice(htmlToPlain(renderReply(reply)[0]?.text ?? ""));
    await callWithRetries(this.ctx, "answerCallbackQuery", () =>
      this.ctx.bot.api.answerCallbackQuery(queryId, { text, show_alert: true }),
    );
    return true;
  }

  /**
   * Replaces the text (and keyboard: none when `markup` is undefined) of a message the bot sent, as a
   * pressed button asks. False when it cannot be edited (gone, too old): the caller sends instead.
   */
  async editChunk(
    target: OutboundTarget,
    messageId: string,
    chunk: TelegramChunk,
    markup: InlineKeyboardMarkup | undefined,
  ): Promise<boolean> {
    const chatId = chatIdOf(target.chatId);
    const extra = {
      parse_mode: chunk.parse_mode,
      link_preview_options: { is_disabled: true },
      reply_markup: markup,
    };
    try {
      await callWithRetries(this.ctx, "editMessageText", () =>
        this.ctx.bot.api.editMessageText(chatId, Number(messageId), chunk.text, extra),
      );
      return true;
    } catch (error) {
      const description = error instanceof GrammyError && error.error_code === 400 ? error.description : "";
      if (/message is not modified/i.test(description)) return true;
      this.ctx.logger.warn(
        { chat: target.chatId, description },
        "telegram: could not edit the message; sending anew",
      );
      return false;
    }
  }

  measure(reply: Reply): number {
    const files = reply.blocks.filter((block) => block.kind === "file").length;
    return textChunks(reply).length + files;
  }

  /**
   * Sends content as a document (`sendDocument`, multipart upload), in the target's topic. A document
   * Telegram refuses (too large, say) is a `FileRefusedError` counting the `delivered` messages before it.
   */
  private async sendFile(
    target: OutboundTarget,
    name: string,
    content: string,
    delivered: number,
  ): Promise<void> {
    const threadId = target.threadId === undefined ? undefined : Number(target.threadId);
    try {
      await callWithRetries(this.ctx, "sendDocument", () =>
        this.ctx.bot.api.sendDocument(
          chatIdOf(target.chatId),
          new InputFile(Buffer.from(content, "utf8"), name),
          threadId !== undefined ? { message_thread_id: threadId } : {},
        ),
      );
    } catch (error) {
      const message = `Telegram did not accept the file ${name} for chat ${target.chatId}: ${(error as Error).message}`;
      // Telegram answered with an error about the document itself (not flood control): send it cut.
      if (error instanceof GrammyError && error.error_code !== 429)
        throw new FileRefusedError("telegram", name, message, { cause: error, delivered });
      throw new AdapterError("telegram", message, { cause: error, code: "adapter.telegram.send_failed" });
    }
  }

  async sendChunk(
    target: OutboundTarget,
    chunk: TelegramChunk,
    replyTo: string | undefined,
    markup?: InlineKeyboardMarkup,
  ): Promise<string> {
    const chatId = chatIdOf(target.chatId);
    const base = {
      link_preview_options: { is_disabled: true },
      ...(replyTo
        ? { reply_parameters: { message_id: Number(replyTo), allow_sending_without_reply: true } }
        : {}),
    };
    let threadId = target.threadId === undefined ? undefined : Number(target.threadId);
    let html = true;
    for (;;) {
      const payload = {
        ...base,
        ...(html ? { parse_mode: chunk.parse_mode } : {}),
        ...(threadId !== undefined ? { message_thread_id: threadId } : {}),
        ...(markup ? { reply_markup: markup } : {}),
      };
      try {
        const sent = await callWithRetries(this.ctx, "sendMessage", () =>
          this.ctx.bot.api.sendMessage(chatId, html ? chunk.text : htmlToPlain(chunk.text), payload),
        );
        return String(sent.message_id);
      } catch (error) {
        const description = error instanceof GrammyError && error.error_code === 400 ? error.description : "";
        if (html && /can't parse entities/i.test(description)) {
          this.ctx.logger.warn(
            { chat: target.chatId, description },
            "telegram refused the HTML of a reply; sending it as plain text",
          );
          html = false;
        } else if (threadId !== undefined && /message thread not found/i.test(description)) {
          this.ctx.logger.warn(
            { chat: target.chatId, thread: threadId },
            "telegram: the topic no longer exists; replying in the chat",
          );
          threadId = undefined;
        } else {
          throw new AdapterError(
            "telegram",
            `Telegram did not accept the reply to chat ${target.chatId}: ${(error as Error).message}`,
            {
              cause: error,
              code: "adapter.telegram.send_failed",
            },
          );
        }
      }
    }
  }
}

/**
 * Runs one API call: waits out a 429 `retry_after` and retries network errors with backoff, up to
 * `maxAttempts`. Other errors are thrown at once.
 */
export async function callWithRetries<T>(
  ctx: TelegramContext,
  method: string,
  fn: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await fn();
    } catch (error) {
      if (ctx.abort.signal.aborted || attempt >= ctx.tuning.maxAttempts) throw error;
      if (error instanceof GrammyError && error.error_code === 429) {
        const seconds = error.parameters.retry_after ?? 1;
        if (seconds > ctx.tuning.maxRetryAfterSeconds) throw error;
        ctx.logger.warn({ method, retryAfter: seconds }, "telegram flood control: waiting before retrying");
        await ctx.sleep(seconds * 1000);
      } else if (error instanceof HttpError && !/timed out/i.test(error.message)) {
        const delay = Math.min(ctx.tuning.maxBackoffMs, ctx.tuning.networkBaseMs * 2 ** (attempt - 1));
        ctx.logger.warn({ method, attempt, delayMs: delay, err: error }, "telegram: network error; retrying");
        await ctx.sleep(delay);
      } else {
        throw error;
      }
    }
  }
}

/** Numeric chat ids go to the API as numbers; `@channelname` stays a string. */
function chatIdOf(chatId: string): number | string {
  return /^-?\d+$/.test(chatId) ? Number(chatId) : chatId;
}

/** In groups and topics the first chunk quotes the user's message; in a DM that is noise. */
function replyAnchor(message: InboundMessage | undefined): string | undefined {
  if (message === undefined || message.platform !== "telegram" || message.chat.kind === "dm")
    return undefined;
  return message.messageId;
}
