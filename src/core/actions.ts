/**
 * The neutral action model: buttons a `Reply` may carry, paging of one long block, and the "card"
 * presentation hint. Commands attach actions as data (which command to run when pressed); they never
 * see platform payloads or callback ids. The gateway stores each action it shows under an opaque random
 * id (`ActionStore`), and adapters that can show buttons render `ReplyAction.id` as the callback data.
 * A surface that cannot show buttons (terminal, CLI, text-only chats) ignores all of this and shows
 * `Reply.blocks` unchanged, so confirmations keep their "repeat with -y" text there.
 *
 * Reused by later surfaces (web console, skill set-up from chat): build actions with `runAction`,
 * `cancelAction` and `actionRow`, let the gateway's action router store and dispatch them.
 */
import { type Text, t } from "./i18n/messages.js";

/** Scalar option values a stored command invocation may carry. */
export type ActionOptionValue = string | number | boolean;

/** A command invocation a button runs: the registry path, positional args and options by long name. */
export interface ActionInvocation {
  path: string[];
  args: string[];
  options: Record<string, ActionOptionValue>;
}

/** What pressing a button does. */
export type ActionIntent =
  /** Runs a command as the presser (access re-checked). `confirmed` adds `-y` (the press is the answer). */
  | { kind: "run"; invocation: ActionInvocation; confirmed?: boolean }
  /** Withdraws a question: the message says so and its sibling buttons stop working. */
  | { kind: "cancel" }
  /** Shows page `page` (0-based) of the invocation's paged block, editing the message in place. */
  | { kind: "page"; invocation: ActionInvocation; page: number }
  /**
   * Opens a private input for the secret `key` of `skill` (admins; access re-checked on press): a
   * modal, a card form or a one-time link, by platform. The value never passes through the chat.
   */
  | { kind: "secret"; skill: string; key: string };

/** How a button looks; platforms map it to their closest style. */
export type ActionStyle = "primary" | "danger" | "secondary";

/**
 * What a press does to the message carrying the button: `replace` edits it in place with the result
 * (confirmations, paging); `reply` leaves it and answers with a new message (a Restore button on a
 * summary keeps the summary readable).
 */
export type ActionPlacement = "replace" | "reply";

/** One button; its label is `Text` as commands build it, a string once localized. */
export interface ReplyAction<L = Text> {
  label: L;
  intent: ActionIntent;
  style?: ActionStyle;
  placement?: ActionPlacement;
  /**
   * Buttons sharing a group are answered once: the first accepted press of any of them uses up all
   * (Confirm and Cancel of one question). Absent: the button is its own group.
   */
  group?: string;
  /** Set by the gateway when stored: the opaque callback id an adapter puts on the button. */
  id?: string;
}

/**
 * The buttons of a reply, in rows. `Block` is the reply's block type and `L` its label type (kept
 * generic: no import cycle).
 */
export interface ReplyActions<Block = unknown, L = Text> {
  rows: ReplyAction<L>[][];
  /**
   * Blocks shown instead of `Reply.blocks` when the buttons are shown (e.g. the question without its
   * "reply `… -y` to confirm" line). Absent: the blocks are shown as they are.
   */
  blocksWithButtons?: Block[];
}

/** Marks one list or table block of a reply as pageable in chats that can edit messages in place. */
export interface ReplyPaging {
  /** Index into `Reply.blocks` of the list, table or code block to page. */
  block: number;
  /** The invocation that produced the reply; paging re-runs it for fresh data. */
  invocation: ActionInvocation;
}

/** How a reply would like to be presented where the platform has a richer form. */
export type ReplyLayout = "card";

/** A button that runs a command. */
export function runAction(
  label: Text,
  invocation: ActionInvocation,
  options: { confirmed?: boolean; style?: ActionStyle; placement?: ActionPlacement; group?: string } = {},
): ReplyAction {
  return {
    label,
    intent: { kind: "run", invocation, confirmed: options.confirmed },
    style: options.style,
    placement: options.placement,
    group: options.group,
  };
}

/** A Cancel button for a question; give it the same group as the confirming button. */
export function cancelAction(group: string, label: Text = t("button.cancel")): ReplyAction {
  return { label, intent: { kind: "cancel" }, style: "secondary", placement: "replace", group };
}

/** A "Set KEY" button: opens the platform's private input for one missing secret of a skill. */
export function secretAction(skill: string, key: string): ReplyAction {
  return {
    label: t("button.setKey", { key }),
    intent: { kind: "secret", skill, key },
    style: "primary",
    placement: "reply",
  };
}

/** An invocation value, dropping undefined options. */
export function invocation(
  path: string[],
  args: string[] = [],
  options: Record<string, ActionOptionValue | undefined> = {},
): ActionInvocation {
  const kept: Record<string, ActionOptionValue> = {};
  for (const [name, value] of Object.entries(options)) if (value !== undefined) kept[name] = value;
  return { path: [...path], args: [...args], options: kept };
}

/** Every action of a reply, row by row. */
export function allActions<L>(actions: ReplyActions<unknown, L> | undefined): ReplyAction<L>[] {
  return actions ? actions.rows.flat() : [];
}
