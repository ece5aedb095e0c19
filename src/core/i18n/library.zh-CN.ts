/**
 * The Simplified Chinese texts of the library's and the curator's warnings, refusals, failures and
 * progress lines, checked key by key and parameter by parameter against `library.en.ts`
 * (`defineLocale`). Words from `glossary.md`.
 */
import { defineLocale } from "./entries.js";
import type { enLibrary } from "./library.en.js";

export const zhCNLibrary = defineLocale<typeof enLibrary>()({
  // ── skill folders the library skips ─────────────────────────────────────────────────────────────────
  "skill.notUtf8":
    "技能 '{skill}' 的 SKILL.md 不是有效的 UTF-8 文本（是二进制文件吗？）；skillgate 跳过它。请把它保存为 UTF-8。",
  "skill.unreadable": "无法读取技能 '{skill}' 的 SKILL.md：{cause}",
  // ── provenance and cron files ───────────────────────────────────────────────────────────────────────
  "provenance.hubUnreadable": "无法读取 {file}：{cause}",
  "provenance.hubInvalid": "{file} 不是有效的 JSON；修复之前无法识别 Hub 技能。",
  "provenance.bundledUnreadable": "无法读取 .bundled_manifest：{cause}",
  "cron.unreadable": "无法读取 {file}（{cause}）；本次运行不保护定时任务引用的技能。",
  "cron.invalid": "{file} 不是有效的 JSON；本次运行不保护定时任务引用的技能。",
  "usage.movedAside": "{file} 不是有效的 JSON；它已保留为 {aside}，使用记录从空开始。",
  "state.movedAside": "{file} 不是有效的 JSON；它已保留为 {aside}，管理器状态重置为默认值。",
  // ── the automatic pass ──────────────────────────────────────────────────────────────────────────────
  "run.reportFailed": "无法写入运行报告：{cause}",
  "run.archiveFailed": "无法归档 '{name}'：{cause}",
  "run.usedSincePlan": "制定计划后又被使用过，已保留",
  "run.goneFromDisk": "已不在磁盘上",
  "cmd.prune.failure": "{name}：{cause}",
  // ── a curator run's progress on the terminal (stderr; the log and --json never carry these) ──────────
  "run.progress.review": "正在审查……",
  "run.progress.dryRun": "正在试运行（只生成报告，不做任何更改）……",
  "run.progress.snapshot": "已创建快照（{id}）",
  "consolidate.progress.noBackup": "备份已关闭（curator.backup.enabled: false）；本次整合不创建快照",
  "consolidate.progress.claimed": "注意：模型声称已把 '{from}' 整合进 '{into}'，但 '{from}' 仍在技能库中",
  "consolidate.progress.cron": "定时任务：已把 {count} 个任务改为指向新的技能",
  "consolidate.progress.call": "[{seconds} 秒] {call}",
  "consolidate.progress.callRefused": "[{seconds} 秒] {call} → 被拒绝：{error}",
  "consolidate.progress.unparsable": "{name}(<无法解析的参数>)",
  "consolidate.progress.finished": "[{seconds} 秒] 模型处理结束：{count} 次工具调用",
  "consolidate.progress.finishedError": "[{seconds} 秒] 模型处理结束：{count} 次工具调用，错误：{error}",
  "consolidate.stopped.turns":
    "模型用完 {turns} 轮（curator.max_iterations）仍未完成，已停止；请调高该值或再运行一次",
  "consolidate.stopped.time":
    "模型在 {seconds} 秒（curator.max_seconds）内未完成，已停止；请调高该值或再运行一次",
  "consolidate.stopped.shutdown": "已停止：进程正在关闭；重启后请再运行一次",
  "model.legacyAuxiliary":
    "正在使用已弃用的 `curator.auxiliary` 配置块；请把它移到 `auxiliary.curator`（键名相同）",
  "model.none":
    "未配置模型：请在 config.yaml 中设置 `auxiliary.curator.provider` 和 `auxiliary.curator.model`（或 `model.default` 加 `model.base_url`）",
  "model.autoNoKey":
    "`model.provider` 为 auto，但没有找到任何服务商的密钥：请设置 `model.base_url`（任何兼容 OpenAI 的服务器），或设置 `model.provider` 并提供它的 API 密钥（例如 <home>/.env 中的 OPENROUTER_API_KEY）",
  "model.noAddress":
    "`{source}.provider` 为 {provider}，没有已知的地址：请把 `{source}.base_url` 设为它兼容 OpenAI 的接口地址（例如 http://127.0.0.1:8000/v1）",
  "model.keyVarUnset":
    "`{source}.api_key` 指向 {variable}，但它没有设置：请把 {variable}=… 加入 <home>/.env 或环境变量",
  "model.noKey":
    "`{source}` 没有 API 密钥：请在 <home>/.env 或环境变量中设置 {variable}，或设置 `{source}.api_key`",
  // ── writes refused by the write fence (several gateways on one home) ───────────────────────────────
  "fence.refused": "{what}被拒绝：{reason}。现在由另一个副本写入这个技能库；这里没有做任何更改。",
  "fence.what.curatorRun": "管理器的一次运行",
  "fence.what.archiveBatch": "管理器的一批归档",
  "fence.what.archive": "技能 '{skill}' 的归档",
  "fence.what.restore": "技能 '{skill}' 的恢复",
  "fence.what.rollback": "一次回滚",
  "fence.what.rollbackSwap": "回滚的替换步骤",
  "fence.what.usageWrite": "对 .usage.json 的写入",
  "fence.what.usageBump": "一次使用记录",
  "fence.what.dotenvWrite": "对 .env 的写入",
  "fence.what.configEdit": "对 config.yaml 的编辑",
  "fence.what.ledgerAppend": "一条审计日志记录",
  "fence.what.takeLead": "接管领导权",
  "fence.reason.notLeading": "这个副本现在不是这个主目录的领导者",
  "fence.reason.staleRecord":
    "技能库的领导者记录是任期 {disk}（{host} 上的 {replica}），不是这个副本的 {mine}",
  "fence.reason.newerEpoch": "任期 {disk}（{host} 上的 {replica}）比这个副本的 {mine} 更新",
  // ── curator moves refused ───────────────────────────────────────────────────────────────────────────
  "archive.refused.external": "技能 '{name}' 位于 skills.external_dirs 中；外部技能对管理器是只读的",
  "archive.refused.protected": "技能 '{name}' 是受保护的内置技能；它支撑着关键命令，从不归档或整合",
  "archive.refused.hub": "技能 '{name}' 是 Hub 技能；它归上游所有，因此从不归档",
  "archive.refused.bundled": "技能 '{name}' 是打包技能；开启 curator.prune_builtins 才能归档它",
  "archive.refused.pinned": "'{name}' 已固定——请先用 `{command}` 解除固定",
  "restore.refused.hub": "技能 '{name}' 现在是 Hub 技能；恢复它会遮盖上游版本",
  "restore.refused.bundled":
    "技能 '{name}' 现在是打包技能，且 curator.prune_builtins 已关闭；恢复它会遮盖内置版本",
  "restore.refused.protected": "技能 '{name}' 是受保护的内置技能；不能恢复覆盖它",
  "move.parentOutside":
    "技能 '{skill}' 所在的文件夹经由一个指向技能库之外的符号链接（{folder}）；管理器从不移动 skills/ 之外的文件。请手动把技能移进技能库，或删除这个链接",
  "move.outside": "技能 '{skill}' 解析到技能库之外；管理器从不移动 skills/ 之外的文件",
  "move.destinationOutside":
    "恢复技能 '{skill}' 会把它放进一个经由指向技能库之外的符号链接（{folder}）到达的文件夹；管理器从不写入 skills/ 之外。请删除这个链接，或手动恢复",
  // ── snapshots and rollbacks ─────────────────────────────────────────────────────────────────────────
  "snapshot.failed": "快照失败：{cause}",
  "snapshot.tooMany": "一秒内的快照过多（{id}）；请等一秒再试。",
  "rollback.noBackup": "没有找到匹配的备份；用 `curator rollback --list` 列出它们。",
  "rollback.noBackupFor": "没有找到编号为 '{id}' 的备份；用 `curator rollback --list` 列出它们。",
  "rollback.busy": "这个主目录上正在进行另一次回滚；请等它完成后再试。",
  "rollback.extractFailed": "解压快照失败（状态已还原）：{cause}",
  "rollback.swapFailed": "替换时回滚失败（状态已还原）：{cause}",
  "rollback.safetySnapshotFailed": "回滚前的安全快照失败：{cause} 回滚已中止；没有做任何更改。",
  "rollback.entry.outside": "拒绝回滚：这条审计日志记录引用了 {home} 之外的路径：{target}",
  "rollback.entry.outsideLink":
    "拒绝回滚：这条审计日志记录（经由符号链接）引用了 {home} 之外的路径：{target}",
  "rollback.entry.missing": "没有编号为 '{id}' 的审计日志记录；记录编号见 `curator ledger`。",
  "rollback.entry.missingBlob": "{file} 缺少数据块 {blob}；回滚已中止，没有做任何更改。",
  "rollback.entry.safetyFailed":
    "回滚前的安全记录失败（审计日志已关闭或无法写入）；回滚已中止，当前技能没有改动。",
  "tar.unreadable": "快照归档文件 {archive} 无法读取（{cause}）；请用 --id 选择另一个快照。",
  "tar.unsafe": "拒绝不安全的快照归档文件：{problems}。没有做任何更改。",
  "tar.member": "'{member}' {reason}",
  "tar.member.nul": "含有 NUL 字节",
  "tar.member.absolute": "是绝对路径",
  "tar.member.backslash": "含有反斜杠",
  "tar.member.dotdot": "含有 '..'",
  "tar.member.empty": "为空",
  "tar.member.type": "是 {type}，快照从不包含这种成员",
  "tar.member.linkLeaves": "是指向归档之外的符号链接（-> {target}）",
  "tar.member.hardLinkTarget": "是硬链接，其目标{reason}",
  "tar.member.throughLink": "会经由符号链接写入",
  "tar.member.hardLinkToLink": "是指向符号链接的硬链接",
  "tar.member.hardLinkToSkipped": "是指向回滚会跳过的成员的硬链接",
  "tar.member.hardLinkThroughLink": "是经由符号链接的硬链接",
  // ── recovery at start ───────────────────────────────────────────────────────────────────────────────
  "recovery.lockReleased": "修复：已释放进程 {pid}（在 {host} 上，已不再运行）留下的管理器运行锁。",
  "recovery.tempRemoved": "修复：已删除 {file}，它是一次被中断的写入留下的。",
  "recovery.blobsRemoved": "修复：已删除被中断的内容捕获留下的 {count} 个未完成的审计日志数据块文件。",
  "recovery.snapshotRemoved": "修复：已删除未完成的快照 {id}（写入它的进程被中断了）。",
  "recovery.rollbackTrashDeleted":
    "修复：已删除 {name}，这是一次回滚留在 {trash} 中的旧技能库（删除它的进程已停止）。",
  "recovery.purgeUndone": "修复：已把 {name} 放回归档；一次清除在写入审计日志之前被中断，所以它没有发生。",
  "recovery.purgeTrashRemoved":
    "修复：已删除 {name}，它是一次被中断的清除留下的（其中的技能包已记入审计日志）。",
  "recovery.archive.bothKept":
    "修复：技能 '{skill}' 被中断的归档同时留下了 {from} 和 {to}；两者都原样保留——请比较它们，删除你不要的那个。",
  "recovery.restore.bothKept":
    "修复：技能 '{skill}' 被中断的恢复同时留下了 {from} 和 {to}；两者都原样保留——请比较它们，删除你不要的那个。",
  "recovery.archive.neither":
    "修复：技能 '{skill}' 既不在 {from}，也不在 {to}（被中断的归档之后又被移动过）；没有需要完成的操作。",
  "recovery.restore.neither":
    "修复：技能 '{skill}' 既不在 {from}，也不在 {to}（被中断的恢复之后又被移动过）；没有需要完成的操作。",
  "recovery.archive.completed": "修复：已完成技能 '{skill}' 被中断的归档（{from} → {to}）。",
  "recovery.archive.completedWrote":
    "修复：已完成技能 '{skill}' 被中断的归档（{from} → {to}）：写入了它的{records}。",
  "recovery.restore.completed": "修复：已完成技能 '{skill}' 被中断的恢复（{from} → {to}）。",
  "recovery.restore.completedWrote":
    "修复：已完成技能 '{skill}' 被中断的恢复（{from} → {to}）：写入了它的{records}。",
  "recovery.records.ledgerEntry": "审计日志记录",
  "recovery.records.origin": "原位置记录",
  "recovery.records.both": "审计日志记录和原位置记录",
  "recovery.rollbackJournalCorrupt":
    "管理器：回滚进度文件 {file} 无法读取，已原样保留。请手动检查 skills/，然后删除这个进度文件。",
  "recovery.rollbackUndone": "管理器：一次被中断的、回滚到快照 {id} 的操作已撤销；技能库与它开始之前一样。",
  "recovery.rollbackUnfinished":
    "管理器：一次被中断的、回滚到快照 {id} 的操作无法完成（{cause}）；它已被撤销，技能库与之前一样。",
  "recovery.rollbackCompleted": "管理器：一次被中断的、回滚到快照 {id} 的操作已完成。",
  "recovery.rollbackCompletedCron":
    "管理器：一次被中断的、回滚到快照 {id} 的操作已完成；定时任务链接：{parts}。",
  // ── system errors by code ───────────────────────────────────────────────────────────────────────────
  "date.today": "今天",
  "date.yesterday": "昨天",
  "date.daysAgo": "{days} 天前",
  "os.cause": "{what}（{code}）",
  "os.causeAt": "{where}：{what}（{code}）",
  "os.ENOENT": "文件或目录不存在",
  "os.EACCES": "没有权限",
  "os.EPERM": "不允许的操作",
  "os.EISDIR": "这是目录，不是文件",
  "os.ENOTDIR": "不是目录",
  "os.EEXIST": "已存在",
  "os.ENOTEMPTY": "目录不为空",
  "os.ENOSPC": "设备上没有剩余空间",
  "os.EROFS": "只读文件系统",
  "os.ELOOP": "符号链接层级过多",
  "os.EMFILE": "打开的文件过多",
  "os.EBUSY": "资源忙",
  "os.EXDEV": "跨设备移动",
  "os.EIO": "输入/输出错误",
  "os.ENAMETOOLONG": "文件名过长",
  "os.ECONNREFUSED": "连接被拒绝",
  "os.ECONNRESET": "连接被重置",
  "os.ETIMEDOUT": "连接超时",
  "os.EHOSTUNREACH": "主机不可达",
  "os.ENOTFOUND": "找不到主机",
  "os.EADDRINUSE": "地址已被占用",
  "os.EADDRNOTAVAIL": "这台主机上没有这个地址",
  "os.Z_BUF_ERROR": "压缩数据提前结束，文件被截断了",
  "os.Z_DATA_ERROR": "压缩数据已损坏",
  "os.TAR_BAD_ARCHIVE": "不是可读取的 tar 归档文件",
  "os.YAML_SYNTAX": "YAML 语法错误",
  "os.YAML_TAB_AS_INDENT": "用制表符缩进",
  "os.YAML_DUPLICATE_KEY": "同一映射中的键重复",
  "os.YAML_MISSING_CHAR": "引号或括号没有闭合",
  "os.YAML_BAD_INDENT": "缩进错误",
  "os.YAML_BLOCK_AS_IMPLICIT_KEY": "嵌套映射和它的键写在了同一行",
  "os.YAML_UNEXPECTED_TOKEN": "出现了意外的字符",
});
