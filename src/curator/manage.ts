/**
 * `skill_manage`: the one way a model changes the skill library — create, edit, patch, write_file,
 * remove_file, delete. Every mutation is ledgered, every write is atomic and serialized across processes,
 * and a file may only be changed after it was viewed in the same session (read-before-write).
 *
 * Under the background-review origin (the curator's consolidation pass) the guard rails of reference B6
 * apply: pinned, external, protected, hub, bundled and unmanaged skills are refused; a delete must name an
 * existing umbrella other than itself in `absorbed_into` (or `""` for an explicit prune) and becomes a
 * recoverable archive; a created skill is marked `created_by: agent` so the curator manages it.
 *
 * Its refusals and results are written for the model, not for a person: they stay English whatever the
 * reader's language (the model works in English with Hermes' tool schema, its tool calls are logged and
 * go into `run.json`, which must be the same bytes in every locale). What a person reads of a run comes
 * from the run's record through the catalogs instead (the summary, `REPORT.md` one click away).
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import type { SkillgateConfig } from "../config/config.js";
import { homePaths } from "../config/home.js";
import { CuratorError, SkillError } from "../core/errors.js";
import { atomicWriteFile, isoTimestamp, pathExists, withLock } from "../core/fsutil.js";
import {
  isWithin,
  MAX_LINKED_FILE_BYTES,
  MAX_SKILL_MD_BYTES,
  readContained,
  realPathOf,
  writeRefusal,
} from "../skills/containment.js";
import { parseSkillMd } from "../skills/frontmatter.js";
import { SUPPORT_DIR_NAMES, SUPPORT_DIRS } from "../skills/scan.js";
import type { SkillEntry, SkillLibrary } from "../skills/types.js";
import { emptyRecord, type UsageRecord, UsageStore } from "../skills/usage.js";
import { archiveSkill } from "./archive.js";
import { type LedgerActor, withLedger } from "./ledger.js";
import { classify, loadProvenance, type Provenance } from "./provenance.js";

/** Who is writing: a person's agent in a conversation, or the curator's background review. */
export type WriteOrigin = "foreground" | "background_review";

/** The actions `skill_manage` accepts. */
export const MANAGE_ACTIONS = ["create", "edit", "patch", "write_file", "remove_file", "delete"] as const;

/** One of `MANAGE_ACTIONS`. */
export type ManageAction = (typeof MANAGE_ACTIONS)[number];

/** Longest SKILL.md accepted (characters). */
export const MAX_SKILL_CHARS = 200_000;
/** Longest support file accepted (characters). */
export const MAX_FILE_CHARS = 1_000_000;

const NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/**
 * Per-run (or per-conversation) state: the origin, the ledger actor, and what was viewed, which
 * read-before-write checks. Create one per consolidation run or chat session.
 */
export interface ManageSession {
  readonly origin: WriteOrigin;
  readonly actor: LedgerActor;
  /** Recorded in ledger evidence. */
  readonly id: string;
  /** Viewed skills (`name`) and files (`name\u0000relative/path`). */
  readonly viewed: Set<string>;
}

/** Starts a session. The actor defaults to `curator` for background review, else `agent`. */
export function createManageSession(options: {
  origin: WriteOrigin;
  actor?: LedgerActor;
  id?: string;
}): ManageSession {
  return {
    origin: options.origin,
    actor: options.actor ?? (options.origin === "background_review" ? "curator" : "agent"),
    id: options.id ?? `session-${Date.now().toString(36)}`,
    viewed: new Set(),
  };
}

/** Records a successful `skill_view` of a skill (and of one of its files when `filePath` is given). */
export function recordView(session: ManageSession, skill: string, filePath?: string): void {
  if (filePath) session.viewed.add(`${skill}\u0000${normalizeRel(filePath)}`);
  else session.viewed.add(skill);
}

/** What `skill_manage` needs. */
export interface ManageContext {
  home: string;
  config: SkillgateConfig;
  library: SkillLibrary;
  session: ManageSession;
  now?: () => Date;
}

/** Arguments as the tool schema names them. */
export interface SkillManageArgs {
  action: ManageAction;
  name: string;
  content?: string;
  category?: string;
  old_string?: string;
  new_string?: string;
  replace_all?: boolean;
  file_path?: string;
  file_content?: string;
  absorbed_into?: string;
}

/** The tool result: JSON handed back to the model. */
export type SkillManageResult =
  | { success: true; message: string; path?: string; archived?: boolean; absorbed_into?: string }
  | { success: false; error: string };

class Refusal extends Error {}

function refuse(message: string): never {
  throw new Refusal(message);
}

/**
 * Runs one `skill_manage` call. Refusals and validation problems come back as `{success: false,
 * error}` (the model reads them and may correct itself); unexpected I/O failures throw.
 */
export async function skillManage(ctx: ManageContext, rawArgs: unknown): Promise<SkillManageResult> {
  try {
    const args = parseArgs(rawArgs);
    const result = await dispatch(ctx, args);
    ctx.library.invalidate();
    return result;
  } catch (error) {
    if (error instanceof Refusal) return { success: false, error: error.message };
    // The archive primitive's refusals (pinned, hub, not found…) are answers for the model too.
    if (error instanceof CuratorError) return { success: false, error: error.message };
    throw error;
  }
}

function parseArgs(raw: unknown): SkillManageArgs {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    refuse("arguments must be a JSON object");
  const args = raw as Record<string, unknown>;
  if (typeof args.action !== "string" || !(MANAGE_ACTIONS as readonly string[]).includes(args.action)) {
    refuse(`action must be one of ${MANAGE_ACTIONS.join(", ")}`);
  }
  if (typeof args.name !== "string" || args.name.trim() === "") refuse("name is required");
  for (const key of [
    "content",
    "category",
    "old_string",
    "new_string",
    "file_path",
    "file_content",
    "absorbed_into",
  ]) {
    if (args[key] !== undefined && args[key] !== null && typeof args[key] !== "string")
      refuse(`${key} must be a string`);
  }
  return args as unknown as SkillManageArgs;
}

async function dispatch(ctx: ManageContext, args: SkillManageArgs): Promise<SkillManageResult> {
  const name = validateName(args.name.trim(), "name");
  switch (args.action) {
    case "create":
      return createSkill(ctx, name, args);
    case "edit":
      return editSkill(ctx, name, args);
    case "patch":
      return patchSkill(ctx, name, args);
    case "write_file":
      return writeFile(ctx, name, args);
    case "remove_file":
      return removeFile(ctx, name, args);
    case "delete":
      return deleteSkill(ctx, name, args);
  }
}

/** Checks a skill or category name: lower-case letters, digits, `.`, `_`, `-`; no paths, no `..`. */
export function validateName(value: string, field: string): string {
  if (path.isAbsolute(value) || /^[A-Za-z]:/.test(value)) refuse(`${field} must be a plain name, not a path`);
  if (value.split(/[\\/]/).includes("..") || value.includes("..")) refuse(`${field} cannot contain '..'`);
  if (/[\\/]/.test(value)) refuse(`${field} must be a plain name without '/'`);
  if (!NAME_PATTERN.test(value)) {
    refuse(
      `${field} ${JSON.stringify(value)} is not allowed: use lower-case letters, digits, '.', '_' or '-' (at most 64, starting with a letter or digit)`,
    );
  }
  return value;
}

function normalizeRel(filePath: string): string {
  return filePath.replace(/\\/g, "/").replace(/^\.\/+/, "");
}

// ---------------------------------------------------------------------------------------------------
// Lookups and guards

interface Target {
  entry: SkillEntry;
  record: UsageRecord | undefined;
}

async function findTarget(ctx: ManageContext, name: string): Promise<Target> {
  ctx.library.invalidate();
  const entry = await ctx.library.find(name);
  if (!entry) refuse(`skill '${name}' not found; call skills_list to see the names`);
  if (entry.rootKind === "external") {
    refuse(`skill '${name}' lives in skills.external_dirs; external skills are read-only here`);
  }
  const linked = writeRefusal(homePaths(ctx.home).skills, entry.dir, name);
  if (linked) refuse(linked);
  const usage = await new UsageStore(homePaths(ctx.home).skills).read();
  return { entry, record: usage[name] };
}

/** The background-review refusals for an existing skill (reference B6). */
async function guardBackground(ctx: ManageContext, target: Target, provenance?: Provenance): Promise<void> {
  if (ctx.session.origin !== "background_review") return;
  const name = target.entry.name;
  const prov = provenance ?? (await loadProvenance(ctx.home, await ctx.library.all()));
  const verdict = classify(name, target.entry, target.record, true, prov, ctx.config);
  if (verdict.kind === "protected")
    refuse(`skill '${name}' is a protected built-in; the curator never changes it`);
  if (verdict.kind === "hub")
    refuse(`skill '${name}' is hub-installed; its upstream owns it, so the curator never changes it`);
  if (verdict.kind === "bundled")
    refuse(
      `skill '${name}' is a bundled built-in; the curator may only archive it for staleness, never edit or merge it`,
    );
  if (verdict.kind === "external")
    refuse(`skill '${name}' lives in skills.external_dirs; external skills are read-only to the curator`);
  if (verdict.kind === "unmanaged") {
    refuse(
      `skill '${name}' is not curator-managed (no created_by: agent marker); leave it alone — its owner can adopt it with \`skillgate curator adopt ${name}\``,
    );
  }
  if (target.record?.pinned) refuse(`skill '${name}' is pinned; the curator never changes pinned skills`);
}

function requireViewed(ctx: ManageContext, name: string, filePath?: string): void {
  const viewed = ctx.session.viewed;
  if (viewed.has(name)) return;
  if (filePath && viewed.has(`${name}\u0000${normalizeRel(filePath)}`)) return;
  const what = filePath
    ? `skill_view(name="${name}", file_path="${normalizeRel(filePath)}")`
    : `skill_view(name="${name}")`;
  refuse(`read before write: call ${what} in this session before changing it`);
}

/** Resolves a relative file inside a skill dir, refusing absolute paths, `..` and symlink escapes. */
async function resolveInside(
  skillDir: string,
  filePath: string,
  options: { supportOnly: boolean },
): Promise<string> {
  const rel = normalizeRel(filePath.trim());
  if (rel === "" || path.isAbsolute(rel) || /^[A-Za-z]:/.test(rel))
    refuse("file_path must be a path relative to the skill folder");
  const parts = rel.split("/");
  if (parts.includes("..")) refuse("file_path cannot contain '..'");
  if (parts.some((part) => part === "" || part === ".")) refuse("file_path has an empty or '.' component");
  if (options.supportOnly) {
    if (!SUPPORT_DIRS.has(parts[0] ?? "") || parts.length < 2) {
      refuse(
        `file_path must be inside ${SUPPORT_DIR_NAMES.map((dir) => `${dir}/`).join(", ")} (use edit or patch for SKILL.md)`,
      );
    }
  }
  const target = path.join(skillDir, ...parts);
  const realRoot = await fs.realpath(skillDir);
  // The deepest existing ancestor must resolve inside the skill (the containment rule).
  let probe = target;
  for (;;) {
    try {
      const real = await fs.realpath(probe);
      if (!isWithin(realRoot, real)) refuse("file_path resolves outside the skill folder");
      break;
    } catch (error) {
      if (error instanceof Refusal) throw error;
      const parent = path.dirname(probe);
      if (parent === probe || probe === skillDir) break;
      probe = parent;
    }
  }
  return target;
}

/** Checks SKILL.md text: size, a frontmatter block that parses, `name` equal to the skill, a `description`. */
function checkSkillMd(text: string, expectedName: string): void {
  if (text.length > MAX_SKILL_CHARS)
    refuse(`SKILL.md is ${text.length} characters; the limit is ${MAX_SKILL_CHARS}`);
  if (!text.startsWith("---"))
    refuse("SKILL.md must start with a YAML frontmatter block (--- name: …, description: … ---)");
  const parsed = parseSkillMd(text);
  if (parsed.body === text)
    refuse("SKILL.md frontmatter is not closed: end it with a line of three dashes (---)");
  if (parsed.error) refuse(`SKILL.md frontmatter is not valid YAML (${parsed.error}); fix it and try again`);
  const fm = parsed.frontmatter;
  if (typeof fm.name !== "string" || fm.name.trim() === "") refuse("SKILL.md frontmatter needs a `name`");
  if (fm.name.trim() !== expectedName)
    refuse(
      `SKILL.md frontmatter name is '${fm.name.trim()}' but the skill is '${expectedName}'; they must match`,
    );
  if (typeof fm.description !== "string" || fm.description.trim() === "")
    refuse("SKILL.md frontmatter needs a `description`");
}

function lockFile(ctx: ManageContext): string {
  return path.join(homePaths(ctx.home).locks, "skill-manage.lock");
}

/** Runs a mutation under the write lock and the ledger. */
async function mutate<T>(
  ctx: ManageContext,
  options: { action: string; skill: string; paths: string[]; evidence?: Record<string, unknown> },
  fn: () => Promise<T>,
): Promise<T> {
  return withLock(
    lockFile(ctx),
    () =>
      withLedger(
        {
          home: ctx.home,
          config: ctx.config,
          actor: ctx.session.actor,
          action: options.action,
          skill: options.skill,
          evidence: { session_id: ctx.session.id, ...(options.evidence ?? {}) },
          paths: options.paths,
        },
        fn,
      ),
    { waitMs: 60_000 },
  );
}

function now(ctx: ManageContext): Date {
  return ctx.now?.() ?? new Date();
}

async function bumpPatch(ctx: ManageContext, name: string): Promise<void> {
  await new UsageStore(homePaths(ctx.home).skills).bump(name, "patch", now(ctx));
}

// ---------------------------------------------------------------------------------------------------
// Actions

async function createSkill(
  ctx: ManageContext,
  name: string,
  args: SkillManageArgs,
): Promise<SkillManageResult> {
  const content = args.content ?? refuse("create needs `content`: the whole SKILL.md, frontmatter included");
  checkSkillMd(content, name);
  const category = args.category?.trim() ? validateName(args.category.trim(), "category") : undefined;
  ctx.library.invalidate();
  if (await ctx.library.find(name))
    refuse(`a skill named '${name}' already exists; pick another name or edit it`);
  const skillsDir = homePaths(ctx.home).skills;
  const dir = category ? path.join(skillsDir, category, name) : path.join(skillsDir, name);
  if (await pathExists(dir))
    refuse(`${path.relative(skillsDir, dir)} already exists on disk; pick another name`);
  if (category) {
    const real = realPathOf(path.join(skillsDir, category));
    if (real !== undefined && !isWithin(realPathOf(skillsDir) ?? skillsDir, real))
      refuse(
        `category '${category}' is a symlink that leads outside the library; create the skill elsewhere`,
      );
  }
  if (ctx.session.origin === "background_review") {
    const provenance = await loadProvenance(ctx.home, await ctx.library.all());
    if (provenance.hub.has(name) || provenance.bundled.has(name) || provenance.protected.has(name)) {
      refuse(`'${name}' is the name of a bundled, hub-installed or protected skill; pick another name`);
    }
  }
  const stamp = isoTimestamp(now(ctx));
  await mutate(ctx, { action: "create", skill: name, paths: [dir] }, async () => {
    await atomicWriteFile(path.join(dir, "SKILL.md"), content);
    await new UsageStore(skillsDir).update((records) => {
      const record = emptyRecord(stamp);
      // Only the background review hands a new skill to the curator; a person's skill stays theirs.
      record.created_by = ctx.session.origin === "background_review" ? "agent" : null;
      records[name] = record;
    });
  });
  recordView(ctx.session, name);
  return {
    success: true,
    message: `created skill '${name}'`,
    path: path.relative(skillsDir, path.join(dir, "SKILL.md")),
  };
}

async function editSkill(
  ctx: ManageContext,
  name: string,
  args: SkillManageArgs,
): Promise<SkillManageResult> {
  const content = args.content ?? refuse("edit needs `content`: the whole new SKILL.md");
  const target = await findTarget(ctx, name);
  await guardBackground(ctx, target);
  requireViewed(ctx, name);
  checkSkillMd(content, name);
  await mutate(ctx, { action: "edit", skill: name, paths: [target.entry.skillFile] }, async () => {
    await atomicWriteFile(target.entry.skillFile, content);
    await bumpPatch(ctx, name);
  });
  return {
    success: true,
    message: `rewrote SKILL.md of '${name}'`,
    path: `${target.entry.relPath}/SKILL.md`,
  };
}

async function patchSkill(
  ctx: ManageContext,
  name: string,
  args: SkillManageArgs,
): Promise<SkillManageResult> {
  const oldString = args.old_string ?? refuse("patch needs `old_string` (the exact text to replace)");
  const newString =
    args.new_string ?? refuse("patch needs `new_string` (use an empty string to delete text)");
  if (oldString === "") refuse("old_string cannot be empty");
  const target = await findTarget(ctx, name);
  await guardBackground(ctx, target);
  const filePath = args.file_path?.trim() ? args.file_path : undefined;
  const file = filePath
    ? await resolveInside(target.entry.dir, filePath, { supportOnly: false })
    : target.entry.skillFile;
  const isSkillMd = path.resolve(file) === path.resolve(target.entry.skillFile);
  requireViewed(ctx, name, isSkillMd ? undefined : filePath);
  let text: string;
  try {
    // The containment rule applies to SKILL.md too: a link out of the skill is never read.
    text = readContained(target.entry.dir, file, {
      label: filePath ?? "SKILL.md",
      skill: name,
      limit: isSkillMd ? MAX_SKILL_MD_BYTES : MAX_LINKED_FILE_BYTES,
    }).bytes.toString("utf8");
  } catch (error) {
    if (error instanceof SkillError && error.code !== "skill.not_found") refuse(error.message);
    refuse(`file '${filePath ?? "SKILL.md"}' not found in skill '${name}'`);
  }
  const count = text.split(oldString).length - 1;
  if (count === 0) refuse("old_string was not found; view the file again and copy the text exactly");
  if (count > 1 && !args.replace_all)
    refuse(`old_string matches ${count} times; add surrounding text to make it unique, or set replace_all`);
  const updated = args.replace_all
    ? text.split(oldString).join(newString)
    : text.replace(oldString, () => newString);
  if (isSkillMd) checkSkillMd(updated, name);
  else if (updated.length > MAX_FILE_CHARS)
    refuse(`the file would be ${updated.length} characters; the limit is ${MAX_FILE_CHARS}`);
  await mutate(
    ctx,
    {
      action: "patch",
      skill: name,
      paths: [file],
      evidence: { file_path: path.relative(target.entry.dir, file) },
    },
    async () => {
      await atomicWriteFile(file, updated);
      await bumpPatch(ctx, name);
    },
  );
  return {
    success: true,
    message: `patched ${args.replace_all ? count : 1} occurrence(s) in '${name}'`,
    path: path.relative(target.entry.dir, file),
  };
}

async function writeFile(
  ctx: ManageContext,
  name: string,
  args: SkillManageArgs,
): Promise<SkillManageResult> {
  const filePath = args.file_path ?? refuse("write_file needs `file_path`, e.g. references/notes.md");
  const body = args.file_content ?? refuse("write_file needs `file_content`");
  if (body.length > MAX_FILE_CHARS)
    refuse(`file_content is ${body.length} characters; the limit is ${MAX_FILE_CHARS}`);
  const target = await findTarget(ctx, name);
  await guardBackground(ctx, target);
  const file = await resolveInside(target.entry.dir, filePath, { supportOnly: true });
  if (await pathExists(file)) requireViewed(ctx, name, filePath);
  await mutate(
    ctx,
    { action: "write_file", skill: name, paths: [file], evidence: { file_path: normalizeRel(filePath) } },
    async () => {
      await atomicWriteFile(file, body);
      await bumpPatch(ctx, name);
    },
  );
  recordView(ctx.session, name, filePath);
  return {
    success: true,
    message: `wrote ${normalizeRel(filePath)} in '${name}'`,
    path: normalizeRel(filePath),
  };
}

async function removeFile(
  ctx: ManageContext,
  name: string,
  args: SkillManageArgs,
): Promise<SkillManageResult> {
  const filePath = args.file_path ?? refuse("remove_file needs `file_path`");
  const target = await findTarget(ctx, name);
  await guardBackground(ctx, target);
  const file = await resolveInside(target.entry.dir, filePath, { supportOnly: true });
  requireViewed(ctx, name, filePath);
  const stat = await fs.lstat(file).catch(() => undefined);
  if (!stat) refuse(`file '${normalizeRel(filePath)}' not found in skill '${name}'`);
  if (stat.isDirectory()) refuse(`'${normalizeRel(filePath)}' is a folder; remove its files one by one`);
  await mutate(
    ctx,
    { action: "remove_file", skill: name, paths: [file], evidence: { file_path: normalizeRel(filePath) } },
    async () => {
      await fs.rm(file);
      await bumpPatch(ctx, name);
    },
  );
  return { success: true, message: `removed ${normalizeRel(filePath)} from '${name}'` };
}

async function deleteSkill(
  ctx: ManageContext,
  name: string,
  args: SkillManageArgs,
): Promise<SkillManageResult> {
  const target = await findTarget(ctx, name);
  if (target.record?.pinned) {
    refuse(
      `skill '${name}' is pinned; it cannot be deleted (its owner can unpin it with \`skillgate curator unpin ${name}\`)`,
    );
  }
  const background = ctx.session.origin === "background_review";
  await guardBackground(ctx, target);
  const absorbedInto = await checkAbsorbedInto(ctx, name, args, background);
  if (background) {
    // The curator never destroys a skill: its delete is a recoverable archive (one ledgered `archive`
    // entry covering the old and the new place, so a rollback never duplicates the package) that keeps
    // the usage record.
    const evidence = { absorbed_into: absorbedInto ?? "", requested: "delete", session_id: ctx.session.id };
    const result = await withLock(lockFile(ctx), () =>
      archiveSkill(name, {
        home: ctx.home,
        config: ctx.config,
        library: ctx.library,
        actor: ctx.session.actor,
        now: now(ctx),
        evidence,
      }),
    );
    return {
      success: true,
      message: `archived '${name}' to .archive/${result.archivedAs} (recoverable with restore)`,
      archived: true,
      absorbed_into: absorbedInto ?? "",
    };
  }
  const evidence = {
    ...(absorbedInto !== undefined ? { absorbed_into: absorbedInto } : {}),
    archived: false,
  };
  await mutate(ctx, { action: "delete", skill: name, paths: [target.entry.dir], evidence }, async () => {
    await fs.rm(target.entry.dir, { recursive: true, force: true });
    await new UsageStore(homePaths(ctx.home).skills).update((records) => {
      delete records[name];
    });
  });
  return {
    success: true,
    message: `deleted skill '${name}'`,
    archived: false,
    ...(absorbedInto !== undefined ? { absorbed_into: absorbedInto } : {}),
  };
}

/**
 * Validates `absorbed_into`: absent, `""` (an explicit prune), or an existing skill other than this one.
 * The background review must always say which (#29912: archives with no verified merge).
 */
async function checkAbsorbedInto(
  ctx: ManageContext,
  name: string,
  args: SkillManageArgs,
  required: boolean,
): Promise<string | undefined> {
  const raw = (args as unknown as Record<string, unknown>).absorbed_into;
  if (raw === undefined || raw === null) {
    if (required) {
      refuse(
        `delete refused: say where '${name}' went — absorbed_into="<umbrella skill>" after merging its content into an existing skill, or absorbed_into="" to prune it as obsolete`,
      );
    }
    return undefined;
  }
  const value = String(raw).trim();
  if (value === "") return "";
  if (value === name) refuse(`delete refused: absorbed_into cannot be '${name}' itself`);
  ctx.library.invalidate();
  const umbrella = await ctx.library.find(value);
  if (!umbrella) {
    refuse(
      `delete refused: absorbed_into '${value}' does not exist; create the umbrella skill (or merge into an existing one) first`,
    );
  }
  return value;
}
