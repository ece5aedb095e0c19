/**
 * Exact or refused: a setting key YAML would not keep as written (`<<`, `a: b`, `-x`, `on`, an empty part)
 * is refused with its reason when a skill declares it, instead of being written into config.yaml where
 * it would make every later `skills config set` refuse.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { english } from "../../src/core/i18n/messages.js";
import { refusedSettings, settingDeclarations, settingKeyProblem } from "../../src/skills/settings.js";
import { runCli } from "../support/cli-in-process.js";
import { readWithPyYAML } from "../support/python-readers.js";

const REFUSED = [
  "<<",
  "wiki.<<",
  "a: b",
  "a:",
  "a #b",
  "-x",
  "?x",
  "&anchor",
  "*alias",
  "!tag",
  "|block",
  ">folded",
  "#comment",
  "",
  "a..b",
  ".a",
  "a.",
  "on",
  "wiki.yes",
  "null",
  "12",
  " lead",
  "trail\u00a0",
];
const ACCEPTED = ["wiki.path", "wiki.remote", "my-key", "3d_model", "a-b.c_d", "wiki.path2"];

let home: string;
beforeEach(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-setting-keys-"));
});
afterEach(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

describe("setting keys YAML treats specially", () => {
  it.each(REFUSED)("%j is refused with a reason", (key) => {
    const reason = settingKeyProblem(key);
    expect(reason).not.toBeNull();
    expect(english(reason ?? "")).toContain(`\`${key}\``);
  });

  it.each(ACCEPTED)("%j is a setting", (key) => {
    expect(settingKeyProblem(key)).toBeNull();
  });

  it("a declaration is left out and reported, the others stay", () => {
    const frontmatter = {
      metadata: {
        hermes: {
          config: [
            { key: "<<", description: "merge" },
            { key: "wiki.path", description: "Wiki path" },
            { key: "-x", description: "dash" },
          ],
        },
      },
    };
    expect(settingDeclarations(frontmatter).map((item) => item.key)).toEqual(["wiki.path"]);
    expect(refusedSettings(frontmatter).map((item) => item.key)).toEqual(["<<", "-x"]);
  });

  it("skills view says why; skills config set refuses `<<` and later sets still work", async () => {
    const dir = path.join(home, "skills", "tuner");
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(
      path.join(dir, "SKILL.md"),
      [
        "---",
        "name: tuner",
        "description: Tunes things",
        "metadata:",
        "  hermes:",
        "    config:",
        '      - {key: "<<", description: Merged}',
        "      - {key: wiki.path, description: Wiki path}",
        "---",
        "",
        "Body.",
        "",
      ].join("\n"),
    );
    const view = await runCli(home, ["skills", "view", "tuner"]);
    expect(view.stdout).toContain("setting `<<` is not offered");
    expect(view.stdout).toContain("merge key");
    const json = await runCli(home, ["skills", "view", "tuner", "--json"]);
    const refused = (JSON.parse(json.stdout) as { refused_settings?: { key: string; reason: string }[] })
      .refused_settings;
    expect(refused?.map((item) => item.key)).toEqual(["<<"]);

    const merge = await runCli(home, ["skills", "config", "set", "<<", "x", "-y"]);
    expect(merge.code).not.toBe(0);
    expect(`${merge.stdout}${merge.stderr}`).toContain("merge key");
    const set = await runCli(home, ["skills", "config", "set", "wiki.path", "/srv/wiki", "-y"]);
    expect(set.code, set.stdout + set.stderr).toBe(0);
    const read = readWithPyYAML(path.join(home, "config.yaml")) as {
      skills: { config: Record<string, unknown> };
    };
    expect(read.skills.config).toEqual({ wiki: { path: "/srv/wiki" } });
  });
});
