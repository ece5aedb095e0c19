import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import YAML from "yaml";
import { editConfigFile, planConfigEdit } from "../../src/config/edit.js";
import { ConfigError } from "../../src/core/errors.js";

const HAND_WRITTEN = `# skillgate and Hermes share this file
model:   {provider: x,  default: "m"}   # odd spacing kept

skills:
  # globally hidden
  disabled: [old-skill, "quoted"]   # inline comment
  platform_disabled:
    telegram:
    - noisy      # why
    - 'other'
  external_dirs: "~/ext"
# between sections
gateway:
    admins: ['telegram:1']    # 4-space indent
curator: {enabled: true}
`;

function edited(text: string, change: Parameters<typeof planConfigEdit>[1]): string {
  const result = planConfigEdit(text, change).text;
  if (result === null) throw new Error("no change");
  return result;
}

/** Lines of `after` not in `before` and vice versa (multiset difference). */
function lineDiff(before: string, after: string): { added: string[]; removed: string[] } {
  const count = (lines: string[]) => {
    const map = new Map<string, number>();
    for (const line of lines) map.set(line, (map.get(line) ?? 0) + 1);
    return map;
  };
  const a = count(before.split("\n"));
  const b = count(after.split("\n"));
  const added: string[] = [];
  const removed: string[] = [];
  for (const [line, n] of b) for (let i = n - (a.get(line) ?? 0); i > 0; i--) added.push(line);
  for (const [line, n] of a) for (let i = n - (b.get(line) ?? 0); i > 0; i--) removed.push(line);
  return { added, removed };
}

/** The hand-written config with arxiv added to `skills.platform_disabled.<platform>`. */
function arxivDisabledOn(platform: string): string {
  return edited(HAND_WRITTEN, {
    kind: "add-to-list",
    path: ["skills", "platform_disabled", platform],
    value: "arxiv",
  });
}

describe("planConfigEdit keeps every other byte", () => {
  it("appends to a block list as one line at the list's indent", () => {
    const out = arxivDisabledOn("telegram");
    expect(lineDiff(HAND_WRITTEN, out)).toEqual({ added: ["    - arxiv"], removed: [] });
    expect(out.indexOf("    - arxiv")).toBeGreaterThan(out.indexOf("- 'other'"));
    expect(YAML.parse(out).skills.platform_disabled.telegram).toEqual(["noisy", "other", "arxiv"]);
  });

  it("adds inside a flow list's brackets and removes from it", () => {
    const out = edited(HAND_WRITTEN, { kind: "add-to-list", path: ["skills", "disabled"], value: "b-skill" });
    expect(out).toBe(HAND_WRITTEN.replace('"quoted"]', '"quoted", b-skill]'));
    const back = edited(out, { kind: "remove-from-list", path: ["skills", "disabled"], value: "b-skill" });
    expect(back).toBe(HAND_WRITTEN);
  });

  it("removes a block item's own line; the last one leaves []", () => {
    const out = edited(HAND_WRITTEN, {
      kind: "remove-from-list",
      path: ["skills", "platform_disabled", "telegram"],
      value: "noisy",
    });
    expect(lineDiff(HAND_WRITTEN, out)).toEqual({ added: [], removed: ["    - noisy      # why"] });
    const empty = edited(out, {
      kind: "remove-from-list",
      path: ["skills", "platform_disabled", "telegram"],
      value: "other",
    });
    expect(YAML.parse(empty).skills.platform_disabled.telegram).toEqual([]);
    expect(empty.split("\n# between sections\n")[1]).toBe(HAND_WRITTEN.split("\n# between sections\n")[1]);
  });

  it("inserts missing keys at the end of the nearest block mapping, nested", () => {
    const out = arxivDisabledOn("discord");
    expect(lineDiff(HAND_WRITTEN, out)).toEqual({ added: ["    discord: [arxiv]"], removed: [] });
    const setting = edited(HAND_WRITTEN, {
      kind: "set",
      path: ["skills", "config", "wiki", "path"],
      value: "~/wiki",
    });
    expect(lineDiff(HAND_WRITTEN, setting)).toEqual({
      added: ["  config:", "    wiki:", "      path: ~/wiki"],
      removed: [],
    });
    expect(YAML.parse(setting).skills.config.wiki.path).toBe("~/wiki");
  });

  it("replaces a scalar where it stands; quoting follows YAML's rules", () => {
    const withSetting = edited(HAND_WRITTEN, {
      kind: "set",
      path: ["skills", "config", "wiki", "path"],
      value: "/srv/a",
    });
    const again = edited(withSetting, {
      kind: "set",
      path: ["skills", "config", "wiki", "path"],
      value: "yes: no # tricky",
    });
    expect(YAML.parse(again).skills.config.wiki.path).toBe("yes: no # tricky");
    expect(lineDiff(withSetting, again).removed).toEqual(["      path: /srv/a"]);
  });

  it("creates the section in an empty or missing file and appends a missing top-level section", () => {
    expect(edited("", { kind: "add-to-list", path: ["skills", "disabled"], value: "x" })).toBe(
      "skills:\n  disabled: [x]\n",
    );
    const noSkills = "# c\ngateway:\n  admins: []\n";
    expect(edited(noSkills, { kind: "add-to-list", path: ["skills", "disabled"], value: "x" })).toBe(
      `${noSkills}skills:\n  disabled: [x]\n`,
    );
  });

  it("changes nothing when there is nothing to change", () => {
    expect(
      planConfigEdit(HAND_WRITTEN, { kind: "add-to-list", path: ["skills", "disabled"], value: "quoted" })
        .text,
    ).toBeNull();
    expect(
      planConfigEdit(HAND_WRITTEN, {
        kind: "remove-from-list",
        path: ["skills", "disabled"],
        value: "absent",
      }).text,
    ).toBeNull();
  });

  it("refuses layouts it cannot edit surgically, and broken YAML, with a clear error", () => {
    expect(() =>
      planConfigEdit("a: &s {x: 1}\nb: *s\n", { kind: "set", path: ["a", "x"], value: 2 }),
    ).toThrow(/anchor `&s`/);
    expect(() =>
      planConfigEdit("skills: [a\n", { kind: "add-to-list", path: ["skills", "disabled"], value: "x" }),
    ).toThrow(ConfigError);
    expect(() =>
      planConfigEdit("skills:\n  disabled: {a: 1}\n", {
        kind: "add-to-list",
        path: ["skills", "disabled"],
        value: "x",
      }),
    ).toThrow(/mapping, not a list/);
  });
});

describe("editConfigFile", () => {
  let home: string;
  beforeEach(async () => {
    home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-edit-"));
  });
  afterEach(async () => {
    await fs.rm(home, { recursive: true, force: true });
  });

  it("writes atomically keeping the file's mode, and refuses when the file changed since it was read", async () => {
    const file = path.join(home, "config.yaml");
    await fs.writeFile(file, HAND_WRITTEN, { mode: 0o640 });
    await fs.chmod(file, 0o640);
    const result = await editConfigFile(home, {
      kind: "add-to-list",
      path: ["skills", "disabled"],
      value: "z",
    });
    expect(result.changed).toBe(true);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o640);
    expect(await fs.readFile(file, "utf8")).toBe(HAND_WRITTEN.replace('"quoted"]', '"quoted", z]'));

    const racing = `${await fs.readFile(file, "utf8")}# someone else's edit\n`;
    await expect(
      editConfigFile(
        home,
        { kind: "add-to-list", path: ["skills", "disabled"], value: "w" },
        { beforeWrite: () => fs.writeFile(file, racing) },
      ),
    ).rejects.toThrow(/changed while skillgate was editing it/);
    expect(await fs.readFile(file, "utf8")).toBe(racing);
    const leftovers = (await fs.readdir(home)).filter((name) => name.endsWith(".tmp"));
    expect(leftovers).toEqual([]);
  });
});
