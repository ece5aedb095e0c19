/**
 * Which language the gateway answers in, per message: `gateway.<platform>.locale`, else `gateway.locale`,
 * else (with `auto`, the default) the reader's own language as the platform reports it, else the chat's
 * (a Discord guild's locale), else the platform's default (Feishu on the `feishu` domain: Chinese), else
 * English. A chat's own choice (`/language`, kept in the sessions store) wins over all of these. Posts
 * without a reader (the home channel) and every answer in the home chat use that choice, else
 * `gateway.home_locale`, else the chat's language or the platform default.
 * Replies are resolved here, before buttons are stored, pages cut and budgets measured, so every later
 * step sees the text the reader will read.
 */
import type { SkillgateConfig } from "../config/config.js";
import { chooseLocale, type Locale } from "../core/i18n/locale.js";
import type { Adapter, InboundMessage } from "../core/message.js";
import { type LocalizedReply, localizeReply, type Reply } from "../core/reply.js";

/**
 * The locale of a reply to `message`, or of a post to `chatId` when there is no message; `chosen` is the
 * chat's `/language` choice, if it made one.
 */
export function readerLocale(
  config: Pick<SkillgateConfig, "gateway">,
  adapter: Pick<Adapter, "platform" | "capabilities" | "chatLanguage">,
  message?: Pick<InboundMessage, "language" | "chatLanguage" | "chat">,
  chatId?: string,
  chosen?: Locale,
): Locale {
  if (chosen) return chosen;
  const home = config.gateway.homeLocale;
  const chat = message?.chat.id ?? chatId;
  // Every post to the home chat (the summary, and the answers to its buttons) reads in one language.
  if (home !== undefined && home !== "auto" && (!message || isHomeChat(config, adapter.platform, chat)))
    return home;
  return chooseLocale({
    platformSetting: config.gateway.platforms[adapter.platform]?.locale,
    setting: config.gateway.locale,
    reader: message?.language,
    chat: message?.chatLanguage ?? (chat !== undefined ? adapter.chatLanguage?.(chat) : undefined),
    platformDefault: adapter.capabilities.defaultLocale,
  });
}

/** True when `chatId` on `platform` is the chat `gateway.home_channel` names (`platform:chat[:thread]`). */
function isHomeChat(
  config: Pick<SkillgateConfig, "gateway">,
  platform: string,
  chatId: string | undefined,
): boolean {
  const [homePlatform, homeChat] = (config.gateway.homeChannel ?? "").split(":");
  return chatId !== undefined && homePlatform === platform && homeChat === chatId;
}

/** `reply` resolved for the reader of `message` (or the chat `chatId`, or its `chosen` locale) on `adapter`. */
export function forReader(
  config: Pick<SkillgateConfig, "gateway">,
  adapter: Pick<Adapter, "platform" | "capabilities" | "chatLanguage">,
  reply: Reply,
  message?: Pick<InboundMessage, "language" | "chatLanguage" | "chat">,
  chatId?: string,
  chosen?: Locale,
): LocalizedReply {
  return localizeReply(reply, readerLocale(config, adapter, message, chatId, chosen));
}
