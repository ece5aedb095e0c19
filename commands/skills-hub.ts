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

import { checkWriteFence } from "../src/core/fence.js";
import { join, list, type Text, t } from "../src/core/i18n/messages.js";
import { type Reply, type ReplyBlock, reply, textReply } from "../src/core/reply.js";
import {
  type HubPlan,
  installPlan,
  locallyModified,
  planInstall,
  uninstallHubSkill,
} from "../src/curator/hub.js";
import { readHubLock, readHubLockForWrite, readTaps, writeTaps } from "../src/skills/hub/format.js";
import { fetchPackage, parseSourceRef, searchHub } from "../src/skills/hub/sources.js";
import { existingSkills, findingLines, hubEnv, verdictText, writeOptions } from "./skills-hub-support.js";
import { updateCommand } from "./skills-hub-update.js";
import type { CommandContext, CommandInput, CommandSpec } from "./types.js";
import { defineCommand } from "./types.js";

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

/** The card of an install: what would land. */
function installCard(plan: HubPlan): Text {
  const files = list(plan.pkg.files.map((f) => f.path).slice(0, 20));
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
        ? t("hub.uninstall.doneKept", { name, count: result.removed.length, kept: list(result.kept) })
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
