/**
 * `skillgate doctor` for Telegram: asks the Bot API what it can about the configured bot — whether the
 * token is accepted (getMe), what the bot sees in groups (privacy mode), where updates go (getWebhookInfo
 * against the configured mode and URL) and whether a command menu is registered (getMyCommands).
 */

import { type Check, failText, messageOf, okText, warnText } from "../../src/core/diagnostics.js";
import { type Text, t } from "../../src/core/i18n/messages.js";
import type { AdapterOptions } from "../../src/core/platforms.js";
import { telegramConfig } from "./config.js";
import { Api, GrammyError } from "./grammy.js";

const AREA = "telegram";

/**
 * What is wrong with the shape of a bot token, or undefined when it looks like one. @BotFather hands
 * out `<bot id>:<secret>`: the bot's numeric id, a colon, then about 35 letters, digits, `_` and `-`
 * (e.g. `110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw`). Checked before any request, so a pasted
 * fragment never goes to the network as a token.
 */
export function tokenShapeProblem(token: string): Text | undefined {
  if (token !== token.trim()) return t("pdoctor.tg.shape.spaces");
  if (/^["'].*["']$/.test(token)) return t("pdoctor.tg.shape.quotes");
  if (/^https?:\/\//i.test(token)) return t("pdoctor.tg.shape.url");
  if (/^bot\d+:/i.test(token)) return t("pdoctor.tg.shape.botPrefix");
  if (!token.includes(":")) return t("pdoctor.tg.shape.noColon");
  const [id = "", secret = ""] = token.split(/:(.*)/s);
  if (!/^\d+$/.test(id)) return t("pdoctor.tg.shape.badId", { id: JSON.stringify(id.slice(0, 12)) });
  if (!/^[A-Za-z0-9_-]+$/.test(secret)) return t("pdoctor.tg.shape.badChars");
  if (secret.length < 30) return t("pdoctor.tg.shape.short", { length: secret.length });
  return undefined;
}

/** Runs the Telegram checks; never throws. */
export async function diagnoseTelegram(options: AdapterOptions): Promise<Check[]> {
  const token = options.secret("TELEGRAM_BOT_TOKEN");
  if (!token) return [failText(AREA, t("pdoctor.tg.noToken"), t("pdoctor.tg.noToken.fix"))];
  const shape = tokenShapeProblem(token);
  if (shape)
    return [failText(AREA, t("pdoctor.tg.badShape", { problem: shape }), t("pdoctor.tg.badShape.fix"))];
  const settings = telegramConfig(options.config);
  const apiRoot = settings.apiRoot?.replace(/\/+$/, "");
  const api = new Api(token, apiRoot ? { apiRoot } : {});
  const checks: Check[] = [];
  let me: Awaited<ReturnType<Api["getMe"]>>;
  try {
    me = await api.getMe();
  } catch (error) {
    if (error instanceof GrammyError && error.error_code === 401)
      return [failText(AREA, t("pdoctor.tg.refused"), t("pdoctor.tg.refused.fix"))];
    return [
      failText(
        AREA,
        t("pdoctor.tg.unreachable", {
          url: apiRoot ?? "https://api.telegram.org",
          detail: messageOf(error),
        }),
        t("pdoctor.tg.unreachable.fix"),
      ),
    ];
  }
  checks.push(okText(AREA, t("pdoctor.tg.tokenOk", { username: me.username, id: String(me.id) })));
  checks.push(
    okText(AREA, t(me.can_read_all_group_messages ? "pdoctor.tg.privacyOff" : "pdoctor.tg.privacyOn")),
  );
  if (!me.can_join_groups)
    checks.push(warnText(AREA, t("pdoctor.tg.noGroups"), t("pdoctor.tg.noGroups.fix")));
  try {
    const info = await api.getWebhookInfo();
    const mode = settings.mode ?? "polling";
    const wanted = settings.webhook.url ?? options.secret("TELEGRAM_WEBHOOK_URL");
    const waiting = info.pending_update_count;
    if (mode === "webhook") {
      if (!wanted)
        checks.push(failText(AREA, t("pdoctor.tg.noWebhookUrl"), t("pdoctor.tg.noWebhookUrl.fix")));
      else if (info.url === "")
        checks.push(warnText(AREA, t("pdoctor.tg.noWebhook"), t("pdoctor.tg.noWebhook.fix")));
      else if (info.url !== wanted)
        checks.push(
          failText(
            AREA,
            t("pdoctor.tg.webhookElsewhere", { url: info.url ?? "", wanted }),
            t("pdoctor.tg.webhookElsewhere.fix"),
          ),
        );
      else checks.push(okText(AREA, t("pdoctor.tg.webhookOk", { url: info.url, count: waiting })));
      if (info.last_error_message)
        checks.push(
          warnText(
            AREA,
            t("pdoctor.tg.webhookError", { detail: info.last_error_message }),
            t("pdoctor.tg.webhookError.fix"),
          ),
        );
    } else if (info.url !== "") {
      checks.push(
        warnText(
          AREA,
          t("pdoctor.tg.strayWebhook", { url: info.url ?? "" }),
          t("pdoctor.tg.strayWebhook.fix"),
        ),
      );
    } else checks.push(okText(AREA, t("pdoctor.tg.polling", { count: waiting })));
  } catch (error) {
    checks.push(
      warnText(AREA, t("pdoctor.tg.webhookInfoFailed", { detail: messageOf(error) }), t("pdoctor.retry")),
    );
  }
  try {
    const commands = await api.getMyCommands();
    checks.push(
      commands.length > 0
        ? okText(AREA, t("pdoctor.tg.menuOk", { count: commands.length }))
        : warnText(AREA, t("pdoctor.tg.noMenu"), t("pdoctor.serveRegisters")),
    );
  } catch (error) {
    checks.push(
      warnText(AREA, t("pdoctor.tg.commandsFailed", { detail: messageOf(error) }), t("pdoctor.retry")),
    );
  }
  return checks;
}
