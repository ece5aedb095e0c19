/**
 * Discord's private secret entry, as pure payload builders: the modal a "Set KEY" button (an ordinary
 * stored action, rendered by `actions.ts`) opens (title ≤ 45 characters, one short text input inside a
 * label component, label ≤ 45), and the one-time token read back from its custom_id. What is typed
 * into a modal reaches only the bot (a MODAL_SUBMIT interaction), never the channel's history.
 */
import { DEFAULT_LOCALE, type Locale } from "../../src/core/i18n/locale.js";
import { resolveText, t } from "../../src/core/i18n/messages.js";

/** custom_id prefix of skillgate's secret modals; the rest is the one-time token. */
export const SECRET_CUSTOM_ID = "sg:secret:";
/** custom_id of the text input inside the modal. */
export const SECRET_FIELD = "value";

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The token inside a secret modal's custom_id, or undefined for any other. */
export function secretToken(customId: string): string | undefined {
  if (!customId.startsWith(SECRET_CUSTOM_ID)) return undefined;
  const token = customId.slice(SECRET_CUSTOM_ID.length);
  return /^[A-Za-z0-9_-]{16,64}$/.test(token) ? token : undefined;
}

/** The modal for one secret, in `locale`: a label wrapping a required one-line text input. */
export function secretModal(
  token: string,
  key: string,
  prompt: string,
  locale: Locale = DEFAULT_LOCALE,
): Record<string, unknown> {
  return {
    custom_id: `${SECRET_CUSTOM_ID}${token}`,
    title: clip(resolveText(t("button.setKey", { key }), locale), 45),
    components: [
      {
        type: 18,
        label: clip(prompt, 45),
        description: clip(resolveText(t("secret.input.hint"), locale), 100),
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

/** A component of a submitted modal, as Discord sends it (a label holding one input, or an action row). */
interface SubmittedComponent {
  type?: number;
  custom_id?: string;
  value?: unknown;
  component?: SubmittedComponent;
  components?: SubmittedComponent[];
}

/**
 * What a MODAL_SUBMIT interaction (type 5) carries for the secret flow: the modal's custom_id, the
 * submitter and the value of the `SECRET_FIELD` input (inside a label component, type 18, or an action
 * row, type 1; Discord docs, Receiving and Responding → Modal Submit Data Structure). Null for any other
 * interaction.
 */
export function modalSubmission(raw: {
  type: number;
  data?: unknown;
  member?: { user?: { id: string } };
  user?: { id: string };
}): { customId: string; userId: string; value: string } | null {
  const data = raw.data as { custom_id?: unknown; components?: SubmittedComponent[] } | undefined;
  const userId = raw.member?.user?.id ?? raw.user?.id;
  if (raw.type !== 5 || typeof data?.custom_id !== "string" || !userId) return null;
  const inputs = (data.components ?? []).flatMap((entry) => [
    ...(entry.component ? [entry.component] : []),
    ...(entry.components ?? []),
  ]);
  const input = inputs.find((entry) => entry.custom_id === SECRET_FIELD);
  return {
    customId: data.custom_id,
    userId,
    value: typeof input?.value === "string" ? input.value : "",
  };
}
