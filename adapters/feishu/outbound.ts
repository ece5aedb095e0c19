/**
 * Feishu outbound: `im.message.reply` to the triggering message (first part; all parts inside a thread)
 * or `im.message.create` to a chat; each part as a post, re-sent as plain text when the API rejects it,
 * or as a card (buttons, card layout, or a card to update in place). A send refused by frequency control
 * (HTTP 429 / code 99991400, or 230020 for a busy chat) is retried after `x-ogw-ratelimit-reset` seconds
 * (or a short backoff), so a long reply arrives whole; updates of one card wait their turn and keep
 * Feishu's 5 a second.
 *
 * Files (the reply budget's file part) are uploaded first through `im/v1/files` (needs `im:resource`),
 * then sent as `file` messages after the text. An upload Feishu refuses (over 30 MB, empty, no scope)
 * raises `FileRefusedError` before anything of the reply went out, so the gateway sends it cut instead.
 */
import { trimOldest } from "../../src/core/bounded.js";
import { AdapterError, FileRefusedError } from "../../src/core/errors.js";
import { DEFAULT_LOCALE } from "../../src/core/i18n/locale.js";
import { resolveText, t } from "../../src/core/i18n/messages.js";
import type { InboundMessage, OutboundTarget } from "../../src/core/message.js";
import type { Reply } from "../../src/core/reply.js";
import { hasButtons, renderCard } from "./actions.js";
import { checkResponse, describeError, feishuErrorCode, isContentRejection } from "./api-errors.js";
import { type FeishuContext, RECENT_IDS } from "./context.js";
import {
  type FeishuPayload,
  type FeishuUpload,
  fileMessage,
  postToTextPayloads,
  renderReply,
  renderText,
  splitUploads,
} from "./render.js";

/** Frequency-control codes: the platform-wide limit (99991400) and a chat's 5 messages a second (230020). */
const THROTTLE_CODES = new Set([99991400, 230020]);
/** Reply targets that no longer exist (withdrawn or deleted): fall back to a new chat message. */
const GONE_MESSAGE_CODES = new Set([230011, 231003]);

/** Sends, uploads and updates cards for one Feishu adapter. */
export class FeishuOutbound {
  /** Per card: the last update's turn (updates of one card go one after another) and when it went out. */
  private readonly cardUpdates = new Map<string, { turn: Promise<unknown>; at: number }>();

  constructor(private readonly ctx: FeishuContext) {}

  /**
   * Sends a reply, rendered as posts and chunked (a rejected post part is re-sent as plain text), or as
   * a card; its file parts are uploaded before anything is sent and follow the text as file messages.
   */
  async send(target: OutboundTarget, reply: Reply, inReplyTo?: InboundMessage): Promise<void> {
    if (reply.private && inReplyTo?.press && this.ctx.toasts.has(inReplyTo.eventId)) {
      this.ctx.toasts.set(inReplyTo.eventId, toastText(reply));
      return;
    }
    const { text, uploads } = splitUploads(reply);
    const fileKeys: string[] = [];
    for (const upload of uploads) fileKeys.push(await this.upload(upload));
    const withText = text.blocks.length > 0 || uploads.length === 0;
    if (withText) await this.sendText(target, text, inReplyTo);
    const inThread = Boolean(target.threadId);
    for (const fileKey of fileKeys) {
      // Like the parts of a long reply: the first message answers the user's, the rest follow in the chat.
      const anchor = !withText || inThread ? replyTargetId(target, inReplyTo) : undefined;
      await this.sendWithFallback(target, fileMessage(fileKey), anchor, inThread);
    }
  }

  /** Measures a reply as it goes out: its text messages, plus one message per file. */
  measure(reply: Reply): number {
    const { text, uploads } = splitUploads(reply);
    const withText = text.blocks.length > 0 || uploads.length === 0;
    return (withText ? renderReply(text).length : 0) + uploads.length;
  }

  /**
   * Uploads one file (`POST im/v1/files`, multipart) and returns its `file_key`. Any failure (over
   * 30 MB, empty, the app lacks `im:resource`) is a `FileRefusedError`: nothing of the reply was sent.
   */
  private async upload(upload: FeishuUpload): Promise<string> {
    const client = this.ctx.requireClient();
    let fileKey: string | undefined;
    try {
      await this.throttled(async () => {
        const answer = await client.im.file.create({
          data: { file_type: upload.file_type, file_name: upload.file_name, file: upload.data },
        });
        fileKey = answer?.file_key;
      });
    } catch (error) {
      throw new FileRefusedError(
        "feishu",
        upload.file_name,
        `Feishu did not take the file ${upload.file_name} (${upload.data.length.toLocaleString("en-US")} bytes): ${describeError(error)}. Uploads need the im:resource permission and at most 30 MB.`,
        { cause: error },
      );
    }
    if (!fileKey)
      throw new FileRefusedError(
        "feishu",
        upload.file_name,
        `Feishu answered the upload of ${upload.file_name} without a file_key.`,
      );
    return fileKey;
  }

  private async sendText(target: OutboundTarget, reply: Reply, inReplyTo?: InboundMessage): Promise<void> {
    const wantsCard = hasButtons(reply) || reply.layout === "card" || target.editMessageId !== undefined;
    const locale = reply.locale ?? DEFAULT_LOCALE;
    const card = wantsCard ? renderCard(reply) : undefined;
    if (card && target.editMessageId && (await this.patchCard(target.editMessageId, card))) return;
    if (card) {
      await this.sendWithFallback(target, card, replyTargetId(target, inReplyTo), Boolean(target.threadId));
      return;
    }
    if (target.editMessageId) {
      // Too large for a card: the card it was to replace ("⏳ Running…", or a page) points to the posts.
      const pointer = renderCard({
        blocks: [{ kind: "paragraph", text: resolveText(t("reply.belowCard"), locale) }],
        exitCode: reply.exitCode,
      });
      if (pointer) await this.patchCard(target.editMessageId, pointer);
    }
    await this.sendPosts(target, reply, inReplyTo);
    if (hasButtons(reply)) {
      // Too large for one card: the text went as posts; the buttons follow on a small card of their own.
      const buttonsOnly = renderCard({
        ...reply,
        blocks: [{ kind: "paragraph", text: resolveText(t("reply.choose"), locale) }],
      });
      if (buttonsOnly) await this.sendWithFallback(target, buttonsOnly, undefined, Boolean(target.threadId));
    }
  }

  /**
   * The "running…" notice of slow work, as a card: only interactive messages can be updated
   * (`PATCH /im/v1/messages/:message_id`), so the result can replace it. It replaces the pressed card
   * when there is one, else goes as a reply to the command; the id of the card to replace comes back.
   */
  async acknowledge(
    target: OutboundTarget,
    notice: Reply,
    inReplyTo?: InboundMessage,
  ): Promise<string | undefined> {
    const card = renderCard({ ...notice, layout: "card" });
    if (!card) return undefined;
    if (target.editMessageId)
      return (await this.patchCard(target.editMessageId, card)) ? target.editMessageId : undefined;
    const client = this.ctx.requireClient();
    const replyTo = replyTargetId(target, inReplyTo);
    const data = { msg_type: card.msg_type, content: card.content };
    const response = replyTo
      ? await client.im.message.reply({
          path: { message_id: replyTo },
          data: { ...data, reply_in_thread: Boolean(target.threadId) || undefined },
        })
      : await client.im.message.create({
          params: { receive_id_type: receiveIdType(target.chatId) },
          data: { receive_id: target.chatId, ...data },
        });
    checkResponse(response);
    return response.data?.message_id;
  }

  /**
   * Replaces a card the bot sent (`PATCH /im/v1/messages/:id`, interactive messages only, both cards
   * shared). False when Feishu refuses (too old, withdrawn, not a card): the caller sends anew.
   */
  private async patchCard(messageId: string, card: FeishuPayload): Promise<boolean> {
    // Feishu allows 5 updates a second per message: updates of one card wait their turn and keep the gap,
    // and one refused by frequency control is retried, never replaced by a second card.
    const previous = this.cardUpdates.get(messageId);
    const turn = (previous?.turn ?? Promise.resolve()).then(async () => {
      const since = Date.now() - (this.cardUpdates.get(messageId)?.at ?? 0);
      if (since < this.ctx.tuning.cardUpdateGapMs)
        await new Promise((resolve) => setTimeout(resolve, this.ctx.tuning.cardUpdateGapMs - since));
      try {
        await this.throttled(async () =>
          checkResponse(
            await this.ctx.requireClient().im.message.patch({
              path: { message_id: messageId },
              data: { content: card.content },
            }),
          ),
        );
        return true;
      } catch (error) {
        this.ctx.log.warn(
          { err: describeError(error) },
          "feishu could not update the card; sending a new message",
        );
        return false;
      } finally {
        const entry = this.cardUpdates.get(messageId);
        if (entry) entry.at = Date.now();
      }
    });
    this.cardUpdates.set(messageId, { turn, at: previous?.at ?? 0 });
    trimOldest(this.cardUpdates, RECENT_IDS);
    return turn;
  }

  private async sendPosts(target: OutboundTarget, reply: Reply, inReplyTo?: InboundMessage): Promise<void> {
    const payloads = renderReply(reply);
    let replyTo = replyTargetId(target, inReplyTo);
    const inThread = Boolean(target.threadId);
    for (const [index, payload] of payloads.entries()) {
      const anchor = index === 0 || inThread ? replyTo : undefined;
      const sentAs = await this.sendWithFallback(target, payload, anchor, inThread);
      // Inside a topic the anchor is the only way in: without it the rest would open a top-level post.
      if (sentAs === "gone" && inThread) return;
      if (sentAs === "gone") replyTo = undefined;
    }
  }

  private async sendWithFallback(
    target: OutboundTarget,
    payload: FeishuPayload,
    replyTo: string | undefined,
    inThread: boolean,
  ): Promise<"sent" | "gone"> {
    try {
      return await this.sendPayload(target, payload, replyTo, inThread);
    } catch (error) {
      if (payload.msg_type !== "post" || !isContentRejection(error)) throw error;
      this.ctx.log.warn(
        { code: feishuErrorCode(error) },
        "feishu rejected a post message; sending it as plain text",
      );
      let result: "sent" | "gone" = "sent";
      for (const textPayload of postToTextPayloads(payload)) {
        const anchor = result === "gone" ? undefined : replyTo;
        if ((await this.sendPayload(target, textPayload, anchor, inThread)) === "gone") {
          result = "gone";
          if (inThread) break;
        }
      }
      return result;
    }
  }

  /** One API call; a withdrawn reply target falls back to a new chat message (never outside a thread). */
  async sendPayload(
    target: OutboundTarget,
    payload: FeishuPayload,
    replyTo: string | undefined,
    inThread: boolean,
  ): Promise<"sent" | "gone"> {
    const client = this.ctx.requireClient();
    if (replyTo) {
      try {
        await this.throttled(async () =>
          checkResponse(
            await client.im.message.reply({
              path: { message_id: replyTo },
              data: {
                msg_type: payload.msg_type,
                content: payload.content,
                reply_in_thread: inThread || undefined,
              },
            }),
          ),
        );
        return "sent";
      } catch (error) {
        const code = feishuErrorCode(error);
        if (code === undefined || !GONE_MESSAGE_CODES.has(code)) throw error;
        if (inThread) {
          this.ctx.log.warn(
            { code },
            "feishu reply target is gone inside a thread; not posting at the top level",
          );
          return "gone";
        }
        this.ctx.log.info({ code }, "feishu reply target is gone; posting to the chat instead");
      }
    }
    await this.throttled(async () =>
      checkResponse(
        await client.im.message.create({
          params: { receive_id_type: receiveIdType(target.chatId) },
          data: { receive_id: target.chatId, msg_type: payload.msg_type, content: payload.content },
        }),
      ),
    );
    return replyTo ? "gone" : "sent";
  }

  /**
   * Runs one send, waiting out frequency control: `x-ogw-ratelimit-reset` seconds when the answer
   * carries it, else a doubling backoff, up to `maxThrottleAttempts`.
   */
  private async throttled(send: () => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await send();
        return;
      } catch (error) {
        const code = feishuErrorCode(error);
        const status = (error as { response?: { status?: unknown } })?.response?.status;
        const throttled = (code !== undefined && THROTTLE_CODES.has(code)) || status === 429;
        if (!throttled || this.ctx.stopped) throw error;
        if (attempt >= this.ctx.tuning.maxThrottleAttempts)
          throw new AdapterError(
            "feishu",
            `Feishu frequency control refused the message ${attempt} times (code ${code ?? status}); it was not sent. Fewer or shorter replies help; the limit is 5 messages a second per chat.`,
            { cause: error, code: "adapter.feishu.throttled" },
          );
        const reset = Number(
          (error as { response?: { headers?: Record<string, unknown> } })?.response?.headers?.[
            "x-ogw-ratelimit-reset"
          ],
        );
        const wait =
          Number.isFinite(reset) && reset >= 0
            ? reset * this.ctx.tuning.secondMs
            : this.ctx.tuning.throttleBaseMs * 2 ** (attempt - 1);
        if (wait > this.ctx.tuning.maxThrottleWaitMs) throw error;
        this.ctx.log.warn(
          { code, attempt, waitMs: wait },
          "feishu frequency control: waiting before resending",
        );
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }
}

/** The platform message id to reply to: the triggering message, else the target's `replyTo`. */
function replyTargetId(target: OutboundTarget, inReplyTo: InboundMessage | undefined): string | undefined {
  const fromEvent = inReplyTo?.platform === "feishu" ? inReplyTo.messageId : undefined;
  if (fromEvent) return fromEvent;
  return target.replyTo?.startsWith("om_") ? target.replyTo : undefined;
}

/** The id type of a receive id: `ou_` open_id, `on_` union_id, otherwise a chat id. */
export function receiveIdType(id: string): "open_id" | "union_id" | "chat_id" {
  if (id.startsWith("ou_")) return "open_id";
  if (id.startsWith("on_")) return "union_id";
  return "chat_id";
}

/** A private reply as a card-callback toast: its plain text, on one short line. */
function toastText(reply: Reply): string {
  const text = renderText(reply)
    .map((payload) => String((JSON.parse(payload.content) as { text?: string }).text ?? ""))
    .join(" ")
    .replace(/`/g, "")
    .replace(/\s+/g, " ")
    .trim();
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}
