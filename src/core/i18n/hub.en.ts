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
  "hub.notHub": "'{name}' is not a hub-installed skill (see `skills hub list`).",
  "hub.locallyModified":
    "the files of '{name}' were changed since it was installed; an update would overwrite those changes. Repeat with --force to replace them.",
  "fence.what.hubInstall": "the hub install of '{skill}'",
  "fence.what.hubUpdate": "the hub update of '{skill}'",
  "fence.what.hubUninstall": "the removal of hub skill '{skill}'",
} as const satisfies CatalogShape;
