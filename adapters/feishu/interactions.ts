/**
 * Feishu inbound: every event is acknowledged at once; the message goes to the gateway's queue without
 * being awaited (Feishu redelivers when the ack takes over 3 s). Redeliveries are dropped here for the
 * recent past and by the gateway's persistent dedupe (keyed by event id) across restarts. A card button
 * press (`card.action.trigger`) is judged by the gateway and answered within Feishu's 3 s: a refusal as
 * a toast only the presser sees; what a slow press says afterwards is posted to the chat. A "Set KEY"
 * press and a submitted form go to the secret-input flow.
 */
import type { InboundMessage } from "../../src/core/message.js";
import { normalizeCardAction } from "./actions.js";
import { describeError } from "./api-errors.js";
import type { FeishuContext } from "./context.js";
import { normalizeMenuEvent } from "./menu.js";
import { envelopeFromDispatcher, normalizeEvent } from "./normalize.js";
import type { FeishuOutbound } from "./outbound.js";
import type { FeishuSecretFlow } from "./secret-flow.js";
import { readSecretSubmit } from "./secret-input.js";

/** Hands one Feishu adapter's events and card presses to the gateway. */
export class FeishuInteractions {
  constructor(
    private readonly ctx: FeishuContext,
    private readonly outbound: FeishuOutbound,
    private readonly secrets: FeishuSecretFlow,
  ) {}

  /** Handles one dispatched event synchronously (the ack goes out right after); delivery is not awaited. */
  onEvent(data: Record<string, unknown>): void {
    if (this.ctx.stopped) return;
    const envelope = envelopeFromDispatcher(data);
    const message = normalizeEvent(envelope, this.ctx.botOpenId);
    if (!message) return;
    const messageId = envelope.event?.message?.message_id;
    this.deliverOnce(message, [`event:${message.eventId}`, ...(messageId ? [`message:${messageId}`] : [])]);
  }

  /** A bot menu click (`application.bot.menu_v6`): its command for the clicking user, delivered once. */
  onMenuClick(data: Record<string, unknown>): void {
    if (this.ctx.stopped) return;
    const message = normalizeMenuEvent(data, this.ctx.botOpenId);
    if (!message) {
      this.ctx.log.debug({ eventKey: data.event_key }, "feishu menu click ignored (unknown key or no user)");
      return;
    }
    this.deliverOnce(message, [`event:${message.eventId}`]);
  }

  /** Delivers `message` unless one of its redelivery `keys` was seen (then it is dropped). */
  private deliverOnce(message: InboundMessage, keys: string[]): void {
    if (keys.some((key) => this.ctx.recent.has(key))) {
      this.ctx.log.debug({ eventId: message.eventId }, "feishu redelivery dropped");
      return;
    }
    for (const key of keys) this.ctx.recent.add(key);
    void this.deliver(message, keys);
  }

  private async deliver(message: InboundMessage, keys: string[]): Promise<void> {
    try {
      await this.ctx.sink?.(message);
    } catch (error) {
      for (const key of keys) this.ctx.recent.delete(key);
      this.ctx.log.error(
        { eventId: message.eventId, err: describeError(error) },
        "feishu message could not be queued",
      );
    }
  }

  /**
   * A card button press (`card.action.trigger`): handed to the gateway, which judges it before the
   * sink resolves; the callback must be answered within 3 s, with a toast only the presser sees when
   * the press was refused, else with nothing (the card is then updated through the API).
   */
  async onCardAction(data: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (this.ctx.stopped) return {};
    const work = this.answerCardAction(data);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.ctx.tuning.callbackDeadlineMs);
    });
    const answer = await Promise.race([work, late]);
    clearTimeout(timer);
    if (answer !== undefined) return answer;
    // Feishu fails a callback not answered within 3 s: it is answered empty now, and what the press has to
    // say (a refusal, "a form was posted") goes to the chat when it is known.
    void work.then(
      (later) => this.postLateToast(data, later),
      (error: unknown) =>
        this.ctx.log.warn({ err: describeError(error) }, "feishu: a late card press failed"),
    );
    return {};
  }

  /** A callback's toast that came after the callback was answered, posted to the press's chat instead. */
  private async postLateToast(data: Record<string, unknown>, answer: Record<string, unknown>): Promise<void> {
    const toast = answer.toast as { type?: string; content?: string } | undefined;
    const chatId = (data.context as { open_chat_id?: unknown } | undefined)?.open_chat_id;
    if (!toast?.content || toast.type === "success" || typeof chatId !== "string") return;
    await this.outbound
      .send({ chatId }, { blocks: [{ kind: "paragraph", text: toast.content }], exitCode: 0 })
      .catch((error: unknown) =>
        this.ctx.log.warn({ err: describeError(error) }, "feishu: posting a late answer failed"),
      );
  }

  /** The answer to a card callback (see `onCardAction`, which bounds how long it may take). */
  private async answerCardAction(data: Record<string, unknown>): Promise<Record<string, unknown>> {
    const submit = readSecretSubmit(data);
    if (submit) return this.secrets.onSubmit(submit);
    const message = normalizeCardAction(data);
    if (!message) return {};
    const key = `event:${message.eventId}`;
    if (this.ctx.recent.has(key)) return {};
    this.ctx.recent.add(key);
    // A "Set KEY" button posts a card form for the presser (the value goes from the form to the bot only).
    const opened = (await this.ctx.hooks?.secretInput?.open(message)) ?? null;
    if (opened !== null) return this.secrets.postForm(message, opened);
    this.ctx.toasts.set(message.eventId, undefined);
    try {
      await this.ctx.sink?.(message);
    } catch (error) {
      this.ctx.recent.delete(key);
      this.ctx.log.error(
        { eventId: message.eventId, err: describeError(error) },
        "feishu press could not be queued",
      );
    }
    const toast = this.ctx.toasts.get(message.eventId);
    this.ctx.toasts.delete(message.eventId);
    return toast ? { toast: { type: "error", content: toast } } : {};
  }
}
