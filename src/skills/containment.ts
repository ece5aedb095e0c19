/**
 * The containment rule, in one place: a skill's files are read, shown, moved or deleted only where their
 * real path (symlinks resolved) lies inside that skill's own real folder. Skill content is untrusted, so
 * a `SKILL.md` or a linked file that is a symlink to `../../../.env` is refused with a clear message and
 * never read. Reads are bounded: nothing loads more than its size limit into memory, whatever the file's
 * size or its growth while it is read.
 *
 * A skill folder reached through a symlink (a checkout linked into `skills/`) is a link: its content is
 * read from the real folder the link points at (containment is judged against that folder), while the
 * curator moves the link itself, never the folder behind it. A skill inside a category folder that is a
 * symlink leading out of the library cannot be moved at all: moving it would move someone else's files.
 *
 * Every caller (scan, view, linked files, the chat card, the agent's tools, skill_manage, archive,
 * restore, purge, rollback) goes through these functions.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync } from "node:fs";
import path from "node:path";
import { SkillError } from "../core/errors.js";
import { type Text, t } from "../core/i18n/messages.js";

/** Largest `SKILL.md` skillgate reads (1 MiB; real skills are a few KiB, skill_manage writes ≤ 200,000 chars). */
export const MAX_SKILL_MD_BYTES = 1024 * 1024;

/** Largest frontmatter block parsed (64 KiB). */
export const MAX_FRONTMATTER_BYTES = 64 * 1024;

/** Largest linked file shown as text (4 MiB). */
export const MAX_LINKED_FILE_BYTES = 4 * 1024 * 1024;

/** Human size: `1 MiB`, `64 KiB`, `300 bytes`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

/** True when `child` is `parent` or lies inside it (absolute paths, compared lexically). */
export function isWithin(parent: string, child: string): boolean {
  if (child === parent) return true;
  const prefix = parent.endsWith(path.sep) ? parent : parent + path.sep;
  return child.startsWith(prefix);
}

/** The real path of `target`, or undefined when it does not resolve (missing, dangling, a loop). */
export function realPathOf(target: string): string | undefined {
  try {
    return realpathSync.native(target);
  } catch {
    return undefined;
  }
}

/** True when `target` itself is a symlink (not followed). */
export function isSymlink(target: string): boolean {
  try {
    return lstatSync(target).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * A path as a person in chat may see it: `$HERMES_HOME/<relative>` when inside the home, else only its
 * last component (server layout outside the home is nobody's business in chat).
 */
export function displayPath(home: string, target: string): string {
  const resolved = path.resolve(target);
  for (const base of new Set([path.resolve(home), realPathOf(home) ?? path.resolve(home)])) {
    if (isWithin(base, resolved)) {
      const rel = path.relative(base, resolved).split(path.sep).join("/");
      return rel === "" ? "$HERMES_HOME" : `$HERMES_HOME/${rel}`;
    }
  }
  return `<outside the home>/${path.basename(resolved)}`;
}

/**
 * Checks that `file` (a path inside the skill folder `skillDir`, possibly through symlinks) resolves to a
 * regular file inside the skill's real folder, and returns that real path. Throws `SkillError`
 * `skill.path_escape` when it leads out, `skill.not_found` when it does not resolve to a file.
 */
export function containedFile(skillDir: string, file: string, label: Text, skill?: string): string {
  const realDir = realPathOf(skillDir);
  if (realDir === undefined)
    throw new SkillError("skill.not_found", t("skill.folderMissing", { skill: skill ?? label }), skill);
  const real = realPathOf(file);
  if (real === undefined)
    throw new SkillError(
      "skill.not_found",
      t("skill.dangling", { label, skill: skill ?? path.basename(skillDir) }),
      skill,
    );
  if (!isWithin(realDir, real)) throw escapeError(label, skill ?? path.basename(skillDir));
  return real;
}

/** The refusal for content that leaves its skill. */
export function escapeError(label: Text, skill: string): SkillError {
  return new SkillError("skill.path_escape", t("skill.linkEscapes", { label, skill }), skill);
}

/** The refusal for a file over its limit. */
export function tooLargeError(label: Text, skill: string, size: number, limit: number): SkillError {
  return new SkillError(
    "skill.too_large",
    t("skill.tooLarge", { label, skill, size: formatBytes(size), limit: formatBytes(limit) }),
    skill,
  );
}

/**
 * Reads at most `limit` bytes of the regular file at the real path `real` (the last component is not
 * followed, so a link swapped in after the check is refused). Throws `SkillError` `skill.too_large` when
 * the file is bigger than `limit` (by its size or by what a read finds), `skill.not_a_file` for anything
 * but a regular file.
 */
export function readBounded(real: string, limit: number, label: Text, skill: string): Buffer {
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw escapeError(label, skill);
    throw new SkillError(
      "skill.unreadable",
      t("skill.unopenable", { label, skill, detail: code ?? (error as Error).message }),
      skill,
    );
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile())
      throw new SkillError("skill.not_a_file", t("skill.notAFile", { label, skill }), skill);
    if (stat.size > limit) throw tooLargeError(label, skill, stat.size, limit);
    const buffer = Buffer.allocUnsafe(Math.min(limit + 1, Math.max(stat.size + 1, 64)));
    let used = 0;
    for (;;) {
      if (used === buffer.length) {
        if (used > limit) throw tooLargeError(label, skill, used, limit);
        break;
      }
      const read = readSync(fd, buffer, used, buffer.length - used, used);
      if (read === 0) break;
      used += read;
      if (used > limit) throw tooLargeError(label, skill, used, limit);
    }
    return buffer.subarray(0, used);
  } finally {
    closeSync(fd);
  }
}

/** Reads a contained file of a skill: `containedFile` then `readBounded`. */
export function readContained(
  skillDir: string,
  file: string,
  options: { label: Text; skill: string; limit: number },
): { real: string; bytes: Buffer } {
  const real = containedFile(skillDir, file, options.label, options.skill);
  return { real, bytes: readBounded(real, options.limit, options.label, options.skill) };
}

/** What a batch of moves already knows when it asks `moveRefusal`. */
export interface MoveContext {
  /** The library's real path. */
  realRoot: string;
  /** Real paths (undefined: unresolvable) of parent folders resolved earlier in the batch; filled in. */
  parents?: Map<string, string | undefined>;
  /** Whether `dir` is a symlink, when the caller's own `lstat` of it just found out. */
  linked?: boolean;
}

/**
 * Why the curator may not move the skill folder `dir` (found under the library root `skillsRoot`), or
 * null when it may. The folder's parent must resolve inside the real library (else the move would carry
 * files from outside it); the folder itself is then either a plain folder inside the library or a symlink,
 * which is moved as a link. A batch passes what it resolved already (`MoveContext`): many skills share a
 * category folder, whose resolution costs a `readlink` per path component.
 */
export function moveRefusal(
  skillsRoot: string,
  dir: string,
  skill: string,
  context: MoveContext = { realRoot: realPathOf(skillsRoot) ?? skillsRoot },
): Text | null {
  const { realRoot, parents } = context;
  const parent = path.dirname(dir);
  let parentReal = parents?.get(parent);
  if (parentReal === undefined && !parents?.has(parent)) {
    parentReal = realPathOf(parent);
    parents?.set(parent, parentReal);
  }
  if (parentReal === undefined || !isWithin(realRoot, parentReal)) {
    const folder = path.relative(skillsRoot, parent).split(path.sep).join("/");
    return t("move.parentOutside", { skill, folder });
  }
  let linked = context.linked;
  if (linked === undefined) {
    try {
      linked = lstatSync(dir).isSymbolicLink();
    } catch {
      linked = undefined;
    }
  }
  if (linked) return null;
  // A folder that is not a link is its name inside its parent's real path (no second resolution).
  if (linked === undefined || !isWithin(realRoot, path.join(parentReal, path.basename(dir))))
    return t("move.outside", { skill });
  return null;
}

/**
 * Why skillgate may not write inside the skill folder `dir` (skill_manage), or null when it may: the
 * folder must resolve inside the real library, so a skill linked in from a checkout or reached through a
 * category link is read-only here.
 */
export function writeRefusal(skillsRoot: string, dir: string, skill: string): string | null {
  const realRoot = realPathOf(skillsRoot) ?? skillsRoot;
  const real = realPathOf(dir);
  if (real === undefined || !isWithin(realRoot, real) || real === realRoot)
    return `skill '${skill}' is linked into the library from elsewhere (a symlinked folder); skillgate only changes skills whose files live in skills/. Edit it where it lives`;
  return null;
}

/**
 * Why the curator may not move a skill to `dest` (inside the library root `skillsRoot`), or null when it
 * may: the deepest existing folder on the way must resolve inside the real library, so a category folder
 * that is a symlink out of it never receives a skill.
 */
export function destinationRefusal(skillsRoot: string, dest: string, skill: string): Text | null {
  const realRoot = realPathOf(skillsRoot) ?? skillsRoot;
  let ancestor = path.dirname(dest);
  let real = realPathOf(ancestor);
  while (real === undefined && ancestor !== path.dirname(ancestor)) {
    ancestor = path.dirname(ancestor);
    real = realPathOf(ancestor);
  }
  if (real === undefined || !isWithin(realRoot, real))
    return t("move.destinationOutside", {
      skill,
      folder: path.relative(skillsRoot, ancestor).split(path.sep).join("/"),
    });
  return null;
}
