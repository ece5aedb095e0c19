/**
 * The console's version history of a skill, built from the audit log's blobs: each logged change of its
 * SKILL.md listed with its time, actor and `version` field, the newest diffed against the text it
 * replaced, any two compared on request, in both languages, every value escaped.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listEntries } from "../../src/curator/ledger.js";
import type { ConsoleServer } from "../../src/gateway/console/server.js";
import { foregroundPatcher } from "../curator/helpers.js";
import { login, makeConsoleHome, startTestConsole } from "./helpers.js";

describe("console version history of a skill", () => {
  let home: string;
  let server: ConsoleServer;
  let cookie: string;
  let first = "";
  let second = "";

  beforeAll(async () => {
    home = await makeConsoleHome(0);
    const dir = path.join(home, "skills", "devops", "cloud-deploy");
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(
      path.join(dir, "SKILL.md"),
      "---\nname: cloud-deploy\ndescription: Deploy to the cloud\nversion: 1.0.0\n---\n\nBack up first.\n",
    );
    const patch = foregroundPatcher(home, "cloud-deploy");
    expect(await patch("version: 1.0.0", "version: 1.1.0")).toMatchObject({ success: true });
    expect(
      await patch(
        "version: 1.1.0\n---\n\nBack up first.",
        "version: 1.2.0\n---\n\nNever on Fridays <script>x</script>.",
      ),
    ).toMatchObject({ success: true });
    [second, first] = (await listEntries(home, { skill: "cloud-deploy" })).map((entry) => entry.id) as [
      string,
      string,
    ];
    server = await startTestConsole(home);
    cookie = await login(server);
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    if (home) await fs.rm(home, { recursive: true, force: true });
  });

  const get = async (where: string, language: string) =>
    (await fetch(`${server.url}${where}`, { headers: { cookie, "accept-language": language } })).text();

  it("links the history from the skill page", async () => {
    expect(await get("/skill/cloud-deploy", "en")).toContain(
      '<a id="skill-versions" href="/skill/cloud-deploy/versions">Version history</a>',
    );
  });

  it("lists each version newest first and diffs the newest against the text it replaced", async () => {
    const page = await get("/skill/cloud-deploy/versions", "en");
    expect(page).toContain("<h1>Versions of cloud-deploy</h1>");
    const rows = [...page.matchAll(/<tr data-entry="([0-9a-f]+)">/g)].map((match) => match[1]);
    expect(rows).toEqual([second, first]);
    expect(page).toMatch(
      /<td translate="no">1\.2\.0<\/td><td><span class="actor">agent<\/span><\/td><td>patch<\/td>/,
    );
    expect(page).toContain("- version: 1.1.0");
    expect(page).toContain("+ version: 1.2.0");
    expect(page).toContain("- Back up first.");
    expect(page).toContain("+ Never on Fridays &lt;script&gt;x&lt;/script&gt;.");
    expect(page).not.toContain("<script>x</script>");
  });

  it("compares any two versions on request, in Chinese too", async () => {
    const page = await get(`/skill/cloud-deploy/versions?to=${first}`, "zh-CN");
    expect(page).toContain("<h1>cloud-deploy 的版本</h1>");
    expect(page).toContain("SKILL.md：从 这次改动之前的内容 到");
    expect(page).toContain("- version: 1.0.0");
    expect(page).toContain("+ version: 1.1.0");
    const same = await get(`/skill/cloud-deploy/versions?from=${second}&to=${second}`, "en");
    expect(same).toContain("These two versions have the same SKILL.md.");
    const across = await get(`/skill/cloud-deploy/versions?from=${first}&to=${second}`, "en");
    expect(across).toContain("- version: 1.1.0");
    expect(across).toContain("+ version: 1.2.0");
  });

  it("says when the audit log holds no change of a skill", async () => {
    expect(await get("/skill/tool-0/versions", "en")).toContain(
      "The audit log holds no change of this skill&#39;s SKILL.md.",
    );
  });
});
