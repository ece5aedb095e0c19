/**
 * The library page's section of hub-installed skills: read from `skills/.hub/lock.json`, each with its
 * source, identifier, version, trust, scan verdict and install time, every value escaped, in English
 * and Chinese; no section without hub skills, a notice when the lock cannot be read.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ConsoleServer } from "../../src/gateway/console/server.js";
import { consoleForDescribe, writeSkill } from "./helpers.js";

const LOCK = {
  version: 1,
  installed: {
    "pdf-tools": {
      source: "github",
      identifier: "acme/skills/pdf-tools",
      trust_level: "community",
      scan_verdict: "caution",
      content_hash: "sha256:0123",
      install_path: "pdf-tools",
      files: ["SKILL.md"],
      metadata: { version: "1.4.2" },
      installed_at: "2026-12-01T10:20:30+00:00",
      updated_at: "2026-12-02T08:00:00+00:00",
    },
    "<b>odd</b>": {
      source: "url",
      identifier: "https://example.test/<script>x</script>",
      trust_level: "community",
      scan_verdict: "safe",
      content_hash: "sha256:4567",
      install_path: "odd",
      files: ["SKILL.md"],
      metadata: {},
      installed_at: "2026-12-03T00:00:00+00:00",
      updated_at: "2026-12-03T00:00:00+00:00",
    },
  },
};

describe("the console lists hub-installed skills", () => {
  let home: string;
  let server: ConsoleServer;
  let cookie: string;
  const lockFile = () => path.join(home, "skills", ".hub", "lock.json");

  consoleForDescribe(
    async (made) => {
      await writeSkill(made, "pdf-tools", "PDF tools", "Body.");
      const lock = path.join(made, "skills", ".hub", "lock.json");
      await fs.mkdir(path.dirname(lock), { recursive: true });
      await fs.writeFile(lock, `${JSON.stringify(LOCK, null, 2)}\n`);
    },
    (running) => {
      ({ home, server, cookie } = running);
    },
  );

  const library = async (language: string) =>
    (await fetch(`${server.url}/library`, { headers: { cookie, "accept-language": language } })).text();
  const hubRow = (page: string, name: string) =>
    new RegExp(`<tr data-hub-skill="${name}">(.*?)</tr>`).exec(page)?.[1] ?? "";

  it("shows each hub skill with its source, identifier, version, trust, verdict and install time", async () => {
    const page = await library("en");
    expect(page).toContain("<h2>Installed from a hub</h2>");
    const row = hubRow(page, "pdf-tools");
    expect(row).toContain('<td translate="no">github</td>');
    expect(row).toContain("acme/skills/pdf-tools");
    expect(row).toContain('<td translate="no">1.4.2</td>');
    expect(row).toContain('<td translate="no">community</td>');
    expect(row).toContain('data-verdict="caution"');
    // The install time in the display zone with the zone named (`src/core/i18n/dates.ts`).
    expect(row).toContain("Dec 1, 10:20 UTC");
    expect(page).toMatch(
      /<th>source<\/th><th>identifier<\/th><th>version<\/th><th>trust<\/th><th>scan<\/th><th>installed<\/th>/,
    );
  });

  it("escapes every value taken from the lock", async () => {
    const page = await library("en");
    expect(page).not.toContain("<b>odd</b>");
    expect(page).not.toContain("<script>x</script>");
    const row = hubRow(page, "&lt;b&gt;odd&lt;/b&gt;");
    expect(row).toContain("https://example.test/&lt;script&gt;x&lt;/script&gt;");
    expect(row).toContain('<td translate="no">-</td>');
  });

  it("speaks Chinese to a Chinese reader", async () => {
    const page = await library("zh-CN");
    expect(page).toContain("<h2>从 Hub 安装的技能</h2>");
    expect(page).toMatch(
      /<th>来源<\/th><th>标识<\/th><th>版本<\/th><th>信任级别<\/th><th>扫描<\/th><th>安装时间<\/th>/,
    );
    expect(hubRow(page, "pdf-tools")).toContain('<td translate="no">1.4.2</td>');
  });

  it("says so when the lock cannot be read, and shows nothing without hub skills", async () => {
    await fs.writeFile(lockFile(), "{ not json");
    expect(await library("en")).toMatch(
      /skills\/\.hub\/lock\.json cannot be read \(.+\); the hub skills are not shown\./,
    );
    expect(await library("zh-CN")).toContain("无法读取 skills/.hub/lock.json");
    await fs.rm(lockFile());
    expect(await library("en")).not.toContain('id="hub-skills"');
  });
});
