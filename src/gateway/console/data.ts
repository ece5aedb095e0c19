/**
 * What the console's pages show, read straight from the home (reads only; every change goes through the
 * command registry in `actions.ts`): library rows with state, provenance, usage, readiness and
 * per-platform visibility; archived packages; hub installs. The curator's pages and the charts read
 * `curator-data.ts`.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import type { SkillgateConfig } from "../../config/config.js";
import { homePaths } from "../../config/home.js";
import { type Text, t } from "../../core/i18n/messages.js";
import { compareNames } from "../../core/name-order.js";
import { registeredPlatforms } from "../../core/platforms.js";
import { listArchived } from "../../curator/archive.js";
import { readArchiveOrigins } from "../../curator/archive-layout.js";
import { classify, loadProvenance, readCreatedByKeys } from "../../curator/provenance.js";
import { MAX_SKILL_MD_BYTES, readContained } from "../../skills/containment.js";
import { readHubLock } from "../../skills/hub/format.js";
import { envRequirements, missingEnv } from "../../skills/readiness.js";
import {
  commandOnPath,
  requiredCommands,
  resolveSettings,
  settingDeclarations,
} from "../../skills/settings.js";
import type { SkillEntry, SkillLibrary } from "../../skills/types.js";
import { UsageStore } from "../../skills/usage.js";
import {
  activityCount,
  emptyRecord,
  lastActivityAt,
  parseTimestamp,
  type UsageRecord,
} from "../../skills/usage-record.js";
import { type HiddenReason, hiddenReason } from "../../skills/visibility.js";

/** The chat platforms whose visibility the library page shows: every registered one. */
export function consolePlatforms(): string[] {
  return registeredPlatforms().map((platform) => platform.name);
}

const DAY_MS = 86_400_000;

/** Where a skill is shown, or why not. */
export interface PlatformVisibility {
  platform: string;
  visible: boolean;
  /** Why it is hidden (config key or OS gate); empty when visible. Resolved for the page's reader. */
  reason: Text;
}

/** One row of the library page. */
export interface LibraryRow {
  name: string;
  category: string | null;
  description: string;
  state: string;
  pinned: boolean;
  provenance: string;
  lastActivityAt: string | null;
  /** Whole days since the last activity (or creation), null when never. */
  idleDays: number | null;
  useCount: number;
  viewCount: number;
  patchCount: number;
  activity: number;
  /** Required secrets that are not set. */
  missingSecrets: string[];
  /** Required system commands not found on PATH. */
  missingCommands: string[];
  /** Declared settings (`skills.config.<key>`) with neither a value nor a default. */
  unsetSettings: string[];
  visibility: PlatformVisibility[];
  onDisk: boolean;
  /** `skills/<relPath>` for live skills. */
  relPath: string | null;
}

/** Everything the console reads from one home. */
export interface ConsoleData {
  home: string;
  config: () => SkillgateConfig;
  library: SkillLibrary;
  env: NodeJS.ProcessEnv;
  now: () => Date;
}

/** How the console names each reason of the one visibility rule (`hiddenReason`). */
function reasonText(reason: HiddenReason, platform: string): Text {
  switch (reason) {
    case "os":
      return t("console.hidden.os");
    case "environment":
      return t("console.hidden.environment");
    case "disabled":
      return "skills.disabled";
    case "platform_disabled":
      return `skills.platform_disabled.${platform}`;
  }
}

/** Where a skill is shown, surface by surface, by the one visibility rule (config errors named). */
function visibilityOf(entry: SkillEntry | undefined, config: SkillgateConfig): PlatformVisibility[] {
  return ["terminal", ...consolePlatforms()].map((platform) => {
    if (!entry) return { platform, visible: false, reason: t("console.hidden.notOnDisk") };
    try {
      const hidden = hiddenReason(
        entry.name,
        entry.frontmatter,
        platform === "terminal" ? null : platform,
        config,
      );
      return { platform, visible: hidden === null, reason: hidden ? reasonText(hidden, platform) : "" };
    } catch (error) {
      return {
        platform,
        visible: false,
        reason: t("console.hidden.configError", { detail: (error as Error).message }),
      };
    }
  });
}

function idleDaysOf(record: UsageRecord, now: Date): number | null {
  for (const value of [lastActivityAt(record), record.created_at]) {
    const ms = typeof value === "string" ? parseTimestamp(value) : undefined;
    if (ms !== undefined) return Math.max(0, Math.floor((now.getTime() - ms) / DAY_MS));
  }
  return null;
}

/** Every skill on disk plus every usage record without one (archived skills), unsorted. */
export async function libraryRows(data: ConsoleData): Promise<LibraryRow[]> {
  const config = data.config();
  const all = await data.library.all();
  const store = new UsageStore(homePaths(data.home).skills);
  const records = await store.read();
  const provenance = await loadProvenance(data.home, all);
  const createdByKeys = await readCreatedByKeys(data.home);
  const now = data.now();
  const row = (name: string, entry: SkillEntry | undefined, record: UsageRecord): LibraryRow => {
    let missingSecrets: string[] = [];
    let missingCommands: string[] = [];
    let unsetSettings: string[] = [];
    if (entry) {
      try {
        const requirements = envRequirements(entry.frontmatter);
        if (requirements.length > 0) missingSecrets = missingEnv(requirements, data.home, data.env);
        missingCommands = requiredCommands(entry.frontmatter).filter(
          (command) => !commandOnPath(command, data.env),
        );
        const declarations = settingDeclarations(entry.frontmatter);
        if (declarations.length > 0)
          unsetSettings = resolveSettings(declarations, config.skills.settings, data.env)
            .filter((setting) => setting.source === "unset")
            .map((setting) => setting.key);
      } catch {
        missingSecrets = [];
      }
    }
    return {
      name,
      category: entry?.category ?? null,
      description: entry?.description ?? "",
      state: record.state,
      pinned: record.pinned,
      provenance: classify(name, entry, records[name], createdByKeys.get(name) ?? false, provenance, config)
        .kind,
      lastActivityAt: lastActivityAt(record),
      idleDays: idleDaysOf(record, now),
      useCount: record.use_count,
      viewCount: record.view_count,
      patchCount: record.patch_count,
      activity: activityCount(record),
      missingSecrets,
      missingCommands,
      unsetSettings,
      visibility: visibilityOf(entry, config),
      onDisk: entry !== undefined,
      relPath: entry ? entry.relPath || entry.name : null,
    };
  };
  const rows = all.map((entry) => row(entry.name, entry, records[entry.name] ?? emptyRecord()));
  const present = new Set(all.map((entry) => entry.name));
  // A skill that is not on disk keeps the category it was archived from (skillgate records it).
  const origins = await readArchiveOrigins(data.home);
  for (const [name, record] of Object.entries(records)) {
    if (present.has(name)) continue;
    const from = origins[name];
    const category = from && path.posix.dirname(from) !== "." ? path.posix.dirname(from) : null;
    rows.push({ ...row(name, undefined, record), category });
  }
  return rows;
}

/** Library page query: search text, filters, sort, page. */
export interface LibraryQuery {
  q: string;
  state: string;
  category: string;
  platform: string;
  provenance: string;
  sort: "name" | "activity" | "idle" | "category" | "state";
  dir: "asc" | "desc";
  page: number;
}

/** Rows shown per library page. */
export const PAGE_SIZE = 100;

/** Filters, sorts and pages rows for the library page. */
export function queryRows(
  rows: LibraryRow[],
  query: LibraryQuery,
): { rows: LibraryRow[]; total: number; pages: number; page: number } {
  const q = query.q.trim().toLowerCase();
  const filtered = rows.filter((row) => {
    if (q && !row.name.toLowerCase().includes(q) && !row.description.toLowerCase().includes(q)) return false;
    if (query.state === "pinned" ? !row.pinned : query.state && row.state !== query.state) return false;
    if (query.category && (row.category ?? "") !== query.category) return false;
    if (query.provenance && row.provenance !== query.provenance) return false;
    if (query.platform) {
      const seen = row.visibility.find((item) => item.platform === query.platform);
      if (!seen?.visible) return false;
    }
    return true;
  });
  const byName = (a: LibraryRow, b: LibraryRow) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const compare: Record<LibraryQuery["sort"], (a: LibraryRow, b: LibraryRow) => number> = {
    name: byName,
    activity: (a, b) => a.activity - b.activity || byName(a, b),
    idle: (a, b) => (a.idleDays ?? Number.MAX_SAFE_INTEGER) - (b.idleDays ?? Number.MAX_SAFE_INTEGER),
    category: (a, b) => (a.category ?? "").localeCompare(b.category ?? "") || byName(a, b),
    state: (a, b) => a.state.localeCompare(b.state) || byName(a, b),
  };
  const sign = query.dir === "desc" ? -1 : 1;
  filtered.sort((a, b) => sign * compare[query.sort](a, b) || byName(a, b));
  const pages = Math.max(1, Math.ceil(filtered.length / PAGE_SIZE));
  const page = Math.min(Math.max(1, query.page), pages);
  return {
    rows: filtered.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE),
    total: filtered.length,
    pages,
    page,
  };
}

/** An archived package as the skill page shows it. */
export interface ArchivedSkill {
  /** The name `restore` takes (its path under `.archive/`). */
  archivedAs: string;
  /** The category it lived in and goes back to (null: the top level, or unknown). */
  category: string | null;
  /** Where `restore` puts it, relative to skills/. */
  restoreTo: string;
  /** Its files, relative to the package (at most `ARCHIVED_FILES_SHOWN`). */
  files: string[];
  /** More files than were listed. */
  moreFiles: number;
  /** Its SKILL.md, read under the containment rule (undefined when it cannot be). */
  content: string | undefined;
}

/** Files of an archived package listed on its page. */
const ARCHIVED_FILES_SHOWN = 200;

/** The archived package of skill `name` (the first, when several have that name), or undefined. */
export async function archivedSkill(home: string, name: string): Promise<ArchivedSkill | undefined> {
  const item = (await listArchived(home)).find((candidate) => candidate.skillName === name);
  if (!item) return undefined;
  const files: string[] = [];
  let moreFiles = 0;
  const walk = async (dir: string, prefix: string): Promise<void> => {
    const children = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    children.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const child of children) {
      const rel = prefix ? `${prefix}/${child.name}` : child.name;
      // Links are listed, never followed: an archived package is untrusted content too.
      if (child.isDirectory()) await walk(path.join(dir, child.name), rel);
      else if (files.length < ARCHIVED_FILES_SHOWN) files.push(rel);
      else moreFiles += 1;
    }
  };
  await walk(item.dir, "");
  let content: string | undefined;
  try {
    content = readContained(item.dir, path.join(item.dir, "SKILL.md"), {
      label: "SKILL.md",
      skill: name,
      limit: MAX_SKILL_MD_BYTES,
    }).bytes.toString("utf8");
  } catch {
    content = undefined;
  }
  return {
    archivedAs: item.archivedAs,
    category: item.category,
    restoreTo: item.restoreTo,
    files,
    moreFiles,
    content,
  };
}

/** A hub-installed skill as the library page lists it (from `skills/.hub/lock.json`). */
export interface HubSkillRow {
  name: string;
  source: string;
  identifier: string;
  version: string | null;
  trust: string;
  verdict: string;
  installedAt: string | null;
  updatedAt: string | null;
}

/** The hub skills of a home by name, or why `lock.json` could not be read (then the page says so). */
export async function hubSkills(
  home: string,
): Promise<{ ok: true; rows: HubSkillRow[] } | { ok: false; file: string; reason: string }> {
  const read = await readHubLock(home);
  if (!read.ok) return { ok: false, file: "skills/.hub/lock.json", reason: read.reason };
  const text = (value: unknown): string => (typeof value === "string" ? value : "");
  const rows = Object.entries(read.lock.installed)
    .filter(([, entry]) => entry !== null && typeof entry === "object")
    .map(([name, entry]) => {
      const version = entry.metadata?.version;
      return {
        name,
        source: text(entry.source),
        identifier: text(entry.identifier),
        version: typeof version === "string" || typeof version === "number" ? String(version) : null,
        trust: text(entry.trust_level),
        verdict: text(entry.scan_verdict),
        installedAt: text(entry.installed_at) || null,
        updatedAt: text(entry.updated_at) || null,
      };
    })
    .sort((a, b) => compareNames(a.name, b.name));
  return { ok: true, rows };
}
