/**
 * Finding 1 (High) and the containment rule: a SKILL.md, a single-file skill or a linked file that is a
 * symlink out of its skill is never read or shown — not by `skills list`, `skills view`, the chat card,
 * `/help` or the command menu — and listing says which folders it skipped and why.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadSkills } from "../../commands/chat.js";
import { terminalContext } from "../../commands/context.js";
import { registry } from "../../commands/index.js";
import { skillsCommands } from "../../commands/skills.js";
import type { CommandContext, CommandSpec } from "../../commands/types.js";
import { english } from "../../src/core/i18n/messages.js";
import { replyToPlainText } from "../../src/core/reply.js";
import { buildCommandCatalog } from "../../src/gateway/catalog.js";
import { openLibrary } from "../../src/skills/library.js";
import type { SkillLibrary } from "../../src/skills/types.js";
import { config, tempHome, writeSkill } from "../skills/helpers.js";

const TOKEN = "123456:SECRET-bot-token-value-xyz";
let env: ReturnType<typeof tempHome>;
let library: SkillLibrary;

const skillsSpec = (name: string): CommandSpec => {
  const found = skillsCommands.find((candidate) => candidate.path[1] === name);
  if (!found) throw new Error(`no skills ${name}`);
  return found;
};

function ctx(overrides: Partial<Parameters<typeof terminalContext>[0]> = {}): CommandContext {
  return terminalContext({ home: env.home, config: config(), library, ...overrides });
}

beforeEach(() => {
  env = tempHome("skillgate-contain-");
  writeFileSync(path.join(env.home, ".env"), `TELEGRAM_BOT_TOKEN=${TOKEN}\n`);
  writeSkill(env.skills, "tools/fine", "name: fine\ndescription: A fine skill");
  // The attack: a category skill whose SKILL.md is a link to the home's .env.
  mkdirSync(path.join(env.skills, "cat", "envlink"), { recursive: true });
  symlinkSync("../../../.env", path.join(env.skills, "cat", "envlink", "SKILL.md"));
  // A single-file skill linked to .env, and a linked file out of a skill.
  symlinkSync("../.env", path.join(env.skills, "legacy.md"));
  symlinkSync(
    "../../../.env",
    path.join(writeSkill(env.skills, "tools/refs", "name: refs\ndescription: r"), "references.md"),
  );
  mkdirSync(path.join(env.skills, "tools", "refs", "references"), { recursive: true });
  symlinkSync("../../../../.env", path.join(env.skills, "tools", "refs", "references", "api.md"));
  // A link that stays inside its skill is fine.
  const inside = path.join(env.skills, "tools", "inlink");
  mkdirSync(inside, { recursive: true });
  writeFileSync(path.join(inside, "real.md"), "---\nname: inlink\ndescription: linked inside\n---\nok\n");
  symlinkSync("real.md", path.join(inside, "SKILL.md"), "file");
  library = openLibrary(env.home, config(), { watch: false, persistIndex: false });
});

afterEach(() => {
  library.close?.();
  env.cleanup();
});

describe("a SKILL.md linked out of its skill", () => {
  it("is not listed, and listing says it was skipped and why", async () => {
    const result = await library.list();
    expect(JSON.stringify(result)).not.toContain(TOKEN);
    expect(result.skills?.map((skill) => skill.name).sort()).toEqual(["fine", "inlink", "refs"]);
    const reply = await skillsSpec("list").run(ctx(), { args: [], options: {} });
    const text = replyToPlainText(reply);
    expect(text).not.toContain(TOKEN);
    expect(text).toMatch(
      /skipped cat\/envlink: SKILL\.md of skill 'envlink' is a symlink that leads outside/,
    );
    const json = await skillsSpec("list").run(ctx({ json: true }), { args: [], options: {} });
    expect(english(json.warnings?.[0] ?? "")).toMatch(/cat\/envlink/);
  });

  it("is refused by skills view, by name and by path, in the terminal and as a chat surface", async () => {
    for (const name of ["envlink", "cat/envlink", "legacy"]) {
      for (const platform of [null, "telegram"]) {
        const view = await library.view(name, { platform });
        expect(view.success).toBe(false);
        expect(JSON.stringify(view)).not.toContain(TOKEN);
      }
    }
    const refused = await library.view("cat/envlink");
    expect(String(refused.error)).toMatch(/symlink that leads outside the skill's folder/);
    const reply = await skillsSpec("view").run(ctx({ platform: "telegram" }), {
      args: ["envlink"],
      options: {},
    });
    expect(reply.exitCode).toBe(1);
    expect(replyToPlainText(reply)).not.toContain(TOKEN);
  });

  it("never reaches a chat card, /help or the command menu", async () => {
    const loaded = await loadSkills(ctx({ platform: "telegram" }), ["envlink"], "");
    expect(loaded.reply.exitCode).not.toBe(0);
    expect(replyToPlainText(loaded.reply)).not.toContain(TOKEN);
    const help = registry.find((spec) => spec.path[0] === "help") as CommandSpec;
    const helpText = replyToPlainText(
      await help.run(ctx({ platform: "telegram" }), { args: [], options: {} }),
    );
    expect(helpText).not.toContain(TOKEN);
    expect(helpText).not.toContain("envlink");
    const catalog = buildCommandCatalog(registry, await library.visible("telegram"));
    expect(JSON.stringify(catalog)).not.toContain(TOKEN);
    expect(catalog.some((entry) => entry.name === "envlink")).toBe(false);
  });

  it("a linked file leading out of the skill is refused; a link inside the skill works", async () => {
    const out = await library.view("refs", { filePath: "references/api.md" });
    expect(out.success).toBe(false);
    expect(JSON.stringify(out)).not.toContain(TOKEN);
    const inside = await library.view("inlink");
    expect(inside.success).toBe(true);
    expect(inside.content).toContain("ok");
    const card = await library.view("refs");
    expect(JSON.stringify(card.linked_files ?? {})).not.toContain("api.md");
  });
});
