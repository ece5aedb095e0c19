/**
 * What a `skill_view` (or `skills_list`) result says to a person, as catalog texts. The result itself is
 * Hermes' JSON (its `error`, `message`, `setup_note`, `gateway_setup_hint` and `security_warnings` stay
 * in English, byte for byte);
 * the same sentences as messages ride along on the result object under a symbol key that is not
 * enumerable, so `JSON.stringify`, spreads and equality checks never see them. Commands read them with
 * `viewTexts` to show the sentence in the reader's locale, and fall back to the English field.
 */
import { english, type Text } from "../core/i18n/messages.js";

/** The person-facing texts of one view result. */
export interface ViewTexts {
  error?: Text;
  setupNote?: Text;
  securityWarnings?: Text[];
  /** A `skills_list` result's `message` (no skills; the skills folder just created). */
  message?: Text;
}

const TEXTS = Symbol("skillgate.viewTexts");

/** Attaches `texts` to `result` (not enumerable) and returns it. */
export function withViewTexts<T extends object>(result: T, texts: ViewTexts): T {
  const known = (result as { [TEXTS]?: ViewTexts })[TEXTS] ?? {};
  Object.defineProperty(result, TEXTS, {
    value: { ...known, ...texts },
    enumerable: false,
    configurable: true,
  });
  return result;
}

/** The texts attached to a view result (empty when none, e.g. a result that went through JSON). */
export function viewTexts(result: object): ViewTexts {
  return (result as { [TEXTS]?: ViewTexts })[TEXTS] ?? {};
}

/** The English strings of texts, for the JSON fields. */
export function englishAll(texts: readonly Text[]): string[] {
  return texts.map(english);
}
