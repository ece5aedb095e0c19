/**
 * A loopback Telegram Bot API server for end-to-end tests with the real grammy client (node:http only).
 * It keeps real long-polling semantics (updates are kept until a later `offset` confirms them; an empty
 * `getUpdates` is held until an update arrives or the timeout ends; a second poller makes the first one
 * fail with 409 as Telegram does), validates HTML like Telegram (unbalanced or unknown tags → 400
 * "can't parse entities"; more than 4096 characters → 400), stores command menus per scope, delivers
 * updates to a webhook with the secret header, and lets a test inject errors (429 with retry_after, 409,
 * anything). Every call is logged.
 *
 * Two rules of the real service are modelled because adapters have got them wrong before:
 * - privacy mode (on by default, https://core.telegram.org/bots/features#privacy-mode): in groups a
 *   bot receives commands, messages that mention it by @username and replies to its own messages;
 *   other group chatter reaches it only when privacy mode is off or the bot is a group admin;
 * - webhook delivery uses up to `max_connections` simultaneous HTTPS connections (setWebhook; default
 *   40, https://core.telegram.org/bots/api#setwebhook), across chats; one chat's updates go one at a
 *   time, the next only after the previous was answered with 2xx (the Bot API server keeps a queue per
 *   chat and sends from a queue only when nothing of it is in flight: `queue_updates_` keyed by
 *   `queue_id` in tdlib/telegram-bot-api's WebhookActor.cpp), and a non-2xx answer is retried: at once
 *   after the first failure, then after a delay that doubles per failure of that update (the server's
 *   `on_update_error`: seconds up to a minute or two; here 50 ms doubling up to 1 s), while the chat's
 *   later updates wait behind it.
 */

import { EventEmitter } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { multipartBoundary, parseFormData } from "./multipart.js";

/** A Bot API error the next call(s) of a method will answer with. */
export interface InjectedError {
  error_code: number;
  description: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
}

/** One logged API call. */
export interface CallRecord {
  method: string;
  params: Record<string, unknown>;
  at: number;
  /** The error the call was answered with, if any. */
  error?: InjectedError;
  /**
   * The caller's name when it used an api_root ending in `/c/<name>`: a device of the tests (several
   * gateway processes on one bot token), not of Telegram, whose paths are only `/bot<token>/<method>`.
   */
  client?: string;
}

/** A held getUpdates that a newer one ended with 409, as Telegram does (two pollers on one token). */
export interface PollTermination {
  /** The client whose held poll was ended. */
  ended?: string;
  /** The client whose getUpdates ended it. */
  by?: string;
  at: number;
}

/** A message the bot sent (a successful sendMessage or editMessageText). */
export interface SentMessage {
  message_id: number;
  chat_id: string;
  text: string;
  parse_mode?: string;
  /** The text as a user sees it (HTML tags removed, escapes undone). */
  plain: string;
  message_thread_id?: number;
  reply_to_message_id?: number;
  at: number;
  edited?: boolean;
  /** The inline keyboard the message carries (`reply_markup`), if any. */
  reply_markup?: { inline_keyboard: { text: string; callback_data?: string; url?: string }[][] };
}

/** A callback query the emulator delivered, and how the bot answered it. */
export interface CallbackQueryRecord {
  id: string;
  data: string;
  fromId: number;
  messageId: number;
  /** Set once answerCallbackQuery was called for it. */
  answer?: { text?: string; show_alert?: boolean; at: number };
}

/** What a user says: a private message by default. */
export interface UserSays {
  text: string;
  userId?: number;
  chatId?: number;
  chatType?: "private" | "group" | "supergroup";
  /** A forum topic id: the chat becomes a forum supergroup and the message a topic message. */
  threadId?: number;
  /** Deliver as an `edited_message` of an earlier message (its id, or a fresh one when true). */
  edited?: boolean | number;
  username?: string;
  firstName?: string;
  /** Replies to this message id; when the bot sent it, the reply names the bot as its author. */
  replyTo?: number;
  /**
   * The sender's `language_code` (Bot API `User`: "IETF language tag of the user's language", optional;
   * the apps send what the user chose, e.g. `en`, `zh-hans`); remembered for the user's later presses.
   */
  languageCode?: string;
}

/** Emulator settings. */
export interface TelegramEmulatorOptions {
  token?: string;
  username?: string;
  botId?: number;
  /** BotFather's /setprivacy: on (the default) limits what the bot sees in groups. */
  privacyMode?: boolean;
}

type Update = Record<string, unknown> & { update_id: number };

interface PendingPoll {
  res: http.ServerResponse;
  /** Who asked (see `CallRecord.client`). */
  client?: string;
  offset: number;
  limit: number;
  timer: NodeJS.Timeout;
}

/** Tags Telegram accepts with parse_mode HTML. */
const HTML_TAGS = new Set([
  "b",
  "strong",
  "i",
  "em",
  "u",
  "ins",
  "s",
  "strike",
  "del",
  "span",
  "tg-spoiler",
  "a",
  "code",
  "pre",
  "blockquote",
  "tg-emoji",
]);

/** Parses Telegram HTML; returns the visible text, or the error Telegram would give. */
export function parseTelegramHtml(html: string): { ok: true; plain: string } | { ok: false; error: string } {
  const stack: string[] = [];
  let plain = "";
  let index = 0;
  while (index < html.length) {
    const char = html[index] as string;
    if (char === "<") {
      const end = html.indexOf(">", index);
      if (end === -1) return { ok: false, error: `Unclosed start tag at byte offset ${index}` };
      const tag = /^<(\/?)([a-zA-Z-]+)(\s[^>]*)?>$/.exec(html.slice(index, end + 1));
      if (!tag) return { ok: false, error: `Unsupported start tag at byte offset ${index}` };
      const name = (tag[2] as string).toLowerCase();
      if (!HTML_TAGS.has(name))
        return { ok: false, error: `Unsupported start tag "${name}" at byte offset ${index}` };
      if (tag[1]) {
        if (stack.pop() !== name) return { ok: false, error: `Unexpected end tag at byte offset ${index}` };
      } else {
        stack.push(name);
      }
      index = end + 1;
    } else if (char === "&") {
      const entity = /^&(lt|gt|amp|quot|#\d+|#x[0-9a-fA-F]+);/.exec(html.slice(index, index + 12));
      if (entity) {
        const code = entity[1] as string;
        plain +=
          code === "lt"
            ? "<"
            : code === "gt"
              ? ">"
              : code === "amp"
                ? "&"
                : code === "quot"
                  ? '"'
                  : String.fromCodePoint(
                      code.startsWith("#x") ? Number.parseInt(code.slice(2), 16) : Number(code.slice(1)),
                    );
        index += entity[0].length;
      } else {
        plain += "&";
        index += 1;
      }
    } else {
      plain += char;
      index += 1;
    }
  }
  if (stack.length > 0)
    return { ok: false, error: `Can't find end tag corresponding to start tag "${stack.at(-1)}"` };
  return { ok: true, plain };
}

/** The emulator. `listen()` gives the `apiRoot` for grammy's `client.apiRoot`. */
export class TelegramEmulator extends EventEmitter {
  readonly token: string;
  readonly botUser: { id: number; is_bot: true; first_name: string; username: string };
  readonly calls: CallRecord[] = [];
  /** Every held poll a newer getUpdates ended (two pollers at once). */
  readonly terminations: PollTermination[] = [];
  readonly sent: SentMessage[] = [];
  /** Largest document `sendDocument` takes: "files of any type of up to 50 MB"; tests lower it. */
  documentSizeLimit = 50 * 1024 * 1024;
  /** Files the bot sent with `sendDocument`. */
  readonly documents: {
    message_id: number;
    chat_id: string;
    file_name: string;
    content: string;
    caption: string;
    at: number;
  }[] = [];
  /** Menus by scope key (`default`, or the JSON of a scope). */
  readonly menus = new Map<string, { command: string; description: string }[]>();
  /** Every setMyCommands payload accepted, in order. */
  readonly menuHistory: { command: string; description: string }[][] = [];
  webhook: { url: string; secretToken?: string; maxConnections: number } | null = null;
  /** Webhook POSTs made: update id and HTTP status (0 on a network error). */
  readonly webhookDeliveries: { update_id: number; status: number }[] = [];
  /** Most webhook requests that were in flight at once. */
  peakWebhookConnections = 0;
  /** BotFather's privacy mode (tests may flip it). */
  privacyMode: boolean;
  /** Group chats where the bot is an admin (it then sees every message, as with privacy mode off). */
  readonly adminIn = new Set<number>();
  /** Group messages Telegram did not deliver to the bot because of privacy mode. */
  readonly withheld: Record<string, unknown>[] = [];

  private server: http.Server | undefined;
  private queue: Update[] = [];
  private nextUpdateId = 500_000_001;
  private nextMessageId = 1;
  private polls: PendingPoll[] = [];
  private injected = new Map<string, InjectedError[]>();
  private forumTopics = new Map<string, Set<number>>();
  private chatTypes = new Map<string, string>();
  private nextQueryId = 9_000_001;
  /** Callback queries delivered (button presses), by id. */
  readonly callbackQueries = new Map<string, CallbackQueryRecord>();
  /** Updates posted to the webhook and not yet answered, with their chat's queue. */
  private inFlight = new Map<number, string>();
  /** Failed webhook deliveries per update, and when it may be posted again. */
  private readonly failures = new WeakMap<Update, number>();
  private readonly retryAt = new WeakMap<Update, number>();

  constructor(options: TelegramEmulatorOptions = {}) {
    super();
    this.privacyMode = options.privacyMode ?? true;
    this.setMaxListeners(0);
    this.token = options.token ?? "7000000001:AAEmulatorTokenForTestsOnly_0123456789";
    this.botUser = {
      id: options.botId ?? Number(this.token.split(":")[0]),
      is_bot: true,
      first_name: "Skillgate",
      username: options.username ?? "SkillgateBot",
    };
  }

  /** Starts on 127.0.0.1 with an ephemeral port; resolves to the API root (no trailing slash). */
  async listen(): Promise<string> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    return this.apiRoot;
  }

  /** `http://127.0.0.1:PORT`. */
  get apiRoot(): string {
    const address = this.server?.address() as AddressInfo | null;
    if (!address) throw new Error("TelegramEmulator: call listen() first");
    return `http://127.0.0.1:${address.port}`;
  }

  /** Stops the server, answering held polls first. */
  async close(): Promise<void> {
    for (const poll of this.polls.splice(0)) {
      clearTimeout(poll.timer);
      this.respond(poll.res, 200, { ok: true, result: [] });
    }
    this.webhook = null;
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    this.server = undefined;
  }

  /** The next `times` calls of `method` fail with `error`. */
  failNext(method: string, error: InjectedError, times = 1): void {
    const list = this.injected.get(method) ?? [];
    for (let count = 0; count < times; count += 1) list.push(error);
    this.injected.set(method, list);
  }

  /** Number of getUpdates requests currently held open. */
  get pendingPolls(): number {
    return this.polls.length;
  }

  /** Updates not yet confirmed by an offset (or delivered to the webhook). */
  get pendingUpdates(): number {
    return this.queue.length;
  }

  /** Calls of one method, in order. */
  callsOf(method: string): CallRecord[] {
    return this.calls.filter((call) => call.method === method);
  }

  /** Queues a user message the way Telegram would deliver it; returns the update. */
  /**
   * Marks users who never opened a private chat with the bot: Telegram refuses to message them first
   * ("403 Forbidden: bot can't initiate conversation with a user"; a bot may only write to a user who
   * started it). Their first private message lifts it. Unmarked users count as having started the bot.
   */
  neverStarted(...userIds: number[]): void {
    for (const id of userIds) this.notStarted.add(String(id));
  }

  private readonly notStarted = new Set<string>();

  /** Each user's `language_code`, as their client last sent it. */
  private readonly languages = new Map<number, string>();

  userSays(input: UserSays): Update {
    const userId = input.userId ?? 1001;
    const chatType = input.threadId !== undefined ? "supergroup" : (input.chatType ?? "private");
    if (chatType === "private") this.notStarted.delete(String(userId));
    const chatId = input.chatId ?? (chatType === "private" ? userId : -1000000000000 - userId);
    if (input.languageCode !== undefined) this.languages.set(userId, input.languageCode);
    const language = this.languages.get(userId);
    const user = {
      id: userId,
      is_bot: false,
      first_name: input.firstName ?? `User${userId}`,
      username: input.username ?? `user${userId}`,
      ...(language ? { language_code: language } : {}),
    };
    const chat: Record<string, unknown> =
      chatType === "private"
        ? { id: chatId, type: "private", first_name: user.first_name, username: user.username }
        : { id: chatId, type: chatType, title: `Chat ${chatId}` };
    this.chatTypes.set(String(chatId), chatType);
    const message: Record<string, unknown> = {
      message_id: typeof input.edited === "number" ? input.edited : this.nextMessageId++,
      from: user,
      chat,
      date: Math.floor(Date.now() / 1000),
      text: input.text,
    };
    const entities = detectEntities(input.text);
    if (entities.length > 0) message.entities = entities;
    if (input.threadId !== undefined) {
      chat.is_forum = true;
      const topics = this.forumTopics.get(String(chatId)) ?? new Set<number>();
      topics.add(input.threadId);
      this.forumTopics.set(String(chatId), topics);
      message.message_thread_id = input.threadId;
      message.is_topic_message = true;
      message.reply_to_message = {
        message_id: input.threadId,
        from: user,
        chat,
        date: 1_700_000_000,
        message_thread_id: input.threadId,
        forum_topic_created: { name: `Topic ${input.threadId}`, icon_color: 7322096 },
        is_topic_message: true,
      };
    } else if (input.replyTo !== undefined) {
      const ours = this.sent.some(
        (sent) => sent.message_id === input.replyTo && sent.chat_id === String(chatId),
      );
      message.reply_to_message = {
        message_id: input.replyTo,
        chat,
        date: message.date,
        text: "",
        ...(ours ? { from: this.botUser } : {}),
      };
    }
    if (input.edited !== undefined && input.edited !== false) message.edit_date = message.date;
    const key = input.edited !== undefined && input.edited !== false ? "edited_message" : "message";
    if (chatType !== "private" && !this.seesInGroup(message, entities, chatId)) {
      this.withheld.push(message);
      return { [key]: message, update_id: 0 };
    }
    return this.pushUpdate({ [key]: message });
  }

  /**
   * A user presses an inline button of a message the bot sent. Like Telegram, the `callback_query`
   * carries the button's `callback_data` verbatim (pass `data` to forge one) and the message with its
   * keyboard. Bot API: "Telegram clients will display a progress bar until you call
   * answerCallbackQuery" — `callbackQueries` records whether and how it was answered.
   */
  pressButton(input: {
    messageId: number;
    chatId?: string;
    label?: string;
    data?: string;
    userId?: number;
  }): CallbackQueryRecord {
    const message = [...this.sent]
      .reverse()
      .find(
        (sent) =>
          sent.message_id === input.messageId &&
          (input.chatId === undefined || sent.chat_id === input.chatId),
      );
    if (!message) throw new Error(`TelegramEmulator: no sent message ${input.messageId}`);
    const buttons = message.reply_markup?.inline_keyboard.flat() ?? [];
    const button =
      input.label === undefined
        ? undefined
        : buttons.find((item) => item.text.startsWith(input.label as string));
    const data = input.data ?? button?.callback_data;
    if (data === undefined)
      throw new Error(`TelegramEmulator: message ${input.messageId} has no button ${input.label ?? ""}`);
    const userId = input.userId ?? 1001;
    const record: CallbackQueryRecord = {
      id: String(this.nextQueryId++),
      data,
      fromId: userId,
      messageId: message.message_id,
    };
    this.callbackQueries.set(record.id, record);
    const language = this.languages.get(userId);
    const from = {
      id: userId,
      is_bot: false,
      first_name: `User${userId}`,
      username: `user${userId}`,
      ...(language ? { language_code: language } : {}),
    };
    this.pushUpdate({
      callback_query: {
        id: record.id,
        from,
        message: { ...this.messageObject(message), reply_markup: message.reply_markup },
        chat_instance: `ci${message.chat_id}`,
        data,
      },
    });
    return record;
  }

  /**
   * Pushes a `callback_query` of any shape (merged over a minimal one: id and sender), for queries the
   * bot may not be able to map — no `message` (an inline message's button), no `data` (a game button),
   * a channel post's button. It must still be answered: Bot API answerCallbackQuery, "Telegram clients
   * will display a progress bar until you call answerCallbackQuery".
   */
  pushCallbackQuery(query: Record<string, unknown>, userId = 1001): CallbackQueryRecord {
    const record: CallbackQueryRecord = {
      id: String(this.nextQueryId++),
      data: typeof query.data === "string" ? query.data : "",
      fromId: userId,
      messageId: Number((query.message as { message_id?: unknown } | undefined)?.message_id ?? 0),
    };
    this.callbackQueries.set(record.id, record);
    const from = { id: userId, is_bot: false, first_name: `User${userId}`, username: `user${userId}` };
    this.pushUpdate({ callback_query: { id: record.id, from, chat_instance: "ci0", ...query } });
    return record;
  }

  /** The latest state of a sent message (after any edits). */
  latest(messageId: number, chatId?: string): SentMessage | undefined {
    return [...this.sent]
      .reverse()
      .find((sent) => sent.message_id === messageId && (chatId === undefined || sent.chat_id === chatId));
  }

  /**
   * Privacy mode (https://core.telegram.org/bots/features#privacy-mode): with it on, and the bot not an
   * admin, a group message reaches the bot only when it is a command (`/cmd` or `/cmd@thisbot`), mentions
   * the bot by @username, or replies to one of the bot's messages.
   */
  private seesInGroup(
    message: Record<string, unknown>,
    entities: { type: string; offset: number; length: number }[],
    chatId: number,
  ): boolean {
    if (!this.privacyMode || this.adminIn.has(chatId)) return true;
    const text = String(message.text ?? "");
    const command = entities.find((entity) => entity.type === "bot_command");
    if (command) {
      const token = text.slice(command.offset, command.offset + command.length);
      const target = token.split("@")[1];
      if (target === undefined || target.toLowerCase() === this.botUser.username.toLowerCase()) return true;
    }
    const mentioned = new RegExp(`@${this.botUser.username}\\b`, "i").test(text);
    const reply = message.reply_to_message as { from?: { id?: number } } | undefined;
    return mentioned || reply?.from?.id === this.botUser.id;
  }

  /** Queues the very same update again (Telegram redelivers an update it thinks was not handled). */
  redeliver(update: Update): void {
    this.queue.push(update);
    this.flushPolls();
    this.deliverWebhook();
  }

  /** Queues a raw update (an `update_id` is assigned) and wakes pollers or the webhook. */
  pushUpdate(body: Record<string, unknown>): Update {
    const update: Update = { ...body, update_id: this.nextUpdateId++ };
    this.queue.push(update);
    this.flushPolls();
    this.deliverWebhook();
    return update;
  }

  /** Resolves with the first message sent from now on (or since index `since`) matching `predicate`. */
  waitForMessage(
    predicate: (message: SentMessage) => boolean,
    timeoutMs = 5000,
    since = this.sent.length,
  ): Promise<SentMessage> {
    return this.waitForMessages(1, predicate, timeoutMs, since).then((list) => list[0] as SentMessage);
  }

  /** Resolves once `count` messages matching `predicate` were sent from now on (or since `since`). */
  waitForMessages(
    count: number,
    predicate: (message: SentMessage) => boolean,
    timeoutMs = 5000,
    since = this.sent.length,
  ): Promise<SentMessage[]> {
    return new Promise((resolve, reject) => {
      const matches = () => this.sent.slice(since).filter(predicate);
      const check = () => {
        const found = matches();
        if (found.length < count) return;
        cleanup();
        resolve(found.slice(0, count));
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new Error(`TelegramEmulator: ${matches().length}/${count} matching messages after ${timeoutMs} ms`),
        );
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.off("message", check);
      };
      this.on("message", check);
      check();
    });
  }

  /** Resolves with the first call of `method` from now on matching `predicate`. */
  waitForCall(
    method: string,
    predicate: (call: CallRecord) => boolean = () => true,
    timeoutMs = 5000,
  ): Promise<CallRecord> {
    return new Promise((resolve, reject) => {
      const check = (call: CallRecord) => {
        if (call.method !== method || !predicate(call)) return;
        cleanup();
        resolve(call);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`TelegramEmulator: no ${method} call within ${timeoutMs} ms`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.off("call", check);
      };
      this.on("call", check);
    });
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const match = /^(?:\/c\/([A-Za-z0-9_-]+))?\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    if (!match) {
      this.respond(res, 404, { ok: false, error_code: 404, description: "Not Found" });
      return;
    }
    const [, client, token, method] = match as unknown as [string, string | undefined, string, string];
    const params = { ...Object.fromEntries(url.searchParams), ...(await readJson(req)) };
    const call: CallRecord = { method, params, at: Date.now(), ...(client ? { client } : {}) };
    this.calls.push(call);
    if (token !== this.token) {
      call.error = { error_code: 401, description: "Unauthorized" };
      this.emit("call", call);
      this.respond(res, 401, { ok: false, ...call.error });
      return;
    }
    const injected = this.injected.get(method)?.shift();
    if (injected) {
      call.error = injected;
      this.emit("call", call);
      this.respond(res, injected.error_code, { ok: false, ...injected });
      return;
    }
    this.emit("call", call);
    const handler = this.methods[method];
    if (!handler)
      return this.respond(res, 404, {
        ok: false,
        error_code: 404,
        description: "Not Found: method not found",
      });
    handler(params, res, call);
  }

  private methods: Record<
    string,
    (params: Record<string, unknown>, res: http.ServerResponse, call: CallRecord) => void
  > = {
    getMe: (_params, res) =>
      this.ok(res, {
        ...this.botUser,
        can_join_groups: true,
        can_read_all_group_messages: false,
        supports_inline_queries: false,
      }),
    getUpdates: (params, res, call) => this.getUpdates(params, res, call),
    sendMessage: (params, res, call) => this.sendMessage(params, res, call),
    answerCallbackQuery: (params, res, call) => this.answerCallbackQuery(params, res, call),
    editMessageText: (params, res, call) => this.editMessageText(params, res, call),
    sendChatAction: (_params, res) => this.ok(res, true),
    sendDocument: (params, res, call) => this.sendDocument(params, res, call),
    setMyCommands: (params, res, call) => this.setMyCommands(params, res, call),
    getMyCommands: (params, res) => this.ok(res, this.menus.get(scopeKey(params)) ?? []),
    deleteMyCommands: (params, res) => {
      this.menus.delete(scopeKey(params));
      this.ok(res, true);
    },
    setWebhook: (params, res) => {
      const max = params.max_connections === undefined ? 40 : Number(params.max_connections);
      if (!Number.isInteger(max) || max < 1 || max > 100) {
        this.respond(res, 400, {
          ok: false,
          error_code: 400,
          description: "Bad Request: max_connections must be between 1 and 100",
        });
        return;
      }
      this.webhook = {
        url: String(params.url),
        secretToken: params.secret_token as string | undefined,
        maxConnections: max,
      };
      for (const poll of this.polls.splice(0)) {
        clearTimeout(poll.timer);
        this.respond(poll.res, 409, {
          ok: false,
          error_code: 409,
          description:
            "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
        });
      }
      this.ok(res, true);
      this.deliverWebhook();
    },
    deleteWebhook: (params, res) => {
      this.webhook = null;
      if (params.drop_pending_updates === true) this.queue = [];
      this.ok(res, true);
    },
    getWebhookInfo: (_params, res) =>
      this.ok(res, {
        url: this.webhook?.url ?? "",
        has_custom_certificate: false,
        pending_update_count: this.queue.length,
        ...(this.webhook ? { max_connections: this.webhook.maxConnections } : {}),
      }),
  };

  private getUpdates(params: Record<string, unknown>, res: http.ServerResponse, call: CallRecord): void {
    if (this.webhook) {
      call.error = {
        error_code: 409,
        description:
          "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      };
      this.respond(res, 409, { ok: false, ...call.error });
      return;
    }
    // A newer getUpdates terminates an older one that is still waiting, exactly like Telegram: the Bot API
    // (https://core.telegram.org/bots/api#getupdates) serves one long poll per bot; the earlier request
    // ends with 409 "Conflict: terminated by other getUpdates request; make sure that only one bot
    // instance is running" (and with a webhook set, getUpdates answers 409 at once: "This method will
    // not work if an outgoing webhook is set up").
    for (const poll of this.polls.splice(0)) {
      clearTimeout(poll.timer);
      this.terminations.push({ ended: poll.client, by: call.client, at: Date.now() });
      this.respond(poll.res, 409, {
        ok: false,
        error_code: 409,
        description:
          "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
      });
    }
    const offset = Number(params.offset ?? 0);
    const limit = Math.min(100, Math.max(1, Number(params.limit ?? 100)));
    const timeout = Math.max(0, Number(params.timeout ?? 0));
    if (offset > 0) this.queue = this.queue.filter((update) => update.update_id >= offset);
    const ready = this.queue.slice(0, limit);
    if (ready.length > 0 || timeout === 0) {
      this.ok(res, ready);
      return;
    }
    const poll: PendingPoll = {
      res,
      client: call.client,
      offset,
      limit,
      timer: setTimeout(() => {
        this.polls = this.polls.filter((other) => other !== poll);
        this.ok(res, []);
      }, timeout * 1000),
    };
    // The client gave up (abort on stop): forget the poll so no timer or response outlives it.
    res.on("close", () => {
      clearTimeout(poll.timer);
      this.polls = this.polls.filter((other) => other !== poll);
    });
    this.polls.push(poll);
  }

  private flushPolls(): void {
    for (const poll of this.polls.splice(0)) {
      clearTimeout(poll.timer);
      this.ok(poll.res, this.queue.slice(0, poll.limit));
    }
  }

  private sendMessage(params: Record<string, unknown>, res: http.ServerResponse, call: CallRecord): void {
    const chatId = String(params.chat_id ?? "");
    if (this.notStarted.has(chatId)) {
      this.fail(res, call, 403, "Forbidden: bot can't initiate conversation with a user");
      return;
    }
    const rendered = this.checkedText(params, res, call);
    if (!rendered) return;
    const { text } = rendered;
    const threadId = params.message_thread_id === undefined ? undefined : Number(params.message_thread_id);
    if (
      threadId !== undefined &&
      this.chatTypes.has(chatId) &&
      !this.forumTopics.get(chatId)?.has(threadId)
    ) {
      this.fail(res, call, 400, "Bad Request: message thread not found");
      return;
    }
    const markup = checkMarkup(params.reply_markup);
    if (typeof markup === "string") {
      this.fail(res, call, 400, markup);
      return;
    }
    const replyParameters = params.reply_parameters as { message_id?: number } | undefined;
    const sent: SentMessage = {
      reply_markup: markup,
      message_id: this.nextMessageId++,
      chat_id: chatId,
      text,
      parse_mode: params.parse_mode as string | undefined,
      plain: rendered.plain,
      message_thread_id: threadId,
      reply_to_message_id: replyParameters?.message_id,
      at: Date.now(),
    };
    this.sent.push(sent);
    this.ok(res, this.messageObject(sent));
    this.emit("message", sent);
  }

  /**
   * `sendDocument` (https://core.telegram.org/bots/api#senddocument): `document` is an uploaded file (or a
   * file_id/URL string); "Bots can currently send files of any type of up to 50 MB in size"; `caption`
   * is 0-1024 characters after entities parsing.
   */
  private sendDocument(params: Record<string, unknown>, res: http.ServerResponse, call: CallRecord): void {
    const document = params.document as UploadedFile | string | undefined;
    if (document === undefined || document === "") {
      this.fail(res, call, 400, 'Bad Request: parameter "document" is required');
      return;
    }
    if (typeof document === "object" && document.size > this.documentSizeLimit) {
      this.fail(res, call, 413, "Request Entity Too Large");
      return;
    }
    const caption = typeof params.caption === "string" ? params.caption : "";
    if (caption.length > 1024) {
      this.fail(res, call, 400, "Bad Request: message caption is too long");
      return;
    }
    const chatId = String(params.chat_id);
    const entry = {
      message_id: this.nextMessageId++,
      chat_id: chatId,
      file_name: typeof document === "object" ? document.filename : String(document),
      content: typeof document === "object" ? document.content : "",
      caption,
      at: Date.now(),
    };
    this.documents.push(entry);
    this.emit("document", entry);
    this.ok(res, {
      message_id: entry.message_id,
      date: Math.floor(entry.at / 1000),
      chat: { id: Number(chatId), type: Number(chatId) > 0 ? "private" : "supergroup" },
      document: {
        file_name: entry.file_name,
        file_id: `doc-${entry.message_id}`,
        file_unique_id: `u${entry.message_id}`,
      },
      ...(caption ? { caption } : {}),
    });
  }

  private editMessageText(params: Record<string, unknown>, res: http.ServerResponse, call: CallRecord): void {
    const chatId = String(params.chat_id ?? "");
    // The message as it is now: after its latest edit (what "not modified" is judged against).
    const target = this.latest(Number(params.message_id), chatId);
    if (!target) {
      this.fail(res, call, 400, "Bad Request: message to edit not found");
      return;
    }
    const rendered = this.checkedText(params, res, call);
    if (!rendered) return;
    const { text } = rendered;
    const markup = checkMarkup(params.reply_markup);
    if (typeof markup === "string") {
      this.fail(res, call, 400, markup);
      return;
    }
    // Bot API: the edit fails with "message is not modified" when text and keyboard are both unchanged;
    // an edit without reply_markup removes the inline keyboard.
    if (text === target.text && JSON.stringify(markup) === JSON.stringify(target.reply_markup)) {
      this.fail(res, call, 400, "Bad Request: message is not modified");
      return;
    }
    const edited: SentMessage = {
      ...target,
      reply_markup: markup,
      text,
      plain: rendered.plain,
      parse_mode: params.parse_mode as string | undefined,
      at: Date.now(),
      edited: true,
    };
    this.sent.push(edited);
    this.ok(res, this.messageObject(edited));
    this.emit("message", edited);
  }

  /**
   * Bot API `answerCallbackQuery`: a query can be answered once, and only for a short time; an unknown
   * or already answered id fails with "query is too old and response timeout expired or query ID is
   * invalid". `text` is 0–200 characters.
   */
  private answerCallbackQuery(
    params: Record<string, unknown>,
    res: http.ServerResponse,
    call: CallRecord,
  ): void {
    const record = this.callbackQueries.get(String(params.callback_query_id ?? ""));
    if (!record || record.answer) {
      this.fail(
        res,
        call,
        400,
        "Bad Request: query is too old and response timeout expired or query ID is invalid",
      );
      return;
    }
    const text = typeof params.text === "string" ? params.text : undefined;
    if (text !== undefined && text.length > 200) {
      this.fail(res, call, 400, "Bad Request: MESSAGE_TOO_LONG");
      return;
    }
    record.answer = { text, show_alert: params.show_alert === true, at: Date.now() };
    this.ok(res, true);
    this.emit("answer", record);
  }

  /** The request's `text` checked as Bot API checks it; a failure is answered and gives undefined. */
  private checkedText(
    params: Record<string, unknown>,
    res: http.ServerResponse,
    call: CallRecord,
  ): { text: string; plain: string } | undefined {
    const text = typeof params.text === "string" ? params.text : "";
    const rendered = this.checkText(text, params.parse_mode);
    if (rendered.ok) return { text, plain: rendered.plain };
    this.fail(res, call, 400, rendered.error);
    return undefined;
  }

  private checkText(
    text: string,
    parseMode: unknown,
  ): { ok: true; plain: string } | { ok: false; error: string } {
    let plain = text;
    if (parseMode === "HTML") {
      const parsed = parseTelegramHtml(text);
      if (!parsed.ok) return { ok: false, error: `Bad Request: can't parse entities: ${parsed.error}` };
      plain = parsed.plain;
    }
    if (plain.trim() === "") return { ok: false, error: "Bad Request: message text is empty" };
    if (plain.length > 4096) return { ok: false, error: "Bad Request: message is too long" };
    return { ok: true, plain };
  }

  private setMyCommands(params: Record<string, unknown>, res: http.ServerResponse, call: CallRecord): void {
    const commands = params.commands as { command: string; description: string }[] | undefined;
    if (!Array.isArray(commands)) {
      this.fail(res, call, 400, 'Bad Request: parameter "commands" is required');
      return;
    }
    // Bot API setMyCommands `language_code`: "A two-letter ISO 639-1 language code. If empty, commands
    // will be applied to all users from the given scope, for whose language there are no dedicated
    // commands" — so `zh`, never `zh-hans` or `zh-CN`.
    const language = params.language_code;
    if (language !== undefined && language !== "" && !/^[a-z]{2}$/.test(String(language))) {
      this.fail(res, call, 400, "Bad Request: invalid language code specified");
      return;
    }
    if (commands.length > 100) {
      this.fail(res, call, 400, "Bad Request: BOT_COMMANDS_TOO_MUCH");
      return;
    }
    for (const entry of commands) {
      if (!/^[a-z0-9_]{1,32}$/.test(entry.command ?? "")) {
        this.fail(res, call, 400, "Bad Request: BOT_COMMAND_INVALID");
        return;
      }
      const length = (entry.description ?? "").length;
      if (length < 1 || length > 256) {
        this.fail(res, call, 400, "Bad Request: command description is empty or too long");
        return;
      }
    }
    if (new Set(commands.map((entry) => entry.command)).size !== commands.length) {
      this.fail(res, call, 400, "Bad Request: BOT_COMMAND_DUPLICATE");
      return;
    }
    this.menus.set(scopeKey(params), commands);
    this.menuHistory.push(commands);
    this.ok(res, true);
  }

  private messageObject(sent: SentMessage): Record<string, unknown> {
    const type = this.chatTypes.get(sent.chat_id) ?? (Number(sent.chat_id) > 0 ? "private" : "supergroup");
    const message: Record<string, unknown> = {
      message_id: sent.message_id,
      from: this.botUser,
      chat: { id: Number(sent.chat_id), type },
      date: Math.floor(sent.at / 1000),
      text: sent.plain,
    };
    if (sent.message_thread_id !== undefined) {
      message.message_thread_id = sent.message_thread_id;
      message.is_topic_message = true;
    }
    return message;
  }

  /**
   * Posts queued updates to the webhook, up to `max_connections` at a time, oldest first, one per chat.
   * An update leaves the queue once answered with 2xx; a failed one is retried after its delay (see the
   * file's comment), its chat's later updates waiting behind it.
   */
  private deliverWebhook(): void {
    const webhook = this.webhook;
    if (!webhook) return;
    const busyChats = new Set([...this.inFlight.values()]);
    const now = Date.now();
    for (const update of this.queue) {
      if (this.inFlight.size >= webhook.maxConnections) break;
      if (this.inFlight.has(update.update_id)) continue;
      // One chat's next update waits for the answer to the one before (see the file's comment).
      const chat = chatOfUpdate(update);
      if (busyChats.has(chat)) continue;
      busyChats.add(chat);
      const retryAt = this.retryAt.get(update) ?? 0;
      if (retryAt > now) {
        setTimeout(() => this.deliverWebhook(), retryAt - now).unref();
        continue;
      }
      this.inFlight.set(update.update_id, chat);
      this.peakWebhookConnections = Math.max(this.peakWebhookConnections, this.inFlight.size);
      void this.post(webhook, update).then((status) => {
        this.inFlight.delete(update.update_id);
        this.webhookDeliveries.push({ update_id: update.update_id, status });
        if (status >= 200 && status < 300) {
          this.queue = this.queue.filter((other) => other !== update);
          this.retryAt.delete(update);
          this.failures.delete(update);
          this.deliverWebhook();
        } else {
          const failures = (this.failures.get(update) ?? 0) + 1;
          this.failures.set(update, failures);
          const delay = failures === 1 ? 0 : Math.min(1_000, 50 * 2 ** (failures - 2));
          this.retryAt.set(update, Date.now() + delay);
          setTimeout(() => this.deliverWebhook(), delay).unref();
        }
      });
    }
  }

  private async post(webhook: { url: string; secretToken?: string }, update: Update): Promise<number> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (webhook.secretToken) headers["x-telegram-bot-api-secret-token"] = webhook.secretToken;
    try {
      const response = await fetch(webhook.url, { method: "POST", headers, body: JSON.stringify(update) });
      await response.arrayBuffer();
      return response.status;
    } catch {
      return 0;
    }
  }

  private fail(res: http.ServerResponse, call: CallRecord, code: number, description: string): void {
    call.error = { error_code: code, description };
    this.respond(res, code, { ok: false, error_code: code, description });
  }

  private ok(res: http.ServerResponse, result: unknown): void {
    this.respond(res, 200, { ok: true, result });
  }

  private respond(res: http.ServerResponse, status: number, body: unknown): void {
    if (res.writableEnded || res.destroyed) return;
    const text = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    res.end(text);
  }
}

function scopeKey(params: Record<string, unknown>): string {
  const scope = params.scope as { type?: string } | undefined;
  const language = typeof params.language_code === "string" ? params.language_code : "";
  if ((scope === undefined || scope.type === "default") && language === "") return "default";
  return JSON.stringify({ scope: scope ?? { type: "default" }, language });
}

/** Entities Telegram's servers add: a leading `@mention` and a bot command at the start (after it). */
function detectEntities(text: string): { type: string; offset: number; length: number }[] {
  const entities: { type: string; offset: number; length: number }[] = [];
  let offset = 0;
  const mention = /^@[A-Za-z0-9_]{3,32}/.exec(text);
  if (mention) {
    entities.push({ type: "mention", offset: 0, length: mention[0].length });
    offset = mention[0].length + (/^\s*/.exec(text.slice(mention[0].length))?.[0].length ?? 0);
  }
  const command = /^\/[A-Za-z0-9_]{1,64}(@[A-Za-z0-9_]{3,32})?/.exec(text.slice(offset));
  if (command) entities.push({ type: "bot_command", offset, length: command[0].length });
  return entities;
}

async function readJson(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (chunks.length === 0) return {};
  const boundary = multipartBoundary(req);
  if (boundary) return parseMultipart(Buffer.concat(chunks), boundary);
  const text = Buffer.concat(chunks).toString("utf8");
  if (!(req.headers["content-type"] ?? "").includes("json"))
    return Object.fromEntries(new URLSearchParams(text));
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * Validates `reply_markup` as Telegram does for inline keyboards (core.telegram.org/bots/api
 * #inlinekeyboardmarkup and #inlinekeyboardbutton): each button needs text and exactly one action field;
 * a `url` is an HTTP(S) or tg:// URL; `callback_data` is 1–64 bytes (otherwise "BUTTON_DATA_INVALID"). Returns the keyboard, undefined without one, or the error description.
 */
function checkMarkup(value: unknown): SentMessage["reply_markup"] | string {
  if (value === undefined) return undefined;
  const parsed = typeof value === "string" ? (JSON.parse(value) as unknown) : value;
  const rows = (parsed as { inline_keyboard?: unknown }).inline_keyboard;
  if (!Array.isArray(rows))
    return 'Bad Request: field "inline_keyboard" of the InlineKeyboardMarkup should be an Array';
  for (const row of rows) {
    if (!Array.isArray(row))
      return 'Bad Request: field "inline_keyboard" of the InlineKeyboardMarkup should be an Array of Arrays';
    for (const button of row as Record<string, unknown>[]) {
      if (typeof button.text !== "string" || button.text === "")
        return "Bad Request: text buttons are unallowed in the inline keyboard";
      const actions = [
        "url",
        "callback_data",
        "web_app",
        "login_url",
        "switch_inline_query",
        "copy_text",
      ].filter((field) => button[field] !== undefined);
      if (actions.length !== 1) return "Bad Request: inline keyboard button must have exactly one action";
      if (button.url !== undefined && !/^(https?|tg):\/\/\S+$/.test(String(button.url)))
        return "Bad Request: inline keyboard button URL is invalid";
      const data = button.callback_data;
      if (
        data !== undefined &&
        (typeof data !== "string" || Buffer.byteLength(data) < 1 || Buffer.byteLength(data) > 64)
      ) {
        return "Bad Request: BUTTON_DATA_INVALID";
      }
    }
  }
  return parsed as SentMessage["reply_markup"];
}

/** An uploaded file as the emulator keeps it. */
export interface UploadedFile {
  filename: string;
  content: string;
  size: number;
}

/**
 * Parses a multipart/form-data body (RFC 7578), the encoding the Bot API requires when a file is
 * uploaded ("Post the file using multipart/form-data in the usual way that files are uploaded via the
 * browser", https://core.telegram.org/bots/api#sending-files). Text fields that hold JSON (grammy sends
 * `reply_parameters` that way) are parsed; file parts become `UploadedFile`s. A field may also be
 * `attach://<name>`, pointing at another part, which is resolved here.
 */
export function parseMultipart(body: Buffer, boundary: string): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  const parts: Record<string, unknown> = {};
  for (const part of parseFormData(body, boundary)) {
    // Quoted or not: grammy writes `filename=a.txt`.
    if (part.filename !== undefined) {
      parts[part.name] = {
        filename: part.filename,
        content: part.data.toString("utf8"),
        size: part.data.length,
      } satisfies UploadedFile;
      continue;
    }
    const text = part.data.toString("utf8");
    let value: unknown = text;
    if (/^[[{]/.test(text)) {
      try {
        value = JSON.parse(text);
      } catch {
        value = text;
      }
    }
    fields[part.name] = value;
  }
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value === "string" && value.startsWith("attach://")) fields[key] = parts[value.slice(9)];
  }
  return { ...parts, ...fields };
}

/** The delivery queue of an update: its chat (an update without one gets a queue of its own). */
function chatOfUpdate(update: Update): string {
  type WithChat = { chat?: { id?: number } };
  const of = (key: string) => (update[key] as WithChat | undefined)?.chat?.id;
  const query = update.callback_query as { message?: WithChat } | undefined;
  const chat = of("message") ?? of("edited_message") ?? query?.message?.chat?.id ?? of("my_chat_member");
  return chat === undefined ? `update:${update.update_id}` : `chat:${chat}`;
}
