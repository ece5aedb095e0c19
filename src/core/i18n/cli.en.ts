/**
 * The command line's own texts in English: the program, the commands that exist only on the command
 * line (`serve`, `init`, `doctor`, `secrets set`, `console`), the groups' lines, the headings of
 * commander's help and its error messages (commander 14's English, byte for byte), and what a start
 * prints: config.yaml's warnings, why `serve` or `console` could not start (Redis coordination among
 * it). A section of the English catalog; the registry's commands describe themselves in `commands.en.ts`.
 */
import type { CatalogShape } from "./entries.js";

export const enCli = {
  "cli.program": "Chat gateway and curator for an agent's skill library (Hermes format).",
  "cli.option.home": "skillgate/Hermes home (default: $HERMES_HOME or ~/.hermes)",
  "cli.option.version": "print skillgate's version",
  "cli.option.help": "display help for command",
  "cli.option.json.result": "print the result as JSON",
  "cli.option.json.checks": "print the checks as JSON",
  "cli.heading.usage": "Usage:",
  "cli.heading.arguments": "Arguments:",
  "cli.heading.options": "Options:",
  "cli.heading.globalOptions": "Global Options:",
  "cli.heading.commands": "Commands:",
  "cli.help.options": "[options]",
  "cli.help.command": "[command]",
  "cli.help.default": "default: {value}",
  "cli.help.choices": "choices: {value}",
  "cli.help.preset": "preset: {value}",
  "cli.help.env": "env: {value}",
  "cli.group": "{head} commands",
  "cli.group.bare": "{head} commands (bare: {head} {fallback})",
  "cli.group.subcommand": "one of the commands below",
  "cli.serve":
    "run the chat gateway and the web console (platforms from config and secrets; the terminal chat when none)",
  "cli.serve.terminal": "only the terminal chat in this terminal: no platforms, no web console",
  "cli.serve.console": "the older name of --terminal (kept; `skillgate console` is the web console)",
  "cli.serve.demo": "the terminal chat with the example skills on a temporary home (yours is not touched)",
  "cli.serve.set":
    "override a config.yaml setting for this process only (repeatable), e.g. --set gateway.coordination.replica_id=b",
  "cli.init": "create the home's skills folder; --examples also installs the example skills",
  "cli.init.examples": "install the example skills (existing ones are left alone)",
  "cli.doctor": "check the home, config.yaml and each configured platform's credentials and settings",
  "cli.secrets": "secrets of skills in <home>/.env",
  "cli.secrets.set": "store a skill's declared secret in <home>/.env, read without echo (or from stdin)",
  "cli.secrets.set.key": "the variable a skill declares",
  "cli.console":
    "run the local web console alone, in the browser (no chat platforms); prints a one-time login link",
  "cli.console.port": "port (default gateway.console.port)",
  "cli.console.bind": "address to listen on (default gateway.console.bind, 127.0.0.1)",
  "cli.console.link": "print a fresh login link for the console already running, and exit",
  "cli.console.readOnly": "the login link is for a read-only login (pages only, no actions)",
  // ── the command line's errors ───────────────────────────────────────────────────────────────────────
  "cli.usage.needsCommand": "A command is needed; see `skillgate --help`.",
  "cli.usage.groupOption": "Unknown option {flag} for `{command}`.",
  "cli.serve.nothing":
    "Nothing to serve: no chat platform starts, stdin is not a terminal (no terminal chat), and gateway.health and gateway.console are both disabled. Set a platform's token in .env, enable gateway.health or gateway.console, or run `skillgate serve --terminal` on a terminal.",
  "hermes.holds":
    "{platform}: Hermes' gateway (pid {pid}) is running with this bot, so skillgate does not start {platform}.",
  "hermes.holds.fix":
    "Give skillgate a bot of its own ({names} in .env), or stop Hermes' gateway and set gateway.{platform}.enabled: true to own this bot on purpose.",
  "cli.hermes.holds": "{summary} {fix}",
  "cli.home.missing":
    "The home {home} does not exist (named by {source}). Run `skillgate init --home {home}` to create it, or point --home at an existing home.",
  "cli.home.created": "Created the home {home} (first use; `skillgate init --examples` adds example skills).",
  "cli.node.old":
    "skillgate needs Node.js 20.19 or newer; this is Node.js {version}. Install a newer Node.js (https://nodejs.org) and run it again.",
  "cli.serve.failed": "skillgate serve could not start: {cause}",
  "cli.console.failed": "skillgate console could not start: {cause}",
  "cli.demo.intro":
    "Demo: the example skills in a temporary home ({home}); your own home is not touched and this one is removed at the end.\nTry /help, /skills list, /skill paper-digest references/checklist.md or /curator status.",
  "cli.init.ready": "Home ready: {home}.",
  "cli.init.addSkills":
    "Add skills under skills/<category>/<name>/SKILL.md, or run `skillgate init --examples` for the example skills.",
  "cli.init.installed": "Installed {count} example skill(s) into {dir}: {names}.",
  "cli.init.noneInstalled": "No example skill was installed.",
  "cli.init.leftAlone": "Left alone (already there): {names}.",
  "cli.init.next": "Next: `skillgate serve --terminal` to chat with them, or `skillgate skills list`.",
  "cli.signal.stopping": "{signal}: stopping at the next safe point (send it again to stop at once)…",
  "cli.recovery.more": "recovery: … and {count} more repair(s) of the same kinds.",
  "cli.recovery.failed": "warning: recovering interrupted work failed: {cause}",
  // commander's own messages (commander 14 writes them in English; these are the same words)
  "cli.error.missingArgument": "error: missing required argument '{name}'",
  "cli.error.optionMissingArgument": "error: option '{flags}' argument missing",
  "cli.error.requiredOption": "error: required option '{flags}' not specified",
  "cli.error.unknownOption": "error: unknown option '{flag}'",
  "cli.error.unknownCommand": "error: unknown command '{name}'",
  "cli.error.didYouMean": "{error}\n(Did you mean {suggestion}?)",
  "cli.error.didYouMeanOneOf": "{error}\n(Did you mean one of {suggestions}?)",
  "cli.error.excessArguments": {
    one: "error: too many arguments. Expected {count} argument but got {received}.",
    other: "error: too many arguments. Expected {count} arguments but got {received}.",
  },
  "cli.error.excessArgumentsFor": {
    one: "error: too many arguments for '{command}'. Expected {count} argument but got {received}.",
    other: "error: too many arguments for '{command}'. Expected {count} arguments but got {received}.",
  },
  "cli.error.invalidOptionValue": "error: option '{flags}' argument '{value}' is invalid. {reason}",
  "cli.error.invalidEnvValue":
    "error: option '{flags}' value '{value}' from env '{env}' is invalid. {reason}",
  "cli.error.invalidArgument":
    "error: command-argument value '{value}' is invalid for argument '{name}'. {reason}",
  "cli.error.wholeNumber": "it must be a whole number.",
  "cli.error.choices": "Allowed choices are {choices}.",
  // ── config.yaml warnings (the value falls back to its default, or is ignored) ───────────────────────
  "config.warn.curatorNumber":
    "config.yaml: `curator.{key}` is {value}; using the default {fallback} (it must be a number ≥ 1).",
  "config.warn.notSkillName.boolean":
    'config.yaml: `{key}` has {value}, which Hermes\' YAML reader takes for a boolean, not a skill name, so it hides nothing; quote the name (e.g. "on").',
  "config.warn.notSkillName.number":
    'config.yaml: `{key}` has {value}, which Hermes\' YAML reader takes for a number, not a skill name, so it hides nothing; quote the name (e.g. "on").',
  "config.warn.notSkillName.date":
    'config.yaml: `{key}` has {value}, which Hermes\' YAML reader takes for a date, not a skill name, so it hides nothing; quote the name (e.g. "on").',
  "config.warn.notSkillName.other":
    'config.yaml: `{key}` has {value}, which Hermes\' YAML reader takes for a {kind}, not a skill name, so it hides nothing; quote the name (e.g. "on").',
  "config.warn.legacyAuxiliary":
    "config.yaml: `curator.auxiliary` is deprecated; move it to `auxiliary.curator` (same keys).",
  // ── several gateways on one home (gateway.coordination) ─────────────────────────────────────────────
  "coordination.unreachable":
    "gateway.coordination: Redis at {url} cannot be reached ({cause}); start Redis there (Redis ≥ 7 or Valkey), correct gateway.coordination.redis_url, or remove gateway.coordination to run a single gateway without Redis.",
  "coordination.noAnswer": "no answer within {ms} ms",
  "coordination.badUrl": "the URL does not read as one; percent-encode / ? # @ : in the password",
  "coordination.version":
    "gateway.coordination: Redis at {url} is version {version}; skillgate needs Redis {min} or later (or Valkey). Upgrade it or point redis_url at a newer server.",
  "coordination.versionUnknown":
    "gateway.coordination: Redis at {url} is version unknown; skillgate needs Redis {min} or later (or Valkey). Upgrade it or point redis_url at a newer server.",
  "coordination.eviction":
    "gateway.coordination: Redis at {url} evicts keys (maxmemory-policy {policy}); evicted dedupe marks and leases answer events twice and let two replicas lead. Set `maxmemory-policy noeviction` (redis.conf, `CONFIG SET maxmemory-policy noeviction`, or the managed service's parameter group) and size memory for the inbox (docs/scale-out.md).",
  "coordination.acl":
    "gateway.coordination: the Redis user of {url} may not run {commands}; coordination needs them. Grant them, e.g. `ACL SETUSER <user> +@read +@write +@stream +@scripting +info ~skillgate:*`.",
  "coordination.persistence.none":
    "Redis at {url} keeps nothing on disk (no AOF, no RDB snapshots, no replica): if it restarts while no replica leads, events already acknowledged to the platforms are lost. Turn on `appendonly yes`.",
  "coordination.persistence.rdbOnly":
    "Redis at {url} keeps only RDB snapshots: a restart loses events acknowledged to the platforms since the last snapshot. Turn on `appendonly yes`.",
  "coordination.persistence.replicaOnly":
    "Redis at {url} has no AOF and relies on its replica: a restart without a failover loses events acknowledged to the platforms since the last snapshot. Turn on `appendonly yes`.",
  "coordination.leaderWatch":
    "the Redis user of {url} may not run {commands}: a crashed leader is replaced only when its lease lapses (3.5 s), not at once.",
  "coordination.replicaId":
    "another live gateway on this home already uses replica_id '{id}' (Redis {url}). Give each replica its own: `skillgate serve --set gateway.coordination.replica_id=<name>`, or leave it unset for host name and pid.",
  "coordination.homeId":
    "{file} does not hold a coordination id; remove it and start the gateway again (a new one is made).",
  // ── skillgate doctor ────────────────────────────────────────────────────────────────────────────────
  "doctor.area.home": "home",
  "doctor.area.config": "config",
  "doctor.area.coordination": "coordination",
  "doctor.mark.ok": "ok",
  "doctor.mark.warn": "WARN",
  "doctor.mark.fail": "FAIL",
  "doctor.col.area": "area",
  "doctor.col.finding": "finding",
  "doctor.howToFix": "How to fix",
  "doctor.fixLine": "{area}: {fix}",
  "doctor.tally.problems": "{problems} problem(s), {warnings} warning(s).",
  "doctor.tally.warnings": "No problems; {count} warning(s).",
  "doctor.tally.fine": "Everything checked is fine.",
  "doctor.tempsRemoved": {
    one: "Removed {count} leftover copy of .env or config.yaml from interrupted writes: {files}.",
    other: "Removed {count} leftover copies of .env or config.yaml from interrupted writes: {files}.",
  },
  "doctor.tempsRemoved.fix": "Nothing to do; an interrupted write never changes the file itself.",
  "doctor.noHome": "The home {home} does not exist.",
  "doctor.noHome.fix":
    "Run `skillgate init --examples` to create it with example skills, point --home or HERMES_HOME at your Hermes home, or try `skillgate serve --demo`.",
  "doctor.home": "Home: {home}.",
  "doctor.noPlatform": "No chat platform has its token set: `skillgate serve` runs the terminal chat only.",
  "doctor.noPlatform.fix":
    "Follow docs/platforms/telegram.md, feishu.md or discord.md and put the tokens in <home>/.env.",
  "doctor.checkFailed": "The check itself failed: {cause}.",
  "doctor.checkFailed.fix": "Report this as a skillgate bug.",
  "doctor.noPlatformChecks": "No checks against the platform are available.",
  "doctor.config.fix": "Fix it in config.yaml (deploy/config.example.yaml shows every setting).",
  "doctor.config.unreadable": "{file} cannot be read: {cause}.",
  "doctor.config.unreadable.fix": "Check the file's permissions.",
  "doctor.config.yaml": "{file} is not valid YAML: {detail}.",
  "doctor.config.yaml.fix": "Fix the syntax at the line named (indentation, a missing `:` or quote).",
  "doctor.config.unknownSuggest":
    "config.yaml: `{key}` is not a setting skillgate knows; did you mean `{suggestion}`?",
  "doctor.config.unknownSuggest.fix":
    "Rename `{key}` to `{suggestion}` in config.yaml; as written it is ignored.",
  "doctor.config.unknown": "config.yaml: `{key}` is not a setting skillgate knows.",
  "doctor.config.unknown.fix":
    "Remove `{key}` from config.yaml or check its spelling in deploy/config.example.yaml; as written it is ignored.",
  "doctor.config.none": "No {file}: defaults apply.",
  "doctor.config.valid": "{file} is valid.",
  "doctor.config.warning.fix": "See deploy/config.example.yaml.",
  "doctor.noAdmins": "gateway.admins is empty: nobody can change the library from chat.",
  "doctor.noAdmins.fix":
    "Message the bot once: it answers with your platform:id. Add it to gateway.admins in config.yaml.",
  "doctor.redis": "Redis at {url} answers (version {version}).",
  "doctor.redis.unsafe.fix":
    "Change the Redis setting named above: `skillgate serve` refuses this server until then.",
  "doctor.redis.persistence.fix":
    "Turn on the append-only file (`appendonly yes` in redis.conf, or the managed service's persistence setting); see docs/scale-out.md.",
  "doctor.redis.leaderWatch.fix":
    "Grant them, e.g. `ACL SETUSER <user> +client|id +client|list +info`; see docs/scale-out.md.",
  "doctor.redis.fix":
    "Start Redis (>= 7) or Valkey at gateway.coordination.redis_url, or remove gateway.coordination to run one gateway alone.",
  "doctor.noSkills": "No skills in the library.",
  "doctor.noSkills.fix":
    "`skillgate init --examples` installs example skills here; `skillgate serve --demo` tries them without touching this home.",
  "doctor.skills": "{count} skill(s) in the library.",
  "doctor.libraryUnreadable": "The skill library could not be read: {cause}.",
  "doctor.libraryUnreadable.fix": "Check the permissions of <home>/skills.",
} as const satisfies CatalogShape;
