import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { terminalContext } from "../../commands/context.js";
import { skillsOverlapsCommand } from "../../commands/skills-overlaps.js";
import { replyToPlainText } from "../../src/core/reply.js";
import { openLibrary } from "../../src/skills/library.js";
import { findOverlaps } from "../../src/skills/search-overlaps.js";
import type { SkillLibrary } from "../../src/skills/types.js";
import { config, tempHome, writeSkill } from "./helpers.js";

let env: ReturnType<typeof tempHome>;
let library: SkillLibrary;
const settings = { skills: { disabled: ["hidden-deploy"] } };

beforeEach(() => {
  env = tempHome();
  writeSkill(
    env.skills,
    "devops/cloud-deploy",
    "name: cloud-deploy\ndescription: Deploy a web application to a cloud server behind an nginx reverse proxy\nmetadata:\n  hermes:\n    tags: [deploy, nginx]",
  );
  writeSkill(
    env.skills,
    "devops/docker-deploy",
    "name: docker-deploy\ndescription: Deploy a web application in Docker containers behind an nginx reverse proxy\nmetadata:\n  hermes:\n    tags: [deploy, docker]",
  );
  writeSkill(
    env.skills,
    "devops/hidden-deploy",
    "name: hidden-deploy\ndescription: Deploy a web application to a cloud server behind an nginx reverse proxy",
  );
  writeSkill(
    env.skills,
    "data/postgres-backup",
    "name: postgres-backup\ndescription: Dump a PostgreSQL database nightly and verify the restore\nmetadata:\n  hermes:\n    related_skills: [sql-tuning]",
  );
  writeSkill(
    env.skills,
    "data/sql-tuning",
    "name: sql-tuning\ndescription: Find slow queries and add the missing indexes",
  );
  writeSkill(
    env.skills,
    "writing/haiku",
    "name: haiku\ndescription: Write a short poem of seventeen syllables",
  );
  library = openLibrary(env.home, config(settings), { watch: false, racyMs: 0 });
});
afterEach(() => {
  library.close?.();
  env.cleanup();
});

const key = (pair: { a: string; b: string }) => `${pair.a}+${pair.b}`;

describe("overlapping skills", () => {
  it("pairs skills with similar triggers, with the words they share, and no unrelated ones", async () => {
    const pairs = await findOverlaps(library);
    const deploy = pairs.find((pair) => key(pair) === "cloud-deploy+docker-deploy");
    expect(deploy?.score).toBeGreaterThan(0.3);
    expect(deploy?.related).toBe(false);
    expect(deploy?.shared).toEqual(expect.arrayContaining(["deploy", "nginx"]));
    const names = pairs.flatMap((pair) => [pair.a, pair.b]);
    expect(names).not.toContain("haiku");
    // A disabled skill is not active: it pairs with nothing, however alike.
    expect(names).not.toContain("hidden-deploy");
  });

  it("lists a pair named in related_skills with that reason, whatever its similarity", async () => {
    const pairs = await findOverlaps(library);
    const related = pairs.find((pair) => key(pair) === "postgres-backup+sql-tuning");
    expect(related?.related).toBe(true);
    expect(pairs.find((pair) => key(pair) === "cloud-deploy+postgres-backup")).toBeUndefined();
  });
});

describe("skills overlaps command", () => {
  it("prints the pairs with score and reason in both languages, and --json", async () => {
    const ctx = terminalContext({ home: env.home, config: config(settings), library });
    const json = (await skillsOverlapsCommand.run({ ...ctx, json: true }, { args: [], options: {} }))
      .json as {
      success: boolean;
      count: number;
      pairs: { a: string; b: string; score: number; shared_terms: string[]; related: boolean }[];
    };
    expect(json.success).toBe(true);
    expect(json.count).toBe(json.pairs.length);
    expect(json.pairs).toContainEqual({
      a: "postgres-backup",
      b: "sql-tuning",
      score: expect.any(Number),
      shared_terms: expect.any(Array),
      related: true,
    });
    expect(json.pairs.map(key)).toContain("cloud-deploy+docker-deploy");
    const shown = await skillsOverlapsCommand.run(ctx, { args: [], options: {} });
    const english = replyToPlainText(shown, "en");
    expect(english).toContain("cloud-deploy ↔ docker-deploy");
    expect(english).toContain("shared words:");
    expect(english).toContain("named in related_skills");
    const chinese = replyToPlainText(shown, "zh-CN");
    expect(chinese).toContain("相互重叠的技能");
    expect(chinese).toContain("共同词语");
  });
});
