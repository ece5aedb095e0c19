#!/usr/bin/env node
// Counts how often each candidate word of the zh-CN glossary occurs in the seed documents (the Chinese
// edition of the curator guide and the skills chapter), so the glossary's first table can say which
// word the seeds use. Usage: node scripts/seed-term-counts.mjs <folder with *.zh.txt>
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** Concept → the words a translation might use for it. */
const CANDIDATES = {
  curator: ["Curator", "管理器", "策展人", "技能管理器"],
  "audit log (ledger)": ["审计日志", "账本"],
  unpin: ["解除固定", "取消固定"],
  "disabled / disable": ["禁用", "停用"],
  "cron job": ["定时任务", "cron 任务", "计划任务"],
  "take a snapshot": ["创建快照", "拍摄快照"],
  "restore (a skill)": ["恢复"],
  "resume (the schedule)": ["继续", "恢复运行", "重新启用"],
  reactivate: ["激活", "重新启用"],
  "prune (archive for staleness)": ["清理"],
  "purge (delete archived)": ["清除"],
  Feishu: ["飞书", "Feishu"],
  category: ["类别", "分类"],
  archive: ["归档"],
  stale: ["过时", "陈旧"],
  consolidate: ["整合", "合并"],
  umbrella: ["伞形"],
  "agent-created": ["智能体创建", "智能体"],
  bundled: ["打包", "捆绑", "内置"],
  adopt: ["采用"],
  "roll back": ["回滚"],
  snapshot: ["快照"],
  pin: ["固定"],
  pause: ["暂停"],
  report: ["报告"],
  summary: ["摘要"],
  provenance: ["来源"],
  "skill library": ["技能库"],
};

const folder = process.argv[2] ?? "shared/seeds";
const texts = readdirSync(folder)
  .filter((name) => name.endsWith(".zh.txt"))
  .map((name) => readFileSync(path.join(folder, name), "utf8"));
const count = (word) => texts.reduce((sum, text) => sum + text.split(word).length - 1, 0);
for (const [concept, words] of Object.entries(CANDIDATES)) {
  console.log(`${concept}\t${words.map((word) => `${word} ${count(word)}`).join("、")}`);
}
