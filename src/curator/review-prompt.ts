/**
 * What the consolidation pass tells the model: the review rules, a dry run's banner, and the candidates
 * (the curator-managed skills it may review), one line each with their activity.
 */
import { homePaths } from "../config/home.js";
import { UsageStore } from "../skills/usage.js";
import { lastActivityAt } from "../skills/usage-record.js";
import { readCronRefs } from "./cron.js";
import { type CuratedRow, curatedRows, isCronReferenced } from "./plan.js";
import { loadProvenance } from "./provenance.js";
import type { ConsolidatorInput } from "./types.js";

/** The first line of a dry run's prompt. */
export const DRY_RUN_BANNER =
  "DRY-RUN — REPORT ONLY. This run must not change anything: no tool that writes is available. Review the candidates and describe, in the structured summary, exactly which merges and prunings you would make.";

/** The review rules, in skillgate's words (reference B6 lists what they must cover). */
export const REVIEW_RULES = `You are the curator of an AI agent's skill library, working in the background with nobody watching.
Your job: find candidates that cover the same kind of task and fold each such cluster into one class-level umbrella skill, so the library stays small and easy to search. You may also prune a candidate that is clearly obsolete.

Your tools are skills_list, skill_view and skill_manage. There are no others.

Rules you must follow:
1. Work only on the candidates listed below. Bundled, hub-installed, external, pinned and protected skills are off limits (skill_manage refuses them anyway).
2. Nothing is ever destroyed: a skill_manage delete moves the skill to the archive, where its owner can restore it. Every delete must say where the content went — absorbed_into="<umbrella>" naming an existing skill other than the one you delete, or absorbed_into="" when you prune an obsolete skill. Archiving is the most you can do to a skill.
3. Never pin or unpin anything.
4. A candidate marked cron=yes is used by a scheduled job. You may merge it into an umbrella (the job will be re-pointed at the umbrella), but never prune it.
5. Usage counters are not quality. Do not merge or prune a skill because its numbers are low, and never prune a skill with use=0 that was created less than 30 days ago.
6. Read before you write: skill_view a skill (or the file) before edit, patch, write_file or remove_file.
7. Umbrellas first: when two or more candidates cover the same class of task, create one umbrella (or extend an existing candidate) whose SKILL.md covers the whole class, keeping each member's specifics as a section or as references/<member>.md.
8. Keep packages whole: a skill's references/, templates/, scripts/ and assets/ belong to it. When you merge, copy every file the umbrella still needs with write_file (fixing relative links), and only then delete the old skill. Never keep just the SKILL.md text and lose its files.
9. When unsure, leave it. A small, certain change is better than a large, speculative one.

When you are done, write a short plain-language summary of what you did, then this section:

## Structured summary (required)
\`\`\`yaml
consolidations:
  - from: <old skill>
    into: <umbrella skill>
    reason: <one line>
prunings:
  - name: <skill>
    reason: <one line>
\`\`\`
Use empty lists when you changed nothing.`;

/** The managed skills the model may review: curator-managed, visible, not pinned, not archived. */
export async function listCandidates(
  input: Pick<ConsolidatorInput, "home" | "config" | "library">,
): Promise<{ rows: CuratedRow[]; cron: ReadonlySet<string> }> {
  input.library.invalidate();
  const skills = await input.library.all();
  // The one visibility rule (globally disabled skills are not offered); a config error fails closed here.
  const visible = new Set((await input.library.visible(null)).map((entry) => entry.name));
  const usage = await new UsageStore(homePaths(input.home).skills).read();
  const provenance = await loadProvenance(input.home, skills);
  const cron = (await readCronRefs(input.home)).names;
  const rows = curatedRows({ skills, usage, provenance, config: input.config }).filter(
    (row) =>
      row.kind === "agent" &&
      visible.has(row.name) &&
      row.record?.pinned !== true &&
      row.record?.state !== "archived",
  );
  return { rows, cron };
}

/** One candidate line of the prompt. */
export function candidateLine(row: CuratedRow, cronReferenced: boolean): string {
  const r = row.record;
  const use = r?.use_count ?? 0;
  const view = r?.view_count ?? 0;
  const patches = r?.patch_count ?? 0;
  const description = row.entry.description.replace(/\s+/g, " ").slice(0, 160);
  return [
    `- ${row.name}  state=${r?.state ?? "active"}  pinned=no  cron=${cronReferenced ? "yes" : "no"}  activity=${use + view + patches}  use=${use}  view=${view}  patches=${patches}  last_activity=${(r && lastActivityAt(r)) ?? "never"}  created=${r?.created_at ?? "unknown"}`,
    `    ${description}`,
  ].join("\n");
}

/** The whole review prompt: the banner (dry run), the rules, a blank line, the candidate list. */
export function reviewPrompt(rows: CuratedRow[], cron: ReadonlySet<string>, dryRun: boolean): string {
  const list =
    rows.length === 0
      ? "No agent-created skills to review."
      : [
          `Agent-created skills (${rows.length}):`,
          ...rows.map((row) => candidateLine(row, isCronReferenced(row.entry, cron))),
        ].join("\n");
  return [...(dryRun ? [DRY_RUN_BANNER, ""] : []), REVIEW_RULES, "", list].join("\n");
}
