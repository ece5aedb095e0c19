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
import { addWarning, list as listOf, type Text, t, type WarningLists } from "../core/i18n/messages.js";
import {
  type ConfigReader,
  isPlatformReference,
  type PlatformDefinition,
  type PlatformSection,
  registeredPlatforms,
} from "../core/platforms.js";
import { parsesWhole, redactUrl } from "../core/redact-url.js";
import { configOverrides, withOverrides } from "./overrides.js";
import { parseYaml11, YamlTimestamp, yamlErrorCause } from "./yaml11.js";

/** The skills section. */
export interface SkillsConfig {
  /** Raw `external_dirs` entries (expanded by the library). */
  externalDirs: string[];
  disabled: string[];
  /** `platform_disabled.<platform>` lists. */
  platformDisabled: Record<string, string[]>;
  ledger: boolean;
  ledgerMaxBytes: number;
  /** The raw `skills.config` mapping: values of the settings skills declare (`metadata.hermes.config`). */
  settings: Record<string, unknown>;
  /** `skills.hub`: where hub installs may fetch from. */
  hub: HubConfig;
  /** Set when the disabled lists are malformed: visibility then fails closed with this error. */
  visibilityError?: ConfigError;
  /**
   * `skills.search.agent_list_limit`: above this many visible skills, the chat agent's prompt carries the
   * skills best matching the conversation (and the `skills_search` tool) instead of the whole list.
   */
  agentListLimit: number;
}

/** The `skills.hub` section. */
export interface HubConfig {
  /**
   * `host:port` entries a hub fetch may reach even when they resolve to a private or loopback address
   * (a registry on the local network, the tests' emulator). Lowercase; IPv6 hosts in brackets.
   */
  allowedHosts: string[];
  /** `github_api`: the GitHub REST base (default `https://api.github.com`; a test emulator stands in). */
  githubApi: string;
  /** `clawhub_api`: the ClawHub registry API base (default `https://clawhub.ai/api/v1`). */
  clawhubApi: string;
}

/** Model settings for an LLM caller (auxiliary.curator, curator.auxiliary, or the main `model`). */
export interface ModelConfig {
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  timeoutSeconds?: number;
  extraBody?: Record<string, unknown>;
}

/** The curator section, with defaults applied. */
export interface CuratorConfig {
  enabled: boolean;
  intervalHours: number;
  minIdleHours: number;
  staleAfterDays: number;
  archiveAfterDays: number;
  consolidate: boolean;
  pruneBuiltins: boolean;
  backup: { enabled: boolean; keep: number };
  archiveTtlDays: number;
  /** Legacy `curator.auxiliary` block, when present. */
  legacyAuxiliary?: ModelConfig;
  /** Iteration and time caps of the consolidation pass. */
  maxIterations: number;
  maxSeconds: number;
}

/** The gateway section, with defaults applied. */
export interface GatewayConfig {
  admins: string[];
  allowedUsers: string[];
  allowedChats: string[];
  /** `platform:chat_id` where maintenance summaries are posted. */
  homeChannel?: string;
  health: { port: number; enabled: boolean };
  /**
   * The local web console: on by default on 127.0.0.1. `bind` other than a loopback address must be set
   * explicitly (and is announced loudly at start).
   */
  console: { enabled: boolean; port: number; bind: string };
  /** `check_minutes` between curator checks; the first `first_check_seconds` after start (default 90). */
  maintenance: { checkMinutes: number; firstCheckSeconds: number };
  /**
   * `gateway.stop_timeout_seconds`: how long a stopping gateway waits for running commands and a curator
   * run to reach a safe point (the service manager's stop timeout must be longer).
   */
  stopTimeoutSeconds: number;
  /** Most commands handled at once across all chats. */
  concurrency: number;
  /** Each registered platform's own section (`gateway.<platform>`), parsed by its adapter's definition. */
  platforms: Record<string, PlatformSection>;
  agent: { enabled: boolean; historyMessages: number };
  /** Buttons in chat: how long a shown button works, and items per page of a paged list. */
  actions: { ttlHours: number; pageSize: number };
  /**
   * Peers (IP addresses) whose `X-Forwarded-For` names the real client of a webhook request: the reverse
   * proxies in front of the listeners. Empty (the default): the peer address is the client.
   */
  trustedProxies: string[];
  /** Most messages one reply may become on a chat platform (past it: a file, or a cut with a pointer). */
  maxReplyMessages: number;
  /** `gateway.public_url`: the HTTPS address that reaches the one-time secret form server, when any. */
  publicUrl?: string;
  /** `gateway.secret_form.port`: where the one-time secret form listens on 127.0.0.1 (behind public_url). */
  secretForm: { port: number };
  /**
   * `gateway.locale`: the language of chat replies, menus and summaries: `auto` (the default) answers
   * each reader in their platform's language, else the chat's or the platform's default (Feishu on the
   * `feishu` domain: Chinese). `gateway.<platform>.locale` overrides it for one platform.
   */
  locale: LocaleSetting;
  /**
   * `gateway.home_locale`: the language of posts to a home chat (the maintenance summary, and every
   * answer there) when that chat chose none with `/language`; `auto` (the default) leaves it to the
   * locale settings and the platform.
   */
  homeLocale: LocaleSetting;
  /**
   * `gateway.timezone`: the IANA zone dates are shown in on every surface (`Asia/Shanghai`); absent: the
   * `TZ` environment variable, else UTC (`displayTimeZone` in `core/i18n/dates.ts`).
   */
  timezone?: string;
  /** `gateway.coordination`: several gateways on one home through Redis; absent for a single gateway. */
  coordination?: CoordinationConfig;
}

/** `gateway.coordination`, with defaults applied. */
export interface CoordinationConfig {
  /** `redis://…` or `rediss://…` of a Redis ≥ 7 (or Valkey). */
  redisUrl: string;
  /** This replica's id, unique among live replicas (default host name and pid). */
  replicaId: string;
  /** False: this replica never leads (it never writes the library). */
  writerEligible: boolean;
  /** How long an event is remembered as seen or handled, in hours (default 48; memory scales with it). */
  retentionHours: number;
}

/** Everything skillgate reads from config.yaml. */
export interface SkillgateConfig {
  skills: SkillsConfig;
  curator: CuratorConfig;
  /** `auxiliary.curator`, when present. */
  auxiliaryCurator?: ModelConfig;
  /** The main `model` section, when present. */
  model?: ModelConfig;
  gateway: GatewayConfig;
  /** Non-fatal notes (fallbacks to defaults, deprecations) to show or log once, in English. */
  warnings: string[];
  /** The same notes as catalog texts, for a reader in their language (`warnings` is their English). */
  warningTexts: Text[];
  /** mtime of config.yaml in ms (0 when absent); lets caches notice edits. */
  mtimeMs: number;
}

/** Curator defaults from the seed document and the contract. */
export const CURATOR_DEFAULTS = {
  enabled: true,
  intervalHours: 168,
  minIdleHours: 2,
  staleAfterDays: 30,
  archiveAfterDays: 90,
  consolidate: false,
  pruneBuiltins: true,
  backup: { enabled: true, keep: 5 },
  archiveTtlDays: 0,
  maxIterations: 40,
  maxSeconds: 600,
} as const;

/** Default ledger cap: 5 MiB. */
export const DEFAULT_LEDGER_MAX_BYTES = 5 * 1024 * 1024;

type Raw = Record<string, unknown>;

function isRecord(value: unknown): value is Raw {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function show(value: unknown): string {
  return (
    JSON.stringify(value, (_key, item) => (typeof item === "bigint" ? item.toString() : item)) ??
    String(value)
  );
}

/**
 * `document` with every integer beyond ±2^53 (a `bigint`, as the YAML reader keeps it exact) as its
 * decimal text: ids are compared as text, and no later step can round it.
 */
export function exactIntegersAsText(document: unknown): unknown {
  if (typeof document === "bigint") return document.toString();
  if (Array.isArray(document)) return document.map(exactIntegersAsText);
  if (!isRecord(document) || Object.getPrototypeOf(document) !== Object.prototype) return document;
  const copy: Raw = {};
  for (const [key, value] of Object.entries(document)) {
    Object.defineProperty(copy, key, { value: exactIntegersAsText(value), enumerable: true, writable: true });
  }
  return copy;
}

/** "config.yaml: `key` is value; requirement.", the one shape of a wrong value's error. */
function invalid(key: string, value: unknown, requirement: Text): Text {
  return t("config.invalid", { key, value: show(value), requirement });
}

function section(raw: Raw, key: string, at: string): Raw {
  const value = raw[key];
  if (value === undefined || value === null) return {};
  if (!isRecord(value))
    throw new ConfigError(`${at}${key}`, invalid(`${at}${key}`, value, t("config.req.mapping")));
  return value;
}

function bool(raw: Raw, key: string, at: string, fallback: boolean): boolean {
  const value = raw[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value === "boolean") return value;
  if (value === "true" || value === "false") return value === "true";
  throw new ConfigError(`${at}${key}`, invalid(`${at}${key}`, value, t("config.req.bool")));
}

function str(raw: Raw, key: string, at: string): string | undefined {
  const value = raw[key];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  throw new ConfigError(`${at}${key}`, invalid(`${at}${key}`, value, t("config.req.string")));
}

function oneOf<T extends string>(raw: Raw, key: string, at: string, allowed: readonly T[], fallback: T): T {
  const value = str(raw, key, at) ?? fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(
      `${at}${key}`,
      invalid(`${at}${key}`, value, t("config.req.oneOf", { allowed: listOf(allowed) })),
    );
  }
  return value as T;
}

function num(
  raw: Raw,
  key: string,
  at: string,
  fallback: number,
  options: { integer?: boolean; min?: number; max?: number } = {},
): number {
  const value = raw[key];
  if (value === undefined || value === null) return fallback;
  const parsed = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  const ok =
    typeof parsed === "number" &&
    Number.isFinite(parsed) &&
    (!options.integer || Number.isInteger(parsed)) &&
    (options.min === undefined || parsed >= options.min) &&
    (options.max === undefined || parsed <= options.max);
  if (!ok) {
    const kind = options.integer ? t("config.req.wholeNumber") : t("config.req.number");
    const bounds = [
      options.min !== undefined ? `≥ ${options.min}` : "",
      options.max !== undefined ? `≤ ${options.max}` : "",
    ].filter(Boolean);
    const range = bounds.length > 0 ? t("config.req.range", { kind, bounds: bounds.join(" ") }) : kind;
    throw new ConfigError(`${at}${key}`, invalid(`${at}${key}`, value, t("config.req.mustBe", { range })));
  }
  return parsed as number;
}

/** A curator number: below 1 (or not a number) falls back to the default with one warning, as Hermes does. */
function curatorNumber(raw: Raw, key: string, fallback: number, warnings: WarningLists): number {
  const value = raw[key];
  if (value === undefined || value === null) return fallback;
  const parsed = typeof value === "string" ? Number(value) : value;
  if (typeof parsed !== "number" || !Number.isFinite(parsed) || parsed < 1) {
    addWarning(
      warnings,
      t("config.warn.curatorNumber", { key, value: show(value), fallback: String(fallback) }),
    );
    return fallback;
  }
  return parsed;
}

function stringList(raw: Raw, key: string, at: string): string[] {
  const value = raw[key];
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.every((item) => typeof item === "string" || typeof item === "number")) {
    return value.map(String);
  }
  throw new ConfigError(`${at}${key}`, invalid(`${at}${key}`, value, t("config.req.stringList")));
}

function parseHub(hub: Raw): HubConfig {
  return {
    allowedHosts: hostPortList(hub, "allowed_hosts", "skills.hub."),
    githubApi: (str(hub, "github_api", "skills.hub.") ?? "https://api.github.com").replace(/\/+$/, ""),
    clawhubApi: (str(hub, "clawhub_api", "skills.hub.") ?? "https://clawhub.ai/api/v1").replace(/\/+$/, ""),
  };
}

/** A list of `host:port` entries (lowercased); anything else names the key and what it needs. */
function hostPortList(raw: Raw, key: string, at: string): string[] {
  const entries = stringList(raw, key, at);
  for (const entry of entries) {
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+):\d{1,5}$/i.test(entry.trim()))
      throw new ConfigError(`${at}${key}`, invalid(`${at}${key}`, entry, t("config.req.hostPort")));
  }
  return entries.map((entry) => entry.trim().toLowerCase());
}

/**
 * A list of skill names as Hermes matches them: only strings name skills. An item PyYAML reads as a
 * boolean, number or date (a bare `on`, `12:30`, `2024-01-01`) matches no skill; it is left out, with a
 * warning saying to quote it.
 */
function skillNameList(raw: Raw, key: string, at: string, warnings: WarningLists): string[] {
  const value = raw[key];
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return [value];
  const nested = (item: unknown) =>
    (isRecord(item) && !(item instanceof YamlTimestamp)) || Array.isArray(item);
  if (!Array.isArray(value) || value.some(nested)) {
    throw new ConfigError(`${at}${key}`, invalid(`${at}${key}`, value, t("config.req.skillNames")));
  }
  const names = value.filter((item): item is string => typeof item === "string");
  for (const item of value) {
    if (typeof item === "string" || item === null) continue;
    const params = { key: `${at}${key}`, value: show(item) };
    const kind = typeof item === "object" ? "date" : typeof item;
    addWarning(
      warnings,
      kind === "boolean" || kind === "number" || kind === "date"
        ? t(`config.warn.notSkillName.${kind}`, params)
        : t("config.warn.notSkillName.other", { ...params, kind }),
    );
  }
  return names;
}

function platformRefList(raw: Raw, key: string): string[] {
  const list = stringList(raw, key, "gateway.");
  for (const entry of list) {
    if (!isPlatformReference(entry)) {
      throw new ConfigError(
        `gateway.${key}`,
        t("config.badReference", {
          key: `gateway.${key}`,
          value: show(entry),
          platforms: listOf(registeredPlatforms().map((platform) => platform.name)),
        }),
      );
    }
  }
  return list;
}

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

/** A `locale` key: `auto`, `en` or `zh-CN` (default `auto`). */
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
