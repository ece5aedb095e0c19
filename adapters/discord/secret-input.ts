/**
 * Discord's private secret entry, as pure payload builders: a "Set KEY" button per offered secret
 * (message components: action rows of at most 5 buttons, at most 5 rows, custom_id ≤ 100 characters,
 * label ≤ 80), and the modal a click opens (title ≤ 45 characters, one short text input inside a label
 * component, label ≤ 45). What is typed into a modal reaches only the bot (a MODAL_SUBMIT interaction),
 * never the channel's history.
 */
import type { SecretInputOffer } from "../../src/core/reply.js";

/** custom_id prefix of skillgate's secret buttons and modals; the rest is the one-time token. */
export const SECRET_CUSTOM_ID = "sg:secret:";
/** custom_id of the text input inside the modal. */
export const SECRET_FIELD = "value";

const MAX_BUTTONS_PER_ROW = 5;
const MAX_ROWS = 5;

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The token inside a secret button's or modal's custom_id, or undefined for any other component. */
export function secretToken(customId: string): string | undefined {
  if (!customId.startsWith(SECRET_CUSTOM_ID)) return undefined;
  const token = customId.slice(SECRET_CUSTOM_ID.length);
  return /^[A-Za-z0-9_-]{16,64}$/.test(token) ? token : undefined;
}

/** Action rows with one primary button per offer (extra offers beyond 25 are left out). */
export function secretButtonRows(offers: readonly SecretInputOffer[]): Record<string, unknown>[] {
  const buttons = offers.slice(0, MAX_BUTTONS_PER_ROW * MAX_ROWS).map((offer) => ({
    type: 2,
    style: 1,
    label: clip(`Set ${offer.key}`, 80),
    custom_id: `${SECRET_CUSTOM_ID}${offer.token}`,
  }));
  const rows: Record<string, unknown>[] = [];
  for (let at = 0; at < buttons.length; at += MAX_BUTTONS_PER_ROW) {
    rows.push({ type: 1, components: buttons.slice(at, at + MAX_BUTTONS_PER_ROW) });
  }
  return rows;
}

/** The modal for one secret: a label wrapping a required one-line text input. */
export function secretModal(token: string, key: string, prompt: string): Record<string, unknown> {
  return {
    custom_id: `${SECRET_CUSTOM_ID}${token}`,
    title: clip(`Set ${key}`, 45),
    components: [
      {
        type: 18,
        label: clip(prompt, 45),
        description: clip("Stored in the gateway's .env file; not shown in the chat.", 100),
        component: {
          type: 4,
          custom_id: SECRET_FIELD,
          style: 1,
          required: true,
          min_length: 1,
          max_length: 4000,
        },
      },
    ],
  };
}
