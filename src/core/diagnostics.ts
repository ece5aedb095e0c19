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
