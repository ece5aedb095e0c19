import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openLibrary } from "../../src/skills/library.js";
import { config, type tempHome, tempHomeEachTest, writeFile, writeSkill } from "./helpers.js";

let env: ReturnType<typeof tempHome>;
const libraries = tempHomeEachTest((made) => {
  env = made;
});
const open = (cfg = config(), options: { env?: NodeJS.ProcessEnv } = {}) => {
  const library = openLibrary(env.home, cfg, { watch: false, env: options.env ?? {} });
  libraries.push(library);
  return library;
};

describe("discovery (scenarios 62, 63, 75)", () => {
  it("takes the category from the first path part when there are ≥ 3 parts", async () => {
    writeSkill(env.skills, "mlops/axolotl", "name: axolotl\ndescription: Fine-tune models");
    writeSkill(env.skills, "my-skill", "name: my-skill\ndescription: Top level");
    writeSkill(env.skills, "a/b/deep", "name: deep\ndescription: Deeply nested");
    const all = await open().all();
    const byName = Object.fromEntries(all.map((entry) => [entry.name, entry]));
    expect(byName.axolotl?.category).toBe("mlops");
    expect(byName.axolotl?.relPath).toBe("mlops/axolotl");
    expect(byName["my-skill"]?.category).toBeNull();
    expect(byName.deep?.category).toBe("a");
    expect(byName.deep?.rootKind).toBe("local");
  });

  it("gives [] for a missing or empty skills dir", async () => {
    expect(await open().all()).toEqual([]);
    mkdirSync(env.skills);
    expect(await open().all()).toEqual([]);
  });

  it("takes the description from the first body line that is not a heading", async () => {
    writeSkill(
      env.skills,
      "no-desc",
      "name: no-desc",
      "# Heading\n\n## Sub\n\nFirst paragraph.\nSecond line.\n",
    );
    writeSkill(env.skills, "no-frontmatter", null, "# T\n\nPlain body line.\n");
    const all = await open().all();
    expect(all.find((entry) => entry.name === "no-desc")?.description).toBe("First paragraph.");
    expect(all.find((entry) => entry.name === "no-frontmatter")?.description).toBe("Plain body line.");
  });

  it("truncates descriptions over 1024 chars to 1021 + '...' and names to 64", async () => {
    const long = "d".repeat(2000);
    const name = "n".repeat(80);
    writeSkill(env.skills, "long", `name: ${name}\ndescription: ${long}`);
    const [entry] = await open().all();
    expect(entry?.description).toBe(`${"d".repeat(1021)}...`);
    expect(entry?.description.length).toBe(1024);
    expect(entry?.name).toBe("n".repeat(64));
  });

  it("reads only the first 4000 characters of SKILL.md", async () => {
    // A frontmatter block that closes after 4000 characters is not seen: the folder name is used.
    writeSkill(env.skills, "huge-front", `name: declared\nnotes: ${"x".repeat(5000)}`);
    // Multi-byte text: the block closes after byte 4000 but before character 4000, so it is seen.
    writeSkill(
      env.skills,
      "multibyte",
      `name: multibyte\ndescription: ${"é".repeat(1000)}\nnotes: ${"ü".repeat(1500)}`,
      "ö".repeat(3000),
    );
    const all = await open().all();
    expect(all.map((entry) => entry.name).sort()).toEqual(["huge-front", "multibyte"]);
    expect(all.find((entry) => entry.name === "multibyte")?.description).toBe("é".repeat(1000));
  });

  it("skips .git, venvs and node_modules, and support dirs only inside a skill", async () => {
    writeSkill(env.skills, ".git/hooks-skill", "name: in-git");
    writeSkill(env.skills, "tools/node_modules/pkg", "name: in-node-modules");
    writeSkill(env.skills, "py/.venv/lib/x", "name: in-venv");
    writeSkill(env.skills, ".archive/old", "name: archived");
    writeSkill(env.skills, "parent", "name: parent");
    writeSkill(env.skills, "parent/references/pkg", "name: not-a-skill-in-references");
    writeSkill(env.skills, "parent/scripts/tool", "name: not-a-skill-in-scripts");
    writeSkill(env.skills, "scripts/runner", "name: runner-in-scripts-category");
    writeSkill(env.skills, "templates", "name: templates-is-a-skill");
    const names = (await open().all()).map((entry) => entry.name).sort();
    expect(names).toEqual(["parent", "runner-in-scripts-category", "templates-is-a-skill"]);
  });

  it("follows symlinked categories without looping", async () => {
    const outside = path.join(env.home, "elsewhere");
    writeSkill(outside, "linked-skill", "name: linked-skill\ndescription: via link");
    mkdirSync(env.skills, { recursive: true });
    symlinkSync(outside, path.join(env.skills, "linked"));
    writeSkill(env.skills, "cat/real", "name: real");
    symlinkSync(env.skills, path.join(env.skills, "cat", "loop"));
    const all = await open().all();
    expect(all.map((entry) => entry.name).sort()).toEqual(["linked-skill", "real"]);
    expect(all.find((entry) => entry.name === "linked-skill")?.category).toBe("linked");
    expect(all.find((entry) => entry.name === "linked-skill")?.relPath).toBe("linked/linked-skill");
  });

  it("first name wins, local before external (scenario 74)", async () => {
    const external = path.join(env.home, "ext");
    writeSkill(env.skills, "dup", "name: dup\ndescription: local copy");
    writeSkill(external, "dup", "name: dup\ndescription: external copy");
    writeSkill(external, "only-ext", "name: only-ext");
    const all = await open(config({ skills: { external_dirs: external } })).all();
    expect(all.find((entry) => entry.name === "dup")?.description).toBe("local copy");
    const ext = all.find((entry) => entry.name === "only-ext");
    expect(ext?.rootKind).toBe("external");
  });

  it("skips a skill whose SKILL.md cannot be decoded", async () => {
    writeSkill(env.skills, "good", "name: good");
    const bad = path.join(env.skills, "bad");
    mkdirSync(bad);
    writeFileSync(path.join(bad, "SKILL.md"), Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x0a]));
    expect((await open().all()).map((entry) => entry.name)).toEqual(["good"]);
  });

  it("hands out records callers cannot corrupt (scenario 72: frozen instead of copied)", async () => {
    writeSkill(env.skills, "a", "name: a");
    const library = open();
    const first = await library.all();
    expect(() => {
      (first[0] as { name: string }).name = "mutated";
    }).toThrow(TypeError);
    expect(() => first.pop()).toThrow(TypeError);
    expect((await library.all()).map((entry) => entry.name)).toEqual(["a"]);
  });
});

describe("OS platform gating (scenario 68)", () => {
  it("hides skills whose platforms do not include this OS", async () => {
    const other = process.platform === "win32" ? "linux" : "windows";
    const mine = process.platform === "darwin" ? "macos" : process.platform === "win32" ? "windows" : "linux";
    writeSkill(env.skills, "everywhere", "name: everywhere");
    writeSkill(env.skills, "mine", `name: mine\nplatforms: [${mine.toUpperCase()}]`);
    writeSkill(env.skills, "other", `name: other\nplatforms: ${other}`);
    writeSkill(env.skills, "unknown", "name: unknown\nplatforms: [plan9]");
    const library = open();
    expect((await library.visible(null)).map((entry) => entry.name).sort()).toEqual(["everywhere", "mine"]);
    expect(((await library.list()).skills ?? []).map((skill) => skill.name).sort()).toEqual([
      "everywhere",
      "mine",
    ]);
    // Still on disk for the curator: the OS decides what is shown and loaded, never the lifecycle.
    const onDisk = (await library.all()).map((entry) => [entry.name, entry.hiddenBy ?? null]);
    expect(onDisk.sort()).toEqual([
      ["everywhere", null],
      ["mine", null],
      ["other", "os"],
      ["unknown", "os"],
    ]);
    expect((await library.find("other"))?.hiddenBy).toBe("os");
    const refused = await library.view("other");
    expect(refused).toEqual({
      success: false,
      error: "Skill 'other' is not supported on this platform.",
      readiness_status: "unsupported",
    });
  });
});

describe("skills_list (scenario 64)", () => {
  it("creates a missing skills dir and says so", async () => {
    const result = await open().list();
    expect(result).toEqual({
      success: true,
      skills: [],
      categories: [],
      message: `No skills found. Skills directory created at ${env.skills}/`,
    });
    expect(readFileSync.length).toBeGreaterThan(0);
    const again = await open().list();
    expect(again).toEqual({
      success: true,
      skills: [],
      categories: [],
      message: "No skills found in skills/ directory.",
    });
  });

  it("sorts by (category, name), lists categories and filters by exact category", async () => {
    writeSkill(env.skills, "zeta", "name: zeta\ndescription: Z");
    writeSkill(env.skills, "devops/b-deploy", "name: b-deploy\ndescription: B");
    writeSkill(env.skills, "devops/a-build", "name: a-build\ndescription: A");
    writeSkill(env.skills, "data/etl", "name: etl\ndescription: E");
    const library = open();
    const result = await library.list();
    expect(result).toEqual({
      success: true,
      skills: [
        { name: "zeta", description: "Z", category: null },
        { name: "etl", description: "E", category: "data" },
        { name: "a-build", description: "A", category: "devops" },
        { name: "b-deploy", description: "B", category: "devops" },
      ],
      categories: ["data", "devops"],
      count: 4,
      hint: "Use skill_view(name) to see full content, tags, and linked files",
    });
    const filtered = await library.list({ category: "devops" });
    expect(filtered.skills?.map((skill) => skill.name)).toEqual(["a-build", "b-deploy"]);
    expect(filtered.categories).toEqual(["devops"]);
    expect(filtered.count).toBe(2);
    expect((await library.list({ category: "dev" })).count).toBe(0);
  });

  it("applies skills.disabled and platform_disabled (scenario 73)", async () => {
    writeSkill(env.skills, "a", "name: a");
    writeSkill(env.skills, "b", "name: b");
    writeSkill(env.skills, "c", "name: c");
    const library = open(
      config({ skills: { disabled: ["a"], platform_disabled: { telegram: ["b"], discord: [] } } }),
    );
    expect((await library.list()).skills?.map((skill) => skill.name)).toEqual(["b", "c"]);
    expect((await library.list({ platform: "telegram" })).skills?.map((skill) => skill.name)).toEqual(["c"]);
    expect((await library.list({ platform: "discord" })).skills?.map((skill) => skill.name)).toEqual([
      "b",
      "c",
    ]);
    expect((await library.visible("telegram")).map((entry) => entry.name)).toEqual(["c"]);
  });
});

describe("skill_view (scenario 65)", () => {
  it("finds a skill by folder name and by frontmatter name and returns the reference object", async () => {
    const dir = writeSkill(
      env.skills,
      "docs/pdf-tools",
      "name: pdf\ndescription: Work with PDFs\nmetadata:\n  hermes:\n    tags: [pdf, docs]\n    related_skills: ocr, scan",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${VAR} placeholder is the point of this test
      "# PDF\n\nRun ${HERMES_SKILL_DIR}/scripts/x.sh\n",
    );
    writeFile(path.join(dir, "references", "api.md"), "# API\n");
    writeFile(path.join(dir, "references", "nested", "deep.md"), "# deep\n");
    writeFile(path.join(dir, "templates", "sub", "t.yaml"), "a: 1\n");
    writeFile(path.join(dir, "templates", "image.png"), "png");
    writeFile(path.join(dir, "assets", "logo.svg"), "<svg/>");
    writeFile(path.join(dir, "scripts", "x.sh"), "echo hi\n");
    writeFile(path.join(dir, "scripts", "notes.txt"), "not a script\n");
    const library = open();
    const byFolder = await library.view("pdf-tools");
    const byName = await library.view("pdf");
    expect(byName).toEqual(byFolder);
    expect(byFolder).toEqual({
      success: true,
      name: "pdf",
      description: "Work with PDFs",
      tags: ["pdf", "docs"],
      related_skills: ["ocr", "scan"],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${VAR} placeholder is the point of this test
      content: readFileSync(path.join(dir, "SKILL.md"), "utf8").replace("${HERMES_SKILL_DIR}", dir),
      path: "docs/pdf-tools/SKILL.md",
      skill_dir: dir,
      linked_files: {
        references: ["references/api.md"],
        templates: ["templates/sub/t.yaml"],
        assets: ["assets/logo.svg"],
        scripts: ["scripts/x.sh"],
      },
      usage_hint:
        "To view linked files, call skill_view(name, file_path) where file_path is e.g. 'references/api.md' or 'assets/config.yaml'",
      required_environment_variables: [],
      required_commands: [],
      missing_required_environment_variables: [],
      missing_credential_files: [],
      missing_required_commands: [],
      setup_needed: false,
      setup_skipped: false,
      readiness_status: "available",
      metadata: { hermes: { tags: ["pdf", "docs"], related_skills: "ocr, scan" } },
      security_warnings: [],
    });
    expect(await library.view("docs/pdf-tools")).toEqual(byFolder);
  });

  it("has null linked_files and usage_hint when there are none; top-level tags are used without metadata", async () => {
    writeSkill(env.skills, "plain", "name: plain\ntags: '[a, b]'");
    const result = await open().view("plain");
    expect(result.linked_files).toBeNull();
    expect(result.usage_hint).toBeNull();
    expect(result.tags).toEqual(["a", "b"]);
  });

  it("shows a reference file, a binary file, and a missing file with the available files", async () => {
    const dir = writeSkill(env.skills, "kit", "name: kit");
    writeFile(path.join(dir, "references", "api.md"), "# API reference\n");
    writeFile(path.join(dir, "assets", "blob.bin"), Buffer.from([0, 1, 2, 3, 255]));
    writeFile(path.join(dir, "helper.py"), "print(1)\n");
    writeFile(path.join(dir, "data.csv"), "a,b\n");
    const library = open();
    expect(await library.view("kit", { filePath: "references/api.md" })).toEqual({
      success: true,
      name: "kit",
      file: "references/api.md",
      content: "# API reference\n",
      file_type: ".md",
      security_warnings: [],
    });
    expect(await library.view("kit", { filePath: "assets/blob.bin" })).toEqual({
      success: true,
      name: "kit",
      file: "assets/blob.bin",
      content: "[Binary file: blob.bin, size: 5 bytes]",
      is_binary: true,
    });
    expect(await library.view("kit", { filePath: "references/missing.md" })).toEqual({
      success: false,
      error: "File 'references/missing.md' not found in skill 'kit'.",
      available_files: {
        references: ["references/api.md"],
        assets: ["assets/blob.bin"],
        other: ["helper.py"],
      },
    });
  });

  it("says not found with the first 20 names in list order and the hint", async () => {
    for (let i = 0; i < 25; i++)
      writeSkill(
        env.skills,
        `cat${i % 3}/s${String(i).padStart(2, "0")}`,
        `name: s${String(i).padStart(2, "0")}`,
      );
    const library = open();
    const listed = (await library.list()).skills?.map((skill) => skill.name) ?? [];
    const result = await library.view("nope");
    expect(result).toEqual({
      success: false,
      error: "Skill 'nope' not found.",
      available_skills: listed.slice(0, 20),
      hint: "Use skills_list to see all available skills",
    });
  });

  it("says the skills dir does not exist when there are no roots", async () => {
    expect(await open().view("anything")).toEqual({
      success: false,
      error: "Skills directory does not exist yet. It will be created on first install.",
    });
  });

  it("refuses disabled skills, naming the skill and the platform (scenario 65, 73)", async () => {
    writeSkill(env.skills, "secret-ops", "name: secret-ops");
    writeSkill(env.skills, "chatty", "name: chatty");
    const library = open(
      config({ skills: { disabled: ["secret-ops"], platform_disabled: { telegram: ["chatty"] } } }),
    );
    const global = await library.view("secret-ops");
    expect(global.success).toBe(false);
    expect(global.error).toContain("'secret-ops' is disabled everywhere");
    const onTelegram = await library.view("chatty", { platform: "telegram" });
    expect(onTelegram.success).toBe(false);
    expect(onTelegram.error).toContain("'chatty'");
    expect(onTelegram.error).toContain("telegram");
    expect((await library.view("chatty", { platform: "discord" })).success).toBe(true);
    expect((await library.view("chatty")).success).toBe(true);
  });

  it("serves a legacy single-file skill", async () => {
    writeFile(
      path.join(env.skills, "notes", "legacy-tool.md"),
      "---\nname: legacy-tool\ndescription: Old style\n---\nBody\n",
    );
    const result = await open().view("legacy-tool");
    expect(result.success).toBe(true);
    expect(result.name).toBe("legacy-tool");
    expect(result.linked_files).toBeNull();
    expect(result.path).toBe("notes/legacy-tool.md");
  });

  it("bumps view_count only when asked", async () => {
    writeSkill(env.skills, "counted", "name: counted");
    const library = open();
    await library.view("counted");
    await library.view("counted", { bumpView: true });
    await library.view("counted", { bumpView: true, filePath: "SKILL.md" });
    await library.view("missing", { bumpView: true });
    const usage = JSON.parse(readFileSync(path.join(env.skills, ".usage.json"), "utf8"));
    expect(Object.keys(usage)).toEqual(["counted"]);
    expect(usage.counted.view_count).toBe(2);
  });
});

describe("collisions and external dirs (scenarios 70, 74)", () => {
  it("refuses an ambiguous name across local and external, and resolves a categorized path", async () => {
    const external = path.join(env.home, "ext");
    writeSkill(env.skills, "tools/fmt", "name: fmt");
    writeSkill(external, "fmt", "name: fmt");
    const library = open(config({ skills: { external_dirs: [external] } }));
    const result = await library.view("fmt");
    expect(result.success).toBe(false);
    expect(result.error).toBe(
      "Ambiguous skill name 'fmt': 2 skills match across your local skills dir and external_dirs. Refusing to guess — load one explicitly by its categorized path.",
    );
    expect([...(result.matches as string[])].sort()).toEqual(
      [path.join(external, "fmt"), "tools/fmt"].sort(),
    );
    expect(result.hint).toContain("skill_view('tools/fmt')");
    const local = await library.view("tools/fmt");
    expect(local.success).toBe(true);
    expect(local.path).toBe("tools/fmt/SKILL.md");
  });

  it("refuses collisions between two external dirs", async () => {
    const one = path.join(env.home, "one");
    const two = path.join(env.home, "two");
    writeSkill(one, "same", "name: same");
    writeSkill(two, "same", "name: same");
    mkdirSync(env.skills);
    const result = await open(config({ skills: { external_dirs: [one, two] } })).view("same");
    expect(result.success).toBe(false);
    expect(String(result.error)).toContain("Ambiguous");
  });

  it("reports an external skill's path as parent/SKILL.md and warns that it is outside the local library", async () => {
    const external = path.join(env.home, "ext");
    writeSkill(external, "cat/outside", "name: outside");
    mkdirSync(env.skills);
    const result = await open(config({ skills: { external_dirs: [external] } })).view("outside");
    expect(result.success).toBe(true);
    expect(result.path).toBe("outside/SKILL.md");
    expect(
      (result.security_warnings as string[]).some((warning) => warning.includes("external folder")),
    ).toBe(true);
  });

  it("does not treat references/x.md or references/<pkg>/SKILL.md as skills", async () => {
    const dir = writeSkill(env.skills, "host", "name: host");
    writeFile(path.join(dir, "references", "x.md"), "---\nname: x\n---\n");
    writeSkill(dir, "references/pkg", "name: pkg");
    const library = open();
    expect((await library.view("x")).success).toBe(false);
    expect((await library.view("pkg")).success).toBe(false);
    expect((await library.view("host/references/pkg")).success).toBe(false);
  });

  it("expands $VAR placeholders and ~, resolves relative entries against home, skips missing, duplicate and local entries", async () => {
    const external = path.join(env.home, "ext-a");
    writeSkill(external, "from-var", "name: from-var");
    writeSkill(env.skills, "local-one", "name: local-one");
    const cfg = config({
      skills: {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${VAR} placeholder is the point of this test
        external_dirs: ["${EXT_DIR}", "ext-a", "./skills", "${UNSET_VAR}/x", "missing-dir", env.skills],
      },
    });
    const library = openLibrary(env.home, cfg, { watch: false, env: { EXT_DIR: external } });
    libraries.push(library);
    const all = await library.all();
    expect(all.map((entry) => `${entry.rootKind}:${entry.name}`)).toEqual([
      "local:local-one",
      "external:from-var",
    ]);
    expect(library.roots().map((root) => root.kind)).toEqual(["local", "external"]);
  });
});
