/**
 * The gateway's side of buttons. `present` prepares a reply for one adapter: on a surface with buttons
 * it pages the reply's pageable block, stores every action under an opaque id (`ActionStore`) and
 * swaps in the blocks meant to go with buttons; elsewhere it strips the actions so the text fallback is
 * all that is shown. `judgePress` decides what a button press may do, for the person who pressed: an
 * unknown (forged), expired or used id, a press from another chat, or a presser whose access does not
 * allow the command is refused with a reply meant only for them; otherwise the press is accepted and a
 * single-use button (with its group) is used up before anything runs. A "Set KEY" button (intent
 * `secret`) is judged the same way, for admins only, and may be pressed again: what it opens (a modal,
 * card form or one-time link) is itself single-use.
 */

import { accessRefusal } from "../../commands/runner.js";
import type { CommandContext, CommandInput, CommandSpec } from "../../commands/types.js";
import {
  type ActionInvocation,
  type ActionPlacement,
  allActions,
  type ReplyAction,
} from "../core/actions.js";
import { type Text, t } from "../core/i18n/messages.js";
import type { InboundMessage } from "../core/message.js";
import { type Reply, type ReplyBlock, textReply } from "../core/reply.js";
import { type ButtonStore, newActionId, type StoredAction } from "./action-store.js";

/** Items per page when a reply is paged. */
export const DEFAULT_PAGE_SIZE = 20;

/** Where a reply is shown. */
export interface PresentTarget {
  platform: string;
  chatId: string;
  /** The adapter shows buttons and edits messages in place. */
  buttons: boolean;
  /** Page of the paged block to show (0-based; clamped). */
  page?: number;
}

/** What a press was judged to be. */
export type PressVerdict =
  | { kind: "refused"; reply: Reply }
  | { kind: "cancel"; action: StoredAction }
  | { kind: "secret"; action: StoredAction; skill: string; key: string }
  | { kind: "run"; action: StoredAction; spec: CommandSpec; input: CommandInput; page?: number };

/** A reply meant only for the person who pressed. */
function privateNotice(text: Text): Reply {
  return { ...textReply(text, { exitCode: 1 }), private: true };
}

/** Turns a stored invocation back into parsed command input (`yes` added when the press confirms). */
export function inputOf(invocation: ActionInvocation, confirmed: boolean): CommandInput {
  const options: CommandInput["options"] = { ...invocation.options };
  if (confirmed) options.yes = true;
  return { args: [...invocation.args], options };
}

/** Buttons, paging and presses for one gateway. */
export class ActionRouter {
  constructor(
    private readonly store: ButtonStore,
    private readonly registry: readonly CommandSpec[],
    private readonly pageSize: number = DEFAULT_PAGE_SIZE,
  ) {}

  /** The command spec an invocation names, if it still exists. */
  specOf(invocation: ActionInvocation): CommandSpec | undefined {
    const wanted = invocation.path.join(" ");
    return this.registry.find((spec) => spec.path.join(" ") === wanted);
  }

  /** Prepares `reply` for a target (see the module comment). */
  async present(reply: Reply, target: PresentTarget): Promise<Reply> {
    if (!target.buttons) {
      const { actions: _actions, paging: _paging, ...plain } = reply;
      return plain;
    }
    const paged = this.applyPaging(reply, target.page ?? 0);
    const actions = allActions(paged.actions);
    if (actions.length === 0) return { ...paged, actions: undefined };
    const nonce = newActionId();
    const ids = await this.store.add(
      actions.map((action, index) => ({
        intent: action.intent,
        placement: placementOf(action),
        group: `${nonce}:${action.group ?? `#${index}`}`,
        // Page buttons may be pressed again, and so may "Set KEY" (each press opens a fresh single-use
        // input; a dismissed modal can be reopened).
        once: action.intent.kind !== "page" && action.intent.kind !== "secret",
      })),
      { platform: target.platform, chatId: target.chatId },
    );
    let next = 0;
    const rows = (paged.actions?.rows ?? []).map((row) =>
      row.map((action): ReplyAction => ({ ...action, id: ids[next++] })),
    );
    const blocks = paged.actions?.blocksWithButtons ?? paged.blocks;
    return { ...paged, blocks, actions: { rows } };
  }

  /**
   * Judges a press for the person who pressed: `isAdmin` and `contextFor` describe them. A refusal
   * changes nothing; an accepted single-use press is used up (and written) before returning.
   */
  async judgePress(
    message: InboundMessage,
    actionId: string,
    contextFor: () => CommandContext,
  ): Promise<PressVerdict> {
    const found = await this.store.lookup(actionId, { platform: message.platform, chatId: message.chat.id });
    if (found.status === "unknown") {
      return {
        kind: "refused",
        reply: privateNotice(t("press.unknown")),
      };
    }
    if (found.status === "expired") {
      const hours = Math.round(this.store.ttlMs / 3_600_000);
      return {
        kind: "refused",
        reply: privateNotice(t("press.expired", { hours })),
      };
    }
    if (found.status === "used") {
      return {
        kind: "refused",
        reply: privateNotice(t("press.used")),
      };
    }
    const action = found.action;
    const who = `${message.platform}:${message.sender.id}`;
    if (action.intent.kind === "cancel") {
      if (!(await this.store.consume(actionId, who))) {
        return { kind: "refused", reply: privateNotice(t("press.used")) };
      }
      return { kind: "cancel", action };
    }
    if (action.intent.kind === "secret") {
      // Setting a secret changes the host's .env: for admins, judged for whoever pressed.
      const ctx = contextFor();
      if (!ctx.caller?.isAdmin) {
        const who = ctx.caller ? `${ctx.caller.platform}:${ctx.caller.id}` : "unknown";
        return {
          kind: "refused",
          reply: privateNotice(t("press.secretAdminsOnly", { who })),
        };
      }
      return { kind: "secret", action, skill: action.intent.skill, key: action.intent.key };
    }
    const intent = action.intent;
    const spec = this.specOf(intent.invocation);
    if (!spec) {
      return {
        kind: "refused",
        reply: privateNotice(t("press.commandGone")),
      };
    }
    // A press is a command like any other: the presser's own access decides, not the asker's.
    const refused = accessRefusal(spec, contextFor(), inputOf(intent.invocation, false));
    if (refused) return { kind: "refused", reply: { ...refused, private: true } };
    if (action.once && !(await this.store.consume(actionId, who))) {
      return { kind: "refused", reply: privateNotice(t("press.used")) };
    }
    const confirmed = intent.kind === "run" && intent.confirmed === true;
    return {
      kind: "run",
      action,
      spec,
      input: inputOf(intent.invocation, confirmed),
      page: intent.kind === "page" ? intent.page : undefined,
    };
  }

  /** True when `actionId` names a stored "Set KEY" button of this chat (whatever its state). */
  async isSecretAction(message: InboundMessage, actionId: string): Promise<boolean> {
    const found = await this.store.lookup(actionId, { platform: message.platform, chatId: message.chat.id });
    return found.status !== "unknown" && found.action.intent.kind === "secret";
  }

  /** Cuts the paged block to one page and adds the page line and ‹ › buttons (first row). */
  private applyPaging(reply: Reply, page: number): Reply {
    const paging = reply.paging;
    if (!paging) return reply;
    const block = reply.blocks[paging.block];
    const total = pageableLength(block);
    if (!block || total <= this.pageSize) return { ...reply, paging: undefined };
    const pages = Math.ceil(total / this.pageSize);
    const current = Math.min(Math.max(0, page), pages - 1);
    const start = current * this.pageSize;
    const end = Math.min(total, start + this.pageSize);
    const pageLine: ReplyBlock = {
      kind: "paragraph",
      text: t("paging.line", { page: current + 1, pages, first: start + 1, last: end, total }),
    };
    const blocks = [...reply.blocks];
    blocks.splice(paging.block, 1, slicePageable(block, start, end), pageLine);
    const nav: ReplyAction[] = [];
    if (current > 0) {
      nav.push({
        label: t("paging.prev"),
        intent: { kind: "page", invocation: paging.invocation, page: current - 1 },
        placement: "replace",
      });
    }
    if (current < pages - 1) {
      nav.push({
        label: t("paging.next"),
        intent: { kind: "page", invocation: paging.invocation, page: current + 1 },
        placement: "replace",
      });
    }
    const rows = [nav, ...(reply.actions?.rows ?? [])];
    return { ...reply, blocks, paging: undefined, actions: { rows } };
  }
}

function placementOf(action: ReplyAction): ActionPlacement {
  if (action.placement) return action.placement;
  return action.intent.kind === "run" ? "reply" : "replace";
}

/**
 * Items of a pageable block (list items, table rows, code lines). A code block pages by its lines once
 * its text is resolved (the gateway localizes a reply before presenting it); unresolved, it is one page.
 */
export function pageableLength(block: ReplyBlock | undefined): number {
  if (!block) return 0;
  if (block.kind === "list") return block.items.length;
  if (block.kind === "table") return block.rows.length;
  if (block.kind === "code" && typeof block.text === "string")
    return block.text.replace(/\n+$/, "").split("\n").length;
  return 0;
}

/** The block cut to items `[start, end)`; other kinds are returned unchanged. */
export function slicePageable(block: ReplyBlock, start: number, end: number): ReplyBlock {
  if (block.kind === "list") return { ...block, items: block.items.slice(start, end) };
  if (block.kind === "table") return { ...block, rows: block.rows.slice(start, end) };
  if (block.kind === "code" && typeof block.text === "string") {
    const lines = block.text.replace(/\n+$/, "").split("\n");
    return { ...block, text: lines.slice(start, end).join("\n") };
  }
  return block;
}
