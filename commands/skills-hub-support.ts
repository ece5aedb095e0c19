/** What the hub commands share: the hub's network settings, the write options, and a scan's findings as text. */
import { type Text, t } from "../src/core/i18n/messages.js";
import type { ExistingSkill, HubPlan } from "../src/curator/hub.js";
import type { HubEnv } from "../src/skills/hub/sources.js";
import type { CommandContext } from "./types.js";

/** The hub's network settings from the config, and the GitHub token from the environment when one is set. */
export function hubEnv(ctx: CommandContext): HubEnv {
  const hub = ctx.config.skills.hub;
  const token = process.env.GITHUB_TOKEN ?? process.env.GH_TOKEN;
  return {
    allowedHosts: hub.allowedHosts,
    githubApi: hub.githubApi,
    clawhubApi: hub.clawhubApi,
    ...(token ? { githubToken: token } : {}),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  };
}

/** What every hub change writes with: the home, the config, who acts and the operation id. */
export function writeOptions(ctx: CommandContext) {
  return {
    home: ctx.home,
    config: ctx.config,
    actor: ctx.actor === "web" ? ("web" as const) : ("user" as const),
    now: ctx.now,
    ...(ctx.operationId ? { operationId: ctx.operationId } : {}),
  };
}

/** The library's skills, each with its folder when it is a local one: an install never replaces them. */
export async function existingSkills(ctx: CommandContext): Promise<ExistingSkill[]> {
  return (await ctx.library.all()).map((skill) => ({
    name: skill.name,
    ...(skill.rootKind === "local" ? { relPath: skill.relPath } : {}),
  }));
}

/** The scan's first ten findings, a line each. */
export function findingLines(plan: HubPlan): Text[] {
  return plan.scan.findings.slice(0, 10).map((f) =>
    t("hub.finding", {
      severity: f.severity,
      file: f.line ? `${f.file}:${f.line}` : f.file,
      description: f.description,
      match: f.match,
    }),
  );
}

/** The scan's verdict and how many findings it had. */
export function verdictText(plan: HubPlan): Text {
  return t("hub.verdict", { verdict: plan.scan.verdict, count: plan.scan.findings.length });
}
