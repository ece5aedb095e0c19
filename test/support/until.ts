/** Waiting helpers for the end-to-end tests that run real processes, and a probe of overlapping work. */

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 50 ms until it gives a value; throws naming `what` after `ms`. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  ms: number,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/**
 * Runs `count` sections of a few milliseconds each at once, every one passed through `guard` (a lock
 * under test), and returns the most that were ever inside at the same time.
 */
export async function mostInsideAtOnce(
  count: number,
  guard: (section: () => Promise<void>) => Promise<unknown>,
): Promise<number> {
  let inside = 0;
  let most = 0;
  await Promise.all(
    Array.from({ length: count }, () =>
      guard(async () => {
        inside += 1;
        most = Math.max(most, inside);
        await sleep(2);
        inside -= 1;
      }),
    ),
  );
  return most;
}

/** Waits up to 5 s for the message whose event id is `eventId` to arrive in `inbox`, and returns it. */
export function arrived<T extends { eventId: string }>(inbox: readonly T[], eventId: string): Promise<T> {
  return until(
    `event ${eventId} in the inbox`,
    () => inbox.find((message) => message.eventId === eventId),
    5000,
  );
}
