/**
 * Safety checks for skill lookups and views: hostile names and file paths are refused with a
 * `SkillError` before anything touches the disk, symlinks that leave a skill are refused, and skill text
 * is scanned for prompt-injection patterns so they can be shown to the person, not only logged.
 */
import { realpathSync } from "node:fs";
import path from "node:path";
import { SkillError } from "../core/errors.js";
import { isInside } from "./roots.js";

const WINDOWS_DRIVE = /^[A-Za-z]:/;

function components(value: string): string[] {
  return value.split(/[\\/]+/);
}

/**
 * Checks a skill name (a bare name or a categorized relative path) and returns it in POSIX form without
 * empty or `.` components. An absolute path lexically inside one of `roots` is turned into the path
 * relative to that root first. Throws `SkillError` for NUL bytes, other absolute paths and `..`.
 */
export function checkSkillName(name: string, roots: readonly string[] = []): string {
  if (name.includes("\0")) {
    throw new SkillError("skill.invalid_name", "Skill name must not contain NUL characters.", name);
  }
  let candidate = name.trim();
  if (path.isAbsolute(candidate) || WINDOWS_DRIVE.test(candidate) || candidate.startsWith("\\")) {
    const normalized = path.resolve(candidate);
    const root = roots.find((dir) => isInside(dir, normalized) && normalized !== dir);
    if (!root || WINDOWS_DRIVE.test(candidate)) {
      throw new SkillError(
        "skill.invalid_name",
        "Skill name must be a relative path within the skills directory.",
        name,
      );
    }
    if (components(path.relative(root, candidate)).includes("..")) {
      throw new SkillError(
        "skill.path_traversal",
        "Skill name cannot contain '..' path traversal components.",
        name,
      );
    }
    candidate = path.relative(root, normalized);
  }
  const parts = components(candidate);
  if (parts.includes("..")) {
    throw new SkillError(
      "skill.path_traversal",
      "Skill name cannot contain '..' path traversal components.",
      name,
    );
  }
  return parts.filter((part) => part !== "" && part !== ".").join("/");
}

/**
 * Checks a file path inside a skill and returns it in POSIX form. Throws `SkillError` for NUL bytes,
 * `..` components and absolute paths.
 */
export function checkFilePath(filePath: string, skill?: string): string {
  if (filePath.includes("\0")) {
    throw new SkillError("skill.invalid_path", "File path must not contain NUL characters.", skill);
  }
  const parts = components(filePath);
  if (parts.includes(".."))
    throw new SkillError("skill.path_traversal", "Path traversal ('..') is not allowed.", skill);
  if (path.isAbsolute(filePath) || WINDOWS_DRIVE.test(filePath) || filePath.startsWith("\\")) {
    throw new SkillError(
      "skill.invalid_path",
      "File path must be relative to the skill directory, e.g. 'references/api.md'.",
      skill,
    );
  }
  const clean = parts.filter((part) => part !== "" && part !== ".").join("/");
  if (clean === "")
    throw new SkillError(
      "skill.invalid_path",
      "File path is empty; name a file such as 'references/api.md'.",
      skill,
    );
  return clean;
}

/**
 * Resolves `relative` inside `baseDir` through symlinks and returns the real path, or undefined when it
 * does not exist. Throws `SkillError` when the real path leaves the real `baseDir`.
 */
export function resolveInside(baseDir: string, relative: string, skill?: string): string | undefined {
  const realBase = realpathSync.native(baseDir);
  let real: string;
  try {
    real = realpathSync.native(path.join(baseDir, relative));
  } catch (error) {
    if (
      (error as NodeJS.ErrnoException).code === "ENOENT" ||
      (error as NodeJS.ErrnoException).code === "ENOTDIR"
    )
      return undefined;
    throw error;
  }
  if (!isInside(realBase, real)) {
    throw new SkillError(
      "skill.path_escape",
      `File '${relative}' resolves outside the skill directory (through a symlink); skillgate does not follow links that leave a skill.`,
      skill,
    );
  }
  return real;
}

interface InjectionPattern {
  label: string;
  test: RegExp;
}

// Matched against text lowercased, NFKC-normalised, with invisible characters removed and whitespace
// collapsed, so spacing, case and zero-width tricks do not hide a phrase.
const INJECTION_PATTERNS: InjectionPattern[] = [
  {
    label: "asks to ignore previous instructions",
    test: /ignore (all )?(the )?(previous|prior|above|earlier|preceding) (instructions|prompts|rules|messages)/,
  },
  { label: "asks to ignore previous instructions", test: /ignore all previous/ },
  { label: 'tries to redefine the assistant ("you are now")', test: /\byou are now\b/ },
  {
    label: "asks to disregard the assistant's rules",
    test: /disregard (all )?(your|the|any) (previous |prior )?(instructions|rules|guidelines|system prompt)|disregard your/,
  },
  { label: "asks to forget instructions", test: /forget (all )?(your|the|previous) instructions/ },
  { label: "declares new instructions", test: /new instructions:/ },
  {
    label: "tries to override the system prompt",
    test: /system prompt:|(override|replace|ignore|reveal|print|show) (the |your )?system prompt/,
  },
  { label: "contains a fake <system> tag", test: /<\/?system>/ },
  { label: "contains a CDATA terminator (]]>)", test: /\]\]>/ },
  {
    label: "pipes a download into a shell (curl|sh)",
    test: /\b(curl|wget)\b[^\n|;]*\|\s*(sudo\s+)?(ba|z|da|k)?sh\b/,
  },
  {
    label: "pipes decoded data into a shell",
    test: /base64 (-d|--decode)[^\n|;]*\|\s*(sudo\s+)?(ba|z|da)?sh\b/,
  },
];

// Zero-width characters, bidi controls and Unicode tag characters hide text from a human reader.
const HIDDEN_UNICODE = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|\uDB40[\uDC00-\uDC7F]/;
const HIDDEN_UNICODE_GLOBAL = new RegExp(HIDDEN_UNICODE.source, "g");

/**
 * Scans skill text for prompt-injection patterns and hidden Unicode. Returns one readable warning per
 * kind found (with the first line it appears on); `label` names the file in the warning.
 */
export function scanForInjection(text: string, label = "SKILL.md"): string[] {
  const warnings: string[] = [];
  const seen = new Set<string>();
  const lines = text.split("\n");
  const hiddenLine = lines.findIndex((line, index) =>
    HIDDEN_UNICODE.test(index === 0 ? line.replace(/^\uFEFF/, "") : line),
  );
  if (hiddenLine >= 0) {
    warnings.push(
      `${label} line ${hiddenLine + 1}: contains invisible Unicode characters (zero-width, bidi or tag characters) that can hide instructions.`,
    );
  }
  const normalized = lines.map((line) =>
    line.normalize("NFKC").replace(HIDDEN_UNICODE_GLOBAL, "").toLowerCase().replace(/\s+/g, " "),
  );
  for (const pattern of INJECTION_PATTERNS) {
    if (seen.has(pattern.label)) continue;
    let at = normalized.findIndex((line) => pattern.test.test(line));
    if (at < 0 && pattern.test.test(normalized.join(" "))) at = -2;
    if (at === -1) continue;
    seen.add(pattern.label);
    const where = at >= 0 ? ` line ${at + 1}` : "";
    warnings.push(`${label}${where}: possible prompt injection — ${pattern.label}.`);
  }
  return warnings;
}
