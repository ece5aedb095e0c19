import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { terminalContext } from "../../commands/context.js";
import { skillsSearchCommand } from "../../commands/skills-search.js";
import { replyToPlainText } from "../../src/core/reply.js";
import { openLibrary } from "../../src/skills/library.js";
import { SkillSearchIndex } from "../../src/skills/search.js";
import { searchIndexPath } from "../../src/skills/search-documents.js";
import { editDistance, tokenize } from "../../src/skills/search-text.js";
import type { SkillLibrary } from "../../src/skills/types.js";
import { config, tempHome, writeSkill } from "./helpers.js";

let env: ReturnType<typeof tempHome>;
let library: SkillLibrary;
const settings = { skills: { disabled: ["secret-ops"], platform_disabled: { telegram: ["docker-deploy"] } } };

beforeEach(() => {
  env = tempHome();
  writeSkill(
    env.skills,
    "devops/cloud-deploy",
    "name: cloud-deploy\ndescription: 将应用部署到云服务器，并配置 nginx 反向代理和 HTTPS 证书\nmetadata:\n  hermes:\n    tags: [云, 部署]\n    related_skills: [docker-deploy]",
    "# 云部署\n\n## 铁律\n\n先备份再部署。\n",
  );
  writeSkill(
    env.skills,
    "devops/docker-deploy",
    "name: docker-deploy\ndescription: Build a Docker image and run it with docker compose on a single host\nmetadata:\n  hermes:\n    tags: [docker, containers]",
  );
  writeSkill(
    env.skills,
    "data/postgres-backup",
    "name: postgres-backup\ndescription: Dump a PostgreSQL database nightly and verify the restore",
    "# Postgres backup\n\n## Point-in-time recovery\n",
  );
  writeSkill(env.skills, "secret-ops", "name: secret-ops\ndescription: Rotate database passwords");
  library = openLibrary(env.home, config(settings), { watch: false, racyMs: 0 });
});
afterEach(() => {
  library.close?.();
  env.cleanup();
});

describe("tokenize", () => {
  it("segments Chinese into words (not single characters alone) and stems English", () => {
    const words = tokenize("将应用部署到云服务器 Deploying containers");
    expect(words).toContain("部署");
    expect(words).toContain("应用");
    expect(words).toContain("deploy");
    expect(words).toContain("container");
    expect(words).not.toContain("将");
  });

  it("counts an adjacent swap as one edit", () => {
    expect(editDistance("deplyo", "deploy", 2)).toBe(1);
    expect(editDistance("postgres", "postgis", 1)).toBe(2);
  });
});

describe("skill search", () => {
  const search = (query: string, platform: string | null = null) =>
    new SkillSearchIndex(library).search(query, { platform });

  it("finds cloud-deploy by its Chinese description", async () => {
    const hits = await search("部署 nginx");
    expect(hits[0]?.name).toBe("cloud-deploy");
    expect(hits[0]?.related).toEqual(["docker-deploy"]);
  });

  it("ranks by English words, headings and tags", async () => {
    expect((await search("docker compose containers"))[0]?.name).toBe("docker-deploy");
    expect((await search("point in time recovery"))[0]?.name).toBe("postgres-backup");
    expect((await search("铁律"))[0]?.name).toBe("cloud-deploy");
  });

  it("tolerates a typo in a skill's name", async () => {
    expect((await search("postgers backup"))[0]?.name).toBe("postgres-backup");
    expect((await search("dokcer"))[0]?.name).toBe("docker-deploy");
  });

  it("never returns a skill hidden where the search runs", async () => {
    expect((await search("rotate database passwords")).map((hit) => hit.name)).not.toContain("secret-ops");
    expect((await search("docker compose", "telegram")).map((hit) => hit.name)).not.toContain(
      "docker-deploy",
    );
    expect((await search("docker compose", null))[0]?.name).toBe("docker-deploy");
  });

  it("follows edits, additions and removals without a rebuild, and keeps a persistent index", async () => {
    const index = new SkillSearchIndex(library);
    expect((await index.search("kubernetes helm"))[0]).toBeUndefined();
    writeSkill(
      env.skills,
      "devops/helm-release",
      "name: helm-release\ndescription: Release a chart to Kubernetes with helm",
    );
    writeFileSync(
      path.join(env.skills, "data/postgres-backup/SKILL.md"),
      "---\nname: postgres-backup\ndescription: Snapshot MySQL tables\n---\n# MySQL\n",
    );
    library.invalidate();
    expect((await index.search("kubernetes helm"))[0]?.name).toBe("helm-release");
    expect((await index.search("mysql snapshot"))[0]?.name).toBe("postgres-backup");
    expect(await index.search("point in time recovery")).toEqual([]);
    expect(index.size()).toBe(5);
    expect(existsSync(searchIndexPath(env.home))).toBe(true);
    // A fresh index of the same home starts from the stored one and answers the same.
    const again = new SkillSearchIndex(openLibrary(env.home, config(settings), { watch: false }));
    expect((await again.search("kubernetes helm"))[0]?.name).toBe("helm-release");
  });
});

describe("skills search command", () => {
  it("prints the ranked hits, --json, and offers View/Load buttons in chat", async () => {
    const ctx = terminalContext({ home: env.home, config: config(settings), library });
    const json = await skillsSearchCommand.run(
      { ...ctx, json: true },
      { args: ["部署", "nginx"], options: {} },
    );
    const document = json.json as { results: { name: string; related_skills: string[] }[] };
    expect(document.results[0]?.name).toBe("cloud-deploy");
    expect(document.results[0]?.related_skills).toEqual(["docker-deploy"]);
    const text = replyToPlainText(
      await skillsSearchCommand.run(ctx, { args: ["docker"], options: { limit: 1 } }),
    );
    expect(text).toContain("docker-deploy");
    const chat = await skillsSearchCommand.run(
      { ...ctx, surface: "chat" },
      { args: ["docker"], options: {} },
    );
    const invocations = (chat.actions?.rows ?? []).flat().map((action) => action.intent);
    expect(invocations).toContainEqual(
      expect.objectContaining({
        kind: "run",
        invocation: expect.objectContaining({ path: ["skill"], args: ["docker-deploy"] }),
      }),
    );
  });
});
