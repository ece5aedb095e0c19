/**
 * The safety-net commands: `curator backup`, `curator rollback`, `curator purge`, and `curator ledger`
 * from `curator-ledger.ts`.
 * Shared by the CLI and every chat; each returns a `Reply` and never prints. Mutations run as the
 * context's actor (`user` from the CLI and chat).
 */
import path from "node:path";
import { CuratorError, errorCause, UsageError } from "../src/core/errors.js";
import {
  actorWord,
  cronBackupReasonWord,
  ledgerActionWord,
  snapshotReasonWord,
} from "../src/core/i18n/data-words.js";
import { displayTimeZone } from "../src/core/i18n/dates.js";
import { fixed, join, lines, type Text, t, when } from "../src/core/i18n/messages.js";
import { errorReply, type Reply, type ReplyBlock, reply, textReply } from "../src/core/reply.js";
import { findEntry, type LedgerEntry } from "../src/curator/ledger.js";
import { withRunLock } from "../src/curator/lock.js";
import { type PurgeCandidate, purgeArchived, purgeCandidates, purgeTtl } from "../src/curator/purge.js";
import { rollbackToSnapshot } from "../src/curator/rollback.js";
import { rollbackEntry } from "../src/curator/rollback-entry.js";
import {
  createSnapshot,
  listSnapshots,
  resolveSnapshot,
  type SnapshotInfo,
} from "../src/curator/snapshot.js";
import { ledgerCommand } from "./curator-ledger.js";
import {
  type CommandContext,
  type CommandInput,
  type CommandSpec,
  defineCommand,
  type OptionSpec,
  type OptionValues,
} from "./types.js";

/** `512 B`, `1.5 KB`, `3.2 MB`. */
export function formatSize(bytes: number): Text {
  if (bytes < 1024) return join([String(bytes), "B"], " ");
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return join([fixed(value, 1), units[unit] ?? ""], " ");
}

/** A string option's value, with an empty value counted as not given. */
function nonEmpty(value: string | undefined): string | undefined {
  return value === "" ? undefined : value;
}

/** Shows `~` for the user's home directory in paths shown to people. */
function tildify(p: string): string {
  const home = process.env.HOME;
  return home && (p === home || p.startsWith(`${home}${path.sep}`)) ? `~${p.slice(home.length)}` : p;
}

// ---------------------------------------------------------------- backup

const backupCommand = defineCommand({
  path: ["curator", "backup"],
  summary: t("cmd.summary.backup"),
  options: [
    {
      name: "reason",
      kind: "string",
      description: t("cmd.option.backup.reason"),
    },
  ],
  mutating: true,
  async run(ctx, input) {
    if (!ctx.config.curator.backup.enabled) {
      return errorReply(t("cmd.backup.disabled"));
    }
    try {
      const snapshot = await createSnapshot({
        home: ctx.home,
        config: ctx.config,
        reason: nonEmpty(input.options.reason) ?? "manual",
        now: ctx.now(),
        meter: ctx.meter,
      });
      const info = await resolveSnapshot(ctx.home, snapshot.id);
      return textReply(t("cmd.backup.done", { dir: tildify(snapshot.dir) }), {
        json: { ok: true, id: snapshot.id, dir: snapshot.dir, manifest: info?.manifest ?? null },
      });
    } catch (error) {
      return errorReply(t("cmd.backup.failed", { detail: errorCause(error) }));
    }
  },
});

// ---------------------------------------------------------------- rollback

function snapshotTable(ctx: CommandContext, snapshots: SnapshotInfo[]): ReplyBlock {
  const zone = displayTimeZone(ctx.config.gateway.timezone);
  return {
    kind: "table",
    headers: [
      t("cmd.col.id"),
      t("cmd.col.when"),
      t("cmd.col.reason"),
      t("cmd.col.skills"),
      t("cmd.col.size"),
    ],
    rows: snapshots.map((s) => [
      s.id,
      s.manifest?.created_at ? when(s.manifest.created_at, zone, ctx.now()) : "?",
      s.manifest ? snapshotReasonWord(s.manifest.reason.slice(0, 40)) : "?",
      String(s.manifest?.skill_files ?? "?"),
      s.manifest ? formatSize(s.manifest.archive_bytes) : "?",
    ]),
  };
}

function snapshotJson(s: SnapshotInfo) {
  return {
    id: s.id,
    dir: s.dir,
    reason: s.manifest?.reason ?? null,
    created_at: s.manifest?.created_at ?? null,
    skill_files: s.manifest?.skill_files ?? null,
    archive_bytes: s.manifest?.archive_bytes ?? null,
  };
}

function describeEntry(ctx: CommandContext, entry: LedgerEntry): Text {
  const files = new Set([...entry.before, ...entry.after].map((file) => file.path)).size;
  return t("cmd.rollback.entryTarget", {
    id: entry.id,
    action: ledgerActionWord(entry.action),
    skill: entry.skill,
    actor: actorWord(entry.actor),
    when: when(entry.ts, displayTimeZone(ctx.config.gateway.timezone), ctx.now()),
    files,
  });
}

function describeSnapshot(ctx: CommandContext, s: SnapshotInfo): Text {
  const cron = s.manifest?.cron_jobs;
  const cronLine = cron?.backed_up
    ? t("cmd.rollback.cronBackedUp", { count: cron.jobs_count ?? 0 })
    : t("cmd.rollback.cronMissing", {
        reason: cron?.reason ? cronBackupReasonWord(cron.reason) : t("cmd.rollback.unknown"),
      });
  return t("cmd.rollback.snapshotTarget", {
    id: s.id,
    reason: s.manifest ? snapshotReasonWord(s.manifest.reason) : "?",
    created: s.manifest?.created_at
      ? when(s.manifest.created_at, displayTimeZone(ctx.config.gateway.timezone), ctx.now())
      : "?",
    files: String(s.manifest?.skill_files ?? "?"),
    cron: cronLine,
  });
}

const ROLLBACK_OPTIONS = [
  { name: "list", kind: "boolean", description: t("cmd.option.rollback.list") },
  { name: "id", kind: "string", description: t("cmd.option.rollback.id") },
] as const satisfies readonly OptionSpec[];

function rollbackMode(
  input: CommandInput<OptionValues<typeof ROLLBACK_OPTIONS>>,
): { kind: "list" } | { kind: "entry"; id: string } | { kind: "snapshot"; id?: string } {
  const entryId = input.args[0];
  const snapshotId = nonEmpty(input.options.id);
  if (input.options.list === true) return { kind: "list" };
  if (entryId !== undefined && snapshotId !== undefined) throw new UsageError(t("cmd.rollback.both"));
  if (entryId !== undefined) return { kind: "entry", id: entryId };
  return { kind: "snapshot", id: snapshotId };
}

async function rollbackList(ctx: CommandContext): Promise<Reply> {
  const snapshots = await listSnapshots(ctx.home);
  if (snapshots.length === 0)
    return textReply(t("cmd.rollback.noSnapshots"), { json: { ok: true, snapshots: [] } });
  return reply([snapshotTable(ctx, snapshots)], {
    json: { ok: true, snapshots: snapshots.map(snapshotJson) },
  });
}

async function missingSnapshotReply(ctx: CommandContext, id: string | undefined): Promise<Reply> {
  const all = await listSnapshots(ctx.home);
  if (all.length === 0) {
    return errorReply(t("cmd.rollback.noneYet", { command: ctx.commandPrefix(["curator", "backup"]) }));
  }
  return reply(
    [{ kind: "paragraph", text: t("cmd.rollback.noMatch", { id: String(id) }) }, snapshotTable(ctx, all)],
    {
      exitCode: 1,
      json: { ok: false, error: `no snapshot matching id '${id}'`, snapshots: all.map(snapshotJson) },
    },
  );
}

const rollbackCommand = defineCommand({
  path: ["curator", "rollback"],
  summary: t("cmd.summary.rollback"),
  args: [{ name: "entry_id", description: t("cmd.arg.entryId") }],
  options: ROLLBACK_OPTIONS,
  mutating: true,
  async confirm(ctx, input) {
    const mode = rollbackMode(input);
    if (mode.kind === "list") return null;
    if (mode.kind === "entry") {
      const entry = await findEntry(ctx.home, mode.id);
      return entry ? t("cmd.rollback.entryConfirm", { target: describeEntry(ctx, entry) }) : null;
    }
    const target = await resolveSnapshot(ctx.home, mode.id);
    return target ? t("cmd.rollback.snapshotConfirm", { target: describeSnapshot(ctx, target) }) : null;
  },
  async run(ctx, input) {
    const mode = rollbackMode(input);
    if (mode.kind === "list") return rollbackList(ctx);
    if (mode.kind === "entry") {
      const entry = await findEntry(ctx.home, mode.id);
      if (!entry) {
        return errorReply(
          t("cmd.rollback.noEntry", { id: mode.id, command: ctx.commandPrefix(["curator", "ledger"]) }),
        );
      }
      try {
        const result = await withRunLock(
          ctx.home,
          () => rollbackEntry({ home: ctx.home, config: ctx.config, entryId: mode.id, actor: ctx.actor }),
          ctx.runLock,
        );
        ctx.library.invalidate();
        return textReply(t("cmd.curatorSays", { text: result.text }), {
          json: {
            ok: true,
            entry: entry.id,
            safety_entry: result.safetyEntryId,
            rollback_entry: result.rollbackEntryId,
            restored: result.restored,
            removed: result.removed,
          },
        });
      } catch (error) {
        return rollbackFailure(error);
      }
    }
    const target = await resolveSnapshot(ctx.home, mode.id);
    if (!target) return missingSnapshotReply(ctx, mode.id);
    try {
      const result = await withRunLock(
        ctx.home,
        () =>
          rollbackToSnapshot({
            home: ctx.home,
            config: ctx.config,
            id: target.id,
            now: ctx.now(),
            meter: ctx.meter,
          }),
        ctx.runLock,
      );
      ctx.library.invalidate();
      return textReply(t("cmd.curatorSays", { text: result.text }), {
        json: {
          ok: true,
          snapshot: result.target,
          safety_snapshot: result.safetySnapshot,
          cron: result.cron,
        },
      });
    } catch (error) {
      return rollbackFailure(error);
    }
  },
});

function rollbackFailure(error: unknown): Reply {
  if (error instanceof CuratorError) {
    return errorReply(t("cmd.rollback.failed", { detail: error.text }), 1, {
      ok: false,
      error: error.message,
      code: error.code,
    });
  }
  throw error;
}

// ---------------------------------------------------------------- purge

/** How purge tells where a package's age came from. */
const AGED_BY_LABEL: Record<PurgeCandidate["agedBy"], Text> = {
  archived_at: "archived_at",
  archive_stamp: t("cmd.purge.byStamp"),
  mtime: t("cmd.purge.byMtime"),
};

const purgeCommand = defineCommand({
  path: ["curator", "purge"],
  summary: t("cmd.summary.purge"),
  options: [
    { name: "days", kind: "integer", description: t("cmd.option.purge.days") },
    { name: "dry-run", kind: "boolean", description: t("cmd.option.purge.dryRun") },
  ],
  mutating: true,
  async confirm(ctx, input) {
    if (input.options["dry-run"] === true) return null;
    let ttl: number;
    try {
      ttl = purgeTtl(ctx.config, input.options.days);
    } catch {
      return null;
    }
    const candidates = await purgeCandidates(ctx.home, ttl, ctx.now());
    if (candidates.length === 0) return null;
    const rows = candidates.map((c) =>
      t("cmd.purge.confirmRow", { name: c.archivedAs, days: Math.floor(c.ageDays) }),
    );
    return t("cmd.purge.confirm", { days: ttl, rows: lines(rows), count: candidates.length });
  },
  async run(ctx, input) {
    const dryRun = input.options["dry-run"] === true;
    let result: Awaited<ReturnType<typeof purgeArchived>>;
    try {
      const purge = () =>
        purgeArchived({
          home: ctx.home,
          config: ctx.config,
          days: input.options.days,
          dryRun,
          actor: ctx.actor,
          now: ctx.now(),
          meter: ctx.meter,
        });
      result = dryRun ? await purge() : await withRunLock(ctx.home, purge, ctx.runLock);
    } catch (error) {
      if (error instanceof CuratorError && error.code === "curator.purge_disabled") {
        return errorReply(
          t("cmd.purge.disabled", { command: `${ctx.commandPrefix(["curator", "purge"])} --days N` }),
          1,
          { ok: false, error: error.message, code: error.code },
        );
      }
      throw error;
    }
    ctx.library.invalidate();
    const json = {
      ok: result.failures.length === 0,
      ttl_days: result.ttlDays,
      dry_run: dryRun,
      candidates: result.candidates.map((c) => ({
        archived_as: c.archivedAs,
        skill: c.skill,
        age_days: Math.floor(c.ageDays),
        aged_by: c.agedBy,
      })),
      purged: result.purged.map((p) => ({ archived_as: p.archivedAs, ledger_entry: p.ledgerEntry })),
      failures: result.failures,
    };
    if (!result.archiveExists) return textReply(t("cmd.purge.noArchive"), { json });
    if (result.candidates.length === 0)
      return textReply(t("cmd.purge.noneOlder", { days: result.ttlDays }), { json });
    const listing: ReplyBlock[] = [
      { kind: "paragraph", text: t("cmd.purge.heading", { days: result.ttlDays }) },
      {
        kind: "list",
        items: result.candidates.map((c) =>
          t("cmd.purge.row", {
            name: c.archivedAs,
            days: Math.floor(c.ageDays),
            by: AGED_BY_LABEL[c.agedBy],
          }),
        ),
      },
    ];
    if (dryRun) return reply([...listing, { kind: "paragraph", text: t("cmd.purge.dryRun") }], { json });
    const done = ctx.config.skills.ledger
      ? t("cmd.purge.done", {
          count: result.purged.length,
          command: ctx.commandPrefix(["curator", "rollback", "<id>"]),
        })
      : t("cmd.purge.doneNoLedger", { count: result.purged.length });
    const blocks: ReplyBlock[] = [{ kind: "paragraph", text: done }];
    if (result.failures.length > 0) {
      blocks.push(
        { kind: "paragraph", text: t("cmd.failures") },
        { kind: "list", items: result.failures.map((f) => `${f.archivedAs}: ${f.error}`) },
      );
    }
    return reply(blocks, { json, exitCode: result.failures.length > 0 ? 1 : 0 });
  },
});

/** The safety-net commands of the shared registry. */
export const safetyCommands: CommandSpec[] = [backupCommand, rollbackCommand, ledgerCommand, purgeCommand];
