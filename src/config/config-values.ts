/**
 * Reading single values of `config.yaml`: each checked for its type and range, and refused with an error
 * that names the key, the value and what is allowed (or, where Hermes falls back, warned about once).
 */
import { ConfigError } from "../core/errors.js";
import { addWarning, list as listOf, type Text, t, type WarningLists } from "../core/i18n/messages.js";
import { isPlatformReference, registeredPlatforms } from "../core/platforms.js";
import type { HubConfig } from "./config-types.js";
import { YamlTimestamp } from "./yaml11.js";

/** A mapping of `config.yaml` as parsed. */
export type Raw = Record<string, unknown>;

/** True for a mapping (not an array, not null). */
export function isRecord(value: unknown): value is Raw {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A value as an error quotes it (big integers exactly). */
export function show(value: unknown): string {
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
export function invalid(key: string, value: unknown, requirement: Text): Text {
  return t("config.invalid", { key, value: show(value), requirement });
}

/** The mapping at `key` (`{}` when absent); anything else is refused. */
export function section(raw: Raw, key: string, at: string): Raw {
  const value = raw[key];
  if (value === undefined || value === null) return {};
  if (!isRecord(value))
    throw new ConfigError(`${at}${key}`, invalid(`${at}${key}`, value, t("config.req.mapping")));
  return value;
}

/** A boolean at `key`, or `fallback` when absent; anything else is refused. */
export function bool(raw: Raw, key: string, at: string, fallback: boolean): boolean {
  const value = raw[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value === "boolean") return value;
  if (value === "true" || value === "false") return value === "true";
  throw new ConfigError(`${at}${key}`, invalid(`${at}${key}`, value, t("config.req.bool")));
}

/** A string at `key`, or undefined when absent; anything else is refused. */
export function str(raw: Raw, key: string, at: string): string | undefined {
  const value = raw[key];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  throw new ConfigError(`${at}${key}`, invalid(`${at}${key}`, value, t("config.req.string")));
}

/** One of `allowed` at `key`, or `fallback` when absent; anything else is refused. */
export function oneOf<T extends string>(
  raw: Raw,
  key: string,
  at: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const value = str(raw, key, at) ?? fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(
      `${at}${key}`,
      invalid(`${at}${key}`, value, t("config.req.oneOf", { allowed: listOf(allowed) })),
    );
  }
  return value as T;
}

/** A number at `key` within the given bounds, or the fallback when absent; anything else is refused. */
export function num(
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
export function curatorNumber(raw: Raw, key: string, fallback: number, warnings: WarningLists): number {
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

/** A list of strings at `key` (`[]` when absent); anything else is refused. */
export function stringList(raw: Raw, key: string, at: string): string[] {
  const value = raw[key];
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.every((item) => typeof item === "string" || typeof item === "number")) {
    return value.map(String);
  }
  throw new ConfigError(`${at}${key}`, invalid(`${at}${key}`, value, t("config.req.stringList")));
}

/** The `skills.hub` section. */
export function parseHub(hub: Raw): HubConfig {
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
export function skillNameList(raw: Raw, key: string, at: string, warnings: WarningLists): string[] {
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

/** A list of platform references at `gateway.<key>`; an entry that is not one is refused, naming the platforms. */
export function platformRefList(raw: Raw, key: string): string[] {
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
