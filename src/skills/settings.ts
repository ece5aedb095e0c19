/**
 * What a skill declares beyond secrets: the system commands it needs (`prerequisites.commands`,
 * `required_commands`), its settings (`metadata.hermes.config`, valued from `skills.config.<key>` in
 * config.yaml), and its conditional activation (`requires_toolsets`, `requires_tools`,
 * `fallback_for_toolsets`, `fallback_for_tools`) against the tool set of whoever would use it.
 */
import { accessSync, constants, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { plainIsNotString } from "../config/yaml11.js";
import { type Message, t } from "../core/i18n/messages.js";

/** One declared setting, normalised. `default` appears only when declared. */
export interface SettingDeclaration {
  key: string;
  description: string;
  default?: unknown;
  prompt: string;
}

/** A declared setting with its value resolved from config.yaml. */
export interface ResolvedSetting extends SettingDeclaration {
  /** The value in force: the configured one, else the default (strings `~`/`${VAR}`-expanded), else null. */
  value: unknown;
  /** Where the value comes from. `unset`: neither configured nor defaulted. */
  source: "config" | "default" | "unset";
}

const COMMAND_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.+-]*$/;

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function strings(value: unknown): string[] {
  const items = Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : [];
  return items
    .filter((item): item is string | number => typeof item === "string" || typeof item === "number")
    .map((item) => String(item).trim())
    .filter((item) => item !== "");
}

/** The `metadata.hermes` mapping of a frontmatter, or an empty one. */
export function hermesMetadata(frontmatter: Record<string, unknown>): Record<string, unknown> {
  return record(record(frontmatter.metadata)?.hermes) ?? {};
}

/**
 * System commands a skill needs: `prerequisites.commands` and a top-level `required_commands`, de-duplicated.
 * Entries that are not plain command names (paths, shell text) are dropped: they are never run or looked up.
 */
export function requiredCommands(frontmatter: Record<string, unknown>): string[] {
  const declared = [
    ...strings(record(frontmatter.prerequisites)?.commands),
    ...strings(frontmatter.required_commands),
  ];
  return [...new Set(declared.filter((name) => COMMAND_NAME.test(name)))];
}

/** True when `name` is an executable file in one of the `PATH` folders of `env`. */
export function commandOnPath(name: string, env: NodeJS.ProcessEnv = process.env): boolean {
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (dir === "") continue;
    const candidate = path.join(dir, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      // not here
    }
  }
  return false;
}

/** A declared setting skillgate will not offer: its key, and why (see `settingKeyProblem`). */
export interface RefusedSetting {
  key: string;
  reason: Message;
}

/** YAML indicators that make a plain key start as something else (list item, anchor, tag, quote …). */
const KEY_INDICATOR = /^[-?:,[\]{}#&*!|>'"%@`]/;

/**
 * Why `key` cannot be a setting, or null when it can. A setting is stored in config.yaml as the dotted
 * path under `skills.config` (`wiki.path` → `wiki:` `path:`), so each part must be a key YAML keeps as
 * that text: not empty, not the merge key `<<` (written there, it would make the mapping take keys from
 * elsewhere and every later edit of it refuse), not starting with a YAML indicator, holding no `: ` or
 * ` #` (a key's end, a comment), no surrounding whitespace or control characters, and not a word PyYAML
 * (Hermes) reads as a boolean, null, number or date.
 */
export function settingKeyProblem(key: string): Message | null {
  for (const part of key.split(".")) {
    if (part === "") return t("setting.key.emptyPart", { key });
    if (part === "<<") return t("setting.key.merge", { key });
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    if (/^\s|\s$|[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]/.test(part))
      return t("setting.key.whitespace", { key, part });
    if (KEY_INDICATOR.test(part)) return t("setting.key.indicator", { key, part, char: part.charAt(0) });
    if (/: |:$| #|\t#/.test(part)) return t("setting.key.separator", { key, part });
    if (plainIsNotString(part)) return t("setting.key.notText", { key, part });
  }
  return null;
}

/** The declared entries of `metadata.hermes.config` (a list or a mapping), each with its key. */
function declaredEntries(
  frontmatter: Record<string, unknown>,
): { key: string; entry: Record<string, unknown> }[] {
  const raw = hermesMetadata(frontmatter).config;
  const items: unknown[] = Array.isArray(raw)
    ? raw
    : record(raw)
      ? Object.entries(raw as Record<string, unknown>).map(([key, value]) => ({
          key,
          ...(record(value) ?? {}),
        }))
      : [];
  const entries: { key: string; entry: Record<string, unknown> }[] = [];
  for (const item of items) {
    const entry = record(item);
    if (entry && typeof entry.key === "string") entries.push({ key: entry.key.trim(), entry });
  }
  return entries;
}

/**
 * Declared settings (`metadata.hermes.config`, a list or a mapping): entries need a key and a
 * description; a key YAML would not keep as written is left out (`refusedSettings` says why).
 */
export function settingDeclarations(frontmatter: Record<string, unknown>): SettingDeclaration[] {
  const out = new Map<string, SettingDeclaration>();
  for (const { key, entry } of declaredEntries(frontmatter)) {
    const description = typeof entry.description === "string" ? entry.description.trim() : "";
    if (key === "" || description === "" || out.has(key) || settingKeyProblem(key) !== null) continue;
    const prompt =
      typeof entry.prompt === "string" && entry.prompt.trim() !== "" ? entry.prompt.trim() : description;
    const declaration: SettingDeclaration = { key, description, prompt };
    if (entry.default !== undefined && entry.default !== null) declaration.default = entry.default;
    out.set(key, declaration);
  }
  return [...out.values()];
}

/** Declared settings refused for their key, with the reason, in declaration order (one per key). */
export function refusedSettings(frontmatter: Record<string, unknown>): RefusedSetting[] {
  const out = new Map<string, RefusedSetting>();
  for (const { key } of declaredEntries(frontmatter)) {
    const reason = settingKeyProblem(key);
    if (reason && !out.has(key)) out.set(key, { key, reason });
  }
  return [...out.values()];
}

/**
 * Looks `key` up in the `skills.config` mapping: as a dotted path (`wiki.path` → wiki: path:), else
 * literally. Only the mapping's own keys count: `constructor` or `toString` are never values.
 */
export function configuredValue(settings: Record<string, unknown>, key: string): unknown {
  let node: unknown = settings;
  for (const part of key.split(".")) {
    const map = record(node);
    if (!map || !Object.hasOwn(map, part)) {
      node = undefined;
      break;
    }
    node = map[part];
  }
  if (node !== undefined) return node;
  return Object.hasOwn(settings, key) ? settings[key] : undefined;
}

/** Expands `${VAR}` / `$VAR` (unset ones stay literal) and a leading `~`, as settings are read. */
export function expandSettingText(value: string, env: NodeJS.ProcessEnv = process.env): string {
  const vars = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (whole, a, b) => {
    const found = env[(a ?? b) as string];
    return found === undefined ? whole : found;
  });
  if (vars === "~") return os.homedir();
  return vars.startsWith("~/") ? path.join(os.homedir(), vars.slice(2)) : vars;
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === "string" && value.trim() === "");
}

/** Resolves each declaration against `skills.config`: an empty value falls back to the default. */
export function resolveSettings(
  declarations: SettingDeclaration[],
  settings: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
): ResolvedSetting[] {
  return declarations.map((declaration) => {
    const configured = configuredValue(settings, declaration.key);
    const source: ResolvedSetting["source"] = !isEmpty(configured)
      ? "config"
      : !isEmpty(declaration.default)
        ? "default"
        : "unset";
    const raw = source === "config" ? configured : source === "default" ? declaration.default : null;
    const value = typeof raw === "string" ? expandSettingText(raw, env) : raw;
    return { ...declaration, value, source };
  });
}

/** The text a loaded skill carries its settings in (appended after SKILL.md, like the reference's block). */
export function settingsBlock(settings: ResolvedSetting[], configFile: string): string | undefined {
  if (settings.length === 0) return undefined;
  const lines = settings.map(
    (setting) =>
      `  ${setting.key} = ${setting.source === "unset" ? "(not set)" : typeof setting.value === "string" ? setting.value : JSON.stringify(setting.value)}`,
  );
  return [`[Skill config (from ${configFile}):`, ...lines, "]"].join("\n");
}

/** A tool set: tool names and toolset names available to whoever would use a skill. */
export interface ToolSet {
  tools: ReadonlySet<string>;
  toolsets: ReadonlySet<string>;
}

/** Why a skill is not offered for a tool set, or null when it is. */
export function activationBlocker(frontmatter: Record<string, unknown>, toolSet: ToolSet): string | null {
  const hermes = hermesMetadata(frontmatter);
  const field = (key: string) => strings(hermes[key] ?? frontmatter[key]);
  const needsToolsets = field("requires_toolsets").filter((name) => !toolSet.toolsets.has(name));
  if (needsToolsets.length > 0) return `needs the toolset ${needsToolsets.join(", ")}`;
  const needsTools = field("requires_tools").filter((name) => !toolSet.tools.has(name));
  if (needsTools.length > 0) return `needs the tool ${needsTools.join(", ")}`;
  const primaryToolsets = field("fallback_for_toolsets").filter((name) => toolSet.toolsets.has(name));
  if (primaryToolsets.length > 0) return `a fallback for ${primaryToolsets.join(", ")}, which is available`;
  const primaryTools = field("fallback_for_tools").filter((name) => toolSet.tools.has(name));
  if (primaryTools.length > 0) return `a fallback for ${primaryTools.join(", ")}, which is available`;
  return null;
}
