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
import { homePaths } from "../config/home.js";
import { CuratorError, SkillError } from "../core/errors.js";
import { atomicWriteFile, isoTimestamp, pathExists, withLock } from "../core/fsutil.js";
import {
  isWithin,
  MAX_LINKED_FILE_BYTES,
  MAX_SKILL_MD_BYTES,
  readContained,
  realPathOf,
} from "../skills/containment.js";
import { UsageStore } from "../skills/usage.js";
import { emptyRecord } from "../skills/usage-record.js";
import { archiveSkill } from "./archive.js";
import {
  bumpPatch,
  checkAbsorbedInto,
  checkSkillMd,
  findTarget,
  guardBackground,
  lockFile,
  mutate,
  now,
  Refusal,
  refuse,
  requireViewed,
  resolveInside,
  validateName,
} from "./manage-guards.js";
import {
  MANAGE_ACTIONS,
  MAX_FILE_CHARS,
  type ManageContext,
  normalizeRel,
  recordView,
  type SkillManageArgs,
  type SkillManageResult,
} from "./manage-session.js";
import { loadProvenance } from "./provenance.js";

export { validateName } from "./manage-guards.js";
export {
  createManageSession,
  MANAGE_ACTIONS,
  MAX_FILE_CHARS,
  MAX_SKILL_CHARS,
  type ManageAction,
  type ManageContext,
  type ManageSession,
  recordView,
  type SkillManageArgs,
  type SkillManageResult,
  type WriteOrigin,
} from "./manage-session.js";

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
