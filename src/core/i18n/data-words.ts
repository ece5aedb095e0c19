/**
 * Values stored as data (a skill's provenance, a ledger entry's actor and action, a snapshot's reason,
 * why the cron jobs were not backed up) as a reader reads them. The data keeps its English value in
 * files, `--json` and the ledger; these map it to catalog text at display time, and show a value the
 * catalog does not name (written by another tool, or a free-text reason) as it is.
 */
import { isMessageKey, type Message, type Text, t } from "./messages.js";

/** The catalog's words for `<prefix>.<value>`, or the value itself when the catalog has none. */
function named(prefix: string, value: string): Text {
  const key = `${prefix}.${value}`;
  return isMessageKey(key) ? ({ key } as Message) : value;
}

/** A skill's provenance (`agent`, `bundled`, `hub`, `external`, `protected`, `unmanaged`). */
export function provenanceWord(value: string): Text {
  return named("console.provenance", value);
}

/** A skill's lifecycle state (`active`, `stale`, `archived`); another value is shown as it is. */
export function stateWord(value: string): Text {
  return value === "active" || value === "stale" || value === "archived" ? t(`cmd.state.${value}`) : value;
}

/** Who wrote a ledger entry (`curator`, `agent`, `user`, `web`). */
export function actorWord(value: string): Text {
  return named("console.actor", value);
}

/** What a ledger entry did (`archive`, `skills-disable`, `snapshot-rollback` …). */
export function ledgerActionWord(value: string): Text {
  return named("console.ledgerAction", value);
}

/** Why a snapshot was taken (`manual`, `pre-curator-run`, `pre-rollback to <id>`, or a reason a person gave). */
export function snapshotReasonWord(value: string): Text {
  const rollback = /^pre-rollback to (.+)$/.exec(value);
  if (rollback) return t("console.snapshotReason.preRollback", { id: rollback[1] ?? "" });
  return value === "preRollback" ? value : named("console.snapshotReason", value);
}

/** Why a snapshot holds no cron jobs (`no cron/jobs.json present`, `read error: …`, `write error: …`). */
export function cronBackupReasonWord(value: string): Text {
  if (value === "no cron/jobs.json present") return t("console.cronBackup.noJobs");
  const failed = /^(read|write) error: (.*)$/s.exec(value);
  if (failed)
    return t(failed[1] === "read" ? "console.cronBackup.readError" : "console.cronBackup.writeError", {
      detail: failed[2] ?? "",
    });
  return value;
}
