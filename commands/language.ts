/**
 * `/language [zh-CN|zh-TW|zh-HK|en|auto]`: a chat's own language. Bare, it shows the chat's choice; with a value it
 * sets it (`auto` forgets it, so each reader is answered in their own language again). The choice is kept
 * in the gateway's sessions store, so every replica answers the chat alike; in a group only admins may
 * change it, in a direct chat anyone may.
 */
import { isLocale, LANGUAGE_NAMES, type Locale } from "../src/core/i18n/locale.js";
import { t } from "../src/core/i18n/messages.js";
import { errorReply, reply } from "../src/core/reply.js";
import { chatKeyOf } from "./context.js";
import { defineCommand } from "./types.js";

/** What `/language` accepts. */
const LANGUAGE_CHOICES = ["zh-CN", "zh-TW", "zh-HK", "en", "auto"] as const;

/** The `language` command. */
export const languageCommand = defineCommand({
  path: ["language"],
  summary: t("cmd.summary.language"),
  args: [{ name: "language", description: t("cmd.arg.language") }],
  mutating: false,
  async run(ctx, input) {
    const command = ctx.commandPrefix(["language"]);
    const caller = ctx.caller;
    if (ctx.surface !== "chat" || !caller || !ctx.chatId || !ctx.sessions) {
      return errorReply(t("cmd.language.chatOnly", { command }));
    }
    const chatKey = chatKeyOf(caller.platform, ctx.chatId);
    const [value] = input.args;
    if (value === undefined) {
      const chosen = await ctx.sessions.chatLanguage(chatKey);
      return reply(
        [
          {
            kind: "paragraph",
            text: chosen
              ? t("cmd.language.current", { language: LANGUAGE_NAMES[chosen] })
              : t("cmd.language.currentAuto"),
          },
        ],
        { json: { chat: chatKey, language: chosen ?? "auto" } },
      );
    }
    const spelled = value.replace("_", "-").toLowerCase();
    const wanted = LANGUAGE_CHOICES.find((choice) => choice.toLowerCase() === spelled);
    if (!wanted) return errorReply(t("cmd.language.invalid", { value }));
    if (ctx.chatKind !== "dm" && !caller.isAdmin) {
      return errorReply(t("cmd.language.adminsOnly", { who: `${caller.platform}:${caller.id}` }));
    }
    const locale: Locale | undefined = isLocale(wanted) ? wanted : undefined;
    await ctx.sessions.setChatLanguage(chatKey, locale);
    return reply(
      [
        {
          kind: "paragraph",
          text: locale
            ? t("cmd.language.set", { language: LANGUAGE_NAMES[locale] })
            : t("cmd.language.cleared"),
        },
      ],
      { json: { chat: chatKey, language: wanted } },
    );
  },
});
