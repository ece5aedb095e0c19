/**
 * A skill's versions, read back from the audit log: every logged mutation keeps the before and after
 * content of the files it touched as blobs, so the SKILL.md texts a skill had — when, by whom, with which
 * `version` field — can be listed and compared without any other store. Also the skills whose content a
 * curator run changed, for the summary the home chat gets.
 */
import path from "node:path";
import { t } from "../core/i18n/messages.js";
import { compareNames } from "../core/name-order.js";
import type { Reply } from "../core/reply.js";
import { parseSkillMd } from "../skills/frontmatter.js";
import { readBlob } from "./blobs.js";
import { type LedgerActor, type LedgerEntry, type LedgerFile, readEntries } from "./ledger.js";

/** One SKILL.md text a skill had, from the logged mutation that wrote it. */
export interface SkillVersion {
  /** The audit-log entry that wrote it. */
  entryId: string;
  /** When (ISO). */
  ts: string;
  actor: LedgerActor;
  action: string;
  /** The blob of SKILL.md after the mutation (null: the mutation removed it). */
  digest: string | null;
  /** The blob of SKILL.md before it (null: there was none). */
  previousDigest: string | null;
  /** The `version` field after and before (null: none). */
  version: string | null;
  previousVersion: string | null;
}

/** A skill whose content a set of mutations changed, with its `version` field before and after. */
export interface ContentChange {
  name: string;
  from: string | null;
  to: string | null;
}

/** The skill's own SKILL.md among captured files: the one nearest the root (a package may nest others). */
function skillMdOf(files: LedgerFile[]): LedgerFile | undefined {
  return files
    .filter((file) => path.basename(file.path) === "SKILL.md")
    .sort((a, b) => a.path.split(path.sep).length - b.path.split(path.sep).length)[0];
}

function digestOf(file: LedgerFile | undefined): string | null {
  return file && "sha256" in file ? file.sha256 : null;
}

/** The `version` field of a SKILL.md text, or null. */
export function versionField(text: string): string | null {
  const version = parseSkillMd(text).frontmatter.version;
  return typeof version === "string" || typeof version === "number" ? String(version) : null;
}

/** The text of a SKILL.md blob ("" when the blob is gone: collected, or never stored). */
export async function skillText(home: string, digest: string | null): Promise<string> {
  if (!digest) return "";
  try {
    return (await readBlob(home, digest)).toString("utf8");
  } catch {
    return "";
  }
}

async function versionOfBlob(home: string, digest: string | null, cache: Map<string, string | null>) {
  if (!digest) return null;
  if (!cache.has(digest)) cache.set(digest, versionField(await skillText(home, digest)));
  return cache.get(digest) ?? null;
}

/** The SKILL.md change an entry made, or undefined when its SKILL.md content did not change. */
function skillMdChange(entry: LedgerEntry): { before: string | null; after: string | null } | undefined {
  const before = digestOf(skillMdOf(entry.before));
  const after = digestOf(skillMdOf(entry.after));
  // Unchanged files are dropped from an entry; a moved package (archive, restore) keeps its digest.
  if (before === after) return undefined;
  return { before, after };
}

/** The versions of a skill, oldest first: each logged mutation that changed its SKILL.md. */
export async function skillVersions(home: string, name: string): Promise<SkillVersion[]> {
  const cache = new Map<string, string | null>();
  const versions: SkillVersion[] = [];
  for (const entry of await readEntries(home)) {
    if (entry.skill !== name) continue;
    const change = skillMdChange(entry);
    if (!change) continue;
    versions.push({
      entryId: entry.id,
      ts: entry.ts,
      actor: entry.actor,
      action: entry.action,
      digest: change.after,
      previousDigest: change.before,
      version: await versionOfBlob(home, change.after, cache),
      previousVersion: await versionOfBlob(home, change.before, cache),
    });
  }
  return versions;
}

/**
 * Skills whose SKILL.md a curator's mutations changed since `since` (ISO), each once with its first and
 * last `version`: what a run's summary lists. Skills it created or removed are not content changes.
 */
export async function curatorContentChanges(home: string, since: string): Promise<ContentChange[]> {
  const cache = new Map<string, string | null>();
  const changes = new Map<string, { before: string | null; after: string | null }>();
  for (const entry of await readEntries(home)) {
    if (entry.actor !== "curator" || entry.ts < since || !entry.skill) continue;
    const change = skillMdChange(entry);
    if (!change) continue;
    const seen = changes.get(entry.skill);
    changes.set(entry.skill, { before: seen ? seen.before : change.before, after: change.after });
  }
  const out: ContentChange[] = [];
  for (const [name, { before, after }] of changes) {
    if (before === null || after === null || before === after) continue;
    out.push({
      name,
      from: await versionOfBlob(home, before, cache),
      to: await versionOfBlob(home, after, cache),
    });
  }
  return out.sort((a, b) => compareNames(a.name, b.name));
}

/** `summary` with the list of skills whose content changed after its text (unchanged when none did). */
export function withContentChanges(summary: Reply, changes: ContentChange[]): Reply {
  if (changes.length === 0) return summary;
  const items = changes.map(({ name, from, to }) =>
    from !== null && to !== null && from !== to
      ? t("summary.contentChangedVersion", { name, from, to })
      : name,
  );
  return {
    ...summary,
    blocks: [
      ...summary.blocks,
      { kind: "paragraph", text: t("summary.contentChanged") },
      { kind: "list", items },
    ],
  };
}
