/**
 * The layer check (dependency-cruiser with `.dependency-cruiser.cjs`) passes on the tree and names the
 * rule when an import goes the wrong way, in a throwaway fixture laid out like the project.
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
const depcruise = path.join(root, "node_modules", ".bin", "depcruise");
const config = path.join(root, ".dependency-cruiser.cjs");

function cruise(cwd: string, targets: string[]): { status: number | null; output: string } {
  const result = spawnSync(depcruise, [...targets, "--config", config, "--output-type", "err"], {
    cwd,
    encoding: "utf8",
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const fixtures: string[] = [];
afterAll(() => {
  for (const dir of fixtures) rmSync(dir, { recursive: true, force: true });
});

/** A small tree with the project's folders; `files` maps relative paths to their source. */
function fixture(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), "skillgate-layers-"));
  fixtures.push(dir);
  writeFileSync(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", strict: true } }),
  );
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

describe("layer check", () => {
  it("finds no violation in the source tree", { timeout: 180_000 }, () => {
    const { status, output } = cruise(root, ["src", "commands", "adapters"]);
    expect(output).toContain("no dependency violations found");
    expect(status).toBe(0);
  });

  it("names the rule a wrong import breaks", { timeout: 120_000 }, () => {
    const dir = fixture({
      "src/core/reply.ts":
        'import { runGateway } from "../gateway/gateway.js";\nexport const r = runGateway;\n',
      "src/gateway/gateway.ts": "export const runGateway = 1;\n",
      "commands/chat.ts":
        'import { runGateway } from "../src/gateway/gateway.js";\nexport const c = runGateway;\n',
      "adapters/acme/index.ts": 'import { c } from "../../commands/chat.js";\nexport const a = c;\n',
      "src/skills/a.ts": 'import { b } from "./b.js";\nexport const a = () => b;\n',
      "src/skills/b.ts": 'import { a } from "./a.js";\nexport const b = () => a;\n',
    });
    const { status, output } = cruise(dir, ["src", "commands", "adapters"]);
    expect(status).not.toBe(0);
    expect(output).toMatch(
      /error core-imports-nothing-above: src\/core\/reply\.ts → src\/gateway\/gateway\.ts/,
    );
    expect(output).toMatch(/error commands-below-gateway: commands\/chat\.ts → src\/gateway\/gateway\.ts/);
    expect(output).toMatch(/error adapters-import-only-core: adapters\/acme\/index\.ts → commands\/chat\.ts/);
    expect(output).toMatch(/error no-cycles: src\/skills\/a\.ts →/);
  });

  it("lets an adapter import the core and its own folder", { timeout: 120_000 }, () => {
    const dir = fixture({
      "src/core/message.ts": "export const m = 1;\n",
      "adapters/acme/render.ts": 'import { m } from "../../src/core/message.js";\nexport const r = m;\n',
      "adapters/acme/index.ts":
        'import { r } from "./render.js";\nimport path from "node:path";\nexport const a = [r, path.sep];\n',
    });
    const { status, output } = cruise(dir, ["src", "adapters"]);
    expect(output).toContain("no dependency violations found");
    expect(status).toBe(0);
  });
  it("holds the Redis client, the platform SDKs and child_process to their folders", {
    timeout: 120_000,
  }, () => {
    const dir = fixture({
      // An installed package resolves into node_modules (here under a `dist/` folder, as redis ships).
      "node_modules/redis/package.json": '{ "name": "redis", "main": "./dist/index.js" }\n',
      "node_modules/redis/dist/index.js": "export const createClient = () => undefined;\n",
      "src/core/store.ts": 'import { createClient } from "redis";\nexport const s = createClient;\n',
      "src/core/bot.ts": 'import { Bot } from "grammy";\nexport const b = Bot;\n',
      "src/gateway/lark.ts": 'import * as lark from "@larksuiteoapi/node-sdk";\nexport const l = lark;\n',
      "adapters/telegram/discord.ts": 'import { Client } from "discord.js";\nexport const d = Client;\n',
      "src/skills/run.ts": 'import { spawn } from "node:child_process";\nexport const r = spawn;\n',
      // Where each belongs: no error for these.
      "src/gateway/coordination/redis.ts":
        'import { createClient } from "redis";\nexport const c = createClient;\n',
      "adapters/telegram/connection.ts": 'import { Bot } from "grammy";\nexport const t = Bot;\n',
      "commands/run.ts": 'import { spawn } from "node:child_process";\nexport const r = spawn;\n',
    });
    const { status, output } = cruise(dir, ["src", "commands", "adapters"]);
    expect(status).not.toBe(0);
    expect(output).toMatch(
      /error redis-only-in-coordination: src\/core\/store\.ts → node_modules\/redis\/dist\/index\.js/,
    );
    expect(output).toMatch(/error grammy-only-in-telegram-adapter: src\/core\/bot\.ts → grammy/);
    expect(output).toMatch(
      /error lark-sdk-only-in-feishu-adapter: src\/gateway\/lark\.ts → @larksuiteoapi\/node-sdk/,
    );
    expect(output).toMatch(
      /error discord-js-only-in-discord-adapter: adapters\/telegram\/discord\.ts → discord\.js/,
    );
    expect(output).toMatch(/error child-process-only-where-a-process-starts: src\/skills\/run\.ts → /);
    expect(output).not.toMatch(
      /src\/gateway\/coordination\/redis\.ts|adapters\/telegram\/connection\.ts|commands\/run\.ts/,
    );
  });
});

describe("docs/architecture.md", () => {
  const page = readFileSync(path.join(root, "docs", "architecture.md"), "utf8");
  /** The layer chain as written on a line `src/core ← … ← src/cli`. */
  const chainIn = (text: string) => text.match(/src\/core( ← [a-z/]+)+/)?.[0].split(" ← ");

  it("names the layers in the order the layer check enforces them", () => {
    const rules = chainIn(readFileSync(config, "utf8"));
    expect(rules).toBeDefined();
    expect(rules?.length).toBeGreaterThanOrEqual(8);
    expect(chainIn(page)).toEqual(rules);
  });

  it("names only files and folders that exist", () => {
    const named = [...page.matchAll(/`((?:src|adapters|commands|test)\/[A-Za-z0-9_./-]+)`/g)].map(
      (match) => match[1] as string,
    );
    expect(named.length).toBeGreaterThan(20);
    const missing = named.filter((file) => !existsSync(path.join(root, file)));
    expect(missing).toEqual([]);
  });

  it("lists every file of every platform adapter", () => {
    for (const platform of ["telegram", "feishu", "discord"]) {
      const files = readdirSync(path.join(root, "adapters", platform)).filter((file) => file.endsWith(".ts"));
      const row = (file: string) => new RegExp(`\`${file.replace(".", "\\.")}\``);
      expect(
        files.filter((file) => !row(file).test(page)),
        platform,
      ).toEqual([]);
    }
  });
});
