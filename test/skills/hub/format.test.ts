/**
 * The hub's files in Hermes' shapes. The golden files in test/fixtures/hub were written by hand from
 * Hermes' `tools/skills_hub.py` (`HubLockFile.record_install` / `save`: `json.dumps(indent=2,
 * ensure_ascii=False) + "\n"`, the entry's key order; `TapsManager.save`: `json.dumps(indent=2)`;
 * `append_audit_log`: `<%Y-%m-%dT%H:%M:%SZ> ACTION name source:trust verdict extra`) and
 * `tools/skills_guard.py` (`content_hash`: `sha256:` + 16 hex of SHA-256 over `path NUL bytes` by path).
 * python3's json module, the one Hermes reads and writes these files with, reads skillgate's lock back
 * and would write the very same bytes.
 */
import { spawnSync } from "node:child_process";
import { promises as fs, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  appendAuditLine,
  contentHash,
  formatAuditLine,
  hubPaths,
  lockEntry,
  normalizeBundlePath,
  normalizeInstallPath,
  readHubLock,
  readPackageFiles,
  readTaps,
  serializeHubLock,
  serializeTaps,
  writeHubLock,
} from "../../../src/skills/hub/format.js";
import { scanPackage, scanProvenance } from "../../../src/skills/hub/scan.js";

const FIXTURES = path.join(import.meta.dirname, "..", "..", "fixtures", "hub");
const golden = (name: string) => readFileSync(path.join(FIXTURES, name), "utf8");

const PACKAGE = [
  {
    path: "SKILL.md",
    bytes: Buffer.from("---\nname: pdf-tools\ndescription: Work with PDFs\n---\n# PDF tools\n"),
  },
  { path: "scripts/run.py", bytes: Buffer.from("print('hi')\n") },
];
const AT = new Date("2026-12-04T10:00:00.000Z");

// How Hermes' HubLockFile reads the lock (`json.loads(read_text("utf-8-sig"))`), what `list_installed`
// gives, and whether `save` would write back the same bytes.
const HERMES_READ = `
import json, sys
raw = open(sys.argv[1], encoding="utf-8-sig").read()
data = json.loads(raw)
rows = [{"name": name, **entry} for name, entry in data["installed"].items()]
print(json.dumps({"rows": rows, "same_bytes": json.dumps(data, indent=2, ensure_ascii=False) + "\\n" == raw,
                  "keys": [list(e.keys()) for e in data["installed"].values()]}, ensure_ascii=False))
`;

let home: string;
beforeEach(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), "hub-format-"));
});
afterEach(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

describe("lock.json", () => {
  it("an entry skillgate writes is byte for byte the golden file", () => {
    const result = scanPackage(PACKAGE);
    const provenance = scanProvenance(result, {
      source: "acme/skills/skills/pdf-tools",
      sourceUrl: "https://github.com/acme/skills/tree/main/skills/pdf-tools",
      trustLevel: "community",
      name: "pdf-tools",
      now: "2026-12-04T10:00:00.000000+00:00",
    });
    const entry = lockEntry("pdf-tools", {
      source: "github",
      identifier: "acme/skills/skills/pdf-tools",
      trustLevel: "community",
      verdict: result.verdict,
      contentHash: contentHash(PACKAGE),
      installPath: "documents/pdf-tools",
      files: ["SKILL.md", "scripts/run.py"],
      scanProvenance: provenance,
      now: AT,
    });
    expect(serializeHubLock({ version: 1, installed: { "pdf-tools": entry } })).toBe(
      golden("lock.json.golden"),
    );
  });

  it("Hermes' reader (python3 json) reads skillgate's lock, and its writer would keep every byte", async () => {
    const lock = JSON.parse(golden("lock.json.golden"));
    lock.installed["中文-skill"] = {
      ...lock.installed["pdf-tools"],
      install_path: "中文-skill",
      identifier: "clawhub/中文",
    };
    await writeHubLock(home, lock);
    const run = spawnSync("python3", ["-c", HERMES_READ, hubPaths(home).lock], { encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    const read = JSON.parse(run.stdout);
    expect(read.same_bytes).toBe(true);
    expect(read.rows.map((row: { name: string }) => row.name)).toEqual(["pdf-tools", "中文-skill"]);
    expect(read.keys[0]).toEqual([
      "source",
      "identifier",
      "trust_level",
      "scan_verdict",
      "content_hash",
      "install_path",
      "files",
      "metadata",
      "scan_provenance",
      "installed_at",
      "updated_at",
    ]);
  });

  it("reads a lock Hermes wrote (BOM, unknown keys kept) and refuses a corrupt one for writing", async () => {
    await fs.mkdir(hubPaths(home).hub, { recursive: true });
    await fs.writeFile(hubPaths(home).lock, `\ufeff${golden("lock.json.golden")}`);
    const read = await readHubLock(home);
    expect(read.ok && read.lock.installed["pdf-tools"]?.install_path).toBe("documents/pdf-tools");
    await fs.writeFile(hubPaths(home).lock, "{not json");
    expect((await readHubLock(home)).ok).toBe(false);
  });

  it("the content hash is Hermes' (sha256 over path NUL bytes, first 16 hex) and the same from disk", async () => {
    expect(contentHash(PACKAGE)).toBe("sha256:f167e04cd8273713");
    const dir = path.join(home, "pkg");
    await fs.mkdir(path.join(dir, "scripts"), { recursive: true });
    for (const file of PACKAGE) await fs.writeFile(path.join(dir, file.path), file.bytes);
    expect(contentHash(await readPackageFiles(dir))).toBe("sha256:f167e04cd8273713");
  });
});

describe("names and paths", () => {
  it("refuses what Hermes' _normalize_bundle_path refuses", () => {
    expect(normalizeBundlePath("a\\b/./c", true)).toBe("a/b/c");
    for (const bad of ["", "/etc/passwd", "../x", "a/../../b", "C:/x", "."])
      expect(normalizeBundlePath(bad, true)).toBeNull();
    expect(normalizeBundlePath("a/b", false)).toBeNull();
  });

  it("an install path must end with the skill's name and stay inside skills/", () => {
    expect(normalizeInstallPath("cat/sub/x", "x")).toBe("cat/sub/x");
    for (const bad of ["", ".", "../x", "/x", "y"]) expect(() => normalizeInstallPath(bad, "x")).toThrow();
    expect(() => normalizeInstallPath("x", "../x")).toThrow();
  });
});

describe("audit.log and taps.json", () => {
  it("an audit line is the golden line and is appended", async () => {
    const line = {
      action: "INSTALL" as const,
      name: "pdf-tools",
      source: "github",
      trustLevel: "community",
      verdict: "safe",
      extra: "sha256:f167e04cd8273713",
    };
    expect(formatAuditLine(line, AT)).toBe(golden("audit.log.golden"));
    await appendAuditLine(home, line, AT);
    await appendAuditLine(home, { ...line, action: "UNINSTALL", verdict: "n/a", extra: "user_request" }, AT);
    const text = await fs.readFile(hubPaths(home).audit, "utf8");
    expect(text.split("\n")).toEqual([
      "2026-12-04T10:00:00Z INSTALL pdf-tools github:community safe sha256:f167e04cd8273713",
      "2026-12-04T10:00:00Z UNINSTALL pdf-tools github:community n/a user_request",
      "",
    ]);
  });

  it("taps are written as Hermes writes them (non-ASCII escaped) and read back", async () => {
    const taps = [
      { repo: "acme/skills", path: "skills/" },
      { repo: "café/skills", path: "技能/" },
    ];
    expect(serializeTaps(taps)).toBe(golden("taps.json.golden"));
    await fs.mkdir(hubPaths(home).hub, { recursive: true });
    await fs.writeFile(hubPaths(home).taps, golden("taps.json.golden"));
    expect(await readTaps(home)).toEqual(taps);
  });
});
