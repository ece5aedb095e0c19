/**
 * Every mistake in a home's config.yaml and .env found at once, each with where it is (`line:column`),
 * for `skillgate doctor` and for `serve`'s start alike. On top of `checkConfigDocument` (every wrong
 * value, unknown keys in skillgate's own sections) it looks for: a top-level section a typo away from one
 * skillgate reads (config.yaml is Hermes' too, so only names near `skills`, `curator`, `auxiliary`,
 * `gateway` count); two listeners on one port; a bot token written into config.yaml; a `.env` name a typo
 * away from a platform credential; admin and allowed ids of a shape the platform never gives; curator day
 * thresholds out of order; and a `.env` holding credentials that others may read.
 *
 * Errors stop `serve` (exit 78); warnings are shown and the gateway starts.
 */
import { statSync } from "node:fs";
import type { Node, Pair } from "yaml";
import type { ConfigError } from "../core/errors.js";
import { type Text, t } from "../core/i18n/messages.js";
import { type PlatformDefinition, registeredPlatforms } from "../core/platforms.js";
import { editDistance } from "../core/suggest.js";
import { isMap, isScalar } from "../core/yaml.js";
import { checkConfigDocument } from "./check.js";
import { exactIntegersAsText, type SkillgateConfig } from "./config.js";
import { parseDotenvStatements } from "./dotenv.js";
import { parseYaml11Document, yamlErrorCause } from "./yaml11.js";

/** One problem found, with where it is when it is in a file. */
export interface ConfigFinding {
  level: "error" | "warning";
  /** The dotted config key or the `.env` name it is about. */
  key: string;
  /** `line` and `column` (1-based) in `file`, when the problem sits at a place in it. */
  where?: { file: "config.yaml" | ".env"; line: number; column: number };
  /** The problem, in the reader's language. */
  text: Text;
  /** What to do about it, when more than "fix it in config.yaml". */
  fix?: Text;
}

/** What `lintHome` found. */
export interface ConfigLint {
  findings: ConfigFinding[];
  /** The config with every wrong value at its default, when the file's shape allows one. */
  config?: SkillgateConfig;
}

/** The input of `lintHome`: the texts of the two files (undefined when absent) and the .env file's mode. */
export interface LintInput {
  configText?: string;
  envText?: string;
  /** `stat().mode` of `.env`, when it exists. */
  envMode?: number;
  platforms?: readonly PlatformDefinition[];
}

/** The top-level sections skillgate reads; a name a typo away from one of them is flagged. */
const READ_SECTIONS = ["skills", "curator", "auxiliary", "gateway"];

type Raw = Record<string, unknown>;

function isRecord(value: unknown): value is Raw {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** 1-based line and column of `offset` in `text`. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - (before.lastIndexOf("\n") + 1) + 1 };
}

/**
 * Where the dotted `key` is written in config.yaml: its key node (its longest written prefix when the key
 * itself is absent, e.g. a default that collides), or undefined.
 */
function locate(text: string, root: Node | null | undefined, key: string): ConfigFinding["where"] {
  let node: Node | null | undefined = root;
  let found: [number, number, number] | undefined;
  for (const part of key.split(".")) {
    if (!isMap(node)) break;
    const pair = (node.items as Pair<Node, Node>[]).find(
      (item) => isScalar(item.key) && String(item.key.value) === part,
    );
    if (!pair) break;
    found = (pair.key as Node).range ?? undefined;
    node = pair.value;
  }
  return found ? { file: "config.yaml", ...lineColumn(text, found[0]) } : undefined;
}

/** Telegram `123456:AA…` (35 characters after the colon) and Discord `xxxx.yyyy.zzzz` bot token shapes. */
const TOKEN_SHAPES = [
  /^\d{6,}:[A-Za-z0-9_-]{30,}$/,
  /^[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{25,}$/,
];
/** Keys that hold a credential by their name. */
const TOKEN_KEY = /(^|_)(bot_token|token|app_secret|api_token)$/;
/** Keys skillgate does read from config.yaml although their name says secret (webhook checks). */
const CONFIG_SECRET_KEYS = new Set(["secret", "verification_token", "encrypt_key", "api_key", "public_key"]);

/** Where each platform's ids come from, and the shape the platform gives them. */
const ID_SHAPES: Record<string, { shape: RegExp; example: string }> = {
  // Telegram user and chat ids are integers (chats negative): Bot API `User.id`, `Chat.id`.
  telegram: { shape: /^-?\d+$/, example: "123456789" },
  // Discord ids are snowflakes: 17 to 20 digits.
  discord: { shape: /^\d{17,20}$/, example: "222333444555666777" },
  // Feishu open_id (`ou_`), union_id (`on_`) and chat_id (`oc_`).
  feishu: { shape: /^o[unc]_[A-Za-z0-9]+$/, example: "ou_84aad35d084aa403a838cf73ee18467" },
};

/** Section names a typo away from one skillgate reads. */
function nearSections(document: Raw, text: string, root: Node | null | undefined): ConfigFinding[] {
  const found: ConfigFinding[] = [];
  for (const key of Object.keys(document)) {
    if (READ_SECTIONS.includes(key) || key.length < 4) continue;
    const near = READ_SECTIONS.find((name) => editDistance(key.toLowerCase(), name) <= 2);
    if (!near) continue;
    found.push({
      level: "warning",
      key,
      where: locate(text, root, key),
      text: t("lint.nearSection", { key, section: near }),
      fix: t("lint.nearSection.fix", { key, section: near }),
    });
  }
  return found;
}

interface Listener {
  key: string;
  port: number;
  bind: string;
}

function listeners(document: Raw, config: SkillgateConfig): Listener[] {
  const gateway = config.gateway;
  const found: Listener[] = [];
  if (gateway.health.enabled)
    found.push({ key: "gateway.health.port", port: gateway.health.port, bind: "0.0.0.0" });
  if (gateway.console.enabled)
    found.push({ key: "gateway.console.port", port: gateway.console.port, bind: gateway.console.bind });
  if (gateway.publicUrl)
    found.push({ key: "gateway.secret_form.port", port: gateway.secretForm.port, bind: "127.0.0.1" });
  const raw = isRecord(document.gateway) ? document.gateway : {};
  for (const [platform, section] of Object.entries(raw)) {
    if (!isRecord(section) || section.enabled === false) continue;
    for (const [name, needsWebhookMode] of [
      ["webhook", true],
      ["interactions", false],
    ] as const) {
      const listener = section[name];
      if (!isRecord(listener) || (needsWebhookMode && section.mode !== "webhook")) continue;
      const port = Number(listener.port);
      if (!Number.isInteger(port) || port <= 0) continue;
      found.push({
        key: `gateway.${platform}.${name}.port`,
        port,
        bind: typeof listener.bind === "string" ? listener.bind : "127.0.0.1",
      });
    }
  }
  return found.filter((listener) => listener.port > 0);
}

const ANY_ADDRESS = new Set(["0.0.0.0", "::", ""]);

/** Two listeners on one port (and addresses that overlap): the second cannot start. */
function portCollisions(document: Raw, config: SkillgateConfig, text: string, root: Node | null | undefined) {
  const found: ConfigFinding[] = [];
  const all = listeners(document, config);
  for (const [index, second] of all.entries()) {
    const first = all
      .slice(0, index)
      .find(
        (other) =>
          other.port === second.port &&
          (other.bind === second.bind || ANY_ADDRESS.has(other.bind) || ANY_ADDRESS.has(second.bind)),
      );
    if (!first) continue;
    found.push({
      level: "error",
      key: second.key,
      where: locate(text, root, second.key) ?? locate(text, root, first.key),
      text: t("lint.portCollision", { key: second.key, other: first.key, port: second.port }),
      fix: t("lint.portCollision.fix", { key: second.key }),
    });
  }
  return found;
}

/** Bot tokens written into config.yaml's skillgate sections (skillgate reads credentials from .env). */
function tokensInConfig(document: Raw, text: string, root: Node | null | undefined): ConfigFinding[] {
  const found: ConfigFinding[] = [];
  const walk = (node: unknown, at: string) => {
    if (!isRecord(node)) return;
    for (const [key, value] of Object.entries(node)) {
      const dotted = `${at}${key}`;
      if (isRecord(value)) {
        walk(value, `${dotted}.`);
        continue;
      }
      if (typeof value !== "string" || value.trim() === "" || CONFIG_SECRET_KEYS.has(key)) continue;
      if (!TOKEN_KEY.test(key) && !TOKEN_SHAPES.some((shape) => shape.test(value.trim()))) continue;
      found.push({
        level: "warning",
        key: dotted,
        where: locate(text, root, dotted),
        text: t("lint.tokenInConfig", { key: dotted }),
        fix: t("lint.tokenInConfig.fix", { key: dotted }),
      });
    }
  };
  for (const name of ["gateway", "curator"]) walk(document[name], `${name}.`);
  return found;
}

/** Admin and allowed ids of a shape their platform never gives: they would match nobody. */
function idShapes(document: Raw, text: string, root: Node | null | undefined): ConfigFinding[] {
  const found: ConfigFinding[] = [];
  const gateway = isRecord(document.gateway) ? document.gateway : {};
  for (const list of ["admins", "allowed_users", "allowed_chats"]) {
    const items = gateway[list];
    for (const item of Array.isArray(items) ? items : typeof items === "string" ? [items] : []) {
      if (typeof item !== "string") continue;
      const colon = item.indexOf(":");
      const platform = item.slice(0, colon);
      const id = item.slice(colon + 1);
      const rule = ID_SHAPES[platform];
      if (colon < 0 || !rule || rule.shape.test(id)) continue;
      const key = `gateway.${list}`;
      found.push({
        level: "warning",
        key,
        where: locate(text, root, key),
        text: t("lint.idShape", { key, value: item, platform }),
        fix: t("lint.idShape.fix", { example: `${platform}:${rule.example}` }),
      });
    }
  }
  return found;
}

/** `stale_after_days` at or past `archive_after_days`: skills are archived without ever showing as stale. */
function thresholds(config: SkillgateConfig, text: string, root: Node | null | undefined): ConfigFinding[] {
  const { staleAfterDays, archiveAfterDays } = config.curator;
  if (staleAfterDays < archiveAfterDays) return [];
  const key = "curator.stale_after_days";
  return [
    {
      level: "warning",
      key,
      where: locate(text, root, key) ?? locate(text, root, "curator.archive_after_days"),
      text: t("lint.thresholds", { stale: staleAfterDays, archive: archiveAfterDays }),
      fix: t("lint.thresholds.fix"),
    },
  ];
}

/** The names skillgate reads credentials from (the platforms' own, and their webhook secrets). */
function credentialNames(platforms: readonly PlatformDefinition[]): string[] {
  return [
    ...new Set([
      ...platforms.flatMap((platform) => platform.secrets),
      "TELEGRAM_WEBHOOK_SECRET",
      "FEISHU_VERIFICATION_TOKEN",
      "FEISHU_ENCRYPT_KEY",
    ]),
  ];
}

/** `.env` names that look like a platform credential but are not one skillgate reads (`TELEGRAM_TOKEN`). */
function envNames(envText: string, platforms: readonly PlatformDefinition[]): ConfigFinding[] {
  const known = credentialNames(platforms);
  const prefixes = platforms.map((platform) => `${platform.name.toUpperCase()}_`);
  const found: ConfigFinding[] = [];
  for (const statement of parseDotenvStatements(envText)) {
    const name = statement.key;
    if (!name || known.includes(name) || !/(TOKEN|SECRET|KEY)$/.test(name)) continue;
    const prefix = prefixes.find((item) => name.startsWith(item));
    if (!prefix) continue;
    const sameKind = known.filter((item) => item.startsWith(prefix));
    const meant = sameKind
      .map((item) => ({ item, distance: editDistance(name, item) }))
      .sort((a, b) => a.distance - b.distance)[0]?.item;
    if (!meant) continue;
    found.push({
      level: "warning",
      key: name,
      where: { file: ".env", ...lineColumn(envText, statement.bodyStart) },
      text: t("lint.envName", { name, meant }),
      fix: t("lint.envName.fix", { name, meant }),
    });
  }
  return found;
}

/** A `.env` holding credentials that the file's group or others may read. */
function envMode(envText: string, mode: number, platforms: readonly PlatformDefinition[]): ConfigFinding[] {
  if ((mode & 0o077) === 0) return [];
  const known = new Set(credentialNames(platforms));
  const holds = parseDotenvStatements(envText).some(
    (statement) =>
      statement.key !== null &&
      statement.value &&
      (known.has(statement.key) || /(TOKEN|SECRET|KEY|PASSWORD)$/.test(statement.key)),
  );
  if (!holds) return [];
  const octal = (mode & 0o777).toString(8).padStart(3, "0");
  return [
    { level: "warning", key: ".env", text: t("lint.envMode", { mode: octal }), fix: t("lint.envMode.fix") },
  ];
}

/** Every problem of a home's config.yaml and .env, errors first in file order, then warnings. */
export function lintHome(input: LintInput): ConfigLint {
  const platforms = input.platforms ?? registeredPlatforms();
  const text = (input.configText ?? "").replace(/^\uFEFF/, "");
  const doc = parseYaml11Document(text);
  const syntax = doc.errors[0];
  if (syntax) {
    const at = syntax.linePos?.[0];
    return {
      findings: [
        {
          level: "error",
          key: "(syntax)",
          where: at ? { file: "config.yaml", line: at.line, column: at.col } : undefined,
          text: t("doctor.config.yaml", {
            file: "config.yaml",
            detail: yamlErrorCause(syntax),
          }),
          fix: t("doctor.config.yaml.fix"),
        },
      ],
    };
  }
  const document = exactIntegersAsText(doc.toJS({ maxAliasCount: -1 }) ?? {});
  const root = doc.contents as Node | null;
  const check = checkConfigDocument(document, platforms);
  const findings: ConfigFinding[] = check.errors.map((error: ConfigError) => ({
    level: "error",
    key: error.key,
    where: locate(text, root, error.key),
    text: error.text,
  }));
  if (check.config?.skills.visibilityError) {
    const error = check.config.skills.visibilityError;
    findings.push({ level: "error", key: error.key, where: locate(text, root, error.key), text: error.text });
  }
  for (const { key, suggestion } of check.unknown)
    findings.push({
      level: "warning",
      key,
      where: locate(text, root, key),
      text: suggestion
        ? t("doctor.config.unknownSuggest", { key, suggestion })
        : t("doctor.config.unknown", { key }),
      fix: suggestion
        ? t("doctor.config.unknownSuggest.fix", { key, suggestion })
        : t("doctor.config.unknown.fix", { key }),
    });
  if (isRecord(document)) {
    findings.push(...nearSections(document, text, root));
    findings.push(...tokensInConfig(document, text, root));
    findings.push(...idShapes(document, text, root));
    if (check.config) {
      findings.push(...portCollisions(document, check.config, text, root));
      findings.push(...thresholds(check.config, text, root));
    }
  }
  if (input.envText !== undefined) {
    findings.push(...envNames(input.envText, platforms));
    if (input.envMode !== undefined) findings.push(...envMode(input.envText, input.envMode, platforms));
  }
  const order = (finding: ConfigFinding) => (finding.level === "error" ? 0 : 1);
  findings.sort((a, b) => order(a) - order(b));
  return { findings, config: check.config };
}

/** `finding`'s text with where it is: `… (config.yaml line 3, column 1)`. */
export function findingText(finding: ConfigFinding): Text {
  return finding.where
    ? t("lint.located", {
        problem: finding.text,
        file: finding.where.file,
        line: finding.where.line,
        column: finding.where.column,
      })
    : finding.text;
}

/** The mode of `file`, or undefined when it cannot be read. */
export function fileMode(file: string): number | undefined {
  try {
    return statSync(file).mode;
  } catch {
    return undefined;
  }
}
