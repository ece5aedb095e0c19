/**
 * Telegram update → `InboundMessage`. Pure: no network, no clock, no state. Decides what the bot sees:
 * commands come only from a `bot_command` entity at the start of the text (after an optional leading
 * `@ourbot` mention), `/cmd@bot args` keeps its arguments, anything addressed to another bot is dropped,
 * and edited messages are never turned into anything (an edit must not replay an old command). In
 * groups, text that is not a command reaches the gateway only when addressed to the bot (an @mention of
 * it, or a reply to one of its messages), the rule Discord and Feishu follow too: a bot that sees every
 * group message (privacy mode off, or an admin) must not answer the whole room. A `callback_query` from
 * one of our inline buttons becomes a press carrying the button's opaque data.
 */
import type { Message, MessageEntity, Update } from "grammy/types";
import { parsedCommand } from "../../src/core/command-text.js";
import type { ChatKind, InboundMessage, ParsedCommand } from "../../src/core/message.js";

/** Normalizes one Bot API update for the bot `botUsername`; null when the gateway should not see it. */
export function normalizeUpdate(update: Update, botUsername: string): InboundMessage | null {
  if (update.callback_query !== undefined) return normalizeCallbackQuery(update);
  const message = update.message;
  // edited_message, channel_post, callback queries…: never a command, never chat input.
  if (message === undefined) return null;
  const text = message.text ?? message.caption;
  if (text === undefined || text.trim() === "") return null;
  const entities = message.entities ?? message.caption_entities ?? [];
  const chat = chatOf(message);
  if (chat === null) return null;

  const addressed = stripLeadingMention(text, entities, botUsername);
  if (addressed === null) return null;
  const command = parseCommand(addressed.text, entities, addressed.offset, botUsername);
  if (command === "other-bot") return null;
  if (command === null && chat.kind !== "dm" && !isAddressed(message, text, entities, botUsername, addressed))
    return null;

  const from = message.from;
  const sender = from
    ? { id: String(from.id), name: displayName(from), isBot: from.is_bot }
    : {
        id: String(message.sender_chat?.id ?? message.chat.id),
        name: message.sender_chat?.title,
        isBot: false,
      };

  const inbound: InboundMessage = {
    eventId: String(update.update_id),
    platform: "telegram",
    messageId: String(message.message_id),
    chat,
    sender,
    text: addressed.text,
    receivedAt: message.date * 1000,
    raw: update,
  };
  // Bot API `User.language_code`: "IETF language tag of the user's language" (optional; e.g. `zh-hans`).
  if (from?.language_code) inbound.language = from.language_code;
  if (command !== null) inbound.command = command;
  if (message.reply_to_message !== undefined && !isTopicAnchor(message)) {
    inbound.replyTo = String(message.reply_to_message.message_id);
  }
  return inbound;
}

/** Which conversation a message belongs to; forum topics become `thread` so replies land in the topic. */
function chatOf(message: Message): InboundMessage["chat"] | null {
  const id = String(message.chat.id);
  switch (message.chat.type) {
    case "private":
      return { kind: "dm", id };
    case "group":
    case "supergroup": {
      // Only real forum topics carry a thread; a plain reply in a non-forum group sets
      // message_thread_id too, and sending to it fails ("message thread not found").
      if (message.is_topic_message === true && message.message_thread_id !== undefined) {
        const kind: ChatKind = "thread";
        return { kind, id, threadId: String(message.message_thread_id) };
      }
      return { kind: "group", id };
    }
    default:
      return null;
  }
}

/** Group text meant for the bot: it opens with or contains an @mention of it, or replies to the bot. */
function isAddressed(
  message: Message,
  text: string,
  entities: MessageEntity[],
  botUsername: string,
  stripped: { offset: number },
): boolean {
  if (stripped.offset > 0) return true;
  const mentioned = entities.some(
    (entity) =>
      entity.type === "mention" &&
      sameUsername(text.slice(entity.offset, entity.offset + entity.length), botUsername),
  );
  if (mentioned) return true;
  const repliedTo = isTopicAnchor(message) ? undefined : message.reply_to_message?.from;
  return repliedTo?.is_bot === true && sameUsername(repliedTo.username ?? "", botUsername);
}

/** A topic message's `reply_to_message` is the topic's creation service message, not a real reply. */
function isTopicAnchor(message: Message): boolean {
  return (
    message.is_topic_message === true && message.reply_to_message?.message_id === message.message_thread_id
  );
}

function displayName(from: NonNullable<Message["from"]>): string {
  if (from.username) return from.username;
  return [from.first_name, from.last_name].filter(Boolean).join(" ");
}

/**
 * Removes a leading `@ourbot` mention (and the separator after it). Returns null when the message opens
 * by mentioning a different bot: it is meant for that bot, not us.
 */
function stripLeadingMention(
  text: string,
  entities: MessageEntity[],
  botUsername: string,
): { text: string; offset: number } | null {
  const mention = entities.find((entity) => entity.type === "mention" && entity.offset === 0);
  if (mention === undefined) return { text, offset: 0 };
  const name = text.slice(1, mention.length);
  if (sameUsername(name, botUsername)) {
    const rest = text.slice(mention.length);
    const trimmed = rest.replace(/^[\s,:-]+/, "");
    return { text: trimmed, offset: mention.length + (rest.length - trimmed.length) };
  }
  if (/bot$/i.test(name)) return null;
  return { text, offset: 0 };
}

/**
 * The command at the start of `text`, from the `bot_command` entity Telegram put at `offset` in the
 * original text. `"other-bot"` when it is `/cmd@someoneelse`. The command token runs to the first
 * whitespace: Telegram's entity stops at a hyphen (`/pdf-tools` → entity `/pdf`), and a token that still
 * contains a slash (`/etc/hosts`) is a path, not a command.
 */
function parseCommand(
  text: string,
  entities: MessageEntity[],
  offset: number,
  botUsername: string,
): ParsedCommand | "other-bot" | null {
  const hasEntity = entities.some((entity) => entity.type === "bot_command" && entity.offset === offset);
  if (!hasEntity || !text.startsWith("/")) return null;
  const token = /^\S+/.exec(text)?.[0] ?? "";
  const at = token.indexOf("@");
  const name = (at === -1 ? token.slice(1) : token.slice(1, at)).toLowerCase();
  const target = at === -1 ? undefined : token.slice(at + 1);
  if (name === "" || name.includes("/")) return null;
  if (target !== undefined && !sameUsername(target, botUsername)) return "other-bot";
  return parsedCommand(name, text.slice(token.length));
}

function sameUsername(a: string, b: string): boolean {
  return a.replace(/^@/, "").toLowerCase() === b.replace(/^@/, "").toLowerCase();
}

/**
 * A press of an inline button: `callback_query.data` is the opaque action id we put on the button
 * (at most 64 bytes, Bot API `InlineKeyboardButton.callback_data`); `message` is the message carrying
 * the keyboard (absent when it is too old to be delivered, then there is nothing to edit). Presses on
 * inline-mode messages (`inline_message_id`, no chat) and game buttons are not ours.
 */
function normalizeCallbackQuery(update: Update): InboundMessage | null {
  const query = update.callback_query;
  if (query === undefined || typeof query.data !== "string" || query.data === "") return null;
  const message = query.message;
  if (message === undefined) return null;
  const chat = chatOf(message as Message);
  if (chat === null) return null;
  return {
    eventId: String(update.update_id),
    platform: "telegram",
    chat,
    sender: { id: String(query.from.id), name: displayName(query.from), isBot: query.from.is_bot },
    text: "",
    receivedAt: message.date * 1000,
    raw: update,
    press: { actionId: query.data, messageId: String(message.message_id) },
    ...(query.from.language_code ? { language: query.from.language_code } : {}),
  };
}
