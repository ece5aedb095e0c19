/**
 * Buttons and cards on Feishu/Lark. Pure. A reply with buttons or the `card` layout is sent as an
 * interactive message card (JSON 1.0: `config`, `header`, `elements`), each button carrying the
 * gateway's opaque action id in its `value`. Cards are declared shared (`config.update_multi: true`),
 * which the IM API requires before and after `PATCH /im/v1/messages/:id` replaces a card in place. A
 * press arrives as the `card.action.trigger` callback (over the long connection or the webhook, in the
 * 2.0 event envelope): the operator, `action.value`, and `context.open_message_id`/`open_chat_id`.
 */
import type { ReplyAction } from "../../src/core/actions.js";
import { resolveText, t } from "../../src/core/i18n/messages.js";
import type { InboundMessage } from "../../src/core/message.js";
import { formatTable, type LocalizedBlock, localizeReply, type Reply } from "../../src/core/reply.js";
import { FEISHU_MAX_CONTENT_BYTES, type FeishuPayload, requestBytes } from "./render.js";

/** The callback type of a card button press. */
export const CARD_ACTION_EVENT_TYPE = "card.action.trigger";

/** The key of a button's `value` that holds the action id. */
const ACTION_KEY = "action_id";

/** Button types of card JSON 1.0. */
const BUTTON_TYPES = { primary: "primary", danger: "danger", secondary: "default" } as const;

type CardElement = Record<string, unknown>;

/** Text for a card's `plain_text`, which shows no markdown: code spans keep their words, not their backticks. */
export function plainText(text: string): string {
  return text.replace(/`([^`\n]+)`/g, "$1");
}

function textElement(text: string): CardElement {
  return { tag: "div", text: { tag: "plain_text", content: plainText(text) } };
}

function blockElement(block: LocalizedBlock): CardElement | undefined {
  switch (block.kind) {
    case "heading":
    case "paragraph":
      return block.text.trim() ? textElement(block.text) : undefined;
    case "list":
      return block.items.length > 0
        ? textElement(
            block.items.map((item, index) => `${block.ordered ? `${index + 1}.` : "•"} ${item}`).join("\n"),
          )
        : undefined;
    case "code":
      return block.text.trim() ? textElement(block.text.replace(/\n+$/, "")) : undefined;
    case "table":
      return textElement(formatTable(block.headers, block.rows));
    case "attachment":
      return textElement(`[${block.name}]\n${block.text.replace(/\n+$/, "")}`);
  }
}

function buttonElement(action: ReplyAction<string> & { id: string }): CardElement {
  return {
    tag: "button",
    text: { tag: "plain_text", content: plainText(action.label) },
    type: BUTTON_TYPES[action.style ?? "secondary"],
    value: { [ACTION_KEY]: action.id },
  };
}

/**
 * The card JSON of a reply, in its locale: the first heading as its header, one element per block,
 * then the buttons.
 */
export function replyCard(value: Reply): Record<string, unknown> {
  const reply = localizeReply(value);
  const [first, ...rest] = reply.blocks;
  const titled = first?.kind === "heading";
  const elements = (titled ? rest : reply.blocks)
    .map(blockElement)
    .filter((element): element is CardElement => element !== undefined);
  for (const row of reply.actions?.rows ?? []) {
    const buttons = row.filter(
      (action): action is ReplyAction<string> & { id: string } => typeof action.id === "string",
    );
    if (buttons.length > 0) elements.push({ tag: "action", actions: buttons.map(buttonElement) });
  }
  if (elements.length === 0) elements.push(textElement(resolveText(t("reply.done"), reply.locale)));
  return {
    config: { wide_screen_mode: true, update_multi: true },
    ...(titled
      ? { header: { title: { tag: "plain_text", content: plainText(first.text) }, template: "blue" } }
      : {}),
    elements,
  };
}

/**
 * The reply as one interactive message, or undefined when the card would be over the size limit. The
 * limit applies to the request body (Feishu: a card's request body is at most 30 KB, for sending and
 * for updating alike), where `content` travels escaped once more, so that is what is measured.
 */
export function renderCard(reply: Reply, maxBytes = FEISHU_MAX_CONTENT_BYTES): FeishuPayload | undefined {
  const payload: FeishuPayload = { msg_type: "interactive", content: JSON.stringify(replyCard(reply)) };
  return requestBytes(payload) <= maxBytes ? payload : undefined;
}

/** True when the reply carries stored buttons (ids set by the gateway). */
export function hasButtons(reply: Reply): boolean {
  return (reply.actions?.rows ?? []).some((row) => row.some((action) => typeof action.id === "string"));
}

/**
 * A `card.action.trigger` callback (flattened by the SDK's dispatcher: header fields beside
 * `operator`, `action` and `context`) → a press; null when it is not one of our buttons.
 */
export function normalizeCardAction(data: Record<string, unknown>): InboundMessage | null {
  const operator = data.operator as { open_id?: string; name?: string } | undefined;
  const action = data.action as { value?: Record<string, unknown> } | undefined;
  const context = data.context as { open_message_id?: string; open_chat_id?: string } | undefined;
  const actionId = action?.value?.[ACTION_KEY];
  const chatId = context?.open_chat_id ?? (data.open_chat_id as string | undefined);
  const messageId = context?.open_message_id ?? (data.open_message_id as string | undefined);
  const eventId = data.event_id;
  if (typeof actionId !== "string" || !operator?.open_id || !chatId || typeof eventId !== "string")
    return null;
  const created = Number(data.create_time);
  return {
    eventId,
    platform: "feishu",
    chat: { kind: "group", id: chatId },
    sender: { id: operator.open_id, ...(operator.name ? { name: operator.name } : {}), isBot: false },
    text: "",
    receivedAt: Number.isFinite(created) && created > 0 ? created : Date.now(),
    raw: data,
    press: { actionId, messageId },
  };
}
