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
} as const satisfies CatalogShape;
