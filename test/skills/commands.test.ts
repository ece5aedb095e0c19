import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { terminalContext } from "../../commands/context.js";
import { skillsCommands } from "../../commands/skills.js";
import type { CommandContext, CommandInput } from "../../commands/types.js";
import { replyToPlainText } from "../../src/core/reply.js";
import { openLibrary } from "../../src/skills/library.js";
import type { SkillLibrary } from "../../src/skills/types.js";
import { config, tempHome, writeSkill } from "./helpers.js";

let env: ReturnType<typeof tempHome>;
let library: SkillLibrary;
const spec = (name: string) => {
  const found = skillsCommands.find((candidate) => candidate.path[1] === name);
  if (!found) throw new Error(`no skills ${name}`);
  return found;
};
const input = (args: string[] = [], options: CommandInput["options"] = {}): CommandInput => ({
  args,
  options,
});
const ctx = (overrides: Partial<Parameters<typeof terminalContext>[0]> = {}): CommandContext =>
  terminalContext({
    home: env.home,
    config: config({ skills: { platform_disabled: { telegram: ["hidden-on-tg"] } } }),
    library,
    ...overrides,
  });

beforeEach(() => {
  env = tempHome();
  writeSkill(env.skills, "tools/fmt", "name: fmt\ndescription: Format code");
  writeSkill(env.skills, "hidden-on-tg", "name: hidden-on-tg\ndescription: Not on Telegram");
  writeSkill(
    env.skills,
    "gif",
    "name: gif\ndescription: Find GIFs\nrequired_environment_variables:\n  - name: SKILLGATE_TEST_TENOR_KEY\n    prompt: Tenor API key",
  );
  library = openLibrary(env.home, config({ skills: { platform_disabled: { telegram: ["hidden-on-tg"] } } }), {
    watch: false,
  });
});
afterEach(() => {
  library.close?.();
  env.cleanup();
});

describe("skills list", () => {
  it("puts exactly the skills_list object in json and renders a table", async () => {
    const reply = await spec("list").run(ctx({ json: true }), input());
    expect(reply.exitCode).toBe(0);
    expect(reply.json).toEqual(await library.list());
    const text = replyToPlainText(await spec("list").run(ctx(), input()));
    expect(text).toContain("fmt");
    expect(text).toContain("Format code");
  });

  it("--platform overrides the context's platform; --category filters", async () => {
    const onTelegram = await spec("list").run(ctx(), input([], { platform: "telegram" }));
    expect(
      (onTelegram.json as { skills: { name: string }[] }).skills.map((skill) => skill.name),
    ).not.toContain("hidden-on-tg");
    const inTools = await spec("list").run(ctx(), input([], { category: "tools" }));
    expect((inTools.json as { skills: { name: string }[] }).skills.map((skill) => skill.name)).toEqual([
      "fmt",
    ]);
  });
});

describe("skills view", () => {
  it("returns the skill_view object, counts no view (a person looking is not the agent using it), refuses with exit 1", async () => {
    const reply = await spec("view").run(ctx({ json: true }), input(["fmt"]));
    expect(reply.exitCode).toBe(0);
    expect((reply.json as { name: string }).name).toBe("fmt");
    const usageFile = path.join(env.skills, ".usage.json");
    const usage = existsSync(usageFile) ? JSON.parse(readFileSync(usageFile, "utf8")) : {};
    expect(usage.fmt?.view_count ?? 0).toBe(0);
    expect(usage.fmt?.last_viewed_at ?? null).toBeNull();
    const refused = await spec("view").run(ctx(), input(["hidden-on-tg"], { platform: "telegram" }));
    expect(refused.exitCode).toBe(1);
    expect((refused.json as { success: boolean }).success).toBe(false);
    expect(replyToPlainText(refused)).toContain("telegram");
    const missing = await spec("view").run(ctx(), input(["nope"]));
    expect(missing.exitCode).toBe(1);
    expect(replyToPlainText(missing)).toContain("Skill 'nope' not found.");
    const traversal = await spec("view").run(ctx(), input(["../etc"]));
    expect(traversal.exitCode).toBe(1);
  });

  it("shows a linked file", async () => {
    writeFileSync(path.join(env.skills, "tools", "fmt", "notes.md"), "# notes\n");
    const reply = await spec("view").run(ctx(), input(["fmt", "notes.md"]));
    expect(reply.exitCode).toBe(0);
    expect(replyToPlainText(reply)).toContain("# notes");
  });

  it("prompts for a missing secret on a TTY and stores it without echoing it", async () => {
    const questions: string[] = [];
    const terminal = ctx({
      interactive: true,
      prompt: async (question, options) => {
        questions.push(`${options?.hidden ? "hidden" : "visible"}:${question}`);
        return "tenor-secret-value";
      },
    });
    const reply = await spec("view").run(terminal, input(["gif"]));
    expect(reply.exitCode).toBe(0);
    expect(questions).toHaveLength(1);
    expect(questions[0]?.startsWith("hidden:")).toBe(true);
    expect(readFileSync(path.join(env.home, ".env"), "utf8")).toBe(
      "SKILLGATE_TEST_TENOR_KEY=tenor-secret-value\n",
    );
    expect(JSON.stringify(reply)).not.toContain("tenor-secret-value");
    expect((reply.json as { setup_needed: boolean }).setup_needed).toBe(false);
  });

  it("never prompts with --json or a platform; the chat answer carries gateway_setup_hint", async () => {
    let asked = 0;
    const prompt = async () => {
      asked += 1;
      return "x";
    };
    const json = await spec("view").run(ctx({ interactive: true, prompt, json: true }), input(["gif"]));
    expect((json.json as { setup_needed: boolean }).setup_needed).toBe(true);
    const chat = await spec("view").run(
      ctx({ interactive: true, prompt }),
      input(["gif"], { platform: "discord" }),
    );
    expect(asked).toBe(0);
    expect(String((chat.json as { gateway_setup_hint?: string }).gateway_setup_hint)).toContain("local CLI");
    expect(replyToPlainText(chat)).toContain("SKILLGATE_TEST_TENOR_KEY");
  });
});

describe("skills usage", () => {
  it("lists provenance and counters, sorted as asked, including records of skills no longer on disk", async () => {
    writeFileSync(path.join(env.skills, ".bundled_manifest"), "fmt:abc\n");
    writeFileSync(
      path.join(env.skills, ".usage.json"),
      JSON.stringify({
        gif: { created_by: "agent", use_count: 5, last_used_at: "2026-01-02T00:00:00+00:00" },
        fmt: { use_count: 1, last_used_at: "2026-03-01T00:00:00+00:00" },
        gone: { created_by: "agent", state: "archived", use_count: 9 },
      }),
    );
    const byActivity = await spec("usage").run(ctx(), input());
    const rows = (byActivity.json as { skills: { name: string; provenance: string; on_disk: boolean }[] })
      .skills;
    expect(rows.map((row) => row.name)).toEqual(["gone", "gif", "fmt", "hidden-on-tg"]);
    expect(rows.find((row) => row.name === "fmt")?.provenance).toBe("bundled");
    expect(rows.find((row) => row.name === "gif")?.provenance).toBe("agent");
    expect(rows.find((row) => row.name === "gone")?.on_disk).toBe(false);
    const recent = await spec("usage").run(ctx(), input([], { sort: "recent" }));
    expect((recent.json as { skills: { name: string }[] }).skills.map((row) => row.name).slice(0, 2)).toEqual(
      ["fmt", "gif"],
    );
    writeSkill(
      env.skills,
      "elsewhere",
      `name: elsewhere\nplatforms: [${process.platform === "win32" ? "linux" : "windows"}]`,
    );
    library.invalidate();
    const byName = await spec("usage").run(ctx(), input([], { sort: "name", platform: "telegram" }));
    // Every skill on disk, with why it is hidden here; records without a skill last seen as not on disk.
    expect(
      (byName.json as { skills: { name: string; hidden: string | null; on_disk: boolean }[] }).skills.map(
        (row) => [row.name, row.hidden, row.on_disk],
      ),
    ).toEqual([
      ["elsewhere", "os", true],
      ["fmt", null, true],
      ["gif", null, true],
      ["gone", null, false],
      ["hidden-on-tg", "platform_disabled", true],
    ]);
    expect(replyToPlainText(byName)).toContain("not on disk");
    expect(replyToPlainText(byName)).toContain("hidden: os");
  });

  it("shows last activity as a moment in the display zone, in the reader's language; --json keeps the stored time", async () => {
    writeFileSync(
      path.join(env.skills, ".usage.json"),
      JSON.stringify({ fmt: { use_count: 1, last_used_at: "2026-03-01T00:00:00+00:00" } }),
    );
    const zoned = ctx({
      config: config({ gateway: { timezone: "Asia/Shanghai" } }),
      now: () => new Date("2026-06-01T12:00:00Z"),
    });
    const usage = await spec("usage").run(zoned, input([], { sort: "name" }));
    expect(replyToPlainText(usage, "en")).toContain("Mar 1, 08:00 GMT+8");
    expect(replyToPlainText(usage, "zh-CN")).toContain("3月1日 GMT+8 08:00");
    expect(replyToPlainText(usage, "en")).not.toContain("2026-03-01T00:00:00+00:00");
    const rows = (usage.json as { skills: { name: string; last_activity_at: string | null }[] }).skills;
    expect(rows.find((row) => row.name === "fmt")?.last_activity_at).toBe("2026-03-01T00:00:00+00:00");
  });
});
