/**
 * Feishu's private secret entry, as pure builders: an interactive card (JSON 2.0) holding a form with
 * one password input and a submit button, and the reader of the `card.action.trigger` callback a submit
 * produces. Form values go from the card straight to the bot in that callback; they never become a chat
 * message. Card JSON 2.0 rules followed here (open.feishu.cn, feishu-cards/card-json-v2-components:
 * containers/form-container and interactive-components/button): a `form` container has a unique `name`
 * and sits at the card's root; every input inside it has a `name`; the button that submits it has a
 * `name` and `form_action_type: "submit"` (`action_type: "form_submit"` is the JSON 1.0 spelling, which
 * a 2.0 card refuses as an unknown attribute); an input's `max_length` is at most 1000.
 */
import { DEFAULT_LOCALE, type Locale } from "../../src/core/i18n/locale.js";
import { type Message, resolveText, t } from "../../src/core/i18n/messages.js";
import { inertCardMarkdown, withoutControls } from "../../src/core/inert-text.js";
import type { SecretInputOpening } from "../../src/core/message.js";

/** Key of the one-time token in the submit button's callback value. */
export const SECRET_VALUE_KEY = "sg_secret";
/** `name` of the password input inside the form. */
export const SECRET_INPUT = "secret_value";
/** Longest value the card input accepts (Feishu's input limit). */
const INPUT_MAX = 1000;

function plain(content: string): { tag: "plain_text"; content: string } {
  return { tag: "plain_text", content };
}

/** The interactive card form a "Set KEY" press opens, as an `im.v1.message` payload. */
export function secretCard(offer: SecretInputOpening): { msg_type: "interactive"; content: string } {
  const say = (text: Message) => resolveText(text, offer.locale ?? DEFAULT_LOCALE);
  const card = {
    schema: "2.0",
    config: { update_multi: true },
    header: { title: plain(say(t("button.setKey", { key: offer.key }))), template: "blue" },
    body: {
      elements: [
        {
          tag: "markdown",
          // The skill's name is its author's text: inert in card markdown (no link, tag or mention).
          content: say(t("secret.input.intro", { skill: inertCardMarkdown(offer.skill) })),
        },
        {
          tag: "form",
          name: "sg_secret_form",
          elements: [
            {
              tag: "input",
              name: SECRET_INPUT,
              input_type: "password",
              required: true,
              max_length: INPUT_MAX,
              label: plain(withoutControls(offer.prompt).slice(0, 100)),
              placeholder: plain(offer.key),
            },
            {
              tag: "button",
              name: "sg_secret_submit",
              text: plain(say(t("form.set.store"))),
              type: "primary",
              form_action_type: "submit",
              behaviors: [{ type: "callback", value: { [SECRET_VALUE_KEY]: offer.token } }],
            },
          ],
        },
      ],
    },
  };
  return { msg_type: "interactive", content: JSON.stringify(card) };
}

/** A submitted secret form, read from the flattened `card.action.trigger` callback data. */
export interface SecretFormSubmit {
  token: string;
  operatorOpenId: string;
  value: string;
  chatId?: string;
}

/** Reads a secret form submission out of a card callback, or undefined for any other card action. */
export function readSecretSubmit(data: Record<string, unknown>): SecretFormSubmit | undefined {
  const action = data.action as
    | { value?: Record<string, unknown>; form_value?: Record<string, unknown> }
    | undefined;
  const token = action?.value?.[SECRET_VALUE_KEY];
  const operator = (data.operator as { open_id?: unknown } | undefined)?.open_id;
  if (typeof token !== "string" || typeof operator !== "string") return undefined;
  const raw = action?.form_value?.[SECRET_INPUT];
  const chatId = (data.context as { open_chat_id?: unknown } | undefined)?.open_chat_id;
  return {
    token,
    operatorOpenId: operator,
    value: typeof raw === "string" ? raw : "",
    ...(typeof chatId === "string" ? { chatId } : {}),
  };
}

/** The callback answer: a toast, and the card replaced by a closed one (the form cannot be resent). */
export function secretCardResponse(
  ok: boolean,
  text: string,
  locale: Locale = DEFAULT_LOCALE,
): Record<string, unknown> {
  const response: Record<string, unknown> = {
    toast: { type: ok ? "success" : "error", content: text.slice(0, 200) },
  };
  if (ok) {
    response.card = {
      type: "raw",
      data: {
        schema: "2.0",
        header: {
          title: plain(text.split("\n")[0] ?? resolveText(t("form.stored.title"), locale)),
          template: "green",
        },
        body: {
          elements: [{ tag: "markdown", content: resolveText(t("secret.input.stored"), locale) }],
        },
      },
    };
  }
  return response;
}
