/** Temp homes and skill folders for the skills tests. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach } from "vitest";
import { parseConfig, type SkillgateConfig } from "../../src/config/config.js";

/** A fresh temp home; `cleanup` removes it. */
export function tempHome(prefix = "skillgate-skills-"): {
  home: string;
  skills: string;
  cleanup: () => void;
} {
  const home = mkdtempSync(path.join(os.tmpdir(), prefix));
  const skills = path.join(home, "skills");
  return { home, skills, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

/**
 * Makes a temp home before each test of the enclosing `describe` (or file) and hands it to `use`; after the
 * test, closes every library pushed onto the returned list, then removes the home.
 */
export function tempHomeEachTest(use: (env: ReturnType<typeof tempHome>) => void): { close?: () => void }[] {
  const opened: { close?: () => void }[] = [];
  let env: ReturnType<typeof tempHome> | undefined;
  beforeEach(() => {
    env = tempHome();
    use(env);
  });
  afterEach(() => {
    for (const library of opened.splice(0)) library.close?.();
    env?.cleanup();
  });
  return opened;
}

/** Writes `<base>/<rel>/SKILL.md` with the given frontmatter lines and body; returns the folder. */
export function writeSkill(
  base: string,
  rel: string,
  frontmatter: string | null,
  body = "# Title\n\nBody text.\n",
): string {
  const dir = path.join(base, rel);
  mkdirSync(dir, { recursive: true });
  const text = frontmatter === null ? body : `---\n${frontmatter}\n---\n${body}`;
  writeFileSync(path.join(dir, "SKILL.md"), text);
  return dir;
}

/** Writes a file (creating folders). */
export function writeFile(file: string, text: string | Uint8Array): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** A config from a config.yaml-like object. */
export function config(document: Record<string, unknown> = {}): SkillgateConfig {
  return parseConfig(document);
}

/** Polls `check` until it returns true or `timeoutMs` passes. */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  timeoutMs = 5000,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}
