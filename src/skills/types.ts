/**
 * The skills library's public shapes. `src/skills/library.ts` implements `SkillLibrary`; the curator,
 * the commands and the gateway only use what is declared here.
 */
import type { Text } from "../core/i18n/messages.js";

/** One discovered skill. */
export interface SkillEntry {
  /** Frontmatter name (≤ 64 chars) or the folder name. */
  name: string;
  /** Frontmatter description (≤ 1024) or the first body line. */
  description: string;
  /** First path component when the skill sits in a category folder, else null. */
  category: string | null;
  /** Absolute path of the skill's folder, as found under its root (not resolved through symlinks). */
  dir: string;
  /** Absolute path of its SKILL.md. */
  skillFile: string;
  /** The root it was found under. */
  root: string;
  /** `local` for `<home>/skills`, `external` for `skills.external_dirs`. */
  rootKind: "local" | "external";
  /** `dir` relative to `root`, POSIX separators: `name` or `category/name` (deeper nesting kept). */
  relPath: string;
  /**
   * Parsed frontmatter of the first 4000 characters (empty when there is none; the line fallback when it
   * is malformed). Shared with the library's cache: read it, do not mutate it.
   */
  frontmatter: Record<string, unknown>;
  /**
   * Set when this host hides the skill: `os` when its `platforms:` excludes this OS, `environment` when
   * its `environments:` gate fails. Hidden skills are never shown or loaded, but are still curated.
   */
  hiddenBy?: "os" | "environment";
}

/** A skill folder the scan found but could not use (link out of the skill, too large, not UTF-8, …). */
export interface SkippedSkill {
  /** The folder relative to its root (`category/name`). */
  folder: string;
  /** Why it was skipped, in English (logs, programs). */
  reason: string;
  /** The same, as a text resolved in the reader's locale. */
  text: Text;
}

/** The `skills_list` result object, exactly as the reference defines it. */
export interface SkillsListResult {
  success: boolean;
  skills?: { name: string; description: string; category: string | null }[];
  categories?: string[];
  count?: number;
  hint?: string;
  message?: string;
  error?: string;
}

/** The `skill_view` result object, exactly as the reference defines it (success and failure shapes). */
export type SkillViewResult = Record<string, unknown> & { success: boolean };

/** Options of `SkillLibrary.view`. */
export interface ViewOptions {
  /** A file inside the skill to show instead of SKILL.md. */
  filePath?: string;
  /** Chat surface (`telegram`, …) or null for the terminal. Applies `platform_disabled` and setup hints. */
  platform?: string | null;
  /** Count a view in `.usage.json` (the CLI and tool handler do). Default false. */
  bumpView?: boolean;
}

/** The skill library of one home. Implementations cache and notice changes within a second. */
export interface SkillLibrary {
  readonly home: string;
  /**
   * Every skill on disk, local first, first name wins: disabled ones and ones this host's OS or
   * environment hides (`hiddenBy`) included. The curator works on these; showing and loading go through
   * `visible` and the visibility rule. The array and its records are frozen and shared by every caller
   * until the library next sees a change: read them, copy to change.
   */
  all(): Promise<SkillEntry[]>;
  /**
   * `all()` without the copies: the library's own records of the same skills, in the same order, for a
   * read-only pass over a whole library (the curator's), where building a copy of each is a tenth of the
   * pass. The array and its records are frozen too, but their `description` and `frontmatter` are read
   * through the prototype, so a spread or JSON copy leaves them out: hand on records from `all()`.
   * Optional for stand-in libraries (see `everySkillOnDisk`).
   */
  records?(): Promise<readonly SkillEntry[]>;
  /** The skills visible on `platform` (null = terminal), via the one visibility function (frozen, shared). */
  visible(platform: string | null): Promise<SkillEntry[]>;
  /** Skill folders found but skipped, with the reason (listing shows them as warnings). */
  skipped?(): Promise<SkippedSkill[]>;
  /** Looks a skill up by name among `all()`. */
  find(name: string): Promise<SkillEntry | undefined>;
  /** The `skills_list` result for `platform`. */
  /** `create: false`: a missing skills folder is reported, not created. */
  list(options?: {
    category?: string;
    platform?: string | null;
    create?: boolean;
  }): Promise<SkillsListResult>;
  /** The `skill_view` result. */
  view(name: string, options?: ViewOptions): Promise<SkillViewResult>;
  /** Forgets cached scans (after a write skillgate made itself). */
  invalidate(): void;
  /**
   * A number that changes whenever what `all()` returns may have changed (revalidated like any call):
   * callers cache what they derive from the entries under it. Optional for stand-in libraries.
   */
  generation?(): number;
  /** Releases file watchers and timers (the library keeps working without them). */
  close?(): void;
}
