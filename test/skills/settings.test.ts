import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { terminalContext } from "../../commands/context.js";
import { registry } from "../../commands/index.js";
import { parseAndRun } from "../../commands/runner.js";
import { replyToPlainText } from "../../src/core/reply.js";
import { openLibrary } from "../../src/skills/library.js";
import {
  activationBlocker,
  commandOnPath,
  requiredCommands,
  resolveSettings,
  settingDeclarations,
  settingsBlock,
} from "../../src/skills/settings.js";
import { config, tempHome, writeSkill } from "./helpers.js";

let env: ReturnType<typeof tempHome>;
beforeEach(() => {
  env = tempHome();
});
afterEach(() => env.cleanup());

const SETTINGS_SKILL = [
  "name: wiki-notes",
  "description: Keep notes in a wiki.",
  "prerequisites:",
  "  commands: [sh, skillgate-no-such-command-xyz]",
  "metadata:",
  "  hermes:",
  "    config:",
  "      - key: wiki.path",
  "        description: Wiki knowledge base path",
  "        default: ~/wiki",
  "        prompt: Wiki directory path",
  "      - key: wiki.remote",
  "        description: Git remote to push to",
  "      - key: wiki.branch",
  "        description: Branch",
  "      - key: no-description",
].join("\n");

describe("declared commands", () => {
  it("reads prerequisites.commands and required_commands, drops non-names, looks them up on PATH", () => {
    expect(
      requiredCommands({
        prerequisites: { commands: ["curl", "jq", "../evil", "rm -rf /"] },
        required_commands: "git, curl",
      }),
    ).toEqual(["curl", "jq", "git"]);
    const bin = path.join(env.home, "bin");
    mkdirSync(bin);
    writeFileSync(path.join(bin, "tool-x"), "#!/bin/sh\n");
    writeFileSync(path.join(bin, "not-exec"), "data");
    chmodSync(path.join(bin, "tool-x"), 0o755);
    chmodSync(path.join(bin, "not-exec"), 0o644);
    expect(commandOnPath("tool-x", { PATH: bin })).toBe(true);
    expect(commandOnPath("not-exec", { PATH: bin })).toBe(false);
    expect(commandOnPath("tool-x", { PATH: "" })).toBe(false);
  });
});

describe("declared settings", () => {
  it("keeps entries with key and description, resolves config, default, ~ and $-variables; unset ones say so", () => {
    const declarations = settingDeclarations({
      metadata: {
        hermes: {
          config: [
            { key: "wiki.path", description: "Wiki path", default: "~/wiki" },
            { key: "wiki.remote", description: "Remote", prompt: "Git remote URL" },
            { key: "wiki.branch", description: "Branch" },
            { key: "wiki.path", description: "duplicate" },
            { key: "", description: "no key" },
          ],
        },
      },
    });
    expect(declarations.map((item) => [item.key, item.prompt])).toEqual([
      ["wiki.path", "Wiki path"],
      ["wiki.remote", "Git remote URL"],
      ["wiki.branch", "Branch"],
    ]);
    const resolved = resolveSettings(
      declarations,
      { wiki: { remote: `$${"{"}WIKI_HOST}/notes.git`, branch: "" } },
      { WIKI_HOST: "git@example.org" },
    );
    expect(resolved.map((item) => [item.key, item.value, item.source])).toEqual([
      ["wiki.path", path.join(os.homedir(), "wiki"), "default"],
      ["wiki.remote", "git@example.org/notes.git", "config"],
      ["wiki.branch", null, "unset"],
    ]);
    // A flat `wiki.branch:` key counts too.
    expect(resolveSettings(declarations, { "wiki.branch": "main" }, {})[2]?.value).toBe("main");
    expect(settingsBlock(resolved, "/h/config.yaml")).toBe(
      [
        "[Skill config (from /h/config.yaml):",
        `  wiki.path = ${path.join(os.homedir(), "wiki")}`,
        "  wiki.remote = git@example.org/notes.git",
        "  wiki.branch = (not set)",
        "]",
      ].join("\n"),
    );
  });

  it("skills view shows a missing command and an unset setting, each with what to do", async () => {
    writeSkill(env.skills, "wiki-notes", SETTINGS_SKILL);
    writeFileSync(
      path.join(env.home, "config.yaml"),
      "skills:\n  config:\n    wiki:\n      remote: origin\n",
    );
    const cfg = config({ skills: { config: { wiki: { remote: "origin" } } } });
    const library = openLibrary(env.home, cfg, { watch: false, persistIndex: false });
    try {
      const view = await library.view("wiki-notes");
      expect(view.required_commands).toEqual(["sh", "skillgate-no-such-command-xyz"]);
      expect(view.missing_required_commands).toEqual(["skillgate-no-such-command-xyz"]);
      expect(view.readiness_status).toBe("setup_needed");
      expect(String(view.setup_note)).toContain("skillgate-no-such-command-xyz");
      expect(view.unset_settings).toEqual(["wiki.branch"]);
      const ctx = terminalContext({ home: env.home, config: cfg, library });
      const spec = registry.find((item) => item.path.join(" ") === "skills view");
      if (!spec) throw new Error("no skills view");
      const text = replyToPlainText(await parseAndRun(spec, ctx, ["wiki-notes"]));
      expect(text).toContain("command `skillgate-no-such-command-xyz` is not on PATH — install it");
      expect(text).toContain(
        "setting `wiki.branch` is not set (Branch) — `skillgate skills config set wiki.branch <value>`",
      );
      expect(text).toContain("`wiki.remote` = origin — Git remote to push to");
      expect(text).toContain("(default)");
    } finally {
      library.close?.();
    }
  });
});

describe("conditional activation", () => {
  const agentTools = { tools: new Set(["skills_list", "skill_view"]), toolsets: new Set(["skills"]) };
  it("requires_* need every listed tool; fallback_for_* hide while a primary is available", () => {
    expect(activationBlocker({}, agentTools)).toBeNull();
    expect(activationBlocker({ metadata: { hermes: { requires_tools: ["terminal"] } } }, agentTools)).toMatch(
      /terminal/,
    );
    expect(
      activationBlocker({ metadata: { hermes: { requires_toolsets: ["skills"] } } }, agentTools),
    ).toBeNull();
    expect(
      activationBlocker({ metadata: { hermes: { requires_toolsets: ["skills", "web"] } } }, agentTools),
    ).toMatch(/web/);
    expect(
      activationBlocker({ metadata: { hermes: { fallback_for_toolsets: ["web"] } } }, agentTools),
    ).toBeNull();
    expect(
      activationBlocker({ metadata: { hermes: { fallback_for_toolsets: ["skills"] } } }, agentTools),
    ).toMatch(/fallback/);
    expect(
      activationBlocker({ metadata: { hermes: { fallback_for_tools: ["skill_view"] } } }, agentTools),
    ).toMatch(/fallback/);
    expect(activationBlocker({ requires_tools: "terminal" }, agentTools)).toMatch(/terminal/);
  });
});
