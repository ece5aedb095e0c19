/**
 * The Simplified Chinese texts of skills from a hub, checked key by key and parameter by parameter
 * against `hub.en.ts` (`defineLocale`). Words from `glossary.md`.
 */
import { defineLocale } from "./entries.js";
import type { enHub } from "./hub.en.js";

export const zhCNHub = defineLocale<typeof enHub>()({
  "hub.lockCorrupt": "无法读取 {file}（{reason}）；请先修复或删除它，再安装、更新或移除 Hub 技能。",
  "hub.badName": "'{name}' 不能用作 Hub 安装的技能名（只能是一个文件夹名，不含 '..'，不以点开头）。",
  "hub.badInstallPath": "'{name}' 的安装路径 '{path}' 会离开技能文件夹；已拒绝。",
  "hub.net.badUrl": "'{url}' 不是可以获取 Hub 技能的 URL。",
  "hub.net.scheme":
    "拒绝获取 {url}：只允许 https；普通 http 只允许用于 skills.hub.allowed_hosts 中列出的 host:port（{hostPort} 不在其中）。",
  "hub.net.userinfo": "拒绝从 {hostPort} 获取：URL 中不能带用户名或密码。",
  "hub.net.private":
    "拒绝从 {hostPort} 获取：它是私有或本机地址（{address}）；如果它是你的仓库，请把 {hostPort} 加入 skills.hub.allowed_hosts。",
  "hub.net.tooManyRedirects": "拒绝 {url}：重定向超过 {max} 次。",
  "hub.net.redirectNoLocation": "{url} 返回了重定向，但没有给出目标地址。",
  "hub.net.tooLarge": "{hostPort} 的响应超过了 {limit} 字节的上限；已拒绝。",
  "hub.net.timeout": "{hostPort} 在 {seconds} 秒内没有响应。",
  "hub.net.failed": "无法从 {hostPort} 获取：{cause}",
  "hub.net.status": "{url} 返回了 HTTP {status}。",
  "hub.net.notJson": "{url} 返回的不是 JSON。",
  "hub.archive.unreadable": "下载的内容不是可读的 .tar.gz 归档。",
  "hub.archive.tooLarge": "归档解开后超过 {limit} 字节（或其中有文件超过单个文件上限）；已拒绝。",
  "hub.archive.tooManyMembers": "归档中的条目超过 {limit} 个；已拒绝。",
  "hub.source.unknown":
    "'{source}' 不是 Hub 来源：请给出 owner/repo/path/to/skill（GitHub）、clawhub:<slug>，或指向 SKILL.md 或 .tar.gz 的 https URL。",
  "hub.source.badSlug": "'{source}' 不是 ClawHub 技能（clawhub:<slug>，只含字母、数字、'.'、'_' 和 '-'）。",
  "hub.source.noSkillMd": "{where} 中没有 SKILL.md，所以它不是技能。",
  "hub.source.noName": "{url} 上的技能没有名字：它的 SKILL.md 没有声明 `name:`，URL 也给不出名字。",
  "hub.source.githubStatus": "GitHub 对 {identifier} 返回了 HTTP {status}；请检查所有者、仓库和路径。",
  "hub.source.clawhubNoVersion": "ClawHub 上没有 '{slug}' 的已发布版本。",
  "hub.refusedDangerous": { other: "未安装 '{name}'：扫描发现 {count} 个问题，判定为危险。" },
  "hub.alreadyHub": "'{name}' 已经从 Hub 安装；请用 `skills update {name}` 获取最新版本。",
  "hub.nameTaken": "技能库中已有名为 '{name}' 的技能；没有替换任何内容。请用 --name 以其他名字安装。",
  "hub.notHub": "'{name}' 不是从 Hub 安装的技能（见 `skills hub list`）。",
  "hub.locallyModified": "'{name}' 的文件在安装后被修改过；更新会覆盖这些修改。如要替换，请加 --force 重试。",
  "fence.what.hubInstall": "'{skill}' 的 Hub 安装",
  "fence.what.hubUpdate": "'{skill}' 的 Hub 更新",
  "fence.what.hubUninstall": "移除 Hub 技能 '{skill}'",
});
