/**
 * A local skills hub on 127.0.0.1 (ephemeral port) for the hub tests: GitHub's REST routes a hub install
 * uses and ClawHub's registry API, plus plain files and archives at any path. Encoded from:
 *
 * - GitHub REST, "Get repository content" (docs.github.com/en/rest/repos/contents#get-repository-content):
 *   `GET /repos/{owner}/{repo}/contents/{path}` answers a folder with an array of `{type: "file"|"dir", name,
 *   path, sha, size, download_url}` and a file with `{type: "file", encoding: "base64", content, …}`; 404
 *   `{"message": "Not Found"}` otherwise.
 * - GitHub REST, "Download a repository archive (tar)" (docs.github.com/en/rest/repos/contents#download-a-
 *   repository-archive-tar): `GET /repos/{owner}/{repo}/tarball/{ref}` (ref optional: the default branch)
 *   answers `302` with `Location` on the archive host (codeload.github.com, a different origin — here
 *   `/_codeload/…` on a second port), whose gzipped tar holds one top folder `{owner}-{repo}-{sha7}/`.
 * - ClawHub's HTTP API as Hermes' adapter reads it (`tools/skills_hub_clawhub.py` in NousResearch/
 *   hermes-agent): `GET /api/v1/skills?search=&limit=` → `{items: [{slug, displayName, summary, tags,
 *   latestVersion: {version}}], nextCursor}`; `GET /api/v1/skills/{slug}` → `{skill: {...}, latestVersion,
 *   owner: {handle}}`; `GET /api/v1/skills/{slug}/versions/{version}` → `{version: {version, files: [{path,
 *   content}]}}`.
 *
 * Tests put repositories, ClawHub skills and raw routes in, and read `requests` afterwards (with the
 * headers each hop received, to check where a token went).
 */
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";

/** One member of a test archive (`buildTarGz`). */
export type TarMember =
  | { path: string; type?: "file"; content: string | Buffer; mode?: number }
  | { path: string; type: "dir" }
  | { path: string; type: "symlink" | "hardlink"; target: string };

/** Builds a gzipped ustar archive byte by byte, so hostile members (`../x`, `/etc/x`, links) can be made. */
export function buildTarGz(members: readonly TarMember[]): Buffer {
  const blocks: Buffer[] = [];
  for (const member of members) {
    const content =
      member.type === undefined || member.type === "file" ? Buffer.from(member.content) : Buffer.alloc(0);
    const header = Buffer.alloc(512);
    const write = (text: string, offset: number, length: number) =>
      header.write(text, offset, length, "utf8");
    const octal = (value: number, length: number) => `${value.toString(8).padStart(length - 1, "0")}\0`;
    if (Buffer.byteLength(member.path) > 100)
      throw new Error(`tar path too long for the test builder: ${member.path}`);
    write(member.path, 0, 100);
    const mode = member.type === "dir" ? 0o755 : "mode" in member && member.mode ? member.mode : 0o644;
    write(octal(mode, 8), 100, 8);
    write(octal(0, 8), 108, 8);
    write(octal(0, 8), 116, 8);
    write(octal(content.length, 12), 124, 12);
    write(octal(1_700_000_000, 12), 136, 12);
    write("        ", 148, 8);
    const typeflag = { file: "0", dir: "5", symlink: "2", hardlink: "1" }[member.type ?? "file"];
    write(typeflag, 156, 1);
    if (member.type === "symlink" || member.type === "hardlink") write(member.target, 157, 100);
    write("ustar\0", 257, 6);
    write("00", 263, 2);
    let sum = 0;
    for (const byte of header) sum += byte;
    write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, 8);
    blocks.push(header, content, Buffer.alloc((512 - (content.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

/** A repository: its default branch and members (paths relative to the repository root). */
export interface EmulatedRepo {
  defaultBranch?: string;
  members: TarMember[];
}

/** A ClawHub skill: its versions' files, newest last. */
export interface EmulatedClawhubSkill {
  displayName?: string;
  summary?: string;
  owner?: string;
  versions: Array<{ version: string; files: Record<string, string> }>;
}

/** A request the hub received. */
export interface HubRequest {
  port: number;
  path: string;
  headers: http.IncomingHttpHeaders;
}

/** A raw route: status, headers and body (or a function of the request). */
export type RawRoute = { status?: number; headers?: Record<string, string>; body?: string | Buffer };

/** The running hub. */
export interface HubRegistry {
  /** `http://127.0.0.1:<port>`: the API host (GitHub routes, ClawHub under `/api/v1`, raw routes). */
  base: string;
  /** `http://127.0.0.1:<port>`: the archive host (codeload), a second origin. */
  archiveBase: string;
  /** Both `host:port` entries, for `skills.hub.allowed_hosts`. */
  hosts: string[];
  repos: Map<string, EmulatedRepo>;
  clawhub: Map<string, EmulatedClawhubSkill>;
  /** Raw routes by path (query included when given), on the API host. */
  raw: Map<string, RawRoute>;
  requests: HubRequest[];
  close(): Promise<void>;
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
  res.end(JSON.stringify(body));
}

function sha7(value: string): string {
  return createHash("sha1").update(value).digest("hex").slice(0, 7);
}

function listen(server: http.Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
  );
}

/** Starts the hub. */
export async function startHubRegistry(): Promise<HubRegistry> {
  const repos = new Map<string, EmulatedRepo>();
  const clawhub = new Map<string, EmulatedClawhubSkill>();
  const raw = new Map<string, RawRoute>();
  const requests: HubRequest[] = [];
  let apiPort = 0;
  let archivePort = 0;

  const archive = http.createServer((req, res) => {
    requests.push({ port: archivePort, path: req.url ?? "", headers: req.headers });
    const match = /^\/_codeload\/([^/]+)\/([^/]+)\/legacy\.tar\.gz\/([^/]+)$/.exec(req.url ?? "");
    const repo = match ? repos.get(`${match[1]}/${match[2]}`) : undefined;
    if (!match || !repo) return json(res, 404, { message: "Not Found" });
    const top = `${match[1]}-${match[2]}-${sha7(JSON.stringify(repo.members.map((m) => m.path)))}`;
    const members: TarMember[] = [
      { path: `${top}/`, type: "dir" },
      ...repo.members.map((m) => ({ ...m, path: `${top}/${m.path}` })),
    ];
    res.writeHead(200, { "content-type": "application/x-gzip" });
    res.end(buildTarGz(members));
  });

  const api = http.createServer((req, res) => {
    requests.push({ port: apiPort, path: req.url ?? "", headers: req.headers });
    const url = new URL(req.url ?? "/", "http://x");
    const route = raw.get(req.url ?? "") ?? raw.get(url.pathname);
    if (route) {
      res.writeHead(route.status ?? 200, route.headers ?? {});
      return res.end(route.body ?? "");
    }
    const tarball = /^\/repos\/([^/]+)\/([^/]+)\/tarball(?:\/([^/]+))?$/.exec(url.pathname);
    if (tarball) {
      const repo = repos.get(`${tarball[1]}/${tarball[2]}`);
      if (!repo) return json(res, 404, { message: "Not Found" });
      const ref = tarball[3] ?? repo.defaultBranch ?? "main";
      res.writeHead(302, {
        location: `http://127.0.0.1:${archivePort}/_codeload/${tarball[1]}/${tarball[2]}/legacy.tar.gz/${ref}`,
      });
      return res.end();
    }
    const contents = /^\/repos\/([^/]+)\/([^/]+)\/contents(?:\/(.*))?$/.exec(url.pathname);
    if (contents) {
      const repo = repos.get(`${contents[1]}/${contents[2]}`);
      const wanted = decodeURIComponent(contents[3] ?? "").replace(/\/+$/, "");
      if (!repo) return json(res, 404, { message: "Not Found" });
      const file = repo.members.find((m) => m.path === wanted && (m.type ?? "file") === "file");
      if (file && "content" in file) {
        const bytes = Buffer.from(file.content);
        return json(res, 200, {
          type: "file",
          encoding: "base64",
          name: wanted.split("/").at(-1),
          path: wanted,
          size: bytes.length,
          content: bytes.toString("base64"),
        });
      }
      const prefix = wanted ? `${wanted}/` : "";
      const children = new Map<string, "file" | "dir">();
      for (const member of repo.members) {
        if (!member.path.startsWith(prefix)) continue;
        const rest = member.path.slice(prefix.length).replace(/\/$/, "");
        if (!rest) continue;
        const [head, ...tail] = rest.split("/");
        children.set(head as string, tail.length > 0 || member.type === "dir" ? "dir" : "file");
      }
      if (children.size === 0) return json(res, 404, { message: "Not Found" });
      return json(
        res,
        200,
        [...children].map(([name, type]) => ({
          type,
          name,
          path: `${prefix}${name}`,
          sha: sha7(name),
          size: 0,
          download_url: null,
        })),
      );
    }
    const repoInfo = /^\/repos\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (repoInfo) {
      const repo = repos.get(`${repoInfo[1]}/${repoInfo[2]}`);
      return repo
        ? json(res, 200, {
            full_name: `${repoInfo[1]}/${repoInfo[2]}`,
            default_branch: repo.defaultBranch ?? "main",
          })
        : json(res, 404, { message: "Not Found" });
    }
    if (url.pathname === "/api/v1/skills") {
      const query = (url.searchParams.get("search") ?? "").toLowerCase();
      const limit = Number(url.searchParams.get("limit") ?? "20");
      const items = [...clawhub]
        .filter(([slug, skill]) =>
          `${slug} ${skill.displayName ?? ""} ${skill.summary ?? ""}`.toLowerCase().includes(query),
        )
        .slice(0, limit)
        .map(([slug, skill]) => ({
          slug,
          displayName: skill.displayName ?? slug,
          summary: skill.summary ?? "",
          tags: { latest: skill.versions.at(-1)?.version },
          latestVersion: { version: skill.versions.at(-1)?.version },
        }));
      return json(res, 200, { items, nextCursor: null });
    }
    const version = /^\/api\/v1\/skills\/([^/]+)\/versions\/([^/]+)$/.exec(url.pathname);
    if (version) {
      const found = clawhub
        .get(decodeURIComponent(version[1] as string))
        ?.versions.find((v) => v.version === decodeURIComponent(version[2] as string));
      if (!found) return json(res, 404, { message: "Not Found" });
      return json(res, 200, {
        version: {
          version: found.version,
          files: Object.entries(found.files).map(([path, content]) => ({ path, content })),
        },
      });
    }
    const detail = /^\/api\/v1\/skills\/([^/]+)$/.exec(url.pathname);
    if (detail) {
      const slug = decodeURIComponent(detail[1] as string);
      const skill = clawhub.get(slug);
      if (!skill) return json(res, 404, { message: "Not Found" });
      return json(res, 200, {
        skill: {
          slug,
          displayName: skill.displayName ?? slug,
          summary: skill.summary ?? "",
          tags: { latest: skill.versions.at(-1)?.version },
        },
        latestVersion: { version: skill.versions.at(-1)?.version },
        owner: { handle: skill.owner ?? "someone" },
      });
    }
    json(res, 404, { message: "Not Found" });
  });
  apiPort = await listen(api);
  archivePort = await listen(archive);
  return {
    base: `http://127.0.0.1:${apiPort}`,
    archiveBase: `http://127.0.0.1:${archivePort}`,
    hosts: [`127.0.0.1:${apiPort}`, `127.0.0.1:${archivePort}`],
    repos,
    clawhub,
    raw,
    requests,
    async close() {
      api.closeAllConnections();
      archive.closeAllConnections();
      await Promise.all([new Promise((r) => api.close(r)), new Promise((r) => archive.close(r))]);
    },
  };
}
