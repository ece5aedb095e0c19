/**
 * Installing, updating and removing hub skills in the library, safely with people's files:
 *
 * - a download lands in `skills/.hub/quarantine/<name>/` first and is scanned there (from the files on
 *   disk); `dangerous` is refused (audit line `BLOCKED`), `caution` only goes on after an explicit confirm;
 * - an install never replaces a skill of the same name that is already in the library (bundled,
 *   agent-created, hand-made or another hub's): the person picks another name (`--name`) instead;
 * - an update replaces only a hub skill whose files are still those it installed (else `--force`);
 * - an uninstall removes exactly the files its lock entry recorded (files added by hand stay);
 * - every step that changes the library is announced first in `skills/.hub/.journal.json` (written
 *   atomically), so a process killed at any point leaves the library as before or as after: the next
 *   start's recovery (`recoverHome`) or hub command finishes a move that happened and undoes one that did not;
 * - every write asks the write fence first, so under coordination only the leader writes;
 * - the lock entry, `audit.log` and the ledger record the verdict and the content hash.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import type { SkillgateConfig } from "../config/config.js";
import { homePaths } from "../config/home.js";
import { SkillError } from "../core/errors.js";
import { checkWriteFence } from "../core/fence.js";
import { isoTimestamp, pathExists, readTextIfExists } from "../core/fsutil.js";
import { t } from "../core/i18n/messages.js";
import { parseSkillMd } from "../skills/frontmatter.js";
import {
  appendAuditLine,
  contentHash,
  type HubLockEntry,
  hubPaths,
  lockEntry,
  normalizeBundlePath,
  normalizeInstallPath,
  type PackageFile,
  readHubLockForWrite,
  readPackageFiles,
  type ScanProvenance,
  validateHubSkillName,
  writeHubLock,
} from "../skills/hub/format.js";
import { type ScanResult, scanPackage, scanProvenance } from "../skills/hub/scan.js";
import type { FetchedPackage } from "../skills/hub/sources.js";
import { journalFile, removeEmptyDirs, withHubLock, writeHubJournal } from "./hub-journal.js";
import { crashPoint } from "./journal.js";
import { appendEntry, captureState, type LedgerActor } from "./ledger.js";

/** What is known about a package before it is installed: the download, its scan and where it would go. */
export interface HubPlan {
  pkg: FetchedPackage;
  /** The name it is installed under (the package's, or `--name`). */
  name: string;
  /** Relative to `skills/`. */
  installPath: string;
  scan: ScanResult;
  contentHash: string;
}

/** Builds the plan of an install (no disk writes): the name, the target folder and the in-memory scan. */
export function planInstall(
  pkg: FetchedPackage,
  options: { name?: string; category?: string } = {},
): HubPlan {
  const name = validateHubSkillName(options.name ?? pkg.name);
  const installPath = normalizeInstallPath(options.category ? `${options.category}/${name}` : name, name);
  return {
    pkg,
    name,
    installPath,
    scan: scanPackage(pkg.files, pkg.odd),
    contentHash: contentHash(pkg.files),
  };
}

/** An existing skill a hub install would collide with. */
export interface ExistingSkill {
  name: string;
  /** Relative to `skills/` (absent for an external skill). */
  relPath?: string;
}

/** Writes a package into its quarantine folder (emptied first) and returns the folder. */
async function quarantine(home: string, name: string, files: readonly PackageFile[]): Promise<string> {
  const dir = path.join(hubPaths(home).quarantine, name);
  await fs.rm(dir, { recursive: true, force: true });
  await fs.mkdir(dir, { recursive: true });
  for (const file of files) {
    const dest = path.join(dir, ...file.path.split("/"));
    await fs.mkdir(path.dirname(dest), { recursive: true });
    await fs.writeFile(dest, file.bytes, { flag: "wx" });
  }
  return dir;
}

/** Refuses a path with a symlink in any component below `skills/` (Hermes refuses the same). */
async function refuseRedirects(skills: string, rel: string, name: string): Promise<void> {
  let current = skills;
  for (const part of rel.split("/")) {
    current = path.join(current, part);
    try {
      if ((await fs.lstat(current)).isSymbolicLink())
        throw new SkillError("hub.bad_install_path", t("hub.badInstallPath", { path: rel, name }), name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw error;
    }
  }
}

/** What `installPlan` and `updatePlan` need from the caller. */
export interface HubWriteOptions {
  home: string;
  config: SkillgateConfig;
  actor: LedgerActor;
  now: () => Date;
  /** Set by a chat command: the event it answers (ledger evidence). */
  operationId?: string;
}

/** The scan of the quarantined files, refused when dangerous (audit `BLOCKED`). */
async function scanQuarantined(
  opts: HubWriteOptions,
  plan: HubPlan,
  dir: string,
): Promise<{ scan: ScanResult; provenance: ScanProvenance; files: PackageFile[] }> {
  const files = await readPackageFiles(dir);
  const scan = scanPackage(files, plan.pkg.odd);
  if (scan.verdict === "dangerous") {
    await fs.rm(dir, { recursive: true, force: true });
    await appendAuditLine(
      opts.home,
      {
        action: "BLOCKED",
        name: plan.name,
        source: plan.pkg.source,
        trustLevel: plan.pkg.trustLevel,
        verdict: "dangerous",
        extra: `${scan.findings.length}_findings`,
      },
      opts.now(),
    );
    throw new SkillError(
      "hub.dangerous",
      t("hub.refusedDangerous", { name: plan.name, count: scan.findings.length }),
      plan.name,
    );
  }
  const provenance = scanProvenance(scan, {
    source: plan.pkg.identifier,
    sourceUrl: plan.pkg.sourceUrl,
    trustLevel: plan.pkg.trustLevel,
    name: plan.name,
    now: isoTimestamp(opts.now()),
  });
  return { scan, provenance, files };
}

/** The audit log's `INSTALL` line for a package that landed (an install or an update, as Hermes logs both). */
function auditInstalled(
  home: string,
  plan: HubPlan,
  scan: ScanResult,
  entry: HubLockEntry,
  now: Date,
): Promise<void> {
  return appendAuditLine(
    home,
    {
      action: "INSTALL",
      name: plan.name,
      source: plan.pkg.source,
      trustLevel: plan.pkg.trustLevel,
      verdict: scan.verdict,
      extra: entry.content_hash,
    },
    now,
  );
}

function entryFor(
  plan: HubPlan,
  files: PackageFile[],
  scan: ScanResult,
  provenance: ScanProvenance,
  now: Date,
  installedAt?: string,
): HubLockEntry {
  return lockEntry(plan.name, {
    source: plan.pkg.source,
    identifier: plan.pkg.identifier,
    trustLevel: plan.pkg.trustLevel,
    verdict: scan.verdict,
    contentHash: contentHash(files),
    installPath: plan.installPath,
    files: files.map((file) => file.path),
    metadata: { ...plan.pkg.metadata, ...(plan.pkg.version ? { version: plan.pkg.version } : {}) },
    scanProvenance: provenance,
    ...(installedAt ? { installedAt } : {}),
    now,
  });
}

async function recordLedger(
  opts: HubWriteOptions,
  action: string,
  name: string,
  installDir: string,
  before: Awaited<ReturnType<typeof captureState>> | undefined,
  evidence: Record<string, unknown>,
): Promise<void> {
  try {
    const after = await captureState(opts.home, [installDir]);
    await appendEntry(opts.home, opts.config, {
      actor: opts.actor,
      action,
      skill: name,
      evidence: { ...evidence, ...(opts.operationId ? { operation_id: opts.operationId } : {}) },
      before: before?.files ?? [],
      after: after.files,
      roots: [installDir],
    });
  } catch {
    // The ledger fails open, as for every other write.
  }
}

/**
 * Installs a planned package: refuses a name already in the library, quarantines, scans, moves it in
 * under the journal, and records the lock entry, the audit line and the ledger line.
 */
export async function installPlan(
  opts: HubWriteOptions,
  plan: HubPlan,
  existing: readonly ExistingSkill[],
): Promise<HubLockEntry> {
  await checkWriteFence(opts.home, t("fence.what.hubInstall", { skill: plan.name }));
  return withHubLock(opts.home, async () => {
    const skills = homePaths(opts.home).skills;
    const lock = await readHubLockForWrite(opts.home);
    const clash = existing.find((skill) => skill.name === plan.name || skill.relPath === plan.installPath);
    if (lock.installed[plan.name])
      throw new SkillError("hub.exists", t("hub.alreadyHub", { name: plan.name }), plan.name);
    if (clash || (await pathExists(path.join(skills, plan.installPath))))
      throw new SkillError("hub.exists", t("hub.nameTaken", { name: plan.name }), plan.name);
    await refuseRedirects(skills, plan.installPath, plan.name);
    const dir = await quarantine(opts.home, plan.name, plan.pkg.files);
    const { scan, provenance, files } = await scanQuarantined(opts, plan, dir);
    const now = opts.now();
    const entry = entryFor(plan, files, scan, provenance, now);
    const target = path.join(skills, plan.installPath);
    await writeHubJournal(opts.home, {
      op: "install",
      name: plan.name,
      install_path: plan.installPath,
      incoming: path.relative(skills, dir).split(path.sep).join("/"),
      entry,
      started_at: isoTimestamp(now),
    });
    await crashPoint("hub-install-journal");
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.rename(dir, target);
    await crashPoint("hub-install-moved");
    lock.installed[plan.name] = entry;
    await writeHubLock(opts.home, lock);
    await crashPoint("hub-install-locked");
    await fs.rm(journalFile(opts.home), { force: true });
    await auditInstalled(opts.home, plan, scan, entry, now);
    await recordLedger(opts, "hub-install", plan.name, target, undefined, {
      source: plan.pkg.source,
      identifier: plan.pkg.identifier,
      scan_verdict: scan.verdict,
      content_hash: entry.content_hash,
      ...(plan.pkg.version ? { version: plan.pkg.version } : {}),
    });
    return entry;
  });
}

/** A lock entry's install folder, checked (inside `skills/`, not `skills/` itself, no symlinks on the way). */
async function installedDir(home: string, name: string, entry: HubLockEntry): Promise<string> {
  const rel = normalizeInstallPath(entry.install_path, name);
  const skills = homePaths(home).skills;
  await refuseRedirects(skills, rel, name);
  return path.join(skills, rel);
}

/** True when the installed files are no longer those the lock recorded (edited by hand). */
export async function locallyModified(home: string, name: string, entry: HubLockEntry): Promise<boolean> {
  const dir = await installedDir(home, name, entry);
  if (!(await pathExists(dir))) return false;
  const recorded = new Set(entry.files);
  const files = (await readPackageFiles(dir)).filter((file) => recorded.has(file.path));
  return contentHash(files) !== entry.content_hash || files.length !== recorded.size;
}

/** The name a SKILL.md text gives the skill (its frontmatter `name`), else its folder's name. */
function libraryNameOf(skillMd: string | undefined, installPath: string): string {
  const declared = skillMd === undefined ? undefined : parseSkillMd(skillMd).frontmatter.name;
  const name = declared === undefined || declared === null ? "" : String(declared).trim();
  return name || (installPath.split("/").at(-1) as string);
}

/**
 * Refuses an update that would take over another skill's name or folder, as an install does: a new
 * SKILL.md name (one the installed copy does not have) that a skill elsewhere in the library already
 * has, or another lock entry recording the same folder. Nothing is changed; the person removes or
 * renames the other skill first.
 */
async function refuseTakeover(
  plan: HubPlan,
  target: string,
  lock: { installed: Record<string, HubLockEntry> },
  existing: readonly ExistingSkill[],
): Promise<void> {
  const before = libraryNameOf(await readTextIfExists(path.join(target, "SKILL.md")), plan.installPath);
  const incoming = plan.pkg.files.find((file) => file.path === "SKILL.md")?.bytes.toString("utf8");
  const after = libraryNameOf(incoming, plan.installPath);
  const other =
    after === before
      ? undefined
      : existing.find((skill) => skill.name === after && skill.relPath !== plan.installPath);
  const sharing = Object.entries(lock.installed).find(
    ([name, entry]) => name !== plan.name && entry?.install_path === plan.installPath,
  );
  const taken = other?.name ?? sharing?.[0];
  if (taken !== undefined)
    throw new SkillError(
      "hub.exists",
      t("hub.update.nameTaken", { name: plan.name, other: taken }),
      plan.name,
    );
}

/**
 * Replaces an installed hub skill by a newer download of the same source (journaled like an install).
 * `existing` (the library's skills) is checked so the new version cannot take over another skill's name.
 */
export async function updatePlan(
  opts: HubWriteOptions,
  plan: HubPlan,
  options: { force?: boolean; existing?: readonly ExistingSkill[] } = {},
): Promise<HubLockEntry> {
  await checkWriteFence(opts.home, t("fence.what.hubUpdate", { skill: plan.name }));
  return withHubLock(opts.home, async () => {
    const skills = homePaths(opts.home).skills;
    const lock = await readHubLockForWrite(opts.home);
    const current = lock.installed[plan.name];
    if (!current) throw new SkillError("hub.not_installed", t("hub.notHub", { name: plan.name }), plan.name);
    if (!options.force && (await locallyModified(opts.home, plan.name, current)))
      throw new SkillError("hub.modified", t("hub.locallyModified", { name: plan.name }), plan.name);
    const target = await installedDir(opts.home, plan.name, current);
    const samePlan: HubPlan = { ...plan, installPath: normalizeInstallPath(current.install_path, plan.name) };
    await refuseTakeover(samePlan, target, lock, options.existing ?? []);
    const dir = await quarantine(opts.home, plan.name, plan.pkg.files);
    const { scan, provenance, files } = await scanQuarantined(opts, samePlan, dir);
    const now = opts.now();
    const entry = entryFor(samePlan, files, scan, provenance, now, current.installed_at);
    const aside = path.join(hubPaths(opts.home).quarantine, `.previous-${plan.name}`);
    await fs.rm(aside, { recursive: true, force: true });
    const before = await captureState(opts.home, [target]).catch(() => undefined);
    const rel = (p: string) => path.relative(skills, p).split(path.sep).join("/");
    await writeHubJournal(opts.home, {
      op: "update",
      name: plan.name,
      install_path: samePlan.installPath,
      incoming: rel(dir),
      aside: rel(aside),
      entry,
      started_at: isoTimestamp(now),
    });
    await crashPoint("hub-update-journal");
    if (await pathExists(target)) await fs.rename(target, aside);
    await crashPoint("hub-update-aside");
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.rename(dir, target);
    await crashPoint("hub-update-moved");
    lock.installed[plan.name] = entry;
    await writeHubLock(opts.home, lock);
    await fs.rm(aside, { recursive: true, force: true });
    await fs.rm(journalFile(opts.home), { force: true });
    await auditInstalled(opts.home, plan, scan, entry, now);
    await recordLedger(opts, "hub-update", plan.name, target, before, {
      source: plan.pkg.source,
      identifier: plan.pkg.identifier,
      scan_verdict: scan.verdict,
      content_hash: entry.content_hash,
      previous_hash: current.content_hash,
    });
    return entry;
  });
}

/** What an uninstall removed and what it left (files added by hand). */
export interface UninstallResult {
  entry: HubLockEntry;
  removed: string[];
  kept: string[];
}

/** Removes a hub skill: exactly its recorded files (journaled), then its lock entry. */
export async function uninstallHubSkill(opts: HubWriteOptions, name: string): Promise<UninstallResult> {
  await checkWriteFence(opts.home, t("fence.what.hubUninstall", { skill: name }));
  return withHubLock(opts.home, async () => {
    const skills = homePaths(opts.home).skills;
    const lock = await readHubLockForWrite(opts.home);
    const entry = lock.installed[name];
    if (!entry) throw new SkillError("hub.not_installed", t("hub.notHub", { name }), name);
    const target = await installedDir(opts.home, name, entry);
    const before = await captureState(opts.home, [target]).catch(() => undefined);
    const recorded = entry.files.map((file) => {
      const safe = normalizeBundlePath(file, true);
      if (safe === null)
        throw new SkillError("hub.bad_install_path", t("hub.badInstallPath", { path: file, name }), name);
      return safe;
    });
    const present: string[] = [];
    for (const file of recorded) {
      const stat = await fs.lstat(path.join(target, file)).catch(() => undefined);
      if (stat?.isFile()) present.push(file);
    }
    const aside = path.join(hubPaths(opts.home).quarantine, `.removed-${name}`);
    await fs.rm(aside, { recursive: true, force: true });
    const now = opts.now();
    await writeHubJournal(opts.home, {
      op: "uninstall",
      name,
      install_path: entry.install_path,
      aside: path.relative(skills, aside).split(path.sep).join("/"),
      files: present,
      started_at: isoTimestamp(now),
    });
    await crashPoint("hub-uninstall-journal");
    for (const file of present) {
      await fs.mkdir(path.dirname(path.join(aside, file)), { recursive: true });
      await fs.rename(path.join(target, file), path.join(aside, file));
    }
    await crashPoint("hub-uninstall-aside");
    delete lock.installed[name];
    await writeHubLock(opts.home, lock);
    await crashPoint("hub-uninstall-locked");
    await fs.rm(aside, { recursive: true, force: true });
    await fs.rm(journalFile(opts.home), { force: true });
    const kept = await removeEmptyDirs(target);
    await appendAuditLine(
      opts.home,
      {
        action: "UNINSTALL",
        name,
        source: entry.source,
        trustLevel: entry.trust_level,
        verdict: "n/a",
        extra: "user_request",
      },
      now,
    );
    await recordLedger(opts, "hub-uninstall", name, target, before, {
      source: entry.source,
      identifier: entry.identifier,
      content_hash: entry.content_hash,
    });
    return { entry, removed: present, kept };
  });
}
