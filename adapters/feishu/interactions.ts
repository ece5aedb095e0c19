/**
 * Feishu inbound. With one gateway every event is acknowledged at once; the message goes to the
 * gateway's queue without being awaited (Feishu redelivers when the ack takes over 3 s). With several
 * replicas taking traffic (`AdapterHooks.sharedIngress`) an event is acknowledged only once the sink
 * took it (appended to the shared inbox): a refusal throws `NotTakenError`, so the long connection acks
 * 500 and the webhook answers 503, and Feishu pushes the event again, maybe to another replica.
 * Redeliveries are dropped here for the recent past (only of events that were taken; a re-push that
 * arrives while the first sink call is still running waits for that call) and by the gateway's
 * persistent dedupe (keyed by event id) across restarts. A card button press (`card.action.trigger`) is
 * judged by the gateway and answered within Feishu's 3 s: a refusal as a toast only the presser sees;
 * what a slow press says afterwards is posted to the chat. A "Set KEY" press and a submitted form go to
 * the secret-input flow.
 */
import { AdapterError } from "../../src/core/errors.js";
import { type InboundMessage, notTakenNotice } from "../../src/core/message.js";
import { normalizeCardAction } from "./actions.js";
import { describeError } from "./api-errors.js";
import type { FeishuContext } from "./context.js";
import { normalizeMenuEvent } from "./menu.js";
import { envelopeFromDispatcher, normalizeEvent } from "./normalize.js";
import type { FeishuOutbound } from "./outbound.js";
import type { FeishuSecretFlow } from "./secret-flow.js";
import { readSecretSubmit } from "./secret-input.js";

/** The code of `NotTakenError`. */
export const NOT_TAKEN_CODE = "adapter.feishu.not_taken";

/**
 * An event the sink refused (the shared inbox is unreachable, or the adapter is stopping): it must not
 * be acknowledged, so Feishu pushes it again.
 */
export class NotTakenError extends AdapterError {
  constructor(eventId: string, reason: string, cause?: unknown) {
    super("feishu", `The Feishu event ${eventId} was not taken (${reason}); Feishu will push it again.`, {
      cause,
      code: NOT_TAKEN_CODE,
    });
  }
}

/** True for a `NotTakenError` (also across module copies: by its code). */
export function isNotTaken(error: unknown): boolean {
  return error instanceof AdapterError && error.code === NOT_TAKEN_CODE;
}

/** Hands one Feishu adapter's events and card presses to the gateway. */
export class FeishuInteractions {
  /** Deliveries whose sink call is still running, by redelivery key (several replicas only). */
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly ctx: FeishuContext,
    private readonly outbound: FeishuOutbound,
    private readonly secrets: FeishuSecretFlow,
  ) {}

  /**
   * Handles one dispatched event. One gateway: synchronously (the ack goes out right after; delivery is
   * not awaited). Several replicas: resolves once the sink took it, throws `NotTakenError` when not.
   */
  onEvent(data: Record<string, unknown>): Promise<void> {
    const envelope = envelopeFromDispatcher(data);
    if (this.ctx.stopped) return this.refuseWhileStopped(envelope.header?.event_id);
    const message = normalizeEvent(envelope, this.ctx.botOpenId);
    if (!message) return Promise.resolve();
    const messageId = envelope.event?.message?.message_id;
    return this.deliverOnce(message, [
      `event:${message.eventId}`,
      ...(messageId ? [`message:${messageId}`] : []),
    ]);
  }

  /** A bot menu click (`application.bot.menu_v6`): its command for the clicking user, delivered once. */
  onMenuClick(data: Record<string, unknown>): Promise<void> {
    if (this.ctx.stopped) return this.refuseWhileStopped(data.event_id);
    const message = normalizeMenuEvent(data, this.ctx.botOpenId);
    if (!message) {
      this.ctx.log.debug(
        { eventId: data.event_id, eventKey: data.event_key },
        "feishu menu click ignored (unknown key or no user)",
      );
      return Promise.resolve();
    }
    return this.deliverOnce(message, [`event:${message.eventId}`]);
  }

  /** True when several replicas take traffic: events are acked only once the shared inbox took them. */
  private get shared(): boolean {
    return this.ctx.hooks?.sharedIngress === true;
  }

  /**
   * An event that reaches a stopped adapter: one gateway drops it (as before); with several replicas
   * it is refused, so Feishu pushes it again to a replica that runs.
   */
  private refuseWhileStopped(eventId: unknown): Promise<void> {
    return this.shared
      ? Promise.reject(new NotTakenError(String(eventId ?? "?"), "this replica is stopping"))
      : Promise.resolve();
  }

  /**
   * Delivers `message` unless one of its redelivery `keys` was taken lately (then it is dropped). With
   * one gateway the delivery is not awaited; with several replicas the returned promise is the sink's
   * verdict, and a re-push while the first call still runs gets that same verdict.
   */
  private deliverOnce(message: InboundMessage, keys: string[]): Promise<void> {
    const running = keys.map((key) => this.inFlight.get(key)).find((entry) => entry !== undefined);
    if (running) return running;
    if (keys.some((key) => this.ctx.recent.has(key))) {
      this.ctx.log.debug({ eventId: message.eventId }, "feishu redelivery dropped");
      return Promise.resolve();
    }
    for (const key of keys) this.ctx.recent.add(key);
    const delivery = this.deliver(message, keys);
    if (!this.shared) {
      void delivery.catch(() => {});
      return Promise.resolve();
    }
    for (const key of keys) this.inFlight.set(key, delivery);
    const settled = () => {
      for (const key of keys) if (this.inFlight.get(key) === delivery) this.inFlight.delete(key);
    };
    delivery.then(settled, settled);
    return delivery;
  }

  /** Hands `message` to the sink; a refusal forgets its keys (so a re-push is tried again) and throws. */
  private async deliver(message: InboundMessage, keys: string[]): Promise<void> {
    try {
      await this.ctx.sink?.(message);
    } catch (error) {
      for (const key of keys) this.ctx.recent.delete(key);
      this.ctx.log.error(
        { eventId: message.eventId, err: describeError(error) },
        "feishu message could not be queued",
      );
      throw new NotTakenError(
        message.eventId,
        `the gateway did not accept it: ${describeError(error)}`,
        error,
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
    let taken = true;
    try {
      await this.ctx.sink?.(message);
    } catch (error) {
      taken = false;
      this.ctx.recent.delete(key);
      this.ctx.log.error(
        { eventId: message.eventId, err: describeError(error) },
        "feishu press could not be queued",
      );
    }
    const toast = this.ctx.toasts.get(message.eventId);
    this.ctx.toasts.delete(message.eventId);
    // Several replicas: the sink only appended the press to the shared inbox and the leader judges it
    // later, so this replica answers the callback now; a press the inbox refused asks for another try.
    if (!taken && this.shared)
      return { toast: { type: "error", content: notTakenNotice(this.ctx.hooks, message, "press") } };
    return toast ? { toast: { type: "error", content: toast } } : {};
  }
}
