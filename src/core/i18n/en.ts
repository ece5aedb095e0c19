/**
 * The English catalog: the reference every other locale is checked against (see `entries.ts`). These
 * are the texts skillgate always printed; `--json` documents, logs and error messages use them too.
 * Keys are grouped by where they are shown. Vocabulary: `glossary.md`.
 */
import { enCli } from "./cli.en.js";
import { enCommands } from "./commands.en.js";
import { enConsole } from "./console.en.js";
import { enDoctor } from "./doctor.en.js";
import type { CatalogShape } from "./entries.js";
import { enHub } from "./hub.en.js";
import { enLibrary } from "./library.en.js";
import { enMenu } from "./menu.en.js";
import { enSearch } from "./search.en.js";

export const en = {
  ...enConsole,
  ...enCli,
  ...enMenu,
  ...enDoctor,
  // ── reply model ──────────────────────────────────────────────────────────────────────────────────
  "reply.warning": "⚠ {text}",
  "button.cancel": "Cancel",
  "button.setKey": "Set {key}",
  "reply.done": "Done.",
  "reply.belowCard": "✓ Done — the result is below (too long for a card).",
  "reply.choose": "Choose:",
  // ── the terminal chat ───────────────────────────────────────────────────────────────────────────
  "terminal.confirmHint": "Type y to confirm; anything else leaves everything as it is.",
  "terminal.cancelled": "Cancelled; nothing was changed.",
  // ── access ──────────────────────────────────────────────────────────────────────────────────────────
  "access.stranger":
    "I don't know you yet. Your id is `{who}`. Ask the owner of this gateway to add it to `gateway.allowed_users` (read-only commands) or `gateway.admins` in config.yaml.",
  "access.needsSender": "⛔ `{command}` needs a known sender; this message had none.",
  "access.adminsOnly":
    "⛔ `{command}` changes the skill library, so it is for admins only. Your id is `{who}`; ask the owner to add it to gateway.admins if you should have this right.",
  "access.notAllowed":
    "⛔ You are not on this gateway's allowed list. Your id is `{who}`; ask the owner to add it to gateway.allowed_users.",
  "error.interrupted":
    "{what} stopped before it changed anything: the process is shutting down. It runs again at the next start (or run it yourself then).",
  "error.what.curatorRun": "the curator run",
  "error.what.snapshot": "the snapshot",
  // ── command runner ──────────────────────────────────────────────────────────────────────────────────
  "runner.confirmInChat": "{question}\nReply `{again}` to confirm.",
  "runner.noTerminalToConfirm":
    "{question}\nThere is no terminal to confirm on, so nothing was changed. Re-run with -y to proceed: {again}",
  "runner.confirmPrompt": "{question} [y/N] ",
  "runner.cancelled": "Cancelled; nothing was changed.",
  "runner.unexpected":
    "`{command}` failed unexpectedly: {detail}. Nothing more is known here; check the logs and try again.",
  "button.confirm": "Confirm",
  // ── native command menus ────────────────────────────────────────────────────────────────────────────
  "catalog.group.curator": "curator: status, run, pin, archive, restore, backup, rollback…",
  "catalog.group.skills": "skills: list, view, usage, enable, disable, config",
  "catalog.group.other": "{name}: {subcommands}",
  // ── config.yaml errors ──────────────────────────────────────────────────────────────────────────────
  "lint.located": "{problem} ({file} line {line}, column {column})",
  "lint.nearSection":
    "config.yaml: the section `{key}` is not one skillgate reads, and is one typo away from `{section}`; everything under it is ignored.",
  "lint.nearSection.fix":
    "Rename `{key}:` to `{section}:` if that is what you meant (or merge it into an existing `{section}:`).",
  "lint.portCollision":
    "config.yaml: `{key}` and `{other}` both listen on port {port}; the second cannot start.",
  "lint.portCollision.fix": "Give `{key}` a free port of its own.",
  "lint.tokenInConfig":
    "config.yaml: `{key}` looks like a bot token or secret; skillgate reads credentials only from .env, so this value is not used — and config.yaml is often readable by others.",
  "lint.tokenInConfig.fix":
    "Move the value to <home>/.env under the platform's variable name (`skillgate secrets set`), and remove `{key}` from config.yaml.",
  "lint.idShape": "config.yaml: `{key}` holds {value}, which is not a {platform} id; it matches nobody.",
  "lint.idShape.fix": "Write the numeric or platform id, e.g. `{example}` (`/whoami` in the chat shows it).",
  "lint.thresholds":
    "config.yaml: `curator.stale_after_days` ({stale}) is not below `curator.archive_after_days` ({archive}): skills are archived without ever being marked stale.",
  "lint.thresholds.fix": "Make `stale_after_days` smaller than `archive_after_days` (defaults 30 and 90).",
  "lint.envName": ".env: `{name}` is not a name skillgate reads; did you mean `{meant}`?",
  "lint.envName.fix": "Rename `{name}` to `{meant}` in <home>/.env.",
  "lint.envMode": ".env holds credentials and its mode {mode} lets other users of this machine read it.",
  "lint.envMode.fix": "Run `chmod 600 <home>/.env`.",
  "config.invalid": "config.yaml: `{key}` is {value}; {requirement}.",
  "config.req.mapping": "it must be a mapping (key: value lines)",
  "config.req.mappingShort": "it must be a mapping",
  "config.req.bool": "allowed values are true or false",
  "config.req.string": "it must be a string",
  "config.req.oneOf": "allowed values are {allowed}",
  "config.req.wholeNumber": "a whole number",
  "config.req.number": "a number",
  "config.req.range": "{kind} {bounds}",
  "config.req.mustBe": "it must be {range}",
  "config.req.stringList": "it must be a list of strings",
  "config.req.hostPort": "each entry must be host:port, e.g. 127.0.0.1:8080 or registry.local:443",
  "config.req.skillNames": "it must be a list of skill names",
  "config.req.paths": "it must be a path or a list of paths",
  "config.req.url": 'it must be a full URL such as "https://bot.example.com"',
  "config.req.timeZone": 'it must be an IANA time zone, e.g. "Asia/Shanghai" or "UTC"',
  "config.req.homeChannel": 'it must be `platform:chat_id`, e.g. "telegram:-1001234567890"',
  "config.req.feishuDomain": "allowed values are feishu, lark, or a full URL (https://…)",
  "config.badReference":
    'config.yaml: `{key}` has {value}; each entry must be `platform:id` with platform one of {platforms} (e.g. "telegram:123456789").',
  "config.rootNotMapping": "config.yaml must be a mapping of sections (skills:, curator:, gateway: …).",
  "config.unreadable": "Cannot read {path}: {detail}. Check its permissions.",
  "config.badYaml": "{path} is not valid YAML: {detail}. Fix the syntax and try again.",
  // ── native menus ────────────────────────────────────────────────────────────────────────────────────
  "menu.loadSkill": "Load the {name} skill",
  // ── discord ─────────────────────────────────────────────────────────────────────────────────────────
  "discord.skillCommand": "Load a skill, or show one of its files",
  "discord.skillCommand.name": "Skill name",
  "discord.skillCommand.file": "A file inside the skill (optional)",
  // ── cli ─────────────────────────────────────────────────────────────────────────────────────────────
  "cli.homeNotWritable":
    "{dir} is not writable by this process (uid {uid}), so skillgate cannot keep its files there. Run `{chown}` (on the host, for a bind mount), or give another home with --home.",
  "cli.warning": "warning: {warning}",
  // ── skill security warnings ─────────────────────────────────────────────────────────────────────────
  "injection.ignorePrevious": "asks to ignore previous instructions",
  "injection.youAreNow": 'tries to redefine the assistant ("you are now")',
  "injection.disregardRules": "asks to disregard the assistant's rules",
  "injection.forget": "asks to forget instructions",
  "injection.newInstructions": "declares new instructions",
  "injection.systemPrompt": "tries to override the system prompt",
  "injection.systemTag": "contains a fake <system> tag",
  "injection.cdata": "contains a CDATA terminator (]]>)",
  "injection.curlSh": "pipes a download into a shell (curl|sh)",
  "injection.base64Sh": "pipes decoded data into a shell",
  "injection.hiddenUnicode":
    "{label} line {line}: contains invisible Unicode characters (zero-width, bidi or tag characters) that can hide instructions.",
  "injection.foundAt": "{label} line {line}: possible prompt injection — {what}.",
  "injection.found": "{label}: possible prompt injection — {what}.",
  // ── skill names and paths ───────────────────────────────────────────────────────────────────────────
  "skill.name.nul": "Skill name must not contain NUL characters.",
  "skill.name.absolute": "Skill name must be a relative path within the skills directory.",
  "skill.name.traversal": "Skill name cannot contain '..' path traversal components.",
  "skill.path.nul": "File path must not contain NUL characters.",
  "skill.path.traversal": "Path traversal ('..') is not allowed.",
  "skill.path.absolute": "File path must be relative to the skill directory, e.g. 'references/api.md'.",
  "skill.path.empty": "File path is empty; name a file such as 'references/api.md'.",
  "skill.path.escape":
    "File '{file}' resolves outside the skill directory (through a symlink); skillgate does not follow links that leave a skill.",
  // ── declared settings ─────────────────────────────────────────────────────────────────────────────
  "setting.key.emptyPart":
    "`{key}` has an empty part (an empty key, two dots together, or a dot at either end), which config.yaml cannot hold as a key",
  "setting.key.merge":
    "`<<` in `{key}` is YAML's merge key: stored in config.yaml it would pull keys in from elsewhere instead of holding a value",
  "setting.key.whitespace":
    "the part `{part}` of `{key}` starts or ends with whitespace or holds a control character, which a bare YAML key does not keep",
  "setting.key.indicator":
    "the part `{part}` of `{key}` starts with `{char}`, which YAML reads as markup (a list item, anchor, alias, tag, block text, quote or comment), not as text",
  "setting.key.separator":
    "the part `{part}` of `{key}` holds `: ` or ` #` (or ends with `:`), which YAML reads as the end of a key or the start of a comment",
  "setting.key.notText":
    "the part `{part}` of `{key}` is read by PyYAML (Hermes) as a boolean, null, number or date, not as the text `{part}`",
  "setting.refused":
    "setting `{key}` is not offered — {reason}; the skill's author can rename it in metadata.hermes.config",
  // ── skill files ─────────────────────────────────────────────────────────────────────────────────────
  "skill.folderMissing": "The folder of skill '{skill}' does not exist.",
  "skill.dangling": "{label} of skill '{skill}' does not resolve to a file (a dangling or looping symlink?).",
  "skill.linkEscapes":
    "{label} of skill '{skill}' is a symlink that leads outside the skill's folder; skillgate never reads or shows it. Replace the link with the file itself.",
  "skill.tooLarge":
    "{label} of skill '{skill}' is {size}, over the {limit} limit; skillgate does not load it. Shorten it (move long material into references/ files).",
  "skill.unopenable":
    "{label} of skill '{skill}' could not be opened ({detail}); check that it exists and that skillgate may read it.",
  "skill.notAFile": "{label} of skill '{skill}' is not a regular file.",
  "skill.fileLabel": "File '{file}'",
  // ── readiness ───────────────────────────────────────────────────────────────────────────────────────
  "readiness.gatewaySetupHint":
    "Secure secret entry is not supported over messaging. Load this skill in the local CLI (`skillgate skills view` on the host) to be prompted, or add the key to {envFile} manually.",
  "readiness.defaultPrompt": "Enter value for {name}",
  "readiness.note": "Setup needed before using this skill: {parts}.",
  "readiness.note.env": "missing env {names}",
  "readiness.note.file": "file {names}",
  "readiness.note.command": "command {names} (not on PATH)",
  "readiness.note.remote":
    "{backend}-backed skills need these requirements available inside the remote environment as well.",
  "readiness.ask": "{prompt} [{name}, hidden; empty to skip]: ",
  "readiness.askWithHelp": "{prompt} ({help}) [{name}, hidden; empty to skip]: ",
  // ── skill view ──────────────────────────────────────────────────────────────────────────────────────
  "view.noSkillsDir": "Skills directory does not exist yet. It will be created on first install.",
  "view.ambiguous":
    "Ambiguous skill name '{name}': {count} skills match across your local skills dir and external_dirs. Refusing to guess — load one explicitly by its categorized path.",
  "view.notFound": "Skill '{name}' not found.",
  "view.notUtf8":
    "{label} of skill '{name}' is not valid UTF-8 text (a binary file?); skillgate does not show it. Save it as UTF-8.",
  "view.unreadable": "Skill '{name}' could not be read: {detail}. Check the file's permissions.",
  "view.frontmatterTooLarge":
    "The frontmatter of skill '{name}' is over the {limit} limit; skillgate does not parse it. Keep the frontmatter to name, description and a few metadata keys.",
  "view.unsupportedPlatform": "Skill '{name}' is not supported on this platform.",
  "view.disabled.everywhere": "everywhere (skills.disabled)",
  "view.disabled.on": "on {platform} (skills.platform_disabled.{platform})",
  "view.disabledHere":
    "Skill '{name}' is disabled {where} and cannot be loaded on {platform}. Remove it from that list in config.yaml to enable it, or inspect the files directly on disk.",
  "view.disabled":
    "Skill '{name}' is disabled {where}. Remove it from that list in config.yaml to enable it, or inspect the files directly on disk.",
  "view.trust.symlink":
    "'{name}' resolves to {target}, outside the local skills folder and skills.external_dirs (through a symlink); review it before relying on it.",
  "view.trust.external":
    "'{name}' comes from the external folder {folder}, not from {local}; it is outside the curated library.",
  "view.singleFile": "Skill '{name}' is a single-file skill; it has no linked files to view.",
  "view.fileNotFound": "File '{file}' not found in skill '{name}'.",
  // ── web console actions ─────────────────────────────────────────────────────────────────────────────
  "console.ask": "{command}: {summary}. Proceed?",
  "console.ask.withTarget": "{command} {target}: {summary}. Proceed?",
  // ── secret entry ────────────────────────────────────────────────────────────────────────────────────
  "secret.set": "`{key}` set ✓",
  "secret.skillReady": "{skill}: ready.",
  "secret.skillNeeds": "{skill}: setup still needed — {missing}.",
  "secret.missing.variable": "variable `{name}`",
  "secret.missing.file": "file `{name}`",
  "secret.missing.command": "command `{name}`",
  "secret.unavailable": "Private secret entry is not available here.",
  "secret.input.hint": "Stored in the gateway's .env file; not shown in the chat.",
  "secret.input.intro":
    "For the skill **{skill}**. The value goes straight into the gateway's .env file and is not shown in the chat. This form works once, for 10 minutes, and only for the admin who asked.",
  "secret.input.stored": "Stored in the gateway's .env file.",
  "secret.input.posted": "A form to set {key} was posted; only you can use it.",
  "secret.input.postFailed": "The form could not be posted; try again.",
  "secret.link.message":
    "Set <code>{key}</code> for {skill} with this one-time form (it works once, for 10 minutes, and only for you):",
  "secret.link.sent": "I sent you a one-time link to set it in our private chat.",
  "secret.link.noPrivateChat":
    "I could not message you privately: open a private chat with me, send /start, then press the button again.",
  "secret.skillGone": "The skill `{skill}` is not available here any more.",
  "secret.keyGone": "`{skill}` does not declare `{key}` any more.",
  "value.edgeWhitespace":
    "The value starts or ends with whitespace ({chars}), which would be kept as part of it; nothing was stored. Enter it again without that whitespace.",
  "secret.badValue": "⚠️ {problem}",
  "secret.refused": "⛔ {reason}",
  // ── secret forms ────────────────────────────────────────────────────────────────────────────────────
  "secret.token.unknown":
    "This secret form is not valid (the gateway may have restarted). Load the skill again to get a new one.",
  "secret.token.expired":
    "This secret form expired (forms stay open for 10 minutes). Load the skill again to get a new one.",
  "secret.token.used":
    "This secret form was already used; each form sets a value once. Load the skill again to change it.",
  "secret.token.wrongUser": "This secret form belongs to the admin who asked for it; only they can use it.",
  // ── gateway ─────────────────────────────────────────────────────────────────────────────────────────
  "gateway.noAgent":
    "I only understand commands here: no language model is configured. To chat, set `gateway.agent.enabled: true` and a `model` (or `auxiliary`) section in config.yaml. Type /help for the commands.",
  "gateway.unknownCommand":
    "Unknown command `{command}`. Type /help to see what is available, or resend without the leading slash to send it as a normal message.",
  "gateway.unknownCommand.guess":
    "Unknown command `{command}`. Did you mean `{guess}`? Type /help to see what is available, or resend without the leading slash to send it as a normal message.",
  "gateway.noPrivateInput":
    "Private secret entry is not available here; set it in the gateway host's .env file.",
  "gateway.running": "⏳ Running `{command}`… this message will show the result.",
  "gateway.working": "⏳ Working on it…",
  "gateway.queued": "⏳ Reconnecting… your message is queued and will be answered shortly.",
  "gateway.notTaken.interaction":
    "skillgate is briefly unavailable and did not take this. Please try again in a moment.",
  "gateway.notTaken.press": "This press could not be taken just now; press the button again in a moment.",
  "gateway.loadSkill": "load the {name} skill",
  "gateway.agentFailed": "The agent could not answer: {detail}. Commands still work; type /help.",
  "gateway.notAllowed": "You are not on this gateway's allowed list.",
  "press.unknown":
    "⛔ This button is not one this gateway showed in this chat, so nothing was done. Run the command again.",
  "press.expired":
    "⌛ This button has expired (buttons work for {hours} h), so nothing was done. Run the command again.",
  "press.used": "This was already answered; nothing more was done.",
  "press.secretAdminsOnly":
    "⛔ Setting a secret is for admins only. Your id is `{who}`; ask the owner to add it to gateway.admins if you should have this right.",
  "press.commandGone": "⛔ This button's command no longer exists, so nothing was done.",
  "secretValue.multiline": "The value must be a single line without NUL characters; nothing was stored.",
  "secretValue.notUnicode": "The value is not valid Unicode text; nothing was stored.",
  "secretValue.empty": "The value was empty; nothing was stored.",
  "secretValue.oneLine": "The value must be a single line; nothing was stored.",
  "secretValue.tooLong": "The value is longer than {limit} characters; nothing was stored.",
  "secretValue.unparsable":
    ".env has a statement python-dotenv cannot parse before `{key}` (an unterminated quote?), so the new value would not be read; fix the file and try again. Nothing was stored.",
  "secretValue.layout":
    "Writing would change how `{key}` reads in .env (its layout is unusual); fix the file and try again. Nothing was stored.",
  "launch.console": "skillgate console: {url}",
  "launch.logInCommand": "  log in: run `skillgate console --link` on this host for a one-time login link",
  "launch.logInLink": "  log in (one-time link, 15 minutes): {url}",
  "launch.notLoopback":
    "!!! WARNING: the web console listens on a non-loopback address (gateway.console.bind); other machines can reach it. !!!",
  "gateway.noAdapterStarted":
    "No chat adapter could start; see the log lines above for each platform's reason.",
  "agent.needsSecret": {
    one: "⚠️ The {name} skill needs {names}, which is not set. {hint}",
    other: "⚠️ The {name} skill needs {names}, which are not set. {hint}",
  },
  "agent.securityWarning": "⚠️ {name}: {warning}",
  "agent.skillsUnavailable": "Skills are unavailable here: {detail}",
  "agent.modelFailed": "The model could not answer: {detail}",
  "agent.noAnswer": "(The model gave no answer. Try rephrasing, or use /help for commands.)",
  // ── one-time secret form ────────────────────────────────────────────────────────────────────────────
  "form.error.title": "Error",
  "form.error.text": "Something went wrong; nothing was stored. Ask for a new form in the chat.",
  "form.notFound.title": "Not found",
  "form.notFound.text": "Not found.",
  "form.closed.title": "Form closed",
  "form.set.title": "Set {key}",
  "form.set.heading": "Set {key}",
  "form.set.intro":
    "For the skill {skill}. The value goes straight into the gateway's .env file; it is not shown in any chat.",
  "form.set.store": "Store",
  "form.set.once": "This form works once and closes 10 minutes after it was made.",
  "form.notAllowed.title": "Not allowed",
  "form.notAllowed.text": "Use the form.",
  "form.tooLarge.title": "Too large",
  "form.tooLarge.text": "The form was too large; nothing was stored.",
  "form.notStored.title": "Not stored",
  "form.stored.title": "Stored",
  "form.stored.text": "{key} set ✓. You can close this page.",
  // ── chat commands: help, whoami, skill ──────────────────────────────────────────────────────────────
  "help.summary": "list the commands and the skills you can load here",
  "help.arg.command": "a command to show in detail, e.g. curator",
  "help.noCommand": "No command `{command}`. Try `{help}`.",
  "help.commands": "Commands",
  "help.item": "`{usage}` — {summary}",
  "help.item.admins": "`{usage}` — {summary} (admins)",
  "help.options": "{line}\n  options: {options}",
  "help.details": "Details: `{command}`.",
  "help.skillsHidden": "Skills are hidden: {detail}",
  "help.noSkillsHere": "No skills are available here.",
  "help.emptyLibrary":
    "No skills are installed yet. Try the examples: `skillgate serve --demo` runs them on a temporary home, and `skillgate init --examples` installs them into this one.",
  "help.skillsHeading": "Skills ({count})",
  "help.skillItem": "`{command}` — {description}",
  "help.moreSkills": "… and {count} more: `{command}`",
  "whoami.summary": "show your platform:id and what you may run",
  "whoami.role.owner": "the local owner (admin)",
  "whoami.role.admin": "an admin (every command)",
  "whoami.role.stranger": "not on the allowed list",
  "whoami.role.user": "an allowed user (read-only commands)",
  "whoami.localTerminal": "local terminal",
  "whoami.you": "You are `{id}`: {role}.",
  "whoami.youNamed": "You are `{id}` ({name}): {role}.",
  "whoami.dm":
    "This direct chat is `{chat}`: put it in gateway.home_channel to get the maintenance summaries here.",
  "whoami.group":
    "This group is `{chat}`: put it in gateway.home_channel to post the maintenance summaries here, or in gateway.allowed_chats to let its members run the read-only commands.",
  "whoami.thread":
    "This thread's chat is `{chat}`: put it in gateway.home_channel to post the maintenance summaries here, or in gateway.allowed_chats to let its members run the read-only commands.",
  "skill.summary": "load a skill (or show one of its files) for this chat",
  "skill.arg.name": "the skill's name",
  "skill.arg.file": "a file inside the skill, e.g. references/api.md",
  "skill.noSuchSkill": "No skill named `{name}`. See `{list}`.",
  "skill.disabledFor":
    "The `{name}` skill is disabled for {where} (skills.disabled or skills.platform_disabled.{platform} in config.yaml). Ask an admin to enable it there.",
  "skill.thisTerminal": "this terminal",
  "skill.loaded": "Skill loaded: {name}",
  "skill.category": "Category: {category}",
  "skill.linkedFiles": "Linked files:",
  "skill.openOne": "Open one with `{command} <file>`.",
  "skill.securityWarnings": "⚠️ Security warnings:",
  "skill.couldNotLoad": "Skill '{name}' could not be loaded.",
  "skill.instruction": "Instruction: {instruction}",
  "skill.ready": "Readiness: ready.",
  "skill.setupNeeded": "Readiness: setup needed — {parts}. The skill is loaded anyway.",
  "skill.setupNotes": "see the skill's setup notes",
  "skill.missingEnv": {
    one: "missing environment variable {names}",
    other: "missing environment variables {names}",
  },
  "skill.missingFile": { one: "missing file {names}", other: "missing files {names}" },
  "skill.missingCommand": { one: "missing command {names}", other: "missing commands {names}" },
  "skill.settings": "Settings (skills.config in config.yaml):",
  // ── paging ──────────────────────────────────────────────────────────────────────────────────────────
  "paging.line": "Page {page} of {pages} ({first}–{last} of {total})",
  "paging.prev": "‹ Prev",
  "paging.next": "Next ›",
  // ── maintenance summary ─────────────────────────────────────────────────────────────────────────────
  "summary.line": "curator: {auto}",
  "summary.lineWithLlm": "curator: {auto}; llm: {llm}",
  "summary.auto": "auto: {changes}",
  "summary.autoDry": "dry-run auto: {changes}",
  "summary.markedStale": "{count} marked stale",
  "summary.archived": "{count} archived",
  "summary.reactivated": "{count} reactivated",
  "summary.noChanges": "no changes",
  "summary.wouldMarkStale": "would mark {count} stale",
  "summary.wouldArchive": "would archive {count}",
  "summary.wouldReactivate": "would reactivate {count}",
  "summary.nothingToChange": "nothing to change",
  "summary.llm.skipped": "skipped ({why})",
  "summary.llm.skippedPlain": "skipped",
  "summary.llm.why.off": "consolidation off",
  "summary.llm.why.noModel": "no model configured",
  "summary.llm.why.noCandidates": "no candidates",
  "summary.llm.why.stopping": "the process is shutting down",
  "summary.llm.error": "error ({error})",
  "summary.llm.noChange": "no change",
  "summary.llm.proposedNone": "proposed no changes",
  "summary.llm.proposed": "proposed: {changes}",
  "summary.llm.merged": "{count} merged into {umbrellas} umbrella(s)",
  "summary.llm.pruned": "{count} pruned",
  "summary.llm.added": "{count} new skill(s)",
  "summary.renameHead": "archived {count} skill(s):",
  "summary.renameHeadDry": "would archive {count} skill(s):",
  "summary.renameInto": "{name} → {into}",
  "summary.renamePruned": "{name} — pruned (stale)",
  "summary.renameMore": "… and {count} more",
  "summary.fullReport": "full report: `{command}`",
  "summary.pinHint": "keep an umbrella stable: `{command}`",
  "summary.pinHintStored": "keep an umbrella stable: {command}",
  "summary.stored": "{auto}; llm: {llm}",
  "summary.deferred":
    "deferred first run — curator seeded, will run after one interval; use `{command}` to preview now",
  "button.restore": "Restore {name}",
  "button.rollbackRun": "Roll back this run",
  // ── secrets command ─────────────────────────────────────────────────────────────────────────────────
  "secrets.badName": "`{key}` is not a variable name (letters, digits and _, not starting with a digit).",
  "secrets.undeclared":
    "No skill declares `{key}` (required_environment_variables, setup.collect_secrets or prerequisites.env_vars), so skillgate does not set it; add it to the .env file by hand if you need it.",
  "secrets.ask": "Value for {key} (hidden; used by {owners}): ",
  // ── command replies (curator, safety net, skills): a section file of their own ──────────────────────
  ...enCommands,
  ...enLibrary,
  ...enHub,
  ...enSearch,
} as const satisfies CatalogShape;
