/**
 * `skillgate doctor` for Feishu/Lark: checks the app credentials (tenant token), the bot capability and
 * identity (bot/v3/info), and the way events arrive — the long-connection endpoint, or the webhook's
 * verification settings. It also names the bot menu entries skillgate answers, in the deployment's
 * language, for the admin to add in the developer console (Feishu has no API for the menu).
 */
import { type Check, failText, messageOf, okText, warnText } from "../../src/core/diagnostics.js";
import { menuLocales } from "../../src/core/i18n/locale.js";
import { list, t } from "../../src/core/i18n/messages.js";
import type { AdapterOptions } from "../../src/core/platforms.js";
import { feishuConfig } from "./config.js";
import { feishuLocaleDefault } from "./index.js";
import { feishuMenu } from "./menu.js";

const AREA = "feishu";

/** The open-platform base URL for `gateway.feishu.domain`. */
export function domainUrl(domain: string | undefined): string {
  if (domain === undefined || domain === "feishu") return "https://open.feishu.cn";
  if (domain === "lark") return "https://open.larksuite.com";
  return domain.replace(/\/+$/, "");
}

async function postJson(url: string, body: unknown, token?: string): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json; charset=utf-8",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  return (await response.json().catch(() => ({}))) as Record<string, unknown>;
}

/** Runs the Feishu checks; never throws. */
export async function diagnoseFeishu(options: AdapterOptions): Promise<Check[]> {
  const appId = options.secret("FEISHU_APP_ID");
  const appSecret = options.secret("FEISHU_APP_SECRET");
  if (!appId && !appSecret)
    return [failText(AREA, t("pdoctor.fs.missingBoth"), t("pdoctor.fs.missingBoth.fix"))];
  if (!appId)
    return [
      failText(
        AREA,
        t("pdoctor.fs.missingOne", { missing: "FEISHU_APP_ID", other: "FEISHU_APP_SECRET" }),
        t("pdoctor.fs.missingId.fix"),
      ),
    ];
  if (!appSecret)
    return [
      failText(
        AREA,
        t("pdoctor.fs.missingOne", { missing: "FEISHU_APP_SECRET", other: "FEISHU_APP_ID" }),
        t("pdoctor.fs.missingSecret.fix"),
      ),
    ];
  const settings = feishuConfig(options.config);
  const base = domainUrl(settings.domain);
  const checks: Check[] = [];
  let token: string;
  try {
    const answer = await postJson(`${base}/open-apis/auth/v3/tenant_access_token/internal`, {
      app_id: appId,
      app_secret: appSecret,
    });
    if (answer.code !== 0 || typeof answer.tenant_access_token !== "string")
      return [
        failText(
          AREA,
          t("pdoctor.fs.refused", { code: String(answer.code), detail: String(answer.msg ?? "") }),
          t("pdoctor.fs.refused.fix", { domain: settings.domain ?? "feishu" }),
        ),
      ];
    token = answer.tenant_access_token;
  } catch (error) {
    return [
      failText(
        AREA,
        t("pdoctor.fs.unreachable", { url: base, detail: messageOf(error) }),
        t("pdoctor.fs.unreachable.fix"),
      ),
    ];
  }
  checks.push(okText(AREA, t("pdoctor.fs.credentialsOk")));
  try {
    const response = await fetch(`${base}/open-apis/bot/v3/info`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(15_000),
    });
    const info = (await response.json().catch(() => ({}))) as {
      code?: number;
      msg?: string;
      bot?: { open_id?: string; app_name?: string };
    };
    if (info.code !== 0 || !info.bot?.open_id)
      checks.push(
        failText(
          AREA,
          t("pdoctor.fs.noBot", { code: String(info.code), detail: info.msg ?? "" }),
          t("pdoctor.fs.noBot.fix"),
        ),
      );
    else
      checks.push(
        okText(AREA, t("pdoctor.fs.bot", { name: info.bot.app_name ?? "?", id: info.bot.open_id })),
      );
  } catch (error) {
    checks.push(failText(AREA, t("pdoctor.fs.botFailed", { detail: messageOf(error) }), t("pdoctor.retry")));
  }
  if ((settings.mode ?? "websocket") === "websocket") {
    if (!/^cli_[0-9a-fA-F]{16}$/.test(appId))
      checks.push(failText(AREA, t("pdoctor.fs.badAppId", { id: appId }), t("pdoctor.fs.badAppId.fix")));
    try {
      const answer = await postJson(`${base}/callback/ws/endpoint`, { AppID: appId, AppSecret: appSecret });
      if (answer.code === 0) checks.push(okText(AREA, t("pdoctor.fs.wsOk")));
      else
        checks.push(
          failText(
            AREA,
            t("pdoctor.fs.wsRefused", { code: String(answer.code), detail: String(answer.msg ?? "") }),
            t("pdoctor.fs.wsRefused.fix"),
          ),
        );
    } catch (error) {
      checks.push(
        failText(AREA, t("pdoctor.fs.wsFailed", { detail: messageOf(error) }), t("pdoctor.checkNetwork")),
      );
    }
  } else {
    if (!settings.verificationToken)
      checks.push(failText(AREA, t("pdoctor.fs.noVerification"), t("pdoctor.fs.noVerification.fix")));
    else checks.push(okText(AREA, t("pdoctor.fs.verificationOk")));
    if (!settings.encryptKey)
      checks.push(warnText(AREA, t("pdoctor.fs.noEncryptKey"), t("pdoctor.fs.noEncryptKey.fix")));
  }
  checks.push(menuCheck(options));
  return checks;
}

/** The bot menu to add in the developer console, its names in the language Feishu readers get here. */
export function menuCheck(options: Pick<AdapterOptions, "config">): Check {
  const settings = feishuConfig(options.config);
  const { fallback } = menuLocales({
    platformSetting: options.config.gateway.platforms.feishu?.locale,
    setting: options.config.gateway.locale,
    platformDefault: feishuLocaleDefault(settings.domain).defaultLocale,
  });
  const entries = feishuMenu(fallback).map((entry) =>
    t("pdoctor.fs.menuEntry", { name: entry.name, key: entry.eventKey }),
  );
  return okText(AREA, t("pdoctor.fs.menu", { entries: list(entries) }));
}
