/**
 * What the curator commands share: the operations context a command hands the curator, and the way
 * they write an age and a count.
 */
import { ago as agoText, pad, type Text, t } from "../src/core/i18n/messages.js";
import type { OpsContext } from "../src/curator/operations.js";
import { parseTimestamp } from "../src/skills/usage-record.js";
import type { CommandContext } from "./types.js";

/** The curator operations context of a command's context. */
export function ops(ctx: CommandContext): OpsContext {
  return {
    home: ctx.home,
    config: ctx.config,
    library: ctx.library,
    now: ctx.now(),
    commandPrefix: ctx.commandPrefix,
    meter: ctx.meter,
  };
}

/** `never`, `42s ago` … `12d ago` in the reader's locale; an unparseable value is shown as it is. */
export function since(value: string | null, now: Date): Text {
  if (value === null) return t("cmd.time.never");
  const ms = parseTimestamp(value);
  if (ms === undefined) return value;
  return agoText((now.getTime() - ms) / 1000);
}

/** A count right-aligned in `width` columns (written as digits, never grouped). */
export function padNumber(n: number, width = 3): Text {
  return pad(String(n), width, "start");
}
