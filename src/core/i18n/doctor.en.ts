/**
 * English texts of the platform rows of `skillgate doctor` (the `doctor.ts` of each adapter): what each platform's
 * check found and how to fix it. A section of the English catalog.
 */

import type { CatalogShape } from "./entries.js";

export const enDoctor = {
  "pdoctor.retry": "Retry; check the network.",
  "pdoctor.checkNetwork": "Check the network.",
  "pdoctor.serveRegisters": "Start `skillgate serve` once: it registers the menu.",
  // ── telegram ────────────────────────────────────────────────────────────────────────────────────────
  "pdoctor.tg.shape.spaces": "it starts or ends with spaces",
  "pdoctor.tg.shape.quotes": "it is wrapped in quotes",
  "pdoctor.tg.shape.url": "it is a URL, not the token inside it",
  "pdoctor.tg.shape.botPrefix": "it starts with `bot` (that prefix belongs in URLs, not in the token)",
  "pdoctor.tg.shape.noColon": "it has no `:` (a token is `<bot id>:<secret>`)",
  "pdoctor.tg.shape.badId": "the part before `:` must be the bot's numeric id, not {id}",
  "pdoctor.tg.shape.badChars": "the part after `:` has characters a token never has",
  "pdoctor.tg.shape.short": "the part after `:` is {length} characters long; BotFather's are about 35",
  "pdoctor.tg.noToken": "TELEGRAM_BOT_TOKEN is not set.",
  "pdoctor.tg.noToken.fix":
    "Create a bot with @BotFather (/newbot) and put TELEGRAM_BOT_TOKEN=… in <home>/.env, or set gateway.telegram.enabled: false.",
  "pdoctor.tg.badShape":
    "TELEGRAM_BOT_TOKEN does not look like a bot token: {problem}. Nothing was sent to Telegram.",
  "pdoctor.tg.badShape.fix":
    "Copy the token again from @BotFather (/mybots → your bot → API Token): the whole `123456789:AA…` line, without quotes or spaces, into TELEGRAM_BOT_TOKEN= in <home>/.env.",
  "pdoctor.tg.refused": "Telegram refused TELEGRAM_BOT_TOKEN (401 Unauthorized).",
  "pdoctor.tg.refused.fix":
    "Copy the token again from @BotFather (/mybots → API Token) into <home>/.env; /revoke there makes a new one.",
  "pdoctor.tg.unreachable": "Cannot reach the Telegram Bot API at {url}: {detail}.",
  "pdoctor.tg.unreachable.fix": "Check the network (and a proxy), or gateway.telegram.api_root.",
  "pdoctor.tg.tokenOk": "Token accepted: the bot is @{username} (id {id}).",
  "pdoctor.tg.privacyOff":
    "Privacy mode is off: the bot sees every group message; skillgate answers only what is addressed to it.",
  "pdoctor.tg.privacyOn":
    "Privacy mode is on: in groups the bot sees commands, @mentions of it and replies to it — enough for /curator.",
  "pdoctor.tg.noGroups": "The bot cannot be added to groups.",
  "pdoctor.tg.noGroups.fix": "Allow it with @BotFather → /setjoingroups if you want it in groups.",
  "pdoctor.tg.noWebhookUrl": "gateway.telegram.mode is webhook but no webhook URL is configured.",
  "pdoctor.tg.noWebhookUrl.fix": "Set gateway.telegram.webhook.url to the public https:// address.",
  "pdoctor.tg.noWebhook": "No webhook is registered yet.",
  "pdoctor.tg.noWebhook.fix": "Start `skillgate serve`: it registers gateway.telegram.webhook.url.",
  "pdoctor.tg.webhookElsewhere":
    "The webhook points elsewhere: Telegram sends updates to {url}, not to {wanted}.",
  "pdoctor.tg.webhookElsewhere.fix":
    "Another deployment may own this bot. Stop it, or restart `skillgate serve` here to register this URL (it replaces the other).",
  "pdoctor.tg.webhookOk": {
    one: "Webhook registered at {url} ({count} update waiting).",
    other: "Webhook registered at {url} ({count} updates waiting).",
  },
  "pdoctor.tg.webhookError": "Telegram's last webhook delivery failed: {detail}.",
  "pdoctor.tg.webhookError.fix":
    "Check the reverse proxy, TLS certificate and gateway.telegram.webhook.port/path.",
  "pdoctor.tg.strayWebhook": "A webhook is registered ({url}) while gateway.telegram.mode is polling.",
  "pdoctor.tg.strayWebhook.fix":
    "`skillgate serve` removes it when it starts polling; if another deployment uses that webhook, give each deployment its own bot.",
  "pdoctor.tg.polling": {
    one: "Long polling: no webhook set, {count} update waiting.",
    other: "Long polling: no webhook set, {count} updates waiting.",
  },
  "pdoctor.tg.webhookInfoFailed": "getWebhookInfo failed: {detail}.",
  "pdoctor.tg.menuOk": {
    one: "Command menu registered ({count} command).",
    other: "Command menu registered ({count} commands).",
  },
  "pdoctor.tg.noMenu": "No command menu is registered.",
  "pdoctor.tg.commandsFailed": "getMyCommands failed: {detail}.",
  // ── discord ─────────────────────────────────────────────────────────────────────────────────────────
  "pdoctor.dc.noToken": "DISCORD_BOT_TOKEN is not set.",
  "pdoctor.dc.noToken.fix":
    "Developer Portal → your application → Bot → Reset Token; put DISCORD_BOT_TOKEN=… in <home>/.env, or set gateway.discord.enabled: false.",
  "pdoctor.dc.connected": "Gateway connection works: {detail}.",
  "pdoctor.dc.connectedPlain": "connected",
  "pdoctor.dc.loginFailed": "{detail}",
  "pdoctor.dc.wrongApp":
    "gateway.discord.application_id is {configured} but the token belongs to application {actual}.",
  "pdoctor.dc.wrongApp.fix":
    "Copy the Application ID from the Developer Portal's General Information page, or remove the setting.",
  "pdoctor.dc.inGuild": "in guild {guild}",
  "pdoctor.dc.globally": "globally",
  "pdoctor.dc.commandsOk": "Slash commands registered {where} ({count}).",
  "pdoctor.dc.noCommands": "No skillgate slash commands are registered {where}.",
  "pdoctor.dc.noCommands.fix": "Start `skillgate serve` once: it registers them.",
  "pdoctor.dc.noAccess": "Discord refused access to the command list ({detail}).",
  "pdoctor.dc.noAccess.fix":
    "Invite the bot to the server with the scopes `bot applications.commands` (OAuth2 → URL Generator), and check gateway.discord.guild_id.",
  "pdoctor.dc.commandsUnreadable": "Could not read the registered commands: {detail}.",
  "pdoctor.dc.urlWithoutPort":
    "The application's Interactions Endpoint URL is {url}, so Discord sends slash commands and buttons there, not over the gateway, but gateway.discord.interactions.port is not set.",
  "pdoctor.dc.urlWithoutPort.fix":
    "Set gateway.discord.interactions.port (and DISCORD_PUBLIC_KEY) on every replica behind that URL, or clear the URL in the Developer Portal → General Information.",
  "pdoctor.dc.overGateway": "Interactions come over the gateway session (no Interactions Endpoint URL).",
  "pdoctor.dc.badKey": "gateway.discord.interactions.public_key (or DISCORD_PUBLIC_KEY) is not a public key.",
  "pdoctor.dc.noKey": "gateway.discord.interactions.port is set but DISCORD_PUBLIC_KEY is not.",
  "pdoctor.dc.key.fix":
    "Copy PUBLIC KEY (64 hex digits) from the Developer Portal → General Information into <home>/.env as DISCORD_PUBLIC_KEY.",
  "pdoctor.dc.endpointOk": "Interactions Endpoint: Discord POSTs to {url}; skillgate listens on {listen}.",
  "pdoctor.dc.noEndpointUrl":
    "skillgate listens for interactions on {listen}, but the application has no Interactions Endpoint URL, so interactions still come over the gateway session (to the leading replica only).",
  "pdoctor.dc.noEndpointUrl.fix":
    "Put the public https:// address of that path into the Developer Portal → General Information → Interactions Endpoint URL.",
  "pdoctor.dc.fix.intent":
    "Developer Portal → Bot → Privileged Gateway Intents: switch on the intent named above.",
  "pdoctor.dc.fix.token": "Developer Portal → Bot → Reset Token, and put the new token in <home>/.env.",
  "pdoctor.dc.fix.network": "Check the network and gateway.discord.api.",
  // ── feishu ──────────────────────────────────────────────────────────────────────────────────────────
  "pdoctor.fs.missingOne": "{missing} is not set ({other} is).",
  "pdoctor.fs.missingBoth": "FEISHU_APP_ID and FEISHU_APP_SECRET are not set.",
  "pdoctor.fs.missingId.fix":
    "Copy the App ID (cli_…) from the app's Credentials & Basic Info page in the developer console into <home>/.env as FEISHU_APP_ID=…, or set gateway.feishu.enabled: false.",
  "pdoctor.fs.missingSecret.fix":
    "Copy the App Secret from the app's Credentials & Basic Info page in the developer console into <home>/.env as FEISHU_APP_SECRET=…, or set gateway.feishu.enabled: false.",
  "pdoctor.fs.missingBoth.fix":
    "Copy both from the app's Credentials & Basic Info page in the developer console into <home>/.env as FEISHU_APP_ID=… and FEISHU_APP_SECRET=…, or set gateway.feishu.enabled: false.",
  "pdoctor.fs.refused": "Feishu refused FEISHU_APP_ID/FEISHU_APP_SECRET (code {code}: {detail}).",
  "pdoctor.fs.refused.fix":
    "Copy both again from the app's Credentials page. A larksuite.com tenant needs gateway.feishu.domain: lark (now {domain}).",
  "pdoctor.fs.unreachable": "Cannot reach {url}: {detail}.",
  "pdoctor.fs.unreachable.fix": "Check the network and gateway.feishu.domain.",
  "pdoctor.fs.credentialsOk": "App credentials accepted.",
  "pdoctor.fs.noBot": "The app has no bot (bot/v3/info answered {code}: {detail}).",
  "pdoctor.fs.noBot.fix": "Enable the Bot capability (Features → Bot) and publish a new version of the app.",
  "pdoctor.fs.bot": 'Bot "{name}" (open_id {id}).',
  "pdoctor.fs.botFailed": "bot/v3/info failed: {detail}.",
  "pdoctor.fs.badAppId": 'The Lark SDK\'s long connection does not accept the app id "{id}".',
  "pdoctor.fs.badAppId.fix": "Check FEISHU_APP_ID; if it is right, use gateway.feishu.mode: webhook.",
  "pdoctor.fs.wsOk": "Long connection endpoint available.",
  "pdoctor.fs.wsRefused": "The long connection was refused (code {code}: {detail}).",
  "pdoctor.fs.wsRefused.fix":
    'In Events & Callbacks choose "Receive events through persistent connection", subscribe to im.message.receive_v1, and publish the app.',
  "pdoctor.fs.wsFailed": "The long connection endpoint failed: {detail}.",
  "pdoctor.fs.noVerification": "Webhook mode without gateway.feishu.verification_token.",
  "pdoctor.fs.noVerification.fix":
    "Copy the Verification Token from Events & Callbacks → Encryption Strategy into config.yaml.",
  "pdoctor.fs.verificationOk": "Webhook verification token set.",
  "pdoctor.fs.noEncryptKey": "No gateway.feishu.encrypt_key: webhook events are not signed.",
  "pdoctor.fs.noEncryptKey.fix": "Set an Encrypt Key in Events & Callbacks and copy it into config.yaml.",
  "pdoctor.fs.menuEntry": '"{name}" → event key {key}',
  "pdoctor.fs.menu":
    'Bot menu entries skillgate answers (add them under App features → Bot → Bot menu, type "push event"): {entries}.',
} as const satisfies CatalogShape;
