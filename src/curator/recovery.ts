/**
 * Recovery at every start. A process killed in the middle of curator work leaves one of a few kinds of
 * leftovers; before anything else touches the library (the CLI, the gateway and the console all start
 * through here, and every curator run and maintenance tick checks again) `recoverHome` repairs each:
 * - an interrupted whole-tree rollback (its journal): finished or undone, and its ledger line written;
 * - interrupted package moves (the move journal): each completed with its ledger line, origin, usage
 *   state and suppression, or left where it was;
 * - old libraries in the rollback trash whose deleter died, and purge trash;
 * - temp files of killed writes (`.usage.json`, the ledger, `.env`, config, gateway state, blobs);
 * - snapshot folders a killed snapshot left unfinished;
 * - an interrupted hub install, update or removal (the hub's journal): finished or undone;
 * - the curator run lock a dead skillgate process left (the file Hermes honours as a claim: it keeps
 *   Hermes out until the repairs are done, then goes).
 * Each repair is one note of the returned list, a catalog text: the terminal shows it in the reader's
 * language, the log and a run's report keep its English.
 */
import { existsSync, promises as fs, lstatSync, readdirSync } from "node:fs";
import path from "node:path";
import type { SkillgateConfig } from "../config/config.js";
import { homePaths } from "../config/home.js";
import { removeAbandonedWriteTemps } from "../config/write-temps.js";
import { CuratorError } from "../core/errors.js";
import { type Text, t } from "../core/i18n/messages.js";
import type { RunLock } from "../core/stores.js";
import { atomicTempWriter, HOST_TAG, pidAlive, removeDeadTemps } from "../core/temp-files.js";
import { journalPath, moveJournalPath } from "./journal.js";
import { fileRunLock, runLockFile } from "./lock.js";
import { SNAPSHOT_ARCHIVE, SNAPSHOT_ID_PATTERN } from "./snapshot-names.js";

/**
 * The folders whose temp files recovery looks at, besides the home's own (`.env`, config.yaml) and the
 * blobs: `skills/`, gateway state, cron, locks.
 */
function tempFolders(home: string): string[] {
  const paths = homePaths(home);
  return [paths.skills, paths.gateway, path.dirname(paths.cronJobs), paths.locks];
}

/**
 * A cheap look (a few folder listings, no parsing) for anything recovery would act on. False on a home
 * with nothing left over, which is almost every start.
 */
export function mayNeedRecovery(home: string): boolean {
  const paths = homePaths(home);
  const list = (dir: string) => {
    try {
      return readdirSync(dir);
    } catch {
      return [] as string[];
    }
  };
  const skills = list(paths.skills);
  if (
    skills.includes(path.basename(journalPath(home))) ||
    skills.includes(path.basename(moveJournalPath(home)))
  )
    return true;
  if (skills.some((name) => name.startsWith(".purge-trash"))) return true;
  if (
    [home, ...tempFolders(home)].some((dir) => list(dir).some((name) => atomicTempWriter(name) !== undefined))
  )
    return true;
  if (list(paths.locks).includes(path.basename(runLockFile(home)))) return true;
  if (deadBlobTempLeft(home)) return true;
  if (list(path.join(paths.skills, ".hub")).includes(".journal.json")) return true;
  const backups = list(paths.backups);
  if (backups.includes(".trash") && list(path.join(paths.backups, ".trash")).length > 0) return true;
  return backups.some(
    (name) => SNAPSHOT_ID_PATTERN.test(name) && !existsSync(path.join(paths.backups, name, SNAPSHOT_ARCHIVE)),
  );
}

/** A tmp blob's name: `.tmp-<pid>.<host tag + 4 hex>…` (see `curator/blobs`). */
const BLOB_TEMP = /^\.tmp-(\d+)\.([0-9a-f]{4})[0-9a-f]{4}[.-]/;

/**
 * True when the blob store holds a tmp blob a killed write on this host left (a prune, rollback or
 * capture killed mid-write leaves one, often of 0 bytes): its pid is no running process, or it is this
 * process's pid (at start, a previous process's; `removeDeadBlobTemps` judges it). One listing of the
 * store; live writers' and other hosts' files are no reason to recover.
 */
function deadBlobTempLeft(home: string): boolean {
  const dir = homePaths(home).blobs;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return false;
  }
  return names.some((name) => {
    const match = BLOB_TEMP.exec(name);
    if (!match || match[2] !== HOST_TAG) return false;
    const pid = Number(match[1]);
    if (pid !== process.pid && pidAlive(pid)) return false;
    return lstatSync(path.join(dir, name), { throwIfNoEntry: false })?.isFile() === true;
  });
}

/** Options of `recoverHome`. */
export interface RecoverOptions {
  /** The run lock to take for the repairs (the gateway's store); default the file lock of the home. */
  runLock?: RunLock;
  /** Also remove dead tmp blobs (a listing of the blob store: done by curator runs and when a batch died). */
  blobs?: boolean;
  /** The caller is a process starting up that has written nothing yet (see `writerGone`). */
  atStart?: boolean;
}

/**
 * Repairs what interrupted work left in `home` (see the file's comment) and returns one note per repair.
 * The library repairs run under the curator run lock; when a live process holds it (a run in progress,
 * or a Hermes claim), they are left to a later start and only what no live process can own is cleaned.
 */
export async function recoverHome(
  home: string,
  config: SkillgateConfig,
  options: RecoverOptions = {},
): Promise<Text[]> {
  const lockFile = runLockFile(home);
  const leftLock = existsSync(lockFile) ? (await fs.readFile(lockFile, "utf8").catch(() => "")).trim() : "";
  let held: { release(): Promise<void> };
  try {
    held = await (options.runLock ?? fileRunLock(home)).acquire();
  } catch (error) {
    if (!(error instanceof CuratorError && error.code === "curator.locked")) throw error;
    // A live run: its journals are its own; dead writers' temp files and trash are no one's.
    const { emptyPurgeTrash } = await import("./trash.js");
    return [...(await removeWriteTemps(home, options)), ...(await emptyPurgeTrash(home))];
  }
  const notes: Text[] = [];
  try {
    notes.push(...(await recoverUnderRunLock(home, config, options)));
    const holder = /^(\d+) (\S+) (?:[0-9a-f]+|claim)$/.exec(leftLock);
    if (holder) notes.push(t("recovery.lockReleased", { pid: holder[1] ?? "", host: holder[2] ?? "" }));
  } finally {
    await held.release();
  }
  return notes;
}

/** Removes the temp files of interrupted atomic writes anywhere in the home (blobs aside); one note each. */
async function removeWriteTemps(home: string, options: Pick<RecoverOptions, "atStart">): Promise<Text[]> {
  const temps = await removeAbandonedWriteTemps(home, options);
  for (const dir of tempFolders(home))
    for (const name of await removeDeadTemps(dir, options)) temps.push(path.join(dir, name));
  return temps.map((file) => t("recovery.tempRemoved", { file }));
}

/**
 * The repairs of `recoverHome` for a caller that already holds the curator run lock (a curator run, a
 * rollback, a prune, as its first step).
 */
export async function recoverUnderRunLock(
  home: string,
  config: SkillgateConfig,
  options: Pick<RecoverOptions, "blobs" | "atStart"> = {},
): Promise<Text[]> {
  // The repairs' code (the tar reader among it) is loaded only when there is something to repair.
  const [
    { recoverInterruptedRollback },
    { recoverMoves },
    { removeDeadBlobTemps },
    { removePartialSnapshots },
    { recoverHubAtStart },
  ] = await Promise.all([
    import("./rollback.js"),
    import("./move-journal.js"),
    import("./blobs.js"),
    import("./snapshot.js"),
    import("./hub-journal.js"),
  ]);
  const notes: Text[] = [];
  const movesLeft = existsSync(moveJournalPath(home));
  notes.push(...(await recoverInterruptedRollback(home, config)));
  notes.push(...(await recoverMoves(home, config)));
  notes.push(...(await removeWriteTemps(home, options)));
  if (options.blobs || movesLeft || deadBlobTempLeft(home)) {
    const blobs = await removeDeadBlobTemps(home, options.atStart);
    if (blobs > 0) notes.push(t("recovery.blobsRemoved", { count: blobs }));
  }
  for (const id of await removePartialSnapshots(home)) notes.push(t("recovery.snapshotRemoved", { id }));
  notes.push(...(await recoverHubAtStart(home)));
  return notes;
}
