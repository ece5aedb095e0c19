/**
 * Skill roots: the local `<home>/skills` first, then each `skills.external_dirs` entry. An entry is a
 * string or a list; `$VAR`/`${VAR}` are expanded (an unset variable stays literal, so the path is missing
 * and skipped), then a leading `~`; a relative entry is taken against the home; entries are resolved
 * through symlinks. The local dir itself, duplicates and missing dirs are skipped.
 */
import { realpathSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** One root the library searches. */
export interface SkillRoot {
  /** The folder as skillgate names it (for the local root: `<home>/skills`, even when missing). */
  dir: string;
  /** The folder resolved through symlinks (equal to `dir` when it does not exist). */
  real: string;
  kind: "local" | "external";
  /** False when the folder does not exist (only possible for the local root). */
  exists: boolean;
}

/** Expands `$VAR` and `${VAR}` from `env`; unset variables are left as written (Python's expandvars). */
export function expandVars(value: string, env: NodeJS.ProcessEnv = process.env): string {
  return value.replace(
    /\$(?:\{([^}]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g,
    (whole, braced?: string, bare?: string) => {
      const name = braced ?? bare ?? "";
      const found = env[name];
      return found === undefined ? whole : found;
    },
  );
}

/** Expands a leading `~` or `~/` to the user's home directory. */
export function expandHome(value: string): string {
  if (value === "~") return os.homedir();
  if (value.startsWith("~/")) return path.join(os.homedir(), value.slice(2));
  return value;
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

function realOrSelf(dir: string): string {
  try {
    return realpathSync.native(dir);
  } catch {
    return dir;
  }
}

/** The local root of a home. */
export function localRoot(home: string): SkillRoot {
  const dir = path.join(home, "skills");
  const exists = isDirectory(dir);
  return { dir, real: exists ? realOrSelf(dir) : dir, kind: "local", exists };
}

/** All roots of a home: local first, then the usable external dirs in config order. */
export function resolveRoots(
  home: string,
  externalDirs: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): SkillRoot[] {
  const local = localRoot(home);
  const roots: SkillRoot[] = [local];
  const seen = new Set<string>([local.real]);
  for (const entry of externalDirs) {
    if (typeof entry !== "string" || entry.trim() === "") continue;
    const expanded = expandHome(expandVars(entry.trim(), env));
    const absolute = path.resolve(home, expanded);
    if (!isDirectory(absolute)) continue;
    const real = realOrSelf(absolute);
    if (seen.has(real)) continue;
    seen.add(real);
    roots.push({ dir: real, real, kind: "external", exists: true });
  }
  return roots;
}

/** True when `child` is `parent` or lies inside it (both absolute, compared lexically). */
export function isInside(parent: string, child: string): boolean {
  if (child === parent) return true;
  const prefix = parent.endsWith(path.sep) ? parent : parent + path.sep;
  return child.startsWith(prefix);
}
