/**
 * The walk over skill roots, following Hermes' rules: dependency and metadata folders are pruned
 * everywhere; inside a folder that has a SKILL.md, the support folders (`references templates assets
 * scripts`) are pruned too (a category merely named `scripts` stays discoverable); symlinked folders are
 * followed, each real folder at most once, so link loops end. Each SKILL.md is read up to its first 4000
 * characters with a bounded read.
 *
 * The walk is synchronous on purpose: on a warm page cache, sync `readdir`/`open`/`read` are about twice
 * as fast as their promise versions on this kind of tree, and the library only scans on start and after
 * a change.
 */

import { isAscii } from "node:buffer";
import { closeSync, type Dirent, openSync, readdirSync, readSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { parseFrontmatterBlock, parseSkillMd } from "./frontmatter.js";
import type { SkillRoot } from "./roots.js";
import {
  detectEnvironments,
  type RuntimeEnvironments,
  skillMatchesEnvironment,
  skillMatchesPlatform,
} from "./visibility.js";

/** Folders never walked. `.curator_backups`, `.locks` and rollback staging are skillgate additions. */
export const EXCLUDED_DIRS = new Set([
  ".git",
  ".github",
  ".hub",
  ".archive",
  ".venv",
  "venv",
  "node_modules",
  "site-packages",
  "__pycache__",
  ".tox",
  ".nox",
  ".pytest_cache",
  ".mypy_cache",
  ".ruff_cache",
  ".curator_backups",
  ".locks",
]);

/** Support folders: pruned inside a skill folder, never skill roots themselves. */
export const SUPPORT_DIRS = new Set(["references", "templates", "assets", "scripts"]);

/** True for a folder name the walk skips everywhere. */
export function isExcludedDir(name: string): boolean {
  return EXCLUDED_DIRS.has(name) || name.startsWith(".rollback-staging-");
}

/** How much of each SKILL.md listing reads. */
export const HEAD_CHARS = 4000;

/** What listing needs from one SKILL.md head. */
export interface SkillHead {
  /** Frontmatter name (or folder name), truncated to 64. */
  name: string;
  /** The untruncated frontmatter name, when declared. */
  declaredName: string | undefined;
  description: string;
  category: string | null;
  frontmatter: Record<string, unknown>;
  /** The `platforms:` gate passes on this OS. */
  osOk: boolean;
  /** The `environments:` gate passes here. */
  envOk: boolean;
}

/** One SKILL.md found by the walk. */
export interface ScanRecord {
  rootIndex: number;
  /** Skill folder as reached from the root (symlinks not resolved). */
  dir: string;
  /** Skill folder resolved through symlinks. */
  realDir: string;
  /** SKILL.md path relative to the root, POSIX separators. */
  relFile: string;
  skillFile: string;
  head?: SkillHead;
  /** Why the file could not be read (the skill is skipped). */
  error?: string;
  /** mtime/size/inode of SKILL.md when the scan took them (refreshes reuse unchanged heads). */
  stamp?: string;
}

/** The outcome of one walk over all roots. */
export interface ScanResult {
  roots: SkillRoot[];
  /** Sorted by root order, then by relative SKILL.md path. */
  records: ScanRecord[];
  /** Legacy single-file skills: `<stem>` → `.md` files outside skill folders, in walk order. */
  legacy: Map<string, string[]>;
  /** Every real folder walked (for watchers and validation). */
  dirs: string[];
}

const decoder = new TextDecoder("utf-8", { fatal: true });
const buffer = Buffer.allocUnsafe(HEAD_CHARS * 4);

/** Reads the first 4000 characters of a UTF-8 file (at most 16000 bytes), newlines normalised. */
export function readHead(file: string): string {
  const fd = openSync(file, "r");
  try {
    return decodeAll(fd, readSync(fd, buffer, 0, HEAD_CHARS, 0));
  } finally {
    closeSync(fd);
  }
}

/** Decodes `length` bytes already in `buffer` (reading on for multi-byte text) into the 4000-char head. */
function decodeAll(fd: number, length: number): string {
  let text = decodeHead(buffer.subarray(0, length), length < HEAD_CHARS);
  if (length === HEAD_CHARS && text.length < HEAD_CHARS) {
    // Multi-byte characters: read on until 4000 characters are in hand.
    const total = length + readSync(fd, buffer, length, buffer.length - length, length);
    text = decodeHead(buffer.subarray(0, total), total < buffer.length);
  }
  if (text.includes("\r")) text = text.replace(/\r\n?/g, "\n");
  return text.length > HEAD_CHARS ? text.slice(0, HEAD_CHARS) : text;
}

function decodeHead(bytes: Uint8Array, complete: boolean): string {
  if (complete) return decoder.decode(bytes);
  // The cut may split a character: decode up to the last complete one.
  let end = bytes.length;
  let back = 0;
  while (back < 3 && end - back - 1 >= 0 && ((bytes[end - back - 1] as number) & 0xc0) === 0x80) back += 1;
  const lead = bytes[end - back - 1];
  if (lead !== undefined && lead >= 0xc0) {
    const needed = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
    if (back + 1 < needed) end = end - back - 1;
  }
  return decoder.decode(bytes.subarray(0, end));
}

/** First non-empty body line that is not a `#` heading. */
export function firstBodyLine(body: string): string {
  for (const raw of body.trim().split("\n")) {
    const line = raw.trim();
    if (line !== "" && !line.startsWith("#")) return line;
  }
  return "";
}

/** Description rule: the frontmatter value, else the first body line; over 1024 → 1021 chars + `...`. */
export function describe(frontmatter: Record<string, unknown>, body: string): string {
  const declared = frontmatter.description;
  let description = declared === undefined || declared === null ? "" : String(declared).trim();
  if (description === "") description = firstBodyLine(body);
  return description.length > 1024 ? `${description.slice(0, 1021)}...` : description;
}

/** Builds the head of one SKILL.md text. */
export function headFromText(
  text: string,
  relFile: string,
  dirName: string,
  runtime: RuntimeEnvironments,
): SkillHead {
  const { frontmatter, body } = parseSkillMd(text);
  return buildHead(frontmatter, () => body, relFile, dirName, runtime);
}

function buildHead(
  frontmatter: Record<string, unknown>,
  body: () => string,
  relFile: string,
  dirName: string,
  runtime: RuntimeEnvironments,
): SkillHead {
  const rawName = frontmatter.name;
  const declaredName =
    rawName === undefined || rawName === null || rawName === "" ? undefined : String(rawName).trim();
  const name = (declaredName || dirName).slice(0, 64);
  const declared = frontmatter.description;
  const hasDescription = declared !== undefined && declared !== null && String(declared).trim() !== "";
  const slash = relFile.indexOf("/");
  return {
    name,
    declaredName,
    description: describe(frontmatter, hasDescription ? "" : body()),
    category: slash >= 0 && relFile.indexOf("/", slash + 1) >= 0 ? relFile.slice(0, slash) : null,
    frontmatter,
    osOk: skillMatchesPlatform(frontmatter),
    envOk: skillMatchesEnvironment(frontmatter, runtime),
  };
}

const NEWLINE = 10;
const CARRIAGE_RETURN = 13;

function isAsciiSpace(byte: number | undefined): boolean {
  return byte === 32 || (byte !== undefined && byte >= 9 && byte <= 13);
}

/**
 * Reads and builds the head of one SKILL.md. Pure-ASCII heads (the common case) are handled on the bytes:
 * only the frontmatter block is turned into a string, and the body only when the description needs it.
 * Anything else goes through the full 4000-character decode.
 */
export function loadHead(
  file: string,
  relFile: string,
  dirName: string,
  runtime: RuntimeEnvironments,
): SkillHead {
  const fd = openSync(file, "r");
  try {
    const length = readSync(fd, buffer, 0, HEAD_CHARS, 0);
    const bytes = buffer.subarray(0, length);
    if (isAscii(bytes) && !bytes.includes(CARRIAGE_RETURN) && bytes.toString("latin1", 0, 3) === "---") {
      // Same rule as the text path: the block closes at the first `\n---<whitespace>\n`, and the body
      // starts after the last newline of that whitespace run.
      let from = 3;
      for (;;) {
        const at = bytes.indexOf("\n---", from, "latin1");
        if (at < 0) break;
        let index = at + 4;
        let lastNewline = -1;
        while (index < length && isAsciiSpace(bytes[index])) {
          if (bytes[index] === NEWLINE) lastNewline = index;
          index += 1;
        }
        if (lastNewline >= 0) {
          const { frontmatter } = parseFrontmatterBlock(bytes.toString("latin1", 3, at));
          const bodyStart = lastNewline + 1;
          return buildHead(
            frontmatter,
            () => bytes.toString("latin1", bodyStart, length),
            relFile,
            dirName,
            runtime,
          );
        }
        from = at + 1;
      }
    }
    return headFromText(decodeAll(fd, length), relFile, dirName, runtime);
  } finally {
    closeSync(fd);
  }
}

function stampOf(file: string): string | undefined {
  try {
    const stat = statSync(file);
    return `${stat.mtimeMs}:${stat.ctimeMs}:${stat.size}:${stat.ino}`;
  } catch {
    return undefined;
  }
}

function kindOf(full: string, entry: Dirent): "dir" | "file" | "other" {
  if (entry.isDirectory()) return "dir";
  if (entry.isFile()) return "file";
  if (
    entry.isSymbolicLink() ||
    !(entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice())
  ) {
    try {
      const stat = statSync(full);
      return stat.isDirectory() ? "dir" : stat.isFile() ? "file" : "other";
    } catch {
      return "other";
    }
  }
  return "other";
}

/** Options of `scanRoots`. */
export interface ScanOptions {
  /** Records of the previous scan, by SKILL.md path: unchanged files (same stamp) are not re-read. */
  previous?: Map<string, ScanRecord>;
  runtime?: RuntimeEnvironments;
}

/** Walks every root and reads every SKILL.md head. Never throws for unreadable entries. */
export function scanRoots(roots: SkillRoot[], options: ScanOptions = {}): ScanResult {
  const runtime = options.runtime ?? detectEnvironments();
  const result: ScanResult = { roots, records: [], legacy: new Map(), dirs: [] };
  roots.forEach((root, rootIndex) => {
    if (!root.exists) return;
    const found: ScanRecord[] = [];
    walkRoot(root, rootIndex, found, result);
    found.sort((a, b) => (a.relFile < b.relFile ? -1 : a.relFile > b.relFile ? 1 : 0));
    for (const record of found) {
      const dirName = path.basename(record.dir);
      const previous = options.previous?.get(record.skillFile);
      if (options.previous) record.stamp = stampOf(record.skillFile);
      if (
        previous?.head &&
        previous.stamp !== undefined &&
        previous.stamp === record.stamp &&
        previous.realDir === record.realDir
      ) {
        record.head = previous.head;
      } else {
        try {
          record.head = loadHead(record.skillFile, record.relFile, dirName, runtime);
        } catch (error) {
          record.error = (error as Error).message;
        }
      }
      result.records.push(record);
    }
  });
  return result;
}

function walkRoot(root: SkillRoot, rootIndex: number, found: ScanRecord[], result: ScanResult): void {
  const visited = new Set<string>([root.real]);
  // Depth-first, sorted; each item: lexical dir, real dir, relative dir ("" for the root).
  const stack: [string, string, string][] = [[root.dir, root.real, ""]];
  while (stack.length > 0) {
    const [dir, real, rel] = stack.pop() as [string, string, string];
    result.dirs.push(real);
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    let hasSkill = false;
    for (const entry of entries) {
      if (entry.name === "SKILL.md" && kindOf(dir + path.sep + entry.name, entry) === "file") {
        hasSkill = true;
        break;
      }
    }
    if (hasSkill) {
      found.push({
        rootIndex,
        dir,
        realDir: real,
        relFile: rel === "" ? "SKILL.md" : `${rel}/SKILL.md`,
        skillFile: `${dir}${path.sep}SKILL.md`,
      });
    }
    const children: [string, string, string][] = [];
    for (const entry of entries) {
      const name = entry.name;
      if (isExcludedDir(name) || (hasSkill && SUPPORT_DIRS.has(name))) continue;
      const full = dir + path.sep + name;
      const kind = entry.isDirectory() ? "dir" : entry.isFile() ? "file" : kindOf(full, entry);
      if (kind === "file") {
        if (!hasSkill && name.endsWith(".md") && name !== "SKILL.md")
          addLegacy(result.legacy, name.slice(0, -3), full);
        continue;
      }
      if (kind !== "dir") continue;
      let childReal = real + path.sep + name;
      if (entry.isSymbolicLink()) {
        try {
          childReal = realpathSync.native(full);
        } catch {
          continue;
        }
      }
      if (visited.has(childReal)) continue;
      visited.add(childReal);
      children.push([full, childReal, rel === "" ? name : `${rel}/${name}`]);
    }
    children.sort((a, b) => (a[2] < b[2] ? 1 : a[2] > b[2] ? -1 : 0));
    for (const child of children) stack.push(child);
  }
}

function addLegacy(legacy: Map<string, string[]>, stem: string, file: string): void {
  const list = legacy.get(stem);
  if (list) list.push(file);
  else legacy.set(stem, [file]);
}
