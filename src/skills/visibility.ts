/**
 * The one visibility rule for skills, used by listing, `/help`, menus, autocomplete, loading and the
 * curator alike: a skill is visible on a chat platform (or the terminal) when its `platforms:` frontmatter
 * matches this OS and its name is in neither `skills.disabled` nor `skills.platform_disabled.<platform>`.
 * A broken disabled list makes every check fail closed with the stored `ConfigError`.
 */
import { existsSync } from "node:fs";
import type { SkillgateConfig } from "../config/config.js";

const OS_ALIASES: Record<string, string> = { macos: "darwin", linux: "linux", windows: "win32" };

function asList(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const items = Array.isArray(value) ? value : [value];
  return items.map((item) => String(item).trim().toLowerCase()).filter((item) => item !== "");
}

/** True on Termux (Android), where `linux`, `termux` and `android` tags all match. */
function isTermux(env: NodeJS.ProcessEnv): boolean {
  return (
    (process.platform as string) === "android" ||
    env.TERMUX_VERSION !== undefined ||
    (env.PREFIX ?? "").includes("com.termux")
  );
}

/**
 * The `platforms:` gate: absent or empty matches everywhere; values are lowercased, `macos`/`windows`
 * map to `darwin`/`win32`, and a value matches when the OS name starts with it.
 */
export function skillMatchesPlatform(
  frontmatter: Record<string, unknown> | undefined,
  osPlatform: string = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  const wanted = asList(frontmatter?.platforms);
  if (wanted.length === 0) return true;
  const termux = osPlatform === process.platform && isTermux(env);
  for (const tag of wanted) {
    if (termux && (tag === "linux" || tag === "termux" || tag === "android")) return true;
    const mapped = OS_ALIASES[tag] ?? tag;
    if (osPlatform.startsWith(mapped)) return true;
  }
  return false;
}

/** Runtime environments a skill may ask for with `environments:`; detection is cheap and cached. */
export interface RuntimeEnvironments {
  kanban: boolean;
  docker: boolean;
  s6: boolean;
}

let detected: RuntimeEnvironments | undefined;

/** Detects the kanban worker (env), Docker (`/.dockerenv`) and s6 supervision (`/run/s6`). */
export function detectEnvironments(env: NodeJS.ProcessEnv = process.env): RuntimeEnvironments {
  if (env === process.env && detected) return detected;
  const result = {
    kanban: Boolean(env.HERMES_KANBAN || env.HERMES_KANBAN_TASK || env.HERMES_KANBAN_TASK_ID),
    docker: existsSync("/.dockerenv") || env.container === "docker",
    s6: existsSync("/run/s6") || existsSync("/command/s6-svscan") || env.S6_VERSION !== undefined,
  };
  if (env === process.env) detected = result;
  return result;
}

/**
 * The `environments:` gate used by listing (not by an explicit view): absent or empty matches; otherwise
 * one listed environment must be present. An unknown tag fails open (matches).
 */
export function skillMatchesEnvironment(
  frontmatter: Record<string, unknown> | undefined,
  runtime: RuntimeEnvironments = detectEnvironments(),
): boolean {
  const wanted = asList(frontmatter?.environments);
  if (wanted.length === 0) return true;
  for (const tag of wanted) {
    if (tag === "kanban" || tag === "docker" || tag === "s6") {
      if (runtime[tag]) return true;
    } else {
      return true;
    }
  }
  return false;
}

/** The platform a request answers as: the explicit one, else `HERMES_PLATFORM`, else `HERMES_SESSION_PLATFORM`. */
export function effectivePlatform(
  platform: string | null | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | null {
  const chosen = platform ?? env.HERMES_PLATFORM ?? env.HERMES_SESSION_PLATFORM ?? null;
  const trimmed = chosen?.trim().toLowerCase();
  return trimmed ? trimmed : null;
}

/** `skills.disabled` ∪ `skills.platform_disabled.<platform>`. Throws the stored `ConfigError` (fail closed). */
export function disabledNames(platform: string | null, config: SkillgateConfig): Set<string> {
  const { skills } = config;
  if (skills.visibilityError) throw skills.visibilityError;
  const names = new Set<string>();
  for (const name of skills.disabled) {
    const trimmed = name.trim();
    if (trimmed) names.add(trimmed);
  }
  const effective = effectivePlatform(platform);
  if (effective) {
    for (const name of skills.platformDisabled[effective] ?? []) {
      const trimmed = name.trim();
      if (trimmed) names.add(trimmed);
    }
  }
  return names;
}

/** Why a skill on disk is hidden here: this OS, this runtime environment, or a disabled list. */
export type HiddenReason = "os" | "environment" | "disabled" | "platform_disabled";

/**
 * The one visibility rule, as the reason a skill is hidden (null when it is shown and loadable). `name`
 * is the skill's name (its frontmatter name is checked too, when it differs); `platform` is the chat
 * platform or null for the terminal (`HERMES_PLATFORM` applies then). Throws `ConfigError` when the
 * disabled lists in config.yaml are malformed. The host decides visibility only, never lifecycle.
 */
export function hiddenReason(
  name: string,
  skillFrontmatter: Record<string, unknown> | undefined,
  platform: string | null,
  config: SkillgateConfig,
): HiddenReason | null {
  const disabled = disabledNames(platform, config);
  if (!skillMatchesPlatform(skillFrontmatter)) return "os";
  if (!skillMatchesEnvironment(skillFrontmatter)) return "environment";
  if (!isDisabledIn(disabled, name, skillFrontmatter)) return null;
  const globally = new Set(config.skills.disabled.map((entry) => entry.trim()));
  return isDisabledIn(globally, name, skillFrontmatter) ? "disabled" : "platform_disabled";
}

/** True when the one visibility rule (`hiddenReason`) shows the skill on `platform`. */
export function isSkillVisible(
  name: string,
  skillFrontmatter: Record<string, unknown> | undefined,
  platform: string | null,
  config: SkillgateConfig,
): boolean {
  return hiddenReason(name, skillFrontmatter, platform, config) === null;
}

/** True when `name` or the frontmatter name is in `disabled`. */
export function isDisabledIn(
  disabled: ReadonlySet<string>,
  name: string,
  frontmatter?: Record<string, unknown>,
): boolean {
  if (disabled.has(name)) return true;
  const declared = frontmatter?.name;
  return (
    typeof declared === "string" &&
    (disabled.has(declared.trim()) || disabled.has(declared.trim().slice(0, 64)))
  );
}
