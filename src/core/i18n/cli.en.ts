/**
 * The command line's own help texts in English: the program, the commands that exist only on the
 * command line (`serve`, `init`, `doctor`, `secrets set`, `console`), the groups' lines and the
 * headings of commander's help. A section of the English catalog; the registry's commands describe
 * themselves in `commands.en.ts`.
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
  "doctor.redis.fix":
    "Start Redis (>= 7) or Valkey at gateway.coordination.redis_url, or remove gateway.coordination to run one gateway alone.",
  "doctor.noSkills": "No skills in the library.",
  "doctor.noSkills.fix":
    "`skillgate init --examples` installs example skills here; `skillgate serve --demo` tries them without touching this home.",
  "doctor.skills": "{count} skill(s) in the library.",
  "doctor.libraryUnreadable": "The skill library could not be read: {cause}.",
  "doctor.libraryUnreadable.fix": "Check the permissions of <home>/skills.",
} as const satisfies CatalogShape;
