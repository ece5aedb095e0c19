/**
 * Simplified Chinese texts of the platform rows of `skillgate doctor`, checked against `doctor.en.ts`.
 * Feishu's developer console is Chinese, so its page names are its own; Discord's and Telegram's UI
 * labels stay as code spans.
 */
import type { enDoctor } from "./doctor.en.js";
import { defineLocale } from "./entries.js";

export const zhCNDoctor = defineLocale<typeof enDoctor>()({
  "pdoctor.retry": "请重试，并检查网络。",
  "pdoctor.checkNetwork": "请检查网络。",
  "pdoctor.serveRegisters": "运行一次 `skillgate serve`，它会注册菜单。",
  // ── telegram ────────────────────────────────────────────────────────────────────────────────────────
  "pdoctor.tg.shape.spaces": "开头或结尾有空格",
  "pdoctor.tg.shape.quotes": "被引号包着",
  "pdoctor.tg.shape.url": "这是一个 URL，而不是其中的令牌",
  "pdoctor.tg.shape.botPrefix": "以 `bot` 开头（这个前缀属于 URL，不属于令牌）",
  "pdoctor.tg.shape.noColon": "没有 `:`（令牌的形式是 `<bot id>:<secret>`）",
  "pdoctor.tg.shape.badId": "`:` 之前必须是机器人的数字 id，而不是 {id}",
  "pdoctor.tg.shape.badChars": "`:` 之后含有令牌中不会出现的字符",
  "pdoctor.tg.shape.short": "`:` 之后只有 {length} 个字符；BotFather 给出的约为 35 个",
  "pdoctor.tg.noToken": "没有设置 TELEGRAM_BOT_TOKEN。",
  "pdoctor.tg.noToken.fix":
    "用 @BotFather（/newbot）创建机器人，把 TELEGRAM_BOT_TOKEN=… 写入 <home>/.env；或者设置 gateway.telegram.enabled: false。",
  "pdoctor.tg.badShape": "TELEGRAM_BOT_TOKEN 看起来不是机器人令牌：{problem}。没有向 Telegram 发送任何内容。",
  "pdoctor.tg.badShape.fix":
    "从 @BotFather 重新复制令牌（/mybots → 你的机器人 → `API Token`）：把完整的 `123456789:AA…` 一行，不带引号和空格，写到 <home>/.env 的 TELEGRAM_BOT_TOKEN= 之后。",
  "pdoctor.tg.refused": "Telegram 拒绝了 TELEGRAM_BOT_TOKEN（401 未授权）。",
  "pdoctor.tg.refused.fix":
    "从 @BotFather（/mybots → `API Token`）重新复制令牌到 <home>/.env；在那里用 /revoke 可以生成新的令牌。",
  "pdoctor.tg.unreachable": "无法连接 {url} 上的 Telegram `Bot API`：{detail}。",
  "pdoctor.tg.unreachable.fix": "请检查网络（以及代理），或者 gateway.telegram.api_root。",
  "pdoctor.tg.tokenOk": "令牌有效：机器人是 @{username}（id {id}）。",
  "pdoctor.tg.privacyOff": "隐私模式已关闭：机器人能看到群组中的每条消息；skillgate 只回答发给它的消息。",
  "pdoctor.tg.privacyOn":
    "隐私模式已开启：在群组中，机器人能看到命令、@它的消息和对它的回复——对 /curator 来说足够了。",
  "pdoctor.tg.noGroups": "这个机器人不能被加入群组。",
  "pdoctor.tg.noGroups.fix": "如果要在群组中使用，请在 @BotFather → /setjoingroups 中允许。",
  "pdoctor.tg.noWebhookUrl": "gateway.telegram.mode 是 webhook，但没有配置 webhook URL。",
  "pdoctor.tg.noWebhookUrl.fix": "把 gateway.telegram.webhook.url 设为公开的 https:// 地址。",
  "pdoctor.tg.noWebhook": "还没有注册 webhook。",
  "pdoctor.tg.noWebhook.fix": "运行 `skillgate serve`：它会注册 gateway.telegram.webhook.url。",
  "pdoctor.tg.webhookElsewhere": "webhook 指向别处：Telegram 把更新发到 {url}，而不是 {wanted}。",
  "pdoctor.tg.webhookElsewhere.fix":
    "可能有另一个部署在使用这个机器人。请停止它，或在这里重新启动 `skillgate serve` 以注册这个 URL（它会替换另一个）。",
  "pdoctor.tg.webhookOk": { other: "webhook 已注册在 {url}（{count} 条更新待处理）。" },
  "pdoctor.tg.webhookError": "Telegram 上一次投递 webhook 失败：{detail}。",
  "pdoctor.tg.webhookError.fix": "请检查反向代理、TLS 证书和 gateway.telegram.webhook.port/path。",
  "pdoctor.tg.strayWebhook": "已注册 webhook（{url}），而 gateway.telegram.mode 是 `polling`。",
  "pdoctor.tg.strayWebhook.fix":
    "`skillgate serve` 开始轮询时会移除它；如果另一个部署在使用这个 webhook，请为每个部署各用一个机器人。",
  "pdoctor.tg.polling": { other: "长轮询：没有设置 webhook，{count} 条更新待处理。" },
  "pdoctor.tg.webhookInfoFailed": "getWebhookInfo 失败：{detail}。",
  "pdoctor.tg.menuOk": { other: "命令菜单已注册（{count} 个命令）。" },
  "pdoctor.tg.noMenu": "没有注册命令菜单。",
  "pdoctor.tg.commandsFailed": "getMyCommands 失败：{detail}。",
  // ── discord ─────────────────────────────────────────────────────────────────────────────────────────
  "pdoctor.dc.noToken": "没有设置 DISCORD_BOT_TOKEN。",
  "pdoctor.dc.noToken.fix":
    "在 `Developer Portal` → 你的应用 → `Bot` → `Reset Token` 生成令牌，把 DISCORD_BOT_TOKEN=… 写入 <home>/.env；或者设置 gateway.discord.enabled: false。",
  "pdoctor.dc.connected": "网关连接正常：{detail}。",
  "pdoctor.dc.connectedPlain": "已连接",
  "pdoctor.dc.loginFailed": "网关登录失败：{detail}",
  "pdoctor.dc.wrongApp": "gateway.discord.application_id 是 {configured}，但令牌属于应用 {actual}。",
  "pdoctor.dc.wrongApp.fix":
    "从 `Developer Portal` 的 `General Information` 页面复制 `Application ID`，或者删除这项设置。",
  "pdoctor.dc.inGuild": "在服务器 {guild} 中",
  "pdoctor.dc.globally": "全局",
  "pdoctor.dc.commandsOk": "斜杠命令已{where}注册（{count} 个）。",
  "pdoctor.dc.noCommands": "{where}没有注册 skillgate 的斜杠命令。",
  "pdoctor.dc.noCommands.fix": "运行一次 `skillgate serve`，它会注册这些命令。",
  "pdoctor.dc.noAccess": "Discord 拒绝访问命令列表（{detail}）。",
  "pdoctor.dc.noAccess.fix":
    "用 `bot applications.commands` 两个权限范围把机器人邀请到服务器（`OAuth2` → `URL Generator`），并检查 gateway.discord.guild_id。",
  "pdoctor.dc.commandsUnreadable": "无法读取已注册的命令：{detail}。",
  "pdoctor.dc.urlWithoutPort":
    "应用的交互端点 URL 是 {url}，所以 Discord 会把斜杠命令和按钮发到那里，而不是经由网关会话；但没有设置 gateway.discord.interactions.port。",
  "pdoctor.dc.urlWithoutPort.fix":
    "在这个 URL 后面的每个副本上设置 gateway.discord.interactions.port（以及 DISCORD_PUBLIC_KEY），或者在 `Developer Portal` → `General Information` 中清除这个 URL。",
  "pdoctor.dc.overGateway": "交互经由网关会话到达（没有交互端点 URL）。",
  "pdoctor.dc.badKey": "gateway.discord.interactions.public_key（或 DISCORD_PUBLIC_KEY）不是公钥。",
  "pdoctor.dc.noKey": "设置了 gateway.discord.interactions.port，但没有设置 DISCORD_PUBLIC_KEY。",
  "pdoctor.dc.key.fix":
    "从 `Developer Portal` → `General Information` 复制 `PUBLIC KEY`（64 位十六进制数），写入 <home>/.env 的 DISCORD_PUBLIC_KEY。",
  "pdoctor.dc.endpointOk": "交互端点：Discord 向 {url} 发送请求；skillgate 在 {listen} 上监听。",
  "pdoctor.dc.noEndpointUrl":
    "skillgate 在 {listen} 上监听交互，但应用没有交互端点 URL，所以交互仍经由网关会话到达（只到领导者副本）。",
  "pdoctor.dc.noEndpointUrl.fix":
    "把这个路径的公开 https:// 地址填到 `Developer Portal` → `General Information` → `Interactions Endpoint URL`。",
  "pdoctor.dc.fix.intent":
    "在 `Developer Portal` → `Bot` → `Privileged Gateway Intents` 中打开上面提到的权限。",
  "pdoctor.dc.fix.token": "在 `Developer Portal` → `Bot` → `Reset Token` 生成新令牌，写入 <home>/.env。",
  "pdoctor.dc.fix.network": "请检查网络和 gateway.discord.api。",
  // ── feishu ──────────────────────────────────────────────────────────────────────────────────────────
  "pdoctor.fs.missingOne": "没有设置 {missing}（{other} 已设置）。",
  "pdoctor.fs.missingBoth": "没有设置 FEISHU_APP_ID 和 FEISHU_APP_SECRET。",
  "pdoctor.fs.missingId.fix":
    "从开发者后台应用的“凭证与基础信息”页面复制 `App ID`（cli_…），以 FEISHU_APP_ID=… 写入 <home>/.env；或者设置 gateway.feishu.enabled: false。",
  "pdoctor.fs.missingSecret.fix":
    "从开发者后台应用的“凭证与基础信息”页面复制 `App Secret`，以 FEISHU_APP_SECRET=… 写入 <home>/.env；或者设置 gateway.feishu.enabled: false。",
  "pdoctor.fs.missingBoth.fix":
    "从开发者后台应用的“凭证与基础信息”页面复制两者，以 FEISHU_APP_ID=… 和 FEISHU_APP_SECRET=… 写入 <home>/.env；或者设置 gateway.feishu.enabled: false。",
  "pdoctor.fs.refused": "飞书拒绝了 FEISHU_APP_ID/FEISHU_APP_SECRET（代码 {code}：{detail}）。",
  "pdoctor.fs.refused.fix":
    "从应用的“凭证与基础信息”页面重新复制两者。larksuite.com 租户需要设置 gateway.feishu.domain: lark（当前为 {domain}）。",
  "pdoctor.fs.unreachable": "无法连接 {url}：{detail}。",
  "pdoctor.fs.unreachable.fix": "请检查网络和 gateway.feishu.domain。",
  "pdoctor.fs.credentialsOk": "应用凭证有效。",
  "pdoctor.fs.noBot": "应用没有机器人（bot/v3/info 返回 {code}：{detail}）。",
  "pdoctor.fs.noBot.fix": "开启“机器人”能力（应用能力 → 机器人），并发布应用的新版本。",
  "pdoctor.fs.bot": "机器人“{name}”（open_id {id}）。",
  "pdoctor.fs.botFailed": "bot/v3/info 失败：{detail}。",
  "pdoctor.fs.badAppId": "飞书 SDK 的长连接不接受应用 id“{id}”。",
  "pdoctor.fs.badAppId.fix": "请检查 FEISHU_APP_ID；如果它没错，请改用 gateway.feishu.mode: webhook。",
  "pdoctor.fs.wsOk": "长连接端点可用。",
  "pdoctor.fs.wsRefused": "长连接被拒绝（代码 {code}：{detail}）。",
  "pdoctor.fs.wsRefused.fix":
    "在“事件与回调”中选择“使用长连接接收事件”，订阅 im.message.receive_v1，然后发布应用。",
  "pdoctor.fs.wsFailed": "长连接端点出错：{detail}。",
  "pdoctor.fs.noVerification": "webhook 模式下没有设置 gateway.feishu.verification_token。",
  "pdoctor.fs.noVerification.fix": "从“事件与回调”→“加密策略”复制 `Verification Token`，写入 config.yaml。",
  "pdoctor.fs.verificationOk": "已设置 webhook 校验令牌。",
  "pdoctor.fs.noEncryptKey": "没有设置 gateway.feishu.encrypt_key：webhook 事件没有签名。",
  "pdoctor.fs.noEncryptKey.fix": "在“事件与回调”中设置 `Encrypt Key`，并复制到 config.yaml。",
  "pdoctor.fs.menuEntry": "“{name}”→ 事件键 {key}",
  "pdoctor.fs.menu":
    "skillgate 会回答的机器人菜单项（在“应用能力 → 机器人 → 机器人菜单”中添加，类型选“推送事件”）：{entries}。",
});
