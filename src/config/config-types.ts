/**
 * The shape of skillgate's configuration as the rest of the program reads it: one typed section per part
 * of `config.yaml` skillgate uses, and the defaults the contract gives.
 */
import type { ConfigError } from "../core/errors.js";
import type { LocaleSetting } from "../core/i18n/locale.js";
import type { Text } from "../core/i18n/messages.js";
import type { PlatformSection } from "../core/platforms.js";

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
