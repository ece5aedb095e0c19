/** A slow command for the acknowledgement tests: `/crunch` runs until the test releases it. */

import type { CommandSpec } from "../../commands/types.js";
import { defineCommand } from "../../commands/types.js";
import { textReply } from "../../src/core/reply.js";

/**
 * `/crunch`, whose every run waits for `release(text)` and then replies `text`; `release` waits (up to
 * 8 s) for a run to be waiting, so it can be called as soon as the command was sent.
 */
export function gatedCommand(): { spec: CommandSpec; release(text: string): Promise<void> } {
  const gates: ((text: string) => void)[] = [];
  const spec = defineCommand({
    path: ["crunch"],
    summary: "long work (test)",
    mutating: false,
    run: async () => textReply(await new Promise<string>((resolve) => gates.push(resolve))),
  });
  return {
    spec,
    async release(text) {
      const deadline = Date.now() + 8000;
      while (gates.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      gates.shift()?.(text);
    },
  };
}
