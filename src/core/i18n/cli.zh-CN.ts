/**
 * The command line's own texts in Simplified Chinese (help, commander's errors, what a start prints),
 * checked against `cli.en.ts` (`defineLocale`), in the words of `glossary.md`. A section of the zh-CN
 * catalog.
 */
import type { enCli } from "./cli.en.js";
import { defineLocale } from "./entries.js";

export const zhCNCli = defineLocale<typeof enCli>()({
  "cli.program": "智能体技能库的聊天网关与管理器（Hermes 格式）。",
  "cli.option.home": "skillgate/Hermes 主目录（默认：$HERMES_HOME 或 ~/.hermes）",
  "cli.option.version": "显示 skillgate 的版本",
  "cli.option.help": "显示命令的帮助",
  "cli.option.json.result": "以 JSON 输出结果",
  "cli.option.json.checks": "以 JSON 输出检查结果",
  "cli.heading.usage": "用法：",
  "cli.heading.arguments": "参数：",
  "cli.heading.options": "选项：",
  "cli.heading.globalOptions": "全局选项：",
  "cli.heading.commands": "命令：",
  "cli.help.options": "[选项]",
  "cli.help.command": "[命令]",
  "cli.help.default": "默认：{value}",
  "cli.help.choices": "可选值：{value}",
  "cli.help.preset": "预设：{value}",
  "cli.help.env": "环境变量：{value}",
  "cli.group": "{head} 命令",
  "cli.group.bare": "{head} 命令（不带子命令时即 `{head} {fallback}`）",
  "cli.group.subcommand": "下列命令之一",
  "cli.serve": "运行聊天网关和网页控制台（平台来自配置和密钥；没有平台时为终端聊天）",
  "cli.serve.terminal": "只在本终端中进行终端聊天：不连接平台，不启动网页控制台",
  "cli.serve.console": "--terminal 的旧名称（仍可使用；`skillgate console` 是网页控制台）",
  "cli.serve.demo": "在临时主目录上用示例技能进行终端聊天（不会改动你的主目录）",
  "cli.serve.set":
    "仅对本进程覆盖一项 config.yaml 设置（可重复），例如 --set gateway.coordination.replica_id=b",
  "cli.init": "创建主目录的技能文件夹；加 --examples 时同时安装示例技能",
  "cli.init.examples": "安装示例技能（已有的保持不变）",
  "cli.doctor": "检查主目录、config.yaml 以及每个已配置平台的凭据和设置",
  "cli.secrets": "<home>/.env 中的技能密钥",
  "cli.secrets.set": "把技能声明的密钥存入 <home>/.env，输入不回显（或从标准输入读取）",
  "cli.secrets.set.key": "技能声明的变量",
  "cli.console": "单独运行本地网页控制台，在浏览器中使用（不连接聊天平台）；输出一次性登录链接",
  "cli.console.port": "端口（默认 gateway.console.port）",
  "cli.console.bind": "监听地址（默认 gateway.console.bind，即 127.0.0.1）",
  "cli.console.link": "为已在运行的控制台输出新的登录链接，然后退出",
  "cli.console.readOnly": "登录链接用于只读登录（只能查看页面，不能操作）",
  // ── the command line's errors ───────────────────────────────────────────────────────────────────────
  "cli.usage.needsCommand": "需要一个命令；请看 `skillgate --help`。",
  "cli.usage.groupOption": "`{command}` 没有选项 {flag}。",
  "cli.serve.nothing":
    "没有可服务的内容：没有要启动的聊天平台，标准输入不是终端（不进行终端聊天），gateway.health 和 gateway.console 也都已关闭。请在 .env 中设置一个平台的令牌，开启 gateway.health 或 gateway.console，或者在终端上运行 `skillgate serve --terminal`。",
  "hermes.holds":
    "{platform}：Hermes 的网关（pid {pid}）正在使用这个机器人，所以 skillgate 不启动 {platform}。",
  "hermes.holds.fix":
    "给 skillgate 一个自己的机器人（在 .env 中设置 {names}），或者先停止 Hermes 的网关，再设置 gateway.{platform}.enabled: true，有意接管这个机器人。",
  "cli.hermes.holds": "{summary}{fix}",
  "cli.home.missing":
    "主目录 {home} 不存在（由 {source} 指定）。请运行 `skillgate init --home {home}` 创建它，或者让 --home 指向一个已有的主目录。",
  "cli.home.created": "已创建主目录 {home}（首次使用；`skillgate init --examples` 可添加示例技能）。",
  "cli.node.old":
    "skillgate 需要 Node.js 20.19 或更新版本；当前是 Node.js {version}。请安装更新的 Node.js（https://nodejs.org）后再运行。",
  "cli.serve.failed": "skillgate serve 无法启动：{cause}",
  "cli.console.failed": "skillgate console 无法启动：{cause}",
  "cli.demo.intro":
    "演示：示例技能放在一个临时主目录（{home}）中；你自己的主目录不会被改动，这个临时目录会在结束时删除。\n试试 `/help`、`/skills list`、`/skill paper-digest references/checklist.md` 或 `/curator status`。",
  "cli.init.ready": "主目录已就绪：{home}。",
  "cli.init.addSkills":
    "在 skills/<category>/<name>/SKILL.md 下添加技能，或运行 `skillgate init --examples` 安装示例技能。",
  "cli.init.installed": "已把 {count} 个示例技能安装到 {dir}：{names}。",
  "cli.init.noneInstalled": "没有安装任何示例技能。",
  "cli.init.leftAlone": "保持原样（已存在）：{names}。",
  "cli.init.next": "下一步：用 `skillgate serve --terminal` 与它们对话，或运行 `skillgate skills list`。",
  "cli.signal.stopping": "{signal}：将在下一个安全点停止（再发送一次则立即停止）……",
  "cli.recovery.more": "修复：……另有 {count} 项同类修复。",
  "cli.recovery.failed": "警告：修复被中断的工作时失败：{cause}",
  // commander's own messages
  "cli.error.missingArgument": "错误：缺少必需的参数 '{name}'",
  "cli.error.optionMissingArgument": "错误：选项 '{flags}' 缺少值",
  "cli.error.requiredOption": "错误：没有给出必需的选项 '{flags}'",
  "cli.error.unknownOption": "错误：未知选项 '{flag}'",
  "cli.error.unknownCommand": "错误：未知命令 '{name}'",
  "cli.error.didYouMean": "{error}\n（你是想写 {suggestion} 吗？）",
  "cli.error.didYouMeanOneOf": "{error}\n（你是想写 {suggestions} 中的一个吗？）",
  "cli.error.excessArguments": { other: "错误：参数过多。应有 {count} 个参数，收到 {received} 个。" },
  "cli.error.excessArgumentsFor": {
    other: "错误：'{command}' 的参数过多。应有 {count} 个参数，收到 {received} 个。",
  },
  "cli.error.invalidOptionValue": "错误：选项 '{flags}' 的值 '{value}' 无效。{reason}",
  "cli.error.invalidEnvValue": "错误：选项 '{flags}' 来自环境变量 '{env}' 的值 '{value}' 无效。{reason}",
  "cli.error.invalidArgument": "错误：参数 '{name}' 的值 '{value}' 无效。{reason}",
  "cli.error.wholeNumber": "它必须是整数。",
  "cli.error.choices": "允许的值为 {choices}。",
  // ── config.yaml warnings ────────────────────────────────────────────────────────────────────────────
  "config.warn.curatorNumber":
    "config.yaml：`curator.{key}` 的值是 {value}；改用默认值 {fallback}（它必须是 ≥ 1 的数）。",
  "config.warn.notSkillName.boolean":
    'config.yaml：`{key}` 中有 {value}，Hermes 的 YAML 读取器把它当作布尔值而不是技能名，所以它不会隐藏任何技能；请给名字加上引号（例如 "on"）。',
  "config.warn.notSkillName.number":
    'config.yaml：`{key}` 中有 {value}，Hermes 的 YAML 读取器把它当作数字而不是技能名，所以它不会隐藏任何技能；请给名字加上引号（例如 "on"）。',
  "config.warn.notSkillName.date":
    'config.yaml：`{key}` 中有 {value}，Hermes 的 YAML 读取器把它当作日期而不是技能名，所以它不会隐藏任何技能；请给名字加上引号（例如 "on"）。',
  "config.warn.notSkillName.other":
    'config.yaml：`{key}` 中有 {value}，Hermes 的 YAML 读取器把它当作{kind}而不是技能名，所以它不会隐藏任何技能；请给名字加上引号（例如 "on"）。',
  "config.warn.legacyAuxiliary":
    "config.yaml：`curator.auxiliary` 已弃用；请把它移到 `auxiliary.curator`（键不变）。",
  // ── several gateways on one home (gateway.coordination) ─────────────────────────────────────────────
  "coordination.unreachable":
    "gateway.coordination：无法连接 {url} 上的 Redis（{cause}）；请在那里启动 Redis（Redis ≥ 7 或 Valkey），更正 gateway.coordination.redis_url，或者删除 gateway.coordination，不用 Redis 只运行一个网关。",
  "coordination.noAnswer": "{ms} 毫秒内没有应答",
  "coordination.badUrl": "这个 URL 无法完整解析；请对密码中的 / ? # @ : 做百分号编码",
  "coordination.version":
    "gateway.coordination：{url} 上的 Redis 版本是 {version}；skillgate 需要 Redis {min} 或更高版本（或 Valkey）。请升级它，或把 redis_url 指向更新的服务器。",
  "coordination.versionUnknown":
    "gateway.coordination：{url} 上的 Redis 版本未知；skillgate 需要 Redis {min} 或更高版本（或 Valkey）。请升级它，或把 redis_url 指向更新的服务器。",
  "coordination.eviction":
    "gateway.coordination：{url} 上的 Redis 会淘汰键（`maxmemory-policy {policy}`）；去重标记和租约被淘汰后，事件会被回答两次，还会有两个副本同时当领导者。请设置 `maxmemory-policy noeviction`（redis.conf、`CONFIG SET maxmemory-policy noeviction`，或托管服务的参数组），并按收件箱的需要规划内存（docs/scale-out.md）。",
  "coordination.acl":
    "gateway.coordination：{url} 的 Redis 用户无权运行 {commands}；协调需要这些命令。请授予权限，例如 `ACL SETUSER <user> +@read +@write +@stream +@scripting +info ~skillgate:*`。",
  "coordination.persistence.none":
    "{url} 上的 Redis 不往磁盘保存任何内容（没有 AOF、没有 RDB 快照、没有从库）：如果它在没有副本当领导者时重启，已经向平台确认的事件会丢失。请开启 `appendonly yes`。",
  "coordination.persistence.rdbOnly":
    "{url} 上的 Redis 只保存 RDB 快照：重启会丢失上次快照之后已经向平台确认的事件。请开启 `appendonly yes`。",
  "coordination.persistence.replicaOnly":
    "{url} 上的 Redis 没有 AOF，只依靠从库：如果重启时没有故障转移，会丢失上次快照之后已经向平台确认的事件。请开启 `appendonly yes`。",
  "coordination.leaderWatch":
    "{url} 的 Redis 用户无权运行 {commands}：崩溃的领导者要等租约过期（3.5 秒）才会被接替，而不是立即接替。",
  "coordination.replicaId":
    "这个主目录上另一个运行中的网关已在使用 replica_id '{id}'（Redis {url}）。请给每个副本设置自己的 id：`skillgate serve --set gateway.coordination.replica_id=<name>`，或者不设置它，使用主机名和 pid。",
  "coordination.homeId": "{file} 中没有协调 id；请删除它，然后重新启动网关（会生成新的 id）。",
  // ── skillgate doctor ────────────────────────────────────────────────────────────────────────────────
  "doctor.area.home": "主目录",
  "doctor.area.config": "配置",
  "doctor.area.coordination": "协调",
  "doctor.mark.ok": "正常",
  "doctor.mark.warn": "警告",
  "doctor.mark.fail": "失败",
  "doctor.col.area": "方面",
  "doctor.col.finding": "检查结果",
  "doctor.howToFix": "修复方法",
  "doctor.fixLine": "{area}：{fix}",
  "doctor.tally.problems": "{problems} 个问题，{warnings} 个警告。",
  "doctor.tally.warnings": "没有问题；{count} 个警告。",
  "doctor.tally.fine": "检查的各项都正常。",
  "doctor.tempsRemoved": {
    other: "已删除中断写入后遗留的 {count} 个 .env 或 config.yaml 副本：{files}。",
  },
  "doctor.tempsRemoved.fix": "无需处理；中断的写入从不改动文件本身。",
  "doctor.noHome": "主目录 {home} 不存在。",
  "doctor.noHome.fix":
    "运行 `skillgate init --examples` 创建它并装入示例技能，或用 --home 或 HERMES_HOME 指向你的 Hermes 主目录，或者试试 `skillgate serve --demo`。",
  "doctor.home": "主目录：{home}。",
  "doctor.noPlatform": "没有任何聊天平台设置了令牌：`skillgate serve` 只运行终端聊天。",
  "doctor.noPlatform.fix":
    "按照 docs/platforms/telegram.md、feishu.md 或 discord.md 操作，并把令牌写入 <home>/.env。",
  "doctor.checkFailed": "检查本身失败了：{cause}。",
  "doctor.checkFailed.fix": "请把它作为 skillgate 的缺陷报告。",
  "doctor.noPlatformChecks": "没有可以针对该平台运行的检查。",
  "doctor.config.fix": "在 config.yaml 中修正它（deploy/config.example.yaml 列出了每个设置项）。",
  "doctor.config.unreadable": "无法读取 {file}：{cause}。",
  "doctor.config.unreadable.fix": "检查这个文件的权限。",
  "doctor.config.yaml": "{file} 不是有效的 YAML：{detail}。",
  "doctor.config.yaml.fix": "修正所指行的语法（缩进、缺少的 `:` 或引号）。",
  "doctor.config.unknownSuggest":
    "config.yaml：`{key}` 不是 skillgate 认识的设置项；你是想写 `{suggestion}` 吗？",
  "doctor.config.unknownSuggest.fix":
    "在 config.yaml 中把 `{key}` 改名为 `{suggestion}`；按现在的写法它会被忽略。",
  "doctor.config.unknown": "config.yaml：`{key}` 不是 skillgate 认识的设置项。",
  "doctor.config.unknown.fix":
    "从 config.yaml 中删除 `{key}`，或对照 deploy/config.example.yaml 检查拼写；按现在的写法它会被忽略。",
  "doctor.config.none": "没有 {file}：使用默认值。",
  "doctor.config.valid": "{file} 有效。",
  "doctor.config.warning.fix": "参见 deploy/config.example.yaml。",
  "doctor.noAdmins": "gateway.admins 为空：没有人能在聊天中更改技能库。",
  "doctor.noAdmins.fix":
    "给机器人发一条消息：它会回复你的 `platform:id`。把它加入 config.yaml 的 gateway.admins。",
  "doctor.redis": "{url} 上的 Redis 有响应（版本 {version}）。",
  "doctor.redis.unsafe.fix": "请修改上面指出的 Redis 设置：在那之前 `skillgate serve` 会拒绝这个服务器。",
  "doctor.redis.persistence.fix":
    "请开启仅追加文件（在 redis.conf 中设置 `appendonly yes`，或托管服务的持久化设置）；见 docs/scale-out.md。",
  "doctor.redis.leaderWatch.fix":
    "请授予这些权限，例如 `ACL SETUSER <user> +client|id +client|list +info`；参见 docs/scale-out.md。",
  "doctor.redis.fix":
    "在 gateway.coordination.redis_url 启动 Redis（7 或更高版本）或 Valkey，或者删除 gateway.coordination，只运行一个网关。",
  "doctor.noSkills": "技能库中没有技能。",
  "doctor.noSkills.fix":
    "`skillgate init --examples` 会在这里安装示例技能；`skillgate serve --demo` 可以在不改动这个主目录的情况下试用它们。",
  "doctor.skills": "技能库中有 {count} 个技能。",
  "doctor.libraryUnreadable": "无法读取技能库：{cause}。",
  "doctor.libraryUnreadable.fix": "检查 <home>/skills 的权限。",
});
