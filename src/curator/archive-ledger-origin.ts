/**
 * Where the ledger says an archived folder's package was archived from: the fallback of `listArchived`
 * when no origin record belongs to the archive (Hermes archived it, or a record is older than the
 * folder identity). Hermes' archive keeps no category — it moves the folder flat to `.archive/<dir>`
 * and restores it flat (`tools/skill_usage.py`, `archive_skill` / `restore_skill`, in
 * NousResearch/hermes-agent) — so its ledger's `archive` line, whose `before` names the live
 * `SKILL.md` and whose `after` names the one under `.archive/<dir>` (`tools/skill_ledger.py`,
 * `append_entry`), is the only record of the category it left. skillgate's own archive lines have
 * the same shape.
 */
import type { LedgerEntry } from "./ledger.js";

/** The newest ledgered move of a package into one archive folder. */
export interface LedgerArchiveMove {
  /** Where it lived, relative to skills/ (`category/name` or `name`); null when the line does not say. */
  from: string | null;
  /** sha256 of the `SKILL.md` it put there. */
  skillMd: string | undefined;
  /** The line's time stamp. */
  ts: string;
}

/** Matches an archived package's `SKILL.md`: the skills folder it was recorded under, and the folder. */
const ARCHIVED_SKILL_MD = /^(.*)\/\.archive\/([^/]+)\/SKILL\.md$/;

/** The path with forward slashes, so one pattern reads ledgers written on any system. */
function posix(file: string): string {
  return file.split("\\").join("/");
}

/**
 * For each flat archive folder, the newest ledger line (`entries` oldest first) that moved a package
 * into it, unless a later line moved it out again (a restore, a purge, a rollback). A line that writes
 * the same archived `SKILL.md` before and after (a `pre-rollback` capture) moves nothing.
 */
export function lastArchiveMoves(entries: readonly LedgerEntry[]): Map<string, LedgerArchiveMove> {
  const moves = new Map<string, LedgerArchiveMove>();
  for (const entry of entries) {
    const before = new Set(entry.before.map((file) => posix(file.path)));
    const after = new Set(entry.after.map((file) => posix(file.path)));
    for (const file of entry.before) {
      const match = ARCHIVED_SKILL_MD.exec(posix(file.path));
      if (match && !after.has(posix(file.path))) moves.delete(match[2] as string);
    }
    for (const file of entry.after) {
      const match = ARCHIVED_SKILL_MD.exec(posix(file.path));
      if (!match || before.has(posix(file.path))) continue;
      moves.set(match[2] as string, {
        from: livePlace(entry, `${match[1]}/`),
        skillMd: "sha256" in file ? file.sha256 : undefined,
        ts: entry.ts,
      });
    }
  }
  return moves;
}

/**
 * The live place (relative to `skillsRoot`) whose `SKILL.md` the line's `before` names: the shortest one,
 * as a Hermes capture may also list a snapshot's copy nested under the package.
 */
function livePlace(entry: LedgerEntry, skillsRoot: string): string | null {
  const places = entry.before
    .map((file) => posix(file.path))
    .filter((file) => file.startsWith(skillsRoot) && file.endsWith("/SKILL.md"))
    .map((file) => file.slice(skillsRoot.length, -"/SKILL.md".length))
    .filter((rel) => rel !== "" && !rel.split("/").some((part) => part.startsWith(".") || part === ""));
  places.sort((a, b) => a.split("/").length - b.split("/").length || a.localeCompare(b));
  return places[0] ?? null;
}

/**
 * How much older than the skill's `archived_at` the ledger line of the same archive may be. Both
 * programs set `archived_at` and then write the line (skillgate stamps a batch's lines when the batch
 * begins, Hermes just after), so the line is never much older; an archive made later without a ledger
 * line (a Hermes without the ledger, or with it turned off) has a newer `archived_at`.
 */
const LEDGER_SLACK_MS = 60_000;

/**
 * True when `move` describes the archive now in its folder: the `SKILL.md` it put there is the one there
 * now, and the skill was not archived again since (its usage `archived_at`, when there is one, is not
 * newer than the line).
 */
export function ledgerMoveApplies(
  move: LedgerArchiveMove,
  digest: string | undefined,
  archivedAt: string | null | undefined,
): boolean {
  if (move.from === null || move.skillMd === undefined || move.skillMd !== digest) return false;
  const archived = archivedAt ? Date.parse(archivedAt) : Number.NaN;
  const ts = Date.parse(move.ts);
  return Number.isNaN(archived) || Number.isNaN(ts) || ts >= archived - LEDGER_SLACK_MS;
}
