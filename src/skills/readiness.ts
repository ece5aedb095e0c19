/**
 * Skill readiness: which environment variables, credential files and system commands a skill needs,
 * which are missing, its declared settings with their values, and what to tell the person. Variables
 * come from `required_environment_variables`, `setup.collect_secrets` and the legacy
 * `prerequisites.env_vars`; a variable is present when it is non-empty in `<home>/.env` or in the process
 * environment. Commands (`prerequisites.commands`, `required_commands`) are looked up on `PATH`. On a
 * chat surface nothing is prompted: the view carries `gateway_setup_hint`. In a terminal,
 * `promptForMissingSecrets` asks with hidden input.
 */
import { access } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { SkillgateConfig } from "../config/config.js";
import { readDotenv } from "../config/dotenv.js";
import { writeDotenv } from "../config/dotenv-write.js";
import { refusedSecretReason } from "../config/secret-keys.js";
import { english, join, list, type Text, t } from "../core/i18n/messages.js";
import {
  commandOnPath,
  type ResolvedSetting,
  refusedSettings,
  requiredCommands,
  resolveSettings,
  settingDeclarations,
} from "./settings.js";
import type { SkillEntry } from "./types.js";
import { effectivePlatform } from "./visibility.js";

/** One normalised environment requirement. Optional keys appear only when set. */
export interface EnvRequirement {
  name: string;
  prompt: string;
  help?: string;
  required_for?: string;
  optional?: true;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const REMOTE_BACKENDS = new Set(["docker", "singularity", "modal", "ssh", "daytona"]);

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function text(value: unknown): string | undefined {
  if (typeof value === "string" && value.trim() !== "") return value.trim();
  if (typeof value === "number") return String(value);
  return undefined;
}

/** The normalised, de-duplicated environment requirements declared in a skill's frontmatter. */
export function envRequirements(frontmatter: Record<string, unknown>): EnvRequirement[] {
  const out = new Map<string, EnvRequirement>();
  const setup = record(frontmatter.setup);
  const setupHelp = text(setup?.help);
  const add = (requirement: EnvRequirement) => {
    if (ENV_NAME.test(requirement.name) && !out.has(requirement.name)) out.set(requirement.name, requirement);
  };

  const declared = frontmatter.required_environment_variables;
  const items: unknown[] = Array.isArray(declared)
    ? declared
    : record(declared)
      ? Object.entries(record(declared) as Record<string, unknown>).map(([name, value]) => ({
          ...(record(value) ?? { prompt: value }),
          name,
        }))
      : [];
  for (const item of items) {
    if (typeof item === "string") {
      add({ name: item.trim(), prompt: defaultPrompt(item.trim()) });
      continue;
    }
    const entry = record(item);
    const name = text(entry?.name) ?? text(entry?.env_var);
    if (!entry || !name) continue;
    const requirement: EnvRequirement = { name, prompt: text(entry.prompt) ?? defaultPrompt(name) };
    const help = text(entry.help) ?? text(entry.provider_url) ?? text(entry.url) ?? setupHelp;
    if (help) requirement.help = help;
    const requiredFor = text(entry.required_for);
    if (requiredFor) requirement.required_for = requiredFor;
    if (entry.optional === true) requirement.optional = true;
    add(requirement);
  }

  const secrets = Array.isArray(setup?.collect_secrets) ? setup.collect_secrets : [];
  for (const item of secrets) {
    const entry = record(item);
    const name = text(entry?.env_var) ?? text(entry?.name);
    if (!entry || !name) continue;
    const requirement: EnvRequirement = { name, prompt: text(entry.prompt) ?? defaultPrompt(name) };
    const help = text(entry.provider_url) ?? text(entry.url) ?? text(entry.help) ?? setupHelp;
    if (help) requirement.help = help;
    add(requirement);
  }

  const legacy = record(frontmatter.prerequisites)?.env_vars;
  for (const item of Array.isArray(legacy) ? legacy : typeof legacy === "string" ? [legacy] : []) {
    const name = text(item);
    if (name) add({ name, prompt: defaultPrompt(name) });
  }
  return [...out.values()];
}

/** `required_credential_files` entries (strings or `{path}`), as written. */
export function credentialFiles(frontmatter: Record<string, unknown>): string[] {
  const declared = frontmatter.required_credential_files;
  const items = Array.isArray(declared)
    ? declared
    : declared === undefined || declared === null
      ? []
      : [declared];
  const files: string[] = [];
  for (const item of items) {
    const file = text(item) ?? text(record(item)?.path);
    if (file) files.push(file);
  }
  return files;
}

/** True when the request comes from a chat surface (no prompting there). */
export function isGatewaySurface(
  platform: string | null | undefined,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (env.HERMES_INTERACTIVE) return false;
  return Boolean(env.HERMES_GATEWAY_SESSION) || effectivePlatform(platform, env) !== null;
}

/** How to show `<home>/.env` to a person: `~/…` under their home directory. */
export function displayEnvFile(home: string): string {
  const file = path.join(home, ".env");
  const user = os.homedir();
  return file.startsWith(user + path.sep) ? `~/${path.relative(user, file).split(path.sep).join("/")}` : file;
}

/** The `gateway_setup_hint` text: secrets are never collected over chat. */
export function gatewaySetupHint(home: string): string {
  return english(gatewaySetupHintText(home));
}

/** `gateway_setup_hint` as a catalog text, for showing it in the reader's locale. */
export function gatewaySetupHintText(home: string): Text {
  return t("readiness.gatewaySetupHint", { envFile: displayEnvFile(home) });
}

/** The prompt of a variable its skill gives none for (`Enter value for KEY`, as the view's JSON has it). */
export function defaultPrompt(name: string): string {
  return english(defaultPromptText(name));
}

/** `defaultPrompt` as a catalog text. */
export function defaultPromptText(name: string): Text {
  return t("readiness.defaultPrompt", { name });
}

/** Options of the readiness checks. */
export interface ReadinessOptions {
  /** Chat platform (or null for the terminal); decides whether `gateway_setup_hint` is given. */
  platform?: string | null;
  env?: NodeJS.ProcessEnv;
  /** The `skills.config` mapping of config.yaml (declared settings are valued from it). */
  settings?: Record<string, unknown>;
}

/** The readiness keys of a `skill_view` result. */
export interface ReadinessFields {
  required_environment_variables: EnvRequirement[];
  required_commands: string[];
  missing_required_environment_variables: string[];
  missing_credential_files: string[];
  missing_required_commands: string[];
  setup_needed: boolean;
  setup_skipped: boolean;
  readiness_status: "available" | "setup_needed";
  /** Declared settings (`metadata.hermes.config`) with their values; only when declared (skillgate addition). */
  settings?: ResolvedSetting[];
  /** Keys of declared settings with neither a configured value nor a default (skillgate addition). */
  unset_settings?: string[];
  /**
   * Declared settings whose key YAML would not keep as written (`<<`, `a..b`, `-x`, `on`), with the
   * reason; they are not offered (skillgate addition, only when there are some).
   */
  refused_settings?: { key: string; reason: string }[];
  setup_help?: string;
  gateway_setup_hint?: string;
  setup_note?: string;
}

/** Names of non-optional requirements that are not present (empty values count as missing). */
export function missingEnv(
  requirements: EnvRequirement[],
  home: string,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  const dotenv = readDotenv(path.join(home, ".env"));
  const remote = REMOTE_BACKENDS.has((env.TERMINAL_ENV ?? "").toLowerCase());
  return requirements
    .filter((requirement) => !requirement.optional)
    .filter((requirement) => {
      if ((dotenv.get(requirement.name) ?? "") !== "") return false;
      // A remote backend only receives persisted values, so the host shell does not count there.
      return remote || (env[requirement.name] ?? "") === "";
    })
    .map((requirement) => requirement.name);
}

/** Computes the readiness keys of a view for a skill's (full) frontmatter. */
export async function readinessFields(
  frontmatter: Record<string, unknown>,
  home: string,
  options: ReadinessOptions = {},
): Promise<ReadinessFields> {
  const env = options.env ?? process.env;
  const requirements = envRequirements(frontmatter);
  const missing = missingEnv(requirements, home, env);
  const missingFiles: string[] = [];
  for (const file of credentialFiles(frontmatter)) {
    const absolute = path.resolve(
      home,
      file.startsWith("~/") ? path.join(os.homedir(), file.slice(2)) : file,
    );
    const exists = await access(absolute).then(
      () => true,
      () => false,
    );
    if (!exists) missingFiles.push(file);
  }
  const commands = requiredCommands(frontmatter);
  const missingCommands = commands.filter((name) => !commandOnPath(name, env));
  const settings = resolveSettings(settingDeclarations(frontmatter), options.settings ?? {}, env);
  const setupNeeded = missing.length > 0 || missingFiles.length > 0 || missingCommands.length > 0;
  const fields: ReadinessFields = {
    required_environment_variables: requirements,
    required_commands: commands,
    missing_required_environment_variables: missing,
    missing_credential_files: missingFiles,
    missing_required_commands: missingCommands,
    setup_needed: setupNeeded,
    setup_skipped: false,
    readiness_status: setupNeeded ? "setup_needed" : "available",
  };
  if (settings.length > 0) {
    fields.settings = settings;
    fields.unset_settings = settings
      .filter((setting) => setting.source === "unset")
      .map((setting) => setting.key);
  }
  const refused = refusedSettings(frontmatter);
  if (refused.length > 0)
    fields.refused_settings = refused.map((item) => ({ key: item.key, reason: english(item.reason) }));
  // As Hermes builds it: the help (or provider URL) of the first declared variable that has one.
  const setupHelp = requirements.find((requirement) => requirement.help)?.help;
  if (setupHelp) fields.setup_help = setupHelp;
  if (missing.length > 0 && isGatewaySurface(options.platform, env))
    fields.gateway_setup_hint = gatewaySetupHint(home);
  if (setupNeeded)
    fields.setup_note = english(setupNoteText(missing, missingFiles, missingCommands, setupHelp, env));
  return fields;
}

/**
 * The `setup_note` of a view as a catalog text: what is missing, the skill's own help (its words, as
 * written), and for a remote terminal backend that the requirements must exist there too.
 */
export function setupNoteText(
  missing: readonly string[],
  files: readonly string[],
  commands: readonly string[],
  help: string | undefined,
  env: NodeJS.ProcessEnv,
): Text {
  const parts: Text[] = [];
  if (missing.length > 0)
    parts.push(t("readiness.note.env", { names: list(missing.map((name) => `$${name}`)) }));
  if (files.length > 0) parts.push(t("readiness.note.file", { names: list(files) }));
  if (commands.length > 0) parts.push(t("readiness.note.command", { names: list(commands) }));
  const sentences: Text[] = [t("readiness.note", { parts: list(parts) })];
  if (help) sentences.push(help);
  const backend = (env.TERMINAL_ENV ?? "").toLowerCase();
  if (REMOTE_BACKENDS.has(backend))
    sentences.push(t("readiness.note.remote", { backend: backend.toUpperCase() }));
  return join(sentences, " ");
}

/**
 * Missing variables and, on a chat surface, the setup hint, for a listed skill. Uses the frontmatter
 * the library read (the first 4000 characters of SKILL.md).
 */
export function checkReadiness(
  entry: SkillEntry,
  home: string,
  env: NodeJS.ProcessEnv = process.env,
  options: { platform?: string | null } = {},
): { missing: string[]; setupHint?: string } {
  const missing = missingEnv(envRequirements(entry.frontmatter), home, env);
  if (missing.length > 0 && isGatewaySurface(options.platform ?? null, env))
    return { missing, setupHint: gatewaySetupHint(home) };
  return { missing };
}

/** A secret to ask for: a variable name, or a requirement with its prompt text. */
export type SecretRequest = string | Pick<EnvRequirement, "name" | "prompt" | "help">;

/**
 * Asks the person at the terminal for each secret (hidden input) and stores the answers in
 * `<home>/.env` (created with mode 0600; the mode is kept 0600). An empty answer skips that secret, and
 * so does a variable skillgate never sets for a skill (`refusedSecretReason`), without asking. An empty
 * placeholder (`KEY=`) is filled in place; otherwise a `KEY=value` line is appended. Values are never
 * echoed or logged. Returns the names stored and the names skipped.
 */
export async function promptForMissingSecrets(
  requests: readonly SecretRequest[],
  home: string,
  prompt: (question: Text, options?: { hidden?: boolean }) => Promise<string>,
  config?: SkillgateConfig,
): Promise<{ stored: string[]; skipped: string[] }> {
  const answers = new Map<string, string>();
  const skipped: string[] = [];
  for (const request of requests) {
    const item = typeof request === "string" ? { name: request, prompt: defaultPrompt(request) } : request;
    if (!ENV_NAME.test(item.name) || answers.has(item.name)) continue;
    if (refusedSecretReason(item.name, config) !== null) {
      skipped.push(item.name);
      continue;
    }
    const help = "help" in item && item.help ? item.help : undefined;
    const asked = item.prompt === defaultPrompt(item.name) ? defaultPromptText(item.name) : item.prompt;
    const question = help
      ? t("readiness.askWithHelp", { prompt: asked, help, name: item.name })
      : t("readiness.ask", { prompt: asked, name: item.name });
    const value = (await prompt(question, { hidden: true })).trim();
    if (value === "" || /[\r\n\0]/.test(value)) skipped.push(item.name);
    else answers.set(item.name, value);
  }
  if (answers.size > 0) await storeSecrets(home, answers);
  return { stored: [...answers.keys()], skipped };
}

/**
 * Stores secrets in `<home>/.env` (see `config/dotenv-write.ts`): every statement of a key gets the new
 * value, a missing key is appended, and python-dotenv reads back exactly what was entered. Without
 * `replace`, only keys that are missing or empty are written. Values are never logged or returned.
 */
export async function storeSecrets(
  home: string,
  answers: Map<string, string>,
  options: { replace?: boolean } = {},
): Promise<string[]> {
  return writeDotenv(home, answers, { onlyWhenEmpty: !options.replace });
}
