/**
 * A thorough look at a config.yaml document for `skillgate doctor`: every wrong value (not only the
 * first, which is all `parseConfig` reports), and the keys in skillgate's own sections (`gateway`,
 * `curator`) that no part of skillgate reads, with the known key they most likely meant. The other
 * sections are shared with Hermes and left alone. What is "known" is what the parsers read (each
 * platform's registered parser included), so the list cannot drift from the code.
 */
import { ConfigError } from "../core/errors.js";
import type { PlatformDefinition } from "../core/platforms.js";
import { registeredPlatforms } from "../core/platforms.js";
import { closestWord } from "../core/suggest.js";
import { exactIntegersAsText, parseConfig, type SkillgateConfig } from "./config.js";
import { type ConfigOverride, withOverrides } from "./overrides.js";

type Raw = Record<string, unknown>;

/** The top-level sections that belong to skillgate alone (or whose keys it knows in full). */
const OWN_SECTIONS = ["gateway", "curator"];
/** Mappings whose keys are the user's own (passed through to a model API as they are). */
const FREE_FORM = /(^|\.)extra_body$/;
/** More problems than this in one file: the rest are not looked for. */
const MAX_ERRORS = 50;

/** A key no part of skillgate reads. */
export interface UnknownKey {
  /** The dotted path, e.g. `gateway.helth`. */
  key: string;
  /** The known key at the same level it most likely meant, e.g. `gateway.health`. */
  suggestion?: string;
}

/** What `checkConfigDocument` found. */
export interface ConfigCheck {
  /** Every wrong value, in the order the parser meets them. */
  errors: ConfigError[];
  /** Unknown keys (looked for only once the rest of the file parses). */
  unknown: UnknownKey[];
  /** The config with every wrong value left at its default, when the file's shape allows one. */
  config?: SkillgateConfig;
}

function isRecord(value: unknown): value is Raw {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A view of `value` that records in `seen` every dotted key the parser reads (`at*` when it lists keys). */
function tracked(value: unknown, at: string, seen: Set<string>): unknown {
  if (!isRecord(value)) return value;
  return new Proxy(value, {
    get(target, key, receiver) {
      if (typeof key !== "string") return Reflect.get(target, key, receiver);
      seen.add(`${at}${key}`);
      return tracked(target[key], `${at}${key}.`, seen);
    },
    ownKeys(target) {
      seen.add(`${at}*`);
      return Reflect.ownKeys(target);
    },
  });
}

/** A deep copy of a YAML document (plain data) with the value at `key` removed. */
function without(document: Raw, key: string): Raw {
  const copy = structuredClone(document);
  const parts = key.split(".");
  let node: unknown = copy;
  for (const part of parts.slice(0, -1)) node = isRecord(node) ? node[part] : undefined;
  if (isRecord(node)) delete node[parts.at(-1) as string];
  return copy;
}

function unknownKeys(document: Raw, seen: Set<string>): UnknownKey[] {
  const found: UnknownKey[] = [];
  const walk = (node: Raw, at: string) => {
    if (seen.has(`${at}*`) || FREE_FORM.test(at.slice(0, -1))) return;
    // The keys the parser looks for at this level: what a typo meant.
    const known = [...seen]
      .filter((key) => key.startsWith(at) && !key.slice(at.length).includes(".") && !key.endsWith("*"))
      .map((key) => key.slice(at.length));
    for (const [key, value] of Object.entries(node)) {
      const dotted = `${at}${key}`;
      if (!seen.has(dotted)) {
        const suggestion = closestWord(key, known);
        found.push({ key: dotted, suggestion: suggestion ? `${at}${suggestion}` : undefined });
      } else if (isRecord(value)) walk(value, `${dotted}.`);
    }
  };
  for (const name of OWN_SECTIONS) {
    const section = document[name];
    if (isRecord(section)) walk(section, `${name}.`);
  }
  return found;
}

/**
 * Checks a parsed config.yaml document: every wrong value (each one found by parsing again without the
 * values already reported, so one mistake does not hide the next) and the unknown keys of skillgate's
 * own sections.
 */
export function checkConfigDocument(
  document: unknown,
  platforms: readonly PlatformDefinition[] = registeredPlatforms(),
): ConfigCheck {
  document = exactIntegersAsText(document);
  if (!isRecord(document)) {
    try {
      return { errors: [], unknown: [], config: parseConfig(document, 0, platforms) };
    } catch (error) {
      if (error instanceof ConfigError) return { errors: [error], unknown: [] };
      throw error;
    }
  }
  const errors: ConfigError[] = [];
  let rest = document;
  const seen = new Set<string>();
  for (;;) {
    seen.clear();
    try {
      parseConfig(tracked(rest, "", seen), 0, platforms);
      return { errors, unknown: unknownKeys(document, seen), config: parseConfig(rest, 0, platforms) };
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      errors.push(error);
      const next = without(rest, error.key);
      // A key that cannot be taken out (the root, a file error) ends the search.
      if (errors.length >= MAX_ERRORS || JSON.stringify(next) === JSON.stringify(rest))
        return { errors, unknown: [] };
      rest = next;
    }
  }
}

/** The top-level sections skillgate reads: a `--set` key must start with one. */
const OVERRIDE_SECTIONS = ["skills", "curator", "auxiliary", "gateway", "model"];

/**
 * Checks `serve --set` overrides against `document` (the file as it is), segment by segment: a key
 * outside the sections skillgate reads, a key the parsers do not read at any depth (a misspelt section
 * in the middle included), or a value they refuse, is a `ConfigError` naming it and the near miss.
 */
export function validateOverrides(overrides: readonly ConfigOverride[], document: unknown): void {
  for (const { path } of overrides) {
    const section = path[0] as string;
    if (OVERRIDE_SECTIONS.includes(section)) continue;
    const suggestion = closestWord(section, OVERRIDE_SECTIONS);
    throw new ConfigError(
      path.join("."),
      `--set ${path.join(".")}: ${section} is not a section skillgate reads${suggestion ? `; did you mean ${[suggestion, ...path.slice(1)].join(".")}?` : "."}`,
    );
  }
  const check = checkConfigDocument(withOverrides(document, overrides));
  const named = overrides.map((override) => override.path.join("."));
  // Checked segment by segment: an unknown section in the middle of a path (`gateway.telegrm.webhook.port`)
  // is that path's unknown key, as much as an unknown last segment is.
  const unknown = check.unknown.find((item) =>
    named.some((key) => key === item.key || key.startsWith(`${item.key}.`)),
  );
  if (unknown)
    throw new ConfigError(
      unknown.key,
      `--set ${unknown.key}: not a setting skillgate knows${unknown.suggestion ? `; did you mean ${unknown.suggestion}?` : "."}`,
    );
  const error = check.errors[0];
  if (error) throw error;
}
