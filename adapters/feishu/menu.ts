/**
 * Feishu's bot menu (机器人自定义菜单): the entries by the chat box that the app's admin sets up in the
 * developer console (App features → Bot → Bot menu); Feishu offers no API to register them. skillgate
 * names the entries it answers — each with its text in the deployment's language (Chinese on the
 * `feishu` domain, English on `lark`; `skillgate doctor` prints them) and an event key — and handles a
 * click: Feishu sends `application.bot.menu_v6` with the entry's `event_key` and the clicking user
 * (`operator`), and no chat. The click runs that command for the user as a direct message to the bot,
 * answered in the direct chat (by the user's open_id) in the deployment's language.
 */

import { matchChatCommand } from "../../src/core/command-text.js";
import type { Locale } from "../../src/core/i18n/locale.js";
import { type MessageKey, resolveText } from "../../src/core/i18n/messages.js";
import type { InboundMessage } from "../../src/core/message.js";

/** The event a bot menu click arrives as. */
export const MENU_EVENT_TYPE = "application.bot.menu_v6";

/** One bot menu entry skillgate answers: the console's event key, the command it runs, its name. */
export interface FeishuMenuEntry {
  readonly eventKey: string;
  readonly command: string;
  readonly label: MessageKey;
}

/** The entries, in the order the menu shows them. */
export const FEISHU_MENU: readonly FeishuMenuEntry[] = [
  { eventKey: "help", command: "help", label: "menu.feishu.help" },
  { eventKey: "curator_status", command: "curator status", label: "menu.feishu.curatorStatus" },
  { eventKey: "skills_list", command: "skills list", label: "menu.feishu.skillsList" },
  { eventKey: "whoami", command: "whoami", label: "menu.feishu.whoami" },
];

/** The menu as the admin types it into the developer console: each entry's name in `locale` and its key. */
export function feishuMenu(locale: Locale): { name: string; eventKey: string }[] {
  return FEISHU_MENU.map((entry) => ({
    name: resolveText({ key: entry.label }, locale),
    eventKey: entry.eventKey,
  }));
}

function asString(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * A bot menu click (the flattened object the SDK's `EventDispatcher` hands over) as a command from the
 * clicking user in their direct chat with the bot; null for a key skillgate does not know, a click
 * without a user, or the bot itself.
 */
export function normalizeMenuEvent(data: Record<string, unknown>, botOpenId: string): InboundMessage | null {
  const eventId = asString(data.event_id);
  const operator = data.operator as { operator_id?: { open_id?: unknown } } | undefined;
  const openId = asString(operator?.operator_id?.open_id);
  const entry = FEISHU_MENU.find((item) => item.eventKey === data.event_key);
  if (!eventId || !openId || openId === botOpenId || !entry) return null;
  const text = `/${entry.command}`;
  const command = matchChatCommand(text);
  return {
    eventId,
    platform: "feishu",
    chat: { kind: "dm", id: openId },
    sender: { id: openId, isBot: false },
    text,
    ...(command ? { command } : {}),
    receivedAt: Number(data.timestamp ?? data.create_time ?? 0) || 0,
    raw: data,
  };
}
