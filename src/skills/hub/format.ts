/**
 * The hub's files under `skills/.hub/`, in the exact shapes Hermes Agent reads and writes them, so a skill
 * skillgate installs is a hub skill to Hermes (exempt from its curator; `hermes skills update|uninstall`
 * work on it) and one Hermes installed is a hub skill here. Encoded from Hermes' `tools/skills_hub.py`
 * (`HubLockFile`, `TapsManager`, `append_audit_log`, `ensure_hub_dirs`), `tools/skills_hub_models.py`
 * (`_normalize_bundle_path`, `_normalize_lock_install_path`), `tools/skills_hub_install.py`
 * (`install_from_quarantine`, `bundle_content_hash`) and `tools/skills_guard.py` (`content_hash`,
 * `scan_skill_cached`):
 *
 * - `lock.json`: `{"version": 1, "installed": {<name>: entry}}`, written as JSON with a two-space indent,
 *   non-ASCII kept as is, and a final newline; an entry's keys in the order `source, identifier,
 *   trust_level, scan_verdict, content_hash, install_path, files, metadata, scan_provenance, installed_at,
 *   updated_at` (timestamps ISO 8601 UTC with microseconds and `+00:00`).
 * - `audit.log`: one line per event, `<YYYY-MM-DDTHH:MM:SSZ> <ACTION> <name> <source>:<trust> <verdict>
 *   [extra]`, appended.
 * - `taps.json`: `{"taps": [{"repo", "path"}]}`, two-space indent, non-ASCII escaped, final newline.
 * - `quarantine/<name>/`: where a download is unpacked and scanned before it is moved into the library.
 * - the content hash: `sha256:` and the first 16 hex digits of SHA-256 over every file ordered by its
 *   POSIX relative path, each as `path NUL bytes`.
 */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { homePaths } from "../../config/home.js";
import { SkillError } from "../../core/errors.js";
import { atomicWriteFile, isoTimestamp, readTextIfExists } from "../../core/fsutil.js";
import { t } from "../../core/i18n/messages.js";

/** Where the hub keeps its state for a home. */
export function hubPaths(home: string) {
  const hub = path.join(homePaths(home).skills, ".hub");
  return {
    hub,
    lock: path.join(hub, "lock.json"),
    quarantine: path.join(hub, "quarantine"),
    audit: path.join(hub, "audit.log"),
    taps: path.join(hub, "taps.json"),
    indexCache: path.join(hub, "index-cache"),
  };
}

/** Scan verdicts, mildest first. */
export const VERDICTS = ["safe", "caution", "dangerous"] as const;
/** A scan verdict. */
export type Verdict = (typeof VERDICTS)[number];

/** Trust levels Hermes gives a source. */
export type TrustLevel = "builtin" | "trusted" | "community";

/** One finding of a scan, in the shape Hermes records under `scan_provenance.findings`. */
export interface ScanFinding {
  pattern_id: string;
  severity: "critical" | "high" | "medium" | "low";
  category: string;
  file: string;
  line: number;
  match: string;
  description: string;
}

/** What a scan attests, recorded in the lock entry (`scan_provenance`), as Hermes' guard writes it. */
export interface ScanProvenance {
  bundle_hash: string;
  scanner_version: string;
  source: string;
  source_url: string;
  verdict: Verdict;
  trust_level: TrustLevel;
  findings: ScanFinding[];
  rules: string[];
  scanned_at: string;
  summary: string;
  fresh: boolean;
}

/** One installed hub skill (`installed[<name>]` of `lock.json`). Unknown keys are kept on rewrite. */
export interface HubLockEntry {
  source: string;
  identifier: string;
  trust_level: string;
  scan_verdict: string;
  content_hash: string;
  /** Relative to `skills/`, POSIX separators, ending with the skill's name. */
  install_path: string;
  files: string[];
  metadata: Record<string, unknown>;
  scan_provenance?: Record<string, unknown>;
  installed_at: string;
  updated_at: string;
  [key: string]: unknown;
}

/** The whole lock document. */
export interface HubLock {
  version: number;
  installed: Record<string, HubLockEntry>;
  [key: string]: unknown;
}

/** An empty lock, as Hermes creates it. */
export function emptyHubLock(): HubLock {
  return { version: 1, installed: {} };
}

/** The result of reading `lock.json`: the document, or why it could not be used. */
export type HubLockRead = { ok: true; lock: HubLock; exists: boolean } | { ok: false; reason: string };

/** Parses lock text (a BOM tolerated, as Hermes reads it with `utf-8-sig`). */
export function parseHubLock(text: string): HubLockRead {
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
  if (data === null || typeof data !== "object" || Array.isArray(data))
    return { ok: false, reason: "not a JSON object" };
  const doc = data as Record<string, unknown>;
  const installed = doc.installed;
  if (installed === null || typeof installed !== "object" || Array.isArray(installed))
    return { ok: false, reason: "`installed` is not an object" };
  return { ok: true, lock: doc as HubLock, exists: true };
}

/** Reads `lock.json` of a home; a missing file is an empty lock. */
export async function readHubLock(home: string): Promise<HubLockRead> {
  const text = await readTextIfExists(hubPaths(home).lock);
  if (text === undefined) return { ok: true, lock: emptyHubLock(), exists: false };
  return parseHubLock(text);
}

/**
 * Reads the lock for a write: a lock that cannot be parsed is refused (Hermes would start over from an
 * empty one and forget every other install; skillgate asks for the file to be fixed instead).
 */
export async function readHubLockForWrite(home: string): Promise<HubLock> {
  const read = await readHubLock(home);
  if (!read.ok)
    throw new SkillError(
      "hub.lock_corrupt",
      t("hub.lockCorrupt", { file: hubPaths(home).lock, reason: read.reason }),
    );
  return read.lock;
}

/** The bytes Hermes writes for a lock document: two-space JSON, non-ASCII as is, a final newline. */
export function serializeHubLock(lock: HubLock): string {
  return `${JSON.stringify(lock, null, 2)}\n`;
}

/** Replaces `lock.json` atomically. */
export async function writeHubLock(home: string, lock: HubLock): Promise<void> {
  await atomicWriteFile(hubPaths(home).lock, serializeHubLock(lock));
}

/** What `lockEntry` needs to build an entry. */
export interface NewLockEntry {
  source: string;
  identifier: string;
  trustLevel: string;
  verdict: string;
  contentHash: string;
  installPath: string;
  files: string[];
  metadata?: Record<string, unknown>;
  scanProvenance?: ScanProvenance | Record<string, unknown>;
  /** When the skill was first installed (an update keeps it; Hermes overwrites it, skillgate keeps it). */
  installedAt?: string;
  now: Date;
}

/** An entry with Hermes' keys in Hermes' order; the name and install path are validated first. */
export function lockEntry(name: string, fields: NewLockEntry): HubLockEntry {
  const installPath = normalizeInstallPath(fields.installPath, name);
  const now = isoTimestamp(fields.now);
  return {
    source: fields.source,
    identifier: fields.identifier,
    trust_level: fields.trustLevel,
    scan_verdict: fields.verdict,
    content_hash: fields.contentHash,
    install_path: installPath,
    files: fields.files,
    metadata: fields.metadata ?? {},
    scan_provenance: (fields.scanProvenance as Record<string, unknown> | undefined) ?? {},
    installed_at: fields.installedAt ?? now,
    updated_at: now,
  };
}

/**
 * Normalizes a bundle-controlled relative path the way Hermes does before touching disk: backslashes
 * become `/`, empty and `.` parts go; absolute paths, `..` parts, a drive letter, or (when `nested` is
 * false) more than one part are refused. Returns null when refused.
 */
export function normalizeBundlePath(value: string, nested: boolean): string | null {
  const raw = value.trim();
  if (raw === "") return null;
  const normalized = raw.replace(/\\/g, "/");
  if (normalized.startsWith("/")) return null;
  const parts = normalized.split("/").filter((part) => part !== "" && part !== ".");
  if (parts.length === 0 || parts.some((part) => part === "..")) return null;
  if (/^[A-Za-z]:$/.test(parts[0] as string)) return null;
  if (!nested && parts.length !== 1) return null;
  if (parts.some((part) => part.includes("\0"))) return null;
  return parts.join("/");
}

/** A skill name Hermes accepts for a hub install (one path part); throws a coded error otherwise. */
export function validateHubSkillName(name: string): string {
  const safe = normalizeBundlePath(name, false);
  if (safe === null || safe.startsWith("."))
    throw new SkillError("hub.bad_name", t("hub.badName", { name }), name);
  return safe;
}

/** An `install_path` that stays inside `skills/` and ends with the skill's name; throws otherwise. */
export function normalizeInstallPath(installPath: string, name: string): string {
  const safeName = validateHubSkillName(name);
  const normalized = normalizeBundlePath(installPath, true);
  if (normalized === null || normalized.split("/").at(-1) !== safeName)
    throw new SkillError("hub.bad_install_path", t("hub.badInstallPath", { path: installPath, name }), name);
  return normalized;
}

/** One line for `audit.log`. */
export interface AuditLine {
  action: "INSTALL" | "UNINSTALL" | "BLOCKED" | "UPDATE";
  name: string;
  source: string;
  trustLevel: string;
  verdict: string;
  extra?: string;
}

/** The text of one audit line as Hermes writes it (with its newline). */
export function formatAuditLine(line: AuditLine, now: Date): string {
  const stamp = `${now.toISOString().slice(0, 19)}Z`;
  const parts = [stamp, line.action, line.name, `${line.source}:${line.trustLevel}`, line.verdict];
  if (line.extra) parts.push(line.extra);
  return `${parts.join(" ")}\n`;
}

/** Appends one line to `audit.log` (created when missing). */
export async function appendAuditLine(home: string, line: AuditLine, now: Date): Promise<void> {
  const file = hubPaths(home).audit;
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.appendFile(file, formatAuditLine(line, now), "utf8");
}

/** A tap: a GitHub repository path that lists skill folders. */
export interface Tap {
  repo: string;
  path: string;
}

/** Reads `taps.json` (missing or unreadable: no taps, as Hermes reads it). */
export async function readTaps(home: string): Promise<Tap[]> {
  const text = await readTextIfExists(hubPaths(home).taps);
  if (text === undefined) return [];
  try {
    const doc = JSON.parse(text.replace(/^\uFEFF/, "")) as { taps?: unknown };
    if (!Array.isArray(doc.taps)) return [];
    return doc.taps.filter(
      (tap): tap is Tap => tap !== null && typeof tap === "object" && typeof (tap as Tap).repo === "string",
    );
  } catch {
    return [];
  }
}

/** The bytes Hermes writes for taps: two-space JSON with non-ASCII escaped, a final newline. */
export function serializeTaps(taps: Tap[]): string {
  const text = JSON.stringify({ taps }, null, 2).replace(
    /[\u007f-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return `${text}\n`;
}

/** Replaces `taps.json` atomically. */
export async function writeTaps(home: string, taps: Tap[]): Promise<void> {
  await atomicWriteFile(hubPaths(home).taps, serializeTaps(taps));
}

/** One file of a package: its POSIX path inside the package and its bytes. */
export interface PackageFile {
  path: string;
  bytes: Buffer;
}

/** The full SHA-256 (hex) of a package, over its files ordered by path, each `path NUL bytes`. */
export function packageDigest(files: readonly PackageFile[]): string {
  const hash = createHash("sha256");
  const ordered = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const file of ordered) {
    hash.update(Buffer.from(file.path, "utf8"));
    hash.update(Buffer.from([0]));
    hash.update(file.bytes);
  }
  return hash.digest("hex");
}

/** The short content hash Hermes records (`sha256:` and 16 hex digits). */
export function contentHash(files: readonly PackageFile[]): string {
  return `sha256:${packageDigest(files).slice(0, 16)}`;
}

/** Every regular file under `dir` (symlinks not followed), with POSIX paths relative to it. */
export async function readPackageFiles(dir: string): Promise<PackageFile[]> {
  const files: PackageFile[] = [];
  const walk = async (current: string, prefix: string): Promise<void> => {
    const entries = await fs.readdir(current, { withFileTypes: true });
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(full, rel);
      else if (entry.isFile()) files.push({ path: rel, bytes: await fs.readFile(full) });
    }
  };
  await walk(dir, "");
  return files;
}
