/**
 * What every archive and restore shares: the options and result of a move, the names it accepts, and the
 * move itself — a folder renamed (copied across devices), a linked package moved as a link — with its
 * write-ahead for a single package (`moveAnnounced`).
 */

import { promises as fs, mkdirSync, renameSync } from "node:fs";
import path from "node:path";
import type { SkillgateConfig } from "../config/config.js";
import { homePaths } from "../config/home.js";
import { CuratorError } from "../core/errors.js";
import { checkWriteFence } from "../core/fence.js";
import { type Text, t } from "../core/i18n/messages.js";
import type { ProgressSink } from "../core/progress.js";
import { isSymlink } from "../skills/containment.js";
import type { SkillLibrary } from "../skills/types.js";
import { crashPoint } from "./journal.js";
import { appendBuiltEntries, type LedgerActor, type LedgerFile } from "./ledger.js";
import { type MoveIntent, MoveJournal } from "./move-journal.js";
import type { Provenance } from "./provenance.js";

/** How a surface spells a command (`skillgate curator unpin` or `/curator unpin`). */
export type CommandPrefix = (path: string[]) => string;

/** The terminal spelling, used when a caller gives none. */
export const terminalPrefix: CommandPrefix = (parts) => `skillgate ${parts.join(" ")}`;

/** What archive and restore need. */
export interface MoveOptions {
  home: string;
  config: SkillgateConfig;
  library: SkillLibrary;
  actor: LedgerActor;
  now?: Date;
  commandPrefix?: CommandPrefix;
  /** Preloaded provenance (the run passes it to avoid re-reading per skill). */
  provenance?: Provenance;
  /** Extra ledger evidence (e.g. `absorbed_into` from the consolidation pass). */
  evidence?: Record<string, unknown>;
  /** Counted progress of batches (`archiveMany`). */
  meter?: ProgressSink;
}

/** Result of an archive. */
export interface ArchiveResult {
  name: string;
  /** Where the skill lived, relative to skills/. */
  from: string;
  /** Its path under `.archive/`. */
  archivedAs: string;
  dest: string;
  /** sha256 of the archived `SKILL.md`: the origin record applies to this package only. */
  skillMd?: string;
}

/** A refusal of an archive or restore, with its code. */
export function refuse(message: Text, code = "curator.refused"): CuratorError {
  return new CuratorError("archive", message, { code });
}

/** Rejects names that could escape the library: empty, absolute, `..` segments, backslashes, NUL. */
export function assertSafeName(name: string, what = "skill name"): void {
  const bad =
    name.trim() === "" ||
    name.includes("\0") ||
    name.includes("\\") ||
    path.posix.isAbsolute(name) ||
    path.win32.isAbsolute(name) ||
    name.split("/").some((part) => part === ".." || part === "." || part === "");
  if (bad)
    throw refuse(
      t(what === "skill path" ? "cmd.archive.badPath" : "cmd.archive.badName", { name }),
      "curator.bad_name",
    );
}

/** The `YYYYMMDDHHMMSS` collision suffix for `now` (UTC). */
export function stampOf(now: Date): string {
  return now.toISOString().replace(/[-:T]/g, "").replace(/\..*$/, "");
}

/**
 * Moves a skill folder, copying across devices when a rename cannot. A folder that is a symlink is moved
 * as a link, never the folder behind it: a new link to the same target is made at `to` (a relative
 * target is recomputed, so it still resolves from there) and the old link removed.
 */
async function moveDir(from: string, to: string): Promise<void> {
  await fs.mkdir(path.dirname(to), { recursive: true });
  if (isSymlink(from)) {
    await fs.symlink(movedLinkText(from, to, await fs.readlink(from)), to);
    await fs.unlink(from);
    return;
  }
  try {
    await fs.rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
    await fs.cp(from, to, { recursive: true, errorOnExist: true, force: false, verbatimSymlinks: true });
    await fs.rm(from, { recursive: true, force: true });
  }
}

/** The text a link at `from` holding `link` gets when `moveDir` moves it to `to` (it still resolves). */
function movedLinkText(from: string, to: string, link: string): string {
  const target = path.resolve(path.dirname(from), link);
  return path.isAbsolute(link) ? target : path.relative(path.dirname(to), target);
}

/**
 * The capture of a package after `moveDir` moved it from `from` to `to`: the same files under the new
 * path, and a moved link (the package itself a link) with the text `moveDir` gives it.
 */
export function movedFiles(before: readonly LedgerFile[], from: string, to: string): LedgerFile[] {
  return before.map((file) => {
    const moved = to + file.path.slice(from.length);
    if ("link" in file && file.path === from)
      return { path: moved, link: movedLinkText(from, to, file.link) };
    return { ...file, path: moved };
  });
}

/**
 * `moveDir` with a synchronous rename first (the common case: a real folder on the same file system).
 * `linked` is what the caller's lstat found; `made` holds the parent folders already created.
 */
export async function moveDirFast(
  from: string,
  to: string,
  linked: boolean,
  made: Set<string>,
): Promise<void> {
  if (linked) return moveDir(from, to);
  const parent = path.dirname(to);
  try {
    if (!made.has(parent)) {
      mkdirSync(parent, { recursive: true });
      made.add(parent);
    }
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
    await moveDir(from, to);
  }
}

/**
 * One journaled move: the intent is announced, the package moves, `record` writes the files that say so
 * and the ledger line follows; the journal goes once all of it is written (and stays for recovery when a
 * write failed). A move that fails leaves the package where it was and nothing to recover.
 */
export async function moveAnnounced(
  intent: MoveIntent,
  opts: MoveOptions,
  record: () => Promise<void>,
): Promise<void> {
  const skills = homePaths(opts.home).skills;
  await checkWriteFence(opts.home, t(`fence.what.${intent.kind}`, { skill: intent.skill }));
  const journal = await MoveJournal.open(opts.home, opts.config);
  let recorded = false;
  try {
    await journal.announce([intent]);
    await crashPoint(`${intent.kind}:announced`);
    // Asked again right before the move: opening and writing the journal may have outlived the lead.
    await checkWriteFence(opts.home, t(`fence.what.${intent.kind}`, { skill: intent.skill }));
    try {
      await moveDir(path.join(skills, intent.from), path.join(skills, intent.to));
    } catch (error) {
      recorded = true;
      throw error;
    }
    await crashPoint(`${intent.kind}:moved`);
    await record();
    // The ledger fails open: an audit problem never fails the move; the journal keeps the line instead.
    recorded = intent.entry
      ? await appendBuiltEntries(opts.home, opts.config, [JSON.stringify(intent.entry)]).then(
          () => true,
          () => false,
        )
      : true;
  } finally {
    await (recorded ? journal.close() : journal.keep());
  }
}
