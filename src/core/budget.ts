/**
 * The reply budget: one reply becomes at most `maxMessages` chat messages. A reply that would need more
 * keeps what fits in one message and hands the whole text over as a `file` block, where the platform can
 * send files (the adapter's `files` capability); elsewhere it is cut to the budget, with a last line that
 * says how to get the rest (the CLI command, when the reply came from one). The adapter measures a reply
 * with its own renderer, so the budget is exact for each platform.
 */
import { DEFAULT_LOCALE } from "./i18n/locale.js";
import { grouped, resolveText, t } from "./i18n/messages.js";
import { type Reply, type ReplyBlock, replyToPlainText } from "./reply.js";

/** Options of `applyBudget`. */
export interface BudgetOptions {
  /** Most messages one reply may become. */
  maxMessages: number;
  /** How many messages the platform would send for a reply. */
  measure: (reply: Reply) => number;
  /** The platform can send a file (document, attachment). */
  files: boolean;
  /** The terminal command that shows the whole content (`skillgate skills view x refs/a.md`), if any. */
  cliCommand?: string;
  /** File name for the attached content (default `reply.txt`). */
  fileName?: string;
}

/** A reply within the budget (the same object when it already fits). */
export function applyBudget(value: Reply, options: BudgetOptions): Reply {
  const max = Math.max(1, options.maxMessages);
  if (options.measure(value) <= max) return value;
  const text = replyToPlainText(value);
  // The budget's own lines in the reply's language (the reply reaching here is already resolved).
  const locale = value.locale ?? DEFAULT_LOCALE;
  const command = options.cliCommand;
  if (options.files) {
    const name = options.fileName ?? "reply.txt";
    const lead: ReplyBlock[] = [
      ...leadingBlocks(value, options.measure),
      {
        kind: "paragraph",
        text: resolveText(t("cmd.budget.file", { chars: grouped(text.length), name }), locale),
      },
    ];
    return { ...value, blocks: [...lead, { kind: "file", name, text }] };
  }
  // No files here: cut the text so the reply, with its pointer line, fits the budget.
  const note = (shown: number): ReplyBlock => ({
    kind: "paragraph",
    text: resolveText(
      command
        ? t("cmd.budget.cutWithCommand", { shown: grouped(shown), total: grouped(text.length), command })
        : t("cmd.budget.cut", { shown: grouped(shown), total: grouped(text.length) }),
      locale,
    ),
  });
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    const candidate = cutReply(value, text, mid, note(mid));
    if (options.measure(candidate) <= max) low = mid;
    else high = mid - 1;
  }
  return cutReply(value, text, low, note(low));
}

function cutReply(value: Reply, text: string, length: number, note: ReplyBlock): Reply {
  const shown = text.slice(0, length);
  return { ...value, blocks: [{ kind: "code", text: shown }, note] };
}

/** The reply's first blocks, as many as fit in one message (headings and short paragraphs). */
function leadingBlocks(value: Reply, measure: (reply: Reply) => number): ReplyBlock[] {
  const kept: ReplyBlock[] = [];
  for (const block of value.blocks) {
    if (block.kind !== "heading" && block.kind !== "paragraph") break;
    const next = [...kept, block];
    if (measure({ ...value, blocks: next }) > 1) break;
    kept.push(block);
    if (kept.length >= 3) break;
  }
  return kept;
}
