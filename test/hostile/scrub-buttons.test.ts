/**
 * Buttons are outbound text too: their labels and the blocks shown beside them are scrubbed of secrets,
 * while the stored ids a press comes back with stay as they are.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/config.js";
import { invocation, runAction } from "../../src/core/actions.js";
import { reply } from "../../src/core/reply.js";
import { OutboundScrubber, REDACTED } from "../../src/gateway/scrub.js";

const SECRET = "sk-live-8f3a9c2e71d04b55";
const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await fs.rm(dir, { recursive: true, force: true });
});

describe("outbound scrubbing of buttons", () => {
  it("redacts a secret in a button label and in the blocks shown with buttons, keeping the action id", async () => {
    const home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-scrub-"));
    dirs.push(home);
    await fs.writeFile(path.join(home, ".env"), `OPENROUTER_API_KEY=${SECRET}\n`);
    const scrubber = new OutboundScrubber(home, parseConfig({}), {});
    const button = {
      ...runAction(`Restore ${SECRET}`, invocation(["curator", "restore"], [SECRET])),
      id: "abc123",
    };
    const out = scrubber.reply({
      ...reply([{ kind: "paragraph", text: `key ${SECRET}` }]),
      actions: { rows: [[button]], blocksWithButtons: [{ kind: "paragraph", text: `ask ${SECRET}?` }] },
    });
    const shown = JSON.stringify({
      blocks: out.blocks,
      labels: out.actions?.rows.flat().map((a) => a.label),
    });
    expect(shown).not.toContain(SECRET);
    expect(out.actions?.rows[0]?.[0]?.label).toBe(`Restore ${REDACTED}`);
    expect(out.actions?.blocksWithButtons).toEqual([{ kind: "paragraph", text: `ask ${REDACTED}?` }]);
    expect(out.actions?.rows[0]?.[0]?.id).toBe("abc123");
  });
});
