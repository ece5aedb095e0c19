/**
 * skillgate's view of `<home>/config.yaml`. Only the sections skillgate uses (`skills`, `curator`,
 * `auxiliary`, `gateway`, and `model` for the LLM fallback) are read and validated; every other key is
 * left alone. The file is written only by `config/edit.ts` (`skills enable|disable|config set`). Errors name
 * the key, the value and what is allowed.
 */

import { readFileSync, statSync } from "node:fs";
import os from "node:os";
import { ConfigError } from "../core/errors.js";
import { isTimeZone } from "../core/i18n/dates.js";
import { LOCALE_SETTINGS, type LocaleSetting } from "../core/i18n/locale.js";
import { addWarning, t, type WarningLists } from "../core/i18n/messages.js";
import {
  type ConfigReader,
  isPlatformReference,
  type PlatformDefinition,
  type PlatformSection,
  registeredPlatforms,
} from "../core/platforms.js";
import { parsesWhole, redactUrl } from "../core/redact-url.js";
import {
  type CoordinationConfig,
  CURATOR_DEFAULTS,
  type CuratorConfig,
  DEFAULT_LEDGER_MAX_BYTES,
  type GatewayConfig,
  type ModelConfig,
  type SkillgateConfig,
  type SkillsConfig,
} from "./config-types.js";
import {
  bool,
  curatorNumber,
  exactIntegersAsText,
  invalid,
  isRecord,
  num,
  oneOf,
  parseHub,
  platformRefList,
  type Raw,
  section,
  show,
  skillNameList,
  str,
  stringList,
} from "./config-values.js";
import { configOverrides, withOverrides } from "./overrides.js";
import { parseYaml11, yamlErrorCause } from "./yaml11.js";

export {
  type CoordinationConfig,
  CURATOR_DEFAULTS,
  type CuratorConfig,
  DEFAULT_LEDGER_MAX_BYTES,
  type GatewayConfig,
  type HubConfig,
  type ModelConfig,
  type SkillgateConfig,
  type SkillsConfig,
} from "./config-types.js";
export { exactIntegersAsText } from "./config-values.js";

function modelSection(raw: Raw, at: string): ModelConfig {
  const extra = raw.extra_body;
  if (extra !== undefined && extra !== null && !isRecord(extra)) {
    throw new ConfigError(`${at}extra_body`, invalid(`${at}extra_body`, extra, t("config.req.mappingShort")));
  }
  const timeout =
    raw.timeout === undefined || raw.timeout === null ? undefined : num(raw, "timeout", at, 120, { min: 1 });
  return {
    provider: str(raw, "provider", at),
    model: str(raw, "model", at) ?? str(raw, "default", at),
    baseUrl: str(raw, "base_url", at),
    apiKey: str(raw, "api_key", at),
    timeoutSeconds: timeout,
    extraBody: isRecord(extra) ? extra : undefined,
  };
}

function parseSkills(raw: Raw, warnings: WarningLists): SkillsConfig {
  const skills = section(raw, "skills", "");
  const externalRaw = skills.external_dirs;
  let externalDirs: string[] = [];
  if (typeof externalRaw === "string") externalDirs = [externalRaw];
  else if (Array.isArray(externalRaw))
    externalDirs = externalRaw.filter((item): item is string => typeof item === "string");
  else if (externalRaw !== undefined && externalRaw !== null) {
    throw new ConfigError(
      "skills.external_dirs",
      invalid("skills.external_dirs", externalRaw, t("config.req.paths")),
    );
  }
  const result: SkillsConfig = {
    externalDirs,
    disabled: [],
    platformDisabled: {},
    ledger: bool(skills, "ledger", "skills.", true),
    ledgerMaxBytes: num(skills, "ledger_max_bytes", "skills.", DEFAULT_LEDGER_MAX_BYTES, {
      integer: true,
      min: 0,
    }),
    settings: section(skills, "config", "skills."),
    hub: parseHub(section(skills, "hub", "skills.")),
    agentListLimit: num(section(skills, "search", "skills."), "agent_list_limit", "skills.search.", 200, {
      integer: true,
      min: 0,
    }),
  };
  // The disabled lists decide visibility: a malformed one must not crash unrelated commands, but every
  // visibility check fails closed with this error until it is fixed.
  try {
    result.disabled = skillNameList(skills, "disabled", "skills.", warnings);
    const perPlatform = section(skills, "platform_disabled", "skills.");
    for (const platform of Object.keys(perPlatform)) {
      result.platformDisabled[platform] = skillNameList(
        perPlatform,
        platform,
        "skills.platform_disabled.",
        warnings,
      );
    }
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    result.visibilityError = error;
  }
  return result;
}

function parseCurator(raw: Raw, warnings: WarningLists): CuratorConfig {
  const curator = section(raw, "curator", "");
  const backup = section(curator, "backup", "curator.");
  const legacy = curator.auxiliary;
  let legacyAuxiliary: ModelConfig | undefined;
  if (legacy !== undefined && legacy !== null) {
    if (!isRecord(legacy))
      throw new ConfigError(
        "curator.auxiliary",
        invalid("curator.auxiliary", legacy, t("config.req.mappingShort")),
      );
    legacyAuxiliary = modelSection(legacy, "curator.auxiliary.");
    addWarning(warnings, t("config.warn.legacyAuxiliary"));
  }
  const keepRaw = num(backup, "keep", "curator.backup.", CURATOR_DEFAULTS.backup.keep, { integer: true });
  return {
    enabled: bool(curator, "enabled", "curator.", CURATOR_DEFAULTS.enabled),
    intervalHours: curatorNumber(curator, "interval_hours", CURATOR_DEFAULTS.intervalHours, warnings),
    minIdleHours: (() => {
      const value = curator.min_idle_hours;
      if (value === undefined || value === null) return CURATOR_DEFAULTS.minIdleHours;
      return num(curator, "min_idle_hours", "curator.", CURATOR_DEFAULTS.minIdleHours, { min: 0 });
    })(),
    staleAfterDays: curatorNumber(curator, "stale_after_days", CURATOR_DEFAULTS.staleAfterDays, warnings),
    archiveAfterDays: curatorNumber(
      curator,
      "archive_after_days",
      CURATOR_DEFAULTS.archiveAfterDays,
      warnings,
    ),
    consolidate: bool(curator, "consolidate", "curator.", CURATOR_DEFAULTS.consolidate),
    pruneBuiltins: bool(curator, "prune_builtins", "curator.", CURATOR_DEFAULTS.pruneBuiltins),
    backup: { enabled: bool(backup, "enabled", "curator.backup.", true), keep: Math.max(1, keepRaw) },
    archiveTtlDays: num(curator, "archive_ttl_days", "curator.", CURATOR_DEFAULTS.archiveTtlDays, { min: 0 }),
    legacyAuxiliary,
    maxIterations: num(curator, "max_iterations", "curator.", CURATOR_DEFAULTS.maxIterations, {
      integer: true,
      min: 1,
    }),
    maxSeconds: num(curator, "max_seconds", "curator.", CURATOR_DEFAULTS.maxSeconds, { min: 1 }),
  };
}

/** A `ConfigReader` over one mapping, for a platform's own parser. */
function readerFor(raw: Raw, at: string): ConfigReader {
  return {
    at,
    bool: (key, fallback) => bool(raw, key, at, fallback),
    str: (key) => str(raw, key, at),
    oneOf: (key, allowed, fallback) => oneOf(raw, key, at, allowed, fallback),
    num: (key, options) =>
      raw[key] === undefined || raw[key] === null ? undefined : num(raw, key, at, 0, options),
    section: (key) => readerFor(section(raw, key, at), `${at}${key}.`),
    fail: (key, value, requirement) => {
      throw new ConfigError(`${at}${key}`, invalid(`${at}${key}`, value, requirement));
    },
  };
}

function parsePlatforms(
  gateway: Raw,
  platforms: readonly PlatformDefinition[],
): Record<string, PlatformSection> {
  const parsed: Record<string, PlatformSection> = {};
  for (const platform of platforms) {
    const at = `gateway.${platform.name}.`;
    const raw = section(gateway, platform.name, "gateway.");
    const locale = raw.locale === undefined || raw.locale === null ? undefined : localeSetting(raw, at);
    parsed[platform.name] = { ...platform.parseConfig(readerFor(raw, at)), ...(locale ? { locale } : {}) };
  }
  return parsed;
}

/** A `locale` key: `auto`, `en`, `zh-CN`, `zh-TW` or `zh-HK` (default `auto`). */
function localeSetting(raw: Raw, at: string): LocaleSetting {
  return oneOf(raw, "locale", at, LOCALE_SETTINGS, "auto");
}

/** `gateway.timezone`: an IANA zone name this runtime knows (`Asia/Shanghai`, `UTC`), or absent. */
function timeZoneSetting(gateway: Raw): string | undefined {
  const zone = str(gateway, "timezone", "gateway.");
  if (zone !== undefined && !isTimeZone(zone)) {
    throw new ConfigError("gateway.timezone", invalid("gateway.timezone", zone, t("config.req.timeZone")));
  }
  return zone;
}

function parseGateway(raw: Raw, platforms: readonly PlatformDefinition[]): GatewayConfig {
  const gateway = section(raw, "gateway", "");
  const health = section(gateway, "health", "gateway.");
  const maintenance = section(gateway, "maintenance", "gateway.");
  const consoleSection = section(gateway, "console", "gateway.");
  const agent = section(gateway, "agent", "gateway.");
  const actions = section(gateway, "actions", "gateway.");
  const secretForm = section(gateway, "secret_form", "gateway.");
  const publicUrl = str(gateway, "public_url", "gateway.")?.replace(/\/+$/, "");
  if (publicUrl !== undefined && !/^https?:\/\/[^\s/]+/.test(publicUrl)) {
    throw new ConfigError(
      "gateway.public_url",
      invalid("gateway.public_url", publicUrl, t("config.req.url")),
    );
  }
  const coordination = parseCoordination(section(gateway, "coordination", "gateway."));
  const homeChannel = str(gateway, "home_channel", "gateway.");
  if (homeChannel !== undefined && !isPlatformReference(homeChannel)) {
    throw new ConfigError(
      "gateway.home_channel",
      invalid("gateway.home_channel", homeChannel, t("config.req.homeChannel")),
    );
  }
  return {
    admins: platformRefList(gateway, "admins"),
    allowedUsers: platformRefList(gateway, "allowed_users"),
    allowedChats: platformRefList(gateway, "allowed_chats"),
    homeChannel,
    health: {
      port: num(health, "port", "gateway.health.", 8787, { integer: true, min: 0, max: 65535 }),
      enabled: bool(health, "enabled", "gateway.health.", true),
    },
    console: {
      enabled: bool(consoleSection, "enabled", "gateway.console.", true),
      port: num(consoleSection, "port", "gateway.console.", 8788, { integer: true, min: 0, max: 65535 }),
      bind: str(consoleSection, "bind", "gateway.console.") ?? "127.0.0.1",
    },
    maintenance: {
      checkMinutes: num(maintenance, "check_minutes", "gateway.maintenance.", 60, { min: 0.01 }),
      firstCheckSeconds: num(maintenance, "first_check_seconds", "gateway.maintenance.", 90, { min: 0 }),
    },
    stopTimeoutSeconds: num(gateway, "stop_timeout_seconds", "gateway.", 60, { min: 1, max: 3600 }),
    concurrency: num(gateway, "concurrency", "gateway.", 8, { integer: true, min: 1, max: 256 }),
    platforms: parsePlatforms(gateway, platforms),
    locale: localeSetting(gateway, "gateway."),
    homeLocale: oneOf(gateway, "home_locale", "gateway.", LOCALE_SETTINGS, "auto"),
    timezone: timeZoneSetting(gateway),
    agent: {
      enabled: bool(agent, "enabled", "gateway.agent.", false),
      historyMessages: num(agent, "history_messages", "gateway.agent.", 20, {
        integer: true,
        min: 0,
        max: 500,
      }),
    },
    actions: {
      ttlHours: num(actions, "ttl_hours", "gateway.actions.", 24, { min: 0.01, max: 24 * 90 }),
      pageSize: num(actions, "page_size", "gateway.actions.", 20, { integer: true, min: 5, max: 100 }),
    },
    trustedProxies: stringList(gateway, "trusted_proxies", "gateway."),
    maxReplyMessages: num(gateway, "max_reply_messages", "gateway.", 5, { integer: true, min: 1, max: 50 }),
    publicUrl,
    secretForm: {
      port: num(secretForm, "port", "gateway.secret_form.", 8789, { integer: true, min: 0, max: 65535 }),
    },
    coordination,
  };
}

/** Replica ids: what fits a Redis key and a log line. */
const REPLICA_ID = /^[A-Za-z0-9._-]{1,64}$/;

function parseCoordination(raw: Raw): CoordinationConfig | undefined {
  const at = "gateway.coordination.";
  const redisUrl = str(raw, "redis_url", at);
  const replicaId =
    str(raw, "replica_id", at) ?? `${os.hostname()}-${process.pid}`.replace(/[^A-Za-z0-9._-]/g, "-");
  const writerEligible = bool(raw, "writer_eligible", at, true);
  const retentionHours = num(raw, "retention_hours", at, 48, { min: 1, max: 24 * 30 });
  if (redisUrl === undefined) return undefined;
  if (!/^rediss?:\/\/\S+$/.test(redisUrl))
    throw new ConfigError(
      `${at}redis_url`,
      `config.yaml: \`${at}redis_url\` is ${show(redactUrl(redisUrl))}; it must be a Redis URL such as "redis://127.0.0.1:6379" (or rediss:// for TLS).`,
    );
  if (!parsesWhole(redisUrl))
    throw new ConfigError(
      `${at}redis_url`,
      `config.yaml: \`${at}redis_url\` is ${show(redactUrl(redisUrl))} and does not read as one URL; percent-encode the characters / ? # @ : in the user name and password (e.g. / as %2F).`,
    );
  if (!REPLICA_ID.test(replicaId.slice(0, 64)))
    throw new ConfigError(
      `${at}replica_id`,
      `config.yaml: \`${at}replica_id\` is ${show(replicaId)}; use up to 64 letters, digits, dots, dashes or underscores, different on every replica.`,
    );
  return { redisUrl, replicaId: replicaId.slice(0, 64), writerEligible, retentionHours };
}

/**
 * Validates a parsed config.yaml document. Throws `ConfigError` naming the first wrong key. Each
 * platform's section is validated by its registered definition (`platforms`, default: every registered one).
 */
export function parseConfig(
  document: unknown,
  mtimeMs = 0,
  platforms: readonly PlatformDefinition[] = registeredPlatforms(),
): SkillgateConfig {
  const raw: Raw =
    document === null || document === undefined
      ? {}
      : isRecord(document)
        ? document
        : (() => {
            throw new ConfigError("(root)", t("config.rootNotMapping"));
          })();
  const warnings: WarningLists = { warnings: [], warningTexts: [] };
  const auxiliary = section(raw, "auxiliary", "");
  const auxCurator = auxiliary.curator;
  if (auxCurator !== undefined && auxCurator !== null && !isRecord(auxCurator)) {
    throw new ConfigError(
      "auxiliary.curator",
      invalid("auxiliary.curator", auxCurator, t("config.req.mappingShort")),
    );
  }
  const model = raw.model;
  let mainModel: ModelConfig | undefined;
  if (typeof model === "string") mainModel = { model };
  else if (isRecord(model)) mainModel = modelSection(model, "model.");
  return {
    skills: parseSkills(raw, warnings),
    curator: parseCurator(raw, warnings),
    auxiliaryCurator: isRecord(auxCurator) ? modelSection(auxCurator, "auxiliary.curator.") : undefined,
    model: mainModel,
    gateway: parseGateway(raw, platforms),
    warnings: warnings.warnings,
    warningTexts: warnings.warningTexts,
    mtimeMs,
  };
}

/** Reads and validates `<home>/config.yaml`; a missing file gives the defaults. */
export function loadConfig(configPath: string): SkillgateConfig {
  let text: string;
  let mtimeMs = 0;
  try {
    text = readFileSync(configPath, "utf8");
    mtimeMs = statSync(configPath).mtimeMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      return parseConfig(withOverrides({}, configOverrides()), 0);
    throw new ConfigError(
      "(file)",
      t("config.unreadable", { path: configPath, detail: (error as Error).message }),
      { cause: error },
    );
  }
  let document: unknown;
  try {
    document = parseYaml11(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    throw new ConfigError(
      "(syntax)",
      t("config.badYaml", { path: configPath, detail: yamlErrorCause(error) }),
      { cause: error },
    );
  }
  return parseConfig(withOverrides(exactIntegersAsText(document), configOverrides()), mtimeMs);
}
