/**
 * The safety-net commands: `curator backup`, `curator rollback`, `curator ledger`, `curator purge`.
 * Shared by the CLI and every chat; each returns a `Reply` and never prints. Mutations run as the
 * context's actor (`user` from the CLI and chat).
 */
import path from "node:path";
import { CuratorError, UsageError } from "../src/core/errors.js";
import {
  errorReply,
  type Reply,
  type ReplyBlock,
  reply,
  textReply,
  withWarnings,
} from "../src/core/reply.js";
import {
  findEntry,
  type LedgerEntry,
  listEntries,
  readLedger,
  skippedLinesWarning,
} from "../src/curator/ledger.js";
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
import { paged } from "./buttons.js";
import {
  type CommandContext,
  type CommandInput,
  type CommandSpec,
  defineCommand,
  type OptionSpec,
  type OptionValues,
} from "./types.js";

/** `512 B`, `1.5 KB`, `3.2 MB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
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
  summary: "take a snapshot of the whole skill library now",
  options: [
    {
      name: "reason",
      kind: "string",
      description: "why (stored in the snapshot's manifest; default `manual`)",
    },
  ],
  mutating: true,
  async run(ctx, input) {
    if (!ctx.config.curator.backup.enabled) {
      return errorReply(
        "curator: backups are disabled via config (`curator.backup.enabled: false`); re-enable them to take a snapshot.",
      );
    }
    try {
      const snapshot = await createSnapshot({
        home: ctx.home,
        config: ctx.config,
        reason: nonEmpty(input.options.reason) ?? "manual",
        now: ctx.now(),
      });
      const info = await resolveSnapshot(ctx.home, snapshot.id);
      return textReply(`curator: snapshot created at ${tildify(snapshot.dir)}`, {
        json: { ok: true, id: snapshot.id, dir: snapshot.dir, manifest: info?.manifest ?? null },
      });
    } catch (error) {
      return errorReply(`curator: snapshot failed — ${(error as Error).message}`);
    }
  },
});

// ---------------------------------------------------------------- rollback

function snapshotTable(snapshots: SnapshotInfo[]): ReplyBlock {
  return {
    kind: "table",
    headers: ["id", "reason", "skills", "size"],
    rows: snapshots.map((s) => [
      s.id,
      (s.manifest?.reason ?? "?").slice(0, 40),
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

function describeEntry(entry: LedgerEntry): string {
  const files = new Set([...entry.before, ...entry.after].map((file) => file.path)).size;
  return [
    `Rollback target: ledger entry ${entry.id}`,
    `  action: ${entry.action}`,
    `  skill:  ${entry.skill}`,
    `  actor:  ${entry.actor}`,
    `  when:   ${entry.ts}`,
    `  files:  ${files}`,
  ].join("\n");
}

function describeSnapshot(s: SnapshotInfo): string {
  const cron = s.manifest?.cron_jobs;
  const cronLine = cron?.backed_up
    ? `${cron.jobs_count ?? 0} (only their skill links will be restored)`
    : `not in snapshot (${cron?.reason ?? "unknown"})`;
  return [
    `Rollback target: snapshot ${s.id}`,
    `  reason:      ${s.manifest?.reason ?? "?"}`,
    `  created_at:  ${s.manifest?.created_at ?? "?"}`,
    `  skill files: ${s.manifest?.skill_files ?? "?"}`,
    `  cron jobs:   ${cronLine}`,
    "Every skill, the usage data and the archive go back to this snapshot; a safety snapshot of the current state is taken first.",
  ].join("\n");
}

const ROLLBACK_OPTIONS = [
  { name: "list", kind: "boolean", description: "list snapshots" },
  { name: "id", kind: "string", description: "snapshot id to restore (default: the newest)" },
] as const satisfies readonly OptionSpec[];

function rollbackMode(
  input: CommandInput<OptionValues<typeof ROLLBACK_OPTIONS>>,
): { kind: "list" } | { kind: "entry"; id: string } | { kind: "snapshot"; id?: string } {
  const entryId = input.args[0];
  const snapshotId = nonEmpty(input.options.id);
  if (input.options.list === true) return { kind: "list" };
  if (entryId !== undefined && snapshotId !== undefined)
    throw new UsageError("pass either a ledger ENTRY_ID or --id SNAPSHOT, not both.");
  if (entryId !== undefined) return { kind: "entry", id: entryId };
  return { kind: "snapshot", id: snapshotId };
}

async function rollbackList(ctx: CommandContext): Promise<Reply> {
  const snapshots = await listSnapshots(ctx.home);
  if (snapshots.length === 0)
    return textReply("No curator snapshots yet.", { json: { ok: true, snapshots: [] } });
  return reply([snapshotTable(snapshots)], { json: { ok: true, snapshots: snapshots.map(snapshotJson) } });
}

async function missingSnapshotReply(ctx: CommandContext, id: string | undefined): Promise<Reply> {
  const all = await listSnapshots(ctx.home);
  if (all.length === 0) {
    return errorReply(
      `curator: no snapshots exist yet. Take one with \`${ctx.commandPrefix(["curator", "backup"])}\` or wait for the next curator run.`,
    );
  }
  return reply(
    [{ kind: "paragraph", text: `curator: no snapshot matching id '${id}'. Available:` }, snapshotTable(all)],
    {
      exitCode: 1,
      json: { ok: false, error: `no snapshot matching id '${id}'`, snapshots: all.map(snapshotJson) },
    },
  );
}

const rollbackCommand = defineCommand({
  path: ["curator", "rollback"],
  summary: "undo one ledger entry, or restore the whole library from a snapshot",
  args: [{ name: "entry_id", description: "ledger entry to undo (see `curator ledger`)" }],
  options: ROLLBACK_OPTIONS,
  mutating: true,
  async confirm(ctx, input) {
    const mode = rollbackMode(input);
    if (mode.kind === "list") return null;
    if (mode.kind === "entry") {
      const entry = await findEntry(ctx.home, mode.id);
      return entry ? `${describeEntry(entry)}\nRestore this mutation's before-state?` : null;
    }
    const target = await resolveSnapshot(ctx.home, mode.id);
    return target ? `${describeSnapshot(target)}\nProceed?` : null;
  },
  async run(ctx, input) {
    const mode = rollbackMode(input);
    if (mode.kind === "list") return rollbackList(ctx);
    if (mode.kind === "entry") {
      const entry = await findEntry(ctx.home, mode.id);
      if (!entry) {
        return errorReply(
          `curator: no ledger entry '${mode.id}'. See \`${ctx.commandPrefix(["curator", "ledger"])}\` for entry ids.`,
        );
      }
      try {
        const result = await withRunLock(
          ctx.home,
          () => rollbackEntry({ home: ctx.home, config: ctx.config, entryId: mode.id, actor: ctx.actor }),
          ctx.runLock,
        );
        ctx.library.invalidate();
        return textReply(`curator: ${result.message}`, {
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
        () => rollbackToSnapshot({ home: ctx.home, config: ctx.config, id: target.id, now: ctx.now() }),
        ctx.runLock,
      );
      ctx.library.invalidate();
      return textReply(`curator: ${result.message}`, {
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
    return errorReply(`curator: rollback failed — ${error.message}`, 1, {
      ok: false,
      error: error.message,
      code: error.code,
    });
  }
  throw error;
}

// ---------------------------------------------------------------- ledger

function ledgerSuffix(entry: LedgerEntry): string {
  const into = entry.evidence?.absorbed_into;
  if (typeof into === "string" && into !== "") return `  → absorbed into '${into}'`;
  const target = entry.evidence?.rollback_target;
  if (entry.action === "rollback" && typeof target === "string") return `  → rollback of ${target}`;
  return "";
}

function shortWhen(ts: string): string {
  return ts.replace("T", " ").slice(5, 16);
}

const ledgerCommand = defineCommand({
  path: ["curator", "ledger"],
  summary: "show the audit ledger of library changes, newest first",
  options: [
    { name: "skill", kind: "string", description: "only entries for this skill" },
    { name: "limit", kind: "integer", description: "at most N entries (default 20)" },
  ],
  mutating: false,
  async run(ctx, input) {
    const limit = input.options.limit ?? 20;
    if (limit < 1) throw new UsageError(`--limit must be >= 1 (got ${limit}).`);
    const entries = await listEntries(ctx.home, { skill: nonEmpty(input.options.skill), limit });
    const skippedWarning = skippedLinesWarning((await readLedger(ctx.home)).skipped);
    const warnings = skippedWarning ? [skippedWarning] : [];
    if (entries.length === 0) {
      return withWarnings(
        textReply("curator: ledger is empty (or skills.ledger is disabled).", {
          json: { ok: true, entries: [] },
        }),
        warnings,
      );
    }
    const rows = entries.map((entry) => [
      entry.id,
      shortWhen(entry.ts),
      entry.actor,
      entry.action,
      `${entry.skill}${ledgerSuffix(entry)}`,
    ]);
    const footer = `Undo one change with \`${ctx.commandPrefix(["curator", "rollback", "<id>"])}\`; whole-library snapshots: \`${ctx.commandPrefix(["curator", "rollback", "--list"])}\`.`;
    const listed = withWarnings(
      reply(
        [
          { kind: "table", headers: ["id", "when", "actor", "action", "skill"], rows },
          { kind: "paragraph", text: footer },
        ],
        { json: { ok: true, entries } },
      ),
      warnings,
    );
    return paged(listed, 0, ["curator", "ledger"], input);
  },
});

// ---------------------------------------------------------------- purge

/** How purge tells where a package's age came from. */
const AGED_BY_LABEL: Record<PurgeCandidate["agedBy"], string> = {
  archived_at: "archived_at",
  archive_stamp: "archive suffix",
  mtime: "folder time",
};

const purgeCommand = defineCommand({
  path: ["curator", "purge"],
  summary: "permanently delete archived skills older than N days (each one ledgered first)",
  options: [
    {
      name: "days",
      kind: "integer",
      description: "age threshold in days (default curator.archive_ttl_days)",
    },
    { name: "dry-run", kind: "boolean", description: "list what would be deleted, change nothing" },
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
    const lines = candidates.map((c) => `  ${c.archivedAs}  (${Math.floor(c.ageDays)}d)`);
    return `Archived skills older than ${ttl}d:\n${lines.join("\n")}\nPermanently delete ${candidates.length} archived skill(s)?`;
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
        });
      result = dryRun ? await purge() : await withRunLock(ctx.home, purge, ctx.runLock);
    } catch (error) {
      if (error instanceof CuratorError && error.code === "curator.purge_disabled") {
        return errorReply(
          `curator: purge disabled (curator.archive_ttl_days is 0). Set that key or pass \`${ctx.commandPrefix(["curator", "purge"])} --days N\` to delete archives older than N days.`,
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
    if (!result.archiveExists)
      return textReply("curator: no archive directory — nothing to purge.", { json });
    if (result.candidates.length === 0)
      return textReply(`curator: no archived skills older than ${result.ttlDays}d.`, { json });
    const listing: ReplyBlock[] = [
      { kind: "paragraph", text: `Archived skills older than ${result.ttlDays}d:` },
      {
        kind: "list",
        items: result.candidates.map(
          (c) => `${c.archivedAs} (${Math.floor(c.ageDays)}d, by ${AGED_BY_LABEL[c.agedBy]})`,
        ),
      },
    ];
    if (dryRun)
      return reply([...listing, { kind: "paragraph", text: "(dry run — nothing deleted)" }], { json });
    const done = ctx.config.skills.ledger
      ? `curator: purged ${result.purged.length} archived skill(s). Ledger entries recorded; undo one with \`${ctx.commandPrefix(["curator", "rollback", "<id>"])}\`.`
      : `curator: purged ${result.purged.length} archived skill(s). The ledger is disabled (skills.ledger: false), so this cannot be undone.`;
    const blocks: ReplyBlock[] = [{ kind: "paragraph", text: done }];
    if (result.failures.length > 0) {
      blocks.push(
        { kind: "paragraph", text: "failures:" },
        { kind: "list", items: result.failures.map((f) => `${f.archivedAs}: ${f.error}`) },
      );
    }
    return reply(blocks, { json, exitCode: result.failures.length > 0 ? 1 : 0 });
  },
});

/** The safety-net commands of the shared registry. */
export const safetyCommands: CommandSpec[] = [backupCommand, rollbackCommand, ledgerCommand, purgeCommand];
