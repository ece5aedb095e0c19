/**
 * The console's relevance search box and overlapping-skills page: hits and pairs in both languages, and
 * every value escaped.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ConsoleServer } from "../../src/gateway/console/server.js";
import { consoleForDescribe } from "./helpers.js";

describe("console search and overlaps pages", () => {
  let server: ConsoleServer;
  let cookie: string;

  const prepare = async (made: string) => {
    const skill = async (name: string, frontmatter: string) => {
      const dir = path.join(made, "skills", "devops", name);
      await fs.mkdir(dir, { recursive: true });
      await fs.writeFile(path.join(dir, "SKILL.md"), `---\nname: ${name}\n${frontmatter}\n---\n\nBody.\n`);
    };
    await skill(
      "cloud-deploy",
      "description: 将应用部署到云服务器，并配置 nginx 反向代理\nmetadata:\n  hermes:\n    related_skills: [docker-deploy]",
    );
    await skill("docker-deploy", "description: Deploy an application in Docker containers behind nginx");
  };
  consoleForDescribe(prepare, (running) => {
    ({ server, cookie } = running);
  });

  const get = async (where: string, language: string) =>
    (await fetch(`${server.url}${where}`, { headers: { cookie, "accept-language": language } })).text();

  it("offers the search box on the library page", async () => {
    expect(await get("/library", "en")).toContain(
      '<form id="skill-search" class="filters" method="get" action="/search"',
    );
    expect(await get("/library", "zh-CN")).toContain("按用途查找");
  });

  it("returns the hit for a Chinese query, in both languages", async () => {
    const english = await get(`/search?q=${encodeURIComponent("部署 nginx")}`, "en");
    expect(english).toContain("<h1>Search skills</h1>");
    expect(english).toMatch(/<tr data-skill="cloud-deploy">/);
    expect(english).toContain("related: docker-deploy");
    const chinese = await get(`/search?q=${encodeURIComponent("部署 nginx")}`, "zh-CN");
    expect(chinese).toContain("<h1>搜索技能</h1>");
    expect(chinese).toMatch(/<tr data-skill="cloud-deploy">/);
    expect(chinese).toContain("相关技能：docker-deploy");
  });

  it("escapes the query and the hostile skill's description", async () => {
    const page = await get(`/search?q=${encodeURIComponent('"><script>x</script> probe script')}`, "en");
    expect(page).toContain('<tr data-skill="xss-probe">');
    expect(page).not.toContain("<script>x</script>");
    expect(page).not.toContain("<script>window.__pwned");
    expect(page).toContain("&lt;script&gt;");
  });

  it("lists the overlapping pair with its reason, in both languages", async () => {
    const english = await get("/overlaps", "en");
    expect(english).toContain("<h1>Overlapping skills</h1>");
    expect(english).toContain('<tr data-pair="cloud-deploy docker-deploy">');
    expect(english).toContain("named in related_skills");
    const chinese = await get("/overlaps", "zh-CN");
    expect(chinese).toContain("<h1>相互重叠的技能</h1>");
    expect(chinese).toContain("在 related_skills 中互相提及");
  });
});
