/**
 * The gateway's way out, shared by the message path and the press path: every reply is presented for
 * its adapter (buttons stored, a paged block cut to its page), scrubbed of secrets and server paths,
 * held to the reply budget and sent; when the platform refuses the file part the reply goes again cut.
 * Work still running after `acknowledgeAfterMs` gets a "running…" notice that its result replaces.
 * Every reply is first resolved for its reader's locale (`locale.ts`, with the chat's `/language`
 * choice read from the sessions store at send time), so buttons, pages and budgets are measured on the
 * text the reader reads.
 */
import type { CommandSpec } from "../../commands/types.js";
import type { SkillgateConfig } from "../config/config.js";
import { applyBudget } from "../core/budget.js";
import { FileRefusedError } from "../core/errors.js";
import type { Locale } from "../core/i18n/locale.js";
import { t } from "../core/i18n/messages.js";
import type { Logger } from "../core/logger.js";
import type { Adapter, InboundMessage, OutboundTarget } from "../core/message.js";
import { type Reply, replyToPlainText, textReply } from "../core/reply.js";
import type { ActionRouter } from "./actions.js";
import { forReader } from "./locale.js";
import type { OutboundScrubber } from "./scrub.js";

/** Default of `GatewayOptions.acknowledgeAfterMs`. */
const ACKNOWLEDGE_AFTER_MS = 2000;

/** Settles a race without caring how the work ended (its own await reports that). */
const done = (): "done" => "done";

/** What delivery works with; `actions` is the gateway's button router once it has started. */
export interface DeliveryDeps {
  config: SkillgateConfig;
  registry: readonly CommandSpec[];
  scrubber: OutboundScrubber;
  logger: Logger;
  acknowledgeAfterMs: number | undefined;
  actions: () => ActionRouter | undefined;
  /** config.yaml as it is now (the locale settings follow reloads). */
  currentConfig: () => SkillgateConfig;
  /** The language the chat `chatId` of `platform` chose with `/language`, if any. */
  chatLanguage: (platform: string, chatId: string) => Promise<Locale | undefined>;
}

/** Presents, scrubs, budgets and sends replies for one gateway (see the module comment). */
export class ReplyDelivery {
  constructor(private readonly deps: DeliveryDeps) {}

  private get actions(): ActionRouter | undefined {
    return this.deps.actions();
  }

  /**
   * Waits for `work`; when it is still running after `acknowledgeAfterMs`, the chat gets a "running…"
   * notice at once (through the adapter's `acknowledge`), and the message the result should replace is
   * returned with the value: the notice where the platform can edit, else `edit` (the pressed message).
   * `mayNotify` is asked at that moment: a replica that stopped leading shows no notice.
   */
  async acknowledgeIfSlow<T>(
    adapter: Adapter,
    message: InboundMessage,
    work: Promise<T>,
    label: string | undefined,
    edit?: string,
    mayNotify: () => boolean = () => true,
  ): Promise<{ value: T; editMessageId: string | undefined }> {
    if (!adapter.acknowledge) return { value: await work, editMessageId: edit };
    let timer: NodeJS.Timeout | undefined;
    const slow = new Promise<"slow">((resolve) => {
      timer = setTimeout(() => resolve("slow"), this.deps.acknowledgeAfterMs ?? ACKNOWLEDGE_AFTER_MS);
    });
    const first = await Promise.race([work.then(done, done), slow]);
    clearTimeout(timer);
    if (first !== "slow" || !mayNotify()) return { value: await work, editMessageId: edit };
    const text = label ? t("gateway.running", { command: label.slice(0, 80) }) : t("gateway.working");
    let notice: string | undefined;
    try {
      notice = await adapter.acknowledge(
        { chatId: message.chat.id, threadId: message.chat.threadId, editMessageId: edit },
        this.deps.scrubber.reply(await this.forChat(adapter, textReply(text), message)),
        message,
      );
    } catch (error) {
      this.deps.logger.warn(
        { err: error, platform: adapter.platform },
        "gateway: the running… notice failed",
      );
    }
    return { value: await work, editMessageId: notice ?? edit };
  }

  /**
   * Everything a chat receives: scrubbed of secrets and server paths, then held to the reply budget.
   * `fallback` is the retry after the platform refused the file part: no files, and only the messages
   * of the budget that the refused attempt had not used yet.
   */
  outbound(
    adapter: Adapter,
    reply: Reply,
    message?: InboundMessage,
    fallback?: { delivered: number },
  ): Reply {
    const command = message?.command;
    const known = command && this.deps.registry.some((spec) => spec.path[0] === command.name);
    const cliCommand = command
      ? known
        ? `skillgate ${command.name} ${command.rawArgs}`.trim()
        : `skillgate skills view ${command.name}`
      : undefined;
    const fileName = command
      ? `${[command.name, ...command.args.filter((arg) => !arg.startsWith("-"))]
          .join("-")
          .replace(/[^\w.-]+/g, "_")
          .slice(0, 60)}.txt`
      : "reply.txt";
    const maxLength = adapter.capabilities.maxMessageLength;
    const maxMessages = this.deps.config.gateway.maxReplyMessages - (fallback?.delivered ?? 0);
    return applyBudget(this.deps.scrubber.reply(reply), {
      maxMessages: Math.max(1, maxMessages),
      measure: (value) => adapter.measure?.(value) ?? Math.ceil(replyToPlainText(value).length / maxLength),
      files: adapter.capabilities.files === true && fallback === undefined,
      cliCommand,
      fileName,
    });
  }

  /** Sends `reply` to the chat of `message`; a failure is logged, never thrown. */
  async send(
    adapter: Adapter,
    message: InboundMessage,
    reply: Reply,
    options: { editMessageId?: string; page?: number } = {},
  ): Promise<void> {
    try {
      // Resolved for the reader, buttons stored and a paged block cut to its page first: the budget then
      // sees one page of what the reader reads.
      const readers = await this.forChat(adapter, reply, message);
      const shown = await this.present(adapter, message.chat.id, readers, options.page);
      await this.deliver(
        adapter,
        { chatId: message.chat.id, threadId: message.chat.threadId, editMessageId: options.editMessageId },
        shown,
        message,
      );
    } catch (error) {
      this.deps.logger.error({ err: error, platform: adapter.platform }, "gateway: sending a reply failed");
    }
  }

  /**
   * Sends a reply through the budget. When the platform refuses its file part (too large for this
   * chat, say), the reply goes again cut to what is left of the budget, with the line that names the
   * terminal command showing all of it; the refusal is logged.
   */
  async deliver(
    adapter: Adapter,
    target: OutboundTarget,
    shown: Reply,
    message?: InboundMessage,
  ): Promise<void> {
    try {
      await adapter.send(target, this.outbound(adapter, shown, message), message);
    } catch (error) {
      if (!(error instanceof FileRefusedError)) throw error;
      this.deps.logger.warn(
        { err: error, platform: adapter.platform, file: error.fileName, delivered: error.delivered },
        "gateway: the platform refused the reply's file; sending the reply cut instead",
      );
      await adapter.send(
        target,
        this.outbound(adapter, shown, message, { delivered: error.delivered }),
        message,
      );
    }
  }

  /** `reply` in the language of the reader of `message` (or of the chat `chatId`) on `adapter`. */
  forReader(adapter: Adapter, reply: Reply, message?: InboundMessage, chatId?: string): Reply {
    return forReader(this.deps.currentConfig(), adapter, reply, message, chatId);
  }

  /**
   * `reply` in the language of its chat: the chat's `/language` choice when it made one (read now, so a
   * choice made on another replica or by the command being answered counts), else as `forReader`.
   */
  async forChat(adapter: Adapter, reply: Reply, message?: InboundMessage, chatId?: string): Promise<Reply> {
    const chat = message?.chat.id ?? chatId;
    let chosen: Locale | undefined;
    try {
      chosen = chat === undefined ? undefined : await this.deps.chatLanguage(adapter.platform, chat);
    } catch (error) {
      this.deps.logger.warn(
        { err: error, platform: adapter.platform },
        "gateway: reading the chat's language failed; using the reader's",
      );
    }
    return forReader(this.deps.currentConfig(), adapter, reply, message, chatId, chosen);
  }

  /** Stores a reply's buttons for an adapter that shows them; strips them for one that does not. */
  async present(adapter: Adapter, chatId: string, reply: Reply, page?: number): Promise<Reply> {
    const buttons = adapter.capabilities.buttons === true;
    if (!this.actions) return buttons ? reply : { ...reply, actions: undefined, paging: undefined };
    return this.actions.present(reply, { platform: adapter.platform, chatId, buttons, page });
  }
}
