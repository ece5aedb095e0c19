/**
 * Which language the gateway answers in, per message: `gateway.<platform>.locale`, else `gateway.locale`,
 * else (with `auto`, the default) the reader's own language as the platform reports it, else the chat's
 * (a Discord guild's locale), else the platform's default (Feishu on the `feishu` domain: Chinese), else
 * English. Posts without a reader (the home channel) use the chat's language or the platform default.
 * Replies are resolved here, before buttons are stored, pages cut and budgets measured, so every later
 * step sees the text the reader will read.
 */
import type { SkillgateConfig } from "../config/config.js";
import { chooseLocale, type Locale } from "../core/i18n/locale.js";
import type { Adapter, InboundMessage } from "../core/message.js";
import { type LocalizedReply, localizeReply, type Reply } from "../core/reply.js";

/** The locale of a reply to `message`, or of a post to `chatId` when there is no message. */
export function readerLocale(
  config: Pick<SkillgateConfig, "gateway">,
  adapter: Pick<Adapter, "platform" | "capabilities" | "chatLanguage">,
  message?: Pick<InboundMessage, "language" | "chatLanguage" | "chat">,
  chatId?: string,
): Locale {
  const chat = message?.chat.id ?? chatId;
  return chooseLocale({
    platformSetting: config.gateway.platforms[adapter.platform]?.locale,
    setting: config.gateway.locale,
    reader: message?.language,
    chat: message?.chatLanguage ?? (chat !== undefined ? adapter.chatLanguage?.(chat) : undefined),
    platformDefault: adapter.capabilities.defaultLocale,
  });
}

/** `reply` resolved for the reader of `message` (or the chat `chatId`) on `adapter`. */
export function forReader(
  config: Pick<SkillgateConfig, "gateway">,
  adapter: Pick<Adapter, "platform" | "capabilities" | "chatLanguage">,
  reply: Reply,
  message?: Pick<InboundMessage, "language" | "chatLanguage" | "chat">,
  chatId?: string,
): LocalizedReply {
  return localizeReply(reply, readerLocale(config, adapter, message, chatId));
}
