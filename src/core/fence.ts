/**
 * Write fencing for several gateways on one home. When coordination is on, only the leader writes the
 * library, and correctness must not rest on the lease alone (a leader paused for longer than its lease
 * still believes it leads): every write batch — a curator apply chunk, a usage flush, a config edit, a
 * `.env` write, a rollback step — asks `checkWriteFence(home, what)` first. The gateway registers the
 * fence of its leadership (`setWriteFence`), which compares its epoch with the one recorded on disk by
 * the current leader and refuses a stale one with `FencedError`. Without a registered fence (no
 * coordination, the CLI) every write is allowed, as before.
 */
import { CoordinationError } from "./errors.js";
import { english, type Text, t } from "./i18n/messages.js";

/** Judges whether this process may write a home's library now. */
export interface WriteFence {
  /**
   * Resolves when the write may happen; throws `FencedError` when it must not. `what` names the write in
   * English (the fence's log line); `checkWriteFence` gives the person the catalog's words for it.
   */
  check(what: string): Promise<void>;
  /** The epoch this process writes under, when it leads (recorded in the disk locks it takes). */
  epoch(): number | undefined;
}

/**
 * A write refused because this process no longer leads the home (or never did): `text` in the reader's
 * words (`fence.refused`), `message` its English. `what` names the write, `reason` says why.
 */
export class FencedError extends CoordinationError {
  /** The write that was refused (`fence.what.*`, or the English a caller passed). */
  readonly what: Text;
  /** Why this replica may not write now. */
  readonly reason: Text;
  constructor(what: Text, reason: Text, options?: { cause?: unknown }) {
    super("fenced", t("fence.refused", { what, reason }), options);
    this.what = what;
    this.reason = reason;
  }
}

const fences = new Map<string, WriteFence>();

/** Registers (or with `undefined` removes) the fence of `home` for this process. */
export function setWriteFence(home: string, fence: WriteFence | undefined): void {
  if (fence) fences.set(home, fence);
  else fences.delete(home);
}

/**
 * Throws `FencedError` when this process must not write `home`'s library now (see the file's comment).
 * `what` names the write (`fence.what.*`); the fence hears its English, the error carries the text.
 */
export async function checkWriteFence(home: string, what: Text): Promise<void> {
  const fence = fences.get(home);
  if (!fence) return;
  const named = english(what);
  try {
    await fence.check(named);
  } catch (error) {
    // Same English message; the person reads the write in their own words.
    if (error instanceof FencedError && error.what === named && typeof what !== "string")
      throw new FencedError(what, error.reason);
    throw error;
  }
}

/** The epoch this process writes `home` under, when a fence is registered and it leads. */
export function writerEpoch(home: string): number | undefined {
  return fences.get(home)?.epoch();
}
