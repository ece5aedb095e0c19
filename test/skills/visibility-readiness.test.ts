import { readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/core/errors.js";
import { english } from "../../src/core/i18n/messages.js";
import { openLibrary } from "../../src/skills/library.js";
import {
  checkReadiness,
  envRequirements,
  gatewaySetupHint,
  promptForMissingSecrets,
  readinessFields,
} from "../../src/skills/readiness.js";
import {
  disabledNames,
  isSkillVisible,
  skillMatchesEnvironment,
  skillMatchesPlatform,
} from "../../src/skills/visibility.js";
import { config, type tempHome, tempHomeEachTest, writeSkill } from "./helpers.js";

let env: ReturnType<typeof tempHome>;
const libraries = tempHomeEachTest((made) => {
  env = made;
});
describe("skill_matches_platform (scenario 68)", () => {
  it("matches when absent, maps macos/windows, lowercases, accepts a string", () => {
    expect(skillMatchesPlatform({}, "linux", {})).toBe(true);
    expect(skillMatchesPlatform({ platforms: [] }, "linux", {})).toBe(true);
    expect(skillMatchesPlatform({ platforms: ["macos"] }, "darwin", {})).toBe(true);
    expect(skillMatchesPlatform({ platforms: ["macos"] }, "linux", {})).toBe(false);
    expect(skillMatchesPlatform({ platforms: "MacOS" }, "darwin", {})).toBe(true);
    expect(skillMatchesPlatform({ platforms: ["Windows"] }, "win32", {})).toBe(true);
    expect(skillMatchesPlatform({ platforms: ["beos"] }, "linux", {})).toBe(false);
  });

  it("lets linux, termux and android tags match on Termux", () => {
    const termux = { TERMUX_VERSION: "0.118" };
    if (process.platform === "linux") {
      expect(skillMatchesPlatform({ platforms: ["termux"] }, process.platform, termux)).toBe(true);
      expect(skillMatchesPlatform({ platforms: ["android"] }, process.platform, termux)).toBe(true);
      expect(skillMatchesPlatform({ platforms: ["termux"] }, process.platform, {})).toBe(false);
    }
  });
});

describe("environments gate", () => {
  it("needs one listed environment and fails open on unknown tags", () => {
    const none = { kanban: false, docker: false, s6: false };
    expect(skillMatchesEnvironment({}, none)).toBe(true);
    expect(skillMatchesEnvironment({ environments: ["docker"] }, none)).toBe(false);
    expect(skillMatchesEnvironment({ environments: ["docker"] }, { ...none, docker: true })).toBe(true);
    expect(skillMatchesEnvironment({ environments: ["kanban", "s6"] }, { ...none, s6: true })).toBe(true);
    expect(skillMatchesEnvironment({ environments: ["mainframe"] }, none)).toBe(true);
  });
});

describe("disabled skills (scenario 73)", () => {
  it("is the union of global and platform lists; an empty platform list keeps the global one", () => {
    const cfg = config({
      skills: { disabled: ["g"], platform_disabled: { telegram: ["t", " "], discord: [] } },
    });
    expect([...disabledNames("telegram", cfg)].sort()).toEqual(["g", "t"]);
    expect([...disabledNames("discord", cfg)]).toEqual(["g"]);
    expect(isSkillVisible("t", {}, "telegram", cfg)).toBe(false);
    expect(isSkillVisible("t", {}, "discord", cfg)).toBe(true);
    expect(isSkillVisible("g", {}, null, cfg)).toBe(false);
  });

  it("treats a scalar as one name and null sections as empty", () => {
    expect([...disabledNames(null, config({ skills: { disabled: "my-skill" } }))]).toEqual(["my-skill"]);
    expect(
      disabledNames("telegram", config({ skills: { disabled: null, platform_disabled: null } })).size,
    ).toBe(0);
    expect(isSkillVisible("my-skill-2", {}, null, config({ skills: { disabled: "my-skill" } }))).toBe(true);
  });

  it("honours HERMES_PLATFORM when no platform is given", () => {
    const cfg = config({ skills: { platform_disabled: { feishu: ["f"] } } });
    const saved = process.env.HERMES_PLATFORM;
    process.env.HERMES_PLATFORM = "feishu";
    try {
      expect(isSkillVisible("f", {}, null, cfg)).toBe(false);
    } finally {
      if (saved === undefined) delete process.env.HERMES_PLATFORM;
      else process.env.HERMES_PLATFORM = saved;
    }
  });

  it("checks the frontmatter name too and gates the OS platform", () => {
    const cfg = config({ skills: { disabled: ["declared"] } });
    expect(isSkillVisible("folder", { name: "declared" }, null, cfg)).toBe(false);
    expect(isSkillVisible("x", { platforms: ["plan9"] }, null, config())).toBe(false);
  });

  it("fails closed with a ConfigError on a malformed disabled list (skillgate differs from Hermes)", async () => {
    const cfg = config({ skills: { disabled: { not: "a list" } } });
    expect(() => isSkillVisible("x", {}, null, cfg)).toThrow(ConfigError);
    expect(() => isSkillVisible("x", {}, null, cfg)).toThrow(/skills\.disabled/);
    writeSkill(env.skills, "x", "name: x");
    const library = openLibrary(env.home, cfg, { watch: false });
    libraries.push(library);
    await expect(library.list()).rejects.toThrow(ConfigError);
    await expect(library.view("x")).rejects.toThrow(ConfigError);
    expect((await library.all()).map((entry) => entry.name)).toEqual(["x"]);
  });
});

describe("env requirements (scenario 61)", () => {
  it("keeps a full entry exactly and normalises the legacy and setup forms", () => {
    expect(
      envRequirements({
        required_environment_variables: [
          {
            name: "TENOR_API_KEY",
            prompt: "Tenor API key",
            help: "https://tenor.com",
            required_for: "gif search",
          },
        ],
      }),
    ).toEqual([
      {
        name: "TENOR_API_KEY",
        prompt: "Tenor API key",
        help: "https://tenor.com",
        required_for: "gif search",
      },
    ]);
    expect(envRequirements({ prerequisites: { env_vars: ["TENOR_API_KEY"] } })).toEqual([
      { name: "TENOR_API_KEY", prompt: "Enter value for TENOR_API_KEY" },
    ]);
    expect(
      envRequirements({
        setup: {
          help: "See docs",
          collect_secrets: [
            { env_var: "A_KEY", prompt: "A key", provider_url: "https://a" },
            { env_var: "B_KEY" },
          ],
        },
        required_environment_variables: ["A_KEY", "bad-name", { env_var: "C_KEY", optional: true }],
      }),
    ).toEqual([
      { name: "A_KEY", prompt: "Enter value for A_KEY" },
      { name: "C_KEY", prompt: "Enter value for C_KEY", help: "See docs", optional: true },
      { name: "B_KEY", prompt: "Enter value for B_KEY", help: "See docs" },
    ]);
  });

  it("counts empty values in .env or the environment as missing", async () => {
    writeFileSync(path.join(env.home, ".env"), "EMPTY_IN_FILE=\nSET_IN_FILE='yes'\n");
    const fm = {
      required_environment_variables: ["EMPTY_IN_FILE", "SET_IN_FILE", "EMPTY_IN_ENV", "SET_IN_ENV"],
    };
    const fields = await readinessFields(fm, env.home, { env: { EMPTY_IN_ENV: "", SET_IN_ENV: "1" } });
    expect(fields.missing_required_environment_variables).toEqual(["EMPTY_IN_FILE", "EMPTY_IN_ENV"]);
    expect(fields.setup_needed).toBe(true);
    expect(fields.readiness_status).toBe("setup_needed");
    expect(fields.setup_note).toBe(
      "Setup needed before using this skill: missing env $EMPTY_IN_FILE, $EMPTY_IN_ENV.",
    );
    expect(fields.gateway_setup_hint).toBeUndefined();
    expect(fields.setup_help).toBeUndefined();
  });

  it("takes setup_help from the first variable with help and ends setup_note with it, as Hermes does", async () => {
    const fm = {
      required_environment_variables: [
        { name: "PLAIN_KEY" },
        { name: "TENOR_API_KEY", prompt: "Tenor API key", help: "https://developers.google.com/tenor" },
        { name: "OTHER_KEY", help: "https://example.invalid/other" },
      ],
    };
    const fields = await readinessFields(fm, env.home, { env: {} });
    expect(fields.setup_help).toBe("https://developers.google.com/tenor");
    expect(fields.setup_note).toBe(
      "Setup needed before using this skill: missing env $PLAIN_KEY, $TENOR_API_KEY, $OTHER_KEY. https://developers.google.com/tenor",
    );
    // A provider URL from setup.collect_secrets counts the same way.
    const collected = await readinessFields(
      {
        setup: {
          help: "Read the setup guide",
          collect_secrets: [{ env_var: "S_KEY", provider_url: "https://p.invalid" }],
        },
      },
      env.home,
      { env: {} },
    );
    expect(collected.setup_help).toBe("https://p.invalid");
  });
});

describe("readiness on chat surfaces (scenarios 67, 69)", () => {
  const skill =
    "name: gif\nrequired_environment_variables:\n  - name: TENOR_API_KEY\n    prompt: Tenor API key";

  it("gives gateway_setup_hint on a chat platform and still serves the content", async () => {
    writeSkill(env.skills, "gif", skill, "# GIF\n\nSearch gifs.\n");
    const library = openLibrary(env.home, config(), { watch: false, env: {} });
    libraries.push(library);
    const chat = await library.view("gif", { platform: "telegram" });
    expect(chat.success).toBe(true);
    expect(String(chat.content).startsWith("---")).toBe(true);
    expect(chat.setup_needed).toBe(true);
    expect(chat.setup_skipped).toBe(false);
    expect(chat.missing_required_environment_variables).toEqual(["TENOR_API_KEY"]);
    expect(String(chat.gateway_setup_hint).toLowerCase()).toContain("local cli");
    expect(chat.gateway_setup_hint).toBe(gatewaySetupHint(env.home));
    expect(String(chat.gateway_setup_hint)).toContain(".env");
    const terminal = await library.view("gif");
    expect(terminal.gateway_setup_hint).toBeUndefined();
  });

  it("uses HERMES_SESSION_PLATFORM and mentions ~/.hermes/.env for the default home", async () => {
    const fields = await readinessFields(
      { prerequisites: { env_vars: ["LEGACY_KEY"] } },
      path.join(process.env.HOME ?? "/root", ".hermes"),
      {
        env: { HERMES_SESSION_PLATFORM: "telegram", TERMINAL_ENV: "docker" },
      },
    );
    expect(fields.setup_needed).toBe(true);
    expect(fields.gateway_setup_hint).toContain("~/.hermes/.env");
    expect(fields.setup_note).toContain(
      "DOCKER-backed skills need these requirements available inside the remote environment as well.",
    );
    const interactive = await readinessFields({ prerequisites: { env_vars: ["LEGACY_KEY"] } }, env.home, {
      env: { HERMES_SESSION_PLATFORM: "telegram", HERMES_INTERACTIVE: "1" },
    });
    expect(interactive.gateway_setup_hint).toBeUndefined();
  });

  it("on a remote backend only persisted values count (backend-only key is missing)", async () => {
    writeFileSync(path.join(env.home, ".env"), "PERSISTED_KEY=abc\n");
    const fm = { required_environment_variables: ["PERSISTED_KEY", "SHELL_ONLY_KEY"] };
    const remote = await readinessFields(fm, env.home, {
      env: { TERMINAL_ENV: "docker", SHELL_ONLY_KEY: "x" },
    });
    expect(remote.missing_required_environment_variables).toEqual(["SHELL_ONLY_KEY"]);
    const local = await readinessFields(fm, env.home, { env: { SHELL_ONLY_KEY: "x" } });
    expect(local.setup_needed).toBe(false);
  });

  it("checkReadiness works on a listed entry", async () => {
    writeSkill(env.skills, "gif", skill);
    const library = openLibrary(env.home, config(), { watch: false, env: {} });
    libraries.push(library);
    const [entry] = await library.all();
    expect(checkReadiness(entry!, env.home, {})).toEqual({ missing: ["TENOR_API_KEY"] });
    expect(checkReadiness(entry!, env.home, {}, { platform: "discord" }).setupHint).toBe(
      gatewaySetupHint(env.home),
    );
    expect(checkReadiness(entry!, env.home, { TENOR_API_KEY: "k" })).toEqual({ missing: [] });
  });
});

describe("promptForMissingSecrets (scenario 66, adapted)", () => {
  it("asks with hidden input, stores answers in .env with mode 0600, skips empty answers", async () => {
    writeFileSync(path.join(env.home, ".env"), "EXISTING=1\nTENOR_API_KEY=\n", { mode: 0o644 });
    const asked: { question: string; hidden?: boolean }[] = [];
    const answers = ["s3cr3t value", ""];
    const result = await promptForMissingSecrets(
      [{ name: "TENOR_API_KEY", prompt: "Tenor API key", help: "https://tenor.com" }, "SKIPPED_KEY"],
      env.home,
      async (question, options) => {
        asked.push({ question: english(question), hidden: options?.hidden });
        return answers.shift() ?? "";
      },
    );
    expect(result).toEqual({ stored: ["TENOR_API_KEY"], skipped: ["SKIPPED_KEY"] });
    expect(asked.every((item) => item.hidden === true)).toBe(true);
    expect(asked[0]?.question).toContain("Tenor API key");
    expect(asked.some((item) => item.question.includes("s3cr3t"))).toBe(false);
    const file = path.join(env.home, ".env");
    expect(readFileSync(file, "utf8")).toBe("EXISTING=1\nTENOR_API_KEY=s3cr3t value\n");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const fields = await readinessFields({ required_environment_variables: ["TENOR_API_KEY"] }, env.home, {
      env: {},
    });
    expect(fields.setup_needed).toBe(false);
  });

  it("creates .env with mode 0600 when it does not exist", async () => {
    await promptForMissingSecrets(["NEW_KEY"], env.home, async () => " padded ");
    const file = path.join(env.home, ".env");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toBe("NEW_KEY=padded\n");
  });
});
