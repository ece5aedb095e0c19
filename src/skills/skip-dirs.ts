/**
 * Folders Hermes' skill scanners never look into — dependencies, virtualenvs, VCS, caches, the hub and
 * the archive — and a skill's own support folders, which belong to it and are never skills themselves.
 * Kept free of imports: the snapshot worker counts skills with them.
 */

/** Folder names below which a `SKILL.md` is not a skill (Hermes' list). */
export const HERMES_SKIP_DIRS: ReadonlySet<string> = new Set([
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
]);

/** Support folders: pruned inside a skill folder, never skill roots themselves. */
export const SUPPORT_DIR_NAMES = ["references", "templates", "scripts", "assets"] as const;

/** `SUPPORT_DIR_NAMES` as a set, for membership checks. */
export const SUPPORT_DIRS: ReadonlySet<string> = new Set(SUPPORT_DIR_NAMES);
