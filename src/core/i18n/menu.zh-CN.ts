/**
 * Simplified Chinese names of platform menu entries (Feishu's bot menu), checked against `menu.en.ts`.
 */
import { defineLocale } from "./entries.js";
import type { enMenu } from "./menu.en.js";

export const zhCNMenu = defineLocale<typeof enMenu>()({
  "menu.feishu.help": "帮助",
  "menu.feishu.curatorStatus": "管理器状态",
  "menu.feishu.skillsList": "技能列表",
  "menu.feishu.whoami": "我是谁",
});
