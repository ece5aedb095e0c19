/**
 * The English texts of skill search, overlapping skills and loaded-skill change notices, spread into
 * `en`. Vocabulary of the Chinese side: `glossary.md`.
 */
import type { CatalogShape } from "./entries.js";

export const enSearch = {
  "cmd.summary.skillsSearch": "find skills by what they do (English and Chinese), best match first",
  "cmd.arg.searchQuery": "words describing the task",
  "cmd.option.search.limit": "most results shown (default 10)",
  "search.heading": "Skills matching “{query}” ({total}):",
  "search.none": "No skill here matches “{query}”. Try other words, or {list} for every skill.",
  "search.emptyQuery": "Give some words to search for, e.g. {example}.",
  "search.related": "related: {names}",
  "search.describedRelated": "{description} ({related})",
  "search.tie": "Several skills match equally well; choose one:",
  "search.showOne": "Show one with {command}.",
  "button.viewSkill": "View {name}",
  "button.loadSkill": "Load {name}",
  "skill.ambiguous": "“{name}” is not a skill name here; did you mean one of these?",
  "skill.changed":
    "🔄 The {name} skill changed since it was loaded in this chat; the agent now follows the new text.",
  "skill.changedVersion":
    "🔄 The {name} skill changed since it was loaded in this chat: version {from} → {to}; the agent now follows the new text.",
  "skill.changedByCurator":
    "🔄 The curator changed the {name} skill loaded in this chat; the agent now follows the new text.",
  "skill.changedByCuratorVersion":
    "🔄 The curator changed the {name} skill loaded in this chat: version {from} → {to}; the agent now follows the new text.",
  "skill.changedByRestore":
    "🔄 The {name} skill loaded in this chat was restored from the archive with other content; the agent now follows the restored text.",
  "skill.changedByRestoreVersion":
    "🔄 The {name} skill loaded in this chat was restored from the archive: version {from} → {to}; the agent now follows the restored text.",
  "skill.changedByRollback":
    "🔄 A rollback changed the {name} skill loaded in this chat; the agent now follows the new text.",
  "skill.changedByRollbackVersion":
    "🔄 A rollback changed the {name} skill loaded in this chat: version {from} → {to}; the agent now follows the new text.",
  "button.whatChanged": "What changed in {name}",
  "skill.noChangeRecorded":
    "No change of {name} was told in this chat; load it with {command} {name} to follow its versions.",
  "cmd.summary.skillsChanges": "the SKILL.md diff of a loaded skill's last change told in this chat",
  "cmd.col.score": "score",
  "cmd.summary.skillsOverlaps": "pairs of skills whose triggers overlap, candidates for consolidation",
  "cmd.option.overlaps.limit": "most pairs shown (default 50)",
  "overlaps.heading": "Overlapping pairs of skills: {total}",
  "overlaps.none": "No two active skills here overlap.",
  "overlaps.col.pair": "skills",
  "overlaps.col.reason": "reason",
  "overlaps.shared": "shared words: {terms}",
  "overlaps.related": "named in related_skills",
  "overlaps.relatedAndShared": "named in related_skills; {shared}",
  "console.page.search": "Search skills",
  "console.page.overlaps": "Overlapping skills",
  "console.search.label": "Find by what it does",
  "console.search.hint": "e.g. deploy nginx / 部署 nginx",
  "console.search.submit": "Search",
  "console.search.none": "No skill here matches “{query}”.",
  "overlaps.hint":
    "Each pair is a candidate for the curator's consolidation pass (merge, or sharpen the descriptions).",
  "summary.contentChanged": "Skills whose content changed:",
  "summary.contentChangedVersion": "{name}: version {from} → {to}",
  "console.versions.link": "Version history",
  "console.versions.title": "Versions of {name}",
  "console.versions.hint":
    "Each SKILL.md text this skill had, from the audit log's saved copies; compare any two.",
  "console.versions.none": "The audit log holds no change of this skill's SKILL.md.",
  "console.versions.col.version": "version",
  "console.versions.removed": "removed",
  "console.versions.from": "From",
  "console.versions.to": "to",
  "console.versions.before": "the text before this change",
  "console.versions.compare": "Compare",
  "console.versions.diffHeading": "SKILL.md from {from} to {to}",
  "console.versions.same": "These two versions have the same SKILL.md.",
  "console.versions.option": "{when} · version {version}",
  "console.versions.optionNoVersion": "{when}",
  "button.compareSkills": "Compare {a} and {b}",
  "cmd.summary.skillsCompare": "two skills side by side: facts and the diff of their SKILL.md",
  "compare.heading": "{a} and {b} side by side:",
  "compare.tags": "tags",
  "compare.related": "related skills",
  "compare.version": "version",
  "compare.diff": "Their SKILL.md, {a} (−) against {b} (+):",
  "compare.noSkill": "No skill here is named {name}; {command} lists the overlapping pairs.",
} as const satisfies CatalogShape;
