/**
 * Skills from a hub, in the terminal (`skillgate skills …`) and in chat (`/skills …`, admins for every
 * change): `skills hub search <query>`, `skills install <source>`, `skills update [<name>|--all]`,
 * `skills uninstall <name>`, `skills hub list`, `skills hub taps [add|remove]`. Install, update and
 * uninstall always ask first, showing what would land (name, source, version, files, the scan's verdict
 * and findings) — a question on a terminal, a confirmation card with a single-use Confirm button in chat,
 * a refusal without a terminal and without `-y`. A `dangerous` verdict is refused without asking.
 *
 * `runHubSearch` is exported for the library's own `skills search`, which hands its query to the hub
 * when it is given `--hub`.
 */

import path from "node:path";
import { checkWriteFence } from "../src/core/fence.js";
import { join, type Text, t } from "../src/core/i18n/messages.js";
import { type Reply, type ReplyBlock, reply, textReply } from "../src/core/reply.js";
import {
  type ExistingSkill,
  type HubPlan,
  installPlan,
  locallyModified,
  planInstall,
  uninstallHubSkill,
  updatePlan,
} from "../src/curator/hub.js";
import {
  contentHash,
  type HubLockEntry,
  normalizeInstallPath,
  readHubLock,
  readHubLockForWrite,
  readPackageFiles,
  readTaps,
  writeTaps,
} from "../src/skills/hub/format.js";
import {
  type FetchedPackage,
  fetchPackage,
  type HubEnv,
  type HubSourceRef,
  parseSourceRef,
  searchHub,
} from "../src/skills/hub/sources.js";
import type { CommandContext, CommandInput, CommandSpec } from "./types.js";
import { defineCommand } from "./types.js";

/** The `--hub` flag the library's `skills search` takes to search the hub instead. */
function hubEnv(ctx: CommandContext): HubEnv {
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

function writeOptions(ctx: CommandContext) {
  return {
    home: ctx.home,
    config: ctx.config,
    actor: ctx.actor === "web" ? ("web" as const) : ("user" as const),
    now: ctx.now,
    ...(ctx.operationId ? { operationId: ctx.operationId } : {}),
  };
}

/** Searches the taps and ClawHub; the reply lists what `skills install` takes. */
export async function runHubSearch(ctx: CommandContext, query: string, limit = 20): Promise<Reply> {
  const found = await searchHub(query, await readTaps(ctx.home), limit, hubEnv(ctx));
  const json = {
    ok: true,
    query,
    results: found.hits,
    failures: found.failures.map((f) => ({ hub: f.hub, reason: String(f.reason) })),
  };
  const blocks: ReplyBlock[] = [];
  if (found.hits.length === 0) blocks.push({ kind: "paragraph", text: t("hub.search.none", { query }) });
  else {
    blocks.push({ kind: "heading", text: t("hub.search.heading", { count: found.hits.length, query }) });
    blocks.push({
      kind: "table",
      headers: [
        t("hub.col.name"),
        t("hub.col.source"),
        t("hub.col.version"),
        t("hub.col.trust"),
        t("hub.col.install"),
      ],
      rows: found.hits.map((hit) => [
        hit.name,
        hit.source,
        hit.version ?? "",
        hit.trustLevel,
        hit.identifier,
      ]),
    });
    blocks.push({
      kind: "paragraph",
      text: t("hub.search.hint", { command: ctx.commandPrefix(["skills", "install"]) }),
    });
  }
  for (const failure of found.failures)
    blocks.push({
      kind: "paragraph",
      text: t("hub.search.failed", { hub: failure.hub, reason: failure.reason }),
    });
  return reply(blocks, { json });
}

async function existingSkills(ctx: CommandContext): Promise<ExistingSkill[]> {
  return (await ctx.library.all()).map((skill) => ({
    name: skill.name,
    ...(skill.rootKind === "local" ? { relPath: skill.relPath } : {}),
  }));
}

function findingLines(plan: HubPlan): Text[] {
  return plan.scan.findings.slice(0, 10).map((f) =>
    t("hub.finding", {
      severity: f.severity,
      file: f.line ? `${f.file}:${f.line}` : f.file,
      description: f.description,
      match: f.match,
    }),
  );
}

function verdictText(plan: HubPlan): Text {
  return t("hub.verdict", { verdict: plan.scan.verdict, count: plan.scan.findings.length });
}

/** The card of an install: what would land. */
function installCard(plan: HubPlan): Text {
  const files = plan.pkg.files
    .map((f) => f.path)
    .slice(0, 20)
    .join(", ");
  return t("hub.install.card", {
    name: plan.name,
    source: `${plan.pkg.source}:${plan.pkg.identifier}`,
    version: plan.pkg.version ?? "-",
    trust: plan.pkg.trustLevel,
    path: `skills/${plan.installPath}`,
    count: plan.pkg.files.length,
    files,
    verdict: verdictText(plan),
    findings: findingLines(plan).length > 0 ? join(["", ...findingLines(plan)], "\n  - ") : "",
  });
}

async function planFor(ctx: CommandContext, input: CommandInput): Promise<HubPlan> {
  const ref = parseSourceRef(input.args[0] ?? "");
  const pkg = await fetchPackage(ref, hubEnv(ctx));
  const name = typeof input.options.name === "string" ? input.options.name : undefined;
  const category = typeof input.options.category === "string" ? input.options.category : undefined;
  return planInstall(pkg, { ...(name ? { name } : {}), ...(category ? { category } : {}) });
}

function refusalOf(plan: HubPlan): Reply {
  const blocks: ReplyBlock[] = [
    {
      kind: "paragraph",
      text: t("hub.refusedDangerous", { name: plan.name, count: plan.scan.findings.length }),
    },
    { kind: "list", items: findingLines(plan) },
  ];
  return reply(blocks, {
    exitCode: 1,
    json: {
      ok: false,
      error: "dangerous",
      skill: plan.name,
      scan_verdict: "dangerous",
      findings: plan.scan.findings,
    },
  });
}

const installCommand = defineCommand({
  path: ["skills", "install"],
  summary: t("hub.summary.install"),
  args: [{ name: "source", description: t("hub.arg.source"), required: true }],
  options: [
    { name: "name", description: t("hub.opt.name"), kind: "string" },
    { name: "category", description: t("hub.opt.category"), kind: "string" },
  ] as const,
  mutating: true,
  async confirm(ctx, input) {
    const plan = await planFor(ctx, input as CommandInput);
    if (plan.scan.verdict === "dangerous") return null;
    return installCard(plan);
  },
  async run(ctx, input) {
    const plan = await planFor(ctx, input as CommandInput);
    if (plan.scan.verdict === "dangerous") {
      await installPlan(writeOptions(ctx), plan, await existingSkills(ctx)).catch(() => undefined);
      return refusalOf(plan);
    }
    const entry = await installPlan(writeOptions(ctx), plan, await existingSkills(ctx));
    ctx.library.invalidate();
    return textReply(
      t("hub.install.done", {
        name: plan.name,
        path: `skills/${entry.install_path}`,
        verdict: entry.scan_verdict,
        hash: entry.content_hash,
      }),
      { json: { ok: true, skill: plan.name, ...entry } },
    );
  },
});

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
          added: added.join(", ") || "-",
          removed: removed.join(", ") || "-",
          changed: check.changed?.join(", ") || "-",
          verdict: verdictText(plan),
        }),
      );
      for (const line of check.diff ?? []) out.push(`    ${line}`);
      for (const finding of findingLines(plan)) out.push(finding);
    }
  }
  return out;
}

const updateCommand = defineCommand({
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

const uninstallCommand = defineCommand({
  path: ["skills", "uninstall"],
  summary: t("hub.summary.uninstall"),
  args: [{ name: "name", description: t("cmd.arg.skillName"), required: true }],
  mutating: true,
  async confirm(ctx, input) {
    const name = input.args[0] ?? "";
    const read = await readHubLock(ctx.home);
    const entry = read.ok ? read.lock.installed[name] : undefined;
    if (!entry) return null;
    const modified = await locallyModified(ctx.home, name, entry).catch(() => false);
    return t("hub.uninstall.card", {
      name,
      source: `${entry.source}:${entry.identifier}`,
      path: `skills/${entry.install_path}`,
      count: entry.files.length,
      note: modified ? t("hub.uninstall.modified") : "",
    });
  },
  async run(ctx, input) {
    const name = input.args[0] ?? "";
    const result = await uninstallHubSkill(writeOptions(ctx), name);
    ctx.library.invalidate();
    const text =
      result.kept.length > 0
        ? t("hub.uninstall.doneKept", { name, count: result.removed.length, kept: result.kept.join(", ") })
        : t("hub.uninstall.done", { name, count: result.removed.length });
    return textReply(text, { json: { ok: true, skill: name, removed: result.removed, kept: result.kept } });
  },
});

async function listHub(ctx: CommandContext): Promise<Reply> {
  const read = await readHubLock(ctx.home);
  if (!read.ok) await readHubLockForWrite(ctx.home);
  const rows = Object.entries(read.ok ? read.lock.installed : {}).map(([name, entry]) => ({
    name,
    ...entry,
  }));
  const json = {
    ok: true,
    installed: rows.map((row) => ({
      name: row.name,
      source: row.source,
      identifier: row.identifier,
      version: row.metadata?.version ?? null,
      trust_level: row.trust_level,
      scan_verdict: row.scan_verdict,
      content_hash: row.content_hash,
      install_path: row.install_path,
      installed_at: row.installed_at,
      updated_at: row.updated_at,
    })),
  };
  if (rows.length === 0) return textReply(t("hub.list.none"), { json });
  return reply(
    [
      { kind: "heading", text: t("hub.list.heading", { count: rows.length }) },
      {
        kind: "table",
        headers: [
          t("hub.col.name"),
          t("hub.col.source"),
          t("hub.col.version"),
          t("hub.col.verdict"),
          t("hub.col.path"),
        ],
        rows: rows.map((row) => [
          row.name,
          `${row.source}:${row.identifier}`,
          String(row.metadata?.version ?? "-"),
          row.scan_verdict,
          row.install_path,
        ]),
      },
    ],
    { json },
  );
}

async function listTaps(ctx: CommandContext): Promise<Reply> {
  const taps = await readTaps(ctx.home);
  if (taps.length === 0)
    return textReply(t("hub.taps.none", { command: ctx.commandPrefix(["skills", "hub", "taps", "add"]) }), {
      json: { ok: true, taps },
    });
  return reply([{ kind: "list", items: taps.map((tap) => `${tap.repo} ${tap.path}`) }], {
    json: { ok: true, taps },
  });
}

async function addTap(ctx: CommandContext, repo: string, tapPathArg: string | undefined): Promise<Reply> {
  if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repo))
    return textReply(t("hub.taps.badRepo", { repo }), { exitCode: 2 });
  const tapPath = tapPathArg ?? "skills/";
  const taps = await readTaps(ctx.home);
  if (taps.some((tap) => tap.repo === repo))
    return textReply(t("hub.taps.exists", { repo }), { json: { ok: true, added: false } });
  await checkWriteFence(ctx.home, t("fence.what.hubTaps"));
  await writeTaps(ctx.home, [...taps, { repo, path: tapPath }]);
  return textReply(t("hub.taps.added", { repo, path: tapPath }), { json: { ok: true, added: true } });
}

async function removeTap(ctx: CommandContext, repo: string): Promise<Reply> {
  const taps = await readTaps(ctx.home);
  if (!taps.some((tap) => tap.repo === repo))
    return textReply(t("hub.taps.missing", { repo }), { exitCode: 1 });
  await checkWriteFence(ctx.home, t("fence.what.hubTaps"));
  await writeTaps(
    ctx.home,
    taps.filter((tap) => tap.repo !== repo),
  );
  return textReply(t("hub.taps.removed", { repo }), { json: { ok: true, removed: true } });
}

/** `skills hub taps add|remove …` changes the taps; every other `skills hub …` only reads. */
function hubMutates(input: CommandInput): boolean {
  return input.args[0] === "taps" && (input.args[1] === "add" || input.args[1] === "remove");
}

const hubCommand = defineCommand({
  path: ["skills", "hub"],
  summary: t("hub.summary.hub"),
  args: [
    { name: "action", description: t("hub.arg.action") },
    { name: "words", description: t("hub.arg.words"), variadic: true },
  ],
  options: [{ name: "limit", description: t("hub.opt.limit"), kind: "integer" }] as const,
  mutating: false,
  mutatesFor: hubMutates,
  async run(ctx, input) {
    const [action = "list", ...words] = input.args;
    if (action === "list") return listHub(ctx);
    if (action === "search" && words.length > 0)
      return runHubSearch(ctx, words.join(" "), input.options.limit ?? 20);
    if (action === "taps" && (words[0] === undefined || words[0] === "list")) return listTaps(ctx);
    if (action === "taps" && words[0] === "add" && words[1]) return addTap(ctx, words[1], words[2]);
    if (action === "taps" && words[0] === "remove" && words[1]) return removeTap(ctx, words[1]);
    return textReply(t("hub.usage", { command: ctx.commandPrefix(["skills", "hub"]) }), { exitCode: 2 });
  },
});

/** The hub's commands. */
export const skillsHubCommands: CommandSpec[] = [installCommand, updateCommand, uninstallCommand, hubCommand];
