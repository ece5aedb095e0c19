/**
 * Parsing shared by the CLI helpers and every chat surface: parsing of arguments against a
 * `CommandSpec` and resolving `/curator pin x` to its spec. Splitting command text is the core's
 * (`src/core/command-text.ts`), so adapters use the same splitter.
 */

import { quoteArg } from "../src/core/command-text.js";
import { UsageError } from "../src/core/errors.js";
import { list, type Text, t } from "../src/core/i18n/messages.js";
import { editDistance } from "../src/core/suggest.js";
import type { CommandInput, CommandSpec, OptionSpec } from "./types.js";

/** Subcommand run when a group is called bare: `/curator` = `curator status`, `/skills` = `skills list`. */
export const DEFAULT_SUBCOMMANDS: Readonly<Record<string, string>> = { curator: "status", skills: "list" };

/** The `-y/--yes` option every command with a confirmation gets. */
export const YES_OPTION: OptionSpec = {
  name: "yes",
  short: "y",
  kind: "boolean",
  description: t("cmd.option.yes"),
};

/** The `--json` option every command gets. */
export const JSON_OPTION: OptionSpec = {
  name: "json",
  kind: "boolean",
  description: t("cmd.option.json"),
};

/** The options a spec accepts, including the automatic `--json` and (with `confirm`) `-y/--yes`. */
export function effectiveOptions(spec: CommandSpec): OptionSpec[] {
  const options = [...(spec.options ?? [])];
  const has = (name: string) => options.some((option) => option.name === name);
  if (spec.confirm && !has("yes")) options.push(YES_OPTION);
  if (!has("json")) options.push(JSON_OPTION);
  return options;
}

/** One-line usage of a spec: `/curator pin <skill>` (args only; options listed by `optionsHelp`). */
export function usageLine(spec: CommandSpec, prefix: (path: string[]) => string): string {
  const args = (spec.args ?? []).map((arg) => {
    const name = arg.variadic ? `${arg.name}...` : arg.name;
    return arg.required ? `<${name}>` : `[${name}]`;
  });
  return [prefix(spec.path), ...args].join(" ");
}

/** `--dry-run, -y/--yes, --days N` for a usage message. */
export function optionsHelp(spec: CommandSpec): Text {
  return list(
    effectiveOptions(spec).map((option) => {
      const flag = option.short ? `-${option.short}/--${option.name}` : `--${option.name}`;
      if (option.kind === "boolean") return flag;
      return `${flag} ${option.choices ? option.choices.join("|") : option.kind === "integer" ? "N" : "VALUE"}`;
    }),
  );
}

/** The closest candidate within two edits, for "did you mean" hints. */
export function closest(word: string, candidates: string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of candidates) {
    // Each edit changes the length by one at most: a name three letters longer or shorter is never
    // within two (skipping it keeps `skills view` of an unknown name quick at 10k skills).
    if (Math.abs(word.length - candidate.length) > 2) continue;
    const distance = editDistance(word, candidate);
    if (distance <= 2 && (!best || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}

function convertValue(option: OptionSpec, raw: string, label: string, where: Text): string | number {
  if (option.kind === "integer") {
    if (!/^-?\d+$/.test(raw)) throw new UsageError(t("cmd.parse.wholeNumber", { label, raw, where }));
    return Number(raw);
  }
  if (option.choices && !option.choices.includes(raw)) {
    throw new UsageError(t("cmd.parse.oneOf", { label, choices: list(option.choices), raw, where }));
  }
  return raw;
}

function booleanValue(raw: string, label: string, where: Text): boolean {
  if (/^(true|yes|1|on)$/i.test(raw)) return true;
  if (/^(false|no|0|off)$/i.test(raw)) return false;
  throw new UsageError(t("cmd.parse.boolean", { label, raw, where }));
}

/**
 * Parses words (after the command path) against a spec: long options (`--days 3`, `--days=3`), short
 * flags (`-y`, `-yn`), `--` ending options, integer and choice checks, required and variadic arguments.
 * Throws `UsageError` with the usage line and the accepted options when something does not fit.
 */
export function parseCommandInput(
  spec: CommandSpec,
  words: string[],
  prefix: (path: string[]) => string = defaultPrefix,
): CommandInput {
  const options = effectiveOptions(spec);
  const where = t("cmd.parse.where", { usage: usageLine(spec, prefix), options: optionsHelp(spec) });
  const input: CommandInput = { args: [], options: {} };
  const unknown = (flag: string): never => {
    const guess = closest(
      flag.replace(/^-+/, ""),
      options.map((option) => option.name),
    );
    const command = prefix(spec.path);
    throw new UsageError(
      guess
        ? t("cmd.parse.unknownOptionGuess", { flag, command, guess: `--${guess}`, where })
        : t("cmd.parse.unknownOption", { flag, command, where }),
    );
  };
  let onlyArgs = false;
  for (let index = 0; index < words.length; index++) {
    const word = words[index] ?? "";
    if (onlyArgs || word === "-" || !word.startsWith("-") || /^-\d/.test(word)) {
      input.args.push(word);
      continue;
    }
    if (word === "--") {
      onlyArgs = true;
      continue;
    }
    if (word.startsWith("--")) {
      const eq = word.indexOf("=");
      const name = eq === -1 ? word.slice(2) : word.slice(2, eq);
      const option = options.find((candidate) => candidate.name === name) ?? unknown(`--${name}`);
      const label = `--${option.name}`;
      if (option.kind === "boolean") {
        input.options[option.name] = eq === -1 ? true : booleanValue(word.slice(eq + 1), label, where);
        continue;
      }
      const raw = eq === -1 ? words[++index] : word.slice(eq + 1);
      if (raw === undefined) throw new UsageError(t("cmd.parse.needsValue", { label, where }));
      input.options[option.name] = convertValue(option, raw, label, where);
      continue;
    }
    // Short flags: `-y`, `-yn` (booleans bundled), `-d 3` or `-d3` for a valued option.
    for (let at = 1; at < word.length; at++) {
      const letter = word[at] ?? "";
      const option = options.find((candidate) => candidate.short === letter) ?? unknown(`-${letter}`);
      if (option.kind === "boolean") {
        input.options[option.name] = true;
        continue;
      }
      const rest = word.slice(at + 1);
      const raw = rest !== "" ? rest : words[++index];
      if (raw === undefined) throw new UsageError(t("cmd.parse.needsValue", { label: `-${letter}`, where }));
      input.options[option.name] = convertValue(option, raw, `-${letter}`, where);
      break;
    }
  }
  checkArgs(spec, input.args, where);
  return input;
}

function checkArgs(spec: CommandSpec, args: string[], where: Text): void {
  const specs = spec.args ?? [];
  const variadic = specs.some((arg) => arg.variadic);
  specs.forEach((arg, index) => {
    if (arg.required && (args[index] === undefined || args[index] === "")) {
      throw new UsageError(
        t("cmd.parse.missing", { name: `<${arg.name}>`, description: arg.description, where }),
      );
    }
  });
  if (!variadic && args.length > specs.length) {
    throw new UsageError(t("cmd.parse.unexpected", { arg: String(args[specs.length]), where }));
  }
}

/** How the chat spells a command path: `/curator pin`. */
export function defaultPrefix(path: string[]): string {
  return `/${path.join(" ")}`;
}

/** A spec found for a command name and its words, and the words left for `parseCommandInput`. */
export interface ResolvedCommand {
  spec: CommandSpec;
  rest: string[];
}

/** Folds `list_unmanaged` to `list-unmanaged` (menus replace hyphens with underscores). */
export function normalizeName(name: string): string {
  return name.toLowerCase().replace(/_/g, "-");
}

/**
 * Resolves a command name and its words to a spec of the registry: a one-word command (`help`) keeps
 * every word; a group (`curator`) takes its subcommand from the first word, or its default subcommand
 * when called bare or with options only. Returns undefined for a name the registry does not have;
 * throws `UsageError` for an unknown subcommand, listing the ones that exist.
 */
export function resolveCommand(
  registry: readonly CommandSpec[],
  name: string,
  words: string[],
  prefix: (path: string[]) => string = defaultPrefix,
): ResolvedCommand | undefined {
  const group = normalizeName(name);
  const specs = registry.filter((spec) => spec.path[0] === group);
  if (specs.length === 0) return undefined;
  const single = specs.find((spec) => spec.path.length === 1);
  if (single) return { spec: single, rest: words };
  const first = words[0];
  const sub =
    first === undefined || first.startsWith("-") ? DEFAULT_SUBCOMMANDS[group] : normalizeName(first);
  const rest = first === undefined || first.startsWith("-") ? words : words.slice(1);
  const spec = specs.find((candidate) => candidate.path[1] === sub);
  if (spec) return { spec, rest };
  const names = specs.filter((candidate) => !candidate.hidden).map((candidate) => candidate.path[1] ?? "");
  const guess = sub ? closest(sub, names) : undefined;
  const available = list(names);
  if (!sub) throw new UsageError(t("cmd.parse.needsSubcommand", { command: prefix([group]), available }));
  const command = prefix([group, sub]);
  throw new UsageError(
    guess
      ? t("cmd.parse.unknownSubcommandGuess", { command, guess: prefix([group, guess]), available })
      : t("cmd.parse.unknownSubcommand", { command, available }),
  );
}

/** Rebuilds a command line from a spec and parsed input (for "reply … -y to confirm"). */
export function formatCommandLine(
  spec: CommandSpec,
  input: CommandInput,
  prefix: (path: string[]) => string,
  extra: string[] = [],
): string {
  const words = [prefix(spec.path), ...input.args.map(quoteArg)];
  for (const option of effectiveOptions(spec)) {
    const value = input.options[option.name];
    if (value === undefined || value === false || option.name === "yes" || option.name === "json") continue;
    words.push(value === true ? `--${option.name}` : `--${option.name} ${quoteArg(String(value))}`);
  }
  return [...words, ...extra].join(" ");
}
