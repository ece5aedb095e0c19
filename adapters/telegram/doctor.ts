/**
 * `skillgate doctor` for Telegram: asks the Bot API what it can about the configured bot — whether the
 * token is accepted (getMe), what the bot sees in groups (privacy mode), where updates go (getWebhookInfo
 * against the configured mode and URL) and whether a command menu is registered (getMyCommands).
 */
import { Api, GrammyError } from "grammy";
import { type Check, failed, messageOf, ok, warn } from "../../src/core/diagnostics.js";
import type { AdapterOptions } from "../../src/core/platforms.js";
import { telegramConfig } from "./config.js";

const AREA = "telegram";

/**
 * What is wrong with the shape of a bot token, or undefined when it looks like one. @BotFather hands
 * out `<bot id>:<secret>`: the bot's numeric id, a colon, then about 35 letters, digits, `_` and `-`
 * (e.g. `110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw`). Checked before any request, so a pasted
 * fragment never goes to the network as a token.
 */
export function tokenShapeProblem(token: string): string | undefined {
  if (token !== token.trim()) return "it starts or ends with spaces";
  if (/^["'].*["']$/.test(token)) return "it is wrapped in quotes";
  if (/^https?:\/\//i.test(token)) return "it is a URL, not the token inside it";
  if (/^bot\d+:/i.test(token)) return "it starts with `bot` (that prefix belongs in URLs, not in the token)";
  if (!token.includes(":")) return "it has no `:` (a token is `<bot id>:<secret>`)";
  const [id = "", secret = ""] = token.split(/:(.*)/s);
  if (!/^\d+$/.test(id))
    return `the part before \`:\` must be the bot's numeric id, not ${JSON.stringify(id.slice(0, 12))}`;
  if (!/^[A-Za-z0-9_-]+$/.test(secret)) return "the part after `:` has characters a token never has";
  if (secret.length < 30)
    return `the part after \`:\` is ${secret.length} characters long; BotFather's are about 35`;
  return undefined;
}

/** Runs the Telegram checks; never throws. */
export async function diagnoseTelegram(options: AdapterOptions): Promise<Check[]> {
  const token = options.secret("TELEGRAM_BOT_TOKEN");
  if (!token)
    return [
      failed(
        AREA,
        "TELEGRAM_BOT_TOKEN is not set.",
        "Create a bot with @BotFather (/newbot) and put TELEGRAM_BOT_TOKEN=… in <home>/.env, or set gateway.telegram.enabled: false.",
      ),
    ];
  const shape = tokenShapeProblem(token);
  if (shape)
    return [
      failed(
        AREA,
        `TELEGRAM_BOT_TOKEN does not look like a bot token: ${shape}. Nothing was sent to Telegram.`,
        "Copy the token again from @BotFather (/mybots → your bot → API Token): the whole `123456789:AA…` line, without quotes or spaces, into TELEGRAM_BOT_TOKEN= in <home>/.env.",
      ),
    ];
  const settings = telegramConfig(options.config);
  const apiRoot = settings.apiRoot?.replace(/\/+$/, "");
  const api = new Api(token, apiRoot ? { apiRoot } : {});
  const checks: Check[] = [];
  let me: Awaited<ReturnType<Api["getMe"]>>;
  try {
    me = await api.getMe();
  } catch (error) {
    if (error instanceof GrammyError && error.error_code === 401)
      return [
        failed(
          AREA,
          "Telegram refused TELEGRAM_BOT_TOKEN (401 Unauthorized).",
          "Copy the token again from @BotFather (/mybots → API Token) into <home>/.env; /revoke there makes a new one.",
        ),
      ];
    return [
      failed(
        AREA,
        `Cannot reach the Telegram Bot API at ${apiRoot ?? "https://api.telegram.org"}: ${messageOf(error)}.`,
        "Check the network (and a proxy), or gateway.telegram.api_root.",
      ),
    ];
  }
  checks.push(ok(AREA, `Token accepted: the bot is @${me.username} (id ${me.id}).`));
  checks.push(
    me.can_read_all_group_messages
      ? ok(
          AREA,
          "Privacy mode is off: the bot sees every group message; skillgate answers only what is addressed to it.",
        )
      : ok(
          AREA,
          "Privacy mode is on: in groups the bot sees commands, @mentions of it and replies to it — enough for /curator.",
        ),
  );
  if (!me.can_join_groups)
    checks.push(
      warn(
        AREA,
        "The bot cannot be added to groups.",
        "Allow it with @BotFather → /setjoingroups if you want it in groups.",
      ),
    );
  try {
    const info = await api.getWebhookInfo();
    const mode = settings.mode ?? "polling";
    const wanted = settings.webhook.url ?? options.secret("TELEGRAM_WEBHOOK_URL");
    if (mode === "webhook") {
      if (!wanted)
        checks.push(
          failed(
            AREA,
            "gateway.telegram.mode is webhook but no webhook URL is configured.",
            "Set gateway.telegram.webhook.url to the public https:// address.",
          ),
        );
      else if (info.url === "")
        checks.push(
          warn(
            AREA,
            "No webhook is registered yet.",
            "Start `skillgate serve`: it registers gateway.telegram.webhook.url.",
          ),
        );
      else if (info.url !== wanted)
        checks.push(
          failed(
            AREA,
            `The webhook points elsewhere: Telegram sends updates to ${info.url}, not to ${wanted}.`,
            "Another deployment may own this bot. Stop it, or restart `skillgate serve` here to register this URL (it replaces the other).",
          ),
        );
      else
        checks.push(
          ok(AREA, `Webhook registered at ${info.url} (${info.pending_update_count} update(s) waiting).`),
        );
      if (info.last_error_message)
        checks.push(
          warn(
            AREA,
            `Telegram's last webhook delivery failed: ${info.last_error_message}.`,
            "Check the reverse proxy, TLS certificate and gateway.telegram.webhook.port/path.",
          ),
        );
    } else if (info.url !== "") {
      checks.push(
        warn(
          AREA,
          `A webhook is registered (${info.url}) while gateway.telegram.mode is polling.`,
          "`skillgate serve` removes it when it starts polling; if another deployment uses that webhook, give each deployment its own bot.",
        ),
      );
    } else
      checks.push(ok(AREA, `Long polling: no webhook set, ${info.pending_update_count} update(s) waiting.`));
  } catch (error) {
    checks.push(warn(AREA, `getWebhookInfo failed: ${messageOf(error)}.`, "Retry; check the network."));
  }
  try {
    const commands = await api.getMyCommands();
    checks.push(
      commands.length > 0
        ? ok(AREA, `Command menu registered (${commands.length} commands).`)
        : warn(
            AREA,
            "No command menu is registered.",
            "Start `skillgate serve` once: it registers the menu.",
          ),
    );
  } catch (error) {
    checks.push(warn(AREA, `getMyCommands failed: ${messageOf(error)}.`, "Retry; check the network."));
  }
  return checks;
}
