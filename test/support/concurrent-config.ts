/**
 * A concurrent save of config.yaml for end-to-end tests: `vi.mock` the edit module with
 * `withConcurrentSave`, then `saveDuring(write)` makes the next edit meet `write` between reading the
 * file and replacing it — the window in which another editor could save — so the chat command's own
 * detection is what the test exercises.
 */
import type * as EditModule from "../../src/config/edit.js";

let pending: (() => Promise<void>) | undefined;

/** The next config edit runs `write` after reading config.yaml and before writing it. */
export function saveDuring(write: () => Promise<void>): void {
  pending = write;
}

/** The edit module with `editConfigFile` calling the pending concurrent save at its last moment. */
export function withConcurrentSave(real: typeof EditModule): typeof EditModule {
  return {
    ...real,
    editConfigFile: (home, change, options = {}) =>
      real.editConfigFile(home, change, {
        ...options,
        beforeWrite: async () => {
          await options.beforeWrite?.();
          const write = pending;
          pending = undefined;
          await write?.();
        },
      }),
  };
}
