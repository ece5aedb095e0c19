#!/usr/bin/env node
// First: refuses a Node.js older than 20.19 before anything else is evaluated.
import "./node-check.js";
import { accessSync, constants, existsSync, readFileSync, realpathSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { Command, CommanderError, Help, InvalidArgumentError, Option } from "commander";
// Registers the chat platforms with the core before config.yaml is read (their sections are theirs).
import {
  botsHeldByHermes,
  configuredPlatforms,
  createAdapters,
  hermesHoldText,
  PLATFORMS,
} from "../../adapters/index.js";
import { terminalContext, terminalPrefix } from "../../commands/context.js";
import { DEFAULT_SUBCOMMANDS, effectiveOptions, resolveCommand } from "../../commands/parse.js";
import { runCommand } from "../../commands/runner.js";
import type { CommandInput, CommandSpec, OptionSpec } from "../../commands/types.js";
import { validateOverrides } from "../config/check.js";
import { loadConfig, parseConfig, type SkillgateConfig } from "../config/config.js";
import { lookupSecret, readDotenv } from "../config/dotenv.js";
import { homePaths, homeSource, resolveHome } from "../config/home.js";
import { type ConfigFinding, type ConfigLint, fileMode, findingText, lintHome } from "../config/lint.js";
import { type ConfigOverride, parseOverride, setConfigOverrides } from "../config/overrides.js";
import { parseYaml11 } from "../config/yaml11.js";
import { ConfigError, CoordinationError, errorCause, UsageError } from "../core/errors.js";
import { relaxYoungGeneration, tuneHeapForCommand } from "../core/heap-tuning.js";
import { type Locale, localeFromEnv } from "../core/i18n/locale.js";
import { english, join, list, type MessageKey, resolveText, type Text, t } from "../core/i18n/messages.js";
import { displayWidth } from "../core/i18n/width.js";
import type { Logger } from "../core/logger.js";
import { preferOwnSecrets } from "../core/platforms.js";
import { renderJson, renderTerminal } from "../core/render-terminal.js";
import type { Reply } from "../core/reply.js";
import { mayNeedRecovery, recoverHome } from "../curator/recovery.js";
/**
 * The `skillgate` command line, built from the command registry (the same specs chat uses):
 * `skillgate [--home DIR] <group> <sub> …` and `skillgate serve [--console]`. At start it resolves the
 * home, finishes an interrupted rollback, loads config.yaml (a bad value exits 78), runs the command,
 * prints the rendered reply (one JSON document with `--json`) and exits with the reply's exit code.
 * Only commander, the config and the commands needed are loaded up front; the gateway, pino and the
 * platform SDKs are imported only by `serve`.
 */
import { commanderErrorText } from "./commander-errors.js";
import { terminalProgress } from "./terminal-progress.js";

/** The streams and environment the CLI uses (tests pass their own). */
export interface CliIo {
  stdin: NodeJS.ReadStream | (NodeJS.ReadableStream & { isTTY?: boolean });
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

/** What the command line asked for. */
type Selection =
  | { kind: "command"; spec: CommandSpec; input: CommandInput }
  | { kind: "serve"; console: boolean; demo: boolean; overrides: string[] }
  | { kind: "doctor"; json: boolean }
  | { kind: "init"; examples: boolean; json: boolean }
  | { kind: "web"; port?: number; bind?: string; link: boolean; readOnly: boolean }
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

/** Exit code for bad usage. */
const EXIT_USAGE = 2;
/** Exit code for bad configuration (sysexits EX_CONFIG). */
const EXIT_CONFIG = 78;

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

/** Commander's help headings, in the reader's language. */
const HELP_HEADINGS: Record<string, MessageKey> = {
  "Usage:": "cli.heading.usage",
  "Arguments:": "cli.heading.arguments",
  "Options:": "cli.heading.options",
  "Global Options:": "cli.heading.globalOptions",
  "Commands:": "cli.heading.commands",
};

function helpHeading(title: string, locale: Locale): string {
  const key = HELP_HEADINGS[title];
  return key ? resolveText({ key }, locale) : title;
}

const HELP_EXTRAS: Record<string, MessageKey> = {
  default: "cli.help.default",
  choices: "cli.help.choices",
  preset: "cli.help.preset",
  env: "cli.help.env",
};

/**
 * Commander's `(default: x)`, `(choices: "a", "b")` after a description, in the reader's language
 * (in Chinese: `（默认：x）`, the choices joined with 、).
 */
function helpExtras(description: string, locale: Locale): string {
  if (locale === "en") return description;
  const extra = / \(((?:choices|default|preset|env): .*)\)$/s.exec(description);
  if (!extra) return description;
  const parts = (extra[1] ?? "").split(/, (?=(?:choices|default|preset|env): )/).map((part) => {
    const [, name = "", value = ""] = /^(\w+): (.*)$/s.exec(part) ?? [];
    const key = HELP_EXTRAS[name];
    return key ? resolveText({ key, params: { value: value.replaceAll('", "', '"、"') } }, locale) : part;
  });
  return `${description.slice(0, extra.index)}（${parts.join("；")}）`;
}

/** Commander's help in the reader's language: headings, `[options]`, `[command]`, defaults, no space after 用法：. */
function localizedHelp(locale: Locale): Partial<Help> {
  const word = (text: string) =>
    text === "[options]"
      ? resolveText(t("cli.help.options"), locale)
      : text === "[command]"
        ? resolveText(t("cli.help.command"), locale)
        : text;
  return {
    styleTitle: (title) => helpHeading(title, locale),
    // Columns line up in a terminal: a CJK character takes two.
    displayWidth: (text) => displayWidth(stripVTControlCharacters(text)),
    styleOptionText: word,
    styleSubcommandText: word,
    optionDescription(this: Help, option) {
      return helpExtras(Help.prototype.optionDescription.call(this, option), locale);
    },
    argumentDescription(this: Help, argument) {
      return helpExtras(Help.prototype.argumentDescription.call(this, argument), locale);
    },
    formatHelp(this: Help, command, helper) {
      const usage = helpHeading("Usage:", locale);
      const text = Help.prototype.formatHelp.call(this, command, helper);
      return /[：:]$/.test(usage) && locale !== "en" ? text.replace(`${usage} `, usage) : text;
    },
  };
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

/** The top-level command word in argv (skipping `--home DIR`), if any. */
function commandWord(args: string[]): string | undefined {
  for (let index = 0; index < args.length; index++) {
    const word = args[index] ?? "";
    if (word === "--home") index++;
    else if (!word.startsWith("-")) return word;
  }
  return undefined;
}

/** Loads only the specs the command needs: the skills group alone for `skills …`, else the registry. */
async function specsFor(word: string | undefined): Promise<readonly CommandSpec[]> {
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

function makePrompt(io: CliIo) {
  return (asked: Text, options: { hidden?: boolean } = {}) =>
    new Promise<string>((resolve) => {
      const question = resolveText(asked, localeFromEnv(io.env));
      const rl = readline.createInterface({ input: io.stdin, output: io.stdout, terminal: true });
      if (options.hidden) {
        const internals = rl as unknown as { _writeToOutput: (text: string) => void };
        internals._writeToOutput = (text: string) => {
          if (text.startsWith(question)) io.stdout.write(question);
        };
      }
      rl.question(question, (answer) => {
        if (options.hidden) io.stdout.write("\n");
        rl.close();
        resolve(answer);
      });
    });
}

/** Most recovery notes printed on the terminal; the rest are counted (the ledger has them all). */
const RECOVERY_NOTES_SHOWN = 20;

/**
 * Repairs what a crash left in the home before any command touches it (see `curator/recovery.ts`; its
 * repair code is loaded only when the cheap look finds something).
 */
async function recoverAtStart(home: string, config: SkillgateConfig, io: CliIo): Promise<void> {
  const say = (text: Text) => io.stderr.write(`${resolveText(text, localeFromEnv(io.env))}\n`);
  try {
    if (!mayNeedRecovery(home)) return;
    const notes = await recoverHome(home, config, { atStart: true });
    for (const note of notes.slice(0, RECOVERY_NOTES_SHOWN)) say(note);
    if (notes.length > RECOVERY_NOTES_SHOWN)
      say(t("cli.recovery.more", { count: notes.length - RECOVERY_NOTES_SHOWN }));
  } catch (error) {
    say(t("cli.recovery.failed", { cause: errorCause(error) }));
  }
}

/**
 * Prints a reply: the JSON document on stdout with `--json`, else the text on stdout, or on stderr when
 * the command failed (`report`: a report such as doctor's, always on stdout, whatever it found).
 */
function printReply(reply: Reply, json: boolean, io: CliIo, report = false): void {
  if (json) {
    io.stdout.write(renderJson(reply));
    const locale = localeFromEnv(io.env);
    for (const warning of reply.warnings ?? [])
      io.stderr.write(`${resolveText(t("cli.warning", { warning }), locale)}\n`);
    return;
  }
  const color = Boolean(io.stdout.isTTY) && !io.env.NO_COLOR;
  const text = renderTerminal(reply, { color, locale: localeFromEnv(io.env) });
  (reply.exitCode === 0 || report ? io.stdout : io.stderr).write(text);
}

/**
 * Prints why the command line stops: `text` on stderr in the reader's language and, with `--json`, a
 * `{ ok: false, error, exit_code }` document with its English on stdout. Returns `exitCode`.
 */
function fail(io: CliIo, json: boolean, text: Text, exitCode: number): number {
  io.stderr.write(`${resolveText(text, localeFromEnv(io.env)).replace(/\n*$/, "")}\n`);
  if (json)
    io.stdout.write(
      `${JSON.stringify({ ok: false, error: english(text).trim(), exit_code: exitCode }, null, 2)}\n`,
    );
  return exitCode;
}

/**
 * Why this process cannot write in `home` (an existing folder, or the nearest existing one above it),
 * naming its uid and the `chown` that fixes it — instead of an EACCES stack later (a bind mount owned by
 * another uid, a home created by root). Undefined when it can write there.
 */
function unwritableHome(home: string): Text | undefined {
  let dir = path.resolve(home);
  while (!existsSync(dir) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
    return undefined;
  } catch {
    const uid = process.getuid?.() ?? 0;
    const gid = process.getgid?.() ?? 0;
    return t("cli.homeNotWritable", { dir, uid, chown: `chown -R ${uid}:${gid} ${dir}` });
  }
}

/** config.yaml and .env of `home` as `doctor` checks them. */
function lintHomeFiles(home: string): ConfigLint {
  const paths = homePaths(home);
  const read = (file: string) => {
    try {
      return readFileSync(file, "utf8");
    } catch {
      return undefined;
    }
  };
  const envText = read(paths.env);
  return lintHome({ configText: read(paths.config), envText, envMode: fileMode(paths.env) });
}

/**
 * Every error of config.yaml, each with its line and column (as `doctor` lists them), for a start that
 * `error` stopped; `error` itself comes first when the file does not hold it (a `serve --set` value).
 */
function everyConfigError(home: string, error: ConfigError): Text {
  let errors: ConfigFinding[];
  try {
    errors = lintHomeFiles(home).findings.filter((finding) => finding.level === "error");
  } catch {
    return error.text;
  }
  if (errors.length === 0) return error.text;
  const texts = errors.map(findingText);
  return join(errors.some((finding) => finding.key === error.key) ? texts : [error.text, ...texts], "\n");
}

/** Runs the CLI and resolves with the exit code. */
export async function main(
  argv: string[] = process.argv.slice(2),
  io: CliIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env },
): Promise<number> {
  const wantsJson = argv.includes("--json");
  const word = commandWord(argv);
  tuneHeapForCommand(word);
  const specs = await specsFor(word);
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
  if (selection.kind === "serve" && selection.demo) return demo(io);
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
  if (selection.kind === "init") return init(home, selection.examples, selection.json, io);
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
  if (selection.kind === "serve") return serve(home, config, selection.console, io);
  if (selection.kind === "secrets-set") return secretsSet(home, config, selection.key, io);
  if (selection.kind === "web") return webConsole(home, config, selection, io);
  const { spec, input } = selection;
  const json = input.options.json === true;
  const platformOption = input.options.platform;
  const platform = typeof platformOption === "string" ? platformOption : io.env.HERMES_PLATFORM || null;
  const interactive = Boolean((io.stdin as { isTTY?: boolean }).isTTY);
  const bar = terminalProgress(io.stderr, json);
  const stop = spec.mutating ? stopOnSignals(io) : undefined;
  const ctx = terminalContext({
    home,
    config,
    platform,
    json,
    interactive,
    prompt: interactive ? makePrompt(io) : undefined,
    progress: (line) => io.stderr.write(`${resolveText(line, locale)}\n`),
    meter: bar?.sink,
    signal: stop?.signal,
  });
  const reply = await runCommand(spec, ctx, input, {
    onUnexpected: (error) =>
      io.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`),
  }).finally(() => {
    bar?.stop();
    stop?.release();
  });
  printReply(reply, json, io);
  return reply.exitCode;
}

/** True for what writes into the home (serve, the web console, setting a secret, a changing command). */
function writesHome(selection: Selection): boolean {
  if (selection.kind === "command") return selection.spec.mutating === true;
  return selection.kind === "serve" || selection.kind === "web" || selection.kind === "secrets-set";
}

/**
 * While a command that changes the library runs, the first SIGTERM or SIGINT asks it to stop at its next
 * safe point (a curator run records what it did and ends); a second one ends the process at once.
 */
function stopOnSignals(io: CliIo): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(signal === "SIGINT" ? 130 : 143);
    io.stderr.write(`${resolveText(t("cli.signal.stopping", { signal }), localeFromEnv(io.env))}\n`);
    controller.abort();
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  return {
    signal: controller.signal,
    release: () => {
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
    },
  };
}

/** Parses and validates `serve --set` values against the home's config.yaml (throws `ConfigError`). */
function checkedOverrides(home: string, texts: readonly string[]): ConfigOverride[] {
  if (texts.length === 0) return [];
  const overrides = texts.map(parseOverride);
  let text = "";
  try {
    text = readFileSync(homePaths(home).config, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  let document: unknown;
  try {
    document = text.trim() === "" ? {} : parseYaml11(text);
  } catch {
    return overrides; // loading the file reports what is wrong with it
  }
  validateOverrides(overrides, document);
  return overrides;
}

/** `skillgate serve --demo`: the terminal chat over the example skills in a temporary home. */
async function demo(io: CliIo): Promise<number> {
  const { makeDemoHome, removeDemoHome } = await import("./examples.js");
  const home = await makeDemoHome();
  io.stderr.write(`${resolveText(t("cli.demo.intro", { home }), localeFromEnv(io.env))}\n`);
  try {
    return await serve(home, loadConfig(homePaths(home).config), true, io);
  } finally {
    await removeDemoHome(home);
  }
}

/** `skillgate init [--examples]`: creates `<home>/skills`, and installs the example skills when asked. */
async function init(home: string, examples: boolean, json: boolean, io: CliIo): Promise<number> {
  const { reply } = await import("../core/reply.js");
  if (!examples) {
    await mkdir(homePaths(home).skills, { recursive: true });
    printReply(
      reply(
        [
          { kind: "paragraph", text: t("cli.init.ready", { home }) },
          { kind: "paragraph", text: t("cli.init.addSkills") },
        ],
        { json: { ok: true, home, installed: [] } },
      ),
      json,
      io,
    );
    return 0;
  }
  const { installExamples } = await import("./examples.js");
  const result = await installExamples(home);
  const lines: Text[] = [
    result.installed.length > 0
      ? t("cli.init.installed", {
          count: result.installed.length,
          dir: homePaths(home).skills,
          names: list(result.installed),
        })
      : t("cli.init.noneInstalled"),
    ...(result.skipped.length > 0 ? [t("cli.init.leftAlone", { names: list(result.skipped) })] : []),
    t("cli.init.next"),
  ];
  printReply(
    reply(
      lines.map((text) => ({ kind: "paragraph" as const, text })),
      { json: { ok: true, home, ...result } },
    ),
    json,
    io,
  );
  return 0;
}

/** `skillgate doctor`: every check, printed with its fix; exit 1 when one failed. */
async function doctor(home: string, json: boolean, io: CliIo): Promise<number> {
  const { runDoctor, doctorReply } = await import("./doctor.js");
  const dotenv = readDotenv(homePaths(home).env);
  const checks = await runDoctor({ home, secret: (name) => lookupSecret(name, dotenv, io.env), env: io.env });
  const answer = doctorReply(checks);
  printReply(answer, json, io, true);
  return answer.exitCode;
}

/** `skillgate secrets set <KEY>`: hidden prompt on a terminal, else the value from stdin. */
async function secretsSet(home: string, config: SkillgateConfig, key: string, io: CliIo): Promise<number> {
  const { setSecretFromCli } = await import("./secrets-set.js");
  const tty = Boolean((io.stdin as { isTTY?: boolean }).isTTY);
  const answer = await setSecretFromCli(home, config, key, {
    stdin: io.stdin,
    prompt: tty ? makePrompt(io) : undefined,
  });
  printReply(answer, false, io);
  return answer.exitCode;
}

/** The LLM agent for chat text when `gateway.agent.enabled` is set and a model resolves; else undefined. */
async function loadAgent(home: string, config: SkillgateConfig, env: NodeJS.ProcessEnv, logger: Logger) {
  if (!config.gateway.agent.enabled) return undefined;
  const { createChatAgent } = await import("../gateway/agent.js");
  return createChatAgent({ home, config, env, logger }) ?? undefined;
}

/** `skillgate serve`: runs the gateway until SIGTERM/SIGINT or, for the terminal chat, the end of stdin. */
async function serve(
  home: string,
  config: SkillgateConfig,
  consoleOnly: boolean,
  io: CliIo,
): Promise<number> {
  const [{ createGateway }, { createLogger, logFormatFor }] = await Promise.all([
    import("../gateway/gateway.js"),
    import("../core/logger.js"),
  ]);
  const logStyle = (streams: CliIo) => ({
    format: logFormatFor(streams.stderr, streams.env),
    color: Boolean(streams.stderr.isTTY) && !streams.env.NO_COLOR,
  });
  const dotenv = readDotenv(homePaths(home).env);
  const secret = (name: string) => lookupSecret(name, dotenv, io.env);
  // Every .env value, and the platform tokens wherever they come from (a service's environment wins).
  const platformTokens = PLATFORMS.flatMap((platform) => [
    ...platform.secrets,
    ...Object.values(platform.ownSecrets ?? {}),
  ])
    .map((name) => secret(name))
    .filter((value): value is string => value !== undefined);
  const secretValues = [...dotenv.values(), ...platformTokens].filter((value) => value.length >= 6);
  // A bot Hermes' running gateway holds is left to it (read from Hermes' own records, files only).
  const held = consoleOnly ? [] : botsHeldByHermes({ config, home, secret, env: io.env });
  const platforms = consoleOnly
    ? []
    : configuredPlatforms({ config, secret: preferOwnSecrets(secret) }).filter(
        (name) => !held.some((bot) => bot.platform === name),
      );
  // Without a platform the terminal chat runs only on a terminal; a service keeps serving /healthz and the console.
  const terminalChat = consoleOnly || (platforms.length === 0 && Boolean(io.stdin.isTTY));
  const idle = !terminalChat && platforms.length === 0;
  if (idle && !config.gateway.health.enabled && !config.gateway.console.enabled) {
    for (const bot of held) io.stderr.write(`${resolveText(hermesHoldText(bot), localeFromEnv(io.env))}\n`);
    return fail(io, false, t("cli.serve.nothing"), EXIT_CONFIG);
  }
  const quiet = consoleOnly || platforms.length === 0;
  const logger = createLogger({
    level: io.env.SKILLGATE_LOG_LEVEL ?? (quiet ? "warn" : "info"),
    secrets: secretValues,
    ...logStyle(io),
  });
  for (const bot of held)
    logger.warn({ platform: bot.platform, pid: bot.hold.pid }, english(hermesHoldText(bot)));
  if (idle)
    logger.warn(
      `gateway: no chat platform to start; serving${config.gateway.health.enabled ? ` /healthz on port ${config.gateway.health.port}` : ""}${config.gateway.health.enabled && config.gateway.console.enabled ? " and" : ""}${config.gateway.console.enabled ? " the web console" : ""} until stopped (SIGTERM). Set a platform's token in .env, or run \`skillgate serve --terminal\` for the terminal chat.`,
    );
  let finish: (code: number) => void = () => undefined;
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });
  let stopping = false;
  let gateway: ReturnType<typeof createGateway> | undefined;
  const shutdown = (reason: string, finishWork = false) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, "gateway: shutting down");
    // The gateway waits `gateway.stop_timeout_seconds` for running work to reach a safe point (at the end
    // of the terminal chat's input, for the commands the person gave to finish).
    if (!finishWork) {
      const limitMs = config.gateway.stopTimeoutSeconds * 1000 + 10_000;
      const forced = setTimeout(() => {
        logger.error(`gateway: shutdown took longer than ${Math.round(limitMs / 1000)} s; exiting anyway`);
        finish(1);
      }, limitMs);
      forced.unref();
    }
    void (gateway?.stop({ finishWork }) ?? Promise.resolve()).then(
      () => finish(0),
      (error) => {
        logger.error({ err: error }, "gateway: shutdown failed");
        finish(1);
      },
    );
  };
  /** Builds the adapters and the gateway and starts it; a replica that lost the lead comes back as a standby. */
  const launch = async (rejoining = false) => {
    const adapters = await createAdapters({
      config,
      home,
      secret,
      logger,
      console: consoleOnly,
      skip: held.map((bot) => bot.platform),
      terminalWhenIdle: terminalChat,
      consoleOptions: {
        input: io.stdin,
        output: io.stdout,
        onEnd: () => shutdown("end of input", true),
        locale: localeFromEnv(io.env),
      },
    });
    const agent = await loadAgent(home, config, io.env, logger);
    // The terminal chat prints notices (the web console's link) above its prompt, not after it.
    const terminal = adapters.find(
      (adapter): adapter is typeof adapter & { announce(text: string): void } => "announce" in adapter,
    );
    gateway = createGateway({
      home,
      config,
      adapters,
      logger,
      agent,
      // `serve --terminal` (or --console) is the terminal chat alone; otherwise the web console comes along (if enabled).
      // The login link only on a terminal: a service's stdout is a log.
      console: consoleOnly
        ? undefined
        : {
            announce: (line) => (terminal ? terminal.announce(line) : io.stdout.write(`${line}\n`)),
            printLink: Boolean(io.stdout.isTTY),
            locale: localeFromEnv(io.env),
          },
      waitForRedis: rejoining,
      onLeadershipLost: (reason, options) => {
        logger.info({ reason }, "gateway: rejoining as a standby");
        void rejoin(options.retryAfterMs);
      },
    });
    await gateway.start();
  };
  /** Starts a fresh gateway after a lost lead; while Redis is unreachable it tries again every 2 s. */
  const rejoin = async (delayMs: number) => {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    while (!stopping) {
      try {
        await launch(true);
        return;
      } catch (error) {
        if (!(error instanceof CoordinationError)) {
          logger.error({ err: error }, "gateway: could not rejoin as a standby");
          finish(1);
          return;
        }
        logger.warn(`gateway: cannot rejoin yet (${error.message}); trying again in 2 s`);
        await new Promise((resolve) => setTimeout(resolve, 2_000));
      }
    }
  };
  try {
    process.once("SIGTERM", () => shutdown("SIGTERM"));
    process.once("SIGINT", () => shutdown("SIGINT"));
    await launch();
    relaxYoungGeneration();
  } catch (error) {
    if (error instanceof ConfigError) return fail(io, false, error.text, EXIT_CONFIG);
    logger.error({ err: error }, "gateway: failed to start");
    return fail(io, false, t("cli.serve.failed", { cause: errorCause(error) }), 1);
  }
  return finished;
}

/** `skillgate console`: the web console alone until SIGTERM/SIGINT, or `--link`: one more login link. */
async function webConsole(
  home: string,
  config: SkillgateConfig,
  options: Extract<Selection, { kind: "web" }>,
  io: CliIo,
): Promise<number> {
  const role = options.readOnly ? "read-only" : "admin";
  if (options.link) {
    const { consoleLoginLink } = await import("../gateway/console/launch.js");
    io.stdout.write(`${consoleLoginLink(home, config, role, options)}\n`);
    return 0;
  }
  const { launchConsole } = await import("../gateway/console/launch.js");
  const { createLogger, logFormatFor } = await import("../core/logger.js");
  const logger = createLogger({
    level: io.env.SKILLGATE_LOG_LEVEL ?? "warn",
    format: logFormatFor(io.stderr, io.env),
    color: Boolean(io.stderr.isTTY) && !io.env.NO_COLOR,
  });
  let running: Awaited<ReturnType<typeof launchConsole>>;
  try {
    running = await launchConsole({
      home,
      config,
      logger,
      port: options.port,
      bind: options.bind,
      role,
      announce: (line) => io.stdout.write(`${line}\n`),
      locale: localeFromEnv(io.env),
    });
  } catch (error) {
    return fail(io, false, t("cli.console.failed", { cause: errorCause(error) }), 1);
  }
  return new Promise<number>((resolve) => {
    const stop = () =>
      void running.close().then(
        () => resolve(0),
        () => resolve(1),
      );
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
  });
}

/** Exits once stdout and stderr have drained: a pipe reader must get the whole JSON document. */
function exitAfterFlush(code: number): void {
  process.exitCode = code;
  process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
}

function isMainModule(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMainModule()) {
  main().then(exitAfterFlush, (error) => {
    process.stderr.write(
      `skillgate: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    exitAfterFlush(1);
  });
}
