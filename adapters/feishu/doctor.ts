/**
 * `skillgate doctor` for Feishu/Lark: checks the app credentials (tenant token), the bot capability and
 * identity (bot/v3/info), and the way events arrive — the long-connection endpoint, or the webhook's
 * verification settings. It also names the bot menu entries skillgate answers, in the deployment's
 * language, for the admin to add in the developer console (Feishu has no API for the menu).
 */
import { type Check, failed, messageOf, ok, warn } from "../../src/core/diagnostics.js";
import { menuLocales } from "../../src/core/i18n/locale.js";
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
  const missing = [appId ? "" : "FEISHU_APP_ID", appSecret ? "" : "FEISHU_APP_SECRET"].filter(Boolean);
  if (!appId || !appSecret)
    return [
      failed(
        AREA,
        `${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} not set${missing.length === 1 ? ` (${missing[0] === "FEISHU_APP_ID" ? "FEISHU_APP_SECRET" : "FEISHU_APP_ID"} is)` : ""}.`,
        `Copy ${missing.length > 1 ? "both" : missing[0] === "FEISHU_APP_ID" ? "the App ID (cli_…)" : "the App Secret"} from the app's Credentials & Basic Info page in the developer console into <home>/.env${missing.map((name) => ` as ${name}=…`).join(" and")}, or set gateway.feishu.enabled: false.`,
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
        failed(
          AREA,
          `Feishu refused FEISHU_APP_ID/FEISHU_APP_SECRET (code ${String(answer.code)}: ${String(answer.msg ?? "")}).`,
          `Copy both again from the app's Credentials page. A larksuite.com tenant needs gateway.feishu.domain: lark (now ${settings.domain ?? "feishu"}).`,
        ),
      ];
    token = answer.tenant_access_token;
  } catch (error) {
    return [
      failed(
        AREA,
        `Cannot reach ${base}: ${messageOf(error)}.`,
        "Check the network and gateway.feishu.domain.",
      ),
    ];
  }
  checks.push(ok(AREA, "App credentials accepted."));
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
        failed(
          AREA,
          `The app has no bot (bot/v3/info answered ${String(info.code)}: ${info.msg ?? ""}).`,
          "Enable the Bot capability (Features → Bot) and publish a new version of the app.",
        ),
      );
    else checks.push(ok(AREA, `Bot "${info.bot.app_name ?? "?"}" (open_id ${info.bot.open_id}).`));
  } catch (error) {
    checks.push(failed(AREA, `bot/v3/info failed: ${messageOf(error)}.`, "Retry; check the network."));
  }
  if ((settings.mode ?? "websocket") === "websocket") {
    if (!/^cli_[0-9a-fA-F]{16}$/.test(appId))
      checks.push(
        failed(
          AREA,
          `The Lark SDK's long connection does not accept the app id "${appId}".`,
          "Check FEISHU_APP_ID; if it is right, use gateway.feishu.mode: webhook.",
        ),
      );
    try {
      const answer = await postJson(`${base}/callback/ws/endpoint`, { AppID: appId, AppSecret: appSecret });
      if (answer.code === 0) checks.push(ok(AREA, "Long connection endpoint available."));
      else
        checks.push(
          failed(
            AREA,
            `The long connection was refused (code ${String(answer.code)}: ${String(answer.msg ?? "")}).`,
            'In Events & Callbacks choose "Receive events through persistent connection", subscribe to im.message.receive_v1, and publish the app.',
          ),
        );
    } catch (error) {
      checks.push(
        failed(AREA, `The long connection endpoint failed: ${messageOf(error)}.`, "Check the network."),
      );
    }
  } else {
    if (!settings.verificationToken)
      checks.push(
        failed(
          AREA,
          "Webhook mode without gateway.feishu.verification_token.",
          "Copy the Verification Token from Events & Callbacks → Encryption Strategy into config.yaml.",
        ),
      );
    else checks.push(ok(AREA, "Webhook verification token set."));
    if (!settings.encryptKey)
      checks.push(
        warn(
          AREA,
          "No gateway.feishu.encrypt_key: webhook events are not signed.",
          "Set an Encrypt Key in Events & Callbacks and copy it into config.yaml.",
        ),
      );
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
  const entries = feishuMenu(fallback).map((entry) => `"${entry.name}" → event key ${entry.eventKey}`);
  return ok(
    AREA,
    `Bot menu entries skillgate answers (add them under App features → Bot → Bot menu, type "push event"): ${entries.join("; ")}.`,
  );
}
