/**
 * Safety checks for skill lookups and views: hostile names and file paths are refused with a
 * `SkillError` before anything touches the disk, symlinks that leave a skill are refused, and skill text
 * is scanned for prompt-injection patterns so they can be shown to the person, not only logged.
 */
import { realpathSync } from "node:fs";
import path from "node:path";
import { SkillError } from "../core/errors.js";
import { english, type Text, t } from "../core/i18n/messages.js";
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
    throw new SkillError("skill.invalid_name", t("skill.name.nul"), name);
  }
  let candidate = name.trim();
  if (path.isAbsolute(candidate) || WINDOWS_DRIVE.test(candidate) || candidate.startsWith("\\")) {
    const normalized = path.resolve(candidate);
    const root = roots.find((dir) => isInside(dir, normalized) && normalized !== dir);
    if (!root || WINDOWS_DRIVE.test(candidate)) {
      throw new SkillError("skill.invalid_name", t("skill.name.absolute"), name);
    }
    if (components(path.relative(root, candidate)).includes("..")) {
      throw new SkillError("skill.path_traversal", t("skill.name.traversal"), name);
    }
    candidate = path.relative(root, normalized);
  }
  const parts = components(candidate);
  if (parts.includes("..")) {
    throw new SkillError("skill.path_traversal", t("skill.name.traversal"), name);
  }
  return parts.filter((part) => part !== "" && part !== ".").join("/");
}

/**
 * Checks a file path inside a skill and returns it in POSIX form. Throws `SkillError` for NUL bytes,
 * `..` components and absolute paths.
 */
export function checkFilePath(filePath: string, skill?: string): string {
  if (filePath.includes("\0")) {
    throw new SkillError("skill.invalid_path", t("skill.path.nul"), skill);
  }
  const parts = components(filePath);
  if (parts.includes("..")) throw new SkillError("skill.path_traversal", t("skill.path.traversal"), skill);
  if (path.isAbsolute(filePath) || WINDOWS_DRIVE.test(filePath) || filePath.startsWith("\\")) {
    throw new SkillError("skill.invalid_path", t("skill.path.absolute"), skill);
  }
  const clean = parts.filter((part) => part !== "" && part !== ".").join("/");
  if (clean === "") throw new SkillError("skill.invalid_path", t("skill.path.empty"), skill);
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
    throw new SkillError("skill.path_escape", t("skill.path.escape", { file: relative }), skill);
  }
  return real;
}

interface InjectionPattern {
  label: Text;
  test: RegExp;
}

// Matched against text lowercased, NFKC-normalised, with invisible characters removed and whitespace
// collapsed, so spacing, case and zero-width tricks do not hide a phrase.
const INJECTION_PATTERNS: InjectionPattern[] = [
  {
    label: t("injection.ignorePrevious"),
    test: /ignore (all )?(the )?(previous|prior|above|earlier|preceding) (instructions|prompts|rules|messages)/,
  },
  { label: t("injection.ignorePrevious"), test: /ignore all previous/ },
  { label: t("injection.youAreNow"), test: /\byou are now\b/ },
  {
    label: t("injection.disregardRules"),
    test: /disregard (all )?(your|the|any) (previous |prior )?(instructions|rules|guidelines|system prompt)|disregard your/,
  },
  { label: t("injection.forget"), test: /forget (all )?(your|the|previous) instructions/ },
  { label: t("injection.newInstructions"), test: /new instructions:/ },
  {
    label: t("injection.systemPrompt"),
    test: /system prompt:|(override|replace|ignore|reveal|print|show) (the |your )?system prompt/,
  },
  { label: t("injection.systemTag"), test: /<\/?system>/ },
  { label: t("injection.cdata"), test: /\]\]>/ },
  {
    label: t("injection.curlSh"),
    test: /\b(curl|wget)\b[^\n|;]*\|\s*(sudo\s+)?(ba|z|da|k)?sh\b/,
  },
  {
    label: t("injection.base64Sh"),
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
  return injectionWarnings(text, label).map(english);
}

/** The warnings of `scanForInjection` as catalog texts (shown in the reader's locale). */
export function injectionWarnings(text: string, label = "SKILL.md"): Text[] {
  const warnings: Text[] = [];
  const seen = new Set<Text>();
  const lines = text.split("\n");
  const hiddenLine = lines.findIndex((line, index) =>
    HIDDEN_UNICODE.test(index === 0 ? line.replace(/^\uFEFF/, "") : line),
  );
  if (hiddenLine >= 0) {
    warnings.push(t("injection.hiddenUnicode", { label, line: String(hiddenLine + 1) }));
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
    warnings.push(
      at >= 0
        ? t("injection.foundAt", { label, line: String(at + 1), what: pattern.label })
        : t("injection.found", { label, what: pattern.label }),
    );
  }
  return warnings;
}
