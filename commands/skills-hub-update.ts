/**
 * `skills update [<name>|--all] [--force]`: downloads each hub skill again, shows what changed (files, and
 * the lines of SKILL.md that went and came) with the new scan, and replaces only what is still as it
 * was installed unless forced.
 */
import path from "node:path";
import { join, list, type Text, t } from "../src/core/i18n/messages.js";
import { reply, textReply } from "../src/core/reply.js";
import { planInstall, updatePlan } from "../src/curator/hub.js";
import {
  contentHash,
  type HubLockEntry,
  normalizeInstallPath,
  readHubLock,
  readHubLockForWrite,
  readPackageFiles,
} from "../src/skills/hub/format.js";
import {
  type FetchedPackage,
  fetchPackage,
  type HubSourceRef,
  parseSourceRef,
} from "../src/skills/hub/sources.js";
import { existingSkills, findingLines, hubEnv, verdictText, writeOptions } from "./skills-hub-support.js";
import type { CommandContext, CommandInput } from "./types.js";
import { defineCommand } from "./types.js";

/** One hub skill's update: the new download, and what changed. */
interface UpdateCheck {
  name: string;
  entry: HubLockEntry;
  pkg?: FetchedPackage;
  latestHash?: string;
  /** Files present before and after whose bytes differ. */
  changed?: string[];
  /** Lines of SKILL.md that went (`- `) and came (`+ `), at most 12. */
  diff?: string[];
  error?: Text;
}

/** The lines of `before` missing from `after` (`- `) and the other way round (`+ `), at most `limit`. */
function lineChanges(before: string, after: string, limit = 12): string[] {
  const old = before.split("\n");
  const neu = after.split("\n");
  const oldSet = new Set(old);
  const newSet = new Set(neu);
  const out = [
    ...old.filter((line) => !newSet.has(line)).map((line) => `- ${line}`),
    ...neu.filter((line) => !oldSet.has(line)).map((line) => `+ ${line}`),
  ];
  return out.slice(0, limit);
}

async function checkUpdates(ctx: CommandContext, input: CommandInput): Promise<UpdateCheck[]> {
  const read = await readHubLock(ctx.home);
  if (!read.ok) await readHubLockForWrite(ctx.home);
  const installed = read.ok ? read.lock.installed : {};
  const wanted = input.args[0];
  if (!wanted && input.options.all !== true) return [];
  const names = wanted ? [wanted] : Object.keys(installed);
  const checks: UpdateCheck[] = [];
  for (const name of names) {
    const entry = installed[name];
    if (!entry) {
      checks.push({ name, entry: undefined as unknown as HubLockEntry, error: t("hub.notHub", { name }) });
      continue;
    }
    try {
      const ref: HubSourceRef =
        entry.source === "clawhub"
          ? { kind: "clawhub", identifier: entry.identifier }
          : entry.source === "url"
            ? { kind: "url", identifier: entry.identifier }
            : parseSourceRef(entry.identifier);
      const pkg = await fetchPackage(ref, hubEnv(ctx));
      const dir = path.join(ctx.paths.skills, normalizeInstallPath(entry.install_path, name));
      const installed = new Map(
        (await readPackageFiles(dir).catch(() => [])).map((file) => [file.path, file.bytes]),
      );
      const changed = pkg.files
        .filter((file) => installed.has(file.path) && !installed.get(file.path)?.equals(file.bytes))
        .map((file) => file.path);
      const newSkillMd = pkg.files.find((file) => file.path === "SKILL.md")?.bytes.toString("utf8") ?? "";
      const diff = lineChanges(installed.get("SKILL.md")?.toString("utf8") ?? "", newSkillMd);
      checks.push({ name, entry, pkg, latestHash: contentHash(pkg.files), changed, diff });
    } catch (error) {
      checks.push({ name, entry, error: (error as { text?: Text }).text ?? String(error) });
    }
  }
  return checks;
}

function updateLines(checks: UpdateCheck[]): Text[] {
  const out: Text[] = [];
  for (const check of checks) {
    if (check.error) out.push(t("hub.update.unavailable", { name: check.name, reason: check.error }));
    else if (check.latestHash === check.entry.content_hash)
      out.push(t("hub.update.upToDate", { name: check.name }));
    else if (check.pkg) {
      const plan = planInstall(check.pkg, { name: check.name });
      const before = new Set(check.entry.files);
      const after = new Set(check.pkg.files.map((f) => f.path));
      const added = [...after].filter((f) => !before.has(f));
      const removed = [...before].filter((f) => !after.has(f));
      out.push(
        t("hub.update.changed", {
          name: check.name,
          from: check.entry.content_hash,
          to: check.latestHash ?? "",
          version: `${String(check.entry.metadata?.version ?? "-")} → ${check.pkg.version ?? "-"}`,
          added: added.length > 0 ? list(added) : "-",
          removed: removed.length > 0 ? list(removed) : "-",
          changed: check.changed?.length ? list(check.changed) : "-",
          verdict: verdictText(plan),
        }),
      );
      for (const line of check.diff ?? []) out.push(`    ${line}`);
      for (const finding of findingLines(plan)) out.push(finding);
    }
  }
  return out;
}

/** `skills update`. */
export const updateCommand = defineCommand({
  path: ["skills", "update"],
  summary: t("hub.summary.update"),
  args: [{ name: "name", description: t("cmd.arg.skillName") }],
  options: [
    { name: "all", description: t("hub.opt.all"), kind: "boolean" },
    { name: "force", description: t("hub.opt.force"), kind: "boolean" },
  ] as const,
  mutating: true,
  async confirm(ctx, input) {
    const checks = await checkUpdates(ctx, input as CommandInput).catch(() => []);
    const changed = checks.filter((c) => !c.error && c.latestHash !== c.entry.content_hash);
    if (changed.length === 0) return null;
    return t("hub.update.card", {
      lines: join(["", ...updateLines(changed)], "\n  "),
    });
  },
  async run(ctx, input) {
    if (!input.args[0] && input.options.all !== true)
      return textReply(t("hub.update.which"), { exitCode: 2 });
    const checks = await checkUpdates(ctx, input as CommandInput);
    const results: Array<Record<string, unknown>> = [];
    const texts: Text[] = [];
    for (const check of checks) {
      if (check.error || !check.pkg || check.latestHash === check.entry.content_hash) {
        texts.push(...updateLines([check]));
        results.push({ name: check.name, status: check.error ? "unavailable" : "up_to_date" });
        continue;
      }
      const plan = planInstall(check.pkg, { name: check.name });
      if (plan.scan.verdict === "dangerous") {
        texts.push(t("hub.refusedDangerous", { name: check.name, count: plan.scan.findings.length }));
        results.push({ name: check.name, status: "refused", scan_verdict: "dangerous" });
        continue;
      }
      try {
        const entry = await updatePlan(writeOptions(ctx), plan, {
          force: input.options.force === true,
          existing: await existingSkills(ctx),
        });
        texts.push(
          t("hub.update.done", {
            name: check.name,
            from: check.entry.content_hash,
            to: entry.content_hash,
            verdict: entry.scan_verdict,
          }),
        );
        results.push({
          name: check.name,
          status: "updated",
          previous_hash: check.entry.content_hash,
          content_hash: entry.content_hash,
        });
      } catch (error) {
        texts.push((error as { text?: Text }).text ?? String(error));
        results.push({ name: check.name, status: "failed", error: (error as Error).message });
      }
    }
    ctx.library.invalidate();
    const failed = results.some((r) => r.status === "failed" || r.status === "refused");
    return reply([{ kind: "list", items: texts }], {
      exitCode: failed ? 1 : 0,
      json: { ok: !failed, results },
    });
  },
});
