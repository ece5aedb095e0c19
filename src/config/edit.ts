/**
 * Edits `<home>/config.yaml` in place for `skills enable|disable|config set`. The file is shared with
 * Hermes and hand-edited, so an edit touches only the bytes of the node it changes: a list item is
 * appended as one new line (or inside the brackets of a flow list), removed as its own line, a scalar is
 * replaced where it stands, and a missing key is inserted as new lines at the end of the nearest existing
 * block mapping (or inside the braces of a flow mapping). Everything else — comments, key order,
 * quoting, indentation, CRLF line endings — stays byte for byte. Hermes reads the file with PyYAML (YAML
 * 1.1), so new scalars are written the way PyYAML reads them back (`on`, `12:30`, `1_000`, `2024-01-01`
 * quoted as the strings they are), and the result is re-parsed with PyYAML's types and compared with the
 * intended document before anything is written. A layout this module cannot edit surgically (multi-line
 * items, a section shared through an anchor, alias or merge key) is refused with a clear error rather
 * than reformatted, and so is a key path through `__proto__`, `constructor` or `prototype`. Writes are
 * atomic (a 0600 tmp file renamed over it, then the file's mode restored) and refused when the file
 * changed since it was read.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import type YAML from "yaml";
import type { Node, Pair, YAMLMap, YAMLSeq } from "yaml";
import { ConfigError } from "../core/errors.js";
import { checkWriteFence } from "../core/fence.js";
import { atomicWriteFile, withLock } from "../core/fsutil.js";
import { t } from "../core/i18n/messages.js";
import { isAlias, isMap, isScalar, isSeq } from "../core/yaml.js";
import { homePaths } from "./home.js";
import { parseYaml11, parseYaml11Document, yamlScalarText } from "./yaml11.js";

/** One change to config.yaml. `path` is the key path from the root, e.g. `["skills", "disabled"]`. */
export type ConfigChange =
  | { kind: "add-to-list"; path: string[]; value: string }
  | { kind: "remove-from-list"; path: string[]; value: string }
  | { kind: "set"; path: string[]; value: string | number | bigint | boolean };

type ListChange = Extract<ConfigChange, { kind: "add-to-list" | "remove-from-list" }>;

/** The result of planning a change against a text: the new text, or null when it changes nothing. */
export interface PlannedEdit {
  text: string | null;
}

const INDENT_STEP = 2;

function refuse(change: ConfigChange, why: string): never {
  throw new ConfigError(
    change.path.join("."),
    `config.yaml was not changed: ${why} Edit \`${change.path.join(".")}\` by hand, or rewrite that section in block style (one key per line), and try again.`,
  );
}

/** Path segments that name JavaScript's object machinery, never a setting. */
const RESERVED_KEYS = new Set(["__proto__", "constructor", "prototype"]);

function scalarText(value: string | number | bigint | boolean): string {
  return yamlScalarText(value);
}

/** The file's line ending: CRLF when it already uses it, else LF. */
function lineEnding(text: string): string {
  return text.includes("\r\n") ? "\r\n" : "\n";
}

function lineStart(text: string, at: number): number {
  return text.lastIndexOf("\n", at - 1) + 1;
}

/** Position just after the line holding `at - 1` (after its newline; a newline is added at EOF). */
function afterLine(text: string, at: number): { pos: number; prefix: string } {
  if (at > 0 && text[at - 1] === "\n") return { pos: at, prefix: "" };
  const newline = text.indexOf("\n", at);
  return newline === -1 ? { pos: text.length, prefix: lineEnding(text) } : { pos: newline + 1, prefix: "" };
}

function splice(text: string, start: number, end: number, insert: string): string {
  return text.slice(0, start) + insert + text.slice(end);
}

/** Lines that create `keys` (nested, block style) ending in `value`, at `indent`. */
function nestedLines(keys: string[], value: string, indent: number, eol: string): string {
  return keys
    .map((key, index) => {
      const pad = " ".repeat(indent + index * INDENT_STEP);
      const last = index === keys.length - 1;
      return `${pad}${scalarText(key)}:${last ? ` ${value}` : ""}${eol}`;
    })
    .join("");
}

/** `keys` nested as flow mappings ending in `value`: `a: {b: value}`. */
function nestedFlow(keys: string[], value: string): string {
  const [first, ...rest] = keys;
  return `${scalarText(first as string)}: ${rest.length === 0 ? value : `{${nestedFlow(rest, value)}}`}`;
}

/** The value text a missing key gets: a one-item flow list, or the scalar. */
function newValueText(change: ConfigChange): string {
  if (change.kind === "set") return scalarText(change.value);
  return `[${scalarText(change.value)}]`;
}

/** `node[key]` when it is the node's own property (an inherited name is never a value). */
function own(node: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(node, key) ? node[key] : undefined;
}

/** A copy of parsed YAML: mappings and lists copied, scalars (dates included) kept as they are. */
function copyTree(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyTree);
  if (value === null || typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) {
    return value;
  }
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(copy, key, {
      value: copyTree(item),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

/** The JS document the change should produce (used to verify the edited text). */
function intended(before: unknown, change: ConfigChange): unknown {
  const root: Record<string, unknown> =
    before && typeof before === "object" && !Array.isArray(before)
      ? (copyTree(before) as Record<string, unknown>)
      : {};
  let node: Record<string, unknown> = root;
  for (const key of change.path.slice(0, -1)) {
    const next = own(node, key);
    if (!next || typeof next !== "object" || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  const last = change.path[change.path.length - 1] as string;
  const current = own(node, last);
  const list =
    current === undefined || current === null ? [] : Array.isArray(current) ? [...current] : [current];
  if (change.kind === "set") node[last] = change.value;
  else if (change.kind === "add-to-list") node[last] = [...list, change.value];
  else node[last] = list.filter((item) => String(item).trim() !== change.value);
  return root;
}

/** Refuses a key path or value that no layout could take (before anything is looked at). */
function checkChange(change: ConfigChange): void {
  const dotted = change.path.join(".");
  for (const key of change.path) {
    if (key.trim() === "") {
      throw new ConfigError(dotted, `\`${dotted}\` has an empty key; config.yaml was not changed.`);
    }
    if (RESERVED_KEYS.has(key)) {
      throw new ConfigError(
        dotted,
        `\`${dotted}\` uses \`${key}\`, which cannot be a setting key; config.yaml was not changed.`,
      );
    }
  }
  try {
    for (const key of change.path) scalarText(key);
    scalarText(change.value);
  } catch {
    throw new ConfigError(
      dotted,
      `The value for \`${dotted}\` is not valid Unicode text; config.yaml was not changed.`,
    );
  }
}

/** Plans `change` against the text of config.yaml (pure). Throws `ConfigError` when it cannot edit safely. */
export function planConfigEdit(text: string, change: ConfigChange): PlannedEdit {
  checkChange(change);
  const doc = parseYaml11Document(text);
  if (doc.errors.length > 0) {
    throw new ConfigError(
      "(syntax)",
      `config.yaml is not valid YAML (${doc.errors[0]?.message.split("\n")[0]}); fix it before changing settings from skillgate.`,
    );
  }
  const before = doc.toJS({ maxAliasCount: -1 });
  const next = rewrite(text, doc, change);
  if (next === null) return { text: null };
  let parsed: unknown;
  try {
    parsed = parseYaml11(next);
  } catch {
    refuse(change, "the edit would not give valid YAML with this layout.");
  }
  if (!isDeepStrictEqual(parsed, intended(before, change))) {
    refuse(change, "the edit would change more than that key with this layout.");
  }
  return { text: next };
}

/** Refuses a node that is shared: an alias, or anchored (its aliases would change with it). */
function refuseShared(node: Node | undefined, at: string, change: ConfigChange): void {
  if (node === undefined) return;
  if (isAlias(node)) {
    refuse(
      change,
      `\`${at}\` is an alias (\`*${node.source}\`) of another part of the file; an edit here would change that part too.`,
    );
  }
  const anchor = (node as { anchor?: string }).anchor;
  if (anchor) {
    refuse(
      change,
      `\`${at}\` carries the anchor \`&${anchor}\`, so other places in the file share it through aliases; an edit here would change them too.`,
    );
  }
}

/** The value of `key` in `map`, refusing a merge key in the map and a key PyYAML reads as a non-string. */
function child(map: YAMLMap, key: string, at: string, change: ConfigChange): Node | undefined {
  for (const pair of map.items as Pair<Node, Node>[]) {
    const keyNode = pair.key;
    if (!isScalar(keyNode)) continue;
    if (typeof keyNode.value === "symbol" || keyNode.source === "<<") {
      refuse(
        change,
        `\`${at || "(top level)"}\` takes keys from elsewhere through a merge key (\`<<\`); an edit here could change what it shares.`,
      );
    }
    if (keyNode.value !== key && keyNode.source === key && keyNode.type === "PLAIN") {
      refuse(
        change,
        `the key \`${key}\` under \`${at || "(top level)"}\` is written bare, and PyYAML (Hermes) reads it as ${JSON.stringify(keyNode.value)}, not the text \`${key}\`; quote it (\`"${key}": …\`) first.`,
      );
    }
  }
  return map.get(key, true) as Node | undefined;
}

function rewrite(text: string, doc: YAML.Document, change: ConfigChange): string | null {
  const root = doc.contents;
  const eol = lineEnding(text);
  if (root === null || root === undefined || (isScalar(root) && (root.value === null || root.value === ""))) {
    const lead = text === "" || text.endsWith("\n") ? "" : eol;
    return `${text}${lead}${nestedLines(change.path, newValueText(change), 0, eol)}`;
  }
  if (!isMap(root)) refuse(change, "the file's top level is not a mapping.");
  refuseShared(root as Node, "(top level)", change);
  // Walk down the existing keys; `map` is the deepest mapping on the path.
  let map = root as YAMLMap;
  let depth = 0;
  for (; depth < change.path.length - 1; depth++) {
    const at = change.path.slice(0, depth).join(".");
    const next = child(map, change.path[depth] as string, at, change);
    const here = change.path.slice(0, depth + 1).join(".");
    refuseShared(next, here, change);
    if (next === undefined || (isScalar(next) && next.value === null)) break;
    if (!isMap(next)) refuse(change, `\`${here}\` is not a mapping.`);
    map = next as YAMLMap;
  }
  if (depth < change.path.length - 1) return insertKeys(text, map, change.path.slice(depth), change);
  const last = change.path[change.path.length - 1] as string;
  const target = child(map, last, change.path.slice(0, -1).join("."), change);
  refuseShared(target, change.path.join("."), change);
  if (target === undefined || (isScalar(target) && target.value === null)) {
    if (change.kind === "remove-from-list") return null;
    if (target === undefined) return insertKeys(text, map, [last], change);
    return replaceNode(text, target, newValueText(change), change);
  }
  if (change.kind === "set") {
    if (!isScalar(target))
      refuse(change, `\`${change.path.join(".")}\` holds a list or mapping, not a value.`);
    if ((target as YAML.Scalar).value === change.value) return null;
    return replaceNode(text, target, scalarText(change.value), change);
  }
  if (isScalar(target)) return editScalarList(text, target as YAML.Scalar, change);
  if (!isSeq(target)) refuse(change, `\`${change.path.join(".")}\` is a mapping, not a list.`);
  return editList(text, target as YAMLSeq, change);
}

function replaceNode(text: string, node: Node, insert: string, change: ConfigChange): string {
  const range = node.range;
  if (!range) refuse(change, "the value's position in the file is unknown.");
  return splice(text, range[0], range[1], insert);
}

/** `disabled: one-name` is a list of one: rewritten as a flow list where it stands. */
function editScalarList(text: string, node: YAML.Scalar, change: ListChange): string | null {
  const current = String(node.value ?? "").trim();
  if (change.kind === "add-to-list") {
    if (current === change.value) return null;
    return replaceNode(text, node, `[${scalarText(current)}, ${scalarText(change.value)}]`, change);
  }
  if (current !== change.value) return null;
  return replaceNode(text, node, "[]", change);
}

function itemValues(seq: YAMLSeq): string[] {
  // As Hermes compares names: an item PyYAML reads as a boolean or number is never a skill's name.
  return seq.items.map((item) =>
    isScalar(item) && typeof item.value === "string" ? item.value.trim() : undefined,
  ) as string[];
}

function editList(text: string, seq: YAMLSeq, change: ListChange): string | null {
  const values = itemValues(seq);
  if (seq.items.some((item) => !isScalar(item))) refuse(change, "the list holds more than plain names.");
  const range = seq.range;
  if (!range) refuse(change, "the list's position in the file is unknown.");
  if (change.kind === "add-to-list") {
    if (values.includes(change.value)) return null;
    if (seq.flow || seq.items.length === 0) {
      // Inside the brackets: after the last item, or right after `[`.
      const lastItem = seq.items[seq.items.length - 1] as YAML.Scalar | undefined;
      if (!lastItem?.range) {
        const open = text.indexOf("[", range[0]);
        if (open === -1 || open >= range[1]) refuse(change, "the empty list has an unusual layout.");
        return splice(text, open + 1, open + 1, scalarText(change.value));
      }
      return splice(text, lastItem.range[1], lastItem.range[1], `, ${scalarText(change.value)}`);
    }
    const first = seq.items[0] as YAML.Scalar;
    const start = lineStart(text, range[0]);
    const dashPrefix = text.slice(start, first.range?.[0] ?? range[0]);
    if (!/^ *- +$/.test(dashPrefix)) refuse(change, "the list items are not one per line.");
    const dashIndent = dashPrefix.indexOf("-");
    const { pos, prefix } = afterLine(text, range[1]);
    return splice(
      text,
      pos,
      pos,
      `${prefix}${" ".repeat(dashIndent)}- ${scalarText(change.value)}${lineEnding(text)}`,
    );
  }
  const index = values.indexOf(change.value);
  if (index === -1) return null;
  const remaining = seq.items.filter((_item, at) => values[at] !== change.value);
  if (seq.flow || remaining.length === 0) {
    const kept = remaining.map((item) => {
      const itemRange = (item as YAML.Scalar).range;
      return itemRange
        ? text.slice(itemRange[0], itemRange[1])
        : scalarText(String((item as YAML.Scalar).value));
    });
    if (!seq.flow) {
      // The last block item goes: the list becomes `[]` on its own line, indented under its key.
      const start = lineStart(text, range[0]);
      const { pos } = afterLine(text, range[1]);
      const indent = text.slice(start, range[0]);
      if (!/^ *$/.test(indent)) refuse(change, "the list items are not one per line.");
      return splice(text, start, pos, `${indent}${" ".repeat(INDENT_STEP)}[]${lineEnding(text)}`);
    }
    return replaceNode(text, seq, `[${kept.join(", ")}]`, change);
  }
  // Remove each matching block item's own line(s).
  let result = text;
  const matching = seq.items.filter((_item, at) => values[at] === change.value).reverse();
  for (const item of matching) {
    const itemRange = (item as YAML.Scalar).range;
    if (!itemRange) refuse(change, "an item's position in the file is unknown.");
    const start = lineStart(result, itemRange[0]);
    if (!/^ *- +$/.test(result.slice(start, itemRange[0])))
      refuse(change, "the list items are not one per line.");
    const { pos } = afterLine(result, itemRange[2]);
    result = splice(result, start, pos, "");
  }
  return result;
}

/** Inserts `keys: value` inside the braces of a flow mapping: after its last entry, or into `{}`. */
function insertIntoFlowMap(text: string, map: YAMLMap, keys: string[], change: ConfigChange): string {
  const range = map.range;
  if (!range) refuse(change, "the section's position in the file is unknown.");
  const entry = nestedFlow(keys, newValueText(change));
  const lastPair = map.items[map.items.length - 1] as Pair<Node, Node> | undefined;
  const lastEnd = lastPair?.value?.range?.[1] ?? lastPair?.key?.range?.[1];
  if (lastPair) {
    if (lastEnd === undefined) refuse(change, "the last entry's position in the file is unknown.");
    return splice(text, lastEnd, lastEnd, `, ${entry}`);
  }
  const open = text.indexOf("{", range[0]);
  if (open === -1 || open >= range[1]) refuse(change, "the empty mapping has an unusual layout.");
  return splice(text, open + 1, open + 1, entry);
}

function insertKeys(text: string, map: YAMLMap, keys: string[], change: ConfigChange): string {
  if (change.kind === "remove-from-list") return text;
  if (map.flow) return insertIntoFlowMap(text, map, keys, change);
  const range = map.range;
  const firstKey = (map.items[0]?.key as Node | undefined)?.range;
  if (!range || !firstKey) refuse(change, "the section's position in the file is unknown.");
  const indent = firstKey[0] - lineStart(text, firstKey[0]);
  if (!/^ *$/.test(text.slice(lineStart(text, firstKey[0]), firstKey[0])))
    refuse(change, "the section's keys do not start their lines.");
  const { pos, prefix } = afterLine(text, range[1]);
  return splice(
    text,
    pos,
    pos,
    `${prefix}${nestedLines(keys, newValueText(change), indent, lineEnding(text))}`,
  );
}

/** What `editConfigFile` did. */
export interface ConfigEditResult {
  changed: boolean;
  file: string;
}

/** Options of `editConfigFile`. */
export interface ConfigEditOptions {
  /** Runs after the file was read and before it is replaced (tests use it to race an edit in). */
  beforeWrite?: () => Promise<void>;
}

/**
 * Applies `change` to `<home>/config.yaml` (created when missing): reads it, plans the surgical edit,
 * and replaces the file atomically — refused with `ConfigError` when the file changed since it was read.
 * A symlinked config.yaml is edited at its target.
 */
export async function editConfigFile(
  home: string,
  change: ConfigChange,
  options: ConfigEditOptions = {},
): Promise<ConfigEditResult> {
  await checkWriteFence(home, t("fence.what.configEdit"));
  const link = homePaths(home).config;
  const file = await fs.realpath(link).catch(() => link);
  return withLock(path.join(homePaths(home).locks, "config.lock"), async () => {
    const read = async () =>
      fs.readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return null;
        throw error;
      });
    const original = await read();
    const mode = await fs.stat(file).then(
      (stat) => stat.mode & 0o777,
      () => 0o644,
    );
    const planned = planConfigEdit(original ?? "", change);
    if (planned.text === null) return { changed: false, file };
    await options.beforeWrite?.();
    const current = await read();
    if (current !== original) {
      throw new ConfigError(
        "(file)",
        `config.yaml changed while skillgate was editing it (someone else saved it); nothing was written. Run the command again to apply it to the new version.`,
      );
    }
    // Asked again at the commit: the wait for the lock may have outlived the lead.
    await checkWriteFence(home, t("fence.what.configEdit"));
    // The copy is 0600 while it exists (a killed write leaves nothing others can read); the file gets
    // its own mode back once it is in place.
    await atomicWriteFile(file, planned.text, { mode: 0o600 });
    await fs.chmod(file, mode);
    return { changed: true, file };
  });
}
