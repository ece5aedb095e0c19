/**
 * `skillgate serve --set <key>=<value>`: per-process overrides of config.yaml, for replicas that share one
 * file (`--set gateway.coordination.replica_id=b --set gateway.telegram.webhook.port=9002`). A value is
 * read as YAML 1.1 reads a scalar (so `9002` is a number and `false` a boolean, as in the file), the
 * overrides are validated like the file (`validateOverrides` in check.ts) and they apply to every later
 * read of the file in this process (`loadConfig`; the library re-reads the file when it changes).
 */
import { ConfigError } from "../core/errors.js";
import { parseYaml11 } from "./yaml11.js";

/** One override: a dotted path and its value. */
export interface ConfigOverride {
  path: string[];
  value: unknown;
}

type Raw = Record<string, unknown>;

function isRecord(value: unknown): value is Raw {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Path parts that would reach into object machinery instead of a setting. */
const FORBIDDEN = new Set(["__proto__", "prototype", "constructor"]);

/** Parses `key=value` (throws `ConfigError` for a malformed one). */
export function parseOverride(text: string): ConfigOverride {
  const at = text.indexOf("=");
  const key = at > 0 ? text.slice(0, at).trim() : "";
  const path = key.split(".");
  if (!key || path.some((part) => part === "" || FORBIDDEN.has(part)))
    throw new ConfigError(
      "--set",
      `--set ${JSON.stringify(text)}: write it as <key>=<value> with a dotted key, e.g. --set gateway.coordination.replica_id=b.`,
    );
  const raw = text.slice(at + 1);
  let value: unknown;
  try {
    value = raw === "" ? "" : parseYaml11(raw);
  } catch {
    value = raw;
  }
  return { path, value };
}

/** `document` with the overrides set (a copy; missing sections are created). */
export function withOverrides(document: unknown, overrides: readonly ConfigOverride[]): unknown {
  if (overrides.length === 0) return document;
  const copy: Raw = isRecord(document) ? structuredClone(document) : {};
  for (const { path, value } of overrides) {
    let node = copy;
    for (const part of path.slice(0, -1)) {
      const next = Object.hasOwn(node, part) ? node[part] : undefined;
      if (!isRecord(next)) node[part] = {};
      node = node[part] as Raw;
    }
    node[path.at(-1) as string] = value;
  }
  return copy;
}

let active: readonly ConfigOverride[] = [];

/** Sets this process's overrides (checked first with `validateOverrides`). */
export function setConfigOverrides(overrides: readonly ConfigOverride[]): void {
  active = [...overrides];
}

/** The overrides of this process (none unless `serve --set` gave some). */
export function configOverrides(): readonly ConfigOverride[] {
  return active;
}
