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

/** Judges whether this process may write a home's library now. */
export interface WriteFence {
  /** Resolves when the write may happen; throws `FencedError` when it must not. */
  check(what: string): Promise<void>;
  /** The epoch this process writes under, when it leads (recorded in the disk locks it takes). */
  epoch(): number | undefined;
}

/** A write refused because this process no longer leads the home (or never did). */
export class FencedError extends CoordinationError {
  constructor(what: string, reason: string) {
    super(
      "fenced",
      `${what} was refused: ${reason}. Another replica writes this library now; nothing was changed here.`,
    );
  }
}

const fences = new Map<string, WriteFence>();

/** Registers (or with `undefined` removes) the fence of `home` for this process. */
export function setWriteFence(home: string, fence: WriteFence | undefined): void {
  if (fence) fences.set(home, fence);
  else fences.delete(home);
}

/** Throws `FencedError` when this process must not write `home`'s library now (see the file's comment). */
export async function checkWriteFence(home: string, what: string): Promise<void> {
  await fences.get(home)?.check(what);
}

/** The epoch this process writes `home` under, when a fence is registered and it leads. */
export function writerEpoch(home: string): number | undefined {
  return fences.get(home)?.epoch();
}
