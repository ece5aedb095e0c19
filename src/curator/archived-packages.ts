/**
 * The archived packages under `.archive/` as `list-archived` shows them, where each goes back to (its own
 * origin record, else the ledger's line that archived it, else flat), and which one a name given to
 * `restore` means.
 */

import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { homePaths } from "../config/home.js";
import { list, t } from "../core/i18n/messages.js";
import { isWithin, MAX_SKILL_MD_BYTES, readContained, realPathOf } from "../skills/containment.js";
import { UsageStore } from "../skills/usage.js";
import type { UsageMap } from "../skills/usage-record.js";
import {
  type ArchiveOrigin,
  archiveFolderIdentity,
  originApplies,
  readArchiveOriginRecords,
} from "./archive-layout.js";
import { type LedgerArchiveMove, lastArchiveMoves, ledgerMoveApplies } from "./archive-ledger-origin.js";
import { type CommandPrefix, refuse } from "./archive-move.js";
import { readEntries } from "./ledger.js";
import { frontmatterName } from "./provenance.js";

/** One archived skill package under `.archive/`. */
export interface ArchivedItem {
  /** Path under `.archive/`, POSIX separators: the name `list-archived` prints and `restore` accepts. */
  archivedAs: string;
  /** The skill's frontmatter name (or its original folder name). */
  skillName: string;
  /** Where `restore` puts it back, relative to skills/ (`category/name` or `name`). */
  restoreTo: string;
  category: string | null;
  dir: string;
  /** The `YYYYMMDDHHMMSS` collision suffix, when there is one. */
  stamp: string | null;
  mtimeMs: number;
}

const STAMP_SUFFIX = /^(.+)-(\d{14})(?:-(\d+))?$/;

/**
 * What `listArchived` consults when no origin record belongs to an archive: the ledger's last moves into
 * each archive folder and the usage records, each read once, on first need.
 */
interface OriginFallback {
  moves: () => Promise<Map<string, LedgerArchiveMove>>;
  usage: () => Promise<Readonly<UsageMap>>;
}

function originFallback(home: string): OriginFallback {
  let moves: Promise<Map<string, LedgerArchiveMove>> | undefined;
  let usage: Promise<Readonly<UsageMap>> | undefined;
  return {
    moves: () => {
      moves ??= readEntries(home).then(lastArchiveMoves, () => new Map());
      return moves;
    },
    usage: () => {
      usage ??= new UsageStore(homePaths(home).skills).read().catch(() => ({}));
      return usage;
    },
  };
}

/**
 * Where a flat archive folder's package lived, relative to skills/, or null when nothing says so. In
 * order: the origin record, when it belongs to this very archive (its folder identity and `SKILL.md`
 * digest match); else the ledger's line that moved this package into the folder (see
 * `archive-ledger-origin.ts`); else a record from before the identity was kept whose digest matches.
 */
async function archivedFrom(
  archivedAs: string,
  dir: string,
  skillName: string,
  origin: ArchiveOrigin | undefined,
  digest: () => string | undefined,
  fallback: OriginFallback,
): Promise<string | null> {
  const applies = origin !== undefined && originApplies(origin, digest, () => archiveFolderIdentity(dir));
  if (applies && origin.folder !== undefined) return origin.from;
  const move = (await fallback.moves()).get(archivedAs);
  if (move && ledgerMoveApplies(move, digest(), (await fallback.usage())[skillName]?.archived_at))
    return move.from;
  return applies ? origin.from : null;
}

async function readArchivedItem(
  archiveRoot: string,
  dir: string,
  origins: Readonly<Record<string, ArchiveOrigin>>,
  fallback: OriginFallback,
): Promise<ArchivedItem> {
  const archivedAs = path.relative(archiveRoot, dir).split(path.sep).join("/");
  const base = path.posix.basename(archivedAs);
  const match = STAMP_SUFFIX.exec(base);
  const original = match?.[1] ?? base;
  const parent = path.posix.dirname(archivedAs);
  let text: string | undefined;
  let bytes: Buffer | undefined;
  try {
    // The containment rule: SKILL.md is read only when it resolves inside the package.
    bytes = readContained(dir, path.join(dir, "SKILL.md"), {
      label: "SKILL.md",
      skill: original,
      limit: MAX_SKILL_MD_BYTES,
    }).bytes;
    text = bytes.toString("utf8");
  } catch {
    text = undefined;
  }
  const skillName = (text !== undefined ? frontmatterName(text) : undefined) ?? original;
  // Flat (Hermes' layout): where it came from is recorded by skillgate or in the ledger (see `archivedFrom`).
  const digest = () => (bytes ? createHash("sha256").update(bytes).digest("hex") : undefined);
  const recorded =
    parent === "."
      ? await archivedFrom(archivedAs, dir, skillName, origins[archivedAs], digest, fallback)
      : null;
  const from = recorded !== null && path.posix.basename(recorded) === original ? recorded : null;
  const restoreTo = from ?? (parent === "." ? original : `${parent}/${original}`);
  const category = path.posix.dirname(restoreTo);
  const stat = await fs.stat(dir);
  return {
    archivedAs,
    skillName,
    restoreTo,
    category: category === "." ? null : (category.split("/")[0] ?? null),
    dir,
    stamp: match?.[2] ?? null,
    mtimeMs: stat.mtimeMs,
  };
}

/**
 * Every archived skill package (a folder holding SKILL.md) under `.archive/`, sorted by path. An archived
 * link to a skill folder (a linked skill that was archived) is a package too; other links are not
 * followed. An `.archive` that resolves outside the library holds nothing skillgate will touch.
 */
export async function listArchived(home: string): Promise<ArchivedItem[]> {
  const paths = homePaths(home);
  const root = paths.archive;
  const origins = await readArchiveOriginRecords(home);
  const fallback = originFallback(home);
  const items: ArchivedItem[] = [];
  const realArchive = realPathOf(root);
  const realSkills = realPathOf(paths.skills);
  if (realArchive === undefined || realSkills === undefined || !isWithin(realSkills, realArchive))
    return items;
  const walk = async (dir: string): Promise<void> => {
    let children: import("node:fs").Dirent[];
    try {
      children = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    if (dir !== root && children.some((child) => child.isFile() && child.name === "SKILL.md")) {
      items.push(await readArchivedItem(root, dir, origins, fallback));
      return;
    }
    for (const child of children) {
      const full = path.join(dir, child.name);
      if (child.isDirectory()) await walk(full);
      else if (child.isSymbolicLink() && (await isSkillFolder(full)))
        items.push(await readArchivedItem(root, full, origins, fallback));
    }
  };
  await walk(root);
  return items.sort((a, b) => (a.archivedAs < b.archivedAs ? -1 : a.archivedAs > b.archivedAs ? 1 : 0));
}

/** True when `target` (followed) is a folder holding a SKILL.md. */
async function isSkillFolder(target: string): Promise<boolean> {
  const stat = await fs.stat(path.join(target, "SKILL.md")).catch(() => undefined);
  return stat?.isFile() === true;
}

function newestFirst(a: ArchivedItem, b: ArchivedItem): number {
  const byStamp = (b.stamp ?? "").localeCompare(a.stamp ?? "");
  return byStamp !== 0 ? byStamp : b.mtimeMs - a.mtimeMs;
}

/**
 * Picks the archived package `name` refers to: its exact `.archive/` path; else the one folder with
 * that exact name (several in different categories → refused as ambiguous); else, newest first, a
 * timestamped copy `name-YYYYMMDDHHMMSS` or a package whose skill is called `name`. `name-foo` never
 * matches `name`.
 */
export function pickArchived(
  items: ArchivedItem[],
  name: string,
  prefix: CommandPrefix,
): ArchivedItem | undefined {
  const exactPath = items.find((item) => item.archivedAs === name);
  if (exactPath) return exactPath;
  // The `category/name` an earlier (nested) layout printed still names the package it moved to.
  if (name.includes("/")) {
    const base = path.posix.basename(name);
    const origin = `${path.posix.dirname(name)}/${STAMP_SUFFIX.exec(base)?.[1] ?? base}`;
    const byOrigin = items.filter((item) => item.restoreTo === origin);
    const sameFolder = byOrigin.find((item) => path.posix.basename(item.archivedAs) === base);
    if (sameFolder || byOrigin.length > 0) return sameFolder ?? byOrigin.sort(newestFirst)[0];
  }
  const exactDir = items.filter((item) => path.posix.basename(item.archivedAs) === name);
  if (exactDir.length > 1) {
    const choices = list(exactDir.map((item) => item.archivedAs));
    const command = prefix(["curator", "restore", exactDir[0]?.archivedAs ?? name]);
    throw refuse(t("cmd.restore.ambiguous", { name, choices, command }), "curator.ambiguous");
  }
  if (exactDir[0]) return exactDir[0];
  const loose = items.filter((item) => {
    const base = path.posix.basename(item.archivedAs);
    return STAMP_SUFFIX.exec(base)?.[1] === name || item.skillName === name;
  });
  return loose.sort(newestFirst)[0];
}
