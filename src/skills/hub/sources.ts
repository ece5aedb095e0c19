/**
 * Where hub skills come from, all fetched through the guarded client (`net.ts`):
 *
 * - a GitHub repository path, `owner/repo/path/to/skill` (also `github:…` or a `https://github.com/…/tree/
 *   <ref>/…` link): the repository's archive (`GET /repos/{owner}/{repo}/tarball[/{ref}]`, which redirects to
 *   the archive host; a token from `GITHUB_TOKEN` goes only to the API origin), unpacked in memory and cut
 *   to the skill's folder. Lock identifier and source as Hermes' `GitHubSource` records them.
 * - a tap, a repository path that lists skill folders (`taps.json`), listed with the contents API
 *   (`GET /repos/{owner}/{repo}/contents/{path}`) and each folder's `SKILL.md` read for search.
 * - a plain URL to a `SKILL.md` or to a `.tar.gz` / `.tgz` archive (source `url`).
 * - ClawHub's registry API (`clawhub:<slug>`): search `GET /skills?search=&limit=`, details
 *   `GET /skills/{slug}`, files `GET /skills/{slug}/versions/{version}`, the shapes Hermes' ClawHub adapter
 *   reads (`tools/skills_hub_clawhub.py`: `search`, `_skill_detail`, `_resolve_latest_version`,
 *   `_extract_files`). Every ClawHub skill is community trust, as in Hermes.
 */
import path from "node:path";
import { SkillgateError } from "../../core/errors.js";
import { type Text, t } from "../../core/i18n/messages.js";
import { parseSkillMd } from "../frontmatter.js";
import { readTarGz } from "./archive.js";
import { normalizeBundlePath, type PackageFile, type Tap, type TrustLevel } from "./format.js";
import { type HubRequestOptions, hubGet, hubGetJson } from "./net.js";
import type { OddEntry } from "./scan.js";

/** Repositories Hermes' guard trusts (`tools/skills_guard.py`, `TRUSTED_REPOS`). */
const TRUSTED_REPOS = new Set(["openai/skills", "anthropics/skills", "huggingface/skills", "NVIDIA/skills"]);

/** The hub a source names. */
export type HubSourceKind = "github" | "clawhub" | "url";

/** A parsed `<source>` argument. */
export interface HubSourceRef {
  kind: HubSourceKind;
  /** What the lock records as `identifier` (GitHub: `owner/repo/path`; ClawHub: the slug; url: the URL). */
  identifier: string;
  /** GitHub: the branch or tag of a `/tree/<ref>/` link. */
  ref?: string;
}

/** Where and how the hub is reached. */
export interface HubEnv {
  allowedHosts: readonly string[];
  githubApi: string;
  clawhubApi: string;
  /** A GitHub token (`GITHUB_TOKEN`/`GH_TOKEN`), sent only to `githubApi`'s origin. */
  githubToken?: string;
  signal?: AbortSignal;
}

/** A package downloaded (not yet scanned or installed). */
export interface FetchedPackage {
  name: string;
  files: PackageFile[];
  /** Entries of an archive that were not unpacked (links, devices, paths out of the package). */
  odd: OddEntry[];
  source: HubSourceKind;
  identifier: string;
  trustLevel: TrustLevel;
  /** A URL a person can open to see the upstream. */
  sourceUrl: string;
  /** The upstream's version, when it says (ClawHub's latest version, or `version:` in SKILL.md). */
  version?: string;
  metadata: Record<string, unknown>;
}

/** One search result. */
export interface SearchHit {
  name: string;
  description: string;
  source: HubSourceKind;
  identifier: string;
  trustLevel: TrustLevel;
  version?: string;
}

function refused(text: Text): SkillgateError {
  return new SkillgateError("hub.bad_source", text, 2);
}

/** Parses the `<source>` of `skills install` (see the file's comment for the forms). */
export function parseSourceRef(text: string): HubSourceRef {
  const value = text.trim();
  if (/^clawhub[:/]/i.test(value)) {
    const slug = value.replace(/^clawhub[:/]/i, "");
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(slug)) throw refused(t("hub.source.badSlug", { source: text }));
    return { kind: "clawhub", identifier: slug };
  }
  if (/^https?:\/\//i.test(value)) {
    const url = new URL(value);
    const tree = /^\/([^/]+)\/([^/]+)\/tree\/([^/]+)\/(.+?)\/?$/.exec(url.pathname);
    if (url.hostname === "github.com" && tree) {
      const [, owner, repo, ref, rest] = tree as unknown as [string, string, string, string, string];
      return { kind: "github", identifier: `${owner}/${repo}/${rest}`, ref };
    }
    return { kind: "url", identifier: url.href };
  }
  const github = value.replace(/^github:/i, "");
  const parts = github.split("/").filter((part) => part !== "");
  if (
    parts.length >= 3 &&
    parts.every((part) => /^[A-Za-z0-9._-]+$/.test(part) && part !== ".." && part !== ".")
  )
    return { kind: "github", identifier: parts.join("/") };
  throw refused(t("hub.source.unknown", { source: text }));
}

function requestOptions(env: HubEnv, extra: Partial<HubRequestOptions> = {}): HubRequestOptions {
  return { allowedHosts: env.allowedHosts, ...(env.signal ? { signal: env.signal } : {}), ...extra };
}

function githubOptions(env: HubEnv, extra: Partial<HubRequestOptions> = {}): HubRequestOptions {
  return requestOptions(env, {
    headers: { accept: "application/vnd.github+json" },
    ...(env.githubToken ? { credentialHeaders: { authorization: `Bearer ${env.githubToken}` } } : {}),
    ...extra,
  });
}

/** Downloads the package a source names. */
export async function fetchPackage(ref: HubSourceRef, env: HubEnv): Promise<FetchedPackage> {
  if (ref.kind === "github") return fetchGithub(ref, env);
  if (ref.kind === "clawhub") return fetchClawhub(ref.identifier, env);
  return fetchUrl(ref.identifier, env);
}

function frontmatterOf(files: readonly PackageFile[]): Record<string, unknown> {
  const skillMd = files.find((file) => file.path === "SKILL.md");
  return skillMd ? parseSkillMd(skillMd.bytes.toString("utf8")).frontmatter : {};
}

function versionOf(frontmatter: Record<string, unknown>): string | undefined {
  const version = frontmatter.version;
  return typeof version === "string" || typeof version === "number" ? String(version) : undefined;
}

function requireSkillMd(files: readonly PackageFile[], where: string): void {
  if (!files.some((file) => file.path === "SKILL.md"))
    throw new SkillgateError("hub.no_skill_md", t("hub.source.noSkillMd", { where }));
}

async function fetchGithub(ref: HubSourceRef, env: HubEnv): Promise<FetchedPackage> {
  const [owner, repo, ...rest] = ref.identifier.split("/") as [string, string, ...string[]];
  const skillPath = rest.join("/");
  const suffix = ref.ref ? `/${encodeURIComponent(ref.ref)}` : "";
  const response = await hubGet(
    `${env.githubApi}/repos/${owner}/${repo}/tarball${suffix}`,
    githubOptions(env, { maxBytes: 20 * 1024 * 1024 }),
  );
  if (response.status !== 200)
    throw new SkillgateError(
      "hub.not_found",
      t("hub.source.githubStatus", { identifier: ref.identifier, status: String(response.status) }),
    );
  const archive = await readTarGz(response.body);
  // GitHub's archives hold one top folder (`owner-repo-sha/`); the skill is the folder below it.
  const prefix = `${skillPath}/`;
  const files: PackageFile[] = [];
  const odd: OddEntry[] = [];
  for (const file of archive.files) {
    const inner = file.path.split("/").slice(1).join("/");
    if (inner.startsWith(prefix)) files.push({ path: inner.slice(prefix.length), bytes: file.bytes });
  }
  for (const entry of archive.odd) {
    const inner = entry.path.split("/").slice(1).join("/");
    if (entry.kind === "escape") odd.push(entry);
    else if (inner.startsWith(prefix)) odd.push({ ...entry, path: inner.slice(prefix.length) });
  }
  requireSkillMd(files, ref.identifier);
  const name = skillPath.split("/").at(-1) as string;
  const version = versionOf(frontmatterOf(files));
  return {
    name,
    files,
    odd,
    source: "github",
    identifier: ref.identifier,
    trustLevel: TRUSTED_REPOS.has(`${owner}/${repo}`) ? "trusted" : "community",
    sourceUrl: `https://github.com/${owner}/${repo}/tree/${ref.ref ?? "HEAD"}/${skillPath}`,
    ...(version ? { version } : {}),
    metadata: {},
  };
}

async function fetchUrl(url: string, env: HubEnv): Promise<FetchedPackage> {
  const response = await hubGet(url, requestOptions(env, { maxBytes: 20 * 1024 * 1024 }));
  if (response.status !== 200)
    throw new SkillgateError(
      "hub.not_found",
      t("hub.net.status", { url: response.url, status: String(response.status) }),
    );
  const pathname = new URL(url).pathname;
  let files: PackageFile[];
  let odd: OddEntry[] = [];
  if (/\.(?:tar\.gz|tgz)$/i.test(pathname)) {
    const archive = await readTarGz(response.body);
    ({ files, odd } = stripCommonTop(archive.files, archive.odd));
  } else {
    files = [{ path: "SKILL.md", bytes: response.body }];
  }
  requireSkillMd(files, url);
  const frontmatter = frontmatterOf(files);
  const declared = typeof frontmatter.name === "string" ? frontmatter.name.trim() : "";
  const fromUrl = path.posix.basename(path.posix.dirname(pathname));
  const archiveName = path.posix.basename(pathname).replace(/\.(?:tar\.gz|tgz)$/i, "");
  const name = declared || (/\.(?:tar\.gz|tgz)$/i.test(pathname) ? archiveName : fromUrl);
  if (!/^[a-z0-9][a-z0-9._-]*$/i.test(name)) throw refused(t("hub.source.noName", { url }));
  const version = versionOf(frontmatter);
  return {
    name,
    files,
    odd,
    source: "url",
    identifier: url,
    trustLevel: "community",
    sourceUrl: url,
    ...(version ? { version } : {}),
    metadata: { url },
  };
}

/** An archive whose every member sits in one top folder holding SKILL.md is that folder's package. */
function stripCommonTop(files: PackageFile[], odd: OddEntry[]): { files: PackageFile[]; odd: OddEntry[] } {
  if (files.some((file) => file.path === "SKILL.md")) return { files, odd };
  const tops = new Set(files.map((file) => file.path.split("/")[0]));
  const [top] = [...tops];
  if (tops.size !== 1 || !files.some((file) => file.path === `${top}/SKILL.md`)) return { files, odd };
  const cut = (p: string) => (p.startsWith(`${top}/`) ? p.slice(`${top}/`.length) : p);
  return {
    files: files.map((file) => ({ path: cut(file.path), bytes: file.bytes })),
    odd: odd.map((entry) => (entry.kind === "escape" ? entry : { ...entry, path: cut(entry.path) })),
  };
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** ClawHub nests a skill's fields under `skill` beside `latestVersion` and `owner`. */
function clawhubSkill(data: unknown): Record<string, unknown> | undefined {
  const doc = asRecord(data);
  if (!doc) return undefined;
  const nested = asRecord(doc.skill);
  if (!nested) return doc;
  return {
    ...nested,
    latestVersion: nested.latestVersion ?? doc.latestVersion,
    owner: nested.owner ?? doc.owner,
  };
}

function clawhubVersion(skill: Record<string, unknown>): string | undefined {
  const latest = asRecord(skill.latestVersion);
  const tags = asRecord(skill.tags);
  const version = latest?.version ?? tags?.latest;
  return typeof version === "string" && version !== "" ? version : undefined;
}

async function fetchClawhub(slug: string, env: HubEnv): Promise<FetchedPackage> {
  const base = env.clawhubApi;
  const skill = clawhubSkill(
    await hubGetJson(`${base}/skills/${encodeURIComponent(slug)}`, requestOptions(env)),
  );
  const version = skill ? clawhubVersion(skill) : undefined;
  if (!skill || !version)
    throw new SkillgateError("hub.not_found", t("hub.source.clawhubNoVersion", { slug }));
  const data = asRecord(
    await hubGetJson(
      `${base}/skills/${encodeURIComponent(slug)}/versions/${encodeURIComponent(version)}`,
      requestOptions(env),
    ),
  );
  const listed = Array.isArray(data?.files) ? data?.files : asRecord(data?.version)?.files;
  const files: PackageFile[] = [];
  const odd: OddEntry[] = [];
  for (const item of Array.isArray(listed) ? listed : []) {
    const entry = asRecord(item);
    const name =
      typeof entry?.path === "string" ? entry.path : typeof entry?.name === "string" ? entry.name : undefined;
    if (!name || typeof entry?.content !== "string") continue;
    const safe = normalizeBundlePath(name, true);
    if (safe === null) odd.push({ path: name, kind: "escape" });
    else files.push({ path: safe, bytes: Buffer.from(entry.content, "utf8") });
  }
  requireSkillMd(files, `clawhub:${slug}`);
  const owner = asRecord(skill.owner)?.handle ?? skill.owner;
  return {
    name: slug,
    files,
    odd,
    source: "clawhub",
    identifier: slug,
    trustLevel: "community",
    sourceUrl: `${base.replace(/\/api\/v1$/, "")}/skills/${slug}`,
    version,
    metadata: typeof owner === "string" && owner ? { owner } : {},
  };
}

/** Searches ClawHub. */
export async function searchClawhub(query: string, limit: number, env: HubEnv): Promise<SearchHit[]> {
  const url = new URL(`${env.clawhubApi}/skills`);
  url.searchParams.set("search", query);
  url.searchParams.set("limit", String(limit));
  const data = await hubGetJson(url.href, requestOptions(env));
  const items = Array.isArray(data) ? data : asRecord(data)?.items;
  const hits: SearchHit[] = [];
  for (const item of Array.isArray(items) ? items : []) {
    const skill = clawhubSkill(item);
    const slug = skill?.slug;
    if (!skill || typeof slug !== "string" || slug === "") continue;
    const version = clawhubVersion(skill);
    hits.push({
      name: String(skill.displayName ?? skill.name ?? slug),
      description: String(skill.summary ?? skill.description ?? ""),
      source: "clawhub",
      identifier: `clawhub:${slug}`,
      trustLevel: "community",
      ...(version ? { version } : {}),
    });
  }
  return hits.slice(0, limit);
}

/** The skills a tap lists: each folder of its path with a SKILL.md (names starting `.`/`_` skipped, as Hermes). */
export async function listTap(tap: Tap, env: HubEnv): Promise<SearchHit[]> {
  const dir = tap.path.replace(/^\/+|\/+$/g, "");
  const listing = await hubGetJson(`${env.githubApi}/repos/${tap.repo}/contents/${dir}`, githubOptions(env));
  const hits: SearchHit[] = [];
  for (const item of Array.isArray(listing) ? listing : []) {
    const entry = asRecord(item);
    const name = entry?.name;
    if (entry?.type !== "dir" || typeof name !== "string" || /^[._]/.test(name)) continue;
    const skillPath = dir ? `${dir}/${name}` : name;
    let frontmatter: Record<string, unknown> = {};
    try {
      const file = asRecord(
        await hubGetJson(
          `${env.githubApi}/repos/${tap.repo}/contents/${skillPath}/SKILL.md`,
          githubOptions(env),
        ),
      );
      if (typeof file?.content !== "string") continue;
      frontmatter = parseSkillMd(Buffer.from(file.content, "base64").toString("utf8")).frontmatter;
    } catch {
      continue;
    }
    const version = versionOf(frontmatter);
    hits.push({
      name: typeof frontmatter.name === "string" ? frontmatter.name : name,
      description: typeof frontmatter.description === "string" ? frontmatter.description : "",
      source: "github",
      identifier: `${tap.repo}/${skillPath}`,
      trustLevel: TRUSTED_REPOS.has(tap.repo) ? "trusted" : "community",
      ...(version ? { version } : {}),
    });
  }
  return hits;
}

/** What a hub search found, and the hubs that could not be searched (and why). */
export interface HubSearch {
  hits: SearchHit[];
  failures: Array<{ hub: string; reason: Text }>;
}

/** Searches the taps and ClawHub for `query` (case-insensitive, in name and description). */
export async function searchHub(
  query: string,
  taps: readonly Tap[],
  limit: number,
  env: HubEnv,
): Promise<HubSearch> {
  const needle = query.toLowerCase();
  const failures: HubSearch["failures"] = [];
  const found: SearchHit[] = [];
  for (const tap of taps) {
    try {
      found.push(
        ...(await listTap(tap, env)).filter((hit) =>
          `${hit.name} ${hit.description}`.toLowerCase().includes(needle),
        ),
      );
    } catch (error) {
      failures.push({ hub: tap.repo, reason: error instanceof SkillgateError ? error.text : String(error) });
    }
  }
  try {
    found.push(...(await searchClawhub(query, limit, env)));
  } catch (error) {
    failures.push({ hub: "clawhub", reason: error instanceof SkillgateError ? error.text : String(error) });
  }
  const seen = new Set<string>();
  const hits = found.filter((hit) => !seen.has(hit.identifier) && seen.add(hit.identifier));
  return { hits: hits.slice(0, limit), failures };
}
