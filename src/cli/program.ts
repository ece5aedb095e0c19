import { existsSync, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
// Registers the chat platforms with the core before config.yaml is read (their sections are theirs).
import "../../adapters/index.js";
import { terminalPrefix } from "../../commands/context.js";
import { DEFAULT_SUBCOMMANDS, effectiveOptions, resolveCommand } from "../../commands/parse.js";
import type { CommandInput, CommandSpec, OptionSpec } from "../../commands/types.js";
import { loadConfig, parseConfig, type SkillgateConfig } from "../config/config.js";
import { homePaths, homeSource, resolveHome } from "../config/home.js";
import { findingText } from "../config/lint.js";
import { setConfigOverrides } from "../config/overrides.js";
import { ConfigError, errorCause, UsageError } from "../core/errors.js";
import { type Locale, localeFromEnv } from "../core/i18n/locale.js";
import { english, join, resolveText, type Text, t } from "../core/i18n/messages.js";
import { commandWords } from "./command-words.js";
import { commanderErrorText } from "./commander-errors.js";
import { localizedHelp } from "./help-text.js";
import { runInTerminal } from "./run-command.js";
import {
  checkedOverrides,
  everyConfigError,
  lintHomeFiles,
  recoverAtStart,
  unwritableHome,
} from "./start-checks.js";
import { type CliIo, EXIT_CONFIG, EXIT_USAGE, fail } from "./terminal-io.js";
import type { WebConsoleOptions } from "./web-console.js";

/**
 * The `skillgate` command line (loaded by the entry, `main.ts`), built from the command registry (the same specs chat uses):
 * `skillgate [--home DIR] <group> <sub> …` and `skillgate serve [--console]`. At start it resolves the
 * home, finishes an interrupted rollback, loads config.yaml (a bad value exits 78), runs the command,
 * prints the rendered reply (one JSON document with `--json`) and exits with the reply's exit code.
 * Only commander, the config and the commands needed are loaded up front; `serve`, `init`, the web
 * console, the gateway, pino and the platform SDKs are imported only by the command that runs them. This file holds the commander wiring; each command's
 * terminal glue lives in a file of its own (`serve.ts`, `web-console.ts`, `init.ts`, `run-command.ts`…).
 */

/** What the command line asked for. */
type Selection =
  | { kind: "command"; spec: CommandSpec; input: CommandInput }
  | { kind: "serve"; console: boolean; demo: boolean; overrides: string[] }
  | { kind: "doctor"; json: boolean }
  | { kind: "init"; examples: boolean; json: boolean }
  | ({ kind: "web" } & WebConsoleOptions)
  | { kind: "secrets-set"; key: string }
  | { kind: "usage"; text: Text };

/** skillgate's version, from the package.json beside `dist/` (or beside `src/` when run from source). */
export function packageVersion(): string {
  for (const up of ["../../..", "../.."]) {
    try {
      const file = fileURLToPath(new URL(`${up}/package.json`, import.meta.url));
      const manifest = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
      if (manifest.name === "skillgate" && manifest.version) return manifest.version;
    } catch {
      // not this folder: try the next one up
    }
  }
  return "unknown";
}

function parseInteger(value: string): number {
  // Commander prints the English; `commanderErrorText` gives it in the reader's language.
  if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError(english(t("cli.error.wholeNumber")));
  return Number(value);
}

function toOption(spec: OptionSpec, locale: Locale = "en"): Option {
  const long =
    spec.kind === "boolean"
      ? `--${spec.name}`
      : `--${spec.name} <${spec.kind === "integer" ? "n" : "value"}>`;
  const option = new Option(
    spec.short ? `-${spec.short}, ${long}` : long,
    resolveText(spec.description, locale),
  );
  if (spec.choices) option.choices(spec.choices);
  if (spec.kind === "integer") option.argParser(parseInteger);
  if (spec.env) option.env(spec.env);
  return option;
}

function addLeaf(
  parent: Command,
  name: string,
  spec: CommandSpec,
  select: (selection: Selection) => void,
  locale: Locale,
): void {
  const command = parent
    .command(name, { hidden: spec.hidden })
    .description(resolveText(spec.summary, locale));
  for (const arg of spec.args ?? []) {
    const label = arg.variadic ? `${arg.name}...` : arg.name;
    command.argument(arg.required ? `<${label}>` : `[${label}]`, resolveText(arg.description, locale));
  }
  const options = effectiveOptions(spec);
  for (const option of options) command.addOption(toOption(option, locale));
  command.action((...received: unknown[]) => {
    const self = received[received.length - 1] as Command;
    const values = self.opts();
    const input: CommandInput = { args: [], options: {} };
    for (const value of self.processedArgs as unknown[]) {
      if (Array.isArray(value)) input.args.push(...value.map(String));
      else if (value !== undefined) input.args.push(String(value));
    }
    for (const option of options) {
      const value = values[toOption(option).attributeName()];
      if (value !== undefined) input.options[option.name] = value as string | number | boolean;
    }
    select({ kind: "command", spec, input });
  });
}

/**
 * Builds the commander program from registry specs. Each leaf's action records the spec and its parsed
 * input through `select`; nothing runs during parsing.
 */
export function buildProgram(
  specs: readonly CommandSpec[],
  select: (selection: Selection) => void,
  io: Pick<CliIo, "stdout" | "stderr">,
  locale: Locale = "en",
): Command {
  const program = new Command("skillgate")
    .description(resolveText(t("cli.program"), locale))
    .option("--home <dir>", resolveText(t("cli.option.home"), locale))
    .version(packageVersion(), "-V, --version", resolveText(t("cli.option.version"), locale))
    .helpOption("-h, --help", resolveText(t("cli.option.help"), locale))
    .configureHelp(localizedHelp(locale))
    .helpCommand(false)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // Commander's errors (English only) in the reader's language; English as commander wrote it.
      outputError: (text, write) =>
        write(`${resolveText(commanderErrorText(text.replace(/\n$/, "")), locale)}\n`),
    })
    .showSuggestionAfterError(true);
  const groups = new Map<string, Command>();
  for (const spec of specs) {
    const [head, sub] = spec.path;
    if (!head) continue;
    if (sub === undefined) {
      addLeaf(program, head, spec, select, locale);
      continue;
    }
    let group = groups.get(head);
    if (!group) {
      const fallback = DEFAULT_SUBCOMMANDS[head];
      group = program
        .command(head)
        .description(
          resolveText(fallback ? t("cli.group.bare", { head, fallback }) : t("cli.group", { head }), locale),
        )
        .helpCommand(false)
        .exitOverride()
        .allowUnknownOption()
        .argument("[subcommand...]", resolveText(t("cli.group.subcommand"), locale));
      groups.set(head, group);
      const groupName = head;
      // Reached for a bare group (`skillgate curator [--json]`) or a subcommand that does not exist.
      group.action((_word: unknown, _options: unknown, self: Command) => {
        const words = self.args;
        const json = words.includes("--json");
        const rest = words.filter((word) => word !== "--json");
        try {
          const flag = rest.find((word) => word.startsWith("-"));
          if (flag !== undefined)
            throw new UsageError(t("cli.usage.groupOption", { flag, command: terminalPrefix([groupName]) }));
          const resolved = resolveCommand(specs, groupName, rest.slice(0, 1), terminalPrefix);
          if (resolved)
            select({
              kind: "command",
              spec: resolved.spec,
              input: { args: [], options: json ? { json: true } : {} },
            });
        } catch (error) {
          select({ kind: "usage", text: errorCause(error) });
        }
      });
    }
    addLeaf(group, sub, spec, select, locale);
  }
  program
    .command("serve")
    .description(resolveText(t("cli.serve"), locale))
    .option("--terminal", resolveText(t("cli.serve.terminal"), locale))
    .option("--console", resolveText(t("cli.serve.console"), locale))
    .option("--demo", resolveText(t("cli.serve.demo"), locale))
    .option(
      "--set <key=value>",
      resolveText(t("cli.serve.set"), locale),
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .action((options: { terminal?: boolean; console?: boolean; demo?: boolean; set: string[] }) =>
      select({
        kind: "serve",
        console: options.terminal === true || options.console === true || options.demo === true,
        demo: options.demo === true,
        overrides: options.set,
      }),
    );
  program
    .command("init")
    .description(resolveText(t("cli.init"), locale))
    .option("--examples", resolveText(t("cli.init.examples"), locale))
    .option("--json", resolveText(t("cli.option.json.result"), locale))
    .action((options: { examples?: boolean; json?: boolean }) =>
      select({ kind: "init", examples: options.examples === true, json: options.json === true }),
    );
  program
    .command("doctor")
    .description(resolveText(t("cli.doctor"), locale))
    .option("--json", resolveText(t("cli.option.json.checks"), locale))
    .action((options: { json?: boolean }) => select({ kind: "doctor", json: options.json === true }));
  program
    .command("secrets")
    .description(resolveText(t("cli.secrets"), locale))
    .helpCommand(false)
    .command("set")
    .description(resolveText(t("cli.secrets.set"), locale))
    .argument("<KEY>", resolveText(t("cli.secrets.set.key"), locale))
    .action((key: string) => select({ kind: "secrets-set", key }));
  program
    .command("console")
    .description(resolveText(t("cli.console"), locale))
    .option("--port <n>", resolveText(t("cli.console.port"), locale), parseInteger)
    .option("--bind <address>", resolveText(t("cli.console.bind"), locale))
    .option("--link", resolveText(t("cli.console.link"), locale))
    .option("--read-only", resolveText(t("cli.console.readOnly"), locale))
    .action((options: { port?: number; bind?: string; link?: boolean; readOnly?: boolean }) =>
      select({
        kind: "web",
        port: options.port,
        bind: options.bind,
        link: options.link === true,
        readOnly: options.readOnly === true,
      }),
    );
  return program;
}

/** What `commands/skills.ts` alone answers: `skills list`, `view` and `usage` need no other spec. */
const SKILLS_CORE_SUBCOMMANDS = new Set(["list", "view", "usage"]);

/**
 * Loads only the specs the command needs: `commands/skills.ts` alone for `skills list|view|usage`
 * (a help request shows the whole group, so it gets every spec), the skills group for other `skills …`,
 * else the registry.
 */
async function specsFor(args: readonly string[]): Promise<readonly CommandSpec[]> {
  const [word, sub = ""] = commandWords(args);
  if (word === "skills" && SKILLS_CORE_SUBCOMMANDS.has(sub) && !args.some(isHelpFlag))
    return (await import("../../commands/skills.js")).skillsCommands;
  if (word === "skills") {
    const [
      { skillsCommands },
      { skillsConfigCommands },
      { skillsSearchCommand },
      { skillsOverlapsCommand },
      { skillsHubCommands },
    ] = await Promise.all([
      import("../../commands/skills.js"),
      import("../../commands/skills-config.js"),
      import("../../commands/skills-search.js"),
      import("../../commands/skills-overlaps.js"),
      import("../../commands/skills-hub.js"),
    ]);
    return [
      ...skillsCommands,
      skillsSearchCommand,
      skillsOverlapsCommand,
      ...skillsConfigCommands,
      ...skillsHubCommands,
    ];
  }
  return (await import("../../commands/index.js")).registry;
}

function isHelpFlag(word: string): boolean {
  return word === "-h" || word === "--help";
}

/** Runs the CLI and resolves with the exit code (`main.ts` is the entry that calls it). */
export async function runProgram(
  argv: string[] = process.argv.slice(2),
  io: CliIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env },
): Promise<number> {
  const wantsJson = argv.includes("--json");
  const specs = await specsFor(argv);
  let selection: Selection | undefined;
  const program = buildProgram(
    specs,
    (chosen) => {
      selection = chosen;
    },
    io,
    localeFromEnv(io.env),
  );
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return 0;
      if (error.code === "commander.help")
        return wantsJson ? fail(io, true, t("cli.usage.needsCommand"), EXIT_USAGE) : EXIT_USAGE;
      return wantsJson ? fail(io, true, commanderErrorText(error.message), EXIT_USAGE) : EXIT_USAGE;
    }
    throw error;
  }
  if (!selection) {
    program.outputHelp({ error: true });
    return EXIT_USAGE;
  }
  if (selection.kind === "usage") return fail(io, wantsJson, selection.text, EXIT_USAGE);
  if (selection.kind === "serve" && selection.demo) return (await import("./serve.js")).demo(io);
  const homeFlag = program.opts<{ home?: string }>().home;
  const home = resolveHome(homeFlag, io.env);
  if (selection.kind !== "init" && !existsSync(home)) {
    // A home someone named but that is missing is a typo, not a new empty library; only init makes one.
    // The doctor reports it among its checks (the path and the fixes), with the same exit code.
    const source = homeSource(homeFlag, io.env);
    if (source && selection.kind === "doctor")
      return doctor(home, selection.json, io).then((code) => (code === 0 ? code : EXIT_CONFIG));
    if (source) return fail(io, wantsJson, t("cli.home.missing", { home, source }), EXIT_CONFIG);
    // The default home is made on first use by what writes there; a read-only command creates nothing.
    if (writesHome(selection)) {
      const unwritable = unwritableHome(home);
      if (unwritable) return fail(io, wantsJson, unwritable, EXIT_CONFIG);
      await mkdir(home, { recursive: true });
      io.stderr.write(`${resolveText(t("cli.home.created", { home }), localeFromEnv(io.env))}\n`);
    }
  }
  if (selection.kind === "serve" || selection.kind === "init" || selection.kind === "web") {
    const unwritable = unwritableHome(home);
    if (unwritable) return fail(io, wantsJson, unwritable, EXIT_CONFIG);
  }
  if (selection.kind === "doctor") return doctor(home, selection.json, io);
  if (selection.kind === "init")
    return (await import("./init.js")).init(home, selection.examples, selection.json, io);
  let config: SkillgateConfig;
  try {
    // `serve --set` overrides apply to this process's every read of config.yaml; other commands have none.
    setConfigOverrides(selection.kind === "serve" ? checkedOverrides(home, selection.overrides) : []);
    config = loadConfig(homePaths(home).config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // Work a crash interrupted is repaired even when the config needs fixing first (with its defaults).
    await recoverAtStart(home, parseConfig({}), io);
    return fail(io, wantsJson, everyConfigError(home, error), EXIT_CONFIG);
  }
  await recoverAtStart(home, config, io);
  const locale = localeFromEnv(io.env);
  for (const warning of config.warningTexts)
    io.stderr.write(`${resolveText(t("cli.warning", { warning }), locale)}\n`);
  if (selection.kind === "serve") {
    // What `doctor` lists, each with its line: errors (two listeners on one port…) stop the start.
    const { findings } = lintHomeFiles(home);
    const errors = findings.filter((finding) => finding.level === "error");
    if (errors.length > 0) return fail(io, false, join(errors.map(findingText), "\n"), EXIT_CONFIG);
    for (const finding of findings)
      io.stderr.write(`${resolveText(t("cli.warning", { warning: findingText(finding) }), locale)}\n`);
  }
  if (selection.kind === "serve")
    return (await import("./serve.js")).serve(home, config, selection.console, io);
  if (selection.kind === "secrets-set") return secretsSet(home, config, selection.key, io);
  if (selection.kind === "web")
    return (await import("./web-console.js")).webConsole(home, config, selection, io);
  return runInTerminal(home, config, selection, io);
}

/** `skillgate doctor` (its checks and the platform SDKs loaded only when it runs). */
async function doctor(home: string, json: boolean, io: CliIo): Promise<number> {
  const { doctorOnTerminal } = await import("./doctor.js");
  return doctorOnTerminal(home, json, io);
}

/** `skillgate secrets set <KEY>` (the secret writer loaded only when it runs). */
async function secretsSet(home: string, config: SkillgateConfig, key: string, io: CliIo): Promise<number> {
  const { secretsSetOnTerminal } = await import("./secrets-set.js");
  return secretsSetOnTerminal(home, config, key, io);
}

/** True for what writes into the home (serve, the web console, setting a secret, a changing command). */
function writesHome(selection: Selection): boolean {
  if (selection.kind === "command") return selection.spec.mutating === true;
  return selection.kind === "serve" || selection.kind === "web" || selection.kind === "secrets-set";
}
