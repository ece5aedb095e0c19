/**
 * The English texts of skills from a hub: installing, updating and removing hub skills, the scan's
 * verdict, the guarded network client's refusals and the hub's files. Spread into `en`; vocabulary of the
 * Chinese side: `glossary.md`.
 */
import type { CatalogShape } from "./entries.js";

export const enHub = {
  "hub.lockCorrupt":
    "{file} cannot be read ({reason}); fix or remove it before installing, updating or removing hub skills.",
  "hub.badName":
    "'{name}' is not a usable skill name for a hub install (one folder name, no '..', no leading dot).",
  "hub.badInstallPath": "the install path '{path}' of '{name}' would leave the skills folder; refused.",
  "hub.net.badUrl": "'{url}' is not a URL a hub skill can be fetched from.",
  "hub.net.scheme":
    "refused to fetch {url}: only https is allowed, and plain http only for a host:port listed in skills.hub.allowed_hosts ({hostPort} is not).",
  "hub.net.userinfo": "refused to fetch from {hostPort}: a URL may not carry a user name or password.",
  "hub.net.private":
    "refused to fetch from {hostPort}: it is a private or local address ({address}); list {hostPort} in skills.hub.allowed_hosts if it is your registry.",
  "hub.net.tooManyRedirects": "refused {url}: more than {max} redirects.",
  "hub.net.redirectNoLocation": "{url} answered with a redirect that names no destination.",
  "hub.net.tooLarge": "the answer from {hostPort} is over the limit of {limit} bytes; refused.",
  "hub.net.timeout": "{hostPort} did not answer within {seconds} seconds.",
  "hub.net.failed": "could not fetch from {hostPort}: {cause}",
  "hub.net.status": "{url} answered HTTP {status}.",
  "hub.net.notJson": "{url} did not answer with JSON.",
  "hub.archive.unreadable": "the download is not a readable .tar.gz archive.",
  "hub.archive.tooLarge":
    "the archive unpacks to more than {limit} bytes (or holds a file over the per-file limit); refused.",
  "hub.archive.tooManyMembers": "the archive holds more than {limit} entries; refused.",
  "hub.source.unknown":
    "'{source}' is not a hub source: give owner/repo/path/to/skill (GitHub), clawhub:<slug>, or an https URL of a SKILL.md or a .tar.gz.",
  "hub.source.badSlug":
    "'{source}' is not a ClawHub skill (clawhub:<slug>, letters, digits, '.', '_' and '-').",
  "hub.source.noSkillMd": "{where} holds no SKILL.md, so it is not a skill.",
  "hub.source.noName":
    "the skill at {url} has no name: its SKILL.md declares no `name:` and the URL gives none.",
  "hub.source.githubStatus":
    "GitHub answered HTTP {status} for {identifier}; check the owner, repository and path.",
  "hub.source.clawhubNoVersion": "ClawHub has no published version of '{slug}'.",
  "hub.refusedDangerous": {
    one: "'{name}' was not installed: the scan found {count} problem and judged it dangerous.",
    other: "'{name}' was not installed: the scan found {count} problems and judged it dangerous.",
  },
  "hub.alreadyHub":
    "'{name}' is already installed from a hub; use `skills update {name}` to get its newest version.",
  "hub.nameTaken":
    "a skill named '{name}' is already in the library; nothing was replaced. Install it under another name with --name.",
  "hub.update.nameTaken":
    "the new version of '{name}' would take over '{other}', another skill in the library; nothing was changed. Remove or rename '{other}' first, or keep this version.",
  "hub.recovery.finished": "Finished the hub change of '{name}' that a stopped process left half done.",
  "hub.recovery.undone":
    "Undid the hub change of '{name}' that a stopped process left half done; the library is as before it.",
  "hub.notHub": "'{name}' is not a hub-installed skill (see `skills hub list`).",
  "hub.locallyModified":
    "the files of '{name}' were changed since it was installed; an update would overwrite those changes. Repeat with --force to replace them.",
  "fence.what.hubInstall": "the hub install of '{skill}'",
  "fence.what.hubUpdate": "the hub update of '{skill}'",
  "fence.what.hubUninstall": "the removal of hub skill '{skill}'",
  "fence.what.hubTaps": "a change of the hub's taps",
  "hub.summary.install": "Install a skill from a hub (GitHub path, clawhub:<slug>, or a URL), scanned first",
  "hub.summary.update": "Update hub-installed skills from their upstream (shows what changed, scans again)",
  "hub.summary.uninstall": "Remove a hub-installed skill (exactly the files it installed)",
  "hub.summary.hub": "The hub: list | search <query> | taps [add <owner/repo> [path] | remove <owner/repo>]",
  "hub.arg.action": "list, search or taps",
  "hub.arg.words": "the query, or the taps action and its repository",
  "hub.usage":
    "Use `{command} list`, `{command} search <query>`, `{command} taps`, `{command} taps add <owner/repo> [path]` or `{command} taps remove <owner/repo>`.",
  "hub.arg.source": "owner/repo/path/to/skill, clawhub:<slug>, or an https URL of a SKILL.md or .tar.gz",
  "hub.opt.hub": "search the hub instead of the library",
  "hub.opt.name": "install under this name (when the library already has one by the package's name)",
  "hub.opt.category": "install into this category folder",
  "hub.opt.all": "every hub-installed skill",
  "hub.opt.force": "replace files that were changed by hand since the install",
  "hub.opt.limit": "at most this many results",
  "hub.col.name": "name",
  "hub.col.source": "source",
  "hub.col.version": "version",
  "hub.col.trust": "trust",
  "hub.col.install": "install with",
  "hub.col.verdict": "scan",
  "hub.col.path": "folder",
  "hub.search.none": "No hub skill matches '{query}'.",
  "hub.search.heading": { one: "{count} hub skill for '{query}'", other: "{count} hub skills for '{query}'" },
  "hub.search.hint": "Install one with `{command} <install with>`.",
  "hub.search.failed": "{hub} could not be searched: {reason}",
  "hub.finding": "{severity} {file}: {description} ({match})",
  "hub.verdict": { one: "{verdict} ({count} finding)", other: "{verdict} ({count} findings)" },
  "hub.install.card": {
    one: "Install '{name}'?\nsource: {source}\nversion: {version} · trust: {trust}\ninto: {path}\n{count} file: {files}\nscan: {verdict}{findings}",
    other:
      "Install '{name}'?\nsource: {source}\nversion: {version} · trust: {trust}\ninto: {path}\n{count} files: {files}\nscan: {verdict}{findings}",
  },
  "hub.install.done": "Installed '{name}' into {path} (scan: {verdict}, {hash}).",
  "hub.update.which": "Name the skill to update, or give --all.",
  "hub.update.card": "Update these hub skills?{lines}",
  "hub.update.upToDate": "'{name}' is up to date.",
  "hub.update.unavailable": "'{name}' could not be checked: {reason}",
  "hub.update.changed":
    "'{name}': upstream changed ({from} → {to}), version {version}; added: {added}; removed: {removed}; changed: {changed}; scan: {verdict}",
  "hub.update.done": "Updated '{name}' ({from} → {to}, scan: {verdict}).",
  "hub.uninstall.card": {
    one: "Remove hub skill '{name}' ({source}) from {path}? Its {count} recorded file goes.{note}",
    other: "Remove hub skill '{name}' ({source}) from {path}? Its {count} recorded files go.{note}",
  },
  "hub.uninstall.modified": " Some of them were changed by hand since the install.",
  "hub.uninstall.done": {
    one: "Removed '{name}' ({count} file).",
    other: "Removed '{name}' ({count} files).",
  },
  "hub.uninstall.doneKept": {
    one: "Removed '{name}' ({count} file); kept files it did not install: {kept}.",
    other: "Removed '{name}' ({count} files); kept files it did not install: {kept}.",
  },
  "hub.list.none": "No skills are installed from a hub.",
  "hub.console.heading": "Installed from a hub",
  "hub.console.identifier": "identifier",
  "hub.console.installed": "installed",
  "hub.console.unreadable": "{file} cannot be read ({reason}); the hub skills are not shown.",
  "hub.list.heading": { one: "{count} hub-installed skill", other: "{count} hub-installed skills" },
  "hub.taps.none": "No taps yet; add one with `{command} owner/repo [path]`.",
  "hub.taps.badRepo": "'{repo}' is not a GitHub repository (owner/repo).",
  "hub.taps.exists": "{repo} is already a tap.",
  "hub.taps.added": "Added tap {repo} ({path}).",
  "hub.taps.missing": "{repo} is not a tap.",
  "hub.taps.removed": "Removed tap {repo}.",
} as const satisfies CatalogShape;
