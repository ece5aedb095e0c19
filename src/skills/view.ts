/**
 * `skill_view`: finds one skill by name across the roots and returns the reference's result object —
 * SKILL.md with its tags, linked files and readiness, or one file inside the skill — plus skillgate's
 * `security_warnings`. Refusals (bad names, traversal, ambiguity, not found, wrong OS, disabled) are
 * `{success: false, error, …}` objects; only a broken disabled list in config.yaml throws (fail closed).
 */
import { type Dirent, readdirSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import type { SkillgateConfig } from "../config/config.js";
import { SkillError } from "../core/errors.js";
import { english, type Text, t } from "../core/i18n/messages.js";
import {
  displayPath,
  formatBytes,
  MAX_FRONTMATTER_BYTES,
  MAX_LINKED_FILE_BYTES,
  MAX_SKILL_MD_BYTES,
  readBounded,
  readContained,
} from "./containment.js";
import { parseListField, parseSkillMd } from "./frontmatter.js";
import type { Snapshot } from "./library-snapshot.js";
import { readinessFields, setupNoteText } from "./readiness.js";
import { isInside, type SkillRoot } from "./roots.js";
import { isExcludedDir, SUPPORT_DIRS } from "./scan.js";
import { checkFilePath, checkSkillName, injectionWarnings, resolveInside } from "./security.js";
import { describe } from "./skill-head.js";
import type { SkillViewResult, ViewOptions } from "./types.js";
import { UsageStore } from "./usage.js";
import { englishAll, withViewTexts } from "./view-texts.js";
import { disabledNames, effectivePlatform, skillMatchesPlatform } from "./visibility.js";

/** What `viewSkill` needs from the library. */
export interface ViewContext {
  home: string;
  config: SkillgateConfig;
  env: NodeJS.ProcessEnv;
  roots: SkillRoot[];
  snapshot: Snapshot;
  /** Names in listing order visible on a platform (for the not-found hint). */
  listNames(platform: string | null): string[];
}

interface Candidate {
  /** `dir`: a folder with SKILL.md; `file`: a legacy single `<name>.md`. */
  kind: "dir" | "file";
  dir: string;
  file: string;
  root: SkillRoot;
}

const USAGE_HINT =
  "To view linked files, call skill_view(name, file_path) where file_path is e.g. 'references/api.md' or 'assets/config.yaml'";
const TEXT_SUFFIXES = new Set([".md", ".py", ".yaml", ".yml", ".json", ".tex", ".sh"]);
const SCRIPT_SUFFIXES = new Set([".py", ".sh", ".bash", ".js", ".ts", ".rb"]);
const MAX_LISTED = 1000;
/** Template variable replaced by the skill folder in served content (Hermes' template preprocessing). */
const SKILL_DIR_PLACEHOLDER = ["$", "{HERMES_SKILL_DIR}"].join("");
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A failed view: `error` in English (the JSON Hermes and scripts read), the text for people beside it. */
function failure(error: Text, extra: Record<string, unknown> = {}): SkillViewResult {
  return withViewTexts({ success: false, error: english(error), ...extra }, { error });
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function realOf(file: string): string {
  try {
    return realpathSync.native(file);
  } catch {
    return file;
  }
}

function findCandidates(ctx: ViewContext, name: string): Candidate[] {
  const found = new Map<string, Candidate>();
  const add = (candidate: Candidate) => {
    const real = realOf(candidate.file);
    if (!found.has(real)) found.set(real, candidate);
  };
  const parts = name.split("/");
  const blockedPath = parts.slice(0, -1).some((part) => SUPPORT_DIRS.has(part)) || parts.some(isExcludedDir);
  for (const root of ctx.roots) {
    if (!root.exists || blockedPath) continue;
    const direct = path.join(root.dir, ...parts);
    if (isFile(path.join(direct, "SKILL.md")))
      add({ kind: "dir", dir: direct, file: path.join(direct, "SKILL.md"), root });
    else if (isFile(`${direct}.md`))
      add({ kind: "file", dir: path.dirname(direct), file: `${direct}.md`, root });
  }
  if (!name.includes("/")) {
    for (const record of ctx.snapshot.scan.records) {
      const head = record.head;
      if (path.basename(record.dir) === name || head?.declaredName === name || head?.name === name) {
        add({
          kind: "dir",
          dir: record.dir,
          file: record.skillFile,
          root: ctx.snapshot.scan.roots[record.rootIndex] as SkillRoot,
        });
      }
    }
    for (const file of ctx.snapshot.scan.legacy.get(name) ?? []) {
      const root =
        ctx.roots.find((candidate) => candidate.exists && isInside(candidate.dir, file)) ??
        (ctx.roots[0] as SkillRoot);
      add({ kind: "file", dir: path.dirname(file), file, root });
    }
  }
  return [...found.values()];
}

function relativeLabel(candidate: Candidate): string {
  const base = candidate.kind === "dir" ? candidate.dir : candidate.file.slice(0, -3);
  return path.relative(candidate.root.dir, base).split(path.sep).join("/");
}

/** Shows a skill (or one of its files). See the module comment. */
export async function viewSkill(
  ctx: ViewContext,
  rawName: string,
  options: ViewOptions = {},
): Promise<SkillViewResult> {
  const platform = options.platform ?? null;
  let name: string;
  try {
    name = checkSkillName(
      rawName,
      ctx.roots.filter((root) => root.exists).flatMap((root) => [root.dir, root.real]),
    );
  } catch (error) {
    if (error instanceof SkillError) return failure(error.text);
    throw error;
  }
  // `namespace:skill` names a plugin skill in Hermes; skillgate has no plugins, so it is the path ns/skill.
  const plugin = /^([a-zA-Z0-9_-]+):(.+)$/.exec(name);
  if (plugin) name = `${plugin[1]}/${plugin[2]}`;
  if (!ctx.roots.some((root) => root.exists)) {
    return failure(t("view.noSkillsDir"));
  }
  if (name === "") return notFound(ctx, rawName, platform);
  const candidates = findCandidates(ctx, name);
  if (candidates.length > 1) {
    const matches = candidates.map((candidate) =>
      candidate.root.kind === "local"
        ? relativeLabel(candidate)
        : path.join(candidate.root.dir, relativeLabel(candidate)),
    );
    return failure(t("view.ambiguous", { name: rawName, count: candidates.length }), {
      matches,
      hint: `Load one of the matches by its categorized path, e.g. skill_view('${relativeLabel(candidates.find((item) => item.root.kind === "local") ?? (candidates[0] as Candidate))}'), or rename one of them so the names are unique.`,
    });
  }
  const candidate = candidates[0];
  if (!candidate) return notFound(ctx, rawName, platform);
  return showCandidate(ctx, rawName, candidate, options);
}

function notFound(ctx: ViewContext, rawName: string, platform: string | null): SkillViewResult {
  return failure(t("view.notFound", { name: rawName }), {
    available_skills: ctx.listNames(platform).slice(0, 20),
    hint: "Use skills_list to see all available skills",
  });
}

async function showCandidate(
  ctx: ViewContext,
  rawName: string,
  candidate: Candidate,
  options: ViewOptions,
): Promise<SkillViewResult> {
  const platform = options.platform ?? null;
  const label = candidate.kind === "dir" ? "SKILL.md" : path.basename(candidate.file);
  let content: string;
  try {
    // The containment rule: the file must resolve inside the skill's own folder; reads are bounded.
    const { bytes } = readContained(candidate.dir, candidate.file, {
      label,
      skill: rawName,
      limit: MAX_SKILL_MD_BYTES,
    });
    content = utf8.decode(bytes).replace(/^\uFEFF/, "");
  } catch (error) {
    if (error instanceof SkillError) return failure(error.text);
    if (error instanceof TypeError) return failure(t("view.notUtf8", { label, name: rawName }));
    return failure(t("view.unreadable", { name: rawName, detail: (error as Error).message }));
  }
  const frontmatterEnd = content.startsWith("---") ? content.indexOf("\n---", 3) : -1;
  if (frontmatterEnd > MAX_FRONTMATTER_BYTES) {
    return failure(
      t("view.frontmatterTooLarge", { name: rawName, limit: formatBytes(MAX_FRONTMATTER_BYTES) }),
    );
  }
  const { frontmatter, body } = parseSkillMd(
    content.includes("\r") ? content.replace(/\r\n?/g, "\n") : content,
  );
  const folderName =
    candidate.kind === "dir" ? path.basename(candidate.dir) : path.basename(candidate.file, ".md");
  const declared =
    typeof frontmatter.name === "string" && frontmatter.name.trim() !== ""
      ? frontmatter.name.trim()
      : undefined;
  const skillName = declared ?? folderName;

  if (!skillMatchesPlatform(frontmatter)) {
    return failure(t("view.unsupportedPlatform", { name: rawName }), {
      readiness_status: "unsupported",
    });
  }
  const refusal = disabledRefusal(ctx, rawName, [skillName, folderName, skillName.slice(0, 64)], platform);
  if (refusal) return refusal;

  const result =
    options.filePath === undefined
      ? await skillResult(ctx, candidate, content, frontmatter, body, skillName, platform)
      : fileResult(candidate, skillName, options.filePath);
  if (result.success && options.bumpView) {
    // Telemetry must not break a view: a busy or unwritable usage file only costs this one count.
    await new UsageStore(path.join(ctx.home, "skills")).bump(skillName, "view").catch(() => undefined);
  }
  return result;
}

function disabledRefusal(
  ctx: ViewContext,
  rawName: string,
  names: string[],
  platform: string | null,
): SkillViewResult | undefined {
  const disabled = disabledNames(platform, ctx.config);
  const hit = names.find((candidate) => disabled.has(candidate));
  if (hit === undefined) return undefined;
  const effective = effectivePlatform(platform, ctx.env);
  const globally = ctx.config.skills.disabled.map((entry) => entry.trim()).includes(hit);
  const where =
    globally || !effective ? t("view.disabled.everywhere") : t("view.disabled.on", { platform: effective });
  return failure(
    effective
      ? t("view.disabledHere", { name: rawName, where, platform: effective })
      : t("view.disabled", { name: rawName, where }),
  );
}

async function skillResult(
  ctx: ViewContext,
  candidate: Candidate,
  content: string,
  frontmatter: Record<string, unknown>,
  body: string,
  skillName: string,
  platform: string | null,
): Promise<SkillViewResult> {
  const hermes = (frontmatter.metadata as { hermes?: Record<string, unknown> } | undefined)?.hermes;
  const pick = (key: string) =>
    parseListField(
      hermes && typeof hermes === "object" && hermes[key] !== undefined ? hermes[key] : frontmatter[key],
    );
  const linked = candidate.kind === "dir" ? linkedFiles(candidate.dir) : null;
  const readiness = await readinessFields(frontmatter, ctx.home, {
    platform,
    env: ctx.env,
    settings: ctx.config.skills.settings,
  });
  // On a chat surface, server paths are shown relative to the home.
  const shown = (target: string) => (platform ? displayPath(ctx.home, target) : target);
  const pathLabel =
    candidate.root.kind === "local"
      ? path.relative(candidate.root.dir, candidate.file).split(path.sep).join("/")
      : candidate.kind === "dir"
        ? `${path.basename(candidate.dir)}/SKILL.md`
        : path.basename(candidate.file);
  const result: SkillViewResult = {
    success: true,
    name: skillName,
    description: describe(frontmatter, body),
    tags: pick("tags"),
    related_skills: pick("related_skills"),
    content: content.replaceAll(SKILL_DIR_PLACEHOLDER, shown(candidate.dir)),
    path: pathLabel,
    skill_dir: candidate.kind === "dir" ? shown(candidate.dir) : null,
    linked_files: linked,
    usage_hint: linked ? USAGE_HINT : null,
    ...readiness,
  };
  if (frontmatter.compatibility !== undefined) result.compatibility = frontmatter.compatibility;
  if (frontmatter.metadata !== undefined) result.metadata = frontmatter.metadata;
  const warnings = [
    ...trustWarnings(ctx, candidate, skillName, shown),
    ...injectionWarnings(content, "SKILL.md"),
  ];
  result.security_warnings = englishAll(warnings);
  const setupNote = readiness.setup_needed
    ? setupNoteText(
        readiness.missing_required_environment_variables,
        readiness.missing_credential_files,
        readiness.missing_required_commands,
        readiness.setup_help,
        ctx.env,
      )
    : undefined;
  return withViewTexts(result, { securityWarnings: warnings, ...(setupNote ? { setupNote } : {}) });
}

function trustWarnings(
  ctx: ViewContext,
  candidate: Candidate,
  skillName: string,
  shown: (target: string) => string,
): Text[] {
  const warnings: Text[] = [];
  const real = realOf(candidate.file);
  if (!ctx.roots.some((root) => root.exists && isInside(root.real, real))) {
    warnings.push(t("view.trust.symlink", { name: skillName, target: shown(real) }));
  }
  if (candidate.root.kind === "external") {
    warnings.push(
      t("view.trust.external", {
        name: skillName,
        folder: shown(candidate.root.dir),
        local: shown(path.join(ctx.home, "skills")),
      }),
    );
  }
  return warnings;
}

/** Files under `dir` (relative POSIX paths), not following links that leave `realBase`. */
function listFiles(dir: string, realBase: string, recursive: boolean, prefix: string, out: string[]): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (out.length >= MAX_LISTED) return;
    const full = path.join(dir, entry.name);
    const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isSymbolicLink()) {
      const real = realOf(full);
      if (!isInside(realBase, real)) continue;
      if (isFile(real)) out.push(rel);
      continue;
    }
    if (entry.isDirectory()) {
      if (recursive && !isExcludedDir(entry.name)) listFiles(full, realBase, true, rel, out);
    } else if (entry.isFile()) out.push(rel);
  }
}

function filesIn(skillDir: string, sub: string, recursive: boolean, suffixes?: Set<string>): string[] {
  const out: string[] = [];
  const realBase = realOf(skillDir);
  const dir = path.join(skillDir, sub);
  if (!isInside(realBase, realOf(dir))) return out;
  listFiles(dir, realBase, recursive, sub, out);
  return suffixes ? out.filter((file) => suffixes.has(path.extname(file))) : out;
}

/** The reference's `linked_files` groups (keys only when non-empty), or null when there are none. */
export function linkedFiles(skillDir: string): Record<string, string[]> | null {
  const groups: Record<string, string[]> = {
    references: filesIn(skillDir, "references", false, new Set([".md"])),
    templates: filesIn(skillDir, "templates", true, TEXT_SUFFIXES),
    assets: filesIn(skillDir, "assets", true),
    scripts: filesIn(skillDir, "scripts", false, SCRIPT_SUFFIXES),
  };
  const present = Object.entries(groups).filter(([, files]) => files.length > 0);
  return present.length > 0 ? Object.fromEntries(present) : null;
}

function availableFiles(skillDir: string): Record<string, string[]> {
  const all: string[] = [];
  listFiles(skillDir, realOf(skillDir), true, "", all);
  const groups: Record<string, string[]> = {
    references: [],
    templates: [],
    assets: [],
    scripts: [],
    other: [],
  };
  for (const file of all) {
    if (file === "SKILL.md") continue;
    const top = file.split("/")[0] as string;
    if (file.includes("/") && SUPPORT_DIRS.has(top)) groups[top]?.push(file);
    else if (TEXT_SUFFIXES.has(path.extname(file))) groups.other?.push(file);
  }
  return Object.fromEntries(Object.entries(groups).filter(([, files]) => files.length > 0));
}

function looksBinary(bytes: Buffer): boolean {
  if (bytes.subarray(0, 8192).includes(0)) return true;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return false;
  } catch {
    return true;
  }
}

function fileResult(candidate: Candidate, skillName: string, rawPath: string): SkillViewResult {
  if (candidate.kind !== "dir") {
    return failure(t("view.singleFile", { name: skillName }));
  }
  let relative: string;
  let real: string | undefined;
  try {
    relative = checkFilePath(rawPath, skillName);
    real = resolveInside(candidate.dir, relative, skillName);
  } catch (error) {
    if (error instanceof SkillError) return failure(error.text);
    throw error;
  }
  const stat = real ? statSync(real, { throwIfNoEntry: false }) : undefined;
  if (!real || !stat?.isFile()) {
    return failure(t("view.fileNotFound", { file: rawPath, name: skillName }), {
      available_files: availableFiles(candidate.dir),
    });
  }
  const fileName = path.basename(relative);
  if (stat.size > MAX_LINKED_FILE_BYTES) {
    return {
      success: true,
      name: skillName,
      file: relative,
      content: `[File too large to show: ${fileName}, size: ${stat.size} bytes]`,
      is_binary: false,
      file_type: path.extname(relative),
    };
  }
  let bytes: Buffer;
  try {
    bytes = readBounded(real, MAX_LINKED_FILE_BYTES, t("skill.fileLabel", { file: relative }), skillName);
  } catch (error) {
    if (error instanceof SkillError) return failure(error.text);
    throw error;
  }
  if (looksBinary(bytes)) {
    return {
      success: true,
      name: skillName,
      file: relative,
      content: `[Binary file: ${fileName}, size: ${bytes.length} bytes]`,
      is_binary: true,
    };
  }
  const content = bytes.toString("utf8");
  const warnings = injectionWarnings(content, relative);
  return withViewTexts(
    {
      success: true,
      name: skillName,
      file: relative,
      content,
      file_type: path.extname(relative),
      security_warnings: englishAll(warnings),
    },
    { securityWarnings: warnings },
  );
}
