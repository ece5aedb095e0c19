/**
 * English names of platform menu entries that are not slash commands: Feishu's bot menu (set up by the
 * app's admin in the developer console; see adapters/feishu/menu.ts). A section of the English catalog.
 */
import type { CatalogShape } from "./entries.js";

export const enMenu = {
  "menu.feishu.help": "Help",
  "menu.feishu.curatorStatus": "Curator status",
  "menu.feishu.skillsList": "Skills",
  "menu.feishu.whoami": "Who am I",
} as const satisfies CatalogShape;
