/**
 * The English texts of what the skills library and the curator say when a home is damaged: skipped
 * skill folders, unreadable provenance and cron files, a corrupt usage file, move refusals, snapshot and
 * rollback failures, the repairs of recovery at start, a curator run's progress lines, writes refused by
 * the write fence, and the words for system errors by code (`os.*`, used by `errorCause`; network ones
 * too). They are the sentences skillgate always wrote, byte for
 * byte: `--json`, run reports, logs and ledger reasons carry the same English. Spread into `en`; vocabulary of the Chinese side: `glossary.md`.
 */
import type { CatalogShape } from "./entries.js";

export const enLibrary = {
  // ── skill folders the library skips ─────────────────────────────────────────────────────────────────
  "skill.notUtf8":
    "SKILL.md of skill '{skill}' is not valid UTF-8 text (a binary file?); skillgate skips it. Save it as UTF-8.",
  "skill.unreadable": "SKILL.md of skill '{skill}' could not be read: {cause}",
  // ── provenance and cron files ───────────────────────────────────────────────────────────────────────
  "provenance.hubUnreadable": "cannot read {file}: {cause}",
  "provenance.hubInvalid":
    "{file} is not valid JSON; hub-installed skills cannot be recognised until it is fixed.",
  "provenance.bundledUnreadable": "cannot read .bundled_manifest: {cause}",
  "cron.unreadable": "cannot read {file} ({cause}); cron-referenced skills are not protected this run.",
  "cron.invalid": "{file} is not valid JSON; cron-referenced skills are not protected this run.",
  "usage.movedAside": "{file} was not valid JSON; it was kept as {aside} and usage starts empty.",
  "state.movedAside":
    "{file} was not valid JSON; it was kept as {aside} and the curator state starts from the defaults.",
  // ── the automatic pass ──────────────────────────────────────────────────────────────────────────────
  "run.reportFailed": "could not write the run report: {cause}",
  "run.archiveFailed": "could not archive '{name}': {cause}",
  "run.usedSincePlan": "used since the plan was made; kept",
  "run.goneFromDisk": "no longer on disk",
  "cmd.prune.failure": "{name}: {cause}",
  // ── a curator run's progress on the terminal (stderr; the log and --json never carry these) ──────────
  "run.progress.review": "running review pass...",
  "run.progress.dryRun": "running DRY-RUN (report only, no mutations)...",
  "run.progress.snapshot": "snapshot created ({id})",
  "consolidate.progress.noBackup":
    "backups are disabled (curator.backup.enabled: false); consolidating without a snapshot",
  "consolidate.progress.claimed":
    "note: the model claimed '{from}' → '{into}', but '{from}' is still in the library",
  "consolidate.progress.cron": "cron: {count} job(s) re-pointed",
  "consolidate.progress.call": "[{seconds}s] {call}",
  "consolidate.progress.callRefused": "[{seconds}s] {call} → refused: {error}",
  "consolidate.progress.unparsable": "{name}(<unparsable arguments>)",
  "consolidate.progress.finished": "[{seconds}s] model pass finished: {count} tool call(s)",
  "consolidate.progress.finishedError":
    "[{seconds}s] model pass finished: {count} tool call(s), error: {error}",
  "consolidate.stopped.turns":
    "stopped after {turns} model turns (curator.max_iterations) before the model finished; raise it or run again",
  "consolidate.stopped.time":
    "stopped after {seconds}s (curator.max_seconds) before the model finished; raise it or run again",
  "consolidate.stopped.shutdown": "stopped: the process is shutting down; run again after the restart",
  "model.legacyAuxiliary":
    "using the deprecated `curator.auxiliary` block; move it to `auxiliary.curator` (same keys)",
  "model.none":
    "no model configured: set `auxiliary.curator.provider` and `auxiliary.curator.model` (or `model.default` with `model.base_url`) in config.yaml",
  "model.autoNoKey":
    "`model.provider` is auto but no provider key was found: set `model.base_url` (any OpenAI-compatible server) or `model.provider` with its API key (e.g. OPENROUTER_API_KEY in <home>/.env)",
  "model.noAddress":
    "`{source}.provider` is {provider}, which has no known address: set `{source}.base_url` to its OpenAI-compatible endpoint (e.g. http://127.0.0.1:8000/v1)",
  "model.keyVarUnset":
    "`{source}.api_key` names {variable}, which is not set: add {variable}=… to <home>/.env or the environment",
  "model.noKey":
    "no API key for `{source}`: set {variable} in <home>/.env or the environment, or `{source}.api_key`",
  // ── writes refused by the write fence (several gateways on one home) ───────────────────────────────
  "fence.refused":
    "{what} was refused: {reason}. Another replica writes this library now; nothing was changed here.",
  "fence.what.curatorRun": "a curator run",
  "fence.what.archiveBatch": "the curator's archive batch",
  "fence.what.archive": "the archive of '{skill}'",
  "fence.what.restore": "the restore of '{skill}'",
  "fence.what.rollback": "a rollback",
  "fence.what.rollbackSwap": "a rollback's swap",
  "fence.what.usageWrite": "a .usage.json write",
  "fence.what.usageBump": "a usage bump",
  "fence.what.dotenvWrite": "a .env write",
  "fence.what.configEdit": "a config.yaml edit",
  "fence.what.ledgerAppend": "a ledger entry",
  "fence.what.takeLead": "taking the lead",
  "fence.reason.notLeading": "this replica does not lead the home now",
  "fence.reason.staleRecord":
    "the library's leader record holds epoch {disk} ({replica} on {host}), not this replica's {mine}",
  "fence.reason.newerEpoch": "epoch {disk} ({replica} on {host}) is newer than this replica's {mine}",
  // ── curator moves refused ───────────────────────────────────────────────────────────────────────────
  "archive.refused.external":
    "skill '{name}' lives in skills.external_dirs; external skills are read-only to the curator",
  "archive.refused.protected":
    "skill '{name}' is a protected built-in; it backs load-bearing commands and is never archived or consolidated",
  "archive.refused.hub": "skill '{name}' is hub-installed; its upstream owns it, so it is never archived",
  "archive.refused.bundled":
    "skill '{name}' is a bundled built-in; enable curator.prune_builtins to allow archiving it",
  "archive.refused.pinned": "'{name}' is pinned — unpin first with `{command}`",
  "restore.refused.hub":
    "skill '{name}' is now hub-installed; restoring it would shadow the upstream version",
  "restore.refused.bundled":
    "skill '{name}' is now a bundled built-in and curator.prune_builtins is off; restoring it would shadow the built-in",
  "restore.refused.protected": "skill '{name}' is a protected built-in; it cannot be restored over",
  "move.parentOutside":
    "skill '{skill}' sits in a folder reached through a symlink that leads outside the library ({folder}); the curator never moves files outside skills/. Move the skill into the library, or remove the link, by hand",
  "move.outside":
    "skill '{skill}' resolves outside the library; the curator never moves files outside skills/",
  "move.destinationOutside":
    "restoring skill '{skill}' would put it in a folder reached through a symlink that leads outside the library ({folder}); the curator never writes outside skills/. Remove the link or restore by hand",
  // ── snapshots and rollbacks ─────────────────────────────────────────────────────────────────────────
  "snapshot.failed": "snapshot failed: {cause}",
  "snapshot.tooMany": "too many snapshots within one second ({id}); wait a second and retry.",
  "rollback.noBackup": "no matching backup found; list them with `curator rollback --list`.",
  "rollback.noBackupFor": "no matching backup found for id '{id}'; list them with `curator rollback --list`.",
  "rollback.busy": "another rollback is running on this home; wait for it to finish and try again.",
  "rollback.extractFailed": "snapshot extract failed (state restored): {cause}",
  "rollback.swapFailed": "rollback failed while swapping (state restored): {cause}",
  "rollback.safetySnapshotFailed":
    "pre-rollback safety snapshot failed: {cause} Rollback aborted; nothing was changed.",
  "rollback.entry.outside": "refusing rollback: entry references a path outside {home}: {target}",
  "rollback.entry.outsideLink":
    "refusing rollback: entry references a path outside {home} (through a symlink): {target}",
  "rollback.entry.missing": "no ledger entry with id '{id}'; see `curator ledger` for ids.",
  "rollback.entry.missingBlob": "missing blob {blob} for {file}; rollback aborted, nothing was changed.",
  "rollback.entry.safetyFailed":
    "pre-rollback safety capture failed (ledger disabled or unwritable); rollback aborted and current skills were not changed.",
  "tar.unreadable": "snapshot archive {archive} is unreadable ({cause}); pick another snapshot with --id.",
  "tar.unsafe": "refusing unsafe snapshot archive: {problems}. Nothing was changed.",
  "tar.member": "'{member}' {reason}",
  "tar.member.nul": "contains a NUL byte",
  "tar.member.absolute": "is an absolute path",
  "tar.member.backslash": "contains a backslash",
  "tar.member.dotdot": "contains '..'",
  "tar.member.empty": "is empty",
  "tar.member.type": "is a {type}, which a snapshot never contains",
  "tar.member.linkLeaves": "is a symlink leaving the tree (-> {target})",
  "tar.member.hardLinkTarget": "is a hard link whose target {reason}",
  "tar.member.throughLink": "would be written through a symlink",
  "tar.member.hardLinkToLink": "is a hard link to a symlink",
  "tar.member.hardLinkToSkipped": "is a hard link to a member a rollback skips",
  "tar.member.hardLinkThroughLink": "is a hard link through a symlink",
  // ── recovery at start: what a crash left, repaired (the terminal, the log, a run's report) ─────────
  "recovery.lockReleased":
    "recovery: the curator run lock left by process {pid} on {host} (no longer running) was released.",
  "recovery.tempRemoved": "recovery: removed {file}, left by a write that was interrupted.",
  "recovery.blobsRemoved":
    "recovery: removed {count} unfinished ledger blob file(s) of interrupted captures.",
  "recovery.snapshotRemoved": "recovery: removed the unfinished snapshot {id} (its writer was interrupted).",
  "recovery.rollbackTrashDeleted":
    "recovery: deleted {name}, an old library a rollback left in {trash} (its deleter had stopped).",
  "recovery.purgeUndone":
    "recovery: put {name} back in the archive; a purge was interrupted before its ledger line was written, so it did not happen.",
  "recovery.purgeTrashRemoved":
    "recovery: removed {name}, left by an interrupted purge (its packages are in the ledger).",
  "recovery.archive.bothKept":
    "recovery: the interrupted archive of '{skill}' left both {from} and {to}; both were kept as they are — compare them and remove the one you do not want.",
  "recovery.restore.bothKept":
    "recovery: the interrupted restore of '{skill}' left both {from} and {to}; both were kept as they are — compare them and remove the one you do not want.",
  "recovery.archive.neither":
    "recovery: '{skill}' is neither at {from} nor at {to} (moved since the interrupted archive); nothing to complete.",
  "recovery.restore.neither":
    "recovery: '{skill}' is neither at {from} nor at {to} (moved since the interrupted restore); nothing to complete.",
  "recovery.archive.completed": "recovery: completed the interrupted archive of '{skill}' ({from} → {to}).",
  "recovery.archive.completedWrote":
    "recovery: completed the interrupted archive of '{skill}' ({from} → {to}): wrote its {records}.",
  "recovery.restore.completed": "recovery: completed the interrupted restore of '{skill}' ({from} → {to}).",
  "recovery.restore.completedWrote":
    "recovery: completed the interrupted restore of '{skill}' ({from} → {to}): wrote its {records}.",
  "recovery.records.ledgerEntry": "ledger entry",
  "recovery.records.origin": "origin",
  "recovery.records.both": "ledger entry, origin",
  "recovery.rollbackJournalCorrupt":
    "curator: the rollback journal {file} is unreadable; it was left in place. Check skills/ by hand, then delete the journal.",
  "recovery.rollbackUndone":
    "curator: an interrupted rollback to snapshot {id} was undone; the library is as it was before it started.",
  "recovery.rollbackUnfinished":
    "curator: an interrupted rollback to snapshot {id} could not be finished ({cause}); it was undone and the library is as it was before.",
  "recovery.rollbackCompleted": "curator: an interrupted rollback to snapshot {id} was completed.",
  "recovery.rollbackCompletedCron":
    "curator: an interrupted rollback to snapshot {id} was completed; cron links: {parts}.",
  // ── system errors by code (shown as Node's own message in English) ──────────────────────────────────
  "date.today": "today",
  "date.yesterday": "yesterday",
  "date.daysAgo": "{days} days ago",
  "os.cause": "{what} ({code})",
  "os.causeAt": "{where}: {what} ({code})",
  "os.ENOENT": "no such file or directory",
  "os.EACCES": "permission denied",
  "os.EPERM": "operation not permitted",
  "os.EISDIR": "is a directory, not a file",
  "os.ENOTDIR": "not a directory",
  "os.EEXIST": "already exists",
  "os.ENOTEMPTY": "directory not empty",
  "os.ENOSPC": "no space left on the device",
  "os.EROFS": "read-only file system",
  "os.ELOOP": "too many levels of symbolic links",
  "os.EMFILE": "too many open files",
  "os.EBUSY": "resource busy",
  "os.EXDEV": "cross-device move",
  "os.EIO": "input/output error",
  "os.ENAMETOOLONG": "file name too long",
  "os.ECONNREFUSED": "connection refused",
  "os.ECONNRESET": "connection reset",
  "os.ETIMEDOUT": "connection timed out",
  "os.EHOSTUNREACH": "host unreachable",
  "os.ENOTFOUND": "host not found",
  "os.EADDRINUSE": "address already in use",
  "os.EADDRNOTAVAIL": "address not available on this host",
  "os.Z_BUF_ERROR": "the compressed data ends too early; the file is truncated",
  "os.Z_DATA_ERROR": "the compressed data is corrupt",
  "os.TAR_BAD_ARCHIVE": "not a readable tar archive",
  "os.YAML_SYNTAX": "a YAML syntax error",
  "os.YAML_TAB_AS_INDENT": "a tab used as indentation",
  "os.YAML_DUPLICATE_KEY": "a key given twice in one mapping",
  "os.YAML_MISSING_CHAR": "a quote or bracket that is never closed",
  "os.YAML_BAD_INDENT": "wrong indentation",
  "os.YAML_BLOCK_AS_IMPLICIT_KEY": "a nested mapping on the same line as its key",
  "os.YAML_UNEXPECTED_TOKEN": "an unexpected character",
} as const satisfies CatalogShape;
