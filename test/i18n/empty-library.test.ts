/**
 * `skills list` on a home with no skills, in both locales: the reader sees the catalog's sentence in
 * their language, while the result's `message` (Hermes' `skills_list` JSON) keeps its English byte for
 * byte. Two cases: a skills folder that exists and is empty, and no skills folder at all (the library
 * creates it and says where).
 */
import { mkdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { registry } from "../../commands/index.js";
import { parseAndRun } from "../../commands/runner.js";
import { renderJson } from "../../src/core/render-terminal.js";
import { tempHome } from "../telegram/helpers.js";
import { chatOn, englishLeft, KEY_PATTERN, shown } from "./complete-support.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function listOn(home: string) {
  const spec = registry.find((candidate) => candidate.path.join(" ") === "skills list");
  if (!spec) throw new Error("no `skills list` command");
  return parseAndRun(spec, chatOn(home, true, new Date()), []);
}

describe("skills list with no skills", () => {
  it("says so in the reader's language and keeps Hermes' English message in the JSON", async () => {
    const { home, cleanup } = await tempHome();
    cleanups.push(cleanup);
    await mkdir(path.join(home, "skills"), { recursive: true });
    await writeFile(path.join(home, "config.yaml"), "");
    const reply = await listOn(home);
    expect(shown(reply, "en").trim()).toBe("No skills found in skills/ directory.");
    const zh = shown(reply, "zh-CN");
    expect(zh).toMatch(/技能/);
    expect(englishLeft(zh, [])).toBeNull();
    expect(KEY_PATTERN.test(zh)).toBe(false);
    expect(JSON.parse(renderJson(reply)).message).toBe("No skills found in skills/ directory.");
  });

  it("names the skills folder it created, in either language", async () => {
    const { home, cleanup } = await tempHome();
    cleanups.push(cleanup);
    await writeFile(path.join(home, "config.yaml"), "");
    const reply = await listOn(home);
    const dir = path.join(home, "skills");
    expect((await stat(dir)).isDirectory()).toBe(true);
    const english = `No skills found. Skills directory created at ${dir}/`;
    expect(shown(reply, "en").trim()).toBe(english);
    const zh = shown(reply, "zh-CN");
    expect(zh).toContain(`${dir}/`);
    expect(zh).toMatch(/已创建技能目录/);
    expect(englishLeft(zh, [])).toBeNull();
    expect(JSON.parse(renderJson(reply)).message).toBe(english);
  });
});
