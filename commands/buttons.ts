/**
 * Buttons and paging the commands attach to their replies (see `src/core/actions.ts`). Surfaces without
 * buttons ignore them, so the terminal and the CLI print exactly what they printed before.
 */
import { invocation, type ReplyAction, runAction } from "../src/core/actions.js";
import { t } from "../src/core/i18n/messages.js";
import type { Reply } from "../src/core/reply.js";
import type { CommandInput } from "./types.js";

/** Restore buttons shown at most on one reply (Discord allows 25 components; a row for the rest). */
export const MAX_RESTORE_BUTTONS = 8;

/** Buttons per row. */
const ROW_SIZE = 4;

/** The invocation of a command as it was run (without `--json` and `-y`). */
export function invocationOf(path: string[], input: CommandInput) {
  const { json: _json, yes: _yes, ...options } = input.options;
  return invocation(path, input.args, options);
}

/** Marks block `index` of `value` as the pageable one, re-run by `path` with `input` for each page. */
export function paged(value: Reply, index: number, path: string[], input: CommandInput): Reply {
  return { ...value, paging: { block: index, invocation: invocationOf(path, input) } };
}

/** One "Restore <name>" button per archived name (at most `MAX_RESTORE_BUTTONS`), in rows. */
export function restoreRows(names: string[]): ReplyAction[][] {
  const buttons = [...new Set(names)].slice(0, MAX_RESTORE_BUTTONS).map((name) =>
    runAction(t("button.restore", { name }), invocation(["curator", "restore"], [name]), {
      confirmed: true,
      style: "primary",
      placement: "reply",
    }),
  );
  const rows: ReplyAction[][] = [];
  for (let start = 0; start < buttons.length; start += ROW_SIZE)
    rows.push(buttons.slice(start, start + ROW_SIZE));
  return rows;
}

/** Adds rows of buttons to a reply (after any it already has). */
export function withButtons(value: Reply, rows: ReplyAction[][]): Reply {
  const kept = rows.filter((row) => row.length > 0);
  if (kept.length === 0) return value;
  return { ...value, actions: { ...value.actions, rows: [...(value.actions?.rows ?? []), ...kept] } };
}
