/**
 * The Simplified Chinese texts of skill search, overlapping skills and loaded-skill change notices,
 * checked key by key against `search.en.ts` (`defineLocale`). Words from `glossary.md`.
 */
import { defineLocale } from "./entries.js";
import type { enSearch } from "./search.en.js";

export const zhCNSearch = defineLocale<typeof enSearch>()({
  "cmd.summary.skillsSearch": "按用途搜索技能（中英文皆可），最匹配的排在最前",
  "cmd.arg.searchQuery": "描述任务的词语",
  "cmd.option.search.limit": "最多显示的结果数（默认 10）",
  "search.heading": "与“{query}”匹配的技能（{total} 个）：",
  "search.none": "这里没有与“{query}”匹配的技能。换几个词试试，或用 {list} 查看全部技能。",
  "search.emptyQuery": "请给出要搜索的词语，例如 {example}。",
  "search.related": "相关技能：{names}",
  "search.describedRelated": "{description}（{related}）",
  "search.tie": "有几个技能匹配程度相同，请选择一个：",
  "search.showOne": "用 {command} 查看其中一个。",
  "button.viewSkill": "查看 {name}",
  "button.loadSkill": "加载 {name}",
  "skill.ambiguous": "“{name}”不是这里的技能名称；你是不是指下面这些？",
  "skill.changed": "🔄 技能 {name} 在本聊天加载后已有改动；智能体现在按新内容执行。",
  "skill.changedVersion":
    "🔄 技能 {name} 在本聊天加载后已有改动：版本 {from} → {to}；智能体现在按新内容执行。",
  "skill.changedByCurator": "🔄 管理器（Curator）改动了本聊天已加载的技能 {name}；智能体现在按新内容执行。",
  "skill.changedByCuratorVersion":
    "🔄 管理器（Curator）改动了本聊天已加载的技能 {name}：版本 {from} → {to}；智能体现在按新内容执行。",
  "skill.changedByRestore":
    "🔄 本聊天已加载的技能 {name} 已从归档恢复，内容与加载时不同；智能体现在按恢复的内容执行。",
  "skill.changedByRestoreVersion":
    "🔄 本聊天已加载的技能 {name} 已从归档恢复：版本 {from} → {to}；智能体现在按恢复的内容执行。",
  "skill.changedByRollback": "🔄 回滚改动了本聊天已加载的技能 {name}；智能体现在按新内容执行。",
  "skill.changedByRollbackVersion":
    "🔄 回滚改动了本聊天已加载的技能 {name}：版本 {from} → {to}；智能体现在按新内容执行。",
  "button.whatChanged": "{name} 改了什么",
  "skill.noChangeRecorded": "本聊天没有收到过 {name} 的改动通知；用 {command} {name} 加载它即可跟踪其版本。",
  "cmd.summary.skillsChanges": "本聊天最近一次通知的已加载技能改动（SKILL.md 差异）",
  "cmd.col.score": "得分",
  "cmd.summary.skillsOverlaps": "触发条件相互重叠的技能对，可作为整合的候选",
  "cmd.option.overlaps.limit": "最多显示的技能对数（默认 50）",
  "overlaps.heading": "相互重叠的技能（{total} 对）：",
  "overlaps.none": "这里没有相互重叠的启用技能。",
  "overlaps.col.pair": "技能",
  "overlaps.col.reason": "原因",
  "overlaps.shared": "共同词语：{terms}",
  "overlaps.related": "在 related_skills 中互相提及",
  "overlaps.relatedAndShared": "在 related_skills 中互相提及；{shared}",
  "console.page.search": "搜索技能",
  "console.page.overlaps": "相互重叠的技能",
  "console.search.label": "按用途查找",
  "console.search.hint": "例如：部署 nginx",
  "console.search.submit": "搜索",
  "console.search.none": "这里没有与“{query}”匹配的技能。",
  "overlaps.hint": "每一对都是管理器整合环节的候选（整合，或把描述写得更清楚）。",
});
