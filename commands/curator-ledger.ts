/**
 * `curator ledger`: the audit log's newest entries, and for one skill (`--skill`) also the versions of its
 * SKILL.md read back from the log's blobs. Shared by the CLI and every chat; returns a `Reply`.
 */
import { UsageError } from "../src/core/errors.js";
import { actorWord, ledgerActionWord } from "../src/core/i18n/data-words.js";
import { displayTimeZone } from "../src/core/i18n/dates.js";
import { type Text, t, when } from "../src/core/i18n/messages.js";
import { type ReplyBlock, reply, textReply, withWarnings } from "../src/core/reply.js";
import { type LedgerEntry, listEntries, readLedger, skippedLinesWarning } from "../src/curator/ledger.js";
import { type SkillVersion, skillVersions } from "../src/curator/versions.js";
import { paged } from "./buttons.js";
import { type CommandContext, defineCommand } from "./types.js";

function ledgerSkill(entry: LedgerEntry): Text {
  const into = entry.evidence?.absorbed_into;
  if (typeof into === "string" && into !== "") return t("cmd.ledger.absorbed", { skill: entry.skill, into });
  const target = entry.evidence?.rollback_target;
  if (entry.action === "rollback" && typeof target === "string")
    return t("cmd.ledger.rollbackOf", { skill: entry.skill, target });
  return entry.skill;
}

/**
 * The version history of one skill, newest first: each logged change of its SKILL.md with the `version`
 * field it left ("—" without one), as the console's versions page lists it.
 */
function versionsTable(ctx: CommandContext, skill: string, versions: SkillVersion[]): ReplyBlock[] {
  const zone = displayTimeZone(ctx.config.gateway.timezone);
  const rows = [...versions]
    .reverse()
    .map((version) => [
      when(version.ts, zone, ctx.now()),
      version.digest === null ? t("cmd.ledger.versionRemoved") : (version.version ?? "—"),
      actorWord(version.actor),
      ledgerActionWord(version.action),
      version.entryId,
    ]);
  return [
    { kind: "paragraph", text: t("cmd.ledger.versionsHeading", { skill }) },
    {
      kind: "table",
      headers: [
        t("cmd.col.when"),
        t("cmd.col.version"),
        t("cmd.col.actor"),
        t("cmd.col.action"),
        t("cmd.col.id"),
      ],
      rows,
    },
  ];
}

/** `curator ledger [--skill name] [--limit N]`. */
export const ledgerCommand = defineCommand({
  path: ["curator", "ledger"],
  summary: t("cmd.summary.ledger"),
  options: [
    { name: "skill", kind: "string", description: t("cmd.option.ledger.skill") },
    { name: "limit", kind: "integer", description: t("cmd.option.ledger.limit") },
  ],
  mutating: false,
  async run(ctx, input) {
    const limit = input.options.limit ?? 20;
    if (limit < 1) throw new UsageError(t("cmd.ledger.badLimit", { limit: String(limit) }));
    const skill = input.options.skill === "" ? undefined : input.options.skill;
    const entries = await listEntries(ctx.home, { skill, limit });
    // One skill asked for: its SKILL.md versions too, read back from the ledger's blobs.
    const versions = skill ? await skillVersions(ctx.home, skill) : [];
    const skippedWarning = skippedLinesWarning((await readLedger(ctx.home)).skipped);
    const warnings = skippedWarning ? [skippedWarning] : [];
    if (entries.length === 0) {
      return withWarnings(
        textReply(t("cmd.ledger.empty"), {
          json: { ok: true, entries: [] },
        }),
        warnings,
      );
    }
    const rows = entries.map((entry) => [
      entry.id,
      when(entry.ts, displayTimeZone(ctx.config.gateway.timezone), ctx.now()),
      actorWord(entry.actor),
      ledgerActionWord(entry.action),
      ledgerSkill(entry),
    ]);
    const footer = t("cmd.ledger.footer", {
      undo: ctx.commandPrefix(["curator", "rollback", "<id>"]),
      snapshots: ctx.commandPrefix(["curator", "rollback", "--list"]),
    });
    const listed = withWarnings(
      reply(
        [
          {
            kind: "table",
            headers: [
              t("cmd.col.id"),
              t("cmd.col.when"),
              t("cmd.col.actor"),
              t("cmd.col.action"),
              t("cmd.col.skill"),
            ],
            rows,
          },
          ...(skill && versions.length > 0 ? versionsTable(ctx, skill, versions) : []),
          { kind: "paragraph", text: footer },
        ],
        { json: skill ? { ok: true, entries, versions } : { ok: true, entries } },
      ),
      warnings,
    );
    return paged(listed, 0, ["curator", "ledger"], input);
  },
});
