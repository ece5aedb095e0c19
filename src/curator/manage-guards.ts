/**
 * The checks `skill_manage` makes before it writes: names, the target skill, the background review's
 * guard rails, read-before-write, paths inside the package, SKILL.md's frontmatter, `absorbed_into`; and
 * the one way it writes (under the lock and the ledger).
 */

import { promises as fs } from "node:fs";
import path from "node:path";
import { homePaths } from "../config/home.js";
import { withLock } from "../core/fsutil.js";
import { isWithin, writeRefusal } from "../skills/containment.js";
import { parseSkillMd } from "../skills/frontmatter.js";
import { SUPPORT_DIR_NAMES, SUPPORT_DIRS } from "../skills/scan.js";
import type { SkillEntry } from "../skills/types.js";
import { UsageStore } from "../skills/usage.js";
import type { UsageRecord } from "../skills/usage-record.js";
import { withLedger } from "./ledger.js";
import { MAX_SKILL_CHARS, type ManageContext, normalizeRel, type SkillManageArgs } from "./manage-session.js";
import { classify, loadProvenance, type Provenance } from "./provenance.js";

/** A refusal the model reads (`{success: false, error}`). */
export class Refusal extends Error {}

/** Refuses the call with `message`. */
export function refuse(message: string): never {
  throw new Refusal(message);
}

const NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

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

/** The live skill a call names. */
export interface Target {
  entry: SkillEntry;
  record: UsageRecord | undefined;
}

/** The live skill called `name`; refused when there is none. */
export async function findTarget(ctx: ManageContext, name: string): Promise<Target> {
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
export async function guardBackground(
  ctx: ManageContext,
  target: Target,
  provenance?: Provenance,
): Promise<void> {
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

/** Refuses a change to a skill (or one of its files) the session has not viewed. */
export function requireViewed(ctx: ManageContext, name: string, filePath?: string): void {
  const viewed = ctx.session.viewed;
  if (viewed.has(name)) return;
  if (filePath && viewed.has(`${name}\u0000${normalizeRel(filePath)}`)) return;
  const what = filePath
    ? `skill_view(name="${name}", file_path="${normalizeRel(filePath)}")`
    : `skill_view(name="${name}")`;
  refuse(`read before write: call ${what} in this session before changing it`);
}

/** Resolves a relative file inside a skill dir, refusing absolute paths, `..` and symlink escapes. */
export async function resolveInside(
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
export function checkSkillMd(text: string, expectedName: string): void {
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

/** The lock every `skill_manage` write is serialized under, across processes. */
export function lockFile(ctx: ManageContext): string {
  return path.join(homePaths(ctx.home).locks, "skill-manage.lock");
}

/** Runs a mutation under the write lock and the ledger. */
export async function mutate<T>(
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

/** The time of this call (the context's clock when it has one). */
export function now(ctx: ManageContext): Date {
  return ctx.now?.() ?? new Date();
}

/** Counts a patch of `name` in its usage record. */
export async function bumpPatch(ctx: ManageContext, name: string): Promise<void> {
  await new UsageStore(homePaths(ctx.home).skills).bump(name, "patch", now(ctx));
}

/**
 * Validates `absorbed_into`: absent, `""` (an explicit prune), or an existing skill other than this one.
 * The background review must always say which (#29912: archives with no verified merge).
 */
export async function checkAbsorbedInto(
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
