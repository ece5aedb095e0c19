/**
 * Per-entry undo: puts back what one ledger entry changed (files, links, the lifecycle part of the
 * usage record), confined to the library, after a safety entry that records the state it replaces. An
 * entry written through another path to the same home (a symlink to it, or a container's `/data` mount
 * of the host's `~/.hermes`) is mapped into this home first: at once when that path resolves here, else
 * only when every blob it names is in this home's store and the files it left are still here unchanged.
 * Rolling back an archive or a restore keeps `.archive_origins.json` in step.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { t as tarList } from "tar";
import type { SkillgateConfig } from "../config/config.js";
import { homePaths } from "../config/home.js";
import { CuratorError } from "../core/errors.js";
import { atomicWriteFile, pathExists } from "../core/fsutil.js";
import { english, t as message, type Text } from "../core/i18n/messages.js";
import { UsageStore } from "../skills/usage.js";
import { forgetMissingOrigins, skillMdDigest, updateArchiveOrigins } from "./archive-layout.js";
import { hasBlob, readBlob, storeBytes } from "./blobs.js";
import {
  appendEntry,
  CAPTURE_SKIP_DIRS,
  captureState,
  fileKey,
  findEntry,
  type LedgerActor,
  type LedgerEntry,
  type LedgerFile,
} from "./ledger.js";
import { isLibraryEntry, resolveSnapshot } from "./snapshot.js";
import { checkMemberPath } from "./tarball/read.js";

/** Outcome of a per-entry rollback. */
export interface EntryRollbackResult {
  entry: LedgerEntry;
  safetyEntryId: string;
  rollbackEntryId: string | null;
  restored: number;
  removed: number;
  /** What was done, in English. */
  message: string;
  /** The same, as a catalog text for the reader's locale. */
  text: Text;
}

/** Options of `rollbackEntry`. */
export interface EntryRollbackOptions {
  home: string;
  config: SkillgateConfig;
  entryId: string;
  actor?: LedgerActor;
}

/** True when `target` is inside `root` (not equal to it). */
function isStrictlyInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel !== "" && !rel.startsWith(`..${path.sep}`) && rel !== ".." && !path.isAbsolute(rel);
}

/** `file` at `to` + its path below `from`. */
function moved(file: LedgerFile, from: string, to: string): LedgerFile {
  return { ...file, path: path.join(to, path.relative(from, file.path)) };
}

/** Every path an entry names: its files before and after, and its roots. */
function entryPaths(entry: LedgerEntry): string[] {
  const roots = (entry.roots ?? []).filter((root) => typeof root === "string");
  return [...entry.before, ...entry.after].map((file) => file.path).concat(roots);
}

/**
 * Homes an entry's paths could have been written under: each prefix that ends just before a `skills`
 * component of the first path and that every path of the entry lies under, shortest first.
 */
function recordedHomes(paths: string[]): string[] {
  const first = paths[0];
  if (first === undefined || !path.isAbsolute(first)) return [];
  const parts = path.resolve(first).split(path.sep);
  const homes: string[] = [];
  for (let at = 1; at < parts.length; at++) {
    if (parts[at] !== "skills") continue;
    const candidate = parts.slice(0, at).join(path.sep) || path.sep;
    if (paths.every((item) => isStrictlyInside(candidate, path.resolve(item)))) homes.push(candidate);
  }
  return homes;
}

/** True when the files of `entry`, mapped from `recorded` into `home`, are this home's: see the module note. */
async function sameContent(home: string, entry: LedgerEntry, recorded: string): Promise<boolean> {
  for (const file of [...entry.before, ...entry.after]) {
    if ("sha256" in file && !(await hasBlob(home, file.sha256))) return false;
  }
  const left = entry.after.map((file) => moved(file, recorded, home));
  const now = await captureState(
    home,
    left.map((file) => file.path),
  );
  const present = new Map(now.files.map((file) => [file.path, fileKey(file)]));
  return left.every((file) => !present.has(file.path) || present.get(file.path) === fileKey(file));
}

/**
 * The entry with its paths inside `home`: as it is when they already are, mapped from the home it was
 * written through when that is this home by another path (see the module note). Otherwise unchanged,
 * for `confinePaths` to refuse.
 */
async function entryInHome(home: string, entry: LedgerEntry): Promise<LedgerEntry> {
  const paths = entryPaths(entry);
  if (paths.every((item) => isStrictlyInside(home, path.resolve(item)))) return entry;
  const realHome = await fs.realpath(home);
  const candidates = recordedHomes(paths);
  let recorded: string | undefined;
  for (const candidate of candidates) {
    if ((await fs.realpath(candidate).catch(() => undefined)) === realHome) {
      recorded = candidate;
      break;
    }
  }
  if (recorded === undefined) {
    for (const candidate of candidates) {
      if (await sameContent(home, entry, candidate)) {
        recorded = candidate;
        break;
      }
    }
  }
  if (recorded === undefined) return entry;
  const from = recorded;
  return {
    ...entry,
    before: entry.before.map((file) => moved(file, from, home)),
    after: entry.after.map((file) => moved(file, from, home)),
    ...(entry.roots ? { roots: entry.roots.map((root) => path.join(home, path.relative(from, root))) } : {}),
  };
}

/** Paths a ledger rollback may never write: the backups, blobs, locks, hub and the ledger itself. */
function isForbiddenTarget(home: string, target: string): boolean {
  const p = homePaths(home);
  const roots = [p.backups, path.join(home, ".curator_backups"), p.locks, path.join(p.skills, ".hub")];
  return target === p.ledger || roots.some((root) => target === root || isStrictlyInside(root, target));
}

/**
 * Refuses any path outside the home, lexically or through a symlinked ancestor, or inside the
 * safety net's own storage.
 */
async function confinePaths(home: string, targets: string[]): Promise<void> {
  const realHome = await fs.realpath(home);
  for (const target of targets) {
    const resolved = path.resolve(target);
    if (!path.isAbsolute(target) || !isStrictlyInside(home, resolved) || isForbiddenTarget(home, resolved)) {
      throw new CuratorError("rollback", message("rollback.entry.outside", { home, target }), {
        code: "curator.path_outside",
      });
    }
    let ancestor = path.dirname(resolved);
    while (!(await pathExists(ancestor)) && ancestor !== path.dirname(ancestor))
      ancestor = path.dirname(ancestor);
    const real = await fs.realpath(ancestor);
    if (real !== realHome && !isStrictlyInside(realHome, real)) {
      throw new CuratorError("rollback", message("rollback.entry.outsideLink", { home, target }), {
        code: "curator.path_outside",
      });
    }
  }
}

/**
 * Completes a hollow delete/archive/purge entry (one that captured only SKILL.md) from the newest
 * snapshot: regular files under the package's directory that the entry lacks are added to its before
 * set. Paths already in the entry keep their recorded content.
 */
async function fillFromNewestSnapshot(home: string, entry: LedgerEntry): Promise<LedgerFile[]> {
  const before = new Map(entry.before.map((file) => [file.path, file]));
  if (!["delete", "archive", "purge"].includes(entry.action)) return [...before.values()];
  const snapshot = await resolveSnapshot(home);
  if (!snapshot) return [...before.values()];
  const skills = homePaths(home).skills;
  const prefixes = new Set<string>();
  for (const file of entry.before) {
    if (path.basename(file.path) !== "SKILL.md" || !isStrictlyInside(skills, file.path)) continue;
    const rel = path.relative(skills, path.dirname(file.path)).split(path.sep).join("/");
    const top = rel.split("/")[0] ?? "";
    if (rel !== "" && isLibraryEntry(top)) prefixes.add(rel);
  }
  if (prefixes.size === 0) return [...before.values()];
  const pending: Array<Promise<void>> = [];
  await tarList({
    file: snapshot.archive,
    onReadEntry: (member) => {
      const checked = checkMemberPath(String(member.path));
      if (!checked.ok || (member.type !== "File" && member.type !== "OldFile")) return;
      const rel = checked.path;
      if (![...prefixes].some((prefix) => rel.startsWith(`${prefix}/`))) return;
      if (rel.split("/").some((part) => CAPTURE_SKIP_DIRS.has(part))) return;
      const abs = path.join(skills, ...rel.split("/"));
      if (before.has(abs)) return;
      const chunks: Buffer[] = [];
      member.on("data", (chunk: Buffer) => chunks.push(chunk));
      pending.push(
        new Promise<void>((resolve) => member.on("end", () => resolve())).then(async () => {
          before.set(abs, { path: abs, sha256: await storeBytes(home, Buffer.concat(chunks)) });
        }),
      );
    },
  });
  await Promise.all(pending);
  return [...before.values()];
}

/** Writes a captured file or link at its path atomically (parents created). */
async function writeCaptured(home: string, file: LedgerFile): Promise<void> {
  await fs.mkdir(path.dirname(file.path), { recursive: true });
  const current = await fs.lstat(file.path).catch(() => undefined);
  if (current?.isDirectory()) await fs.rm(file.path, { recursive: true, force: true });
  if ("sha256" in file) {
    await atomicWriteFile(file.path, await readBlob(home, file.sha256));
    return;
  }
  const tmp = `${file.path}.link-${process.pid}.tmp`;
  await fs.rm(tmp, { force: true });
  await fs.symlink(file.link, tmp);
  await fs.rename(tmp, file.path);
}

/** Removes now-empty directories from `start` up to (and including) the enclosing root. */
async function pruneEmptyDirs(start: string, roots: string[]): Promise<void> {
  const root = roots
    .filter((r) => start === r || isStrictlyInside(r, start))
    .sort((a, b) => a.length - b.length)[0];
  if (!root) return;
  let dir = start;
  while (dir === root || isStrictlyInside(root, dir)) {
    try {
      await fs.rmdir(dir);
    } catch {
      return;
    }
    dir = path.dirname(dir);
  }
}

/** Lifecycle keys a per-entry rollback puts back; counters keep counting. */
const LIFECYCLE_KEYS = ["created_by", "agent_created", "state", "pinned", "archived_at"] as const;

/** Restores the lifecycle part of the skill's usage record as it was before the entry. */
async function restoreUsage(home: string, entry: LedgerEntry): Promise<boolean> {
  if (entry.usage_before === undefined || entry.skill === "") return false;
  const before = entry.usage_before;
  const store = new UsageStore(homePaths(home).skills);
  if (before === null && (await store.read())[entry.skill] === undefined) return false;
  return store.update((records) => {
    const current = records[entry.skill];
    if (before === null) {
      if (current === undefined) return false;
      delete records[entry.skill];
      return true;
    }
    if (current === undefined) {
      records[entry.skill] = { ...before };
      return true;
    }
    for (const key of LIFECYCLE_KEYS) {
      if (key in before) current[key] = before[key] as never;
      else delete current[key];
    }
    return true;
  });
}

/**
 * After an archive is rolled back its folder is gone from `.archive/`, and so is its origin record;
 * after a restore is rolled back the package is archived again, and its origin (where it was restored
 * to, and its `SKILL.md` digest) is recorded again.
 */
async function keepOriginsInStep(home: string, entry: LedgerEntry): Promise<void> {
  const archivedAs = entry.evidence.archived_as;
  if (typeof archivedAs !== "string" || archivedAs === "") return;
  if (entry.action === "archive") {
    await forgetMissingOrigins(home, [archivedAs]);
    return;
  }
  if (entry.action !== "restore") return;
  const skills = homePaths(home).skills;
  const restored = entry.after
    .filter((file) => path.basename(file.path) === "SKILL.md")
    .sort((a, b) => a.path.length - b.path.length)[0];
  const folder = path.join(homePaths(home).archive, ...archivedAs.split("/"));
  if (!restored || !isStrictlyInside(skills, restored.path) || !(await pathExists(folder))) return;
  const from = path.relative(skills, path.dirname(restored.path)).split(path.sep).join("/");
  await updateArchiveOrigins(home, { [archivedAs]: { from, skillMd: skillMdDigest(folder) } });
}

/**
 * Undoes one ledger entry: every file of its before set is put back (whole packages, support files
 * included), files it created are removed (and directories left empty under its roots), and the skill's
 * lifecycle state is restored. Every blob
 * is checked and a `pre-rollback` safety entry is written before anything on disk changes; if either
 * fails, nothing is changed. A `rollback` entry records the result.
 */
export async function rollbackEntry(opts: EntryRollbackOptions): Promise<EntryRollbackResult> {
  const { home, config } = opts;
  const actor = opts.actor ?? "user";
  const found = await findEntry(home, opts.entryId);
  if (!found) {
    throw new CuratorError("rollback", message("rollback.entry.missing", { id: opts.entryId }), {
      code: "curator.no_entry",
    });
  }
  const entry = await entryInHome(home, found);
  const roots = (entry.roots ?? []).filter((root) => typeof root === "string");
  await confinePaths(home, [...entry.before, ...entry.after].map((file) => file.path).concat(roots));
  const target = await fillFromNewestSnapshot(home, entry);
  await confinePaths(
    home,
    target.map((file) => file.path),
  );
  for (const file of target) {
    if ("sha256" in file && !(await hasBlob(home, file.sha256))) {
      throw new CuratorError(
        "rollback",
        message("rollback.entry.missingBlob", { blob: file.sha256, file: file.path }),
        { code: "curator.missing_blob" },
      );
    }
  }
  const targetPaths = new Set(target.map((file) => file.path));
  // Files the entry created (after-only) go; everything in its before set comes back. Files that other,
  // later mutations added are theirs to undo, so they stay.
  const afterOnly = entry.after.map((file) => file.path).filter((p) => !targetPaths.has(p));
  const current = await captureState(home, [...new Set([...afterOnly, ...targetPaths])]);
  const toRemove = current.files.filter((file) => !targetPaths.has(file.path));
  const currentByPath = new Map(current.files.map((file) => [file.path, file]));
  const touched = current.files;
  let safety: LedgerEntry | null = null;
  try {
    safety = await appendEntry(home, config, {
      actor,
      action: "pre-rollback",
      skill: entry.skill,
      evidence: { rollback_target: entry.id },
      before: touched,
      after: touched,
      roots: roots.length > 0 ? roots : undefined,
    });
  } catch {
    safety = null;
  }
  if (!safety) {
    throw new CuratorError("rollback", message("rollback.entry.safetyFailed"), {
      code: "curator.safety_capture_failed",
    });
  }
  const usageBefore = (await new UsageStore(homePaths(home).skills).read())[entry.skill] ?? null;
  let restored = 0;
  for (const file of target) {
    const now = currentByPath.get(file.path);
    if (now && fileKey(now) === fileKey(file)) continue;
    await writeCaptured(home, file);
    restored++;
  }
  for (const file of toRemove) {
    await fs.rm(file.path, { force: true });
    if (roots.length > 0) await pruneEmptyDirs(path.dirname(file.path), roots);
  }
  await restoreUsage(home, entry);
  await keepOriginsInStep(home, entry);
  const usageAfter = (await new UsageStore(homePaths(home).skills).read())[entry.skill] ?? null;
  const after = await captureState(home, [...targetPaths]);
  let record: LedgerEntry | null = null;
  try {
    record = await appendEntry(home, config, {
      actor,
      action: "rollback",
      skill: entry.skill,
      evidence: { rollback_target: entry.id, restored, removed: toRemove.length },
      before: touched,
      after: after.files,
      roots: roots.length > 0 ? roots : undefined,
      usage_before: usageBefore,
      usage_after: usageAfter,
    });
  } catch {
    record = null;
  }
  const text = message("cmd.rollback.entryDone", {
    id: entry.id,
    action: entry.action,
    skill: entry.skill,
    restored,
    removed: toRemove.length,
    safety: safety.id,
  });
  return {
    entry,
    safetyEntryId: safety.id,
    rollbackEntryId: record?.id ?? null,
    restored,
    removed: toRemove.length,
    message: english(text),
    text,
  };
}
