import { english, type Text } from "./i18n/messages.js";

/**
 * The result of one `skillgate doctor` check. Checks are produced by the CLI (home, config) and by each
 * platform adapter (credentials and settings it can verify against the platform).
 */

/** How a check came out: fine, worth a look, or broken. */
export type CheckStatus = "ok" | "warn" | "fail";

/** One finding, with the fix when something is wrong. */
export interface Check {
  /** What was checked: `home`, `config`, `telegram`, `feishu`, `discord`. */
  area: string;
  status: CheckStatus;
  /** What was found, in one sentence. */
  summary: string;
  /** What to do about it (for warn and fail). */
  fix?: string;
}

/** A check that passed. */
export function ok(area: string, summary: string): Check {
  return { area, status: "ok", summary };
}

/** A check that needs attention, with its fix. */
export function warn(area: string, summary: string, fix: string): Check {
  return { area, status: "warn", summary, fix };
}

/** A check that failed, with its fix. */
export function failed(area: string, summary: string, fix: string): Check {
  return { area, status: "fail", summary, fix };
}

/** The message of an unknown thrown value. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * What a check says as catalog texts, for the reader's language. The check object itself keeps the
 * English (`doctor --json` prints it as it always was); the texts ride beside it, out of the JSON.
 */
const checkTexts = new WeakMap<Check, { summary: Text; fix?: Text }>();

/** A passed check whose finding is a catalog text. */
export function okText(area: string, summary: Text): Check {
  const check = ok(area, english(summary));
  checkTexts.set(check, { summary });
  return check;
}

/** A check that needs attention, its finding and fix catalog texts. */
export function warnText(area: string, summary: Text, fix: Text): Check {
  const check = warn(area, english(summary), english(fix));
  checkTexts.set(check, { summary, fix });
  return check;
}

/** A failed check, its finding and fix catalog texts. */
export function failText(area: string, summary: Text, fix: Text): Check {
  const check = failed(area, english(summary), english(fix));
  checkTexts.set(check, { summary, fix });
  return check;
}

/** A check's finding and fix as texts for a reader (its English when it was made from plain strings). */
export function checkText(check: Check): { summary: Text; fix?: Text } {
  return checkTexts.get(check) ?? { summary: check.summary, ...(check.fix ? { fix: check.fix } : {}) };
}
