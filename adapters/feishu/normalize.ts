/**
 * Feishu/Lark inbound normalization: an `im.message.receive_v1` event (schema 2.0) becomes one
 * `InboundMessage`, or null when the bot should stay silent. Pure: no network, no clock, no state.
 *
 * Rules: `text` and `post` content become plain text; mention placeholders (`@_user_1`) that point at
 * the bot are stripped from the start (also `@Bot/cmd` without a space, which is then a command) and
 * from the end; other mentions read as `@Name`, and a chat message (not a command) that mentions
 * others starts with a `[Mentioned: Name (open_id=…)]` line. Direct chats (`p2p`) always answer;
 * group chats only when the bot is mentioned. Messages sent by apps (including this bot) are ignored.
 */
import { matchChatCommand } from "../../src/core/command-text.js";
import type { InboundMessage } from "../../src/core/message.js";

/** One entry of `message.mentions`. */
export interface FeishuMention {
  key: string;
  id?: { open_id?: string; union_id?: string; user_id?: string };
  name?: string;
}

/** The `event` part of `im.message.receive_v1`. */
export interface FeishuMessageBody {
  sender?: {
    sender_id?: { open_id?: string; union_id?: string; user_id?: string };
    sender_type?: string;
  };
  message?: {
    message_id?: string;
    root_id?: string;
    parent_id?: string;
    thread_id?: string;
    create_time?: string;
    chat_id?: string;
    chat_type?: string;
    message_type?: string;
    content?: string;
    mentions?: FeishuMention[];
  };
}

/** A schema 2.0 event envelope as Feishu delivers it (webhook body after decryption, or WS payload). */
export interface FeishuEventEnvelope {
  schema?: string;
  header?: { event_id?: string; event_type?: string; create_time?: string; token?: string; app_id?: string };
  event?: FeishuMessageBody;
}

/** The event type this module understands. */
export const MESSAGE_EVENT_TYPE = "im.message.receive_v1";

/**
 * Rebuilds the schema 2.0 envelope from the flattened object the SDK's `EventDispatcher` hands to
 * handlers (header fields and event fields merged at the top level).
 */
export function envelopeFromDispatcher(data: Record<string, unknown>): FeishuEventEnvelope {
  return {
    schema: typeof data.schema === "string" ? data.schema : "2.0",
    header: {
      event_id: asString(data.event_id),
      event_type: asString(data.event_type),
      create_time: asString(data.create_time),
      token: asString(data.token),
      app_id: asString(data.app_id),
    },
    event: {
      sender: data.sender as FeishuMessageBody["sender"],
      message: data.message as FeishuMessageBody["message"],
    },
  };
}

/**
 * Turns an `im.message.receive_v1` envelope into an `InboundMessage`, or null when it is not for the
 * bot (group without a mention of `botOpenId`, a message from an app, an empty text, a malformed event).
 */
export function normalizeEvent(envelope: FeishuEventEnvelope, botOpenId: string): InboundMessage | null {
  const eventId = envelope.header?.event_id;
  const message = envelope.event?.message;
  const sender = envelope.event?.sender;
  if (!eventId || envelope.header?.event_type !== MESSAGE_EVENT_TYPE || !message?.chat_id) return null;
  const senderId = sender?.sender_id?.open_id;
  if (!senderId || sender?.sender_type !== "user" || senderId === botOpenId) return null;

  const mentions = message.mentions ?? [];
  const botKeys = new Set(mentions.filter((m) => botOpenId && m.id?.open_id === botOpenId).map((m) => m.key));
  const isDirect = message.chat_type === "p2p";
  if (!isDirect && botKeys.size === 0) return null;

  const content = contentToText(message.message_type ?? "", message.content ?? "");
  const text = resolveMentions(stripBotMentions(content, botKeys), mentions, botKeys);
  if (text.length === 0) return null;

  const command = matchChatCommand(text) ?? undefined;
  const threadId = message.thread_id || undefined;
  const mentioned = command ? [] : mentionedOthers(content, mentions, botKeys);
  return {
    eventId,
    platform: "feishu",
    ...(message.message_id ? { messageId: message.message_id } : {}),
    chat: { kind: isDirect ? "dm" : "group", id: message.chat_id, ...(threadId ? { threadId } : {}) },
    sender: { id: senderId, isBot: false },
    text: mentioned.length > 0 ? `[Mentioned: ${mentioned.join(", ")}]\n${text}` : text,
    ...(command ? { command } : {}),
    ...(message.parent_id ? { replyTo: message.parent_id } : {}),
    receivedAt: Number(message.create_time ?? envelope.header?.create_time ?? 0) || 0,
    raw: envelope,
  };
}

/**
 * Plain text of a message's `content` JSON for its `message_type`. Text and post are read fully;
 * other kinds become a short placeholder such as `[image]`. Mention placeholders are kept as keys.
 */
export function contentToText(messageType: string, content: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return "";
  }
  if (messageType === "text") return isRecord(parsed) ? (asString(parsed.text) ?? "") : "";
  if (messageType === "post") return postToText(parsed);
  return `[${messageType || "message"}]`;
}

/** A post element as received: `text`, `a`, `at`, `code_block`, `md`, `img`, `emotion`, … */
interface PostElement {
  tag?: string;
  text?: string;
  href?: string;
  user_id?: string;
  user_name?: string;
  emoji_type?: string;
}

/** Plain text of post content, either `{title, content}` or locale-nested `{zh_cn: {title, content}}`. */
export function postToText(post: unknown): string {
  const body = pickPostLocale(post);
  if (!body) return "";
  const lines: string[] = [];
  const title = asString(body.title)?.trim();
  if (title) lines.push(title);
  const paragraphs = Array.isArray(body.content) ? body.content : [];
  for (const paragraph of paragraphs) {
    if (!Array.isArray(paragraph)) continue;
    lines.push(paragraph.map((element) => postElementText(element as PostElement)).join(""));
  }
  return lines.join("\n");
}

function pickPostLocale(post: unknown): Record<string, unknown> | undefined {
  if (!isRecord(post)) return undefined;
  if (Array.isArray(post.content)) return post;
  for (const locale of ["zh_cn", "en_us", "ja_jp", ...Object.keys(post)]) {
    const body = post[locale];
    if (isRecord(body) && Array.isArray(body.content)) return body;
  }
  return undefined;
}

function postElementText(element: PostElement): string {
  switch (element.tag) {
    case "text":
    case "md":
      return element.text ?? "";
    case "a":
      return element.text || element.href || "";
    case "at":
      // In received posts `user_id` holds the mention key (`@_user_1`); `all` means everyone.
      if (element.user_id === "all") return "@_all";
      return element.user_id?.startsWith("@_")
        ? element.user_id
        : `@${element.user_name ?? element.user_id ?? ""}`;
    case "code_block":
      return `\n${element.text ?? ""}\n`;
    case "emotion":
      return element.emoji_type ? `:${element.emoji_type}:` : "";
    case "img":
      return "[image]";
    case "media":
      return "[media]";
    default:
      return element.text ?? "";
  }
}

/** True when `key` occurs at `index` in `text` and is not the prefix of a longer key (`@_user_1` vs `@_user_10`). */
function keyAt(text: string, key: string, index: number): boolean {
  if (!text.startsWith(key, index)) return false;
  const next = text[index + key.length];
  return next === undefined || !/[A-Za-z0-9_]/.test(next);
}

/**
 * Removes bot mentions from the start (repeatedly, with following spaces or `,:` punctuation) and one
 * from the very end. `@_user_1/curator status` → `/curator status`. Mid-sentence mentions stay.
 */
export function stripBotMentions(text: string, botKeys: ReadonlySet<string>): string {
  let rest = text.trim();
  let stripped = true;
  while (stripped) {
    stripped = false;
    for (const key of botKeys) {
      if (keyAt(rest, key, 0)) {
        rest = rest.slice(key.length).replace(/^[\s,:，：]+/, "");
        stripped = true;
      }
    }
  }
  for (const key of botKeys) {
    const at = rest.length - key.length;
    if (at > 0 && rest.endsWith(key) && /\s/.test(rest[at - 1] ?? "")) rest = rest.slice(0, at).trimEnd();
  }
  return rest.trim();
}

/**
 * The people (other than the bot) a chat message mentions, as `Name (open_id=ou_…)`, plus `@all`: the
 * `@Name` left in the text does not say who that is, so the agent gets the ids on a line of their own.
 */
export function mentionedOthers(
  content: string,
  mentions: FeishuMention[],
  botKeys: ReadonlySet<string>,
): string[] {
  const present = (key: string) => containsKey(content, key);
  const labels: string[] = [];
  for (const mention of mentions) {
    if (!mention.key || botKeys.has(mention.key) || !present(mention.key)) continue;
    const openId = mention.id?.open_id;
    const name = mention.name || openId || "user";
    labels.push(openId ? `${name} (open_id=${openId})` : name);
  }
  if (present("@_all")) labels.push("@all");
  return labels;
}

/** Replaces the remaining mention keys with `@Name` (`@all` for `@_all`). */
export function resolveMentions(
  text: string,
  mentions: FeishuMention[],
  botKeys: ReadonlySet<string>,
): string {
  const byLength = [...mentions].sort((a, b) => b.key.length - a.key.length);
  let result = text;
  for (const mention of byLength) {
    if (!mention.key) continue;
    const label = `@${mention.name || (botKeys.has(mention.key) ? "bot" : mention.id?.open_id || "user")}`;
    result = replaceKey(result, mention.key, label);
  }
  return replaceKey(result, "@_all", "@all");
}

function containsKey(text: string, key: string): boolean {
  for (let index = text.indexOf(key); index !== -1; index = text.indexOf(key, index + 1)) {
    if (keyAt(text, key, index)) return true;
  }
  return false;
}

function replaceKey(text: string, key: string, label: string): string {
  let out = "";
  let index = 0;
  while (index < text.length) {
    if (keyAt(text, key, index)) {
      out += label;
      index += key.length;
    } else {
      out += text[index];
      index += 1;
    }
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}
