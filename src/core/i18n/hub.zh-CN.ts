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
});
