/**
 * Remaining partial scenarios of reference (d): 24 (blank slot values fall back to the provider's
 * defaults) and 75 (non-mapping metadata is safe; an absolute lookup name under a symlinked folder
 * stays lexical).
 */
import { mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveCuratorModel } from "../../src/llm/config.js";
import { openLibrary } from "../../src/skills/library.js";
import { checkSkillName } from "../../src/skills/security.js";
import type { SkillLibrary } from "../../src/skills/types.js";
import { config, tempHome, writeSkill } from "../skills/helpers.js";

let env: ReturnType<typeof tempHome>;
let libraries: SkillLibrary[] = [];
beforeEach(() => {
  env = tempHome("skillgate-scenarios-");
});
afterEach(() => {
  for (const library of libraries) library.close?.();
  libraries = [];
  env.cleanup();
});

function open(): SkillLibrary {
  const library = openLibrary(env.home, config(), { watch: false, env: {} });
  libraries.push(library);
  return library;
}

describe("scenario 24: blank slot values", () => {
  it("scenario 24: a full slot with blank api_key and base_url uses the provider's address and key variable", () => {
    const cfg = config({
      auxiliary: { curator: { provider: "openrouter", model: "cheap-model", api_key: "", base_url: "" } },
    });
    const result = resolveCuratorModel(cfg, env.home, { OPENROUTER_API_KEY: "or-key" });
    if (!result.ok) throw new Error(result.reason);
    expect(result.model).toMatchObject({
      provider: "openrouter",
      model: "cheap-model",
      baseUrl: "https://openrouter.ai/api/v1",
      apiKey: "or-key",
      apiKeyVar: "OPENROUTER_API_KEY",
      source: "auxiliary.curator",
    });
  });

  it("scenario 24: a blank model in a non-auto slot is a partial slot and falls back to the main model", () => {
    const cfg = config({
      model: { provider: "custom", default: "main-m", base_url: "http://127.0.0.1:9/v1" },
      auxiliary: { curator: { provider: "openrouter", model: "" } },
    });
    const result = resolveCuratorModel(cfg, env.home, {});
    if (!result.ok) throw new Error(result.reason);
    expect([result.model.model, result.model.source]).toEqual(["main-m", "model"]);
  });
});

describe("scenario 75: skill_utils edge cases", () => {
  it("scenario 75: non-mapping metadata never breaks listing or viewing", async () => {
    writeSkill(env.skills, "scalar-meta", "name: scalar-meta\ndescription: S\nmetadata: 5\ntags: [x]");
    writeSkill(env.skills, "list-meta", "name: list-meta\ndescription: L\nmetadata: [a, b]");
    writeSkill(env.skills, "hermes-scalar", "name: hermes-scalar\ndescription: H\nmetadata:\n  hermes: oops");
    const library = open();
    expect((await library.list()).count).toBe(3);
    const scalar = await library.view("scalar-meta");
    expect(scalar.success).toBe(true);
    expect(scalar.tags).toEqual(["x"]);
    expect((await library.view("list-meta")).tags).toEqual([]);
    const hermes = await library.view("hermes-scalar");
    expect(hermes.success).toBe(true);
    expect(hermes.related_skills).toEqual([]);
  });

  it("scenario 75: an absolute name under a symlinked category becomes its lexical relative path", async () => {
    const elsewhere = path.join(env.home, "elsewhere");
    writeSkill(elsewhere, "linked-tool", "name: linked-tool\ndescription: via a link");
    mkdirSync(env.skills, { recursive: true });
    symlinkSync(elsewhere, path.join(env.skills, "linked"));
    const absolute = path.join(env.skills, "linked", "linked-tool");
    expect(checkSkillName(absolute, [env.skills])).toBe("linked/linked-tool");
    const viewed = await open().view(absolute);
    expect(viewed.success).toBe(true);
    expect(viewed.name).toBe("linked-tool");
    expect(viewed.path).toBe("linked/linked-tool/SKILL.md");
  });
});
