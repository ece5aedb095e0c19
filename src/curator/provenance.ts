/**
 * Where each skill comes from, and therefore whether the curator may touch it:
 * - bundled: named in `skills/.bundled_manifest` (`name:<md5>` lines, or bare `name` in v1); curated
 *   only while `curator.prune_builtins` is on, and then archive-only;
 * - hub: a key of `skills/.hub/lock.json` or the frontmatter name of an `install_path` inside skills/;
 *   never touched;
 * - external: found under `skills.external_dirs`; read-only to the curator;
 * - protected: a fixed set of load-bearing built-ins (empty today, kept as a seam);
 * - agent (managed): `created_by: agent` (or legacy `agent_created: true`) in `.usage.json`;
 * - unmanaged: everything else that is eligible; it is never auto-staled or archived until adopted.
 * `.curator_suppressed` lists built-ins the curator archived so a re-seeder does not bring them back.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import type { SkillgateConfig } from "../config/config.js";
import { homePaths } from "../config/home.js";
import { errorCause } from "../core/errors.js";
import { atomicWriteFile, readTextIfExists, withLock } from "../core/fsutil.js";
import { addWarning, type Text, t, type WarningLists } from "../core/i18n/messages.js";
import { cachedByFile, readTextCached } from "../core/read-cache.js";
import { parseSkillMd } from "../skills/frontmatter.js";
import type { SkillEntry } from "../skills/types.js";
import { isManagedRecord, type UsageRecord } from "../skills/usage-record.js";
import type { ProvenanceKind, UnmanagedReason } from "./types.js";

/** Built-ins that back load-bearing commands and are never archived or consolidated. Empty today. */
export const PROTECTED_BUILTINS: ReadonlySet<string> = new Set<string>();

/** The provenance sources of one home, read once per operation. */
export interface Provenance {
  bundled: ReadonlySet<string>;
  hub: ReadonlySet<string>;
  protected: ReadonlySet<string>;
  /** Problems reading the sources (the affected source counts as empty), in English. */
  warnings: string[];
  /** The same problems as texts for the reader. */
  warningTexts: Text[];
}

/** How the curator sees one skill. */
export interface Classification {
  kind: ProvenanceKind;
  /** The curator may change its lifecycle (state, pin, archive). */
  eligible: boolean;
  /** Part of the curated set: the automatic pass considers it. */
  curated: boolean;
  /** Set for unmanaged skills. */
  unmanagedReason?: UnmanagedReason;
}

/** Names listed in a `.bundled_manifest` text (`name:<md5>` or bare `name`; blanks and `#` skipped). */
export function parseBundledManifest(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.replace(/^\uFEFF/, "").split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    const name = trimmed.split(":")[0]?.trim();
    if (name) names.add(name);
  }
  return names;
}

/** The `name` of a SKILL.md text's frontmatter (same parser as the library), when there is one. */
export function frontmatterName(text: string): string | undefined {
  const name = parseSkillMd(text.replace(/^\uFEFF/, "")).frontmatter.name;
  return typeof name === "string" && name.trim() !== "" ? name.trim() : undefined;
}

function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel);
}

async function readHubNames(
  home: string,
  skills: readonly SkillEntry[],
  warnings: WarningLists,
): Promise<Set<string>> {
  const paths = homePaths(home);
  const names = new Set<string>();
  let text: string | undefined;
  try {
    text = await readTextCached(paths.hubLock);
  } catch (error) {
    addWarning(warnings, t("provenance.hubUnreadable", { file: paths.hubLock, cause: errorCause(error) }));
  }
  if (text === undefined) return names;
  let installed: Record<string, unknown> = {};
  try {
    const data = JSON.parse(text.replace(/^\uFEFF/, "")) as { installed?: unknown };
    if (data && typeof data.installed === "object" && data.installed !== null) {
      installed = data.installed as Record<string, unknown>;
    }
  } catch {
    addWarning(warnings, t("provenance.hubInvalid", { file: paths.hubLock }));
    return names;
  }
  // The install folders inside skills/, matched against the library's records by path. Records carry
  // absolute, normalized folder paths (the library builds them so), so none has to be resolved.
  const installDirs = new Set<string>();
  for (const [key, value] of Object.entries(installed)) {
    names.add(key);
    const installPath = (value as { install_path?: unknown } | null)?.install_path;
    if (typeof installPath !== "string" || installPath === "") continue;
    const dir = path.resolve(paths.skills, installPath);
    if (isInside(paths.skills, dir)) installDirs.add(dir);
  }
  for (const entry of skills) if (installDirs.delete(entry.dir)) names.add(entry.name);
  // Install folders the library does not list: named by their SKILL.md, when there is one.
  for (const dir of installDirs) {
    const skillText = await readTextIfExists(path.join(dir, "SKILL.md")).catch(() => undefined);
    if (skillText !== undefined) names.add(frontmatterName(skillText) ?? path.basename(dir));
  }
  return names;
}

/** Reads the bundled manifest and the hub lock of `home`. `skills` helps map hub install paths to names. */
export async function loadProvenance(home: string, skills: readonly SkillEntry[]): Promise<Provenance> {
  const warnings: WarningLists = { warnings: [], warningTexts: [] };
  let bundled = new Set<string>();
  try {
    const text = await readTextCached(homePaths(home).bundledManifest);
    if (text !== undefined) bundled = parseBundledManifest(text);
  } catch (error) {
    addWarning(warnings, t("provenance.bundledUnreadable", { cause: errorCause(error) }));
  }
  const hub = await readHubNames(home, skills, warnings);
  return { bundled, hub, protected: PROTECTED_BUILTINS, ...warnings };
}

/**
 * Classifies one skill. `entry` is its live copy (undefined when it is not on disk); `hasCreatedByKey`
 * says whether the stored record carries a `created_by` key at all (it tells the two unmanaged reasons
 * apart).
 */
export function classify(
  name: string,
  entry: SkillEntry | undefined,
  record: Partial<UsageRecord> | undefined,
  hasCreatedByKey: boolean,
  provenance: Provenance,
  config: SkillgateConfig,
): Classification {
  if (entry?.rootKind === "external") return { kind: "external", eligible: false, curated: false };
  if (provenance.protected.has(name)) return { kind: "protected", eligible: false, curated: false };
  if (provenance.hub.has(name)) return { kind: "hub", eligible: false, curated: false };
  const prune = config.curator.pruneBuiltins;
  if (provenance.bundled.has(name)) return { kind: "bundled", eligible: prune, curated: prune };
  if (isManagedRecord(record)) return { kind: "agent", eligible: true, curated: true };
  return {
    kind: "unmanaged",
    eligible: true,
    curated: false,
    unmanagedReason: hasCreatedByKey ? "foreground-created" : "pre-dates marker",
  };
}

/**
 * For each stored usage record, whether it carries a `created_by` key. Read straight from disk because
 * the usage store backfills the key; a missing or unreadable file gives an empty map. The map is shared
 * while the file is unchanged: read it, do not change it.
 */
export function readCreatedByKeys(home: string): Promise<ReadonlyMap<string, boolean>> {
  const file = homePaths(home).usage;
  return cachedByFile(file, "created-by-keys", async () => {
    const text = await readTextIfExists(file).catch(() => undefined);
    return createdByKeysOf(text);
  });
}

function createdByKeysOf(text: string | undefined): Map<string, boolean> {
  const keys = new Map<string, boolean>();
  if (text === undefined) return keys;
  try {
    const data = JSON.parse(text.replace(/^\uFEFF/, "")) as Record<string, unknown>;
    if (data === null || typeof data !== "object" || Array.isArray(data)) return keys;
    for (const [name, value] of Object.entries(data)) {
      if (value !== null && typeof value === "object") keys.set(name, Object.hasOwn(value, "created_by"));
    }
  } catch {
    // A corrupt usage file is handled (moved aside) by the usage store.
  }
  return keys;
}

function suppressedLock(home: string): string {
  return path.join(homePaths(home).locks, "curator-suppressed");
}

/** Names in `.curator_suppressed` (one per line, `#` comments ignored). */
export async function readSuppressed(home: string): Promise<Set<string>> {
  const text = await readTextCached(homePaths(home).suppressed).catch(() => undefined);
  const names = new Set<string>();
  for (const line of (text ?? "").split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed !== "" && !trimmed.startsWith("#")) names.add(trimmed);
  }
  return names;
}

/** Adds a built-in the curator archived to `.curator_suppressed` (no duplicate lines). */
export async function addSuppressed(home: string, name: string): Promise<void> {
  await addSuppressedMany(home, [name]);
}

/** Adds several names to `.curator_suppressed` in one locked rewrite (names already there are skipped). */
export async function addSuppressedMany(home: string, names: string[]): Promise<void> {
  if (names.length === 0) return;
  const file = homePaths(home).suppressed;
  await withLock(suppressedLock(home), async () => {
    const text = (await readTextIfExists(file)) ?? "";
    const lines = text.split(/\r?\n/).filter((line) => line !== "");
    const present = new Set(lines.map((line) => line.trim()));
    const added = names.filter((name) => !present.has(name) && present.add(name));
    if (added.length === 0) return;
    await atomicWriteFile(file, `${[...lines, ...added].join("\n")}\n`);
  });
}

/** Removes `name` from `.curator_suppressed` (comments and other names kept). */
export async function removeSuppressed(home: string, name: string): Promise<void> {
  const file = homePaths(home).suppressed;
  await withLock(suppressedLock(home), async () => {
    const text = await readTextIfExists(file);
    if (text === undefined) return;
    const lines = text.split(/\r?\n/).filter((line) => line !== "");
    const kept = lines.filter((line) => line.trim() !== name);
    if (kept.length === lines.length) return;
    if (kept.length === 0) await fs.rm(file, { force: true });
    else await atomicWriteFile(file, `${kept.join("\n")}\n`);
  });
}
