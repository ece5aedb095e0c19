/**
 * Every command line the README's `sh` blocks tell a newcomer to type works as written from a clone:
 * each `skillgate …` line parses against the real command line (no unknown command or option), each
 * `npm …` line names a script or step the package has, and `skillgate` is reachable the two ways the
 * README gives (the package's bin, which `npm install -g .` links, and `npx skillgate` in the folder).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { registry } from "../../commands/index.js";
import { buildProgram, packageVersion } from "../../src/cli/program.js";

const root = path.resolve(import.meta.dirname, "../..");
const readme = readFileSync(path.join(root, "README.md"), "utf8");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
  version: string;
  bin: Record<string, string>;
  scripts: Record<string, string>;
};

/** The command lines of the README's `sh` blocks, comments removed. */
function shellLines(): string[] {
  const lines: string[] = [];
  for (const block of readme.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const raw of (block[1] ?? "").split("\n")) {
      const line = raw.replace(/\s+#.*$/, "").trim();
      if (line && !line.startsWith("#")) lines.push(line);
    }
  }
  return lines;
}

/** Splits a shell line into words (the README's lines use plain words and single quotes only). */
function words(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] ?? "");
}

describe("the README's commands", () => {
  const lines = shellLines();

  it("has the newcomer's steps: install, put skillgate on PATH, the demo, init, start, doctor, test", () => {
    for (const step of [
      "npm install",
      "npm install -g .",
      "skillgate serve --demo",
      "skillgate init --examples",
      "npm start",
      "skillgate doctor",
      "npm test",
    ])
      expect(lines, step).toContain(step);
    // skillgate is on PATH before the first line that uses it.
    expect(lines.indexOf("npm install -g .")).toBeLessThan(
      lines.findIndex((line) => line.startsWith("skillgate ")),
    );
  });

  it("every skillgate line parses as a real command with real options", async () => {
    const used = lines.filter((line) => line.startsWith("skillgate "));
    expect(used.length).toBeGreaterThan(2);
    for (const line of used) {
      const picked: unknown[] = [];
      const errors: string[] = [];
      const program = buildProgram(registry, (selection) => picked.push(selection), {
        stdout: { write: () => true } as unknown as NodeJS.WritableStream,
        stderr: { write: (text: string) => errors.push(text) > 0 } as unknown as NodeJS.WritableStream,
      });
      await program.parseAsync(words(line).slice(1), { from: "user" });
      expect(errors.join(""), line).toBe("");
      expect(picked, line).toHaveLength(1);
      expect((picked[0] as { kind: string }).kind, line).not.toBe("usage");
    }
  });

  it("every npm line is a step npm has or a script of this package", () => {
    for (const line of lines.filter((text) => text.startsWith("npm "))) {
      const [, verb, name] = words(line);
      if (verb === "run") expect(Object.keys(manifest.scripts), line).toContain(name);
      else if (verb === "start" || verb === "test")
        expect(Object.keys(manifest.scripts), line).toContain(verb);
      else expect(["install", "config"], line).toContain(verb);
    }
  });

  it("skillgate is the package's bin, built with a node shebang, and npx finds it in this folder", () => {
    const bin = path.join(root, manifest.bin.skillgate ?? "");
    expect(existsSync(bin)).toBe(true);
    expect(readFileSync(bin, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
    expect(packageVersion()).toBe(manifest.version);
    // npx keeps what it resolved for a folder in its cache (`_npx/<hash of the path>`), bin links
    // included, and does not notice when the folder's bin moves; a cache of its own makes this the
    // lookup a newcomer's first `npx skillgate` does, whatever this machine ran before.
    const cache = mkdtempSync(path.join(tmpdir(), "skillgate-npx-cache-"));
    try {
      const printed = execFileSync("npx", ["--no-install", "skillgate", "--version"], {
        cwd: root,
        encoding: "utf8",
        env: {
          ...process.env,
          npm_config_update_notifier: "false",
          npm_config_cache: cache,
          npm_config_offline: "true",
        },
      });
      expect(printed.trim()).toBe(manifest.version);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  }, 120_000);
});
