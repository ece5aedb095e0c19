/**
 * The Simplified Chinese catalog, checked key by key and parameter by parameter against English
 * (`defineLocale`). The words follow `glossary.md`, taken from the Chinese edition of the curator
 * guide and the skills chapter: 技能, 归档, 恢复, 固定, 快照, 回滚, 过时, 采用, 整合 …; the curator is 管理器.
 */
import { zhCNCli } from "./cli.zh-CN.js";
import { zhCNCommands } from "./commands.zh-CN.js";
import { zhCNConsole } from "./console.zh-CN.js";
import { zhCNDoctor } from "./doctor.zh-CN.js";
import type { en } from "./en.js";
import { defineLocale } from "./entries.js";
import { zhCNHub } from "./hub.zh-CN.js";
import { zhCNLibrary } from "./library.zh-CN.js";
import { zhCNMenu } from "./menu.zh-CN.js";
import { zhCNSearch } from "./search.zh-CN.js";

export const zhCN = defineLocale<typeof en>()({
  ...zhCNConsole,
  ...zhCNCli,
  ...zhCNMenu,
  ...zhCNDoctor,
  // ── reply model ──────────────────────────────────────────────────────────────────────────────────
  "reply.warning": "⚠ {text}",
  "button.cancel": "取消",
  "button.setKey": "设置 {key}",
  "reply.done": "完成。",
  "reply.belowCard": "✓ 已完成——结果太长，卡片放不下，见下方消息。",
  "reply.choose": "请选择：",
  "terminal.confirmHint": "输入 y 确认；输入其他任何内容则保持原样。",
  "terminal.cancelled": "已取消，没有做任何改动。",
  // ── access ──────────────────────────────────────────────────────────────────────────────────────────
  "access.stranger":
    "我还不认识你。你的 id 是 `{who}`。请网关的所有者把它加入 config.yaml 的 `gateway.allowed_users`（只读命令）或 `gateway.admins`。",
  "access.needsSender": "⛔ `{command}` 需要已知的发送者，而这条消息没有。",
  "access.adminsOnly":
    "⛔ `{command}` 会修改技能库，仅限管理员使用。你的 id 是 `{who}`；如果你应当拥有这个权限，请所有者把它加入 gateway.admins。",
  "access.notAllowed":
    "⛔ 你不在这个网关的允许列表中。你的 id 是 `{who}`；请所有者把它加入 gateway.allowed_users。",
  "error.interrupted":
    "{what}在做出任何更改之前停止了：进程正在关闭。下次启动时会再次运行（届时也可以手动运行）。",
  "error.what.curatorRun": "管理器的这次运行",
  "error.what.snapshot": "快照",
  // ── command runner ──────────────────────────────────────────────────────────────────────────────────
  "runner.confirmInChat": "{question}\n回复 `{again}` 以确认。",
  "runner.noTerminalToConfirm":
    "{question}\n没有可以确认的终端，因此未做任何更改。加上 -y 重新运行即可继续：{again}",
  "runner.confirmPrompt": "{question} [y/N] ",
  "runner.cancelled": "已取消；未做任何更改。",
  "runner.unexpected": "`{command}` 意外失败：{detail}。这里没有更多信息；请查看日志后重试。",
  "button.confirm": "确认",
  // ── native command menus ────────────────────────────────────────────────────────────────────────────
  "catalog.group.curator": "管理器（Curator）：状态、运行、固定、归档、恢复、快照、回滚……",
  "catalog.group.skills": "技能：列表、查看、使用情况、启用、禁用、设置",
  "catalog.group.other": "{name}：{subcommands}",
  // ── config.yaml errors ──────────────────────────────────────────────────────────────────────────────
  "lint.located": "{problem}（{file} 第 {line} 行，第 {column} 列）",
  "lint.nearSection":
    "config.yaml：`{key}` 不是 skillgate 读取的部分，与 `{section}` 只差一处拼写；其下的所有设置都被忽略。",
  "lint.nearSection.fix":
    "如果本意是 `{section}`，请把 `{key}:` 改为 `{section}:`（或并入已有的 `{section}:`）。",
  "lint.portCollision": "config.yaml：`{key}` 和 `{other}` 都在端口 {port} 上监听；后一个无法启动。",
  "lint.portCollision.fix": "给 `{key}` 一个单独的空闲端口。",
  "lint.tokenInConfig":
    "config.yaml：`{key}` 看起来是机器人令牌或密钥；skillgate 只从 .env 读取凭据，因此这个值不会被使用，而且 config.yaml 常常可被他人读取。",
  "lint.tokenInConfig.fix":
    "把这个值移到 <home>/.env 中对应平台的变量名下（`skillgate secrets set`），并从 config.yaml 中删除 `{key}`。",
  "lint.idShape": "config.yaml：`{key}` 中的 {value} 不是 {platform} 的 ID；它不会匹配任何人。",
  "lint.idShape.fix": "请写数字或平台 ID，例如 `{example}`（在聊天中发送 `/whoami` 可以查看）。",
  "lint.thresholds":
    "config.yaml：`curator.stale_after_days`（{stale}）不小于 `curator.archive_after_days`（{archive}）：技能会在从未标记为过时的情况下被归档。",
  "lint.thresholds.fix": "让 `stale_after_days` 小于 `archive_after_days`（默认分别为 30 和 90）。",
  "lint.envName": ".env：skillgate 不读取 `{name}`；是否想写 `{meant}`？",
  "lint.envName.fix": "在 <home>/.env 中把 `{name}` 改名为 `{meant}`。",
  "lint.envMode": ".env 中保存着凭据，而它的权限 {mode} 允许本机其他用户读取。",
  "lint.envMode.fix": "运行 `chmod 600 <home>/.env`。",
  "config.invalid": "config.yaml：`{key}` 的值是 {value}；{requirement}。",
  "config.req.mapping": "它必须是映射（key: value 形式的行）",
  "config.req.mappingShort": "它必须是映射",
  "config.req.bool": "允许的值为 true 或 false",
  "config.req.string": "它必须是字符串",
  "config.req.oneOf": "允许的值为 {allowed}",
  "config.req.wholeNumber": "整数",
  "config.req.number": "数字",
  "config.req.range": "{bounds} 的{kind}",
  "config.req.mustBe": "它必须是{range}",
  "config.req.stringList": "它必须是字符串列表",
  "config.req.hostPort": "每一项都必须是 host:port，例如 127.0.0.1:8080 或 registry.local:443",
  "config.req.skillNames": "它必须是技能名称列表",
  "config.req.paths": "它必须是路径或路径列表",
  "config.req.url": '它必须是完整的 URL，例如 "https://bot.example.com"',
  "config.req.timeZone": '它必须是 IANA 时区名称，例如 "Asia/Shanghai" 或 "UTC"',
  "config.req.homeChannel": '它必须是 `platform:chat_id` 形式，例如 "telegram:-1001234567890"',
  "config.req.feishuDomain": "允许的值为 feishu、lark 或完整的 URL（https://…）",
  "config.badReference":
    'config.yaml：`{key}` 中有 {value}；每一项都必须是 `platform:id` 形式，平台为 {platforms} 之一（例如 "telegram:123456789"）。',
  "config.rootNotMapping": "config.yaml 必须是由各部分组成的映射（skills:、curator:、gateway: ……）。",
  "config.unreadable": "无法读取 {path}：{detail}。请检查它的权限。",
  "config.badYaml": "{path} 不是有效的 YAML：{detail}。请修正语法后重试。",
  // ── native menus ────────────────────────────────────────────────────────────────────────────────────
  "menu.loadSkill": "加载技能 {name}",
  // ── discord ─────────────────────────────────────────────────────────────────────────────────────────
  "discord.skillCommand": "加载技能，或查看它的某个文件",
  "discord.skillCommand.name": "技能名称",
  "discord.skillCommand.file": "技能中的文件（可选）",
  // ── cli ─────────────────────────────────────────────────────────────────────────────────────────────
  "cli.homeNotWritable":
    "当前进程（uid {uid}）无法写入 {dir}，skillgate 不能在那里保存文件。请运行 `{chown}`（如果是绑定挂载，请在宿主机上运行），或用 --home 指定其他主目录。",
  "cli.warning": "警告：{warning}",
  // ── skill security warnings ─────────────────────────────────────────────────────────────────────────
  "injection.ignorePrevious": "要求忽略之前的指令",
  "injection.youAreNow": "试图重新定义助手（`you are now`）",
  "injection.disregardRules": "要求无视助手的规则",
  "injection.forget": "要求忘记指令",
  "injection.newInstructions": "声明了新的指令",
  "injection.systemPrompt": "试图覆盖系统提示词",
  "injection.systemTag": "包含伪造的 <system> 标签",
  "injection.cdata": "包含 CDATA 结束符（]]>）",
  "injection.curlSh": "把下载内容直接交给 shell 执行（curl|sh）",
  "injection.base64Sh": "把解码后的数据直接交给 shell 执行",
  "injection.hiddenUnicode":
    "{label} 第 {line} 行：包含可能隐藏指令的不可见 Unicode 字符（零宽、双向或标签字符）。",
  "injection.foundAt": "{label} 第 {line} 行：可能存在提示词注入——{what}。",
  "injection.found": "{label}：可能存在提示词注入——{what}。",
  // ── skill names and paths ───────────────────────────────────────────────────────────────────────────
  "skill.name.nul": "技能名称不能包含 NUL 字符。",
  "skill.name.absolute": "技能名称必须是技能目录内的相对路径。",
  "skill.name.traversal": "技能名称不能包含 '..' 路径穿越部分。",
  "skill.path.nul": "文件路径不能包含 NUL 字符。",
  "skill.path.traversal": "不允许路径穿越（'..'）。",
  "skill.path.absolute": "文件路径必须相对于技能目录，例如 'references/api.md'。",
  "skill.path.empty": "文件路径为空；请指定文件，例如 'references/api.md'。",
  "skill.path.escape": "文件 '{file}' 通过符号链接指向技能目录之外；skillgate 不会跟随离开技能的链接。",
  // ── declared settings ─────────────────────────────────────────────────────────────────────────────
  "setting.key.emptyPart":
    "`{key}` 含有空的部分（键为空、两个点相连，或以点开头或结尾），config.yaml 无法把它作为键保存",
  "setting.key.merge":
    "`{key}` 中的 `<<` 是 YAML 的合并键：写进 config.yaml 后它会从别处引入键，而不是保存一个值",
  "setting.key.whitespace":
    "`{key}` 的部分 `{part}` 以空白开头或结尾，或含有控制字符，YAML 的裸键不会原样保留它",
  "setting.key.indicator":
    "`{key}` 的部分 `{part}` 以 `{char}` 开头，YAML 会把它读成标记（列表项、锚点、别名、标签、块文本、引号或注释），而不是文本",
  "setting.key.separator":
    "`{key}` 的部分 `{part}` 含有 `: ` 或 ` #`（或以 `:` 结尾），YAML 会把它读成键的结束或注释的开始",
  "setting.key.notText":
    "PyYAML（Hermes）会把 `{key}` 的部分 `{part}` 读成布尔值、空值、数字或日期，而不是文本 `{part}`",
  "setting.refused": "设置项 `{key}` 不提供——{reason}；技能作者可以在 metadata.hermes.config 中给它改名",
  // ── skill files ─────────────────────────────────────────────────────────────────────────────────────
  "skill.folderMissing": "技能 '{skill}' 的目录不存在。",
  "skill.dangling": "技能 '{skill}' 的 {label} 没有指向一个文件（符号链接悬空或成环？）。",
  "skill.linkEscapes":
    "技能 '{skill}' 的 {label} 是指向技能目录之外的符号链接；skillgate 不会读取或显示它。请用文件本身替换这个链接。",
  "skill.tooLarge":
    "技能 '{skill}' 的 {label} 大小为 {size}，超过 {limit} 的上限；skillgate 不会加载它。请精简它（把较长的内容移到 references/ 文件中）。",
  "skill.unopenable": "无法打开技能 '{skill}' 的 {label}（{detail}）；请确认它存在并且 skillgate 有权读取。",
  "skill.notAFile": "技能 '{skill}' 的 {label} 不是普通文件。",
  "skill.fileLabel": "文件 '{file}'",
  // ── readiness ───────────────────────────────────────────────────────────────────────────────────────
  "readiness.gatewaySetupHint":
    "无法通过消息安全地输入密钥。请在本地 CLI 中加载这个技能（在主机上运行 `skillgate skills view`）以便按提示输入，或者手动把密钥加入 {envFile}。",
  "readiness.defaultPrompt": "输入 {name} 的值",
  "readiness.note": "使用这个技能之前需要设置：{parts}。",
  "readiness.note.env": "缺少环境变量 {names}",
  "readiness.note.file": "文件 {names}",
  "readiness.note.command": "命令 {names}（不在 PATH 中）",
  "readiness.note.remote": "使用 {backend} 后端的技能在远程环境中同样需要满足这些要求。",
  "readiness.ask": "{prompt} [{name}，输入不显示；留空则跳过]：",
  "readiness.askWithHelp": "{prompt}（{help}）[{name}，输入不显示；留空则跳过]：",
  // ── skill view ──────────────────────────────────────────────────────────────────────────────────────
  "view.noSkillsDir": "技能目录还不存在。首次安装时会创建它。",
  "view.ambiguous":
    "技能名称 '{name}' 有歧义：本地技能目录和 external_dirs 中共有 {count} 个技能匹配。不做猜测——请用带类别的路径明确加载其中一个。",
  "view.notFound": "未找到技能 '{name}'。",
  "view.notUtf8":
    "技能 '{name}' 的 {label} 不是有效的 UTF-8 文本（二进制文件？）；skillgate 不会显示它。请以 UTF-8 保存。",
  "view.unreadable": "无法读取技能 '{name}'：{detail}。请检查文件权限。",
  "view.frontmatterTooLarge":
    "技能 '{name}' 的 frontmatter 超过了 {limit} 的上限；skillgate 不会解析它。frontmatter 只保留 name、description 和少量元数据键即可。",
  "view.unsupportedPlatform": "技能 '{name}' 不支持当前平台。",
  "view.disabled.everywhere": "全局（skills.disabled）",
  "view.disabled.on": "平台 {platform} 上（skills.platform_disabled.{platform}）",
  "view.disabledHere":
    "技能 '{name}' 已在{where}禁用，无法在 {platform} 上加载。要启用它，请从 config.yaml 的对应列表中移除；也可以直接在磁盘上查看文件。",
  "view.disabled":
    "技能 '{name}' 已在{where}禁用。要启用它，请从 config.yaml 的对应列表中移除；也可以直接在磁盘上查看文件。",
  "view.trust.symlink":
    "'{name}' 通过符号链接指向 {target}，位于本地技能目录和 skills.external_dirs 之外；使用前请先审查。",
  "view.trust.external": "'{name}' 来自外部目录 {folder}，而不是 {local}；管理器（Curator）不管理它。",
  "view.singleFile": "技能 '{name}' 是单文件技能，没有可查看的关联文件。",
  "view.fileNotFound": "在技能 '{name}' 中未找到文件 '{file}'。",
  // ── web console actions ─────────────────────────────────────────────────────────────────────────────
  "console.ask": "{command}：{summary}。继续吗？",
  "console.ask.withTarget": "{command} {target}：{summary}。继续吗？",
  // ── secret entry ────────────────────────────────────────────────────────────────────────────────────
  "secret.set": "`{key}` 已设置 ✓",
  "secret.skillReady": "{skill}：已就绪。",
  "secret.skillNeeds": "{skill}：仍需设置——{missing}。",
  "secret.missing.variable": "变量 `{name}`",
  "secret.missing.file": "文件 `{name}`",
  "secret.missing.command": "命令 `{name}`",
  "secret.unavailable": "这里无法私密输入密钥。",
  "secret.input.hint": "保存到网关的 .env 文件中，不会显示在聊天里。",
  "secret.input.intro":
    "用于技能 **{skill}**。填写的值直接写入网关的 .env 文件，不会显示在聊天里。此表单只能使用一次，10 分钟内有效，且仅限发起请求的管理员使用。",
  "secret.input.stored": "已保存到网关的 .env 文件。",
  "secret.input.posted": "已发出设置 {key} 的表单，只有你能使用。",
  "secret.input.postFailed": "表单发送失败，请重试。",
  "secret.link.message":
    "请用这个一次性表单为 {skill} 设置 <code>{key}</code>（只能使用一次，10 分钟内有效，且仅限你本人）：",
  "secret.link.sent": "我已在私聊中发给你一个一次性链接，用来设置它。",
  "secret.link.noPrivateChat": "我无法私信你：请先打开与我的私聊并发送 /start，然后再点一次按钮。",
  "secret.skillGone": "技能 `{skill}` 在这里已不可用。",
  "secret.keyGone": "`{skill}` 已不再声明 `{key}`。",
  "value.edgeWhitespace":
    "值的开头或结尾有空白字符（{chars}），它会被当作值的一部分保存；未保存任何内容。请去掉这些空白字符后重新输入。",
  "secret.badValue": "⚠️ {problem}",
  "secret.refused": "⛔ {reason}",
  // ── secret forms ────────────────────────────────────────────────────────────────────────────────────
  "secret.token.unknown": "这个密钥表单无效（网关可能已重启）。请重新加载技能以获取新的表单。",
  "secret.token.expired": "这个密钥表单已过期（表单有效期为 10 分钟）。请重新加载技能以获取新的表单。",
  "secret.token.used": "这个密钥表单已经用过；每个表单只能设置一次值。要修改它，请重新加载技能。",
  "secret.token.wrongUser": "这个密钥表单属于申请它的管理员，只有他本人可以使用。",
  // ── gateway ─────────────────────────────────────────────────────────────────────────────────────────
  "gateway.noAgent":
    "这里我只能理解命令：没有配置语言模型。要聊天，请在 config.yaml 中设置 `gateway.agent.enabled: true` 以及 `model`（或 `auxiliary`）部分。输入 /help 查看命令。",
  "gateway.unknownCommand":
    "未知命令 `{command}`。输入 /help 查看可用命令；或者去掉开头的斜杠重新发送，作为普通消息发出。",
  "gateway.unknownCommand.guess":
    "未知命令 `{command}`。你是想输入 `{guess}` 吗？输入 /help 查看可用命令；或者去掉开头的斜杠重新发送，作为普通消息发出。",
  "gateway.noPrivateInput": "这里无法私密输入密钥；请在网关主机的 .env 文件中设置。",
  "gateway.running": "⏳ 正在运行 `{command}`……结果会显示在这条消息中。",
  "gateway.working": "⏳ 正在处理……",
  "gateway.queued": "⏳ 正在重新连接……你的消息已排队，稍后会收到回复。",
  "gateway.notTaken.interaction": "skillgate 暂时不可用，没有收下这条操作。请稍后再试。",
  "gateway.notTaken.press": "这次点击暂时无法收下；请稍后再点一次按钮。",
  "gateway.loadSkill": "加载技能 {name}",
  "gateway.agentFailed": "智能体无法回答：{detail}。命令仍然可用；输入 /help 查看。",
  "gateway.notAllowed": "你不在这个网关的允许列表中。",
  "press.unknown": "⛔ 这个按钮不是本网关在这个聊天中显示的，所以没有做任何操作。请重新运行命令。",
  "press.expired": "⌛ 这个按钮已过期（按钮的有效期为 {hours} 小时），所以没有做任何操作。请重新运行命令。",
  "press.used": "这条已经回答过了，没有再做任何操作。",
  "press.secretAdminsOnly":
    "⛔ 只有管理员可以设置密钥。你的 id 是 `{who}`；如果你应当拥有这个权限，请所有者把它加入 gateway.admins。",
  "press.commandGone": "⛔ 这个按钮对应的命令已不存在，所以没有做任何操作。",
  "secretValue.multiline": "值必须是一行，且不能包含 NUL 字符；没有保存任何内容。",
  "secretValue.notUnicode": "值不是有效的 Unicode 文本；没有保存任何内容。",
  "secretValue.empty": "值为空；没有保存任何内容。",
  "secretValue.oneLine": "值必须是一行；没有保存任何内容。",
  "secretValue.tooLong": "值超过 {limit} 个字符；没有保存任何内容。",
  "secretValue.unparsable":
    ".env 中 `{key}` 之前有一条 `python-dotenv` 无法解析的语句（引号没有闭合？），新值将无法读取；请修正文件后重试。没有保存任何内容。",
  "secretValue.layout":
    "写入会改变 .env 中 `{key}` 的读取结果（它的格式不常见）；请修正文件后重试。没有保存任何内容。",
  "launch.console": "skillgate 网页控制台：{url}",
  "launch.logInCommand": "  登录：在这台主机上运行 `skillgate console --link` 获取一次性登录链接",
  "launch.logInLink": "  登录（一次性链接，15 分钟内有效）：{url}",
  "launch.notLoopback":
    "!!! 警告：网页控制台监听在非回环地址上（gateway.console.bind），其他机器可以访问它。!!!",
  "gateway.noAdapterStarted": "没有任何聊天适配器能够启动；各平台的原因见上方的日志。",
  "agent.needsSecret": { other: "⚠️ 技能 {name} 需要 {names}，但尚未设置。{hint}" },
  "agent.securityWarning": "⚠️ {name}：{warning}",
  "agent.skillsUnavailable": "这里无法使用技能：{detail}",
  "agent.modelFailed": "模型无法回答：{detail}",
  "agent.noAnswer": "（模型没有给出回答。请换个说法，或者用 /help 查看命令。）",
  // ── one-time secret form ────────────────────────────────────────────────────────────────────────────
  "form.error.title": "出错了",
  "form.error.text": "出了点问题，没有保存任何内容。请在聊天中重新申请表单。",
  "form.notFound.title": "未找到",
  "form.notFound.text": "未找到。",
  "form.closed.title": "表单已关闭",
  "form.set.title": "设置 {key}",
  "form.set.heading": "设置 {key}",
  "form.set.intro": "用于技能 {skill}。这个值会直接写入网关的 .env 文件，不会显示在任何聊天中。",
  "form.set.store": "保存",
  "form.set.once": "这个表单只能使用一次，并在创建 10 分钟后关闭。",
  "form.notAllowed.title": "不允许",
  "form.notAllowed.text": "请使用表单。",
  "form.tooLarge.title": "内容过大",
  "form.tooLarge.text": "表单内容过大，没有保存任何内容。",
  "form.notStored.title": "未保存",
  "form.stored.title": "已保存",
  "form.stored.text": "{key} 已设置 ✓。现在可以关闭这个页面。",
  // ── chat commands: help, whoami, skill ──────────────────────────────────────────────────────────────
  "help.summary": "列出这里可用的命令和可以加载的技能",
  "help.arg.command": "要查看详情的命令，例如 `curator`",
  "help.noCommand": "没有命令 `{command}`。试试 `{help}`。",
  "help.commands": "命令",
  "help.item": "`{usage}`——{summary}",
  "help.item.admins": "`{usage}`——{summary}（仅限管理员）",
  "help.options": "{line}\n  选项：{options}",
  "help.details": "详情：`{command}`。",
  "help.skillsHidden": "技能已隐藏：{detail}",
  "help.noSkillsHere": "这里没有可用的技能。",
  "help.emptyLibrary":
    "还没有安装任何技能。试试示例：`skillgate serve --demo` 会在临时目录中运行它们，`skillgate init --examples` 会把它们安装到当前目录。",
  "help.skillsHeading": "技能（{count}）",
  "help.skillItem": "`{command}`——{description}",
  "help.moreSkills": "…… 还有 {count} 个：`{command}`",
  "whoami.summary": "显示你的 `platform:id` 以及你可以运行的命令",
  "whoami.role.owner": "本机所有者（管理员）",
  "whoami.role.admin": "管理员（所有命令）",
  "whoami.role.stranger": "不在允许列表中",
  "whoami.role.user": "允许的用户（只读命令）",
  "whoami.localTerminal": "本地终端",
  "whoami.you": "你是 `{id}`：{role}。",
  "whoami.youNamed": "你是 `{id}`（{name}）：{role}。",
  "whoami.dm": "这个私聊是 `{chat}`：把它写入 gateway.home_channel，就能在这里收到维护摘要。",
  "whoami.group":
    "这个群组是 `{chat}`：把它写入 gateway.home_channel 可在这里发布维护摘要，写入 gateway.allowed_chats 可让群成员运行只读命令。",
  "whoami.thread":
    "这个话题所在的聊天是 `{chat}`：把它写入 gateway.home_channel 可在这里发布维护摘要，写入 gateway.allowed_chats 可让成员运行只读命令。",
  "skill.summary": "为这个聊天加载技能（或查看它的某个文件）",
  "skill.arg.name": "技能名称",
  "skill.arg.file": "技能中的文件，例如 references/api.md",
  "skill.noSuchSkill": "没有名为 `{name}` 的技能。请查看 `{list}`。",
  "skill.disabledFor":
    "技能 `{name}` 在{where}已禁用（config.yaml 中的 skills.disabled 或 skills.platform_disabled.{platform}）。请管理员在那里启用它。",
  "skill.thisTerminal": "这个终端",
  "skill.loaded": "已加载技能：{name}",
  "skill.category": "类别：{category}",
  "skill.linkedFiles": "关联文件：",
  "skill.openOne": "用 `{command} <file>` 打开其中一个。",
  "skill.securityWarnings": "⚠️ 安全警告：",
  "skill.couldNotLoad": "无法加载技能 '{name}'。",
  "skill.instruction": "指令：{instruction}",
  "skill.ready": "就绪状态：已就绪。",
  "skill.setupNeeded": "就绪状态：需要设置——{parts}。技能仍已加载。",
  "skill.setupNotes": "请查看技能的设置说明",
  "skill.missingEnv": { other: "缺少环境变量 {names}" },
  "skill.missingFile": { other: "缺少文件 {names}" },
  "skill.missingCommand": { other: "缺少命令 {names}" },
  "skill.settings": "设置（config.yaml 中的 skills.config）：",
  // ── paging ──────────────────────────────────────────────────────────────────────────────────────────
  "paging.line": "第 {page} / {pages} 页（第 {first}–{last} 项，共 {total} 项）",
  "paging.prev": "‹ 上一页",
  "paging.next": "下一页 ›",
  // ── maintenance summary ─────────────────────────────────────────────────────────────────────────────
  "summary.line": "管理器（Curator）：{auto}",
  "summary.lineWithLlm": "管理器（Curator）：{auto}；模型处理：{llm}",
  "summary.auto": "自动：{changes}",
  "summary.autoDry": "试运行（自动）：{changes}",
  "summary.markedStale": "{count} 个标记为过时",
  "summary.archived": "已归档 {count} 个",
  "summary.reactivated": "{count} 个重新激活",
  "summary.noChanges": "没有变化",
  "summary.wouldMarkStale": "将把 {count} 个标记为过时",
  "summary.wouldArchive": "将归档 {count} 个",
  "summary.wouldReactivate": "将重新激活 {count} 个",
  "summary.nothingToChange": "没有需要更改的内容",
  "summary.llm.skipped": "已跳过（{why}）",
  "summary.llm.skippedPlain": "已跳过",
  "summary.llm.why.off": "整合已关闭",
  "summary.llm.why.noModel": "未配置模型",
  "summary.llm.why.noCandidates": "没有候选技能",
  "summary.llm.why.stopping": "进程正在停止",
  "summary.llm.error": "出错（{error}）",
  "summary.llm.noChange": "没有更改",
  "summary.llm.proposedNone": "没有提出任何更改",
  "summary.llm.proposed": "提议：{changes}",
  "summary.llm.merged": "{count} 个整合进 {umbrellas} 个伞形技能",
  "summary.llm.pruned": "清理 {count} 个",
  "summary.llm.added": "新增 {count} 个技能",
  "summary.renameHead": "已归档 {count} 个技能：",
  "summary.renameHeadDry": "将归档 {count} 个技能：",
  "summary.renameInto": "{name} → {into}",
  "summary.renamePruned": "{name}——因过时而清理",
  "summary.renameMore": "…… 还有 {count} 个",
  "summary.fullReport": "完整报告：`{command}`",
  "summary.pinHint": "让伞形技能保持稳定：`{command}`",
  "summary.pinHintStored": "让伞形技能保持稳定：`{command}`",
  "summary.stored": "{auto}；模型处理：{llm}",
  "summary.deferred":
    "首次运行已推迟：管理器（Curator）已记下起始时间，一个周期后才运行；现在可用 `{command}` 预览",
  "button.restore": "恢复 {name}",
  "button.rollbackRun": "回滚这次运行",
  // ── secrets command ─────────────────────────────────────────────────────────────────────────────────
  "secrets.badName": "`{key}` 不是变量名（只能由字母、数字和 _ 组成，且不能以数字开头）。",
  "secrets.undeclared":
    "没有技能声明 `{key}`（required_environment_variables、setup.collect_secrets 或 prerequisites.env_vars），所以 skillgate 不会设置它；如有需要，请手动加入 .env 文件。",
  "secrets.ask": "{key} 的值（输入不显示；由 {owners} 使用）：",
  // ── command replies (curator, safety net, skills): a section file of their own ──────────────────────
  ...zhCNCommands,
  ...zhCNLibrary,
  ...zhCNHub,
  ...zhCNSearch,
});
